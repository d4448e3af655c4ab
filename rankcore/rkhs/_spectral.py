"""One decomposition of the ranking operator for every filter and every λ (docs/theory/kernel_ranking.md#computation).

With f = Σ_i c_i K(x_i, ·), the centering projector P = I − 11ᵀ/m and the
symmetric operator A = P K P / m = U Σ Uᵀ, every regularized ranking
function (docs/theory/kernel_ranking.md#the-risk) has the coefficients

    c = U g_λ(Σ) Uᵀ b,        b = P y / m,

so a whole grid of λ and every filter share one decomposition.  (For
Tikhonov, c solves (D K / m² + λ I) c = D y / m² with D = m I − 11ᵀ.)

Exact mode (:class:`ExactSpectrum`)
-----------------------------------
The full eigenvector matrix U is never formed -- it costs about as much
again as the rest (``eigh`` at m = 2,000 is 7.5 times a linear solve).
What a path needs is U·h for a few coefficient vectors h:

1. A = Q T Qᵀ by Householder tridiagonalization (LAPACK ``dsytrd``, in
   place: the m × m buffer ends up holding the reflectors that define Q);
2. b̃ = Qᵀ b: the reflectors applied to one vector (``dormtr``, O(m²));
3. T = Z Λ Zᵀ, the tridiagonal eigenproblem (MRRR, ``dstemr``: O(m²)
   flops for all eigenpairs; divide and conquer, ``dstedc``, as fallback);
4. spectral weights w = Zᵀ b̃ (U Σ Uᵀ with U = Q Z, so Uᵀ b = Zᵀ b̃);
5. for k coefficient vectors at once (one per (filter, λ)):
   C = Q · Z · (g ⊙ w) -- one matrix product and one blocked application
   of the reflectors, 4 m² k flops.

Numerical care: eigenvalues are clipped at 0 (rounding can make the zero
eigenvalues of a PSD operator slightly negative; values below 1e-290 are
flushed to 0 as well), the filters are evaluated
stably at and near t = 0, and every coefficient vector is re-centered
(Σ c_i = 0 exactly in exact arithmetic: c lies in the range of P, since b
does and A leaves it invariant), which removes the rounding-level component
along the constant vector that g_λ(0) would otherwise amplify.

Low-rank mode (:class:`NystroemSpectrum`)
-----------------------------------------
With r landmark rows L (Nyström), K ≈ K_mr K_rr⁺ K_rm = F Fᵀ with features
F = K_mr K_rr^{-1/2} (m × q, q ≤ r after dropping K_rr's numerically zero
eigenvalues).  Centered and scaled, F_c = P F / √m gives A ≈ F_c F_cᵀ, whose
nonzero spectrum is that of the q × q matrix M = F_cᵀ F_c = W Σ Wᵀ.  By the
push-through identity F_cᵀ g(F_c F_cᵀ) = g(M) F_cᵀ, the ranking function is
f(x) = Σ_j α_j K(l_j, x) over the landmarks with

    α = K_rr^{-1/2} · √m · W g_λ(Σ) Wᵀ (F_cᵀ b),

the same filters on the low-rank spectrum: O(m r²) time, O(m r) memory.
"""

from __future__ import annotations

import math
import warnings
from typing import Sequence

import numpy as np
import scipy.linalg

from .._caller import outside_stacklevel
from ..filters import Filter
from . import _center, _lapack

__all__ = ["Spectrum", "ExactSpectrum", "NystroemSpectrum", "filter_matrix", "Q_BLOCK"]

#: Reflectors per block when Q is applied to many vectors (LAPACK's dormtr
#: stops at 64; larger blocks make the updates proper matrix products).
Q_BLOCK = 128


def filter_matrix(filters: Sequence[Filter], lams: np.ndarray, t: np.ndarray, norm: float) -> np.ndarray:
    """g_λ(t) for every filter and λ: shape (len(filters), len(lams), len(t))."""
    out = np.empty((len(filters), len(lams), t.shape[0]))
    for i, flt in enumerate(filters):
        out[i] = flt.path(t, lams, norm=norm)
    return out


class Spectrum:
    """The shared eigen-structure of one training set (see the module docs).

    Attributes
    ----------
    eigenvalues : ndarray, shape (n_t,)
        Ascending spectrum of A (clipped at 0); in low-rank mode the q
        nonzero-able eigenvalues (the other m − q are zero).
    weights : ndarray, shape (n_t,)
        Coordinates of b = P y / m in the eigenbasis (only their squares and
        products with filter values matter).
    norm : float
        The largest eigenvalue (1 when every eigenvalue is 0), passed to the
        filters as ‖A‖.
    n_support : int
        Number of rows the coefficients refer to (m, or r landmarks).
    """

    eigenvalues: np.ndarray
    weights: np.ndarray
    norm: float
    n_support: int
    #: The size of the kernel entries, mean |K_ii| (0: unknown).  Centring cancels a constant part of
    #: K (nearly all of it for a very wide rbf), but the rounding of K's entries stays: see lam_floor.
    entry_scale: float = 0.0

    def coefficients(self, G: np.ndarray) -> np.ndarray:
        """Coefficient vectors for filter values ``G`` of shape (k, n_t): shape (k, n_support)."""
        raise NotImplementedError

    @property
    def floor_scale(self) -> float:
        """max(‖A‖, mean |K_ii|): the scale of the rounding noise in A (see :attr:`lam_floor`)."""
        return max(self.norm, self.entry_scale)

    @property
    def lam_floor(self) -> float:
        """The smallest usable λ: n·ε·max(‖A‖, mean |K_ii|) (n eigenvalues, ε the float64 epsilon).

        A computed eigenvalue of the symmetric A is exact only to about
        n·ε·‖A‖ (the backward error of the eigensolver), and A = P K P / m
        carries the rounding of K's entries, about ε·|K_ij| each: when the
        centring cancels most of K (a very wide rbf, K ≈ 1 everywhere, makes
        ‖A‖ ~ 1e-10) that noise, not ‖A‖, sets the floor.  Eigen-directions
        below it are rounding noise.  Every filter amplifies a direction by
        at most about 1/λ (g_λ(0) = 1/λ for Tikhonov, 1/t for t ≥ λ for the
        cut-off): with λ below the floor the noise is amplified beyond the
        signal and the scores are meaningless (|f| of 1e275 at λ = 1e-300;
        training AUC 0.34 where the signal gives 0.9).
        """
        return max(self.eigenvalues.shape[0], 1) * np.finfo(np.float64).eps * self.floor_scale

    @property
    def lam_ceiling(self) -> float:
        """The largest λ that changes the model: ‖A‖/ε.

        Beyond it σ/λ < ε for every eigenvalue σ <= ‖A‖, so λ·g_λ(σ) rounds
        to its limit for every built-in filter (1 for Tikhonov and Showalter,
        ν for iterated Tikhonov; 0 for the cut-off and Landweber, which keep
        no direction at such λ): the coefficients only shrink as 1/λ, the
        ranking is the same, and at λ ~ 1e308 they underflow to subnormal
        numbers (|c| ~ 1e-310) whose digits are lost.
        """
        return self.norm / np.finfo(np.float64).eps

    def usable_lams(self, lams) -> np.ndarray:
        """λ values clipped to [:attr:`lam_floor`, :attr:`lam_ceiling`], with a ``RuntimeWarning`` when any was
        outside."""
        lams = np.asarray(lams, dtype=np.float64).reshape(-1)
        floor = self.lam_floor
        low = lams < floor
        if low.any():
            warnings.warn(
                f"lam: {float(lams[low].min()):.3g} is below the numerical floor n*eps*max(||A||, mean K_ii) = "
                f"{floor:.3g} of this training set (n = {self.eigenvalues.shape[0]} eigenvalues, ||A|| = "
                f"{self.norm:.3g}, mean K_ii = {self.entry_scale:.3g}): eigenvalues that small are rounding noise "
                f"and would be amplified; using lam = {floor:.3g} instead",
                RuntimeWarning, stacklevel=outside_stacklevel())
            lams = np.maximum(lams, floor)
        ceiling = self.lam_ceiling
        high = lams > ceiling
        if high.any():
            warnings.warn(
                f"lam: {float(lams[high].max()):.3g} is above the ceiling ||A||/eps = {ceiling:.3g} of this "
                f"training set (||A|| = {self.norm:.3g}, its largest eigenvalue): beyond it the filters no longer "
                f"depend on the eigenvalues, so the ranking is the same, and the coefficients only shrink (to "
                f"subnormal numbers, losing their digits, near 1e308); using lam = {ceiling:.3g} instead",
                RuntimeWarning, stacklevel=outside_stacklevel())
            lams = np.minimum(lams, ceiling)
        return lams

    def path(self, filters: Sequence[Filter], lams: np.ndarray) -> np.ndarray:
        """Coefficients for every filter and every λ: shape (len(filters), len(lams), n_support).

        λ below :attr:`lam_floor` or above :attr:`lam_ceiling` is clipped to it, with a warning.
        """
        lams = self.usable_lams(lams)
        G = filter_matrix(filters, lams, self.eigenvalues, self.norm)
        C = self.coefficients(G.reshape(-1, G.shape[-1]))
        return C.reshape(len(filters), lams.shape[0], -1)

    def release(self) -> None:
        """Free the large work arrays (after the last :meth:`coefficients` call)."""


def _centered_target(y: np.ndarray) -> np.ndarray:
    m = y.shape[0]
    return (y - y.mean()) / m


#: Eigenvalues below this are set to exactly 0 before filtering: rounding
#: noise of a zero eigenvalue, and subnormal numbers, where (1 − e^{−t/λ})/t
#: and its kind lose their digits (the filter contract covers t ≥ 1e-290).
FLUSH_BELOW = 1e-290


def _clean_spectrum(t: np.ndarray) -> np.ndarray:
    t = np.maximum(t, 0.0)
    t[t < FLUSH_BELOW] = 0.0
    return t


def _norm_of(t: np.ndarray) -> float:
    top = float(t.max()) if t.size else 0.0
    return top if top > 0 else 1.0


def _count_below(d: np.ndarray, e: np.ndarray, sigma: float) -> int:
    """Eigenvalues of the symmetric tridiagonal (d, e) below ``sigma`` (Sturm count, O(m)).

    The number of negative pivots of the LDLᵀ factorization of T − σ I; a
    zero pivot is replaced by −pivmin as LAPACK's ``dlaneg`` does.
    """
    e2 = np.square(np.asarray(e, dtype=np.float64)).tolist()
    pivmin = np.finfo(np.float64).tiny * max(max(e2) if e2 else 0.0, 1.0)
    count = 0
    q = float(d[0]) - sigma
    if abs(q) < pivmin:
        q = -pivmin
    if q < 0:
        count += 1
    for i, di in enumerate(np.asarray(d, dtype=np.float64).tolist()[1:]):
        q = di - sigma - e2[i] / q
        if abs(q) < pivmin:
            q = -pivmin
        if q < 0:
            count += 1
    return count


class ExactSpectrum(Spectrum):
    """Exact decomposition of A = P K P / m without forming U (module docs, steps 1-5).

    Time O(m³) for the tridiagonalization (4/3 m³ flops) plus O(m²) for the
    tridiagonal eigenproblem (MRRR); memory two m × m arrays (the reflectors,
    in the kernel matrix's own buffer, and Z).
    """

    def __init__(self, K: np.ndarray, y: np.ndarray, *, n_threads: int = 1, eigensolver: str = "mrrr",
                 min_eigenvalue: float | None = None) -> None:
        """Decompose; ``K`` (m × m, C-contiguous float64, symmetric) is overwritten.

        Parameters
        ----------
        K : ndarray, shape (m, m)
            The kernel matrix of the training rows; becomes the work buffer.
        y : ndarray, shape (m,)
            Relevance values (float64).
        n_threads : int
            Threads for the in-place centering (BLAS threads are set by the caller).
        eigensolver : {"mrrr", "dc"}
            Tridiagonal eigensolver: MRRR (``dstemr``, default) or divide and
            conquer (``dstedc``).  MRRR falls back to divide and conquer if it fails.
        min_eigenvalue : float or None
            Only the eigenpairs with eigenvalue ≥ this (and a few below, as a
            margin against rounding at the boundary) are computed when they are
            at most a quarter of all: MRRR on an index range costs about in
            proportion to its size plus a bisection (all 2,000 eigenpairs cost
            1.5 direct solves at m = 2,000, the top 200 a third of that).
            Valid only for filters that vanish below it -- the
            spectral cut-off at λ ≥ ``min_eigenvalue``, which is what the
            Krylov route's fallback asks for; the other filters need every
            eigenpair.  None (default): all eigenpairs.
        """
        if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] != y.shape[0]:
            raise ValueError(f"ExactSpectrum: K must be m x m with m = len(y) = {y.shape[0]}, got {K.shape}")
        if not (K.flags.c_contiguous and K.dtype == np.float64 and K.flags.writeable):
            raise ValueError("ExactSpectrum: K must be a writeable C-contiguous float64 array")
        m = y.shape[0]
        self.n_support = m
        b = _centered_target(np.asarray(y, dtype=np.float64))
        self.entry_scale = float(np.abs(np.diagonal(K)).mean())    # before the centring cancels it
        _center.center_inplace(K, n_threads)  # K <- P K P / m
        if m == 1:
            self._n_eigen = 1
            self._a, self._tau = K, np.empty(0)
            self._z = np.ones((1, 1))
            self._u_formed = True
            self.eigenvalues = _clean_spectrum(np.array([K[0, 0]]))
            self.weights = b.copy()
            self.norm = _norm_of(self.eigenvalues)
            return
        d, e, tau = _lapack.sytrd(K)
        self._a, self._tau = K, tau
        bt = np.ascontiguousarray(b[None, :])
        _lapack.ormtr(K, tau, bt, True)  # b~ = Q^T b
        self._n_eigen = m
        if min_eigenvalue is not None and eigensolver == "mrrr":
            # the eigenvalues below the bound, counted by Sturm's theorem (O(m)), then the vectors from
            # the first one that may be ≥ the bound (a margin for rounding: two more, and the bound lowered
            # by the eigensolver's backward error)
            scale = float(np.abs(d).max() + 2 * np.abs(e).max()) if m > 1 else abs(float(d[0]))
            margin = 1e-8 * float(min_eigenvalue) + m * np.finfo(np.float64).eps * scale
            start = max(0, _count_below(d, e, float(min_eigenvalue) - margin) - 2)
            if m - start > m // 4:
                # MRRR on an index range pays a bisection for it: measured at m = 2,000, the top 200
                # eigenpairs cost 109 ms, the top 700 397 ms, all 2,000 311 ms -- beyond a quarter, all
                start = 0
        else:
            start = 0
        if eigensolver == "mrrr":
            try:
                t, Z = _lapack.stemr(d, e, start, m)
            except RuntimeError:  # MRRR can fail on pathological clusters; D&C does not
                t, Z = _lapack.stedc(d, e)
        elif eigensolver == "dc":
            t, Z = _lapack.stedc(d, e)
        else:
            raise ValueError(f"eigensolver: expected 'mrrr' or 'dc', got {eigensolver!r}")
        self._z = Z
        self._u_formed = False
        self.eigenvalues = _clean_spectrum(t)
        self.weights = _lapack.gemv_rows(Z, bt[0])
        self.norm = _norm_of(self.eigenvalues)

    @property
    def lam_floor(self) -> float:
        """n·ε·max(‖A‖, mean |K_ii|) with n = m, also when only some eigenpairs were computed."""
        return max(self._n_eigen, 1) * np.finfo(np.float64).eps * self.floor_scale

    def coefficients(self, G: np.ndarray) -> np.ndarray:
        if self._z is None:
            raise RuntimeError("ExactSpectrum: the work arrays were released")
        G = np.asarray(G, dtype=np.float64)
        if G.ndim != 2 or G.shape[1] != self.eigenvalues.shape[0]:
            raise ValueError(f"coefficients: expected filter values of shape (k, {self.eigenvalues.shape[0]}), "
                             f"got {G.shape}")
        m = self.n_support
        H = np.ascontiguousarray(G * self.weights)
        if not self._u_formed and H.shape[0] > m and m > 1:
            # More vectors than rows: Q·Z·H costs 4 m² k flops, forming
            # U = Q·Z once (2 m³, in Z's buffer) and then U·H costs 2 m³ + 2 m² k.
            _lapack.apply_q_blocked(self._a, self._tau, self._z, Q_BLOCK)  # rows of Z become eigenvectors of A
            self._u_formed = True
        C = np.empty((H.shape[0], m))
        _lapack.gemm_rows(H, self._z, C)  # (Z or U)(g ⊙ w), one row per (filter, λ)
        if m > 1 and not self._u_formed:
            if C.shape[0] == 1:
                _lapack.ormtr(self._a, self._tau, C, False)  # Q · (one vector)
            else:
                _lapack.apply_q_blocked(self._a, self._tau, C, Q_BLOCK)  # Q · (k vectors)
        C -= C.mean(axis=1, keepdims=True)  # back onto range(P): see the module docs
        return C

    def release(self) -> None:
        self._a = self._z = None


class NystroemSpectrum(Spectrum):
    """Low-rank (Nyström) decomposition over landmark rows (module docs).

    Time O(m r² + r³) after the m × r kernel block; memory O(m r).
    """

    def __init__(self, K_mr: np.ndarray, K_rr: np.ndarray, y: np.ndarray) -> None:
        """Decompose from the kernel block K(X, L) (m × r) and K(L, L) (r × r).

        ``K_mr`` is not kept (nor modified).
        """
        m, r = K_mr.shape
        if K_rr.shape != (r, r) or y.shape[0] != m:
            raise ValueError(f"NystroemSpectrum: shapes do not match: K_mr {K_mr.shape}, K_rr {K_rr.shape}, "
                             f"y {y.shape}")
        self.entry_scale = float(np.abs(np.diagonal(K_rr)).mean()) if r else 0.0
        s, V = scipy.linalg.eigh(0.5 * (K_rr + K_rr.T))
        # K_rr's eigenvalues below rounding level carry no information: drop
        # them (the pseudo-inverse), as scikit-learn's Nystroem does.
        keep = s > max(float(s.max()) if s.size else 0.0, 0.0) * r * np.finfo(float).eps
        self._root = np.ascontiguousarray(V[:, keep] / np.sqrt(s[keep]))  # K_rr^{-1/2}: r x q
        F = K_mr @ self._root  # m x q features
        F -= F.mean(axis=0)
        F /= math.sqrt(m)
        M = F.T @ F
        t, W = scipy.linalg.eigh(0.5 * (M + M.T))
        self._w_basis = W
        self._scale = math.sqrt(m)
        self.eigenvalues = _clean_spectrum(t)
        self.weights = W.T @ (F.T @ _centered_target(np.asarray(y, dtype=np.float64)))
        self.norm = _norm_of(self.eigenvalues)
        self.n_support = r
        self.rank = int(keep.sum())

    def coefficients(self, G: np.ndarray) -> np.ndarray:
        G = np.asarray(G, dtype=np.float64)
        if G.ndim != 2 or G.shape[1] != self.eigenvalues.shape[0]:
            raise ValueError(f"coefficients: expected filter values of shape (k, {self.eigenvalues.shape[0]}), "
                             f"got {G.shape}")
        beta = self._scale * ((G * self.weights) @ self._w_basis.T)  # k x q
        return beta @ self._root.T  # k x r coefficients over the landmarks

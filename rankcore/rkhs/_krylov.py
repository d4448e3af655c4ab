"""One Lanczos basis for every filter and every λ.

The exact path (:mod:`rankcore.rkhs._spectral`) pays (4/3) m³ flops for the
tridiagonal reduction before the first coefficient.  Here the same
coefficients c = g_λ(A) b, A = P K P / m, b = P y / m, come from a Krylov
space of the one vector b.

Why one basis serves everything
-------------------------------
(D K / m² + λ I) c = D y / m² with D = m I − 11ᵀ = m P is (P K / m + λ I) c
= P y / m; its solution lies in range(P) (apply P: λ (c − P c) = 0), where
P K c = P K P c, so it is the symmetric positive semi-definite system
(A + λ I) c = b.  Every λ is a shift of one matrix, and the Lanczos
relation A V_j = V_j T_j + β_j v_{j+1} e_jᵀ with v_1 = b/‖b‖ gives for any
filter the Galerkin (Lanczos) approximation

    c_j = ‖b‖ V_j g_λ(T_j) e_1 = V_j S g_λ(Θ) (‖b‖ Sᵀ e_1),   T_j = S Θ Sᵀ:

the exact path's formula with the Ritz values Θ in place of the
eigenvalues and V_j S in place of U.  For Tikhonov it is conjugate gradients
on every shifted system at once (multi-shift CG: one sequence of matrix–vector
products for all λ).  :class:`KrylovSpectrum` is therefore a
:class:`~rankcore.rkhs._spectral.Spectrum`: the λ path, the hold-out and
a-priori choices and the graded objective use it unchanged.

Stopping: a bound for every (filter, λ)
---------------------------------------
* Tikhonov: the residual of the shifted system is exactly
  r_j(λ) = −‖b‖ β_j (e_jᵀ (T_j + λ)^{-1} e_1) v_{j+1}, so
  ‖c − c_j‖ ≤ ‖r_j(λ)‖ / λ (A + λ I ⪰ λ I) -- a rigorous bound (in exact
  arithmetic; full re-orthogonalization keeps the computed basis within
  rounding of it), and the training-score error ‖A (c − c_j)‖ ≤ ‖r_j(λ)‖.
* Smooth filters (iterated Tikhonov, Landweber, Showalter): the difference
  between the current iterate and the one ``lag`` (4) steps earlier (padded
  with zeros), the standard estimate for Krylov matrix functions (it is the
  error of the earlier iterate; measured at m = 2,000 it is 1-10 times the
  true error), in the coefficient norm and in the score norm ‖T_j y‖ ≈ ‖A c‖
  (the relative score error weighs the large eigenvalues, where Landweber's
  coefficients converge last), *and* the Tikhonov bound at the filter's
  scale λ_eff (λ, or λ‖A‖ for Landweber, whose k = ⌊1/λ⌋ steps of size
  1/‖A‖ resolve eigenvalues down to about λ‖A‖) to tol^(1/4).  The second
  condition guards the first against a plateau: it certifies that b's
  components on the eigenvalues above λ_eff -- those the filter inverts --
  are resolved (to tol^(1/4); the difference estimate certifies tol).
* Spectral cut-off, a step function, additionally needs every Ritz value on
  the right side of the step: each Ritz value θ_i lies within
  β_j |S_{j,i}| of an eigenvalue, and a λ inside such an interval is not
  converged.

A (filter, λ) not certified within ``max_iter`` steps is reported by a
:class:`KrylovConvergenceWarning` and, when the caller supplies an exact
route (``exact``), computed by it.

Checks
------
A check costs two eigendecompositions of small tridiagonals (T_{j−lag} and
T_j, about 1 ms each at j = 150) and O(k j²) for the k pairs not yet
certified -- a few Lanczos steps' worth at m = 2,000.  So checks are not
made every step nor on a fixed schedule: each one records, per pending
(filter, λ), the ratio of its error estimate to its threshold, and the next
check is where the geometric decay of that ratio since the previous check
brings the slowest pending pair to its threshold (0.85 times the
extrapolated steps, at least ``lag``, at most j/2 further).  Measured at
m = 2,000 on the benchmark's problem: 181 steps for the four smooth filters
down to λ = 3.5e-5, where the iterates are within 1e-8 after about 170
(the earlier fixed schedule with j/8 spacing and a √tol guard: 230).

The spectral cut-off in the dense part of the spectrum
------------------------------------------------------
A step at λ needs every eigenpair above λ resolved, which in the dense part
of a kernel spectrum takes about as many Lanczos steps as there are such
eigenvalues (695 above λ = 3.5e-5 at m = 2,000) -- more than the exact
route costs.  No cheaper certificate exists there: b's weight on the
eigenvalues around λ (bounded through the Gauss quadrature of T_j) is not
small for noisy y, so the cut-off solution genuinely depends on individual
eigenvectors near λ.  Hence, once only cut-off values are pending, Lanczos
continues only while extrapolation says they certify within j/8 more
steps, and the rest go to the exact route at once.  That route needs only
the eigenpairs above the smallest such λ (the filter vanishes below it):
a factory that takes ``min_eigenvalue`` (:class:`ExactSpectrum` does) is
asked for just those, which saves MRRR time when they are few (below a
quarter of all; the tridiagonal reduction, 4/3 m³ flops, is paid anyway --
a partial ``scipy.linalg.eigh(subset_by_value=...)`` pays it too, and then
forms the eigenvectors, 2 m² r more flops, where the exact path applies the
reflectors to the k coefficient vectors only).

Re-orthogonalization: full, with the "twice is enough" test
------------------------------------------------------------
Plain Lanczos loses orthogonality as soon as a Ritz value converges and
then produces ghost copies of it; g(T_j) e_1 is then no longer the Galerkin
approximation, and the Tikhonov bound above stops being a bound.  Full
re-orthogonalization (classical Gram–Schmidt against V_j, repeated once
when the vector lost more than 1 − 1/√2 of its norm, Daniel–Gragg–Kaufman–
Stewart) keeps V_j orthonormal to rounding.  Its cost, about 4 m j flops
per step, stays below the 2 m² of the matrix–vector product as long as
j < m / 2 -- always the case where Krylov pays off -- so selective
re-orthogonalization (cheaper, but with estimated rather than measured
orthogonality) would save little and cost certainty.

Operators
---------
The matrix–vector product is pluggable (:class:`DenseOperator`: a kernel
matrix in memory; :class:`BlockKernelOperator`: matrix-free, kernel rows
computed block by block by the kernel's compiled Gram routine, never the
m × m matrix; :class:`LowRankOperator`: K ≈ F Fᵀ from Nyström or random
features); each also has ``matmat`` (s vectors at once) for block Lanczos
(:class:`~rankcore.rkhs._block_krylov.BlockKrylovSpectrum`).
Memory: O(m (j + block)) besides what the operator holds (O(m (n + s)) for
a block basis of dimension n).
"""

from __future__ import annotations

import math
import warnings
from typing import Callable, Sequence

import numpy as np
import scipy.linalg

from .._caller import outside_stacklevel
from ..filters import Filter
from ._spectral import FLUSH_BELOW, Spectrum

__all__ = [
    "KrylovSpectrum",
    "KrylovConvergenceWarning",
    "DenseOperator",
    "BlockKernelOperator",
    "LowRankOperator",
    "DEFAULT_TOL",
    "DEFAULT_MAX_ITER",
]

#: Relative coefficient error certified for every (filter, λ) by default
#: (for the smooth filters, estimated in the score norm as well).  Training
#: scores then agree with the exact path to ~1e-9 relative (measured: at most
#: 4e-10 on the benchmark's problems), well inside the 1e-6 the hold-out
#: choice needs.
DEFAULT_TOL = 1e-8

#: Default cap on Lanczos steps (also capped at m).
DEFAULT_MAX_ITER = 1000


class KrylovConvergenceWarning(UserWarning):
    """Some (filter, λ) did not meet its error bound within ``max_iter`` Lanczos steps."""


# ----------------------------------------------------------------------
# Operators: v -> K v (the uncentered kernel matrix times a vector)
# ----------------------------------------------------------------------
class DenseOperator:
    """K v with the kernel matrix in memory: one BLAS-2 pass over half of K.

    K is symmetric, so a symmetric product (BLAS ``dsymv``) reads one triangle:
    half the memory traffic of a general product, and the product is
    memory-bound (measured at m = 2,000 on one thread: 0.76 ms against
    1.45 ms for ``K @ v`` alone, 0.90 ms against 1.25 ms inside Lanczos).  The lower triangle of the C-ordered K (its
    upper triangle as the Fortran-ordered ``K.T``, no copy) is the one read;
    a K that is not C-contiguous float64 gets the general product.  2 m²
    flops, O(m) extra memory.
    """

    def __init__(self, K: np.ndarray) -> None:
        self.K = K
        self.shape = K.shape
        self.m = K.shape[0]
        self._symv = None
        if K.ndim == 2 and K.dtype == np.float64 and K.flags.c_contiguous and K.shape[0] > 0:
            from scipy.linalg.blas import dsymv

            self._symv = dsymv

    def __call__(self, v: np.ndarray) -> np.ndarray:
        if self._symv is not None:
            return self._symv(1.0, self.K.T, v)
        return self.K @ v

    def matmat(self, V: np.ndarray) -> np.ndarray:
        """Rows of V (s, m) times K: (K Vᵀ)ᵀ = V K (K symmetric); one GEMM, 2 m² s flops."""
        return V @ self.K


class BlockKernelOperator:
    """K v without K: rows of K computed ``block`` at a time, in compiled code.

    Each product evaluates the whole kernel again (m² kernel values) and
    keeps only ``block`` × m of it: memory O(block · m).  For ``rbf`` the
    block's inner products are one GEMM over rows centered once, and the
    exponentials are fused with the dot product (:mod:`rankcore.rkhs._matfree`);
    other kernels use their own compiled Gram routine and a GEMV.
    """

    def __init__(self, kernel, X: np.ndarray, *, block: int = 1024, n_threads: int = 1) -> None:
        self.kernel, self.X = kernel, np.ascontiguousarray(X, dtype=np.float64)
        self.m = X.shape[0]
        self.shape = (self.m, self.m)
        self.block = max(1, int(block))
        self.n_threads = n_threads
        self._rbf = None
        if getattr(kernel, "name", None) == "rbf" and not getattr(kernel, "needs_data", True):
            Xc = np.ascontiguousarray(self.X - self.X.mean(axis=0))  # as the kernel itself centers (accuracy)
            self._rbf = (Xc, np.einsum("ij,ij->i", Xc, Xc), 1.0 / float(kernel.gamma))

    def __call__(self, v: np.ndarray) -> np.ndarray:
        from ..kernels import inner_products
        from . import _matfree

        v = np.ascontiguousarray(v, dtype=np.float64)
        out = np.empty(self.m)
        for start in range(0, self.m, self.block):
            stop = min(start + self.block, self.m)
            if self._rbf is not None:
                Xc, sq, inv_gamma = self._rbf
                G = inner_products(Xc[start:stop], Xc, False)
                _matfree.rbf_rows_dot(G, sq[start:stop], sq, inv_gamma, v, out[start:stop], self.n_threads)
            else:  # the kernel was validated at fit: call its compiled routine directly
                rows = np.asarray(self.kernel.compute(self.X[start:stop], self.X, self.n_threads), dtype=np.float64)
                out[start:stop] = rows @ v
        return out

    def matmat(self, V: np.ndarray) -> np.ndarray:
        """Rows of V (s, m) times K, one sweep over the kernel for all s vectors.

        The m² kernel values (for ``rbf``: m² exponentials, the dominant cost)
        are computed once per sweep whatever s, ``block`` rows at a time, and
        one GEMM per block multiplies them with all s vectors: block Krylov
        divides the kernel cost by the ratio of block steps to single steps.
        O(m² s) multiply-adds (BLAS-3), memory O(block · m + m s).
        """
        from ..kernels import inner_products
        from . import _matfree

        Vt = np.ascontiguousarray(np.asarray(V, dtype=np.float64).T)  # (m, s)
        out = np.empty((self.m, Vt.shape[1]))
        for start in range(0, self.m, self.block):
            stop = min(start + self.block, self.m)
            if self._rbf is not None:
                Xc, sq, inv_gamma = self._rbf
                G = np.asarray(inner_products(Xc[start:stop], Xc, False))
                _matfree.rbf_rows_exp(G, sq[start:stop], sq, inv_gamma, self.n_threads)
                out[start:stop] = G @ Vt
            else:
                rows = np.asarray(self.kernel.compute(self.X[start:stop], self.X, self.n_threads), dtype=np.float64)
                out[start:stop] = rows @ Vt
        return np.ascontiguousarray(out.T)


class LowRankOperator:
    """K v ≈ F (Fᵀ v) for features F (m × q): Nyström or random features; O(m q) per product."""

    def __init__(self, F: np.ndarray) -> None:
        self.F = F
        self.m = F.shape[0]
        self.shape = (self.m, self.m)

    def __call__(self, v: np.ndarray) -> np.ndarray:
        return self.F @ (self.F.T @ v)

    def matmat(self, V: np.ndarray) -> np.ndarray:
        """Rows of V (s, m) times F Fᵀ: O(m q s)."""
        return (V @ self.F) @ self.F.T


# ----------------------------------------------------------------------
# The exact route for the pairs Lanczos cannot certify
# ----------------------------------------------------------------------
def _takes_min_eigenvalue(factory) -> bool:
    import inspect

    try:
        return "min_eigenvalue" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


class _PartialExact:
    """An exact spectrum with the eigenpairs above ``floor`` only, for cut-off values at λ ≥ floor.

    Any other request (another filter, or a cut-off below ``floor``) builds
    the full decomposition from the factory and uses it from then on.
    """

    def __init__(self, factory, floor: float) -> None:
        self._factory, self.floor = factory, floor
        self._partial = factory(min_eigenvalue=floor)
        self._full = None

    def path(self, filters: Sequence[Filter], lams: np.ndarray) -> np.ndarray:
        lams = np.asarray(lams, dtype=np.float64)
        if self._full is None and all(f.name == "cutoff" for f in filters) and lams.min() >= self.floor:
            return self._partial.path(filters, lams)
        if self._full is None:
            self._partial = None
            self._full = self._factory()
        return self._full.path(filters, lams)


# ----------------------------------------------------------------------
# Lanczos
# ----------------------------------------------------------------------
def _effective_lams(flt: Filter, lams: np.ndarray, norm: float) -> np.ndarray:
    """The spectral scale below which ``flt`` stops inverting (module docs)."""
    if flt.uses_norm:
        return lams * norm
    return lams


class KrylovSpectrum(Spectrum):
    """Lanczos approximation of the ranking operator's spectral path (module docs).

    The basis is built lazily by :meth:`path`, as far as the requested
    filters and λ need: a later call with smaller λ extends it.

    Time: j products with K (2 m² flops each for a dense K) plus 4 m j²
    for re-orthogonalization and O(j² + k j²) per convergence check (k pairs
    not yet certified; module docs, "Checks"); the path then
    costs 2 m j k for k coefficient vectors.  Memory: the basis, m (j + 1)
    doubles.

    Parameters
    ----------
    operator : callable
        v -> K v for the (uncentered, symmetric PSD) kernel matrix; has ``m``.
    y : ndarray, shape (m,)
    tol : float
        Relative error (in the 2-norm of the coefficients) certified for every
        (filter, λ) (module docs).
    max_iter : int
        Cap on Lanczos steps (and on the basis memory).
    lag : int
        Steps between the two iterates the difference estimate compares (the
        estimate is the error of the earlier one); checks themselves are
        scheduled by extrapolation (module docs, "Checks").
    exact : callable or None
        ``exact() -> Spectrum`` of the same problem, used for the (filter, λ)
        that miss their bound; None keeps the Krylov values (with the warning).
        A factory that also takes ``min_eigenvalue=`` (as
        :class:`~rankcore.rkhs._spectral.ExactSpectrum` does) is asked for the
        eigenpairs above the smallest λ only, when every missed pair is a
        spectral cut-off value (module docs).
    post : ndarray or None, shape (m, n_support)
        Maps coefficients over the m rows to the support (for a low-rank
        operator: coefficients over the landmarks); None = the m rows.
    """

    #: A check is at most this fraction of the basis size after the previous one.
    _growth = 0.5

    def __init__(self, operator: Callable[[np.ndarray], np.ndarray], y: np.ndarray, *,
                 tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER, lag: int = 4,
                 exact: Callable[[], Spectrum] | None = None, post: np.ndarray | None = None) -> None:
        m = int(operator.m)
        if y.shape != (m,):
            raise ValueError(f"KrylovSpectrum: y must have shape ({m},), got {y.shape}")
        if not (isinstance(tol, (int, float)) and 0 < float(tol) < 1):
            raise ValueError(f"tol: expected a number in (0, 1), got {tol!r}")
        if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
            raise ValueError(f"max_iter: expected an integer >= 1, got {max_iter!r}")
        self._op, self._m = operator, m
        self.tol, self.max_iter, self.lag = float(tol), int(max_iter), max(1, int(lag))
        self._exact_factory, self._exact = exact, None
        self._post = post
        self.n_support = m if post is None else post.shape[1]
        b = np.asarray(y, dtype=np.float64)
        b = (b - b.mean()) / m
        self._bnorm = float(np.linalg.norm(b))
        self._V = np.zeros((min(64, m + 1), m))
        self._alpha: list[float] = []
        self._beta: list[float] = []
        self._invariant = self._bnorm == 0.0  # y constant: c = 0 for every filter
        if not self._invariant:
            self._V[0] = b / self._bnorm
        self._scale = 0.0  # running estimate of ‖A‖ (largest |α| + β), for the breakdown test
        self.eigenvalues = np.zeros(0)
        self.weights = np.zeros(0)
        self.norm = 1.0
        self.iterations_: dict = {}
        self.unconverged_: list = []

    # -- the Lanczos recurrence ---------------------------------------
    @property
    def n_iter(self) -> int:
        """Lanczos steps taken (the dimension j of the basis)."""
        return len(self._alpha)

    def _step(self) -> None:
        j = len(self._alpha)
        m = self._m
        if j + 1 >= self._V.shape[0]:
            # doubling, capped: the basis never holds more than max_iter + 1 vectors
            grown = np.zeros((max(j + 2, min(2 * self._V.shape[0], m + 1, self.max_iter + 1)), m))
            grown[: self._V.shape[0]] = self._V
            self._V = grown
        v = self._V[j]
        w = np.asarray(self._op(v), dtype=np.float64)
        w = (w - w.mean()) / m  # A v = P K P v / m, with P v = v (v ⊥ 1)
        a = float(v @ w)
        w -= a * v
        if j:
            w -= self._beta[-1] * self._V[j - 1]
        basis = self._V[: j + 1]
        # Full re-orthogonalization, classical Gram-Schmidt with the DGKS test.
        before = float(np.linalg.norm(w))
        w -= basis.T @ (basis @ w)
        after = float(np.linalg.norm(w))
        if after < before / math.sqrt(2.0):
            w -= basis.T @ (basis @ w)
            after = float(np.linalg.norm(w))
        w -= w.mean()  # stay in range(P) to rounding
        after = float(np.linalg.norm(w))
        self._alpha.append(a)
        self._scale = max(self._scale, abs(a) + after)
        self._beta.append(after)
        if after <= 1e-12 * max(self._scale, np.finfo(float).tiny) or j + 1 >= m - 1:
            self._invariant = True  # Krylov space is invariant: the path is exact
            return
        self._V[j + 1] = w / after

    def _ritz(self):
        j = self.n_iter
        alpha = np.asarray(self._alpha)
        if j == 1:
            theta, S = alpha.copy(), np.ones((1, 1))
        else:
            theta, S = scipy.linalg.eigh_tridiagonal(alpha, np.asarray(self._beta[:-1]))
        theta = np.maximum(theta, 0.0)
        theta[theta < FLUSH_BELOW] = 0.0
        return theta, S

    # -- convergence ----------------------------------------------------
    def _state(self, filters: Sequence[Filter], lams: np.ndarray, active: np.ndarray | None = None, ritz=None):
        """Ritz data and the basis coefficients Y (n_f, n_l, j) of every (filter, λ) (only ``active`` ones).

        One filter evaluation over the active λ per filter and one matrix
        product (k × j by j × j) for all of them: O(k j²) for k active pairs.
        ``ritz``: the Ritz pairs (θ, S) of the current basis when already known.
        """
        theta, S = self._ritz() if ritz is None else ritz
        top = float(theta.max()) if theta.size else 0.0
        norm = top if top > 0 else 1.0
        w = self._bnorm * S[0]
        Y = np.zeros((len(filters), lams.shape[0], theta.shape[0]))
        St = np.ascontiguousarray(S.T)
        for i, flt in enumerate(filters):
            cols = np.arange(lams.shape[0]) if active is None else np.flatnonzero(active[i])
            if cols.size:
                Y[i, cols] = (flt.path(theta, lams[cols], norm=norm) * w) @ St
        return theta, S, w, norm, Y

    def _unconverged(self, filters, lams, theta, S, w, norm, Y, Y_prev, active):
        """(bad, ratio): the active (filter, λ) whose error bound is not met, and estimate / threshold.

        ``ratio`` (n_f, n_l) is the largest of the criteria's estimate divided by
        its threshold (≤ 1 for a certified pair; 0 where not active): the
        check schedule extrapolates it to predict the next check.
        """
        shape = Y.shape[:2]
        if self._invariant:
            return np.zeros(shape, dtype=bool), np.zeros(shape)
        L = self._residual_rows(S)  # the residual of Ritz vector i is ‖L[:, i]‖
        tiny = np.finfo(float).tiny
        size = np.linalg.norm(Y, axis=2)  # = ‖c_j‖ (V_j orthonormal)
        ratio = np.zeros(shape)
        guard_level = self.tol ** 0.25

        def tikhonov_bound(lam_arr):
            # ‖c − c_j‖ / ‖c_j‖ ≤ β_j |e_jᵀ (T + λ)^{-1} e_1| ‖b‖ / (λ ‖c_j‖); ‖(T+λ)^{-1} e_1‖ ‖b‖ = ‖w / (θ + λ)‖
            q = w / (theta[None, :] + lam_arr[:, None])
            res = np.linalg.norm(q @ L.T, axis=1)
            return res / (lam_arr * np.maximum(np.linalg.norm(q, axis=1), tiny))

        for i, flt in enumerate(filters):
            cols = np.flatnonzero(active[i])
            if not cols.size:
                continue
            lam_c = lams[cols]
            if flt.name == "tikhonov":
                r = tikhonov_bound(lam_c) / self.tol
            else:
                # The guard: the spectrum above λ_eff resolved, to tol^(1/4).  It only has to rule out a
                # plateau of the difference estimate (b's components on eigenvalues not yet found); the
                # estimate itself certifies tol.  (√tol, the earlier level, made Landweber at λ = 3.5e-5
                # take 230 steps where its iterate is within 1e-8 after 165.)
                r = tikhonov_bound(_effective_lams(flt, lam_c, norm)) / guard_level
                if Y_prev is None:
                    r = np.maximum(r, np.inf)
                else:
                    prev = np.zeros((cols.size, Y.shape[2]))
                    prev[:, : Y_prev.shape[2]] = Y_prev[i, cols]
                    D = Y[i, cols] - prev
                    diff = np.linalg.norm(D, axis=1)
                    r = np.maximum(r, diff / (self.tol * np.maximum(size[i, cols], tiny)))
                    # and in the score norm (‖A c‖ ≈ ‖T_j y‖): the relative score error weighs the large
                    # eigenvalues, where a coefficient's relative error can be larger than overall
                    score_diff = np.linalg.norm(self._tri_times(D), axis=1)
                    score = np.linalg.norm(self._tri_times(Y[i, cols]), axis=1)
                    r = np.maximum(r, score_diff / (self.tol * np.maximum(score, tiny)))
            if flt.name == "cutoff":
                # A Ritz value within its residual radius of λ may belong on either side of the
                # step: the coefficient error that ambiguity can cause is |w_i| / max(θ_i, λ).
                radius = np.linalg.norm(L, axis=0)
                straddle = np.abs(theta[None, :] - lam_c[:, None]) <= radius[None, :]
                with np.errstate(over="ignore"):    # an overflow is an infinite ratio: unconverged, as it says
                    amb = np.sqrt(((straddle * w[None, :] / np.maximum(theta[None, :], lam_c[:, None])) ** 2)
                                  .sum(axis=1))
                    r = np.maximum(r, amb / (self.tol * np.maximum(size[i, cols], tiny)))
            ratio[i, cols] = np.where(np.isnan(r), np.inf, r)
        return active & (ratio > 1.0), ratio

    def _residual_rows(self, S: np.ndarray) -> np.ndarray:
        """L (r, j) with A V_j S − V_j S Θ = v_{j+1} L: here β_j e_jᵀ S (one row)."""
        return self._beta[-1] * S[-1:]

    @property
    def _dim(self) -> int:
        """Dimension of the basis (= Lanczos steps for a single vector)."""
        return self.n_iter

    def _tri_times(self, Z: np.ndarray) -> np.ndarray:
        """Rows of Z (k × j) times the Lanczos tridiagonal T_j: O(k j)."""
        j = Z.shape[1]
        alpha = np.asarray(self._alpha[:j])
        out = Z * alpha
        if j > 1:
            beta = np.asarray(self._beta[: j - 1])
            out[:, :-1] += Z[:, 1:] * beta
            out[:, 1:] += Z[:, :-1] * beta
        return out

    def _advance(self, target: int) -> None:
        while self.n_iter < target and not self._invariant:
            self._step()

    def _run(self, filters, lams) -> tuple[np.ndarray, tuple]:
        """Extend the basis until every (filter, λ) is certified or ``max_iter`` (module docs, "Checks")."""
        cap = min(self.max_iter, self._m)
        shape = (len(filters), lams.shape[0])
        if self._bnorm == 0.0:  # y constant
            return np.zeros(shape, dtype=bool), None
        if self.n_iter == 0:
            self._step()
        lag = self.lag
        first_ok = np.full(shape, -1)
        active = np.ones(shape, dtype=bool)
        is_cutoff = np.array([flt.name == "cutoff" for flt in filters])
        # with an exact route, cut-off values left alone after the smooth filters go to it
        cutoff_exact = self._exact_factory is not None
        target = max(self.n_iter, 2 * lag)
        history = None  # (j, log ratio, bad) of the previous check
        state = None
        while True:
            target = min(target, cap)
            Y_prev = None
            if target - lag == self.n_iter and state is not None:
                Y_prev = state[-1]  # the last check's iterate (a superset of the active pairs)
            elif target - lag >= 1 and target - lag >= self.n_iter and target > self.n_iter:
                self._advance(target - lag)
                if not self._invariant:
                    Y_prev = self._state(filters, lams, active)[-1]
            self._advance(target)
            state = self._state(filters, lams, active)
            bad, ratio = self._unconverged(filters, lams, *state, Y_prev, active)
            first_ok[active & ~bad] = self.n_iter
            active = bad
            j = self.n_iter
            done = not bad.any() or self._invariant or j >= cap
            if not done and cutoff_exact and not bad[~is_cutoff].any():
                # Only cut-off values are left: a step function needs every eigenpair above λ resolved,
                # which in the dense part of a kernel spectrum takes about as many steps as there are such
                # eigenvalues.  Continue only while the extrapolation (below) says the rest certifies
                # within j/8 more steps; otherwise the exact route takes them now.
                done = history is not None and self._predict(history, j, ratio, bad) > max(lag, j // 8)
            if done:
                self._first_ok = first_ok
                if active.all():
                    return bad, state
                return bad, self._state(filters, lams, ritz=state[:2])
            pending = bad if not cutoff_exact else bad & ~is_cutoff[:, None]
            if not pending.any():
                pending = bad
            steps = self._predict(history, j, ratio, pending)
            history = (j, np.log(np.maximum(ratio, 1e-300)), bad.copy())
            # Each check costs two small eigenproblems and O(k j²): the next one where the extrapolated
            # error of the slowest pending (filter, λ) reaches its threshold (a little before: an early
            # check costs less than steps too many), at least `lag` and at most j/2 steps on (j/4 while
            # there is no rate to extrapolate).
            if math.isfinite(steps):
                steps = min(max(math.ceil(0.85 * steps), lag), max(2 * lag, int(self._growth * j)))
            else:
                steps = max(2 * lag, j // 4)
            target = j + int(steps)

    def _predict(self, history, j, ratio, pending) -> float:
        """Steps until the slowest ``pending`` (filter, λ) meets its threshold, extrapolating each
        ratio's geometric decay since the previous check (inf when it cannot be told)."""
        if history is None:
            return math.inf
        j0, log0, bad0 = history
        both = pending & bad0
        if not both.any() or j <= j0:
            return math.inf
        log1 = np.log(np.maximum(ratio[both], 1e-300))
        rate = (log0[both] - log1) / (j - j0)
        if np.any(~np.isfinite(log1)) or np.any(rate <= 0):
            return math.inf
        return float(np.max(np.ceil(log1 / rate)))

    # -- Spectrum interface ----------------------------------------------
    def path(self, filters: Sequence[Filter], lams: np.ndarray) -> np.ndarray:
        lams = np.asarray(lams, dtype=np.float64).reshape(-1)
        n_f, n_l = len(filters), lams.shape[0]
        bad, state = self._run(filters, lams)
        if state is None:  # y constant
            self.eigenvalues, self.weights, self.norm = np.zeros(1), np.zeros(1), 1.0
            return np.zeros((n_f, n_l, self.n_support))
        theta, S, w, norm, Y = state
        self.eigenvalues, self.weights, self.norm = theta, w, norm
        self.iterations_ = {(flt.spec, float(lam)): int(self._first_ok[i, k]) if self._first_ok[i, k] >= 0 else None
                            for i, flt in enumerate(filters) for k, lam in enumerate(lams)}
        j = self._dim
        # Every basis vector is centered when it is made (range(P) to rounding), so C is too: no pass over
        # the k x m result to re-center it (the exact path needs one, after its reflectors).
        C = (Y.reshape(n_f * n_l, j) @ self._V[:j]).reshape(n_f, n_l, self._m)
        self.unconverged_ = [(filters[i].spec, float(lams[k])) for i, k in zip(*np.nonzero(bad))]
        # cut-off values handed to the exact route before they certify are that route's by design (a step function
        # needs every eigenpair above lambda): no warning for them, more steps would not help
        by_design = np.array([f.name == "cutoff" for f in filters])[:, None] & (self._exact_factory is not None)
        told = [(filters[i].spec, float(lams[k])) for i, k in zip(*np.nonzero(bad & ~by_design))]
        if told:
            worst = ", ".join(f"{s} lam={lam:.3g}" for s, lam in told[:5])
            more = f" and {len(told) - 5} more" if len(told) > 5 else ""
            route = "computed by the exact solver instead" if self._exact_factory is not None else \
                "kept as they are (no exact route at this size)"
            warnings.warn(
                f"solver='krylov': {len(told)} (filter, lambda) pairs did not meet the error bound "
                f"tol={self.tol:g} within {self.n_iter} Lanczos steps (max_iter={min(self.max_iter, self._m)}) "
                f"({worst}{more}); {route}. Raise max_iter or tol, or use larger lambdas.", KrylovConvergenceWarning,
                stacklevel=outside_stacklevel())
        if bad.any() and self._exact_factory is not None:
            if self._exact is None:
                self._exact = self._make_exact(filters, lams, bad)
            for i in np.flatnonzero(bad.any(axis=1)):  # one exact path call per filter
                cols = np.flatnonzero(bad[i])
                C[i, cols] = self._exact.path([filters[i]], lams[cols])[0]
        if self._post is not None:
            C = (C.reshape(n_f * n_l, self._m) @ self._post).reshape(n_f, n_l, -1)
        return C

    def _make_exact(self, filters, lams, bad) -> Spectrum:
        """The exact route for the pairs in ``bad``.

        When they are all spectral cut-off values, only the eigenpairs above
        the smallest of their λ are needed (the filter vanishes below it): a
        factory that takes ``min_eigenvalue`` (as :class:`ExactSpectrum` does)
        is asked for just those, which saves most of the tridiagonal
        eigensolver's time at small grids' ends (at m = 2,000 and λ = 3.5e-5:
        695 of 2,000 eigenpairs).  A later call with other filters then builds
        the full decomposition.
        """
        rows = np.flatnonzero(bad.any(axis=1))
        if rows.size and all(filters[i].name == "cutoff" for i in rows) and _takes_min_eigenvalue(self._exact_factory):
            return _PartialExact(self._exact_factory, float(lams[bad.any(axis=0)].min()))
        return self._exact_factory()

    def coefficients(self, G: np.ndarray) -> np.ndarray:
        """Coefficients for filter values ``G`` (k, j) on the current Ritz values."""
        theta, S = self._ritz()
        G = np.asarray(G, dtype=np.float64)
        if G.ndim != 2 or G.shape[1] != theta.shape[0]:
            raise ValueError(f"coefficients: expected filter values of shape (k, {theta.shape[0]}), got {G.shape}")
        C = ((G * (self._bnorm * S[0])) @ S.T) @ self._V[: self._dim]
        C -= C.mean(axis=1, keepdims=True)
        return C if self._post is None else C @ self._post

    def release(self) -> None:
        self._V = np.zeros((0, self._m))
        self._exact = None
        self._op = None

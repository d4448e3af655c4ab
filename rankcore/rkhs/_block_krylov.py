"""Block Lanczos: the Krylov space of b and s − 1 random vectors, for matrix-free kernel products.

:class:`BlockKrylovSpectrum` builds the Krylov space of s vectors at once:
b and s − 1 random vectors (centered, seeded by ``random_state``).  It
contains b's own Krylov space step for step, so it needs at most as many
steps (measured on the benchmark's problem at m = 2,000, four smooth filters
to the grid's end: 181 single steps; 121, 81, 60 block steps for s = 4, 8,
16; at m = 3,000 and s = 32: 48), and the random vectors resolve the top of
the spectrum early.  The block tridiagonal T (diagonal blocks A_k, subdiagonal
B_k from a pivoted QR) replaces the tridiagonal: for its Ritz pairs (Θ, S),
A V S − V S Θ = V_{k+1} B_{k+1} E_kᵀ S, so with the residual rows
L = B_{k+1} E_kᵀ S every bound of :mod:`rankcore.rkhs._krylov` holds as written (Tikhonov residual
‖L (T + λ)^{-1} e_1‖ ‖b‖, Ritz radius ‖L e_i‖).  Linearly dependent new
directions are dropped (deflation; a block of width 0 is an invariant space).

Whether it pays depends on what a product costs:

* on a dense K it does not.  The basis grows s times faster than the steps
  shrink (dimension 648 for s = 8 against 181), every small-side cost grows
  with it (re-orthogonalization 4 m n s a step, an n × n eigenproblem a check,
  the output 2 m n k), and a GEMM with s skinny vectors is far from s
  matrix–vector products for the price of one: OpenBLAS packs K for every
  call (measured at m = 2,000, one thread: ``dsymv`` 0.78 ms, GEMM with 8
  vectors 3.9 ms).  The whole path: 0.24 s single against 0.93 s for s = 8
  (CPU time, one thread).  The dense route stays single-vector.
* matrix-free it does: a sweep over the kernel costs its m² exponentials
  whatever s (m = 3,000, one thread: 0.105 s for one vector, 0.113 s for
  32, the exponentials once per block of rows and one GEMM for all vectors),
  so 48 block steps replace 183 sweeps: 9.3 s against 19.7 s CPU time,
  eigenproblems (n = 1,536, 2.4 s) and re-orthogonalization (0.7 s)
  included; the ratio grows with m (the sweep is O(m²), those O(n³) and
  O(m n²)).  :class:`~rankcore.rkhs.KernelRanker` uses s = 32 there.

Everything else -- filters, bounds, checks, the exact route -- is
:class:`~rankcore.rkhs._krylov.KrylovSpectrum`'s (its module docs).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from ._krylov import KrylovSpectrum
from ._spectral import FLUSH_BELOW

__all__ = ["BlockKrylovSpectrum"]


class BlockKrylovSpectrum(KrylovSpectrum):
    """Block Lanczos: the Krylov space of [b, s − 1 seeded random vectors] (module docs).

    Each step multiplies the operator with s vectors at once (one GEMM over a
    dense K; one sweep over the kernel's rows matrix-free, where the m²
    kernel values are the cost whatever s).  The space contains the one of b
    alone, so it needs at most as many steps, and the random vectors resolve
    the top of the spectrum early; but its dimension, s per step, grows
    faster.  Everything else -- filters, bounds, checks, the exact route -- is
    :class:`KrylovSpectrum`'s with the block tridiagonal T in place of the
    tridiagonal: for the Ritz pairs (Θ, S) of T, A V S − V S Θ = V_{k+1} B_{k+1}
    E_kᵀ S, so the residual rows are L = B_{k+1} E_kᵀ S (s × dim) and the
    Tikhonov and Ritz-radius bounds hold as for one vector.

    Columns of a new block that are linearly dependent on the basis (within
    1e-12 of the running ‖A‖; pivoted QR) are dropped (deflation; their
    remainders join the residual rows of the bounds): the block narrows, and
    a block of width 0 means the space is invariant and the path exact.
    Time per step: the product plus 4 m n s for re-orthogonalization
    (n the basis dimension); each check an n × n symmetric eigenproblem.
    Memory: the basis, m (n + s) doubles.

    Parameters
    ----------
    operator, y, tol, max_iter, lag, exact, post
        As for :class:`KrylovSpectrum`; ``max_iter`` and ``lag`` count block steps.
    block_size : int
        s, the vectors per step (b and s − 1 random ones), >= 1.
    random_state : int, numpy Generator/RandomState or None
        Seeds the random start vectors (the path differs within ``tol`` from one seed to another).
    """

    def __init__(self, operator, y, *, block_size: int = 8, random_state=None, **kw) -> None:
        if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
            raise ValueError(f"block_size: expected an integer >= 1, got {block_size!r}")
        if not hasattr(operator, "matmat"):
            raise TypeError("operator: block Lanczos needs an operator with matmat(V) (rows of V times K)")
        super().__init__(operator, y, **kw)
        from sklearn.utils import check_random_state

        from ..validation import int_seed

        self.block_size = int(block_size)
        self._rng = np.random.default_rng(int_seed(check_random_state(random_state))) \
            if not isinstance(random_state, np.random.Generator) else random_state
        self._starts = [0]  # first basis row of each block multiplied so far, then the basis size they cover
        self._A: list[np.ndarray] = []  # diagonal blocks
        self._B: list[np.ndarray] = []  # B_{k+1}: (width of block k+1) x (width of block k)
        self._lost: list[tuple[int, int, np.ndarray]] = []  # (lo, hi, R) of deflated directions (see _residual_rows)
        self._n = 0
        if not self._invariant:
            self._n = self._first_block()

    def _first_block(self) -> int:
        m, s = self._m, min(self.block_size, self._m - 1)
        v0 = self._V[0].copy()
        self._V = np.zeros((min(max(64, 4 * s), m + 1), m))
        self._V[0] = v0
        R = self._rng.standard_normal((s - 1, m))
        R -= R.mean(axis=1, keepdims=True)
        for _ in range(2):
            R -= np.outer(R @ v0, v0)
        Q, keep = self._orthonormal(R, np.zeros(0))
        self._V[1 : 1 + Q.shape[0]] = Q
        return 1 + Q.shape[0]

    def _orthonormal(self, W: np.ndarray, scale) -> tuple[np.ndarray, np.ndarray]:
        """Rows of an orthonormal basis of W's rows (pivoted QR, dependent ones dropped) and R (r × rows of W)."""
        if W.shape[0] == 0:
            self._dropped = np.zeros((0, 0))
            return W, np.zeros((0, 0))
        Q, R, piv = scipy.linalg.qr(W.T, mode="economic", pivoting=True)
        d = np.abs(np.diag(R))
        ref = max(float(np.max(scale)) if np.size(scale) else 0.0, float(d[0]) if d.size else 0.0, np.finfo(float).tiny)
        r = int(np.count_nonzero(d > 1e-12 * ref))
        r = min(r, self._m - 1 - self._n) if self._n else r
        Rfull = np.zeros_like(R)
        Rfull[:, piv] = R  # W.T = Q R P^T
        self._dropped = Rfull[r:]  # the (tiny) part of W left out of the basis
        return np.ascontiguousarray(Q[:, :r].T), Rfull[:r]

    @property
    def n_iter(self) -> int:
        """Block Lanczos steps taken."""
        return len(self._A)

    @property
    def _dim(self) -> int:
        """Dimension of the basis the block tridiagonal covers (the blocks multiplied so far)."""
        return self._starts[-1]

    def _step(self) -> None:
        k = len(self._A)
        m = self._m
        lo, hi = self._starts[k], self._n  # the current block: basis rows [lo, hi)
        Vk = self._V[lo:hi]
        W = np.asarray(self._op.matmat(Vk), dtype=np.float64)
        W = (W - W.mean(axis=1, keepdims=True)) / m
        Ak = Vk @ W.T
        Ak = 0.5 * (Ak + Ak.T)
        W -= Ak @ Vk
        if k:
            W -= self._B[-1] @ self._V[self._starts[k - 1] : lo]
        basis = self._V[:hi]
        before = np.linalg.norm(W, axis=1)
        W -= (W @ basis.T) @ basis
        after = np.linalg.norm(W, axis=1)
        if np.any(after < before / math.sqrt(2.0)):
            W -= (W @ basis.T) @ basis
        W -= W.mean(axis=1, keepdims=True)
        self._A.append(Ak)
        self._scale = max(self._scale, float(np.abs(Ak).sum(axis=1).max()) + float(np.linalg.norm(W, axis=1).max()))
        if hi < m - 1:
            Q, Bn = self._orthonormal(W, self._scale)
            if self._dropped.shape[0]:
                self._lost.append((lo, hi, self._dropped))
        else:
            Q, Bn = np.zeros((0, m)), np.zeros((0, hi - lo))
        if Q.shape[0] and Q.shape[0] < W.shape[0]:  # deflated: make sure the kept directions are ⊥ the basis
            Q -= (Q @ basis.T) @ basis
            Q -= Q.mean(axis=1, keepdims=True)
            Q2, R2 = np.linalg.qr(Q.T)
            Q, Bn = Q2.T, R2 @ Bn
        self._B.append(Bn)
        self._starts.append(hi)
        if Q.shape[0] == 0:
            self._invariant = True  # Krylov space is invariant: the path is exact
            return
        if hi + Q.shape[0] > self._V.shape[0]:
            # grow by half, capped by what max_iter steps can hold: the copy's peak is 2.5x the basis, not 3x
            cap = min(m + 1, (self.max_iter + 1) * self.block_size)
            grown = np.zeros((min(max(self._V.shape[0] * 3 // 2, hi + Q.shape[0]), cap), m))
            grown[:hi] = self._V[:hi]
            self._V = grown
        self._V[hi : hi + Q.shape[0]] = Q
        self._n = hi + Q.shape[0]

    def _block_T(self) -> np.ndarray:
        n = self._starts[len(self._A)]
        T = np.zeros((n, n))
        for k, Ak in enumerate(self._A):
            lo, hi = self._starts[k], self._starts[k + 1]
            T[lo:hi, lo:hi] = Ak
            if k + 1 < len(self._A):
                B = self._B[k]
                T[hi : hi + B.shape[0], lo:hi] = B
                T[lo:hi, hi : hi + B.shape[0]] = B.T
        return T

    def _ritz(self):
        theta, S = scipy.linalg.eigh(self._block_T(), driver="evd", check_finite=False)  # measured fastest here
        theta = np.maximum(theta, 0.0)
        theta[theta < FLUSH_BELOW] = 0.0
        return theta, S

    def _residual_rows(self, S: np.ndarray) -> np.ndarray:
        """B_{k+1} E_kᵀ S, and below it the deflated parts R_i E_iᵀ S of earlier steps.

        A deflated direction (below 1e-12 ‖A‖) is left out of the basis, so
        A V = V T + V_{k+1} B_{k+1} E_kᵀ + Σ_i F_i R_i E_iᵀ with F_i of unit
        columns: its rows enter every bound too (their norm is tiny, so
        stacking them -- a 2-norm of the parts rather than their sum -- is
        within a factor √2 of the sum where they matter at all).
        """
        k = len(self._A) - 1
        lo = self._starts[k]
        rows = [self._B[-1] @ S[lo:]]
        rows += [R @ S[a:b] for a, b, R in self._lost]
        return np.vstack(rows) if len(rows) > 1 else rows[0]

    def _tri_times(self, Z: np.ndarray) -> np.ndarray:
        j = Z.shape[1]
        return Z @ self._block_T()[:j, :j]

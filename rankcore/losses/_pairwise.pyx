"""Exact pairwise sums of a loss over every (positive, negative) pair.

Design
------
A. The push objective needs, per negative k, L_k = Σ_i w_i ℓ(f_i − f_k) and
   D_k = Σ_i w_i ℓ′(f_i − f_k), and per positive i, E_i = Σ_k c_k ℓ′(f_i − f_k)
   (docs/theory/push.md#gradient).  Losses without a factorization (logistic, third-party losses)
   get them here by visiting every pair: O(I·K) time, O(I + K) memory -- the
   I × K matrix of pairs is never formed.
B. One thread owns each output entry (prange over negatives for L, D and the
   directional sums; over positives for E), so no atomics or per-thread
   copies are needed, and each entry is summed in the same order whatever
   the thread count: results do not depend on ``n_threads``.
C. The inner loop runs over a tile of the other side's scores (TILE doubles,
   L1-resident) for a chunk of outputs, accumulating straight into the
   outputs, so large I or K stream from cache instead of memory.  That loop
   is ``_tiling.run_tiled``, shared with ``_logistic.pyx``: each kernel here
   is only its per-tile contribution (a ``PairSum``).
D. The loss itself is a ``PairwiseLoss`` extension type (see the .pxd) called
   through its vtable: a third-party Cython loss plugs in without touching
   these loops.  ``evaluate`` returns ℓ, ℓ′, ℓ″ together so that losses such
   as the logistic share one exp() between them.
"""

from libc.math cimport exp, log1p, fabs, NAN

from ._tiling cimport PairSum, data_of, run_pairs

import numpy as np


cdef class PairwiseLoss:
    """Base of the nogil pairwise-loss evaluators (subclass in Cython)."""

    cdef void evaluate(self, double z, int order, double* v, double* d1,
                       double* d2) noexcept nogil:
        v[0] = NAN
        if order >= 1:
            d1[0] = NAN
        if order >= 2:
            d2[0] = NAN

    def __call__(self, double z, int order=2):
        """(ℓ(z), ℓ′(z), ℓ″(z)) -- for tests and debugging.  O(1) time and memory."""
        cdef double v = 0.0, d1 = 0.0, d2 = 0.0
        self.evaluate(z, order, &v, &d1, &d2)
        return v, d1, d2


cdef class _OneParameterLoss(PairwiseLoss):
    """A pairwise loss with one real parameter ``c``: the logistic's scale, the exponential's rate."""

    cdef double c

    def __init__(self, double c=1.0):
        self.c = c


cdef class LogisticKernel(_OneParameterLoss):
    """ℓ(z) = c·log(1 + e^{−z}), evaluated without overflow for any z."""

    cdef void evaluate(self, double z, int order, double* v, double* d1,
                       double* d2) noexcept nogil:
        cdef double e = exp(-fabs(z))      # in (0, 1]: never overflows
        cdef double s                      # σ(−z) = 1 / (1 + e^{z})
        if z >= 0:
            v[0] = self.c * log1p(e)
            s = e / (1.0 + e)
        else:
            v[0] = self.c * (-z + log1p(e))
            s = 1.0 / (1.0 + e)
        if order >= 1:
            d1[0] = -self.c * s
        if order >= 2:
            d2[0] = self.c * s * (1.0 - s)


cdef class ExponentialKernel(_OneParameterLoss):
    """ℓ(z) = exp(−c·z) (a reference path; the push driver uses log space)."""

    cdef void evaluate(self, double z, int order, double* v, double* d1,
                       double* d2) noexcept nogil:
        cdef double e = exp(-self.c * z)
        v[0] = e
        if order >= 1:
            d1[0] = -self.c * e
        if order >= 2:
            d2[0] = self.c * self.c * e


cdef class TruncatedPowerKernel(PairwiseLoss):
    """ℓ(z) = (1 − z)^m for z < 1, else 0 (m = 1 hinge, m = 2 squared hinge).

    The derivatives at the kink z = 1 are the right-hand ones (0), the
    convention of the sorted kernels in _sorted_sums.pyx.
    """

    cdef int degree

    def __init__(self, int degree):
        if degree not in (1, 2):
            raise ValueError(f"degree: expected 1 or 2, got {degree}")
        self.degree = degree

    cdef void evaluate(self, double z, int order, double* v, double* d1,
                       double* d2) noexcept nogil:
        cdef double u = 1.0 - z
        if z < 1.0:
            if self.degree == 1:
                v[0] = u
                if order >= 1:
                    d1[0] = -1.0
                if order >= 2:
                    d2[0] = 0.0
            else:
                v[0] = u * u
                if order >= 1:
                    d1[0] = -2.0 * u
                if order >= 2:
                    d2[0] = 2.0
        else:
            v[0] = 0.0
            if order >= 1:
                d1[0] = 0.0
            if order >= 2:
                d2[0] = 0.0


cdef class _LossSums(PairSum):
    """The inputs every pairwise sum reads: the loss, the scores of both classes, the positives' weights."""

    cdef PairwiseLoss loss
    cdef const double* f_pos
    cdef const double* w_pos
    cdef const double* f_neg


cdef class _NegativeSums(_LossSums):
    """out0 = L_k += Σ_i w_i ℓ(f_i − f_k), out1 = D_k += Σ_i w_i ℓ′(f_i − f_k) over one tile of positives."""

    cdef void tile(self, Py_ssize_t k, Py_ssize_t i0, Py_ssize_t i_end) noexcept nogil:
        cdef const double* f_pos = self.f_pos
        cdef const double* w_pos = self.w_pos
        cdef double fk = self.f_neg[k], sl = self.out0[k], sd = self.out1[k], v, d1, d2
        cdef Py_ssize_t i
        for i in range(i0, i_end):
            self.loss.evaluate(f_pos[i] - fk, 1, &v, &d1, &d2)
            sl = sl + w_pos[i] * v
            sd = sd + w_pos[i] * d1
        self.out0[k] = sl
        self.out1[k] = sd


cdef class _PositiveSums(_LossSums):
    """out0 = E_i += Σ_k c_k ℓ′(f_i − f_k) over one tile of negatives (negatives of zero weight skipped)."""

    cdef const double* c_neg

    cdef void tile(self, Py_ssize_t i, Py_ssize_t k0, Py_ssize_t k_end) noexcept nogil:
        cdef const double* f_neg = self.f_neg
        cdef const double* c_neg = self.c_neg
        cdef double fi = self.f_pos[i], se = self.out0[i], v, d1, d2
        cdef Py_ssize_t k
        for k in range(k0, k_end):
            if c_neg[k] != 0.0:
                self.loss.evaluate(fi - f_neg[k], 1, &v, &d1, &d2)
                se = se + c_neg[k] * d1
        self.out0[i] = se


cdef class _DirectionalSums(_LossSums):
    """out0..2 = L_k, L′_k, L″_k along h over one tile of positives (δ_ik = h_i − h_k)."""

    cdef const double* h_pos
    cdef const double* h_neg
    cdef int order

    cdef void tile(self, Py_ssize_t k, Py_ssize_t i0, Py_ssize_t i_end) noexcept nogil:
        cdef const double* f_pos = self.f_pos
        cdef const double* w_pos = self.w_pos
        cdef const double* h_pos = self.h_pos
        cdef int order = self.order
        cdef double fk = self.f_neg[k], hk = self.h_neg[k], delta, v, d1, d2
        cdef double s0 = self.out0[k], s1 = self.out1[k], s2 = self.out2[k]
        cdef Py_ssize_t i
        for i in range(i0, i_end):
            self.loss.evaluate(f_pos[i] - fk, order, &v, &d1, &d2)
            delta = h_pos[i] - hk
            s0 = s0 + w_pos[i] * v
            s1 = s1 + w_pos[i] * d1 * delta
            if order >= 2:
                s2 = s2 + w_pos[i] * d2 * delta * delta
        self.out0[k] = s0
        self.out1[k] = s1
        self.out2[k] = s2


cdef _LossSums _bind(_LossSums kernel, PairwiseLoss loss, const double[::1] f_pos, const double[::1] w_pos,
                     const double[::1] f_neg):
    kernel.loss = loss
    kernel.f_pos, kernel.w_pos, kernel.f_neg = data_of(f_pos), data_of(w_pos), data_of(f_neg)
    return kernel


def negative_sums(PairwiseLoss loss,
                  const double[::1] f_pos,   # IN  (I,) positive scores
                  const double[::1] w_pos,   # IN  (I,) positive weights
                  const double[::1] f_neg,   # IN  (K,) negative scores
                  double[::1] L,             # OUT (K,) Σ_i w_i ℓ(f_i − f_k)
                  double[::1] D,             # OUT (K,) Σ_i w_i ℓ′(f_i − f_k)
                  int n_threads=1):
    """Per-negative sums L_k and D_k.  O(I·K) time, O(1) extra memory."""
    cdef _LossSums kernel = _bind(_NegativeSums(), loss, f_pos, w_pos, f_neg)
    kernel.out0, kernel.out1 = <double*>data_of(L), <double*>data_of(D)
    run_pairs(kernel, f_neg.shape[0], f_pos.shape[0], n_threads, 32768.0)


def positive_sums(PairwiseLoss loss,
                  const double[::1] f_pos,   # IN  (I,) positive scores
                  const double[::1] f_neg,   # IN  (K,) negative scores
                  const double[::1] c_neg,   # IN  (K,) per-negative weights c_k
                  double[::1] E,             # OUT (I,) Σ_k c_k ℓ′(f_i − f_k)
                  int n_threads=1):
    """Per-positive sums E_i.  O(I·K) time, O(1) extra memory."""
    cdef _PositiveSums kernel = <_PositiveSums>_bind(_PositiveSums(), loss, f_pos, f_pos, f_neg)
    kernel.c_neg, kernel.out0 = data_of(c_neg), <double*>data_of(E)
    run_pairs(kernel, f_pos.shape[0], f_neg.shape[0], n_threads, 32768.0)


def directional_sums(PairwiseLoss loss,
                     const double[::1] f_pos,   # IN  (I,) positive scores
                     const double[::1] w_pos,   # IN  (I,) positive weights
                     const double[::1] h_pos,   # IN  (I,) direction on positives
                     const double[::1] f_neg,   # IN  (K,) negative scores
                     const double[::1] h_neg,   # IN  (K,) direction on negatives
                     double[::1] L,             # OUT (K,) Σ_i w_i ℓ(z_ik)
                     double[::1] L1,            # OUT (K,) Σ_i w_i ℓ′(z_ik) δ_ik
                     double[::1] L2,            # OUT (K,) Σ_i w_i ℓ″(z_ik) δ_ik²
                     int order=2,
                     int n_threads=1):
    """Per-negative sums along a direction, z_ik = f_i − f_k, δ_ik = h_i − h_k.

    They are L_k(α) and its first two α-derivatives at α = 0 for the scores
    f + α·h.  O(I·K) time, O(1) extra memory.
    """
    cdef _DirectionalSums kernel = <_DirectionalSums>_bind(_DirectionalSums(), loss, f_pos, w_pos, f_neg)
    kernel.h_pos, kernel.h_neg, kernel.order = data_of(h_pos), data_of(h_neg), order
    kernel.out0, kernel.out1, kernel.out2 = <double*>data_of(L), <double*>data_of(L1), <double*>data_of(L2)
    run_pairs(kernel, f_neg.shape[0], f_pos.shape[0], n_threads, 32768.0)

"""Exact pairwise sums of the logistic loss with one exponential per example, not per pair.

Design
------
A. With t_ik = e^{−(f_i − f_k)} = a_k · b_i, a_k = e^{f_k − s}, b_i = e^{s − f_i}
   (s the midpoint of the scores), the logistic loss in bits and its
   derivatives are rational in t:  ℓ = log₂(1 + t),  ℓ′ = −t / ((1 + t) ln 2),
   ℓ″ = t / ((1 + t)² ln 2).  The 2(I + K) exponentials are computed once;
   the I·K pairs cost a multiply and a division each -- no exp per pair.
   The pairwise kernels' loop is shared (``_tiling.run_tiled``: prange over
   outputs, tiles of the other side, one thread per output, results
   independent of ``n_threads``); each kernel here is its per-tile
   contribution, with four independent accumulators per output.
B. The value needs Σ_i w_i log(1 + t_i).  Terms with t ≥ 1e-3 are multiplied
   into a running product of (1 + t)^{w} -- for unit weights a plain product,
   its log taken only when it grows past 1e200 -- so one log serves about a
   hundred pairs; terms with t < 1e-3 use the series t − t²/2 + t³/3 − t⁴/4
   (relative error < 2e-13), so that tiny losses are not drowned by the
   rounding of 1 + t.  Each product factor carries a relative rounding error
   of ~2e-16 against a term ≥ log(1 + 1e-3): relative error < 1e-12 overall.
   Non-unit weights fall back to log1p per pair.
C. Valid while every |f − s| ≤ 300 (so t ≤ e^600); the Python wrapper checks
   the score range and otherwise uses the generic pairwise kernel.
"""

from libc.math cimport exp, log, log1p

from ._tiling cimport PairSum, data_of, run_pairs

import numpy as np


cdef double INV_LN2 = 1.4426950408889634
cdef double SMALL = 1e-3
cdef double FLUSH = 1e200


cdef inline double _log1p_small(double t) noexcept nogil:
    """log(1 + t) for 0 ≤ t < 1e-3 by its series (error below t⁵/5)."""
    return t * (1.0 - t * (0.5 - t * (1.0 / 3.0 - t * 0.25)))


cdef inline double _value_sum(const double* b, const double* w, Py_ssize_t i0, Py_ssize_t i1,
                              double ak, bint unit) noexcept nogil:
    """Σ_{i0 ≤ i < i1} w_i log(1 + a_k b_i) (natural log)."""
    cdef double total = 0.0, prod = 1.0, t
    cdef Py_ssize_t i
    if not unit:
        for i in range(i0, i1):
            total += w[i] * log1p(ak * b[i])
        return total
    for i in range(i0, i1):
        t = ak * b[i]
        if t < SMALL:
            total += _log1p_small(t)
        else:
            if prod > FLUSH:
                total += log(prod)
                prod = 1.0
            prod *= 1.0 + t
    return total + log(prod)


cdef inline double _ratio_sum(const double* base, const double* weight, Py_ssize_t j0, Py_ssize_t j1,
                              double scale) noexcept nogil:
    """Σ_{j0 ≤ j < j1} weight_j · t_j / (1 + t_j) with t_j = scale · base_j: four independent accumulators.

    Both first-derivative sums are this with the roles swapped: D_k (base b,
    weight w, scale a_k) and E_i (base a, weight c, scale b_i); t is the same
    product either way (floating-point multiplication commutes exactly).
    """
    cdef double t, s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t j = j0
    while j + 4 <= j1:
        t = scale * base[j]
        s0 = s0 + weight[j] * t / (1.0 + t)
        t = scale * base[j + 1]
        s1 = s1 + weight[j + 1] * t / (1.0 + t)
        t = scale * base[j + 2]
        s2 = s2 + weight[j + 2] * t / (1.0 + t)
        t = scale * base[j + 3]
        s3 = s3 + weight[j + 3] * t / (1.0 + t)
        j = j + 4
    while j < j1:
        t = scale * base[j]
        s0 = s0 + weight[j] * t / (1.0 + t)
        j = j + 1
    return (s0 + s1) + (s2 + s3)


cdef class _LogisticSums(PairSum):
    """The factors every logistic sum reads: b_i = e^{s − f_i}, the positives' weights w_i, a_k = e^{f_k − s}."""

    cdef const double* b
    cdef const double* w
    cdef const double* a
    cdef bint unit


cdef class _NegativeSums(_LogisticSums):
    """out0 = L_k += Σ_i w_i ℓ and out1 = D_k += Σ_i w_i ℓ′ over one tile of positives."""

    cdef void tile(self, Py_ssize_t k, Py_ssize_t i0, Py_ssize_t i_end) noexcept nogil:
        cdef double ak = self.a[k]
        cdef double v = _value_sum(self.b, self.w, i0, i_end, ak, self.unit)
        cdef double d = _ratio_sum(self.b, self.w, i0, i_end, ak)
        self.out0[k] = self.out0[k] + INV_LN2 * v
        self.out1[k] = self.out1[k] - INV_LN2 * d


cdef class _PositiveSums(_LogisticSums):
    """out0 = E_i += Σ_k c_k ℓ′ over one tile of negatives."""

    cdef const double* c_neg

    cdef void tile(self, Py_ssize_t i, Py_ssize_t k0, Py_ssize_t k_end) noexcept nogil:
        self.out0[i] = self.out0[i] - INV_LN2 * _ratio_sum(self.a, self.c_neg, k0, k_end, self.b[i])


cdef class _DirectionalSums(_LogisticSums):
    """out0..2 = L_k, L′_k, L″_k along h over one tile of positives (δ_ik = h_i − h_k)."""

    cdef const double* hp
    cdef const double* hn

    cdef void tile(self, Py_ssize_t k, Py_ssize_t i0, Py_ssize_t i_end) noexcept nogil:
        cdef const double* b = self.b
        cdef const double* w = self.w
        cdef const double* hp = self.hp
        cdef double ak = self.a[k], hk = self.hn[k], t, q, delta, s1 = 0.0, s2 = 0.0
        cdef double v = _value_sum(b, w, i0, i_end, ak, self.unit)
        cdef Py_ssize_t i
        for i in range(i0, i_end):
            t = ak * b[i]
            q = 1.0 / (1.0 + t)
            delta = hp[i] - hk
            s1 = s1 + w[i] * t * q * delta
            s2 = s2 + w[i] * t * q * q * delta * delta
        self.out0[k] = self.out0[k] + INV_LN2 * v
        self.out1[k] = self.out1[k] - INV_LN2 * s1
        self.out2[k] = self.out2[k] + INV_LN2 * s2


cdef class _CurvatureNegativeSums(_LogisticSums):
    """out0 = N_k += Σ_i w_i ℓ″ over one tile of positives (two accumulators)."""

    cdef void tile(self, Py_ssize_t k, Py_ssize_t i0, Py_ssize_t i_end) noexcept nogil:
        cdef const double* b = self.b
        cdef const double* w = self.w
        cdef double ak = self.a[k], t, q, s0 = 0.0, s1 = 0.0
        cdef Py_ssize_t i = i0
        while i + 2 <= i_end:
            t = ak * b[i]
            q = 1.0 / (1.0 + t)
            s0 = s0 + w[i] * t * q * q
            t = ak * b[i + 1]
            q = 1.0 / (1.0 + t)
            s1 = s1 + w[i + 1] * t * q * q
            i = i + 2
        while i < i_end:
            t = ak * b[i]
            q = 1.0 / (1.0 + t)
            s0 = s0 + w[i] * t * q * q
            i = i + 1
        self.out0[k] = self.out0[k] + INV_LN2 * (s0 + s1)


cdef class _CurvaturePositiveSums(_LogisticSums):
    """out0 = P_i += Σ_k (w_i c2_k ℓ′² + c1_k ℓ″) over one tile of negatives."""

    cdef const double* c1
    cdef const double* c2

    cdef void tile(self, Py_ssize_t i, Py_ssize_t k0, Py_ssize_t k_end) noexcept nogil:
        cdef double bi = self.b[i], t, q, s1 = 0.0, s2 = 0.0
        cdef Py_ssize_t k
        for k in range(k0, k_end):            # no store in the loop: the fields' loads are hoisted
            t = self.a[k] * bi
            q = t / (1.0 + t)
            s1 = s1 + self.c1[k] * q / (1.0 + t)
            s2 = s2 + self.c2[k] * q * q
        self.out0[i] = self.out0[i] + INV_LN2 * s1 + self.w[i] * INV_LN2 * INV_LN2 * s2


cdef _LogisticSums _bind(_LogisticSums kernel, const double[::1] b, const double[::1] w, const double[::1] a,
                         bint unit_weights=False):
    kernel.b, kernel.w, kernel.a, kernel.unit = data_of(b), data_of(w), data_of(a), unit_weights
    return kernel


def negative_sums(const double[::1] b,      # IN  (I,) e^{s − f_i} of the positives
                  const double[::1] w,      # IN  (I,) their weights
                  const double[::1] a,      # IN  (K,) e^{f_k − s} of the negatives
                  double[::1] L,            # OUT (K,) Σ_i w_i ℓ
                  double[::1] D,            # OUT (K,) Σ_i w_i ℓ′
                  bint unit_weights,
                  int n_threads=1):
    """L_k and D_k of the logistic loss (in bits).  O(I·K) time, no exp per pair; O(1) extra memory."""
    cdef _LogisticSums kernel = _bind(_NegativeSums(), b, w, a, unit_weights)
    kernel.out0, kernel.out1 = <double*>data_of(L), <double*>data_of(D)
    run_pairs(kernel, a.shape[0], b.shape[0], n_threads, 65536.0)


def positive_sums(const double[::1] b,      # IN  (I,) e^{s − f_i}
                  const double[::1] a,      # IN  (K,) e^{f_k − s}
                  const double[::1] c_neg,  # IN  (K,) per-negative weights
                  double[::1] E,            # OUT (I,) Σ_k c_k ℓ′
                  int n_threads=1):
    """E_i of the logistic loss (in bits).  O(I·K) time, no transcendental per pair; O(1) extra memory."""
    cdef _PositiveSums kernel = <_PositiveSums>_bind(_PositiveSums(), b, b, a)
    kernel.c_neg, kernel.out0 = data_of(c_neg), <double*>data_of(E)
    run_pairs(kernel, b.shape[0], a.shape[0], n_threads, 65536.0)


def directional_sums(const double[::1] b,     # IN  (I,) e^{s − f_i}
                     const double[::1] w,     # IN  (I,)
                     const double[::1] hp,    # IN  (I,) direction on positives
                     const double[::1] a,     # IN  (K,) e^{f_k − s}
                     const double[::1] hn,    # IN  (K,) direction on negatives
                     double[::1] L,           # OUT (K,) Σ_i w_i ℓ
                     double[::1] L1,          # OUT (K,) Σ_i w_i ℓ′ δ
                     double[::1] L2,          # OUT (K,) Σ_i w_i ℓ″ δ²
                     bint unit_weights,
                     int n_threads=1):
    """L_k, L′_k, L″_k along h (δ_ik = h_i − h_k).  O(I·K) time, no exp per pair; O(1) extra memory."""
    cdef _DirectionalSums kernel = <_DirectionalSums>_bind(_DirectionalSums(), b, w, a, unit_weights)
    kernel.hp, kernel.hn = data_of(hp), data_of(hn)
    kernel.out0, kernel.out1, kernel.out2 = <double*>data_of(L), <double*>data_of(L1), <double*>data_of(L2)
    run_pairs(kernel, a.shape[0], b.shape[0], n_threads, 65536.0)


def curvature_negative_sums(const double[::1] b,   # IN  (I,) e^{s − f_i}
                            const double[::1] w,   # IN  (I,) positives' weights
                            const double[::1] a,   # IN  (K,) e^{f_k − s}
                            double[::1] N,         # OUT (K,) Σ_i w_i ℓ″(f_i − f_k)
                            int n_threads=1):
    """N_k = Σ_i w_i ℓ″ (in bits; ℓ″ = t / ((1 + t)² ln 2)).  O(I·K) time, no exp per pair; O(1) extra memory."""
    cdef _LogisticSums kernel = _bind(_CurvatureNegativeSums(), b, w, a)
    kernel.out0 = <double*>data_of(N)
    run_pairs(kernel, a.shape[0], b.shape[0], n_threads, 65536.0)


def curvature_positive_sums(const double[::1] b,    # IN  (I,) e^{s − f_i}
                            const double[::1] w,    # IN  (I,) positives' weights
                            const double[::1] a,    # IN  (K,) e^{f_k − s}
                            const double[::1] c1,   # IN  (K,) weights of ℓ″
                            const double[::1] c2,   # IN  (K,) weights of ℓ′²
                            double[::1] P,          # OUT (I,) Σ_k (w_i c2_k ℓ′² + c1_k ℓ″)
                            int n_threads=1):
    """P_i = Σ_k (w_i c2_k ℓ′² + c1_k ℓ″) (in bits: ℓ′² = t² / ((1 + t) ln 2)², ℓ″ = t / ((1 + t)² ln 2)).

    O(I·K) time, no transcendental per pair; O(1) extra memory.
    """
    cdef _CurvaturePositiveSums kernel = <_CurvaturePositiveSums>_bind(_CurvaturePositiveSums(), b, w, a)
    kernel.c1, kernel.c2, kernel.out0 = data_of(c1), data_of(c2), <double*>data_of(P)
    run_pairs(kernel, b.shape[0], a.shape[0], n_threads, 65536.0)

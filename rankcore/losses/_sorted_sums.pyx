"""Pairwise sums of the hinge-type losses without pairs, O((I + K) log(I + K)).

Design
------
A. For a truncated power loss ℓ(z) = (1 − z)^m · 1[z < 1] (m = 1: hinge,
   m = 2: squared hinge) the positives that contribute to negative k are
   P_k = {i : f_i − f_k < 1}, a prefix of the positives sorted by score; on
   P_k the loss is a polynomial in f_i, so L_k, D_k and the directional sums
   are a few prefix sums (of w, w·g, w·g², w·h, w·g·h, w·h²) combined with
   powers of 1 + g_k (docs/theory/push.md#pairwise-sums-without-pairs).  Symmetrically the negatives that
   contribute to positive i are a suffix of the negatives sorted by score.
B. Membership uses the exact floating-point predicate (f_i − f_k < 1) of the
   pairwise definition on the scores as given, found by binary search
   (``rankcore._kink``): the predicate is monotone in f_i because IEEE
   subtraction is monotone, so the sets are exactly those a pair-by-pair
   evaluation sees -- and those of the per-query push's small-level kernel and
   level sweep, which test the same raw differences.  The kink's derivative is
   the right-hand one (ℓ′(1) = 0), as in _pairwise.TruncatedPowerKernel.
C. The polynomial is expanded in the centred scores g = f − center (the
   caller passes the scores' mid-range), which keeps its cancellation small;
   the centring never enters the membership test of B, where it could move a
   pair within rounding of the kink to the other side.  Prefix sums of the
   positives run from the lowest score up, suffix sums of the negatives from
   the highest score down, so that each partial sum accumulates in the
   direction its sets grow.
D. Sorting is the caller's O(n log n); these kernels take sorted inputs,
   allocate O(I + K) prefix arrays and binary-search each output in
   parallel (prange, one thread per output, so no output depends on the
   thread count): O((I + K) log(I + K)) time, O(I + K) memory in all.
"""

from cython.parallel cimport prange
from libc.stdlib cimport malloc, free

from rankcore._kink cimport count_reaching, first_reached
from rankcore._parallel cimport threads_for

import numpy as np


def _check_degree(int degree):
    if degree != 1 and degree != 2:
        raise ValueError(f"degree: expected 1 (hinge) or 2 (squared hinge), got {degree}")


def negative_sums(int degree,
                  const double[::1] f_pos,   # IN  (I,) positive scores, ascending
                  const double[::1] w_pos,   # IN  (I,) their weights
                  const double[::1] f_neg,   # IN  (K,) negative scores, any order
                  double center,             # IN  the expansion's centre (the scores' mid-range)
                  double[::1] L,             # OUT (K,) Σ_i w_i ℓ(f_i − f_k)
                  double[::1] D,             # OUT (K,) Σ_i w_i ℓ′(f_i − f_k)
                  int n_threads=1):
    """L_k and D_k for every negative.  O(I + K log I) time, O(I) memory.

    Pairs count where f_i − f_k < 1 on the raw scores; the sums are expanded in f − center.
    """
    _check_degree(degree)
    cdef Py_ssize_t I = f_pos.shape[0], K = f_neg.shape[0], i, k, m
    cdef double c, W, F, Q, gi
    cdef double* pw = <double*> malloc((I + 1) * sizeof(double))
    cdef double* pf = <double*> malloc((I + 1) * sizeof(double))
    cdef double* pq = <double*> malloc((I + 1) * sizeof(double))
    if pw == NULL or pf == NULL or pq == NULL:
        free(pw); free(pf); free(pq)
        raise MemoryError()
    n_threads = threads_for(<double> K * 20, n_threads, 262144.0)
    try:
        with nogil:
            pw[0] = 0.0; pf[0] = 0.0; pq[0] = 0.0
            for i in range(I):
                gi = f_pos[i] - center
                pw[i + 1] = pw[i] + w_pos[i]
                pf[i + 1] = pf[i] + w_pos[i] * gi
                pq[i + 1] = pq[i] + w_pos[i] * gi * gi
            for k in prange(K, schedule="static", num_threads=n_threads):
                m = count_reaching(&f_pos[0] if I > 0 else NULL, I, f_neg[k])
                c = 1.0 + (f_neg[k] - center)
                W = pw[m]
                F = pf[m]
                if degree == 1:
                    L[k] = c * W - F
                    D[k] = -W
                else:
                    Q = pq[m]
                    L[k] = c * c * W - 2.0 * c * F + Q
                    D[k] = -2.0 * (c * W - F)
    finally:
        free(pw); free(pf); free(pq)


def positive_sums(int degree,
                  const double[::1] f_neg,   # IN  (K,) negative scores, ascending
                  const double[::1] c_neg,   # IN  (K,) their weights c_k
                  const double[::1] f_pos,   # IN  (I,) positive scores, any order
                  double center,             # IN  the expansion's centre (the scores' mid-range)
                  double[::1] E,             # OUT (I,) Σ_k c_k ℓ′(f_i − f_k)
                  int n_threads=1):
    """E_i for every positive.  O(K + I log K) time, O(K) memory.

    Pairs count where f_i − f_k < 1 on the raw scores; the sums are expanded in f − center.
    """
    _check_degree(degree)
    cdef Py_ssize_t I = f_pos.shape[0], K = f_neg.shape[0], i, k, s
    cdef double* sc = <double*> malloc((K + 1) * sizeof(double))
    cdef double* scf = <double*> malloc((K + 1) * sizeof(double))
    if sc == NULL or scf == NULL:
        free(sc); free(scf)
        raise MemoryError()
    n_threads = threads_for(<double> I * 20, n_threads, 262144.0)
    try:
        with nogil:
            sc[K] = 0.0; scf[K] = 0.0
            for k in range(K - 1, -1, -1):
                sc[k] = sc[k + 1] + c_neg[k]
                scf[k] = scf[k + 1] + c_neg[k] * (f_neg[k] - center)
            for i in prange(I, schedule="static", num_threads=n_threads):
                s = first_reached(&f_neg[0] if K > 0 else NULL, K, f_pos[i])
                if degree == 1:
                    E[i] = -sc[s]
                else:
                    E[i] = -2.0 * ((1.0 - (f_pos[i] - center)) * sc[s] + scf[s])
    finally:
        free(sc); free(scf)


def directional_sums(int degree,
                     const double[::1] f_pos,   # IN  (I,) positive scores, ascending
                     const double[::1] w_pos,   # IN  (I,) their weights
                     const double[::1] h_pos,   # IN  (I,) direction on positives
                     const double[::1] f_neg,   # IN  (K,) negative scores, any order
                     const double[::1] h_neg,   # IN  (K,) direction on negatives
                     double center,             # IN  the expansion's centre (the scores' mid-range)
                     double[::1] L,             # OUT (K,) Σ_i w_i ℓ(z_ik)
                     double[::1] L1,            # OUT (K,) Σ_i w_i ℓ′(z_ik) δ_ik
                     double[::1] L2,            # OUT (K,) Σ_i w_i ℓ″(z_ik) δ_ik²
                     int n_threads=1):
    """L_k and its first two derivatives along h (δ_ik = h_i − h_k).  O(I + K log I) time, O(I) memory.

    Pairs count where f_i − f_k < 1 on the raw scores; the sums are expanded in f − center.
    """
    _check_degree(degree)
    cdef Py_ssize_t I = f_pos.shape[0], K = f_neg.shape[0], i, k, m
    cdef double c, hk, W, F, Q, H, FH, HH, wi, gi, hi
    cdef double* buf = <double*> malloc(6 * (I + 1) * sizeof(double))
    if buf == NULL:
        raise MemoryError()
    cdef double* pw = buf
    cdef double* pf = buf + (I + 1)
    cdef double* pq = buf + 2 * (I + 1)
    cdef double* ph = buf + 3 * (I + 1)
    cdef double* pfh = buf + 4 * (I + 1)
    cdef double* phh = buf + 5 * (I + 1)
    n_threads = threads_for(<double> K * 20, n_threads, 262144.0)
    try:
        with nogil:
            pw[0] = 0.0; pf[0] = 0.0; pq[0] = 0.0; ph[0] = 0.0; pfh[0] = 0.0; phh[0] = 0.0
            for i in range(I):
                wi = w_pos[i]; gi = f_pos[i] - center; hi = h_pos[i]
                pw[i + 1] = pw[i] + wi
                pf[i + 1] = pf[i] + wi * gi
                pq[i + 1] = pq[i] + wi * gi * gi
                ph[i + 1] = ph[i] + wi * hi
                pfh[i + 1] = pfh[i] + wi * gi * hi
                phh[i + 1] = phh[i] + wi * hi * hi
            for k in prange(K, schedule="static", num_threads=n_threads):
                m = count_reaching(&f_pos[0] if I > 0 else NULL, I, f_neg[k])
                c = 1.0 + (f_neg[k] - center)
                hk = h_neg[k]
                W = pw[m]; F = pf[m]; H = ph[m]
                if degree == 1:
                    L[k] = c * W - F
                    L1[k] = -(H - hk * W)
                    L2[k] = 0.0
                else:
                    Q = pq[m]; FH = pfh[m]; HH = phh[m]
                    L[k] = c * c * W - 2.0 * c * F + Q
                    L1[k] = -2.0 * (c * (H - hk * W) - (FH - hk * F))
                    L2[k] = 2.0 * (HH - 2.0 * hk * H + hk * hk * W)
    finally:
        free(buf)

# Non-scalar bipartite metrics: the ROC curve and the per-negative heights.
#
# Design
# ------
# A. The ROC curve is the walk of sorted_kernels.pyx (down from the top score, one
#    step per distinct score) recording each step instead of integrating it.
#    The output is allocated at its largest possible size (n + 1 points) and
#    cut to the points actually produced; np.empty does not touch the pages,
#    so a short leftmost portion (max_fp) costs only what it walks.
# B. Height(k) = #{i : f_i <= f_k} must come out in the caller's order of the
#    negatives.  One binary search per negative would keep that order but
#    misses the cache at every step (measured: 100 ms for 700,000 negatives,
#    3x an argsort of them), so the negatives are visited through their
#    argsort instead: one pointer over the sorted positives, O(I + K) after
#    the O(K log K) argsort, and each count is written to its original slot.

import numpy as np

from .sorted_helpers cimport drop_top, highest_of


def roc_points(const double[::1] pos,   # IN ascending positive scores
               const double[::1] neg,   # IN ascending negative scores
               long long max_fp=-1):
    """Points of the ROC curve, from (0, 0) at threshold +inf, one per distinct score.

    Parameters
    ----------
    pos, neg : ascending float64 arrays
    max_fp : int
        Keep only the points with FP <= max_fp (the leftmost portion); -1
        keeps them all.

    Returns
    -------
    fp, tp : ndarray of int64
        Negatives and positives scored >= the threshold.
    thresholds : ndarray of float64
        +inf, then the distinct scores in decreasing order.

    O(m) time for m points produced (O(I + K) for the whole curve), O(I + K)
    address space of which O(m) is touched.
    """
    cdef Py_ssize_t n_pos = pos.shape[0], n_neg = neg.shape[0]
    cdef Py_ssize_t i = n_pos, j = n_neg, i_next, j_next, m = 1
    cdef long long fp = 0, tp = 0
    cdef double v
    cdef const double* p = &pos[0] if n_pos > 0 else NULL   # not dereferenced while i == 0
    cdef const double* q = &neg[0] if n_neg > 0 else NULL   # nor while j == 0
    fp_arr = np.empty(n_pos + n_neg + 1, dtype=np.int64)
    tp_arr = np.empty(n_pos + n_neg + 1, dtype=np.int64)
    th_arr = np.empty(n_pos + n_neg + 1, dtype=np.float64)
    cdef long long[::1] fp_out = fp_arr     # OUT
    cdef long long[::1] tp_out = tp_arr     # OUT
    cdef double[::1] th_out = th_arr        # OUT
    fp_out[0] = 0
    tp_out[0] = 0
    th_out[0] = np.inf
    with nogil:
        while i > 0 or j > 0:
            v = highest_of(p, i, q, j)
            i_next = drop_top(p, i, v)
            j_next = drop_top(q, j, v)
            if max_fp >= 0 and fp + (j - j_next) > max_fp:
                break
            fp += j - j_next
            tp += i - i_next
            fp_out[m] = fp
            tp_out[m] = tp
            th_out[m] = v
            m += 1
            i, j = i_next, j_next
    return fp_arr[:m].copy(), tp_arr[:m].copy(), th_arr[:m].copy()


def height_counts(const double[::1] pos,         # IN ascending positive scores
                  const double[::1] neg,         # IN negative scores, any order
                  const long long[::1] order,    # IN argsort of neg (ascending)
                  long long[::1] out):           # OUT one count per negative, in neg's order
    """out[k] = #{i : pos[i] <= neg[k]}, the height of negative k.

    O(I + K) time given the argsort, no allocation.
    """
    cdef Py_ssize_t n_pos = pos.shape[0], n_neg = neg.shape[0], t, k, i = 0
    if out.shape[0] != n_neg or order.shape[0] != n_neg:
        raise ValueError(f"height_counts: expected {n_neg} entries in order and out, "
                         f"got {order.shape[0]} and {out.shape[0]}")
    for t in range(n_neg):
        if order[t] < 0 or order[t] >= n_neg:
            raise ValueError(f"height_counts: order[{t}] = {order[t]} is not an index of neg")
    with nogil:
        for t in range(n_neg):
            k = order[t]
            while i < n_pos and pos[i] <= neg[k]:
                i += 1
            out[k] = i

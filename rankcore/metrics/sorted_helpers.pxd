# Small nogil helpers shared by the metric kernels and ExactBoost's loss on runs
# (inline, so no module to build and no call in the loops).

from libc.math cimport floor


cdef inline Py_ssize_t count_le(const double* a, Py_ssize_t n, double v) noexcept nogil:
    """#{i : a[i] <= v} for ascending a[0..n), by binary search (O(log n))."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if a[mid] <= v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline double lowest_of(const double* pos, Py_ssize_t i, Py_ssize_t n_pos,
                        const double* neg, Py_ssize_t j, Py_ssize_t n_neg) noexcept nogil:
    """The lowest score among pos[i..n_pos) and neg[j..n_neg) (not both empty)."""
    if i == n_pos:
        return neg[j]
    if j == n_neg:
        return pos[i]
    return pos[i] if pos[i] < neg[j] else neg[j]


cdef inline double area_above(double x0, double y0, double x1, double y1, double b) noexcept nogil:
    """∫ max(0, y − b) dx over the segment (x0, y0)–(x1, y1), y0 <= y1."""
    if y1 <= b or x1 <= x0:
        return 0.0
    if y0 >= b:
        return (x1 - x0) * ((y0 - b) + (y1 - b)) * 0.5
    # the segment crosses y = b at x0 + (x1 − x0)·(b − y0)/(y1 − y0)
    return (x1 - x0) * ((y1 - b) / (y1 - y0)) * (y1 - b) * 0.5


cdef inline double highest_of(const double* pos, Py_ssize_t i,
                              const double* neg, Py_ssize_t j) noexcept nogil:
    """The highest score among pos[0..i) and neg[0..j) (i + j >= 1)."""
    if i == 0:
        return neg[j - 1]
    if j == 0:
        return pos[i - 1]
    return pos[i - 1] if pos[i - 1] > neg[j - 1] else neg[j - 1]


cdef inline Py_ssize_t drop_top(const double* a, Py_ssize_t i, double v) noexcept nogil:
    """Remove the entries equal to the current top value ``v`` from ascending a[0..i): the new i."""
    while i > 0 and a[i - 1] >= v:
        i -= 1
    return i


cdef inline Py_ssize_t resolve_k(Py_ssize_t k_count, double k_fraction, Py_ssize_t n) noexcept nogil:
    """k as a count in [1, n]: a fraction κ > 0 gives max(1, floor(κn + 0.5)), else the count, capped at n."""
    cdef Py_ssize_t k
    if k_fraction > 0:
        k = <Py_ssize_t> floor(k_fraction * n + 0.5)
    else:
        k = k_count
    if k > n:
        k = n
    if k < 1:
        k = 1
    return k


cdef struct PaucWalk:
    # the partial AUC's ROC walk from the top of the list, one tied group at a time
    double limit            # alpha * n_neg: the walk stops once fp reaches it
    long long fp, tp        # negatives and positives above the current group
    long long area2         # twice the area of the complete segments, in counts squared
    double area             # the segment cut at FPR = alpha (at most one)


cdef inline void pauc_walk_start(PaucWalk* w, double alpha, Py_ssize_t n_neg) noexcept nogil:
    w.limit = alpha * n_neg
    w.fp = 0
    w.tp = 0
    w.area2 = 0
    w.area = 0.0


cdef inline void pauc_walk_add(PaucWalk* w, long long cp, long long cn) noexcept nogil:
    """Add the next group of tied scores from the top: cp positives and cn negatives.

    Every pAUC kernel (sorted arrays, runs, ExactBoost's boxes) steps through
    this one expression, so they agree bit for bit.
    """
    cdef double dx, y_cut
    if w.fp + cn <= w.limit:
        w.area2 += cn * (2 * w.tp + cp)
    else:  # the segment crosses FPR = alpha: cut it there
        dx = w.limit - w.fp
        y_cut = w.tp + cp * (dx / cn)
        w.area = dx * (w.tp + y_cut)
    w.fp += cn
    w.tp += cp


cdef inline double pauc_walk_value(const PaucWalk* w, double alpha, bint mcclish,
                                   Py_ssize_t n_pos, Py_ssize_t n_neg) noexcept nogil:
    """The walk's partial AUC (raw, or McClish's standardization); a constant scorer's with an empty class."""
    cdef double raw
    if n_pos == 0 or n_neg == 0:
        raw = 0.5 * alpha * alpha
    else:
        raw = (w.area2 + w.area) / (2.0 * n_pos * n_neg)
    if mcclish:
        return 0.5 * (1.0 + (raw - 0.5 * alpha * alpha) / (alpha - 0.5 * alpha * alpha))
    return raw

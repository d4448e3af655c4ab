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

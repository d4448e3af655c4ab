# Small nogil helpers shared by the metric kernels (inline, so no module to build).


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

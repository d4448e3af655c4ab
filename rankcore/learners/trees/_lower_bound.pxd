# The lower bound of a value among ascending edges, without the GIL (binning: _histogram, _columns):
#     from rankcore.learners.trees._lower_bound cimport lower_bound


cdef inline Py_ssize_t lower_bound(double x, const double* e, Py_ssize_t n) noexcept nogil:
    """#{b : e[b] < x} for ascending e; each halving a conditional move, not a mispredicted jump (a value's
    bin is unpredictable).  O(log n)."""
    cdef Py_ssize_t base = 0, half
    if n == 0:
        return 0
    while n > 1:
        half = n >> 1
        base = base + half if e[base + half] < x else base
        n -= half
    return base + (e[base] < x)

# Reading one value of a CSR row without the GIL (the tree predictors walk CSR rows with it):
#     from rankcore.learners.trees._csr cimport csr_value
from rankcore.typedefs cimport index_t, real_t


cdef inline double csr_value(const index_t* indices, const real_t* data, Py_ssize_t lo, Py_ssize_t end,
                             Py_ssize_t j) noexcept nogil:
    """Column j's value in the CSR row holding entries [lo, end) (sorted columns): 0 unless stored.

    O(log(end − lo)) by binary search.
    """
    cdef Py_ssize_t hi = end, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < j:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and indices[lo] == j:
        return data[lo]
    return 0.0

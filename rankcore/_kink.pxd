# Where the hinge losses' kink cuts a sorted list of scores: ℓ(z) = (1 − z)^m is 0 from z = 1 on, so the rows
# within reach of a score are a prefix or a suffix of the scores in ascending order, found by binary search
# with the exact floating-point test f_i − f_k < 1 (IEEE subtraction is monotone, so the test holds on a
# prefix).  Shared by the losses' sorted sums and the per-query push's level sweep, so that both cut a pair at
# the kink alike.  O(log n) time, O(1) memory.


cdef inline Py_ssize_t count_reaching(const double* ascending, Py_ssize_t n, double fk) noexcept nogil:
    # #{i : ascending[i] − fk < 1}: the rows i above a row k with f_i − f_k < 1 are a prefix
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if ascending[mid] - fk < 1.0:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline Py_ssize_t first_reached(const double* ascending, Py_ssize_t n, double fi) noexcept nogil:
    # the smallest s with fi − ascending[s] < 1 (n if none): the rows k below a row i within reach are a suffix
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if fi - ascending[mid] < 1.0:
            hi = mid
        else:
            lo = mid + 1
    return lo

# Ordering (key, row) pairs without the GIL, by one total order: ascending key, ties by the earlier row.
#
# For the kernels that order each query's rows inside a parallel loop, where NumPy cannot be called: YetiRank's
# noisy orders (keys negated: highest noisy score first) and the hinge sweep's score ranks.  The order is total, so
# the result does not depend on the pivots, and every caller's sums are reproducible to the bit.
#
# keyed_sort: quicksort (Hoare's partition, median-of-three pivots) down to ranges of KEYED_INSERTION rows, then
# one insertion sort over the whole buffer; the smaller side of each partition is sorted first and the larger
# waits on a stack, so at most 64 ranges wait.  Time O(n log n) expected, memory O(1).
# keyed_select: the first m entries of the order in buf[0:m] (in any order), O(n) expected, memory O(1).
# Inlined comparisons: libc's qsort, a call per comparison, took 1.4 to 2 times as long on these buffers.

from libc.stdint cimport int64_t


cdef struct Keyed:
    double key
    int64_t row


cdef enum:
    KEYED_INSERTION = 16       # ranges up to this many rows are left to the final insertion sort


cdef inline bint keyed_before(Keyed a, Keyed b) noexcept nogil:
    return a.key < b.key or (a.key == b.key and a.row < b.row)


cdef inline void keyed_swap(Keyed* buf, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef Keyed t = buf[i]
    buf[i] = buf[j]
    buf[j] = t


cdef inline Py_ssize_t keyed_partition(Keyed* buf, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* right) noexcept nogil:
    # Hoare's partition of buf[lo:hi + 1] around its median of three: returns j and sets right[0] = i, with
    # buf[lo:j + 1] no later than the pivot, buf[i:hi + 1] no earlier, and anything between them the pivot.
    cdef Py_ssize_t i = lo, j = hi, mid = lo + (hi - lo) // 2
    cdef Keyed pivot
    if keyed_before(buf[mid], buf[lo]):
        keyed_swap(buf, mid, lo)
    if keyed_before(buf[hi], buf[lo]):
        keyed_swap(buf, hi, lo)
    if keyed_before(buf[hi], buf[mid]):
        keyed_swap(buf, hi, mid)
    pivot = buf[mid]
    while i <= j:
        while keyed_before(buf[i], pivot):
            i += 1
        while keyed_before(pivot, buf[j]):
            j -= 1
        if i <= j:
            keyed_swap(buf, i, j)
            i += 1
            j -= 1
    right[0] = i
    return j


cdef inline void keyed_sort(Keyed* buf, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t waiting_lo[64]
    cdef Py_ssize_t waiting_hi[64]
    cdef Py_ssize_t lo = 0, hi = n - 1, i, j
    cdef int waiting = 0
    cdef Keyed item
    while True:
        while hi - lo > KEYED_INSERTION:
            j = keyed_partition(buf, lo, hi, &i)
            if j - lo < hi - i:                 # the smaller side first: at most log2(n) ranges wait
                waiting_lo[waiting], waiting_hi[waiting] = i, hi
                hi = j
            else:
                waiting_lo[waiting], waiting_hi[waiting] = lo, j
                lo = i
            waiting += 1
        if waiting == 0:
            break
        waiting -= 1
        lo, hi = waiting_lo[waiting], waiting_hi[waiting]
    for i in range(1, n):
        item = buf[i]
        j = i - 1
        while j >= 0 and keyed_before(item, buf[j]):
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = item


cdef inline void keyed_select(Keyed* buf, Py_ssize_t n, Py_ssize_t m) noexcept nogil:
    cdef Py_ssize_t lo = 0, hi = n - 1, i, j, target = m - 1
    while lo < hi:
        j = keyed_partition(buf, lo, hi, &i)
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            return

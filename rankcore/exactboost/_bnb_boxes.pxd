# ExactBoost's boxes: sets of candidate stumps (t_lo..t_hi) x (a_lo..a_hi) x
# (b_lo..b_hi) on the dyadic grid, the heap that orders them best bound first
# (ties by creation order), bisection, and the grid and margin arithmetic.
# Inline: compiled into the modules that use them (the search and the runs).

from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport realloc

cdef struct Box:
    int32_t t_lo, t_hi, a_lo, a_hi, b_lo, b_hi
    double bound
    int64_t order


cdef struct Heap:
    Box* items
    Py_ssize_t size
    Py_ssize_t capacity
    int64_t counter


cdef inline bint box_before(const Box* x, const Box* y) noexcept nogil:
    return x.bound < y.bound or (x.bound == y.bound and x.order < y.order)


cdef inline int heap_push(Heap* h, Box box) noexcept nogil:
    """Push; returns -1 when memory runs out."""
    cdef Py_ssize_t i, parent
    cdef Box* grown
    if h.size == h.capacity:
        grown = <Box*>realloc(h.items, 2 * h.capacity * sizeof(Box))
        if grown == NULL:
            return -1
        h.items = grown
        h.capacity *= 2
    box.order = h.counter
    h.counter += 1
    i = h.size
    h.size += 1
    while i > 0:
        parent = (i - 1) // 2
        if not box_before(&box, &h.items[parent]):
            break
        h.items[i] = h.items[parent]
        i = parent
    h.items[i] = box
    return 0


cdef inline Box heap_pop(Heap* h) noexcept nogil:
    cdef Box top = h.items[0]
    cdef Box last
    cdef Py_ssize_t i = 0, child
    h.size -= 1
    if h.size > 0:
        last = h.items[h.size]
        while True:
            child = 2 * i + 1
            if child >= h.size:
                break
            if child + 1 < h.size and box_before(&h.items[child + 1], &h.items[child]):
                child += 1
            if not box_before(&h.items[child], &last):
                break
            h.items[i] = h.items[child]
            i = child
        h.items[i] = last
    return top


cdef inline double grid_value(int32_t i, int32_t grid) noexcept nogil:
    """-1 + 2 i / grid, exactly (grid is a power of two)."""
    return <double>(2 * i - grid) / <double>grid


cdef inline double margin_of(double theta, double c0, double c1, double half_gap) noexcept nogil:
    """theta * (c0 + c1 * |b - a| / 2); ``half_gap`` is |b - a| / 2."""
    return theta * (c0 + c1 * half_gap)


cdef inline double smallest_half_gap(double a_lo, double a_hi, double b_lo, double b_hi) noexcept nogil:
    """min |b - a| / 2 over a in [a_lo, a_hi], b in [b_lo, b_hi]."""
    if b_lo > a_hi:
        return 0.5 * (b_lo - a_hi)
    if a_lo > b_hi:
        return 0.5 * (a_lo - b_hi)
    return 0.0


cdef inline bint is_leaf(const Box* b) noexcept nogil:
    """A single grid point: its bound is the exact loss there."""
    return b.t_lo == b.t_hi and b.a_lo == b.a_hi and b.b_lo == b.b_hi


cdef inline int split_range(int32_t lo, int32_t hi, int32_t* los, int32_t* his) noexcept nogil:
    """Bisect the index range lo..hi into two disjoint halves (1 part if a single index)."""
    cdef int32_t mid
    los[0] = lo
    if hi == lo:
        his[0] = hi
        return 1
    mid = lo + (hi - lo) // 2
    his[0] = mid
    los[1] = mid + 1
    his[1] = hi
    return 2

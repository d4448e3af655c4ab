# distutils: language = c++
"""The place discount of every row within its query: d = 1 / log2(1 + place), by descending score.

Ties in the scores are ordered by row (the lower row index first), as
LightGBM's lambdarank orders them.  The plain NumPy reference is
``tests/_query_objective_reference.place_discounts_reference``.
"""

from libc.math cimport log2
from libc.stdint cimport int64_t

cdef extern from *:
    """
    #include <algorithm>
    #include <utility>
    #include <vector>
    typedef std::pair<double, int64_t> rc_key_row;
    /* Sorts the (key, row) pairs ascending: keys are −scores, so descending scores, ties by row. */
    static inline void rc_sort_key_rows(rc_key_row* first, Py_ssize_t n, Py_ssize_t keep) {
        if (keep > 0 && keep < n)
            std::partial_sort(first, first + keep, first + n);
        else
            std::sort(first, first + n);
    }
    """
    cdef cppclass rc_key_row:
        double first
        int64_t second
    void rc_sort_key_rows(rc_key_row* first, Py_ssize_t n, Py_ssize_t keep) noexcept nogil

from libcpp.vector cimport vector


def grouped_place_discounts(const double[::1] scores,       # IN  (n,) caller's row order
                            const int64_t[::1] rows,        # IN  (n,) row indices, each query's contiguous
                            const int64_t[::1] starts,      # IN  (n_queries + 1,) query q: rows[starts[q]:starts[q+1]]
                            Py_ssize_t truncation,
                            double[::1] out):               # OUT (n,) caller's row order
    """Write d = 1 / log2(1 + place) of each row at its place in its query; 0 beyond ``truncation`` (if > 0).

    Notes
    -----
    O(Σ_q n_q log n_q) time (O(Σ_q n_q log T) with a truncation T: a
    partial sort), O(max n_q) extra memory.
    """
    cdef Py_ssize_t q, j, n_q, largest = 0, keep
    cdef int64_t row
    cdef vector[rc_key_row] buffer
    cdef vector[double] table
    for q in range(starts.shape[0] - 1):
        largest = max(largest, starts[q + 1] - starts[q])
    keep = min(largest, truncation) if truncation > 0 else largest
    buffer.resize(largest)
    table.resize(keep)
    for j in range(keep):
        table[j] = 1.0 / log2(2.0 + j)
    with nogil:
        for q in range(starts.shape[0] - 1):
            n_q = starts[q + 1] - starts[q]
            for j in range(n_q):
                row = rows[starts[q] + j]
                buffer[j].first = -scores[row]
                buffer[j].second = row
            rc_sort_key_rows(&buffer[0], n_q, keep)
            for j in range(n_q):
                out[buffer[j].second] = table[j] if j < keep else 0.0

"""The list metrics' two passes inside query blocks: each query's rows sorted by score, running sums per query.

Both take rows already grouped by query (``_query_kernels.QueryBlocks``: the grouping depends on the query ids
alone, so a validation set does it once), and both restart at every query, so no query's result depends on
the rows of another:

* ``sort_within_queries`` orders each query's rows by score, highest first, ties by the earlier row: the order of
  a stable sort by (query, score descending), which a global ``np.lexsort`` takes O(n log n) comparisons across
  every row to find, here O(Σ n_q log n_q) inside the queries, one thread a query.
* ``running_sums_within`` gives each entry the sum of the entries before it inside its run (its query): summed
  from 0 at the run's first entry, so a query's sums carry no rounding of the queries before it (a global
  cumulative sum minus the sum at the run's start does, about ε·Σ|values before the run|).
"""

from cython.parallel cimport prange
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from rankcore._keyed_sort cimport Keyed, keyed_sort
from rankcore._parallel cimport threads_for

#: Rows from which the sort shares the queries between threads (below, a parallel region's fork and join cost
#: more than the sorts of short queries).
DEF SORT_PARALLEL_ROWS = 65536


def sort_within_queries(const double[::1] scores, const int64_t[::1] rows, const int64_t[::1] starts,
                        const int64_t[::1] sizes, int64_t[::1] order, int64_t longest, int n_threads):
    """``order[s_q : s_q + n_q]`` (OUT): query q's rows sorted by score descending, ties by the earlier row.

    ``rows[s_q : s_q + n_q]`` are query q's rows in ascending row order (a stable grouping by query), so the
    result is, position for position, ``np.lexsort((-scores, codes))``: the order is total (score, then row),
    whatever the sort's pivots.  Queries of more than ``longest`` rows are left as they are, for the caller
    (NumPy's stable sort is faster on long runs of few distinct values).  ``scores`` must hold no NaN.  One
    thread owns each query (``prange``, guided schedule), so the result does not depend on ``n_threads``.
    Time O(Σ n_q log n_q) expected (quicksort down to insertion sorts of 16 rows: short queries are
    insertion-sorted), memory O(n) (one (key, row) pair a row).
    """
    cdef Py_ssize_t n = rows.shape[0], n_queries = starts.shape[0], q, j, s, m
    cdef Keyed* buf
    cdef int threads = threads_for(<double> n, n_threads, SORT_PARALLEL_ROWS)
    if order.shape[0] != n or sizes.shape[0] != n_queries:
        raise ValueError("sort_within_queries: order must have one entry a row and sizes one a query")
    if n == 0:
        return
    buf = <Keyed*> malloc(n * sizeof(Keyed))
    if buf == NULL:
        raise MemoryError(f"sort_within_queries: {n} (score, row) pairs")
    try:
        for q in prange(n_queries, nogil=True, schedule="guided", num_threads=threads):
            s = starts[q]
            m = sizes[q]
            if m > longest:
                continue
            for j in range(m):
                buf[s + j].key = -scores[rows[s + j]]
                buf[s + j].row = rows[s + j]
            keyed_sort(buf + s, m)
            for j in range(m):
                order[s + j] = buf[s + j].row
    finally:
        free(buf)


def running_sums_within(const double[::1] values, const int64_t[::1] run, double[::1] out):
    """``out[i]`` (OUT): the sum of ``values[j]`` over the j < i of i's run, added from 0 in order (0 at its first).

    ``run`` labels the entries; a run is a stretch of equal labels (the entries of one query, in ranking order).
    Each sum is the plain left-to-right sum of its run's earlier entries, the same as a loop over that query
    alone.  Time O(n), memory O(1).
    """
    cdef Py_ssize_t n = values.shape[0], i
    cdef double total = 0.0
    if run.shape[0] != n or out.shape[0] != n:
        raise ValueError("running_sums_within: values, run and out must have the same length")
    with nogil:
        for i in range(n):
            if i > 0 and run[i] != run[i - 1]:
                total = 0.0
            out[i] = total
            total = total + values[i]

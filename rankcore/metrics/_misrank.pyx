# Pairwise misranking rate for graded labels by inversion counting.
#
# Design
# ------
# A. misrank = #{(i, j) : y_i > y_j, f_i <= f_j} / #{(i, j) : y_i > y_j}.
#    Visit the examples in increasing y, a whole group of equal y at a time.
#    Every example already visited has a strictly smaller y, so each member i
#    of the current group forms a pair with all of them, misranked when the
#    earlier example's score is >= f_i.  A Fenwick tree over the dense ranks
#    of the scores counts "visited with rank >= rank_i" in O(log n).
# B. Members of a group are queried before any of them is inserted: equal y
#    is not a pair.  Equal scores have equal ranks and count as misranked.
# C. O(n log n) time (two sorts outside, n Fenwick operations inside), O(n)
#    memory (the tree); counts in 64-bit integers (n²/2 pairs fit for any n
#    that fits in memory).
# D. Within queries (``misranked_pairs_by_query``) the same visit runs on each
#    query's block, its Fenwick tree over the query's own dense score ranks;
#    queries run in a prange without the GIL, each writing only its own two
#    output slots from a tree of its own (malloc'd per query), so the counts
#    do not depend on the number of threads.

from cython.parallel cimport prange
from libc.stdlib cimport calloc, free

import numpy as np


cdef void _counts(const double* y, const long long* rank, Py_ssize_t n, Py_ssize_t n_ranks, long long* tree,
                  long long* misranked_out, long long* pairs_out) noexcept nogil:
    """A. and B. on one list: ``y`` ascending, ``rank`` in [0, n_ranks), ``tree`` n_ranks + 1 zeros."""
    cdef Py_ssize_t start = 0, end, t, pos
    cdef long long visited = 0, misranked = 0, pairs = 0, below
    while start < n:
        end = start + 1
        while end < n and y[end] == y[start]:
            end += 1
        for t in range(start, end):
            below = 0
            pos = rank[t]
            while pos > 0:
                below += tree[pos]
                pos -= pos & (-pos)
            misranked += visited - below
        pairs += visited * (end - start)
        for t in range(start, end):
            pos = rank[t] + 1
            while pos <= n_ranks:
                tree[pos] += 1
                pos += pos & (-pos)
        visited += end - start
        start = end
    misranked_out[0] = misranked
    pairs_out[0] = pairs


def misranked_pairs(const double[::1] y_sorted,       # IN labels in increasing order
                    const long long[::1] rank,        # IN dense score rank of each, in [0, n_ranks)
                    Py_ssize_t n_ranks):
    """Return (misranked, pairs) for labels visited in increasing order.

    ``rank[t]`` is the dense rank of the score of the example with label
    ``y_sorted[t]`` (equal scores, equal ranks).

    O(n log n_ranks + n_ranks) time for n labels, O(n_ranks) extra memory: the Fenwick tree.
    """
    cdef Py_ssize_t n = y_sorted.shape[0], t
    cdef long long misranked = 0, pairs = 0
    if rank.shape[0] != n:
        raise ValueError(f"misranked_pairs: {rank.shape[0]} ranks for {n} labels")
    tree_arr = np.zeros(n_ranks + 1, dtype=np.int64)
    cdef long long[::1] tree = tree_arr   # Fenwick tree, 1-based
    for t in range(n):
        if rank[t] < 0 or rank[t] >= n_ranks:
            raise ValueError(f"misranked_pairs: rank {rank[t]} outside [0, {n_ranks})")
    if n:
        with nogil:
            _counts(&y_sorted[0], &rank[0], n, n_ranks, &tree[0], &misranked, &pairs)
    return int(misranked), int(pairs)


def misranked_pairs_by_query(const double[::1] y_sorted,       # IN each query's labels, increasing
                             const long long[::1] rank,        # IN each row's dense score rank in its query
                             const long long[::1] starts,      # IN each query's first row
                             const long long[::1] sizes,       # IN each query's rows
                             long long[::1] misranked,         # OUT per query
                             long long[::1] pairs,             # OUT per query
                             int n_threads=1):
    """(misranked, pairs) of every query, its rows a contiguous block of the arrays.

    Within each block the labels ascend and ``rank`` is the dense rank of
    the row's score among the query's scores (in [0, size)).  O(Σ n_q log
    n_q) time, O(max n_q) extra memory per thread (a query's Fenwick tree,
    allocated for the query).  Raises MemoryError if a tree cannot be
    allocated, ValueError on inconsistent shapes or ranks.
    """
    cdef Py_ssize_t n_queries = starts.shape[0], n = y_sorted.shape[0], q, t
    cdef long long* tree
    cdef int failed = 0
    if rank.shape[0] != n or sizes.shape[0] != n_queries or misranked.shape[0] != n_queries \
            or pairs.shape[0] != n_queries:
        raise ValueError("misranked_pairs_by_query: inconsistent shapes")
    for q in range(n_queries):
        if starts[q] < 0 or sizes[q] < 0 or starts[q] + sizes[q] > n:
            raise ValueError(f"misranked_pairs_by_query: query {q} runs outside the {n} rows")
        for t in range(starts[q], starts[q] + sizes[q]):
            if rank[t] < 0 or rank[t] >= sizes[q]:
                raise ValueError(f"misranked_pairs_by_query: rank {rank[t]} outside [0, {sizes[q]}) in query {q}")
    for q in prange(n_queries, nogil=True, num_threads=max(n_threads, 1), schedule="dynamic"):
        tree = <long long*> calloc(sizes[q] + 1, sizeof(long long))
        if tree == NULL:
            failed += 1
        else:
            _counts(&y_sorted[0] + starts[q], &rank[0] + starts[q], sizes[q], sizes[q], tree, &misranked[q],
                    &pairs[q])
            free(tree)
    if failed:
        raise MemoryError("misranked_pairs_by_query: no memory for a query's Fenwick tree")

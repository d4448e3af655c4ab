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

import numpy as np


def misranked_pairs(const double[::1] y_sorted,       # IN labels in increasing order
                    const long long[::1] rank,        # IN dense score rank of each, in [0, n_ranks)
                    Py_ssize_t n_ranks):
    """Return (misranked, pairs) for labels visited in increasing order.

    ``rank[t]`` is the dense rank of the score of the example with label
    ``y_sorted[t]`` (equal scores, equal ranks).

    O(n log n_ranks + n_ranks) time for n labels, O(n_ranks) extra memory: the Fenwick tree.
    """
    cdef Py_ssize_t n = y_sorted.shape[0], start = 0, end, t, r, pos
    cdef long long visited = 0, misranked = 0, pairs = 0, below
    if rank.shape[0] != n:
        raise ValueError(f"misranked_pairs: {rank.shape[0]} ranks for {n} labels")
    tree_arr = np.zeros(n_ranks + 1, dtype=np.int64)
    cdef long long[::1] tree = tree_arr   # Fenwick tree, 1-based
    for t in range(n):
        if rank[t] < 0 or rank[t] >= n_ranks:
            raise ValueError(f"misranked_pairs: rank {rank[t]} outside [0, {n_ranks})")
    with nogil:
        while start < n:
            end = start + 1
            while end < n and y_sorted[end] == y_sorted[start]:
                end += 1
            for t in range(start, end):
                # below = #visited with rank < rank[t]  (prefix sum up to rank[t] - 1)
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
    return int(misranked), int(pairs)

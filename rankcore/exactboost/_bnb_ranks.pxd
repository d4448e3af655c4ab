# ExactBoost's ranks of one feature in a round: the data they are read from,
# the subsample's local ranks (``compress_ranks``), their grouping into at most
# ``max_bins`` bins (``bin_ranks``) and the threshold between two ranks
# (``threshold_between``).  Inline: compiled into the runs module, which
# calls them once per feature and round.

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport qsort

from ._bnb_levels cimport cmp_int32

cdef struct Data:
    Py_ssize_t n, d
    const int32_t* ranks        # (d, n): rank of x_ij among the distinct values of feature j
    const uint8_t* ranks8       # (d, n): the same as bytes for two-valued features (else unset)
    const int32_t* n_values     # (d,) distinct values per feature
    const int64_t* value_start  # (d,) offset of feature j's values in ``values``
    const double* values        # distinct sorted values of every feature, concatenated (binned: its edges)
    const uint8_t* binned       # (d,) 1: ranks are bin codes and ``values`` holds the bin edges
    const int32_t* pos_idx      # (n_pos,) rows of the positives
    Py_ssize_t n_pos
    const int32_t* neg_idx      # (n_neg,) rows of the negatives
    Py_ssize_t n_neg
    int32_t max_values          # max(n_values)



cdef inline int32_t compress_ranks(const Data* D, Py_ssize_t j,
                            const int32_t* sub_p, Py_ssize_t mp,
                            const int32_t* sub_n, Py_ssize_t mn,
                            int32_t* mark, int32_t* local, int32_t* distinct, int32_t* tmp,
                            int32_t* lrp, int32_t* lrn) noexcept nogil:
    """Local ranks of the subsample's values of feature j; returns the number of distinct values.

    ``distinct[c]`` (OUT) is the global rank of the c-th distinct value.  Scans
    the feature's distinct values when there are few of them (O(V_j + m)),
    else sorts the subsample's ranks (O(m log m)).  ``mark`` is left all zero.
    """
    cdef const int32_t* rj = D.ranks + j * D.n
    cdef int32_t nv = D.n_values[j]
    cdef Py_ssize_t i, m = mp + mn
    cdef int32_t c = 0, r
    if nv <= 8 * m:
        for i in range(mp):
            mark[rj[sub_p[i]]] = 1
        for i in range(mn):
            mark[rj[sub_n[i]]] = 1
        for r in range(nv):
            if mark[r]:
                local[r] = c
                distinct[c] = r
                c += 1
        for i in range(mp):
            mark[rj[sub_p[i]]] = 0
        for i in range(mn):
            mark[rj[sub_n[i]]] = 0
    else:
        for i in range(mp):
            tmp[i] = rj[sub_p[i]]
        for i in range(mn):
            tmp[mp + i] = rj[sub_n[i]]
        qsort(tmp, m, sizeof(int32_t), cmp_int32)
        for i in range(m):
            if i == 0 or tmp[i] != tmp[i - 1]:
                local[tmp[i]] = c
                distinct[c] = tmp[i]
                c += 1
    for i in range(mp):
        lrp[i] = local[rj[sub_p[i]]]
    for i in range(mn):
        lrn[i] = local[rj[sub_n[i]]]
    return c


cdef inline int32_t bin_ranks(int32_t* lrp, Py_ssize_t mp, int32_t* lrn, Py_ssize_t mn,
                       int32_t n_distinct, int32_t n_bins,
                       int32_t* counts, int32_t* bin_of, int32_t* bin_last) noexcept nogil:
    """Merge the distinct values into at most n_bins groups of about equal counts.

    Local ranks (IN/OUT) become bin indices; ``bin_last[b]`` (OUT) is the last
    local rank of bin b, so threshold b (between bins b and b+1) is the
    threshold ``bin_last[b]`` of the unbinned values.  A value is never split
    across bins.  Returns the number of bins.  O(m + n_distinct).
    """
    cdef Py_ssize_t i, m = mp + mn
    cdef int32_t c, b, prev = -1, used = -1
    cdef int64_t before = 0
    for c in range(n_distinct):
        counts[c] = 0
    for i in range(mp):
        counts[lrp[i]] += 1
    for i in range(mn):
        counts[lrn[i]] += 1
    for c in range(n_distinct):
        b = <int32_t>((before * n_bins) // m)
        if b != prev:
            used += 1
            prev = b
        bin_of[c] = used
        bin_last[used] = c
        before += counts[c]
    for i in range(mp):
        lrp[i] = bin_of[lrp[i]]
    for i in range(mn):
        lrn[i] = bin_of[lrn[i]]
    return used + 1


cdef inline double threshold_between(const Data* D, Py_ssize_t j, int32_t r_left, int32_t r_right,
                                     int32_t* cut) noexcept nogil:
    """The threshold between two ranks (r_left < r_right) of feature j and the last rank left of it.

    Exact features: the midpoint between the two distinct values, ``cut`` the
    last rank whose value is <= it.  Binned features (ranks are bin codes,
    ``values`` the edges, bin c = (edge[c - 1], edge[c]]): the edge in the
    middle of the codes between, e = (r_left + r_right - 1) // 2, and cut = e
    (x <= edge[e] exactly when x's code is <= e).  O(r_right - r_left).
    """
    cdef const double* v = D.values + D.value_start[j]
    cdef double lo, hi, xi
    cdef int32_t r = r_left
    if D.binned[j]:
        r = (r_left + r_right - 1) // 2
        cut[0] = r
        return v[r]
    lo = v[r_left]
    hi = v[r_right]
    xi = 0.5 * lo + 0.5 * hi
    if not (xi < hi) or xi < lo:
        xi = lo
    while r + 1 < r_right and v[r + 1] <= xi:
        r += 1
    cut[0] = r
    return xi

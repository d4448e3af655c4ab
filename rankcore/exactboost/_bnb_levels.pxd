# ExactBoost's scores by level: the run-length form of a presorted subsample.
#
# Scores are sums of dyadic stump values, so a subsample holds few distinct
# score levels (q << m once a run has a few stumps, q = 1 in round one).  For
# one class, ``Levels`` lists them ascending, each with the local threshold
# ranks of its examples sorted ascending.  A threshold range then splits every
# level into left/middle/right counts by binary search, and the sorted score
# array of a box is a merge over levels (O(q)) expanded into m values.
# The same lists merged with a box's offsets give its sorted scores as runs of
# equal values (``merge_groups_runs``, written out by ``expand_runs`` for the
# metrics without a run kernel); a two-valued feature's groups come from one
# pass over the round's levels (``two_value_groups``).  Inline: the merges are
# the hot loop of a search, compiled into the search and the runs modules.

from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, qsort

cdef inline double* doubles(Py_ssize_t n) noexcept nogil:
    """malloc of n doubles (NULL when out of memory)."""
    return <double*>malloc(n * sizeof(double))


cdef inline int32_t* ints(Py_ssize_t n) noexcept nogil:
    """malloc of n int32 (NULL when out of memory)."""
    return <int32_t*>malloc(n * sizeof(int32_t))


cdef struct Levels:
    Py_ssize_t q            # distinct scores
    double* value           # (q + 1,) ascending, +inf sentinel at [q]
    int32_t* start          # (q + 1,) segment of each level in ``rank``
    int32_t* rank           # (m,) local threshold ranks, ascending within a level


cdef struct Groups:
    # one class's examples of a threshold range, as (score, count) runs, each
    # list ascending with a +inf sentinel: left (rank <= t_lo), middle, right (rank > t_hi)
    double* lv
    int32_t* lc
    Py_ssize_t nl
    double* mv
    int32_t* mc
    Py_ssize_t nm
    double* rv
    int32_t* rc
    Py_ssize_t nr
    # prefix counts (pair-count path only): lk[k] = lc[0] + ... + lc[k - 1], k <= nl
    int64_t* lk
    int64_t* mk
    int64_t* rk


cdef inline void sort_int32(int32_t* a, Py_ssize_t n) noexcept nogil:
    """Ascending sort: insertion sort for short runs, qsort otherwise."""
    cdef Py_ssize_t i, j
    cdef int32_t x
    if n > 24:
        qsort(a, n, sizeof(int32_t), cmp_int32)
        return
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef inline int cmp_int32(const void* x, const void* y) noexcept nogil:
    cdef int32_t u = (<const int32_t*>x)[0]
    cdef int32_t v = (<const int32_t*>y)[0]
    return (u > v) - (u < v)


cdef inline void build_levels(const double* s, const int32_t* lr, Py_ssize_t m, Levels* L) noexcept nogil:
    """Levels of the ascending scores s (IN) with local ranks lr (IN).  O(m log m) at worst."""
    cdef Py_ssize_t i = 0, j, q = 0
    cdef double v
    while i < m:
        v = s[i]
        j = i
        while j < m and s[j] == v:
            L.rank[j] = lr[j]
            j += 1
        L.value[q] = v
        L.start[q] = <int32_t>i
        sort_int32(L.rank + i, j - i)
        q += 1
        i = j
    L.value[q] = INFINITY
    L.start[q] = <int32_t>m
    L.q = q


cdef inline void build_levels_counting(const double* s, const int32_t* lr, Py_ssize_t m, int32_t n_ranks,
                                Levels* L, int32_t* lev, int32_t* order, int32_t* first,
                                int32_t* fill) noexcept nogil:
    """``build_levels`` by counting sort: the same levels, ranks ascending within each.

    Examples are visited in ascending rank (a counting sort over the n_ranks
    local ranks) and appended to their level's segment, so no level is
    sorted by comparisons.  O(m + n_ranks) time; scratch ``lev``,
    ``order`` (m), ``first`` (n_ranks + 1), ``fill`` (m + 1).
    """
    cdef Py_ssize_t i = 0, j, q = 0
    cdef int32_t r
    cdef double v
    while i < m:  # the levels, and each example's level
        v = s[i]
        L.value[q] = v
        L.start[q] = <int32_t>i
        fill[q] = <int32_t>i
        while i < m and s[i] == v:
            lev[i] = <int32_t>q
            i += 1
        q += 1
    L.value[q] = INFINITY
    L.start[q] = <int32_t>m
    L.q = q
    for r in range(n_ranks + 1):
        first[r] = 0
    for i in range(m):
        first[lr[i] + 1] += 1
    for r in range(n_ranks):
        first[r + 1] += first[r]
    for i in range(m):
        order[first[lr[i]]] = <int32_t>i
        first[lr[i]] += 1
    for j in range(m):
        i = order[j]
        L.rank[fill[lev[i]]] = lr[i]
        fill[lev[i]] += 1


cdef inline Py_ssize_t count_le(const int32_t* a, Py_ssize_t n, int32_t t) noexcept nogil:
    """Number of entries <= t in the ascending a[0..n).  O(log n)."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    if n == 0 or a[0] > t:
        return 0
    if a[n - 1] <= t:
        return n
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void group_levels(const Levels* L, int32_t t_lo, int32_t t_hi, Groups* g) noexcept nogil:
    """Left/middle/right runs of one class for the threshold range t_lo..t_hi.  O(q log m)."""
    cdef Py_ssize_t k, n, c1, c2, nl = 0, nm = 0, nr = 0
    cdef const int32_t* seg
    cdef double v
    cdef int32_t r
    for k in range(L.q):
        seg = L.rank + L.start[k]
        n = L.start[k + 1] - L.start[k]
        v = L.value[k]
        if n == 1:
            # one example (most levels, with continuous features): write it to
            # all three lists and keep it in its own (branch-free; the other
            # two slots are overwritten by the next run or the sentinel)
            r = seg[0]
            g.lv[nl] = v
            g.lc[nl] = 1
            g.mv[nm] = v
            g.mc[nm] = 1
            g.rv[nr] = v
            g.rc[nr] = 1
            nl += r <= t_lo
            nm += (r > t_lo) & (r <= t_hi)
            nr += r > t_hi
            continue
        if n <= 16:  # most levels are small: a scan beats a binary search
            c1 = 0
            while c1 < n and seg[c1] <= t_lo:
                c1 += 1
            c2 = c1
            while c2 < n and seg[c2] <= t_hi:
                c2 += 1
        else:
            c1 = count_le(seg, n, t_lo)
            c2 = c1 if t_hi == t_lo else c1 + count_le(seg + c1, n - c1, t_hi)
        if c1 > 0:
            g.lv[nl] = v
            g.lc[nl] = <int32_t>c1
            nl += 1
        if c2 > c1:
            g.mv[nm] = v
            g.mc[nm] = <int32_t>(c2 - c1)
            nm += 1
        if n > c2:
            g.rv[nr] = v
            g.rc[nr] = <int32_t>(n - c2)
            nr += 1
    g.lv[nl] = INFINITY
    g.mv[nm] = INFINITY
    g.rv[nr] = INFINITY
    g.lc[nl] = 0
    g.mc[nm] = 0
    g.rc[nr] = 0
    g.nl = nl
    g.nm = nm
    g.nr = nr


cdef inline Py_ssize_t merge_two_runs(const double* xv, const int32_t* xc, double ox,
                               const double* yv, const int32_t* yc, double oy, double shift,
                               double* out_v, int32_t* out_c) noexcept nogil:
    """``merge_groups_runs`` when the middle group is empty (a single threshold).

    Branch-free: the next run and the coalescing of equal values are chosen
    by arithmetic, not by jumps (the merge is the hot loop of a search).  O(q).
    """
    cdef Py_ssize_t i = 0, j = 0, w = 0
    cdef double vx, vy, v, last = INFINITY
    cdef int take_x, dup
    cdef int32_t c
    while True:
        vx = xv[i] + ox
        vy = yv[j] + oy
        take_x = vx <= vy
        v = vx if take_x else vy
        if v == INFINITY:
            break  # both sentinels
        c = xc[i] if take_x else yc[j]
        i += take_x
        j += 1 - take_x
        v = v - shift
        dup = v == last
        w -= dup
        out_c[w] = c + (out_c[w] if dup else 0)
        out_v[w] = v
        w += 1
        last = v
    return w


cdef inline Py_ssize_t merge_groups_runs(const Groups* g, double ol, double om, double orr, double shift,
                                  double* out_v, int32_t* out_c) noexcept nogil:
    """The same scores as ``expand_groups``, run-length encoded: strictly ascending
    values ``out_v`` with their counts ``out_c`` (OUT); returns the number of runs.

    Equal values from different groups are coalesced into one run.  O(q).
    """
    if g.nm == 0:
        return merge_two_runs(g.lv, g.lc, ol, g.rv, g.rc, orr, shift, out_v, out_c)
    cdef Py_ssize_t i = 0, j = 0, k = 0, w = 0, c, cxy
    cdef double vx, vy, vz, vxy, v, last = INFINITY
    cdef int take_x, take_z, dup
    while True:
        vx = g.lv[i] + ol
        vy = g.mv[j] + om
        vz = g.rv[k] + orr
        take_x = vx <= vy
        vxy = vx if take_x else vy
        cxy = g.lc[i] if take_x else g.mc[j]
        take_z = vz < vxy
        v = vz if take_z else vxy
        if v == INFINITY:
            break  # the three sentinels
        c = g.rc[k] if take_z else cxy
        k += take_z
        i += take_x & (1 - take_z)
        j += (1 - take_x) & (1 - take_z)
        v = v - shift
        dup = v == last  # coalesce without a branch (as merge_two_runs)
        w -= dup
        out_c[w] = <int32_t>c + (out_c[w] if dup else 0)
        out_v[w] = v
        w += 1
        last = v
    return w


cdef inline void expand_runs(const double* value, const int32_t* count, Py_ssize_t n_runs,
                             double* out) noexcept nogil:
    """The runs written out once per example (OUT): the expanded sorted scores of a box.  O(m)."""
    cdef Py_ssize_t k, r, w = 0
    for k in range(n_runs):
        for r in range(count[k]):
            out[w + r] = value[k]
        w += count[k]


cdef inline Py_ssize_t score_levels(const double* s, Py_ssize_t m, int32_t* start) noexcept nogil:
    """Starts of the runs of equal values in the ascending s (OUT: start[0..q], start[q] = m).

    Computed once per round and class: the levels do not depend on the
    feature searched.  Returns q.  O(m).
    """
    cdef Py_ssize_t i = 0, q = 0
    cdef double v
    while i < m:
        v = s[i]
        start[q] = <int32_t>i
        q += 1
        i += 1
        while i < m and s[i] == v:
            i += 1
    start[q] = <int32_t>m
    return q


cdef inline Py_ssize_t two_value_groups(const uint8_t* rj, const int32_t* sub, const double* s,
                                 const int32_t* start, Py_ssize_t q, Groups* g) noexcept nogil:
    """``group_levels`` of threshold 0 for a feature with two values (ranks 0 and 1).

    The examples ``sub`` (rows, ascending scores ``s``, levels ``start`` from
    ``score_levels``) are counted per level: rank 0 goes left, rank 1 right;
    the middle group is empty.  The same runs as ``build_levels_counting``
    followed by ``group_levels(L, 0, 0)``, in one pass.  Returns the number
    of examples of rank 0.  ``rj`` is the feature's row of ``Data.ranks8``
    (one byte per example: the random reads stay in the L1 cache longer).  O(m).
    """
    cdef Py_ssize_t k, i, nl = 0, nr = 0, zeros = 0
    cdef int32_t c0, n
    cdef double v
    for k in range(q):
        c0 = 0
        for i in range(start[k], start[k + 1]):
            c0 += rj[sub[i]] == 0
        n = start[k + 1] - start[k]
        v = s[start[k]]
        if c0 > 0:
            g.lv[nl] = v
            g.lc[nl] = c0
            nl += 1
        if n > c0:
            g.rv[nr] = v
            g.rc[nr] = n - c0
            nr += 1
        zeros += c0
    g.lv[nl] = INFINITY
    g.mv[0] = INFINITY
    g.rv[nr] = INFINITY
    g.lc[nl] = 0
    g.mc[0] = 0
    g.rc[nr] = 0
    g.nl = nl
    g.nm = 0
    g.nr = nr
    return zeros


cdef inline int levels_alloc(Levels* L, Py_ssize_t m) noexcept nogil:
    L.q = 0
    L.value = doubles(m + 1)
    L.start = ints(m + 1)
    L.rank = ints(m + 1)
    return -1 if (L.value == NULL or L.start == NULL or L.rank == NULL) else 0


cdef inline void levels_free(Levels* L) noexcept nogil:
    free(L.value)
    free(L.start)
    free(L.rank)


cdef inline int groups_alloc(Groups* g, Py_ssize_t m) noexcept nogil:
    # m runs at most, plus the sentinel
    g.lv, g.mv, g.rv = doubles(m + 1), doubles(m + 1), doubles(m + 1)
    g.lc, g.mc, g.rc = ints(m + 1), ints(m + 1), ints(m + 1)
    g.lk = <int64_t*>malloc((m + 2) * sizeof(int64_t))
    g.mk = <int64_t*>malloc((m + 2) * sizeof(int64_t))
    g.rk = <int64_t*>malloc((m + 2) * sizeof(int64_t))
    return -1 if (g.lv == NULL or g.mv == NULL or g.rv == NULL or g.lc == NULL
                  or g.mc == NULL or g.rc == NULL or g.lk == NULL or g.mk == NULL or g.rk == NULL) else 0


cdef inline void groups_free(Groups* g) noexcept nogil:
    free(g.lv)
    free(g.mv)
    free(g.rv)
    free(g.lc)
    free(g.mc)
    free(g.rc)
    free(g.lk)
    free(g.mk)
    free(g.rk)

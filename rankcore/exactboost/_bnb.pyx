"""ExactBoost's kernel: interval branch and bound per feature, boosting runs in parallel.

Design
------
A. Stumps are h(x) = a if x_j <= xi else b.  Thresholds are indices t into
   the distinct values of feature j among the round's subsample (left group:
   local rank <= t; ``max_thresholds``, the kernel's ``max_bins``, may group
   them per round).  A feature binned once per fit (``PreparedData.binned``,
   the estimator's ``max_bins``) has bin codes for ranks and its bin edges
   for values: its thresholds are edges (``threshold_between``), and the
   codes are read like ranks everywhere else.  a and b live on a dyadic
   grid -1 + 2 i / G, G = 2**depth.  Every score is then a sum of dyadic
   numbers and is computed exactly in float64: ties are real ties, and no
   result depends on the order of a summation.
B. A box is a set of grid points (t_lo..t_hi) x (a_lo..a_hi) x (b_lo..b_hi).
   Its bound is the metric's loss with every positive at the top of its
   score interval and every negative at the bottom (docs/theory/exactboost.md#the-interval-bound): left group
   S + a_hi / S + a_lo, right group S + b_hi / S + b_lo, the undecided
   middle group (t_lo < rank <= t_hi) S + max(a_hi, b_hi) / S + min(a_lo, b_lo),
   positives lowered by the smallest margin the box allows.  A monotone
   metric cannot do better anywhere in the box, so the bound is valid; on a
   single grid point it is the exact loss.
C. Shift-invariant metrics (every rank metric) rank (a, b) like (0, b - a):
   a is pinned to 0 and d = b - a spans [-2, 2] on the same grid step, which
   finds the same optimum with tighter bounds and no duplicate boxes
   (``set_root_box``).  Other monotone metrics get the general (t, a, b) box.
D. Sort-order reuse: a round presorts the subsample by the current score once
   (read off in O(n) from the full-data order, which is itself maintained by
   merging, never by sorting).  Scores live on a lattice, so a subsample has
   q << m distinct score levels; per level the local ranks are sorted once
   per feature search (``Levels``), a threshold range splits every level by
   binary search (``group_levels``, cached across the (a, b) children), and a
   box's sorted score arrays are a merge over levels expanded into m values
   (``expand_groups``): O(q log m + m) per box, then the metric's O(m) kernel.
   Better, the box's scores stay run-length encoded (``merge_groups_runs``:
   q runs, equal values coalesced) and AUC, KS and prec@k are evaluated on
   the runs (``LossEvaluator.loss_runs``): O(q log m + q) per box, the same
   loss bit for bit; other metrics expand the runs (O(m)).  The expanded
   path stays reachable (``run_length=False``) as the reference.
D2. AUC counts pairs, so on the run-length path a box's AUC needs no merge:
   its (below, tied) pair counts are the sums over the 3 x 3 pairs of a
   positive group (left/middle/right) and a negative group, each counted by
   a two-pointer walk or, when one group is short, a binary search per run
   of the short one (``box_bound_pairs``, ``cross_counts``).  The pair
   counts are those of the merged lists, so the loss is the same bit for
   bit.  With a pinned at 0 (shift-invariant search), the (left, left) pair
   never changes within a threshold range and other pairs' offsets recur
   along a dive: each pair caches its last four offset combinations.  On
   binary data the right group (x = 1) is short, so a box costs
   O(q_short log q) instead of O(q).
D3. Two-valued features (binary data) have one threshold: the round's score
   levels are found once per round (``score_levels``) and each feature's
   left/right groups are counted in one pass over them
   (``two_value_groups``, reading the ranks as bytes), with no local ranks,
   level sort or grouping.
E. Search: best-bound-first with pruning against the incumbent, which is
   shared by all features of a round and starts at the loss of adding
   nothing.  Boxes are bisected into disjoint halves, so every grid point is
   a leaf exactly once.  From every box taken off the heap the search dives,
   always into the child with the best bound (siblings go on the heap), to a
   grid point, whose exact loss may become the incumbent.  Without a budget
   this is exact on the grid (tested against exhaustive search).  With a
   budget (``max_boxes`` bound evaluations per feature, checked between
   dives) it is an anytime search never worse than its first dive, which is
   the paper's greedy descent.
F. The acceptance test compares like with like: the full-training-set loss
   (plain metric) after the candidate against before it, O(n) by merging
   the two groups of the maintained full-data order.
G. Runs are independent; each has its own RNG (xoshiro256**, seeded from its
   64-bit run seed) and workspace, so a run's stumps depend only on its seed,
   whatever the number of threads.  ``fit_runs`` spreads runs over threads
   with OpenMP (prange, dynamic schedule); nothing is shared but read-only
   data and the evaluators (which hold no per-call state; PythonLoss takes
   the GIL for each call).

Time per run: O(T (n + f (V + m log m + B (q log m + m)))) for T rounds, n
examples, f features searched per round with V distinct values, a subsample
of m in q score levels and B bound evaluations per feature search (the
metric's kernel is O(m); with run-length evaluation the B term is
B (q log m + q) for AUC, KS and prec@k).  Memory per run: O(n + d + V + m + heap); the heap
holds at most 8 boxes per bound evaluation; per fit, d n bytes for the
two-valued features' ranks (run-length path).  Nothing is O(I x K).
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memset

import numpy as np

from ._evaluators cimport LossEvaluator

# --------------------------------------------------------------------------
# Random numbers: splitmix64 to seed, xoshiro256** to draw (both public domain
# algorithms by Vigna et al.; small and fast, with a per-run state).
# --------------------------------------------------------------------------

cdef struct Rng:
    uint64_t s0, s1, s2, s3


cdef inline uint64_t _splitmix64(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    cdef uint64_t x = seed
    r.s0 = _splitmix64(&x)
    r.s1 = _splitmix64(&x)
    r.s2 = _splitmix64(&x)
    r.s3 = _splitmix64(&x)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s1 * 5, 7) * 9
    cdef uint64_t t = r.s1 << 17
    r.s2 ^= r.s0
    r.s3 ^= r.s1
    r.s1 ^= r.s2
    r.s0 ^= r.s3
    r.s2 ^= t
    r.s3 = _rotl(r.s3, 45)
    return result


cdef inline Py_ssize_t rng_below(Rng* r, Py_ssize_t bound) noexcept nogil:
    """Uniform integer in [0, bound), without modulo bias (rejection)."""
    cdef uint64_t b = <uint64_t>bound
    cdef uint64_t limit = (<uint64_t>0xFFFFFFFFFFFFFFFF) - ((<uint64_t>0xFFFFFFFFFFFFFFFF) % b)
    cdef uint64_t x = rng_next(r)
    while x >= limit:
        x = rng_next(r)
    return <Py_ssize_t>(x % b)


cdef void partial_shuffle(Rng* r, int32_t* items, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """Make items[0..k) a uniform random k-subset of items[0..n) (partial Fisher-Yates)."""
    cdef Py_ssize_t i, j
    cdef int32_t tmp
    for i in range(k):
        j = i + rng_below(r, n - i)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp


# --------------------------------------------------------------------------
# Boxes and the heap (best bound first; ties by creation order)
# --------------------------------------------------------------------------

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


cdef int heap_push(Heap* h, Box box) noexcept nogil:
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


cdef Box heap_pop(Heap* h) noexcept nogil:
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


# --------------------------------------------------------------------------
# Per-element helpers
# --------------------------------------------------------------------------

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


# --------------------------------------------------------------------------
# Scores by level: the run-length form of a presorted subsample
# --------------------------------------------------------------------------
#
# Scores are sums of dyadic stump values, so a subsample holds few distinct
# score levels (q << m once a run has a few stumps, q = 1 in round one).  For
# one class, ``Levels`` lists them ascending, each with the local threshold
# ranks of its examples sorted ascending.  A threshold range then splits every
# level into left/middle/right counts by binary search, and the sorted score
# array of a box is a merge over levels (O(q)) expanded into m values.

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


cdef void sort_int32(int32_t* a, Py_ssize_t n) noexcept nogil:
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


cdef int cmp_int32(const void* x, const void* y) noexcept nogil:
    cdef int32_t u = (<const int32_t*>x)[0]
    cdef int32_t v = (<const int32_t*>y)[0]
    return (u > v) - (u < v)


cdef void build_levels(const double* s, const int32_t* lr, Py_ssize_t m, Levels* L) noexcept nogil:
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


cdef void build_levels_counting(const double* s, const int32_t* lr, Py_ssize_t m, int32_t n_ranks,
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


cdef void group_levels(const Levels* L, int32_t t_lo, int32_t t_hi, Groups* g) noexcept nogil:
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


cdef void expand_groups(const Groups* g, double ol, double om, double orr, double shift,
                        double* out) noexcept nogil:
    """The ascending scores of one class: each run's score plus its group's offset,
    minus ``shift``, merged over runs and written once per example (OUT).

    Values are (v + o) - shift, computed in that order everywhere (rounding is
    monotone, so bounds and exact values stay comparable).  The choice of the
    next run is branch-free (most levels hold one or two examples once a run
    has many stumps, and a mispredicted branch per example would dominate).
    O(q + m).
    """
    cdef Py_ssize_t i = 0, j = 0, k = 0, w = 0, r, c, cxy
    cdef double vx, vy, vz, vxy, v
    cdef int take_x, take_z
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
        out[w] = v
        for r in range(1, c):
            out[w + r] = v
        w += c


cdef Py_ssize_t merge_two_runs(const double* xv, const int32_t* xc, double ox,
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


cdef Py_ssize_t merge_groups_runs(const Groups* g, double ol, double om, double orr, double shift,
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


cdef Py_ssize_t score_levels(const double* s, Py_ssize_t m, int32_t* start) noexcept nogil:
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


cdef Py_ssize_t two_value_groups(const uint8_t* rj, const int32_t* sub, const double* s,
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


# --------------------------------------------------------------------------
# The search for one feature
# --------------------------------------------------------------------------

cdef enum:
    CROSS_WAYS = 4  # cached offset combinations per group pair (a compile-time constant)


cdef struct Cross:
    int64_t gen
    double ox, sx, oy
    int64_t below, tied


cdef struct Search:
    Py_ssize_t mp, mn       # subsample sizes (positives, negatives)
    Levels lp, ln           # the subsample by score level (IN, built per feature)
    Groups gp, gn           # groups of the cached threshold range
    int32_t part_t_lo, part_t_hi   # that range (-1: none)
    int32_t t_max           # thresholds are 0..t_max (distinct values - 2)
    int32_t grid
    int32_t root_a_lo, root_a_hi, root_b_lo, root_b_hi   # the (a, b) box searched
    double theta, c0, c1    # margin = theta * (c0 + c1 * |b - a| / 2)
    int64_t max_boxes       # <= 0: no budget
    double* out_p           # (mp,) scratch: sorted positive scores of a box
    double* out_n           # (mn,)
    double* run_vp          # (mp,) scratch: a box's positive scores as runs (values)
    int32_t* run_cp         # (mp,) ... and counts
    double* run_vn          # (mn,)
    int32_t* run_cn         # (mn,)
    bint run_length         # evaluate boxes on runs (else on the expanded arrays: the reference)
    int32_t n_ranks         # local threshold ranks are 0..n_ranks-1 (set before loading a subsample)
    int32_t* sc_lev         # scratch of build_levels_counting: (max(mp, mn) + 1,)
    int32_t* sc_order       # (max(mp, mn) + 1,)
    int32_t* sc_fill        # (max(mp, mn) + 1,)
    int32_t* sc_first       # (mp + mn + 2,)
    # AUC by pair counts (see box_bound_pairs): on when the evaluator has the form
    bint pair_auc
    double auc_sign, auc_offset
    int64_t gen             # bumped whenever gp/gn change (keys the cross cache)
    Cross cache[9 * CROSS_WAYS]  # recent (offsets, counts) of each (positive group, negative group) pair
    uint8_t cache_next[9]   # the entry of each pair's set replaced next (round robin)
    Heap heap
    # statistics
    int64_t evals
    bint exhausted
    bint oom


cdef inline bint is_leaf(const Box* b) noexcept nogil:
    """A single grid point: its bound is the exact loss there."""
    return b.t_lo == b.t_hi and b.a_lo == b.a_hi and b.b_lo == b.b_hi


cdef inline void ensure_partition(Search* s, int32_t t_lo, int32_t t_hi) noexcept nogil:
    """Groups of the threshold range t_lo..t_hi in the scratch runs (cached: best-first
    search often comes back to the same range with other (a, b))."""
    if s.part_t_lo == t_lo and s.part_t_hi == t_hi:
        return
    group_levels(&s.lp, t_lo, t_hi, &s.gp)
    group_levels(&s.ln, t_lo, t_hi, &s.gn)
    s.part_t_lo = t_lo
    s.part_t_hi = t_hi
    groups_changed(s)


cdef inline void prefix_counts(const int32_t* c, Py_ssize_t n, int64_t* k) noexcept nogil:
    cdef Py_ssize_t i
    k[0] = 0
    for i in range(n):
        k[i + 1] = k[i] + c[i]


cdef void groups_changed(Search* s) noexcept nogil:
    """Call after gp/gn were rebuilt: invalidates the cross cache, refreshes prefix counts."""
    s.gen += 1
    if s.pair_auc:
        prefix_counts(s.gp.lc, s.gp.nl, s.gp.lk)
        prefix_counts(s.gp.mc, s.gp.nm, s.gp.mk)
        prefix_counts(s.gp.rc, s.gp.nr, s.gp.rk)
        prefix_counts(s.gn.lc, s.gn.nl, s.gn.lk)
        prefix_counts(s.gn.mc, s.gn.nm, s.gn.mk)
        prefix_counts(s.gn.rc, s.gn.nr, s.gn.rk)


cdef inline int bit_length(Py_ssize_t n) noexcept nogil:
    cdef int b = 0
    while n > 0:
        b += 1
        n >>= 1
    return b


cdef inline Py_ssize_t first_neg_at_least(const double* v, Py_ssize_t n, double o, double x,
                                          bint strict) noexcept nogil:
    """First k with v[k] + o >= x (strict: > x) in the ascending v; n if none.  O(log n)."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if (v[mid] + o > x) if strict else (v[mid] + o >= x):
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline Py_ssize_t first_pos_at_least(const double* v, Py_ssize_t n, double o, double sh, double y,
                                          bint strict) noexcept nogil:
    """First k with (v[k] + o) - sh >= y (strict: > y) in the ascending v; n if none.  O(log n)."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    cdef double x
    while lo < hi:
        mid = (lo + hi) >> 1
        x = (v[mid] + o) - sh
        if (x > y) if strict else (x >= y):
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef void cross_counts(const double* xv, const int32_t* xc, const int64_t* xk, Py_ssize_t nx, double ox, double sx,
                       const double* yv, const int32_t* yc, const int64_t* yk, Py_ssize_t ny, double oy,
                       int64_t* below, int64_t* tied) noexcept nogil:
    """AUC's pair counts between a group of positives and a group of negatives (OUT, added).

    Positive run i scores (xv[i] + ox) - sx, negative run j scores yv[j] + oy
    (the values ``merge_groups_runs`` writes, so every comparison is the
    same); ``below`` counts pairs with the negative strictly lower, ``tied``
    equal pairs.  ``xk``/``yk`` are prefix counts.  A two-pointer walk,
    O(nx + ny), or, when one group is much shorter, a binary search per run
    of the shorter one, O(min log max).
    """
    cdef Py_ssize_t i, j, k, u, l
    cdef int64_t b = 0, t = 0
    cdef double x, y
    cdef int64_t walk = nx + ny
    if nx == 0 or ny == 0:
        return
    if nx * (2 * bit_length(ny) + 2) < walk:
        for i in range(nx):
            x = (xv[i] + ox) - sx
            j = first_neg_at_least(yv, ny, oy, x, False)
            k = first_neg_at_least(yv, ny, oy, x, True)
            b += xc[i] * yk[j]
            t += xc[i] * (yk[k] - yk[j])
    elif ny * (2 * bit_length(nx) + 2) < walk:
        for j in range(ny):
            y = yv[j] + oy
            l = first_pos_at_least(xv, nx, ox, sx, y, False)
            u = first_pos_at_least(xv, nx, ox, sx, y, True)
            b += yc[j] * (xk[nx] - xk[u])
            t += yc[j] * (xk[u] - xk[l])
    else:
        j = 0
        for i in range(nx):
            x = (xv[i] + ox) - sx
            while j < ny and yv[j] + oy < x:
                j += 1
            k = j
            while k < ny and yv[k] + oy == x:
                k += 1
            b += xc[i] * yk[j]
            t += xc[i] * (yk[k] - yk[j])
    below[0] += b
    tied[0] += t


cdef inline void cached_cross(Search* s, int slot,
                              const double* xv, const int32_t* xc, const int64_t* xk, Py_ssize_t nx,
                              double ox, double sx,
                              const double* yv, const int32_t* yc, const int64_t* yk, Py_ssize_t ny,
                              double oy, int64_t* below, int64_t* tied) noexcept nogil:
    """``cross_counts`` through a small cache per group pair (entries valid while s.gen holds).

    A dive bisects b: consecutive boxes share one end of the range, so a
    pair's offsets come back often; CROSS_WAYS entries per pair, replaced
    round robin.
    """
    cdef Cross* c = &s.cache[slot * CROSS_WAYS]
    cdef int w
    for w in range(CROSS_WAYS):
        if c[w].gen == s.gen and c[w].ox == ox and c[w].sx == sx and c[w].oy == oy:
            below[0] += c[w].below
            tied[0] += c[w].tied
            return
    w = s.cache_next[slot]
    s.cache_next[slot] = (w + 1) % CROSS_WAYS
    c = c + w
    c.gen = s.gen
    c.ox = ox
    c.sx = sx
    c.oy = oy
    c.below = 0
    c.tied = 0
    cross_counts(xv, xc, xk, nx, ox, sx, yv, yc, yk, ny, oy, &c.below, &c.tied)
    below[0] += c.below
    tied[0] += c.tied


cdef double box_bound_pairs(Search* s, double ol, double om, double orr, double shift,
                            double nl, double nm, double nr) noexcept nogil:
    """AUC's loss of a box from the pair counts of its 3 x 3 (positive, negative) group pairs.

    AUC counts pairs, so the counts of the merged score lists are the sums of
    the counts between groups: no merge.  The loss is formed exactly as
    ``SortedLoss.loss_runs`` forms it from ``auc_runs``' counts (the same
    bits).  With the shift-invariant search, a is pinned: the (left, left)
    pair and the pairs whose offsets recur are cached.  Per box
    O(sum over the 9 pairs of min(nx + ny, min(nx, ny) log max(nx, ny))).
    """
    cdef int64_t below = 0, tied = 0
    cdef const Groups* p = &s.gp
    cdef const Groups* q = &s.gn
    cdef double value
    cached_cross(s, 0, p.lv, p.lc, p.lk, p.nl, ol, shift, q.lv, q.lc, q.lk, q.nl, nl, &below, &tied)
    cached_cross(s, 1, p.lv, p.lc, p.lk, p.nl, ol, shift, q.mv, q.mc, q.mk, q.nm, nm, &below, &tied)
    cached_cross(s, 2, p.lv, p.lc, p.lk, p.nl, ol, shift, q.rv, q.rc, q.rk, q.nr, nr, &below, &tied)
    cached_cross(s, 3, p.mv, p.mc, p.mk, p.nm, om, shift, q.lv, q.lc, q.lk, q.nl, nl, &below, &tied)
    cached_cross(s, 4, p.mv, p.mc, p.mk, p.nm, om, shift, q.mv, q.mc, q.mk, q.nm, nm, &below, &tied)
    cached_cross(s, 5, p.mv, p.mc, p.mk, p.nm, om, shift, q.rv, q.rc, q.rk, q.nr, nr, &below, &tied)
    cached_cross(s, 6, p.rv, p.rc, p.rk, p.nr, orr, shift, q.lv, q.lc, q.lk, q.nl, nl, &below, &tied)
    cached_cross(s, 7, p.rv, p.rc, p.rk, p.nr, orr, shift, q.mv, q.mc, q.mk, q.nm, nm, &below, &tied)
    cached_cross(s, 8, p.rv, p.rc, p.rk, p.nr, orr, shift, q.rv, q.rc, q.rk, q.nr, nr, &below, &tied)
    value = (2.0 * below + tied) / (2.0 * s.mp * s.mn)
    return s.auc_sign * value + s.auc_offset


cdef double box_bound(Search* s, LossEvaluator ev, const Box* b) noexcept nogil:
    """Interval lower bound of the margin-adjusted loss on box b; exact on a single point.

    Positives at the top of their score interval, lowered by the smallest
    margin in the box; negatives at the bottom of theirs.  O(q log m + m)
    plus the metric's O(m); on runs O(q log m + q) for metrics with a run kernel.
    """
    cdef double a_lo = grid_value(b.a_lo, s.grid), a_hi = grid_value(b.a_hi, s.grid)
    cdef double b_lo = grid_value(b.b_lo, s.grid), b_hi = grid_value(b.b_hi, s.grid)
    cdef double shift = margin_of(s.theta, s.c0, s.c1, smallest_half_gap(a_lo, a_hi, b_lo, b_hi))
    cdef Py_ssize_t rp, rn
    ensure_partition(s, b.t_lo, b.t_hi)
    s.evals += 1
    if s.pair_auc:  # AUC: pair counts of the groups, no merge
        return box_bound_pairs(s, a_hi, a_hi if a_hi > b_hi else b_hi, b_hi, shift,
                               a_lo, a_lo if a_lo < b_lo else b_lo, b_lo)
    if s.run_length:  # O(q) merges and, for AUC / KS / prec@k, an O(q) metric
        rp = merge_groups_runs(&s.gp, a_hi, a_hi if a_hi > b_hi else b_hi, b_hi, shift, s.run_vp, s.run_cp)
        rn = merge_groups_runs(&s.gn, a_lo, a_lo if a_lo < b_lo else b_lo, b_lo, 0.0, s.run_vn, s.run_cn)
        return ev.loss_runs(s.run_vp, s.run_cp, rp, s.mp, s.run_vn, s.run_cn, rn, s.mn, s.out_p, s.out_n)
    expand_groups(&s.gp, a_hi, a_hi if a_hi > b_hi else b_hi, b_hi, shift, s.out_p)
    expand_groups(&s.gn, a_lo, a_lo if a_lo < b_lo else b_lo, b_lo, 0.0, s.out_n)
    return ev.loss(s.out_p, s.mp, s.out_n, s.mn)


cdef int split_range(int32_t lo, int32_t hi, int32_t* los, int32_t* his) noexcept nogil:
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


cdef int expand(Search* s, LossEvaluator ev, const Box* parent, Box* children) noexcept nogil:
    """The (up to 8) children of a box, with their bounds; returns their number."""
    cdef int32_t tl[2]
    cdef int32_t th[2]
    cdef int32_t al[2]
    cdef int32_t ah[2]
    cdef int32_t bl[2]
    cdef int32_t bh[2]
    cdef int nt = split_range(parent.t_lo, parent.t_hi, tl, th)
    cdef int na = split_range(parent.a_lo, parent.a_hi, al, ah)
    cdef int nb = split_range(parent.b_lo, parent.b_hi, bl, bh)
    cdef int it, ia, ib, c = 0
    for it in range(nt):
        for ia in range(na):
            for ib in range(nb):
                children[c].t_lo = tl[it]
                children[c].t_hi = th[it]
                children[c].a_lo = al[ia]
                children[c].a_hi = ah[ia]
                children[c].b_lo = bl[ib]
                children[c].b_hi = bh[ib]
                children[c].bound = box_bound(s, ev, &children[c])
                c += 1
    return c


cdef inline void offer(const Box* leaf, double* incumbent, int32_t* best) noexcept nogil:
    """A grid point's exact loss: keep it if strictly better than the incumbent."""
    if leaf.bound < incumbent[0]:
        incumbent[0] = leaf.bound
        best[0] = leaf.t_lo
        best[1] = leaf.a_lo
        best[2] = leaf.b_lo


cdef void dive(Search* s, LossEvaluator ev, Box box, double* incumbent, int32_t* best) noexcept nogil:
    """Follow the best child down to a grid point; siblings that may still win go on the heap."""
    cdef Box children[8]
    cdef int n, c, best_c
    while True:
        if ev.failed:
            return
        if is_leaf(&box):
            offer(&box, incumbent, best)
            return
        n = expand(s, ev, &box, children)
        best_c = -1
        for c in range(n):
            if is_leaf(&children[c]):
                offer(&children[c], incumbent, best)
            elif best_c < 0 or children[c].bound < children[best_c].bound:
                best_c = c
        if best_c < 0:
            return
        for c in range(n):
            if c != best_c and not is_leaf(&children[c]) and children[c].bound < incumbent[0]:
                if heap_push(&s.heap, children[c]) != 0:
                    s.oom = True
                    return
        if not (children[best_c].bound < incumbent[0]):
            return
        box = children[best_c]


cdef bint search_feature(Search* s, LossEvaluator ev, double* incumbent, int32_t* best) noexcept nogil:
    """Branch and bound over (t, a, b) for one feature.

    ``incumbent`` (IN/OUT) is the best loss known (from earlier features or
    adding nothing); ``best`` (OUT) receives (t, a_i, b_i) of a strictly
    better grid point if one is found (returns True then).

    Time: O(m) per bound evaluation (merge + metric); at most ``max_boxes``
    evaluations plus one dive, or without a budget until the best remaining
    bound reaches the incumbent (then the result is the grid optimum).
    """
    cdef Box root, box
    cdef double before = incumbent[0]
    s.heap.size = 0
    s.exhausted = False
    # the cached groups (part_t_lo/hi) stay valid: the levels are those of the
    # loaded subsample (search_set_subsample, or set directly by run_one)
    root.t_lo = 0
    root.t_hi = s.t_max
    root.a_lo = s.root_a_lo
    root.a_hi = s.root_a_hi
    root.b_lo = s.root_b_lo
    root.b_hi = s.root_b_hi
    root.order = 0
    root.bound = box_bound(s, ev, &root)
    if not (root.bound < incumbent[0]):
        return False
    if heap_push(&s.heap, root) != 0:
        s.oom = True
        return False
    cdef bint first = True
    while s.heap.size > 0:
        # the budget is checked between dives: the first dive always completes
        if not first and s.max_boxes > 0 and s.evals >= s.max_boxes:
            s.exhausted = True
            break
        first = False
        box = heap_pop(&s.heap)
        if not (box.bound < incumbent[0]):
            break  # every remaining box is at least as bad
        dive(s, ev, box, incumbent, best)
        if s.oom or ev.failed:
            break
    return incumbent[0] < before


cdef void set_root_box(Search* s, bint shift_invariant) noexcept nogil:
    """The (a, b) part of the root box.

    General metrics: a, b in [-1, 1] (grid 0..G).  Shift-invariant metrics
    (L(S + c) = L(S) for a constant c, e.g. every rank metric): the stump
    (a, b) ranks exactly like (0, b - a), so a is pinned to 0 (index G/2) and
    d = b - a ranges over [-2, 2] (indices -G/2..3G/2, the same grid step).
    The left group's scores are then exact, which removes interval
    arithmetic's slack inside each group, and no two boxes describe the same
    rankings.  The stump is stored re-centred as (-d/2, d/2).
    """
    if shift_invariant:
        s.root_a_lo = s.grid // 2
        s.root_a_hi = s.grid // 2
        s.root_b_lo = -(s.grid // 2)
        s.root_b_hi = s.grid + s.grid // 2
    else:
        s.root_a_lo = 0
        s.root_a_hi = s.grid
        s.root_b_lo = 0
        s.root_b_hi = s.grid


cdef int levels_alloc(Levels* L, Py_ssize_t m) noexcept nogil:
    L.q = 0
    L.value = <double*>malloc((m + 1) * sizeof(double))
    L.start = <int32_t*>malloc((m + 1) * sizeof(int32_t))
    L.rank = <int32_t*>malloc((m + 1) * sizeof(int32_t))
    return -1 if (L.value == NULL or L.start == NULL or L.rank == NULL) else 0


cdef void levels_free(Levels* L) noexcept nogil:
    free(L.value)
    free(L.start)
    free(L.rank)


cdef int groups_alloc(Groups* g, Py_ssize_t m) noexcept nogil:
    # m runs at most, plus the sentinel
    g.lv = <double*>malloc((m + 1) * sizeof(double))
    g.mv = <double*>malloc((m + 1) * sizeof(double))
    g.rv = <double*>malloc((m + 1) * sizeof(double))
    g.lc = <int32_t*>malloc((m + 1) * sizeof(int32_t))
    g.mc = <int32_t*>malloc((m + 1) * sizeof(int32_t))
    g.rc = <int32_t*>malloc((m + 1) * sizeof(int32_t))
    g.lk = <int64_t*>malloc((m + 2) * sizeof(int64_t))
    g.mk = <int64_t*>malloc((m + 2) * sizeof(int64_t))
    g.rk = <int64_t*>malloc((m + 2) * sizeof(int64_t))
    return -1 if (g.lv == NULL or g.mv == NULL or g.rv == NULL or g.lc == NULL
                  or g.mc == NULL or g.rc == NULL or g.lk == NULL or g.mk == NULL or g.rk == NULL) else 0


cdef void groups_free(Groups* g) noexcept nogil:
    free(g.lv)
    free(g.mv)
    free(g.rv)
    free(g.lc)
    free(g.mc)
    free(g.rc)
    free(g.lk)
    free(g.mk)
    free(g.rk)


cdef int search_alloc(Search* s, Py_ssize_t mp, Py_ssize_t mn) noexcept nogil:
    """Scratch space of a search on mp positives and mn negatives: O(mp + mn + heap)."""
    cdef int status = 0
    s.mp = mp
    s.mn = mn
    status |= levels_alloc(&s.lp, mp)
    status |= levels_alloc(&s.ln, mn)
    status |= groups_alloc(&s.gp, mp)
    status |= groups_alloc(&s.gn, mn)
    s.out_p = <double*>malloc((mp + 1) * sizeof(double))
    s.out_n = <double*>malloc((mn + 1) * sizeof(double))
    s.run_vp = <double*>malloc((mp + 1) * sizeof(double))
    s.run_vn = <double*>malloc((mn + 1) * sizeof(double))
    s.run_cp = <int32_t*>malloc((mp + 1) * sizeof(int32_t))
    s.run_cn = <int32_t*>malloc((mn + 1) * sizeof(int32_t))
    s.run_length = True
    cdef Py_ssize_t big = (mp if mp > mn else mn) + 1
    s.n_ranks = 0
    s.sc_lev = <int32_t*>malloc(big * sizeof(int32_t))
    s.sc_order = <int32_t*>malloc(big * sizeof(int32_t))
    s.sc_fill = <int32_t*>malloc(big * sizeof(int32_t))
    s.sc_first = <int32_t*>malloc((mp + mn + 2) * sizeof(int32_t))
    s.heap.capacity = 256
    s.heap.size = 0
    s.heap.counter = 0
    s.heap.items = <Box*>malloc(s.heap.capacity * sizeof(Box))
    s.evals = 0
    s.exhausted = False
    s.oom = False
    s.part_t_lo = -1
    s.part_t_hi = -1
    s.pair_auc = False
    s.auc_sign = 0.0
    s.auc_offset = 0.0
    s.gen = 0
    memset(s.cache, 0, 9 * CROSS_WAYS * sizeof(Cross))
    memset(s.cache_next, 0, 9 * sizeof(uint8_t))
    if (status != 0 or s.out_p == NULL or s.out_n == NULL or s.heap.items == NULL or s.run_vp == NULL
            or s.run_vn == NULL or s.run_cp == NULL or s.run_cn == NULL or s.sc_lev == NULL
            or s.sc_order == NULL or s.sc_fill == NULL or s.sc_first == NULL):
        return -1
    return 0


cdef void search_free(Search* s) noexcept nogil:
    levels_free(&s.lp)
    levels_free(&s.ln)
    groups_free(&s.gp)
    groups_free(&s.gn)
    free(s.out_p)
    free(s.out_n)
    free(s.run_vp)
    free(s.run_vn)
    free(s.run_cp)
    free(s.run_cn)
    free(s.sc_lev)
    free(s.sc_order)
    free(s.sc_fill)
    free(s.sc_first)
    free(s.heap.items)


cdef void search_set_subsample(Search* s, const double* sp, const int32_t* lrp,
                               const double* sn, const int32_t* lrn) noexcept nogil:
    """Load one feature's subsample (scores ascending per class, local ranks < s.n_ranks).

    O(m + n_ranks) on the fast path (counting sort), O(m log m) on the reference path.
    """
    if s.run_length:
        build_levels_counting(sp, lrp, s.mp, s.n_ranks, &s.lp, s.sc_lev, s.sc_order, s.sc_first, s.sc_fill)
        build_levels_counting(sn, lrn, s.mn, s.n_ranks, &s.ln, s.sc_lev, s.sc_order, s.sc_first, s.sc_fill)
    else:
        build_levels(sp, lrp, s.mp, &s.lp)
        build_levels(sn, lrn, s.mn, &s.ln)
    s.part_t_lo = -1
    s.part_t_hi = -1
    s.gen += 1


# --------------------------------------------------------------------------
# One boosting run
# --------------------------------------------------------------------------

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


cdef struct Settings:
    int32_t n_rounds
    Py_ssize_t m_pos, m_neg     # subsample sizes per class (= n_pos, n_neg: no subsampling)
    int32_t n_feat              # features searched per round
    int32_t max_bins            # > 0: at most this many threshold groups (bins) per feature
    int32_t grid                # 2 ** depth
    int64_t max_boxes           # per feature search; <= 0 unlimited
    double theta
    int32_t margin_mode         # 0 constant, 1 stump-scaled, 2 normalized
    bint shift_invariant        # search (t, d = b - a) only (see set_root_box)
    bint run_length             # boxes evaluated on run-length encoded scores (see box_bound)
    bint has_tie                # a tie-break metric decides between equal target losses


cdef struct RunOut:
    int32_t* feature            # (n_rounds,) -1 when the round added nothing
    double* threshold           # (n_rounds,)
    double* a                   # (n_rounds,)
    double* b                   # (n_rounds,)
    double* loss                # (n_rounds + 1,) full training loss after each round
    int64_t* evals              # (1,) bound/corner evaluations
    int64_t* exhausted          # (1,) feature searches stopped by the budget


cdef int32_t compress_ranks(const Data* D, Py_ssize_t j,
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


cdef int32_t bin_ranks(int32_t* lrp, Py_ssize_t mp, int32_t* lrn, Py_ssize_t mn,
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


cdef inline int merge_groups(const int32_t* order, const double* vals, Py_ssize_t n,
                             const int32_t* rj, int32_t cut, double a, double b,
                             int32_t* order_out, double* vals_out,     # OUT
                             int32_t* idx_left, double* val_left,      # scratch (n + 1)
                             int32_t* idx_right, double* val_right     # scratch (n + 1)
                             ) noexcept nogil:
    """New ascending order and scores after adding a (rank <= cut) or b (rank > cut).  O(n)."""
    cdef Py_ssize_t i, nl = 0, nr = 0, p = 0, q = 0, w = 0
    cdef int32_t row
    cdef int left
    cdef double x, y
    for i in range(n):
        # branch-free split: write the row to both lists, keep it in its own
        # (the scratch holds n + 1 entries: the unused slot may be the last)
        row = order[i]
        left = rj[row] <= cut
        idx_left[nl] = row
        val_left[nl] = vals[i] + a
        idx_right[nr] = row
        val_right[nr] = vals[i] + b
        nl += left
        nr += 1 - left
    while p < nl and q < nr:
        x = val_left[p]
        y = val_right[q]
        if x <= y:
            order_out[w] = idx_left[p]
            vals_out[w] = x
            p += 1
        else:
            order_out[w] = idx_right[q]
            vals_out[w] = y
            q += 1
        w += 1
    while p < nl:
        order_out[w] = idx_left[p]
        vals_out[w] = val_left[p]
        p += 1
        w += 1
    while q < nr:
        order_out[w] = idx_right[q]
        vals_out[w] = val_right[q]
        q += 1
        w += 1
    return 0


cdef int run_one(const Data* D, const Settings* st, uint64_t seed,
                 LossEvaluator ev_sub, LossEvaluator ev_full, LossEvaluator ev_tie,
                 RunOut* out) noexcept nogil:
    """One ExactBoost run from the zero score.  Returns 0, -1 (out of memory) or -2 (metric failed).

    ``ev_tie`` (may be None): the tie-break metric's loss on the full data.
    With it a candidate is accepted when the target's loss falls, or stays
    equal and the tie-break loss does not rise (lexicographic); ``ev_sub``
    is then the search's composite loss (see ``CompositeLoss``).
    """
    cdef Rng rng
    cdef Search s
    cdef Py_ssize_t n = D.n, n_pos = D.n_pos, n_neg = D.n_neg
    cdef Py_ssize_t mp = st.m_pos, mn = st.m_neg, i, k, c
    cdef Py_ssize_t big = n_pos if n_pos > n_neg else n_neg
    cdef int32_t t, f, j, n_distinct, cut
    cdef int32_t best[3]
    cdef int32_t best_feature, best_t, best_a, best_b, r_left, r_right
    cdef double incumbent, loss_cur, loss_new, w_total = 0.0, av, bv, xi, shift
    cdef double tie_cur = 0.0, tie_new = 0.0
    cdef bint has_tie = st.has_tie, accept
    cdef int status = 0
    cdef int32_t* tmp_order
    cdef double* tmp_vals
    cdef const int32_t* rj

    rng_seed(&rng, seed)
    # full-data state: each class's rows in ascending score order, with the scores
    cdef int32_t* ord_p = <int32_t*>malloc(n_pos * sizeof(int32_t))
    cdef int32_t* ord_n = <int32_t*>malloc(n_neg * sizeof(int32_t))
    cdef int32_t* ord_p2 = <int32_t*>malloc(n_pos * sizeof(int32_t))
    cdef int32_t* ord_n2 = <int32_t*>malloc(n_neg * sizeof(int32_t))
    cdef double* val_p = <double*>malloc(n_pos * sizeof(double))
    cdef double* val_n = <double*>malloc(n_neg * sizeof(double))
    cdef double* val_p2 = <double*>malloc(n_pos * sizeof(double))
    cdef double* val_n2 = <double*>malloc(n_neg * sizeof(double))
    cdef int32_t* idx_l = <int32_t*>malloc((big + 1) * sizeof(int32_t))
    cdef int32_t* idx_r = <int32_t*>malloc((big + 1) * sizeof(int32_t))
    cdef double* v_l = <double*>malloc((big + 1) * sizeof(double))
    cdef double* v_r = <double*>malloc((big + 1) * sizeof(double))
    # sampling state
    cdef uint8_t* selected = <uint8_t*>malloc(n * sizeof(uint8_t))
    cdef int32_t* perm_p = <int32_t*>malloc(n_pos * sizeof(int32_t))
    cdef int32_t* perm_n = <int32_t*>malloc(n_neg * sizeof(int32_t))
    cdef int32_t* perm_f = <int32_t*>malloc(D.d * sizeof(int32_t))
    # the round's subsample in ascending score order
    cdef int32_t* sub_p = <int32_t*>malloc((mp + 1) * sizeof(int32_t))  # + 1: branch-free filter
    cdef int32_t* sub_n = <int32_t*>malloc((mn + 1) * sizeof(int32_t))
    cdef double* sub_sp = <double*>malloc((mp + 1) * sizeof(double))
    cdef double* sub_sn = <double*>malloc((mn + 1) * sizeof(double))
    cdef int32_t* lrp = <int32_t*>malloc(mp * sizeof(int32_t))
    cdef int32_t* lrn = <int32_t*>malloc(mn * sizeof(int32_t))
    # threshold compression
    cdef int32_t* mark = <int32_t*>malloc(D.max_values * sizeof(int32_t))
    cdef int32_t* local = <int32_t*>malloc(D.max_values * sizeof(int32_t))
    cdef int32_t* distinct = <int32_t*>malloc((mp + mn) * sizeof(int32_t))
    cdef int32_t* tmp = <int32_t*>malloc((mp + mn) * sizeof(int32_t))
    cdef int32_t* bin_of = <int32_t*>malloc((mp + mn) * sizeof(int32_t))
    cdef int32_t* bin_last = <int32_t*>malloc((mp + mn) * sizeof(int32_t))
    cdef int32_t n_groups
    # the round's score levels per class (run-length path; see score_levels)
    cdef int32_t* lstart_p = <int32_t*>malloc((mp + 1) * sizeof(int32_t))
    cdef int32_t* lstart_n = <int32_t*>malloc((mn + 1) * sizeof(int32_t))
    cdef Py_ssize_t qp = 0, qn = 0, zeros
    cdef int alloc_status = search_alloc(&s, mp, mn)

    if (ord_p == NULL or ord_n == NULL or ord_p2 == NULL or ord_n2 == NULL or val_p == NULL
            or val_n == NULL or val_p2 == NULL or val_n2 == NULL or idx_l == NULL or idx_r == NULL
            or v_l == NULL or v_r == NULL or selected == NULL or perm_p == NULL or perm_n == NULL
            or perm_f == NULL or sub_p == NULL or sub_n == NULL or sub_sp == NULL or sub_sn == NULL
            or lrp == NULL or lrn == NULL or mark == NULL or local == NULL or distinct == NULL
            or tmp == NULL or bin_of == NULL or bin_last == NULL or lstart_p == NULL or lstart_n == NULL
            or alloc_status != 0):
        status = -1
    else:
        s.grid = st.grid
        s.theta = st.theta
        s.max_boxes = st.max_boxes
        s.run_length = st.run_length
        s.pair_auc = st.run_length and ev_sub.pair_count_form(&s.auc_sign, &s.auc_offset)
        s.c1 = 0.0 if st.margin_mode == 0 else 1.0
        set_root_box(&s, st.shift_invariant)
        memset(selected, 0, n * sizeof(uint8_t))
        memset(mark, 0, D.max_values * sizeof(int32_t))
        # the zero score: every order is sorted
        for i in range(n_pos):
            ord_p[i] = D.pos_idx[i]
            val_p[i] = 0.0
            perm_p[i] = <int32_t>i
        for i in range(n_neg):
            ord_n[i] = D.neg_idx[i]
            val_n[i] = 0.0
            perm_n[i] = <int32_t>i
        for i in range(D.d):
            perm_f[i] = <int32_t>i
        loss_cur = ev_full.loss(val_p, n_pos, val_n, n_neg)
        if has_tie:
            tie_cur = ev_tie.loss(val_p, n_pos, val_n, n_neg)
        out.loss[0] = loss_cur
        out.evals[0] = 0
        out.exhausted[0] = 0

        for t in range(st.n_rounds):
            out.feature[t] = -1
            out.threshold[t] = 0.0
            out.a[t] = 0.0
            out.b[t] = 0.0
            # --- draw the round's subsample (stratified, without replacement)
            if mp < n_pos:
                partial_shuffle(&rng, perm_p, n_pos, mp)
            if mn < n_neg:
                partial_shuffle(&rng, perm_n, n_neg, mn)
            if st.n_feat < D.d:
                partial_shuffle(&rng, perm_f, D.d, st.n_feat)
            for i in range(mp):
                selected[D.pos_idx[perm_p[i]]] = 1
            for i in range(mn):
                selected[D.neg_idx[perm_n[i]]] = 1
            # --- the subsample in ascending score order, read off the full order
            # (branch-free: every row is written, only selected ones are kept;
            # c <= mp, so the last write may land on the spare slot)
            c = 0
            for i in range(n_pos):
                sub_p[c] = ord_p[i]
                sub_sp[c] = val_p[i]
                c += selected[ord_p[i]]
            c = 0
            for i in range(n_neg):
                sub_n[c] = ord_n[i]
                sub_sn[c] = val_n[i]
                c += selected[ord_n[i]]
            for i in range(mp):
                selected[D.pos_idx[perm_p[i]]] = 0
            for i in range(mn):
                selected[D.neg_idx[perm_n[i]]] = 0
            if st.run_length:
                qp = score_levels(sub_sp, mp, lstart_p)
                qn = score_levels(sub_sn, mn, lstart_n)
            # --- margin of this round, and the loss of adding nothing
            # normalized: the starting score counts as weight 1 (so that adding
            # nothing is not margin-free), plus |b - a|/2 of every accepted stump
            s.c0 = 1.0 + w_total if st.margin_mode == 2 else 1.0
            shift = margin_of(st.theta, s.c0, s.c1, 0.0)
            for i in range(mp):
                s.out_p[i] = (sub_sp[i] + 0.0) - shift
            incumbent = ev_sub.loss(s.out_p, mp, sub_sn, mn)
            best_feature = -1
            best_t = 0
            best_a = 0
            best_b = 0
            r_left = 0
            r_right = 0
            # --- branch and bound on each drawn feature; the incumbent is shared
            for f in range(st.n_feat):
                j = perm_f[f]
                if st.run_length and D.n_values[j] == 2:
                    # two values (binary features): the single threshold's groups
                    # in one pass over the round's levels, no local ranks
                    zeros = two_value_groups(D.ranks8 + j * n, sub_p, sub_sp, lstart_p, qp, &s.gp)
                    zeros += two_value_groups(D.ranks8 + j * n, sub_n, sub_sn, lstart_n, qn, &s.gn)
                    if zeros == 0 or zeros == mp + mn:
                        continue
                    n_distinct = 2
                    n_groups = 2
                    distinct[0] = 0
                    distinct[1] = 1
                    s.part_t_lo = 0
                    s.part_t_hi = 0
                    groups_changed(&s)
                else:
                    n_distinct = compress_ranks(D, j, sub_p, mp, sub_n, mn, mark, local, distinct, tmp, lrp, lrn)
                    if n_distinct < 2:
                        continue
                    n_groups = n_distinct
                    if st.max_bins > 0 and n_distinct > st.max_bins:
                        n_groups = bin_ranks(lrp, mp, lrn, mn, n_distinct, st.max_bins, tmp, bin_of, bin_last)
                    s.n_ranks = n_groups
                    search_set_subsample(&s, sub_sp, lrp, sub_sn, lrn)
                s.t_max = n_groups - 2
                s.evals = 0
                if search_feature(&s, ev_sub, &incumbent, best):
                    best_feature = j
                    best_t = best[0]
                    best_a = best[1]
                    best_b = best[2]
                    if n_groups != n_distinct:
                        best_t = bin_last[best_t]  # the threshold among the distinct values
                    r_left = distinct[best_t]
                    r_right = distinct[best_t + 1]
                out.evals[0] += s.evals
                if s.exhausted:
                    out.exhausted[0] += 1
                if s.oom:
                    status = -1
                    break
                if ev_sub.failed:
                    status = -2
                    break
            if status != 0:
                break
            # --- acceptance: full training loss after vs before (plain metric)
            if best_feature >= 0:
                av = grid_value(best_a, st.grid)
                bv = grid_value(best_b, st.grid)
                if st.shift_invariant:  # re-centre (0, d) as (-d/2, d/2): same ranking
                    bv = 0.5 * (bv - av)
                    av = -bv
                xi = threshold_between(D, best_feature, r_left, r_right, &cut)
                rj = D.ranks + best_feature * n
                merge_groups(ord_p, val_p, n_pos, rj, cut, av, bv, ord_p2, val_p2, idx_l, v_l, idx_r, v_r)
                merge_groups(ord_n, val_n, n_neg, rj, cut, av, bv, ord_n2, val_n2, idx_l, v_l, idx_r, v_r)
                loss_new = ev_full.loss(val_p2, n_pos, val_n2, n_neg)
                # accept when the target improves, or stays equal and the
                # tie-break (if any) does not get worse
                accept = loss_new <= loss_cur
                if has_tie and accept:
                    tie_new = ev_tie.loss(val_p2, n_pos, val_n2, n_neg)
                    accept = loss_new < loss_cur or tie_new <= tie_cur
                if ev_full.failed or (has_tie and ev_tie.failed):
                    status = -2
                    break
                if accept:
                    tmp_order = ord_p
                    ord_p = ord_p2
                    ord_p2 = tmp_order
                    tmp_order = ord_n
                    ord_n = ord_n2
                    ord_n2 = tmp_order
                    tmp_vals = val_p
                    val_p = val_p2
                    val_p2 = tmp_vals
                    tmp_vals = val_n
                    val_n = val_n2
                    val_n2 = tmp_vals
                    loss_cur = loss_new
                    tie_cur = tie_new
                    w_total += 0.5 * fabs(bv - av)
                    out.feature[t] = best_feature
                    out.threshold[t] = xi
                    out.a[t] = av
                    out.b[t] = bv
            out.loss[t + 1] = loss_cur

    free(ord_p)
    free(ord_n)
    free(ord_p2)
    free(ord_n2)
    free(val_p)
    free(val_n)
    free(val_p2)
    free(val_n2)
    free(idx_l)
    free(idx_r)
    free(v_l)
    free(v_r)
    free(selected)
    free(perm_p)
    free(perm_n)
    free(perm_f)
    free(sub_p)
    free(sub_n)
    free(sub_sp)
    free(sub_sn)
    free(lrp)
    free(lrn)
    free(mark)
    free(local)
    free(distinct)
    free(tmp)
    free(bin_of)
    free(bin_last)
    free(lstart_p)
    free(lstart_n)
    search_free(&s)
    return status


# --------------------------------------------------------------------------
# Python entry points (thin, validated by the callers in _runs.py)
# --------------------------------------------------------------------------

MARGIN_MODES = {"constant": 0, "stump": 1, "normalized": 2}


def fit_runs(const int32_t[:, ::1] ranks,          # IN (d, n)
             const int32_t[::1] n_values,          # IN (d,)
             const int64_t[::1] value_start,       # IN (d,)
             const double[::1] values,             # IN
             const uint8_t[::1] binned,            # IN (d,)
             const int32_t[::1] pos_idx,           # IN
             const int32_t[::1] neg_idx,           # IN
             const uint64_t[::1] seeds,            # IN (n_runs,)
             LossEvaluator ev_sub not None,
             LossEvaluator ev_full not None,
             LossEvaluator ev_tie,
             int n_rounds, Py_ssize_t m_pos, Py_ssize_t m_neg, int n_feat,
             int depth, long long max_boxes, int max_bins, double theta, int margin_mode,
             bint shift_invariant, int n_threads, bint run_length=True):
    """Run ``len(seeds)`` independent ExactBoost runs, ``n_threads`` at a time.

    ``ev_tie`` (or None) is the tie-break metric's loss on the full data
    (lexicographic acceptance, see ``run_one``); ``ev_sub`` is then the
    composite search loss.

    ``run_length=False`` evaluates every box on its m expanded scores
    instead of its q score runs: the reference path (identical results,
    slower), kept for tests and benchmarks.

    Returns
    -------
    dict of arrays
        ``feature`` (int32, (E, T), -1 for a round that added nothing),
        ``threshold``, ``a``, ``b`` (float64, (E, T)), ``loss`` (float64,
        (E, T + 1), the full training loss after each round), ``evals`` and
        ``exhausted`` (int64, (E,)).

    Time and memory per run: see the module docstring (O(n + V + m + heap)
    memory per running thread; nothing is O(I x K)).
    """
    cdef Py_ssize_t n_runs = seeds.shape[0], e
    cdef Data D
    cdef Settings st
    cdef int32_t[:, ::1] feature = np.full((n_runs, n_rounds), -1, dtype=np.int32)
    cdef double[:, ::1] threshold = np.zeros((n_runs, n_rounds), dtype=np.float64)
    cdef double[:, ::1] a = np.zeros((n_runs, n_rounds), dtype=np.float64)
    cdef double[:, ::1] b = np.zeros((n_runs, n_rounds), dtype=np.float64)
    cdef double[:, ::1] loss = np.zeros((n_runs, n_rounds + 1), dtype=np.float64)
    cdef int64_t[::1] evals = np.zeros(n_runs, dtype=np.int64)
    cdef int64_t[::1] exhausted = np.zeros(n_runs, dtype=np.int64)
    cdef int32_t[::1] status = np.zeros(n_runs, dtype=np.int32)
    cdef RunOut* outs
    cdef int32_t nv_max = 1
    cdef double dummy_value = 0.0
    cdef uint8_t[:, ::1] ranks8
    cdef uint8_t dummy_byte = 0

    if n_runs == 0:
        raise ValueError("seeds: expected at least one run seed")
    D.n = ranks.shape[1]
    D.d = ranks.shape[0]
    D.ranks = &ranks[0, 0]
    # two-valued features' ranks as bytes (read by the run-length path): d n bytes
    D.ranks8 = &dummy_byte
    two = np.asarray(n_values) == 2
    if run_length and two.any():
        ranks8 = np.zeros((ranks.shape[0], ranks.shape[1]), dtype=np.uint8)
        np.asarray(ranks8)[two] = np.asarray(ranks)[two]
        D.ranks8 = &ranks8[0, 0]
    D.n_values = &n_values[0]
    D.value_start = &value_start[0]
    D.values = &values[0] if values.shape[0] > 0 else &dummy_value
    if binned.shape[0] != D.d:
        raise ValueError(f"binned: expected {D.d} flags (one per feature), got {binned.shape[0]}")
    D.binned = &binned[0]
    D.pos_idx = &pos_idx[0]
    D.n_pos = pos_idx.shape[0]
    D.neg_idx = &neg_idx[0]
    D.n_neg = neg_idx.shape[0]
    for e in range(D.d):
        if n_values[e] > nv_max:
            nv_max = n_values[e]
    D.max_values = nv_max
    st.n_rounds = n_rounds
    st.m_pos = m_pos
    st.m_neg = m_neg
    st.n_feat = n_feat
    st.max_bins = max_bins
    st.grid = 1 << depth
    st.max_boxes = max_boxes
    st.theta = theta
    st.margin_mode = margin_mode
    st.shift_invariant = shift_invariant
    st.run_length = run_length
    st.has_tie = ev_tie is not None

    outs = <RunOut*>malloc(n_runs * sizeof(RunOut))
    if outs == NULL:
        raise MemoryError()
    for e in range(n_runs):
        outs[e].feature = &feature[e, 0] if n_rounds > 0 else NULL
        outs[e].threshold = &threshold[e, 0] if n_rounds > 0 else NULL
        outs[e].a = &a[e, 0] if n_rounds > 0 else NULL
        outs[e].b = &b[e, 0] if n_rounds > 0 else NULL
        outs[e].loss = &loss[e, 0]
        outs[e].evals = &evals[e]
        outs[e].exhausted = &exhausted[e]
    try:
        if n_threads <= 1:
            with nogil:
                for e in range(n_runs):
                    status[e] = run_one(&D, &st, seeds[e], ev_sub, ev_full, ev_tie, &outs[e])
        else:
            for e in prange(n_runs, nogil=True, num_threads=n_threads, schedule="dynamic", chunksize=1):
                status[e] = run_one(&D, &st, seeds[e], ev_sub, ev_full, ev_tie, &outs[e])
    finally:
        free(outs)
    for e in range(n_runs):
        if status[e] == -2 or ev_sub.failed or ev_full.failed or (ev_tie is not None and ev_tie.failed):
            ev_sub._raise_if_failed()
            ev_full._raise_if_failed()
            if ev_tie is not None:
                ev_tie._raise_if_failed()
        if status[e] == -1:
            raise MemoryError("ExactBoost: out of memory in a boosting run")
    return {
        "feature": np.asarray(feature),
        "threshold": np.asarray(threshold),
        "a": np.asarray(a),
        "b": np.asarray(b),
        "loss": np.asarray(loss),
        "evals": np.asarray(evals),
        "exhausted": np.asarray(exhausted),
    }


# --------------------------------------------------------------------------
# Entry points for tests: one box, one corner, one feature search
# --------------------------------------------------------------------------

cdef class _FeatureProblem:
    """One feature's search problem, for tests and diagnostics.

    ``sp``/``sn``: ascending current scores of the positives/negatives;
    ``lrp``/``lrn``: their local threshold ranks (0..n_distinct-1, the
    left group of threshold t is rank <= t).
    """

    cdef Search s
    cdef object keep
    cdef LossEvaluator ev
    cdef bint allocated

    def __cinit__(self):
        self.allocated = False

    def __init__(self, const double[::1] sp, const int32_t[::1] lrp,
                 const double[::1] sn, const int32_t[::1] lrn, int n_distinct,
                 LossEvaluator ev not None, int depth=4, double theta=0.0,
                 double c0=1.0, double c1=0.0, long long max_boxes=0, bint shift_invariant=False,
                 bint run_length=True):
        if sp.shape[0] != lrp.shape[0] or sn.shape[0] != lrn.shape[0]:
            raise ValueError("scores and ranks: expected equal lengths")
        if sp.shape[0] == 0 or sn.shape[0] == 0:
            raise ValueError("expected at least one positive and one negative")
        if n_distinct < 2:
            raise ValueError(f"n_distinct: expected >= 2, got {n_distinct}")
        if not 0 <= depth <= 20:
            raise ValueError(f"depth: expected an integer in [0, 20], got {depth}")
        self.keep = (np.asarray(sp), np.asarray(lrp), np.asarray(sn), np.asarray(lrn))
        status = search_alloc(&self.s, sp.shape[0], sn.shape[0])
        self.allocated = True
        if status != 0:
            raise MemoryError()
        if (np.diff(np.asarray(sp)) < 0).any() or (np.diff(np.asarray(sn)) < 0).any():
            raise ValueError("sp, sn: expected scores sorted ascending")
        if (min(np.min(lrp), np.min(lrn)) < 0 or max(np.max(lrp), np.max(lrn)) >= n_distinct):
            raise ValueError(f"lrp, lrn: expected ranks in [0, {n_distinct - 1}]")
        self.s.run_length = run_length
        self.s.pair_auc = run_length and ev.pair_count_form(&self.s.auc_sign, &self.s.auc_offset)
        self.s.n_ranks = n_distinct
        search_set_subsample(&self.s, &sp[0], &lrp[0], &sn[0], &lrn[0])
        self.s.t_max = n_distinct - 2
        self.s.grid = 1 << depth
        self.s.theta = theta
        self.s.c0 = c0
        self.s.c1 = c1
        self.s.max_boxes = max_boxes
        self.s.run_length = run_length
        set_root_box(&self.s, shift_invariant)
        self.ev = ev

    def __dealloc__(self):
        if self.allocated:
            search_free(&self.s)

    @property
    def grid(self):
        return self.s.grid

    @property
    def root(self):
        """(a_lo, a_hi, b_lo, b_hi) of the root box, in grid coordinates."""
        return self.s.root_a_lo, self.s.root_a_hi, self.s.root_b_lo, self.s.root_b_hi

    def bound(self, int t_lo, int t_hi, int a_lo, int a_hi, int b_lo, int b_hi):
        """Interval lower bound of the loss over a box (grid coordinates)."""
        cdef Box box
        if not (0 <= t_lo <= t_hi <= self.s.t_max and self.s.root_a_lo <= a_lo <= a_hi <= self.s.root_a_hi
                and self.s.root_b_lo <= b_lo <= b_hi <= self.s.root_b_hi):
            raise ValueError("box: coordinates out of range")
        box.t_lo, box.t_hi, box.a_lo, box.a_hi, box.b_lo, box.b_hi = t_lo, t_hi, a_lo, a_hi, b_lo, b_hi
        self.s.part_t_lo = -1
        out = box_bound(&self.s, self.ev, &box)
        self.ev._raise_if_failed()
        return out

    def loss(self, int t, int a_i, int b_i):
        """Exact margin-adjusted loss of the stump at grid point (t, a_i, b_i)."""
        return self.bound(t, t, a_i, a_i, b_i, b_i)

    def search(self, double incumbent=INFINITY):
        """Branch and bound; returns (loss, t, a_i, b_i, evaluations, exhausted).

        ``t, a_i, b_i`` are -1 when nothing strictly below ``incumbent`` was found.
        """
        cdef int32_t best[3]
        cdef bint found
        best[0] = best[1] = best[2] = -1
        self.s.evals = 0
        with nogil:
            found = search_feature(&self.s, self.ev, &incumbent, best)
        self.ev._raise_if_failed()
        if self.s.oom:
            raise MemoryError()
        if not found:
            best[0] = best[1] = best[2] = -1
        return incumbent, best[0], best[1], best[2], self.s.evals, bool(self.s.exhausted)

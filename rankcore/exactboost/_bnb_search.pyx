"""ExactBoost's search for the best stump on one feature: interval bounds and branch and bound.

Design
------
B. A box is a set of grid points (t_lo..t_hi) x (a_lo..a_hi) x (b_lo..b_hi).
   Its bound is the metric's loss with every positive at the top of its
   score interval and every negative at the bottom
   (docs/theory/exactboost.md#the-interval-bound): left group S + a_hi /
   S + a_lo, right group S + b_hi / S + b_lo, the undecided middle group
   (t_lo < rank <= t_hi) S + max(a_hi, b_hi) / S + min(a_lo, b_lo),
   positives lowered by the smallest margin the box allows.  A monotone
   metric cannot do better anywhere in the box, so the bound is valid; on a
   single grid point it is the exact loss.
C. Shift-invariant metrics (every rank metric) rank (a, b) like (0, b - a):
   a is pinned to 0 and d = b - a spans [-2, 2] on the same grid step, which
   finds the same optimum with tighter bounds and no duplicate boxes
   (``set_root_box``).  Other monotone metrics get the general (t, a, b) box.
D. A box's sorted scores are a merge over the subsample's score levels
   (``_bnb_levels.pxd``), kept run-length encoded so that AUC, KS and prec@k
   are evaluated on the runs (``LossEvaluator.loss_runs``): O(q log m + q)
   per box, the same loss bit for bit; other metrics expand the runs (O(m)).
   The expanded path stays reachable (``run_length=False``) as the reference.
D2. AUC counts pairs, so on the run-length path a box's AUC needs no merge:
   its (below, tied) pair counts are the sums over the 3 x 3 pairs of a
   positive group (left/middle/right) and a negative group, each counted by
   a two-pointer walk or, when one group is short, a binary search per run
   of the short one (``box_bound_pairs``, ``cross_counts``).  The pair
   counts are those of the merged lists, so the loss is the same bit for
   bit.  With a pinned at 0 (shift-invariant search), the (left, left) pair
   never changes within a threshold range and other pairs' offsets recur
   along a dive: each pair caches its last four offset combinations.
D4. The partial AUC reads only the top of the list, down to FPR = alpha,
   so on the run-length path a box's pAUC merges its three positive and
   three negative groups from the top, only as far as that walk goes
   (``box_bound_pauc``): O(runs above FPR = alpha) per box instead of the
   O(q) merge, with the scores, tied groups and expressions of
   ``pauc_runs`` on the merged runs, so the loss is the same bit for bit.
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

Time per feature search: B bound evaluations of O(q log m + m) (the metric's
kernel is O(m); O(q log m + q) on runs for AUC, KS and prec@k; for pAUC
O(q log m) plus the runs above FPR = alpha).  Memory:
O(m + heap); the heap holds at most 8 boxes per bound evaluation.
"""

from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from rankcore.metrics.sorted_helpers cimport PaucWalk, pauc_walk_add, pauc_walk_start, pauc_walk_value

from ._bnb_boxes cimport (Box, grid_value, heap_pop, heap_push, is_leaf, margin_of, smallest_half_gap,
                          split_range)
from ._bnb_levels cimport (build_levels, build_levels_counting, doubles, expand_runs, group_levels, groups_alloc,
                           groups_free, ints, levels_alloc, levels_free, merge_groups_runs)
from ._evaluators cimport LossEvaluator


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


cdef inline double head_of(const double* v, Py_ssize_t i, double o, double sh) noexcept nogil:
    """The highest remaining score (v[i - 1] + o) - sh of a group, -inf when it is used up."""
    return (v[i - 1] + o) - sh if i > 0 else -INFINITY


cdef inline int64_t take_top(const double* v, const int32_t* c, Py_ssize_t* i, double o, double sh,
                             double top) noexcept nogil:
    """Remove the group's runs scoring ``top`` (as ``merge_groups_runs`` writes scores): their count."""
    cdef int64_t k = 0
    while i[0] > 0 and (v[i[0] - 1] + o) - sh == top:
        i[0] -= 1
        k += c[i[0]]
    return k


cdef double box_bound_pauc(Search* s, double pl, double pm, double pr, double shift,
                           double nl, double nm, double nr) noexcept nogil:
    """The partial AUC's loss of a box, walking its groups from the top: no full merge.

    ``pauc_runs`` on the runs ``merge_groups_runs`` would write reads them
    from the top and stops at FPR = alpha; here the three groups of each
    class are merged from the top as far as that walk goes, with the same
    scores, the same tied groups and the kernels' own step
    (``pauc_walk_add``), so the loss is the same bit for bit.  O(runs above
    FPR = alpha) per box, where merging costs O(q).
    """
    # the three groups of each class are written out (not a helper over an array of indices): with
    # the six indices in registers the walk measured about 5 % faster, and it runs for every box
    cdef const Groups* p = &s.gp
    cdef const Groups* q = &s.gn
    cdef Py_ssize_t pi = p.nl, pj = p.nm, pk = p.nr, ni = q.nl, nj = q.nm, nk = q.nr
    cdef double vp, vn, v, x
    cdef long long cp, cn
    cdef PaucWalk w
    pauc_walk_start(&w, s.pauc_alpha, s.mn)
    if s.mp > 0 and s.mn > 0:
        while w.fp < w.limit:
            vp = head_of(p.lv, pi, pl, shift)
            x = head_of(p.mv, pj, pm, shift)
            vp = x if x > vp else vp
            x = head_of(p.rv, pk, pr, shift)
            vp = x if x > vp else vp
            vn = head_of(q.lv, ni, nl, 0.0)
            x = head_of(q.mv, nj, nm, 0.0)
            vn = x if x > vn else vn
            x = head_of(q.rv, nk, nr, 0.0)
            vn = x if x > vn else vn
            if vp == -INFINITY and vn == -INFINITY:
                break
            v = vp if vp > vn else vn
            cp = 0
            cn = 0
            if vp == v:
                cp = (take_top(p.lv, p.lc, &pi, pl, shift, v) + take_top(p.mv, p.mc, &pj, pm, shift, v)
                      + take_top(p.rv, p.rc, &pk, pr, shift, v))
            if vn == v:
                cn = (take_top(q.lv, q.lc, &ni, nl, 0.0, v) + take_top(q.mv, q.mc, &nj, nm, 0.0, v)
                      + take_top(q.rv, q.rc, &nk, nr, 0.0, v))
            pauc_walk_add(&w, cp, cn)
    return s.pauc_sign * pauc_walk_value(&w, s.pauc_alpha, s.pauc_mcclish, s.mp, s.mn) + s.pauc_offset


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
    if s.top_pauc:  # pAUC: the groups merged from the top only as far as FPR = alpha
        return box_bound_pauc(s, a_hi, a_hi if a_hi > b_hi else b_hi, b_hi, shift,
                              a_lo, a_lo if a_lo < b_lo else b_lo, b_lo)
    if s.run_length:  # O(q) merges and, for AUC / KS / prec@k, an O(q) metric
        rp = merge_groups_runs(&s.gp, a_hi, a_hi if a_hi > b_hi else b_hi, b_hi, shift, s.run_vp, s.run_cp)
        rn = merge_groups_runs(&s.gn, a_lo, a_lo if a_lo < b_lo else b_lo, b_lo, 0.0, s.run_vn, s.run_cn)
        return ev.loss_runs(s.run_vp, s.run_cp, rp, s.mp, s.run_vn, s.run_cn, rn, s.mn, s.out_p, s.out_n)
    # the reference: the same runs, written out, and the metric's kernel on the expanded arrays
    rp = merge_groups_runs(&s.gp, a_hi, a_hi if a_hi > b_hi else b_hi, b_hi, shift, s.run_vp, s.run_cp)
    rn = merge_groups_runs(&s.gn, a_lo, a_lo if a_lo < b_lo else b_lo, b_lo, 0.0, s.run_vn, s.run_cn)
    expand_runs(s.run_vp, s.run_cp, rp, s.out_p)
    expand_runs(s.run_vn, s.run_cn, rn, s.out_n)
    return ev.loss(s.out_p, s.mp, s.out_n, s.mn)


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


cdef int search_alloc(Search* s, Py_ssize_t mp, Py_ssize_t mn) noexcept nogil:
    """Scratch space of a search on mp positives and mn negatives: O(mp + mn + heap)."""
    cdef int status = 0
    s.mp = mp
    s.mn = mn
    status |= levels_alloc(&s.lp, mp)
    status |= levels_alloc(&s.ln, mn)
    status |= groups_alloc(&s.gp, mp)
    status |= groups_alloc(&s.gn, mn)
    s.out_p = doubles(mp + 1)
    s.out_n = doubles(mn + 1)
    s.run_vp = doubles(mp + 1)
    s.run_vn = doubles(mn + 1)
    s.run_cp = ints(mp + 1)
    s.run_cn = ints(mn + 1)
    s.run_length = True
    cdef Py_ssize_t big = (mp if mp > mn else mn) + 1
    s.n_ranks = 0
    s.sc_lev = ints(big)
    s.sc_order = ints(big)
    s.sc_fill = ints(big)
    s.sc_first = ints(mp + mn + 2)
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
    s.top_pauc = False
    s.pauc_mcclish = False
    s.pauc_alpha = 0.0
    s.pauc_sign = 0.0
    s.pauc_offset = 0.0
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

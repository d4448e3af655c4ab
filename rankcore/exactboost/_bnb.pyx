"""ExactBoost's kernel: boosting runs in parallel, each searching stumps by interval branch and bound.

The kernel is split by job:

* ``_bnb.pyx`` (here) -- the runs: each round's subsample, the acceptance
  test, the maintained full-data order; ``fit_runs``;
* ``_bnb_ranks.pxd`` -- the ranks of one feature in a round: local ranks,
  their bins and the threshold between two ranks;
* ``_bnb_search.pyx`` -- the search for one feature: box bounds, branch and bound
  (design notes B to E);
* ``_bnb_levels.pxd`` -- the subsample by score level and the merges of a box's
  scores (the hot loop, inline);
* ``_bnb_boxes.pxd`` -- boxes, the heap, the grid and margin arithmetic;
* ``_bnb_rng.pxd`` -- the runs' random numbers.

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
B-E. Boxes, their interval bound, shift invariance, run-length evaluation and
   the branch and bound: see ``_bnb_search.pyx``.
D3. Two-valued features (binary data) have one threshold: the round's score
   levels are found once per round (``score_levels``) and each feature's
   left/right groups are counted in one pass over them
   (``two_value_groups``, reading the ranks as bytes), with no local ranks,
   level sort or grouping.
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
B (q log m + q) for AUC, KS and prec@k, and B q log m plus the runs above
FPR = alpha for pAUC).  Memory per run: O(n + d + V + m + heap); the heap
holds at most 8 boxes per bound evaluation; per fit, d n bytes for the
two-valued features' ranks (run-length path).  Nothing is O(I x K).
"""

from cpython.exc cimport PyErr_CheckSignals
from cython.parallel cimport prange
from libc.math cimport INFINITY, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np

#: Runs per thread between two looks for a pending signal (each run is its own seeded search: the same models).
_RUNS_PER_THREAD = 8

from ._bnb_boxes cimport Box, grid_value, margin_of
from ._bnb_levels cimport doubles, ints, score_levels, two_value_groups
from ._bnb_ranks cimport Data, bin_ranks, compress_ranks, threshold_between
from ._bnb_rng cimport Rng, partial_shuffle, rng_seed
from ._bnb_search cimport (Search, box_bound, groups_changed, search_alloc, search_feature, search_free,
                           search_set_subsample, set_root_box)
from ._evaluators cimport LossEvaluator

# --------------------------------------------------------------------------
# One boosting run
# --------------------------------------------------------------------------

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


cdef struct RunState:
    # the full data: each class's rows in ascending score order with their scores, and the next ones
    int32_t* ord_p
    int32_t* ord_n
    int32_t* ord_p2
    int32_t* ord_n2
    double* val_p
    double* val_n
    double* val_p2
    double* val_n2
    int32_t* idx_l              # merge scratch (big + 1 entries each)
    int32_t* idx_r
    double* v_l
    double* v_r
    # sampling
    uint8_t* selected
    int32_t* perm_p
    int32_t* perm_n
    int32_t* perm_f
    # the round's subsample in ascending score order (+ 1: branch-free filter), its local ranks
    int32_t* sub_p
    int32_t* sub_n
    double* sub_sp
    double* sub_sn
    int32_t* lrp
    int32_t* lrn
    # threshold compression
    int32_t* mark
    int32_t* local
    int32_t* distinct
    int32_t* tmp
    int32_t* bin_of
    int32_t* bin_last
    # the round's score levels per class (run-length path; see score_levels)
    int32_t* lstart_p
    int32_t* lstart_n
    Py_ssize_t qp, qn
    Search s
    Rng rng
    double loss_cur, tie_cur, w_total


cdef struct Choice:
    int32_t feature             # -1: no stump beats adding nothing
    int32_t t, a, b             # the grid point (t among the distinct values)
    int32_t r_left, r_right     # the global ranks on either side of the threshold


cdef int run_alloc(RunState* R, const Data* D, const Settings* st) noexcept nogil:
    """Every buffer of a run (NULL-initialised first, so that ``run_free`` is always safe); -1 if out of memory."""
    cdef Py_ssize_t n_pos = D.n_pos, n_neg = D.n_neg, mp = st.m_pos, mn = st.m_neg
    cdef Py_ssize_t big = n_pos if n_pos > n_neg else n_neg
    R.ord_p = ints(n_pos)
    R.ord_n = ints(n_neg)
    R.ord_p2 = ints(n_pos)
    R.ord_n2 = ints(n_neg)
    R.val_p = doubles(n_pos)
    R.val_n = doubles(n_neg)
    R.val_p2 = doubles(n_pos)
    R.val_n2 = doubles(n_neg)
    R.idx_l = ints(big + 1)
    R.idx_r = ints(big + 1)
    R.v_l = doubles(big + 1)
    R.v_r = doubles(big + 1)
    R.selected = <uint8_t*>malloc(D.n * sizeof(uint8_t))
    R.perm_p = ints(n_pos)
    R.perm_n = ints(n_neg)
    R.perm_f = ints(D.d)
    R.sub_p = ints(mp + 1)
    R.sub_n = ints(mn + 1)
    R.sub_sp = doubles(mp + 1)
    R.sub_sn = doubles(mn + 1)
    R.lrp = ints(mp)
    R.lrn = ints(mn)
    R.mark = ints(D.max_values)
    R.local = ints(D.max_values)
    R.distinct = ints(mp + mn)
    R.tmp = ints(mp + mn)
    R.bin_of = ints(mp + mn)
    R.bin_last = ints(mp + mn)
    R.lstart_p = ints(mp + 1)
    R.lstart_n = ints(mn + 1)
    cdef int alloc_status = search_alloc(&R.s, mp, mn)
    if (R.ord_p == NULL or R.ord_n == NULL or R.ord_p2 == NULL or R.ord_n2 == NULL or R.val_p == NULL
            or R.val_n == NULL or R.val_p2 == NULL or R.val_n2 == NULL or R.idx_l == NULL or R.idx_r == NULL
            or R.v_l == NULL or R.v_r == NULL or R.selected == NULL or R.perm_p == NULL or R.perm_n == NULL
            or R.perm_f == NULL or R.sub_p == NULL or R.sub_n == NULL or R.sub_sp == NULL or R.sub_sn == NULL
            or R.lrp == NULL or R.lrn == NULL or R.mark == NULL or R.local == NULL or R.distinct == NULL
            or R.tmp == NULL or R.bin_of == NULL or R.bin_last == NULL or R.lstart_p == NULL
            or R.lstart_n == NULL or alloc_status != 0):
        return -1
    return 0


cdef void run_free(RunState* R) noexcept nogil:
    free(R.ord_p)
    free(R.ord_n)
    free(R.ord_p2)
    free(R.ord_n2)
    free(R.val_p)
    free(R.val_n)
    free(R.val_p2)
    free(R.val_n2)
    free(R.idx_l)
    free(R.idx_r)
    free(R.v_l)
    free(R.v_r)
    free(R.selected)
    free(R.perm_p)
    free(R.perm_n)
    free(R.perm_f)
    free(R.sub_p)
    free(R.sub_n)
    free(R.sub_sp)
    free(R.sub_sn)
    free(R.lrp)
    free(R.lrn)
    free(R.mark)
    free(R.local)
    free(R.distinct)
    free(R.tmp)
    free(R.bin_of)
    free(R.bin_last)
    free(R.lstart_p)
    free(R.lstart_n)
    search_free(&R.s)


cdef void run_start(RunState* R, const Data* D, const Settings* st, uint64_t seed, LossEvaluator ev_sub,
                    LossEvaluator ev_full, LossEvaluator ev_tie, RunOut* out) noexcept nogil:
    """The zero score (every order is sorted), the search's settings and the loss of the empty model."""
    cdef Py_ssize_t i
    rng_seed(&R.rng, seed)
    R.s.grid = st.grid
    R.s.theta = st.theta
    R.s.max_boxes = st.max_boxes
    R.s.run_length = st.run_length
    R.s.pair_auc = st.run_length and ev_sub.pair_count_form(&R.s.auc_sign, &R.s.auc_offset)
    R.s.top_pauc = st.run_length and ev_sub.pauc_form(&R.s.pauc_alpha, &R.s.pauc_mcclish, &R.s.pauc_sign,
                                                      &R.s.pauc_offset)
    R.s.c1 = 0.0 if st.margin_mode == 0 else 1.0
    set_root_box(&R.s, st.shift_invariant)
    memset(R.selected, 0, D.n * sizeof(uint8_t))
    memset(R.mark, 0, D.max_values * sizeof(int32_t))
    for i in range(D.n_pos):
        R.ord_p[i] = D.pos_idx[i]
        R.val_p[i] = 0.0
        R.perm_p[i] = <int32_t>i
    for i in range(D.n_neg):
        R.ord_n[i] = D.neg_idx[i]
        R.val_n[i] = 0.0
        R.perm_n[i] = <int32_t>i
    for i in range(D.d):
        R.perm_f[i] = <int32_t>i
    R.w_total = 0.0
    R.tie_cur = 0.0
    R.loss_cur = ev_full.loss(R.val_p, D.n_pos, R.val_n, D.n_neg)
    if st.has_tie:
        R.tie_cur = ev_tie.loss(R.val_p, D.n_pos, R.val_n, D.n_neg)
    out.loss[0] = R.loss_cur
    out.evals[0] = 0
    out.exhausted[0] = 0


cdef void draw_round(RunState* R, const Data* D, const Settings* st) noexcept nogil:
    """The round's stratified subsample without replacement, in ascending score order, and its levels.

    Read off the full-data order (branch-free: every row is written, only the
    selected ones are kept; c <= m, so the last write may land on the spare
    slot).  O(n).
    """
    cdef Py_ssize_t i, c, mp = st.m_pos, mn = st.m_neg
    # the buffers in locals: the uint8 stores below may alias anything, so fields would be reloaded
    cdef uint8_t* selected = R.selected
    cdef const int32_t* pos_idx = D.pos_idx
    cdef const int32_t* neg_idx = D.neg_idx
    cdef int32_t* perm_p = R.perm_p
    cdef int32_t* perm_n = R.perm_n
    cdef const int32_t* ord_p = R.ord_p
    cdef const int32_t* ord_n = R.ord_n
    cdef const double* val_p = R.val_p
    cdef const double* val_n = R.val_n
    cdef int32_t* sub_p = R.sub_p
    cdef int32_t* sub_n = R.sub_n
    cdef double* sub_sp = R.sub_sp
    cdef double* sub_sn = R.sub_sn
    if mp < D.n_pos:
        partial_shuffle(&R.rng, perm_p, D.n_pos, mp)
    if mn < D.n_neg:
        partial_shuffle(&R.rng, perm_n, D.n_neg, mn)
    if st.n_feat < D.d:
        partial_shuffle(&R.rng, R.perm_f, D.d, st.n_feat)
    for i in range(mp):
        selected[pos_idx[perm_p[i]]] = 1
    for i in range(mn):
        selected[neg_idx[perm_n[i]]] = 1
    c = 0
    for i in range(D.n_pos):
        sub_p[c] = ord_p[i]
        sub_sp[c] = val_p[i]
        c += selected[ord_p[i]]
    c = 0
    for i in range(D.n_neg):
        sub_n[c] = ord_n[i]
        sub_sn[c] = val_n[i]
        c += selected[ord_n[i]]
    for i in range(mp):
        selected[pos_idx[perm_p[i]]] = 0
    for i in range(mn):
        selected[neg_idx[perm_n[i]]] = 0
    if st.run_length:
        R.qp = score_levels(sub_sp, mp, R.lstart_p)
        R.qn = score_levels(sub_sn, mn, R.lstart_n)


cdef int32_t load_feature(RunState* R, const Data* D, const Settings* st, int32_t j,
                          int32_t* n_distinct) noexcept nogil:
    """Feature j's subsample into the search; returns its threshold groups (< 2: nothing to split).

    Two-valued features (binary data) on the run-length path: the single
    threshold's groups in one pass over the round's levels, no local ranks.
    Otherwise the local ranks of the subsample's values, grouped into at most
    ``max_bins`` bins when there are more.
    """
    cdef Py_ssize_t zeros, mp = st.m_pos, mn = st.m_neg
    cdef int32_t n_groups
    if st.run_length and D.n_values[j] == 2:
        zeros = two_value_groups(D.ranks8 + j * D.n, R.sub_p, R.sub_sp, R.lstart_p, R.qp, &R.s.gp)
        zeros += two_value_groups(D.ranks8 + j * D.n, R.sub_n, R.sub_sn, R.lstart_n, R.qn, &R.s.gn)
        if zeros == 0 or zeros == mp + mn:
            return 0
        n_distinct[0] = 2
        R.distinct[0] = 0
        R.distinct[1] = 1
        R.s.part_t_lo = 0
        R.s.part_t_hi = 0
        groups_changed(&R.s)
        return 2
    n_distinct[0] = compress_ranks(D, j, R.sub_p, mp, R.sub_n, mn, R.mark, R.local, R.distinct, R.tmp,
                                   R.lrp, R.lrn)
    if n_distinct[0] < 2:
        return 0
    n_groups = n_distinct[0]
    if st.max_bins > 0 and n_distinct[0] > st.max_bins:
        n_groups = bin_ranks(R.lrp, mp, R.lrn, mn, n_distinct[0], st.max_bins, R.tmp, R.bin_of, R.bin_last)
    R.s.n_ranks = n_groups
    search_set_subsample(&R.s, R.sub_sp, R.lrp, R.sub_sn, R.lrn)
    return n_groups


cdef int search_round(RunState* R, const Data* D, const Settings* st, LossEvaluator ev_sub,
                      RunOut* out, Choice* choice) noexcept nogil:
    """Branch and bound on each drawn feature, the incumbent shared; 0, -1 (out of memory) or -2 (metric failed).

    The incumbent starts at the margin-adjusted loss of adding nothing (the
    normalized margin counts the starting score as weight 1, plus |b - a|/2
    of every accepted stump).
    """
    cdef Py_ssize_t i, mp = st.m_pos, mn = st.m_neg
    cdef int32_t f, j, n_distinct = 0, n_groups
    cdef int32_t best[3]
    cdef double incumbent, shift
    R.s.c0 = 1.0 + R.w_total if st.margin_mode == 2 else 1.0
    shift = margin_of(st.theta, R.s.c0, R.s.c1, 0.0)
    cdef double* out_p = R.s.out_p
    cdef const double* sub_sp = R.sub_sp
    for i in range(mp):
        out_p[i] = (sub_sp[i] + 0.0) - shift
    incumbent = ev_sub.loss(R.s.out_p, mp, R.sub_sn, mn)
    choice.feature = -1
    choice.t = choice.a = choice.b = 0
    choice.r_left = choice.r_right = 0
    for f in range(st.n_feat):
        j = R.perm_f[f]
        n_groups = load_feature(R, D, st, j, &n_distinct)
        if n_groups < 2:
            continue
        R.s.t_max = n_groups - 2
        R.s.evals = 0
        if search_feature(&R.s, ev_sub, &incumbent, best):
            choice.feature = j
            choice.t = best[0]
            choice.a = best[1]
            choice.b = best[2]
            if n_groups != n_distinct:
                choice.t = R.bin_last[choice.t]  # the threshold among the distinct values
            choice.r_left = R.distinct[choice.t]
            choice.r_right = R.distinct[choice.t + 1]
        out.evals[0] += R.s.evals
        if R.s.exhausted:
            out.exhausted[0] += 1
        if R.s.oom:
            return -1
        if ev_sub.failed:
            return -2
    return 0


cdef int accept_round(RunState* R, const Data* D, const Settings* st, const Choice* choice, int32_t t,
                      LossEvaluator ev_full, LossEvaluator ev_tie, RunOut* out) noexcept nogil:
    """The acceptance test: the full training loss after the stump against before it (plain metric).

    Accepted when the target improves, or stays equal and the tie-break (if
    any) does not get worse; then the new orders and scores replace the old
    ones.  Returns 0, or -2 when a metric failed.  O(n) merges plus the
    metric's O(n).
    """
    cdef double av = grid_value(choice.a, st.grid), bv = grid_value(choice.b, st.grid)
    cdef double xi, loss_new, tie_new = 0.0
    cdef int32_t cut
    cdef bint accept
    cdef const int32_t* rj
    if st.shift_invariant:  # re-centre (0, d) as (-d/2, d/2): same ranking
        bv = 0.5 * (bv - av)
        av = -bv
    xi = threshold_between(D, choice.feature, choice.r_left, choice.r_right, &cut)
    rj = D.ranks + choice.feature * D.n
    merge_groups(R.ord_p, R.val_p, D.n_pos, rj, cut, av, bv, R.ord_p2, R.val_p2, R.idx_l, R.v_l, R.idx_r, R.v_r)
    merge_groups(R.ord_n, R.val_n, D.n_neg, rj, cut, av, bv, R.ord_n2, R.val_n2, R.idx_l, R.v_l, R.idx_r, R.v_r)
    loss_new = ev_full.loss(R.val_p2, D.n_pos, R.val_n2, D.n_neg)
    accept = loss_new <= R.loss_cur
    if st.has_tie and accept:
        tie_new = ev_tie.loss(R.val_p2, D.n_pos, R.val_n2, D.n_neg)
        accept = loss_new < R.loss_cur or tie_new <= R.tie_cur
    if ev_full.failed or (st.has_tie and ev_tie.failed):
        return -2
    if accept:
        R.ord_p, R.ord_p2 = R.ord_p2, R.ord_p
        R.ord_n, R.ord_n2 = R.ord_n2, R.ord_n
        R.val_p, R.val_p2 = R.val_p2, R.val_p
        R.val_n, R.val_n2 = R.val_n2, R.val_n
        R.loss_cur = loss_new
        R.tie_cur = tie_new
        R.w_total += 0.5 * fabs(bv - av)
        out.feature[t] = choice.feature
        out.threshold[t] = xi
        out.a[t] = av
        out.b[t] = bv
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
    cdef RunState R
    cdef Choice choice
    cdef int32_t t
    cdef int status = run_alloc(&R, D, st)
    if status == 0:
        run_start(&R, D, st, seed, ev_sub, ev_full, ev_tie, out)
        for t in range(st.n_rounds):
            out.feature[t] = -1
            out.threshold[t] = 0.0
            out.a[t] = 0.0
            out.b[t] = 0.0
            draw_round(&R, D, st)
            status = search_round(&R, D, st, ev_sub, out, &choice)
            if status != 0:
                break
            if choice.feature >= 0:
                status = accept_round(&R, D, st, &choice, t, ev_full, ev_tie, out)
                if status != 0:
                    break
            out.loss[t + 1] = R.loss_cur
    run_free(&R)
    return status


# --------------------------------------------------------------------------
# Python entry points (thin, validated by the callers in _runs.py)
# --------------------------------------------------------------------------


cdef object _fill_data(Data* D, const int32_t[:, ::1] ranks, const int32_t[::1] n_values,
                       const int64_t[::1] value_start, const double[::1] values, const uint8_t[::1] binned,
                       const int32_t[::1] pos_idx, const int32_t[::1] neg_idx, bint run_length,
                       double* dummy_value, uint8_t* dummy_byte):
    """Point ``D`` at the prepared data; returns what must stay alive while it is read (the byte ranks).

    Two-valued features' ranks are copied as bytes for the run-length path
    (d n bytes): their random reads stay in the L1 cache longer.
    """
    cdef uint8_t[:, ::1] ranks8
    cdef Py_ssize_t j
    cdef int32_t nv_max = 1
    D.n = ranks.shape[1]
    D.d = ranks.shape[0]
    D.ranks = &ranks[0, 0]
    D.ranks8 = dummy_byte
    keep = None
    two = np.asarray(n_values) == 2
    if run_length and two.any():
        keep = np.zeros((ranks.shape[0], ranks.shape[1]), dtype=np.uint8)
        ranks8 = keep
        np.asarray(ranks8)[two] = np.asarray(ranks)[two]
        D.ranks8 = &ranks8[0, 0]
    D.n_values = &n_values[0]
    D.value_start = &value_start[0]
    D.values = &values[0] if values.shape[0] > 0 else dummy_value
    D.binned = &binned[0]
    D.pos_idx = &pos_idx[0]
    D.n_pos = pos_idx.shape[0]
    D.neg_idx = &neg_idx[0]
    D.n_neg = neg_idx.shape[0]
    for j in range(D.d):
        if n_values[j] > nv_max:
            nv_max = n_values[j]
    D.max_values = nv_max
    return keep


cdef void _fill_settings(Settings* st, int n_rounds, Py_ssize_t m_pos, Py_ssize_t m_neg, int n_feat,
                         int depth, long long max_boxes, int max_bins, double theta, int margin_mode,
                         bint shift_invariant, bint run_length, bint has_tie) noexcept:
    """Copy ``fit_runs``' scalar arguments into the settings every run reads (the grid is ``2 ** depth``)."""
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
    st.has_tie = has_tie


cdef object _raise_run_failures(const int32_t[::1] status, LossEvaluator ev_sub, LossEvaluator ev_full,
                                LossEvaluator ev_tie):
    """Raise the first failure of the runs: a metric's own error (status -2), or MemoryError (status -1).

    A metric that failed is re-raised with its own message, so the user sees
    what the metric said rather than a bare status code.
    """
    cdef Py_ssize_t e
    for e in range(status.shape[0]):
        if status[e] == -2 or ev_sub.failed or ev_full.failed or (ev_tie is not None and ev_tie.failed):
            ev_sub._raise_if_failed()
            ev_full._raise_if_failed()
            if ev_tie is not None:
                ev_tie._raise_if_failed()
        if status[e] == -1:
            raise MemoryError("ExactBoost: out of memory in a boosting run")


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
    cdef double dummy_value = 0.0
    cdef uint8_t dummy_byte = 0

    if n_runs == 0:
        raise ValueError("seeds: expected at least one run seed")
    if binned.shape[0] != ranks.shape[0]:
        raise ValueError(f"binned: expected {ranks.shape[0]} flags (one per feature), got {binned.shape[0]}")
    keep = _fill_data(&D, ranks, n_values, value_start, values, binned, pos_idx, neg_idx, run_length,
                      &dummy_value, &dummy_byte)
    _fill_settings(&st, n_rounds, m_pos, m_neg, n_feat, depth, max_boxes, max_bins, theta, margin_mode,
                   shift_invariant, run_length, ev_tie is not None)

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
    cdef Py_ssize_t start = 0, stop
    try:
        while start < n_runs:               # a few runs per thread at a time, Ctrl-C heard between them
            stop = min(n_runs, start + _RUNS_PER_THREAD * max(n_threads, 1))
            if n_threads <= 1:
                with nogil:
                    for e in range(start, stop):
                        status[e] = run_one(&D, &st, seeds[e], ev_sub, ev_full, ev_tie, &outs[e])
            else:
                for e in prange(start, stop, nogil=True, num_threads=n_threads, schedule="dynamic", chunksize=1):
                    status[e] = run_one(&D, &st, seeds[e], ev_sub, ev_full, ev_tie, &outs[e])
            PyErr_CheckSignals()
            start = stop
    finally:
        free(outs)
    _raise_run_failures(status, ev_sub, ev_full, ev_tie)
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
        self.s.top_pauc = run_length and ev.pauc_form(&self.s.pauc_alpha, &self.s.pauc_mcclish,
                                                      &self.s.pauc_sign, &self.s.pauc_offset)
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
        """Interval lower bound of the loss over a box (grid coordinates).

        One ``box_bound`` on the m = len(sp) + len(sn) scores in q score levels: O(q log m + m) time plus the
        metric's O(m) (O(q log m + q) on runs for metrics with a run kernel); O(1) extra memory (the scratch
        allocated in ``__init__``).
        """
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
        """Exact margin-adjusted loss of the stump at grid point (t, a_i, b_i).  :meth:`bound` on one point: its
        time, O(1) extra memory."""
        return self.bound(t, t, a_i, a_i, b_i, b_i)

    def search(self, double incumbent=INFINITY):
        """Branch and bound; returns (loss, t, a_i, b_i, evaluations, exhausted).

        ``t, a_i, b_i`` are -1 when nothing strictly below ``incumbent`` was found.

        O(B·(q log m + m + log B)) time for B bound evaluations (at most ``max_boxes`` plus one dive when
        given; see :meth:`bound`) and the heap's pushes and pops; O(B) memory: the heap, at most 8 boxes per
        evaluation, grown as needed.
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

# ExactBoost's search: branch and bound over the boxes of one feature.
#
# A ``Search`` holds one round's subsample of one feature by score level and
# the scratch space of its boxes; ``search_feature`` runs best-bound-first
# branch and bound with dives and returns a strictly better stump than the
# incumbent, if any.  The runs module (``_bnb.pyx``) allocates one search per
# run and calls it for every drawn feature of every round.

from libc.stdint cimport int32_t, int64_t, uint8_t

from ._bnb_boxes cimport Box, Heap
from ._bnb_levels cimport Groups, Levels
from ._evaluators cimport LossEvaluator

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
    # pAUC from the top of the groups (see box_bound_pauc): on when the evaluator has the form
    bint top_pauc
    bint pauc_mcclish
    double pauc_alpha, pauc_sign, pauc_offset
    int64_t gen             # bumped whenever gp/gn change (keys the cross cache)
    Cross cache[9 * CROSS_WAYS]  # recent (offsets, counts) of each (positive group, negative group) pair
    uint8_t cache_next[9]   # the entry of each pair's set replaced next (round robin)
    Heap heap
    # statistics
    int64_t evals
    bint exhausted
    bint oom


cdef int search_alloc(Search* s, Py_ssize_t mp, Py_ssize_t mn) noexcept nogil
cdef void search_free(Search* s) noexcept nogil
cdef void search_set_subsample(Search* s, const double* sp, const int32_t* lrp,
                               const double* sn, const int32_t* lrn) noexcept nogil
cdef void set_root_box(Search* s, bint shift_invariant) noexcept nogil
cdef void groups_changed(Search* s) noexcept nogil
cdef double box_bound(Search* s, LossEvaluator ev, const Box* b) noexcept nogil
cdef bint search_feature(Search* s, LossEvaluator ev, double* incumbent, int32_t* best) noexcept nogil

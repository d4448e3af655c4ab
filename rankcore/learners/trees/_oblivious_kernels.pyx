"""Kernels of the ``trees`` learner's oblivious (symmetric) growth: the level's split search, prediction by bit index.

Design
------
A. An oblivious tree splits every node of a level on one shared
   (feature, bin, NaN side).  ``level_gains_add`` adds one node's gain of
   every candidate into a (S, 2) accumulator -- slot base[j] + b, column
   side (0: NaN left, 1: NaN right) -- from the node's (S, 3) histogram of
   (Σg, Σh, count), computing each gain with the scan of the other growth
   modes: the cumulative sums over bins 0..b (plus the NaN bin on its side),
   G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), several candidates per vector
   (``_oblivious_simd.pxi``: every width gives the same bits).  The cumulative
   sums come from one walk over the feature's bins (``rc_prefix_*``: a bin's
   three sums one vector of four doubles on AVX2 and up, the same additions
   in the same order).  A candidate the node does not
   allow (fewer than min_samples_leaf rows or min_child_weight curvature on
   a side) adds nothing there: that node will not be split by it (it stays
   one leaf).  Called once per node of the level, in node order, so every
   sum is taken in the same order whatever the thread count; the in-memory
   grower (``_grow_oblivious.pyx``) calls its per-feature part,
   ``feature_gains_add`` (or ``feature_gains_sub_add``, which completes a
   larger child's histogram by the sibling subtraction in the same walk),
   for every node of a level in one pass.  Only the candidates that can
   leave ``min_samples_leaf`` rows on both sides are computed (the others
   add +0).  A feature with a monotone sign adds a node's gain of a candidate
   only where its children's Newton values keep the sign's order
   (``_order_gains``; +0 elsewhere), after the same vector gains.  With a
   cap on the cells' values (``max_delta_step``) the gains are the capped
   ones, one candidate at a time (``_capped_gains``); without one the vector
   path is unchanged (one branch per node and feature).
B. ``level_best`` picks the candidate with the largest summed gain; ties
   (within ``tie_tolerance`` times the largest) go to the first in the order
   (feature, bin, NaN left before NaN right), as the other modes break them.
   With ``random_strength`` > 0 the level's feature is chosen with noise, as
   the other modes choose a node's (``_split_noise.pxd``), keyed by the level.
C. Prediction: a tree of depth D is D levels (feature, threshold, nan_left)
   and 2^D leaf values; x's leaf is Σ_l 2^l·[x goes right at level l]
   (x_f > t, or NaN with nan_left false).  No branch on the tree's shape:
   D comparisons and one load per tree and row.  ``oblivious_leaves`` writes
   that cell index itself (``estimator.apply``).
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.math cimport isnan
from cython.parallel cimport prange

from rankcore.learners.trees._csr cimport csr_value
from rankcore._parallel cimport threads_for
from rankcore.typedefs cimport index_t, real_t
from rankcore.learners.trees._split_noise cimport lower_median
from rankcore.learners.trees._split cimport split_noise
from rankcore.learners.trees._histogram cimport capped_gain_term

import numpy as np

from rankcore._simd import checked_level


# ----------------------------------------------------------------------
# The level's split search
# ----------------------------------------------------------------------
include "_oblivious_simd.pxi"

cdef enum:
    SUMS_SCRATCH = 4 * (MAX_EDGES + 1) + 520     # a walk's sums, four doubles a bin, where rc_sums_start puts them

rc_level_simd = rc_level_simd_supported()


def simd_level(level=None):
    """The vector width of the level search's gains: 0 (2 doubles), 1 (AVX2: 4), 2 (AVX-512: 8).

    With ``level``, use that width from now on (at most the CPU's: for the
    tests, which check that every width sums the same gains); returns the
    level in use before.
    """
    global rc_level_simd
    cdef int previous = rc_level_simd
    if level is not None:
        rc_level_simd = checked_level(level, rc_level_simd_supported())
    return previous


def sums_start(size_t scratch, size_t x):
    """Where a walk whose bins start at address ``x`` puts its sums in a scratch array at address ``scratch``:
    their offset in doubles from the scratch's start, and the scratch's length (for the tests: the
    addresses are only added and rounded, never read)."""
    if scratch % sizeof(double) or x % sizeof(double):
        raise ValueError(f"scratch, x: expected addresses of doubles (multiples of {sizeof(double)}), "
                         f"got {scratch} and {x}")
    cdef double* p = rc_sums_start(<double*> scratch, <const double*> x)
    return (<size_t> p - scratch) // sizeof(double), <Py_ssize_t> SUMS_SCRATCH


def vector_walks(on=None):
    """Whether the level search's walks over a feature's bins use vectors (AVX2 and up), where the vector width does.

    With ``on``, set it from now on (for the tests and the benchmark, which
    compare the vector walks with the scalar ones: the same bits); returns
    the setting in use before.
    """
    global rc_vector_walks
    cdef int previous = rc_vector_walks
    if on is not None:
        if not isinstance(on, (bool, np.bool_)):
            raise TypeError(f"on: expected a bool or None, got {on!r}")
        rc_vector_walks = 1 if on else 0
    return bool(previous)


cdef inline void _order_gains(const double* p, Py_ssize_t lo, Py_ssize_t hi, int nan_left, const rc_level_args* a,
                              int sign, double* g) noexcept nogil:
    """Zero the gains g[lo..hi] of the candidates whose children's Newton values go against ``sign``.

    A candidate keeps its gain iff sign·(v_R − v_L) > 0, v = −G/(H + λ) of
    each side (the right side holds the larger values of the feature): a
    pair of children in the wrong order is pooled by the projection onto the
    monotone order (``_oblivious_monotone``) to the parent's value, which
    gains exactly 0 (so does a pair of equal values).  The sides' sums are
    ``rc_level_gain``'s.  O(hi − lo) time, no allocation.
    """
    cdef Py_ssize_t b
    cdef double lg, lh, rg, rh
    for b in range(lo, hi + 1):
        lg = p[4 * b]
        lh = p[4 * b + 1]
        if nan_left:
            lg = lg + a.ng
            lh = lh + a.nh
        rg = a.tg - lg
        rh = a.th - lh
        if lh + a.l2 <= 0.0 or rh + a.l2 <= 0.0 or not sign * (lg / (lh + a.l2) - rg / (rh + a.l2)) > 0:
            g[b] = 0.0


cdef void _capped_gains(const double* p, Py_ssize_t n, int nan_left, const rc_level_args* a, double cap,
                        double* out) noexcept nogil:
    """``rc_level_gains`` under a cap: every candidate's capped gain, one at a time (the scalar path).

    Candidate k's gain is ``capped_gain_term`` (``_histogram.pxd``) of its left and right children
    minus the parent's (``a.parent``, the capped term of the node's sums),
    or +0 where ``rc_level_gain`` gives +0 (a side too small) and where both
    children's Newton values −G/(H+λ) sit at or beyond the same bound: both
    cells then take that bound, the node's value too, so the split changes
    no score at this node (its "gain" would be −λ·cap² plus rounding); the
    level may still split the node, which changes nothing there.  Where no
    value reaches the cap the gain is ``rc_level_gain``'s, bit for bit (the
    same operations in the same order).  O(n) time, no allocation.
    """
    cdef Py_ssize_t k
    cdef double lg, lh, lc, rg, rh, rc, wl, wr, gain
    for k in range(n):
        lg = p[4 * k]
        lh = p[4 * k + 1]
        lc = p[4 * k + 2]
        if nan_left:
            lg = lg + a.ng
            lh = lh + a.nh
            lc = lc + a.nc
        rg = a.tg - lg
        rh = a.th - lh
        rc = a.tc - lc
        out[k] = 0.0
        if lc < a.msl or rc < a.msl or lh < a.mcw or rh < a.mcw or lh + a.l2 <= 0.0 or rh + a.l2 <= 0.0:
            continue
        wl = -lg / (lh + a.l2)
        wr = -rg / (rh + a.l2)
        if (wl >= cap and wr >= cap) or (wl <= -cap and wr <= -cap):
            continue
        gain = capped_gain_term(lg, lh, a.l2, -cap, cap) + capped_gain_term(rg, rh, a.l2, -cap, cap) - a.parent
        out[k] = gain if gain != 0.0 else 0.0        # (never −0: the sums' +0 stays +0)


cdef inline void _candidate_gains(const double* p, Py_ssize_t nb, const double* nan, double min_samples_leaf,
                                  double min_child_weight, double l2, Py_ssize_t s0, double* out,
                                  int sign, double cap) noexcept nogil:
    """Add one node's gains of one feature's candidates to ``out`` from its cumulative sums over bins 0..b.

    ``p``: the sums of bins 0..b at p[4b], p[4b + 1], p[4b + 2] (Σg, Σh,
    count; the ``rc_prefix_*`` walks).  ``nan``: the NaN slot's (Σg, Σh,
    count).  Only the candidates [lo, hi] that can leave
    ``min_samples_leaf`` rows on both sides are computed: the counts are
    whole numbers (sums of ones, and differences of such sums: exact), so
    the left count plus nc (the left side with NaN left, the larger) is
    nondecreasing in b and the left count too; a candidate outside the
    range has a side below the minimum whichever side NaN takes, gains +0
    there, and adding +0 changes no sum (the sums never hold −0: they start
    at +0 and every gain is +0 or a sum of squares' quotients minus the
    parent's).  ``sign`` (the feature's monotone sign; 0: none): the
    candidates whose children go against it gain +0 (``_order_gains``).
    ``cap`` > 0 (``max_delta_step``): the capped gains (``_capped_gains``,
    scalar); 0: the vector gains, unchanged.  O(nb) time, no allocation.
    """
    cdef Py_ssize_t b, lo, hi
    cdef double g0[MAX_EDGES + 1]
    cdef double g1[MAX_EDGES + 1]
    cdef rc_level_args a
    a.ng = nan[0]
    a.nh = nan[1]
    a.nc = nan[2]
    # the node's totals: the sums over every slot in order, the NaN bin last
    a.tg = p[4 * nb] + a.ng
    a.th = p[4 * nb + 1] + a.nh
    a.tc = p[4 * nb + 2] + a.nc
    if a.th + l2 <= 0:
        return
    lo = 0
    while lo <= nb and p[4 * lo + 2] + a.nc < min_samples_leaf:
        lo += 1
    hi = nb
    while hi >= lo and a.tc - p[4 * hi + 2] < min_samples_leaf:
        hi -= 1
    if hi < lo:
        return
    a.parent = a.tg * a.tg / (a.th + l2) if cap <= 0 else capped_gain_term(a.tg, a.th, l2, -cap, cap)
    a.l2 = l2
    a.msl = min_samples_leaf
    a.mcw = min_child_weight
    if cap > 0:
        _capped_gains(p + 4 * lo, hi - lo + 1, 0, &a, cap, g1 + lo)
    else:
        rc_level_gains(p + 4 * lo, hi - lo + 1, 0, &a, g1 + lo)
    if sign != 0:
        _order_gains(p, lo, hi, 0, &a, sign, g1)
    if a.ng == 0 and a.nh == 0 and a.nc == 0:          # x + 0 is x for these sums: NaN left is NaN right
        for b in range(lo, hi + 1):
            out[2 * (s0 + b)] += g1[b]
            out[2 * (s0 + b) + 1] += g1[b]
        return
    if cap > 0:
        _capped_gains(p + 4 * lo, hi - lo + 1, 1, &a, cap, g0 + lo)
    else:
        rc_level_gains(p + 4 * lo, hi - lo + 1, 1, &a, g0 + lo)
    if sign != 0:
        _order_gains(p, lo, hi, 1, &a, sign, g0)
    for b in range(lo, hi + 1):
        out[2 * (s0 + b)] += g0[b]
        out[2 * (s0 + b) + 1] += g1[b]


cdef void feature_gains_add(const double* hist,        # IN  (S, 3) one node's Σg, Σh, count per slot
                            Py_ssize_t s0, Py_ssize_t nb,  # the feature's slots s0 .. s0 + nb + 1 (NaN last)
                            double min_samples_leaf, double min_child_weight, double l2,
                            double* out,                    # IN/OUT (S, 2) summed gains (NaN left, NaN right)
                            int sign,                       # the feature's monotone sign (0: none)
                            double cap) noexcept nogil:     # the cap on the cells' values (0: none)
    """Add one node's gain of every candidate (bin, NaN side) of one feature to ``out`` (nb <= MAX_EDGES).

    The cumulative sums over bins 0..b (``rc_prefix_add``), then every
    candidate's gain several at once (``rc_level_gains``) -- those that can
    satisfy ``min_samples_leaf`` only (``_candidate_gains``).  A node
    without NaN rows of the feature (its NaN slot all zeros) gains the same
    on both sides: computed once.  O(nb) time, no allocation.
    """
    # (an empty bin adds zeros: its sums, and so its gains, are the previous bin's -- the sums start
    # at +0 and never become −0, which x + 0 would change)
    cdef double scratch[SUMS_SCRATCH]
    cdef double* p = rc_sums_start(scratch, hist + 3 * s0)
    rc_prefix_add(hist + 3 * s0, nb, p)
    _candidate_gains(p, nb, hist + 3 * (s0 + nb + 1), min_samples_leaf, min_child_weight, l2, s0, out, sign, cap)


cdef inline void _subtract_nan_slot(double* hist, const double* small, Py_ssize_t s) noexcept nogil:
    """hist's slot s −= small's (the NaN slot: subtracted, not in the running sums)."""
    hist[3 * s] = hist[3 * s] - small[3 * s]
    hist[3 * s + 1] = hist[3 * s + 1] - small[3 * s + 1]
    hist[3 * s + 2] = hist[3 * s + 2] - small[3 * s + 2]


cdef void feature_gains_sub_add(double* hist,          # IN/OUT (S, 3) the larger child's buffer: parent − small
                                const double* small,   # IN  (S, 3) the smaller sibling's histogram
                                Py_ssize_t s0, Py_ssize_t nb, bint search,
                                double min_samples_leaf, double min_child_weight, double l2,
                                double* out, int sign, double cap) noexcept nogil:
    """The sibling subtraction of one feature's slots, and with ``search`` its gains added (``feature_gains_add``).

    One walk over the slots (``rc_prefix_sub``): each bin's difference is
    stored and added to the running sums while in a register (the same
    differences and sums as a subtraction pass followed by
    ``feature_gains_add``).  O(nb) time, no allocation.
    """
    cdef Py_ssize_t k
    cdef double scratch[SUMS_SCRATCH]
    cdef double* p
    if not search:
        for k in range(3 * s0, 3 * (s0 + nb + 2)):
            hist[k] = hist[k] - small[k]
        return
    p = rc_sums_start(scratch, hist + 3 * s0)
    rc_prefix_sub(hist + 3 * s0, small + 3 * s0, nb, p)
    _subtract_nan_slot(hist, small, s0 + nb + 1)
    _candidate_gains(p, nb, hist + 3 * (s0 + nb + 1), min_samples_leaf, min_child_weight, l2, s0, out, sign, cap)


cdef void feature_gains_pair(double* hist,        # IN/OUT (S, 3) the larger child's buffer: parent − small
                             const double* small,  # IN  (S, 3) the smaller sibling's histogram
                             Py_ssize_t s0, Py_ssize_t nb, bint search_large, bint search_small,
                             bint small_first, double min_samples_leaf, double min_child_weight, double l2,
                             double* out,                   # IN/OUT (S, 2) summed gains (NaN left, NaN right)
                             int sign,                      # the feature's monotone sign (0: none)
                             double cap) noexcept nogil:    # the cap on the cells' values (0: none)
    """Two siblings of a level in one walk: the larger child's subtraction and both children's gains.

    What ``feature_gains_add`` on the smaller child and ``feature_gains_sub_add``
    on the larger do, in one walk over the feature's slots
    (``rc_prefix_pair``): the smaller child's slot is read once (for its own
    running sums and for the subtraction), and the two children's running
    sums are independent chains of additions in flight together.  Each
    child's sums, differences and gains are the same operations in the
    same order as the two calls, and the gains are added to ``out`` child
    by child in node order (``small_first``: the smaller child has the lower
    id), so ``out`` gets the same bits.  ``search_large``, ``search_small``:
    whether each child's gains are added.  O(nb) time, no allocation.
    """
    cdef double scratch_large[SUMS_SCRATCH]
    cdef double scratch_small[SUMS_SCRATCH]
    cdef double* pl
    cdef double* ps
    cdef double* x
    cdef const double* y
    if not search_large:
        # only the smaller child's gains to add: no larger child's sums to run beside them
        feature_gains_sub_add(hist, small, s0, nb, False, min_samples_leaf, min_child_weight, l2, out, sign, cap)
        if search_small:
            feature_gains_add(small, s0, nb, min_samples_leaf, min_child_weight, l2, out, sign, cap)
        return
    if not search_small:
        feature_gains_sub_add(hist, small, s0, nb, True, min_samples_leaf, min_child_weight, l2, out, sign, cap)
        return
    pl = rc_sums_start(scratch_large, hist + 3 * s0)
    ps = rc_sums_start(scratch_small, small + 3 * s0)
    rc_prefix_pair(hist + 3 * s0, small + 3 * s0, nb, pl, ps)
    _subtract_nan_slot(hist, small, s0 + nb + 1)
    x = hist + 3 * (s0 + nb + 1)
    y = small + 3 * (s0 + nb + 1)
    if small_first:
        _candidate_gains(ps, nb, y, min_samples_leaf, min_child_weight, l2, s0, out, sign, cap)
        _candidate_gains(pl, nb, x, min_samples_leaf, min_child_weight, l2, s0, out, sign, cap)
    else:
        _candidate_gains(pl, nb, x, min_samples_leaf, min_child_weight, l2, s0, out, sign, cap)
        _candidate_gains(ps, nb, y, min_samples_leaf, min_child_weight, l2, s0, out, sign, cap)


cdef double feature_best_gain(const double* gains, Py_ssize_t s0, Py_ssize_t nb) noexcept nogil:
    """The largest of one feature's summed gains gains[2·s0 : 2·(s0 + nb + 1)] that is above +0, else +0.

    What ``choose_level_split`` finds scanning them in order (a gain
    replaces the best so far when larger: NaN never does, and +0 stays the
    floor): the maximum of a set, so four running maxima give the same
    value with four comparisons in flight instead of one.  O(nb).
    """
    cdef Py_ssize_t k = 2 * s0, e = 2 * (s0 + nb + 1)
    cdef double t0 = 0.0, t1 = 0.0, t2 = 0.0, t3 = 0.0, v
    while k + 4 <= e:
        v = gains[k]
        t0 = v if v > t0 else t0
        v = gains[k + 1]
        t1 = v if v > t1 else t1
        v = gains[k + 2]
        t2 = v if v > t2 else t2
        v = gains[k + 3]
        t3 = v if v > t3 else t3
        k += 4
    while k < e:
        v = gains[k]
        t0 = v if v > t0 else t0
        k += 1
    t0 = t1 if t1 > t0 else t0
    t0 = t2 if t2 > t0 else t0
    return t3 if t3 > t0 else t0


cdef int _check_feature_slots(str kernel, const Py_ssize_t[::1] base, const Py_ssize_t[::1] n_edges,
                              Py_ssize_t S) except -1:
    """ValueError naming ``kernel`` unless each feature's slots (its bins, NaN and the default) fit the S slots."""
    cdef Py_ssize_t j
    for j in range(base.shape[0]):
        if base[j] < 0 or base[j] + n_edges[j] + 2 > S or not 0 <= n_edges[j] <= MAX_EDGES:
            raise ValueError(f"{kernel}: feature {j}'s slots do not fit the {S} slots (or it has more than "
                             f"{MAX_EDGES} edges)")
    return 0


cdef int _check_cap(str kernel, double cap) except -1:
    """ValueError naming ``kernel`` unless ``cap`` is a finite number >= 0 (0: no cap)."""
    if not 0 <= cap < float("inf"):
        raise ValueError(f"{kernel}: cap must be a finite number >= 0 (0: none), got {cap}")
    return 0


cdef int _check_siblings(str kernel, const double[:, ::1] hist, const double[:, ::1] small,
                         const Py_ssize_t[::1] base, const Py_ssize_t[::1] n_edges, const uint8_t[::1] feature_mask,
                         const double[:, ::1] out) except -1:
    """ValueError naming ``kernel`` unless hist and small are (S, 3), out (S, 2), one entry per feature in
    base, n_edges and feature_mask, and each feature's slots fit the S slots."""
    cdef Py_ssize_t d = base.shape[0], S = hist.shape[0]
    if n_edges.shape[0] != d or feature_mask.shape[0] != d or hist.shape[1] != 3 \
            or small.shape[0] != S or small.shape[1] != 3 or out.shape[0] != S or out.shape[1] != 2:
        raise ValueError(f"{kernel}: expected hist and small (S, 3), out (S, 2) and base, n_edges, "
                         "feature_mask of one entry per feature")
    return _check_feature_slots(kernel, base, n_edges, S)


def level_gains_add(const double[:, ::1] hist,        # IN  (S, 3) one node's Σg, Σh, count per slot
                    const Py_ssize_t[::1] base,       # IN  (d,) feature j's first slot
                    const Py_ssize_t[::1] n_edges,    # IN  (d,) feature j's bins 0..n_edges[j], NaN bin after
                    const uint8_t[::1] feature_mask,  # IN  (d,) features searched
                    double min_samples_leaf, double min_child_weight, double l2,
                    double[:, ::1] out,               # IN/OUT (S, 2) summed gains (NaN left, NaN right)
                    int n_threads=1,
                    signs=None,                       # IN  (d,) int8 monotone signs, or None: none
                    double cap=0.0):                  # the cap on the cells' values (max_delta_step; 0: none)
    """Add the node's gain of every allowed candidate (feature, bin, NaN side) to ``out``.

    ``signs``: a candidate of a feature with sign s ≠ 0 adds its gain only
    where its children's Newton values are in the sign's order (``_order_gains``).
    ``cap`` > 0: the capped gains (``_capped_gains``; a ValueError for a
    negative or non-finite cap).
    O(S) time, no allocation, parallel over features (each slot is written
    by one thread: the sums do not depend on ``n_threads``).
    """
    cdef Py_ssize_t d = base.shape[0], S = hist.shape[0], j
    cdef const int8_t[::1] sg
    cdef const int8_t* sign_of = NULL
    if n_edges.shape[0] != d or feature_mask.shape[0] != d or hist.shape[1] != 3 or out.shape[0] != S \
            or out.shape[1] != 2:
        raise ValueError(f"level_gains_add: expected hist (S, 3), out (S, 2) and base, n_edges, feature_mask "
                         f"of one entry per feature")
    _check_feature_slots("level_gains_add", base, n_edges, S)
    _check_cap("level_gains_add", cap)
    if signs is not None:
        sg = np.ascontiguousarray(signs, dtype=np.int8)
        if sg.shape[0] != d:
            raise ValueError(f"level_gains_add: signs must hold one entry per feature ({d}), got {sg.shape[0]}")
        if d > 0:
            sign_of = &sg[0]
    if d == 0:
        return
    n_threads = threads_for(<double> S * 8, n_threads, 65536.0)
    with nogil:
        for j in prange(d, schedule="static", num_threads=n_threads):
            if feature_mask[j]:
                feature_gains_add(&hist[0, 0], base[j], n_edges[j], min_samples_leaf, min_child_weight, l2,
                                  &out[0, 0], sign_of[j] if sign_of != NULL else 0, cap)


def level_gains_sub_add(double[:, ::1] hist,          # IN/OUT (S, 3) the parent's histogram; the larger child's
                        const double[:, ::1] small,   # IN  (S, 3) the smaller sibling's histogram
                        const Py_ssize_t[::1] base, const Py_ssize_t[::1] n_edges, const uint8_t[::1] feature_mask,
                        double min_samples_leaf, double min_child_weight, double l2,
                        double[:, ::1] out,           # IN/OUT (S, 2) summed gains (NaN left, NaN right)
                        double[::1] top,              # OUT (d,) each searched feature's best summed gain, else +0
                        double cap=0.0):              # the cap on the cells' values (0: none)
    """The in-memory grower's walk of a larger child, one feature at a time: ``hist`` −= ``small`` on the
    features' slots and, for the searched features, the node's gains added to ``out`` as
    :func:`level_gains_add` adds them; then each feature's best of ``out`` into ``top``.

    For the tests (the grower calls the kernels without the GIL).  O(S) time, no allocation, one thread.
    """
    cdef Py_ssize_t d = base.shape[0], j
    _check_siblings("level_gains_sub_add", hist, small, base, n_edges, feature_mask, out)
    _check_cap("level_gains_sub_add", cap)
    if top.shape[0] != d:
        raise ValueError(f"level_gains_sub_add: expected top of one entry per feature ({d}), got {top.shape[0]}")
    if d == 0:
        return
    with nogil:
        for j in range(d):
            feature_gains_sub_add(&hist[0, 0], &small[0, 0], base[j], n_edges[j], feature_mask[j] != 0,
                                  min_samples_leaf, min_child_weight, l2, &out[0, 0], 0, cap)
            top[j] = feature_best_gain(&out[0, 0], base[j], n_edges[j]) if feature_mask[j] else 0.0


def level_gains_pair(double[:, ::1] hist,             # IN/OUT (S, 3) the parent's histogram; the larger child's
                     const double[:, ::1] small,      # IN  (S, 3) the smaller sibling's histogram
                     const Py_ssize_t[::1] base, const Py_ssize_t[::1] n_edges, const uint8_t[::1] feature_mask,
                     bint search_large, bint search_small, bint small_first,
                     double min_samples_leaf, double min_child_weight, double l2,
                     double[:, ::1] out,              # IN/OUT (S, 2) summed gains (NaN left, NaN right)
                     double cap=0.0):                 # the cap on the cells' values (0: none)
    """The in-memory grower's walk of two siblings, one feature at a time (``feature_gains_pair``): ``hist``
    −= ``small`` on the features' slots and, for the searched features, the two children's gains added
    to ``out`` in node order (``small_first``: the smaller child's first), each where its ``search_*``
    flag is set -- the same bits as :func:`level_gains_add` and :func:`level_gains_sub_add` in that order.

    For the tests (the grower calls the kernel without the GIL).  O(S) time, no allocation, one thread.
    """
    cdef Py_ssize_t d = base.shape[0], j
    _check_siblings("level_gains_pair", hist, small, base, n_edges, feature_mask, out)
    _check_cap("level_gains_pair", cap)
    if d == 0:
        return
    with nogil:
        for j in range(d):
            if feature_mask[j]:
                feature_gains_pair(&hist[0, 0], &small[0, 0], base[j], n_edges[j], search_large, search_small,
                                   small_first, min_samples_leaf, min_child_weight, l2, &out[0, 0], 0, cap)
            else:
                feature_gains_sub_add(&hist[0, 0], &small[0, 0], base[j], n_edges[j], False, min_samples_leaf,
                                      min_child_weight, l2, &out[0, 0], 0, cap)


cdef bint choose_level_split(const double* gains,           # IN  (S, 2) summed gains (feature_gains_add)
                             const Py_ssize_t* base, const Py_ssize_t* n_edges, const uint8_t* feature_mask,
                             Py_ssize_t d, double tie_tolerance, double random_strength, uint64_t noise_seed,
                             Py_ssize_t level,
                             double* feature_top,           # SCRATCH (d,), or IN with have_top
                             double* work,                  # SCRATCH (d,)
                             LevelSplit* out, bint have_top=False,
                             const Py_ssize_t* noise_key=NULL) noexcept nogil:
    """The best candidate into ``out`` (see :func:`level_best`); False when no candidate gains.  O(S).

    ``have_top``: ``feature_top`` already holds each searched feature's
    :c:func:`feature_best_gain` (+0 for the others), as the grower's gain pass
    leaves it; else it is worked out here.  ``noise_key`` (or NULL: j
    itself): the number feature j's noise is keyed by -- the column of X it
    is, when the layout leaves out columns no split can use, so that the
    noise each kept column draws does not depend on which columns were left
    out before it.
    """
    cdef Py_ssize_t j, k = 0, chosen = -1
    cdef double top = 0.0, thr, fb, median, noisy, noisy_top = 0.0
    for j in range(d):
        if not have_top:
            feature_top[j] = feature_best_gain(gains, base[j], n_edges[j]) if feature_mask[j] else 0.0
        if feature_mask[j] and feature_top[j] > top:
            top = feature_top[j]
    if not top > tie_tolerance * top:
        # +0, or a gain that overflowed to +inf (gradient sums past sqrt(DBL_MAX)): no candidate gains, as in
        # ``_split``'s choice -- with noise no feature would pass inf's threshold (none chosen, nothing to read)
        return False
    thr = top - tie_tolerance * top
    if random_strength > 0:
        # the features that can split (best above the no-split threshold), in feature order
        for j in range(d):
            if feature_mask[j] and feature_top[j] > tie_tolerance * top:
                work[k] = feature_top[j]
                k += 1
        median = lower_median(work, k)
        for j in range(d):
            if feature_mask[j] and feature_top[j] > tie_tolerance * top:
                noisy = feature_top[j] + random_strength * median * split_noise(
                    noise_seed, level, noise_key[j] if noise_key != NULL else j)
                if chosen < 0 or noisy > noisy_top:
                    chosen = j
                    noisy_top = noisy
        fb = feature_top[chosen]
        thr = fb - tie_tolerance * fb
        if _first_within(gains, base, n_edges, chosen, thr, out):
            return True
    for j in range(d):
        if feature_mask[j] and _first_within(gains, base, n_edges, j, thr, out):
            return True
    return False


cdef inline bint _first_within(const double* gains, const Py_ssize_t* base, const Py_ssize_t* n_edges, Py_ssize_t j,
                               double thr, LevelSplit* out) noexcept nogil:
    """Feature j's first candidate (bin, NaN left before NaN right) gaining at least ``thr``, into ``out``."""
    cdef Py_ssize_t b
    cdef int side
    for b in range(n_edges[j] + 1):
        for side in range(2):
            if gains[2 * (base[j] + b) + side] >= thr:
                out.feature = j
                out.bin = b
                out.nan_left = side == 0
                out.gain = gains[2 * (base[j] + b) + side]
                return True
    return False


def level_best(const double[:, ::1] gains,            # IN  (S, 2) summed gains (level_gains_add)
               const Py_ssize_t[::1] base, const Py_ssize_t[::1] n_edges, const uint8_t[::1] feature_mask,
               double tie_tolerance, double random_strength=0.0, uint64_t noise_seed=0, Py_ssize_t level=0,
               noise_key=None):
    """(feature, bin, nan_left, gain) of the best candidate, or None when no candidate gains (> 0; a gain of +inf,
    overflowed, counts as none: the driver then checks the gradient sums, ``check_gain_sums``).

    Ties within ``tie_tolerance``·best go to the first in the order
    (feature, bin, NaN left before NaN right).  ``random_strength`` > 0: the
    feature is chosen with noise keyed by (``noise_seed``, ``level``,
    ``noise_key[feature]``; the feature itself when ``noise_key`` is None)
    among those whose best passes the no-split threshold (``_split_noise.pxd``),
    then its first candidate within the tolerance of its own best.  O(S)
    time, O(d) memory (each feature's best gain).
    """
    cdef Py_ssize_t d = base.shape[0], j
    cdef LevelSplit best
    cdef bint found
    cdef const Py_ssize_t[::1] keys
    cdef const Py_ssize_t* key_ptr = NULL
    if n_edges.shape[0] != d or feature_mask.shape[0] != d or gains.shape[1] != 2:
        raise ValueError("level_best: expected gains (S, 2) and base, n_edges, feature_mask of one entry per feature")
    if noise_key is not None:
        keys = np.ascontiguousarray(noise_key, dtype=np.intp)
        if keys.shape[0] != d:
            raise ValueError(f"level_best: noise_key must hold one entry per feature ({d}), got {keys.shape[0]}")
        if d > 0:
            key_ptr = &keys[0]
    if not random_strength >= 0:
        raise ValueError(f"level_best: random_strength must be >= 0, got {random_strength}")
    for j in range(d):
        if base[j] < 0 or base[j] + n_edges[j] + 2 > gains.shape[0] or n_edges[j] < 0:
            raise ValueError(f"level_best: feature {j}'s slots do not fit the {gains.shape[0]} slots")
    if d == 0:
        return None
    scratch = np.empty((2, d))
    cdef double[:, ::1] sc = scratch
    found = choose_level_split(&gains[0, 0], &base[0], &n_edges[0], &feature_mask[0], d, tie_tolerance,
                               random_strength, noise_seed, level, &sc[0, 0], &sc[1, 0], &best, False, key_ptr)
    if not found:
        return None
    return int(best.feature), int(best.bin), bool(best.nan_left), float(best.gain)


# ----------------------------------------------------------------------
# Prediction by bit index
# ----------------------------------------------------------------------
def _check_forest(const int32_t[::1] feature, const double[::1] threshold, const uint8_t[::1] nan_left,
                  const double[::1] value, const int64_t[::1] level_offset, const int64_t[::1] value_offset,
                  const double[::1] alpha, Py_ssize_t d):
    cdef Py_ssize_t T = alpha.shape[0], t, L = feature.shape[0], k
    if level_offset.shape[0] != T + 1 or value_offset.shape[0] != T + 1 or threshold.shape[0] != L \
            or nan_left.shape[0] != L:
        raise ValueError("oblivious forest: level_offset and value_offset need T + 1 entries, threshold and "
                         "nan_left one per level")
    for t in range(T):
        if not (0 <= level_offset[t] <= level_offset[t + 1] <= L and level_offset[t + 1] - level_offset[t] <= 30):
            raise ValueError(f"oblivious forest: tree {t}'s levels are out of range")
        if value_offset[t] < 0 or value_offset[t + 1] > value.shape[0] or \
                value_offset[t + 1] - value_offset[t] != (<int64_t> 1) << (level_offset[t + 1] - level_offset[t]):
            raise ValueError(f"oblivious forest: tree {t} needs 2^depth leaf values")
    for k in range(L):
        if not 0 <= feature[k] < d:
            raise ValueError(f"oblivious forest: level {k} reads feature {feature[k]}, X has {d}")


cdef inline Py_ssize_t _bit(double x, double threshold, uint8_t nan_left, Py_ssize_t level) noexcept nogil:
    """2^level if x goes right at this level (x > threshold; NaN: unless nan_left), else 0."""
    if isnan(x):
        return (1 - nan_left) << level
    return (x > threshold) << level


def predict_oblivious(const real_t[:, ::1] X,           # IN  (n, d) raw values (NaN allowed)
                      const int32_t[::1] feature,       # IN  every tree's levels, concatenated
                      const double[::1] threshold,      # IN  right iff x > threshold
                      const uint8_t[::1] nan_left,      # IN  NaN goes left
                      const double[::1] value,          # IN  every tree's 2^depth leaf values, concatenated
                      const int64_t[::1] level_offset,  # IN  (T + 1,) tree t's levels
                      const int64_t[::1] value_offset,  # IN  (T + 1,) tree t's leaf values
                      const double[::1] alpha,          # IN  (T,) coefficients
                      double[::1] out,                  # OUT (n,) Σ_t α_t v_t(x), in tree order
                      int n_threads=1):
    """Σ_t α_t h_t(x) for every row by bit index.  O(n·Σ_t depth_t) time, no allocation, parallel over rows."""
    cdef Py_ssize_t n = X.shape[0], T = alpha.shape[0], r, t, k, leaf
    cdef double s
    if out.shape[0] != n:
        raise ValueError(f"predict_oblivious: out must hold {n} rows")
    _check_forest(feature, threshold, nan_left, value, level_offset, value_offset, alpha, X.shape[1])
    n_threads = threads_for(<double> n * T, n_threads, 16384.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            s = 0.0
            for t in range(T):
                leaf = 0
                for k in range(level_offset[t], level_offset[t + 1]):
                    leaf = leaf | _bit(X[r, feature[k]], threshold[k], nan_left[k], k - level_offset[t])
                s = s + alpha[t] * value[value_offset[t] + leaf]
            out[r] = s


def predict_oblivious_csr(const index_t[::1] indptr, const index_t[::1] indices, const real_t[::1] data,
                          Py_ssize_t n_features, const int32_t[::1] feature, const double[::1] threshold,
                          const uint8_t[::1] nan_left, const double[::1] value, const int64_t[::1] level_offset,
                          const int64_t[::1] value_offset, const double[::1] alpha, double[::1] out, int n_threads=1):
    """:func:`predict_oblivious` on a CSR matrix (sorted column indices), reading its stored values only.

    A value not stored is 0: the same leaves, bit for bit, as the dense form.
    O(n·Σ_t depth_t·log(nnz per row)) time, no allocation.
    """
    cdef Py_ssize_t n = out.shape[0], T = alpha.shape[0], r, t
    cdef double s
    if indptr.shape[0] != n + 1 or indices.shape[0] < indptr[n] or data.shape[0] < indptr[n]:
        raise ValueError("predict_oblivious_csr: the CSR arrays do not hold the rows of out")
    _check_forest(feature, threshold, nan_left, value, level_offset, value_offset, alpha, n_features)
    if n == 0 or indices.shape[0] == 0:        # no stored value: every row is all zeros
        _predict_zeros(feature, threshold, nan_left, value, level_offset, value_offset, alpha, out)
        return
    n_threads = threads_for(<double> n * T, n_threads, 16384.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            s = 0.0
            for t in range(T):
                s = s + alpha[t] * value[value_offset[t] + _csr_leaf(&indices[0], &data[0], indptr[r], indptr[r + 1],
                                                                     &feature[0], &threshold[0], &nan_left[0],
                                                                     level_offset[t], level_offset[t + 1])]
            out[r] = s


cdef inline Py_ssize_t _csr_leaf(const index_t* indices, const real_t* data, Py_ssize_t lo, Py_ssize_t hi,
                                 const int32_t* feature, const double* threshold, const uint8_t* nan_left,
                                 Py_ssize_t k0, Py_ssize_t k1) noexcept nogil:
    """The leaf (bit index) of the CSR row holding entries [lo, hi) in the tree of levels k0..k1 − 1."""
    cdef Py_ssize_t k, leaf = 0
    cdef double x
    for k in range(k0, k1):
        x = csr_value(indices, data, lo, hi, feature[k]) if hi > lo else 0.0
        leaf = leaf | _bit(x, threshold[k], nan_left[k], k - k0)
    return leaf


def _predict_zeros(const int32_t[::1] feature, const double[::1] threshold, const uint8_t[::1] nan_left,
                   const double[::1] value, const int64_t[::1] level_offset, const int64_t[::1] value_offset,
                   const double[::1] alpha, double[::1] out):
    """Every row all zeros (a CSR matrix with nothing stored): one leaf per tree, the same sum for every row.

    O(Σ_t depth_t + n) time for the trees' levels and the n rows of ``out``, O(1) extra memory.
    """
    cdef Py_ssize_t t, k, leaf
    cdef double s = 0.0
    for t in range(alpha.shape[0]):
        leaf = 0
        for k in range(level_offset[t], level_offset[t + 1]):
            leaf = leaf | _bit(0.0, threshold[k], nan_left[k], k - level_offset[t])
        s = s + alpha[t] * value[value_offset[t] + leaf]
    out[:] = s


def oblivious_leaves(const real_t[:, ::1] X,           # IN  (n, d) raw values (NaN allowed)
                     const int32_t[::1] feature,       # IN  every tree's levels, concatenated
                     const double[::1] threshold,      # IN  right iff x > threshold
                     const uint8_t[::1] nan_left,      # IN  NaN goes left
                     const double[::1] value,          # IN  every tree's 2^depth leaf values (checked, not read)
                     const int64_t[::1] level_offset,  # IN  (T + 1,) tree t's levels
                     const int64_t[::1] value_offset,  # IN  (T + 1,) tree t's leaf values
                     int32_t[:, ::1] out,              # OUT (n, T) the cell (bit index) of x in tree t
                     int n_threads=1):
    """The cell Σ_l 2^l·[x goes right at level l] of every row in every tree, as :func:`predict_oblivious` finds it.

    O(n·Σ_t depth_t) time, parallel over rows (each thread writes its own
    rows of ``out``: the same result for any thread count); no allocation.
    """
    cdef Py_ssize_t n = X.shape[0], T = level_offset.shape[0] - 1, r, t, k, leaf
    if T < 0 or out.shape[0] != n or out.shape[1] != T:
        raise ValueError(f"oblivious_leaves: out must be (n, T) = ({n}, {max(T, 0)})")
    _check_forest(feature, threshold, nan_left, value, level_offset, value_offset, np.ones(T), X.shape[1])
    n_threads = threads_for(<double> n * T, n_threads, 16384.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                leaf = 0
                for k in range(level_offset[t], level_offset[t + 1]):
                    leaf = leaf | _bit(X[r, feature[k]], threshold[k], nan_left[k], k - level_offset[t])
                out[r, t] = <int32_t> leaf


def oblivious_leaves_csr(const index_t[::1] indptr, const index_t[::1] indices, const real_t[::1] data,
                         Py_ssize_t n_features, const int32_t[::1] feature, const double[::1] threshold,
                         const uint8_t[::1] nan_left, const double[::1] value, const int64_t[::1] level_offset,
                         const int64_t[::1] value_offset, int32_t[:, ::1] out, int n_threads=1):
    """:func:`oblivious_leaves` on a CSR matrix (sorted column indices), reading its stored values only.

    A value not stored is 0: the same cells as the dense form.
    O(n·Σ_t depth_t·log(nnz per row)) time, no allocation.
    """
    cdef Py_ssize_t n = out.shape[0], T = level_offset.shape[0] - 1, r, t
    # a matrix storing nothing has no element 0 to point at; no row then reads one (lo == hi)
    cdef const index_t* ind = &indices[0] if indices.shape[0] > 0 else NULL
    cdef const real_t* dat = &data[0] if data.shape[0] > 0 else NULL
    if indptr.shape[0] != n + 1 or indices.shape[0] < indptr[n] or data.shape[0] < indptr[n]:
        raise ValueError("oblivious_leaves_csr: the CSR arrays do not hold the rows of out")
    if T < 0 or out.shape[1] != T:
        raise ValueError(f"oblivious_leaves_csr: out must have T = {max(T, 0)} columns")
    _check_forest(feature, threshold, nan_left, value, level_offset, value_offset, np.ones(T), n_features)
    if T == 0 or feature.shape[0] == 0:         # no level to read (and no element 0 of feature): every cell is 0
        out[:, :] = 0
        return
    n_threads = threads_for(<double> n * T, n_threads, 16384.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                out[r, t] = <int32_t> _csr_leaf(ind, dat, indptr[r], indptr[r + 1], &feature[0], &threshold[0],
                                                &nan_left[0], level_offset[t], level_offset[t + 1])


def oblivious_codes(const uint8_t[:, ::1] codes,    # IN  (n, n_cols) bin codes
                    const int32_t[::1] column,      # IN  (D,) the code column each level reads
                    const uint8_t[:, ::1] go_left,  # IN  (D, 256) each level's split table (split_tables)
                    const double[::1] value,        # IN  (2^D,) leaf values
                    double[::1] out,                # OUT (n,)
                    int n_threads=1):
    """One oblivious tree's leaf value for every encoded row.  O(n·D) time, parallel over rows; O(1) extra memory."""
    cdef Py_ssize_t n = codes.shape[0], D = column.shape[0], r, l, leaf
    if go_left.shape[0] != D or value.shape[0] != (<Py_ssize_t> 1) << D or out.shape[0] != n or D > 30:
        raise ValueError("oblivious_codes: expected D tables, 2^D values and one output per row")
    for l in range(D):
        if not 0 <= column[l] < codes.shape[1]:
            raise ValueError(f"oblivious_codes: level {l} reads column {column[l]}, codes have {codes.shape[1]}")
    n_threads = threads_for(<double> n * D, n_threads, 65536.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            leaf = 0
            for l in range(D):
                leaf = leaf | ((1 - go_left[l, codes[r, column[l]]]) << l)
            out[r] = value[leaf]


cdef enum:
    # rows whose leaf indices one pass of oblivious_columns builds level by level (2 KB of uint32 on the stack)
    COLUMN_BLOCK = 512


cdef void _columns_block(const uint8_t* codes_t, Py_ssize_t n, const Py_ssize_t* where, const uint32_t* right_bit,
                         Py_ssize_t D, const double* value, double* out, Py_ssize_t r0,
                         Py_ssize_t r1) noexcept nogil:
    """Rows r0..r1 (at most COLUMN_BLOCK) of :func:`oblivious_columns`: each level's column read as one stream,
    its codes mapped to the level's bit by ``right_bit`` (D, 256): 2^l where the code goes right, else 0."""
    cdef uint32_t leaf[COLUMN_BLOCK]
    cdef Py_ssize_t i, l, m = r1 - r0
    cdef const uint8_t* col
    cdef const uint32_t* bit
    for i in range(m):
        leaf[i] = 0
    for l in range(D):
        col = codes_t + where[l] * n + r0
        bit = right_bit + 256 * l
        for i in range(m):
            leaf[i] = leaf[i] | bit[col[i]]
    for i in range(m):
        out[r0 + i] = value[leaf[i]]


def oblivious_columns(const uint8_t[:, ::1] codes_t,  # IN  (n_cols, n) bin codes, column-major
                      const int32_t[::1] column,      # IN  (D,) the code column each level reads
                      const uint8_t[:, ::1] go_left,  # IN  (D, 256) each level's split table (split_tables)
                      const double[::1] value,        # IN  (2^D,) leaf values
                      double[::1] out,                # OUT (n,)
                      int n_threads=1):
    """:func:`oblivious_codes` on column-major codes: the same leaf values, reading the D columns only.

    Row-major codes cost a cache line per row and level on wide data (137
    columns: the whole code matrix crosses the memory bus for every tree);
    here the D columns are D sequential streams.  Blocks of COLUMN_BLOCK
    rows build their leaf indices level by level (one column and one
    table at a time: no per-row walk over the levels' strides), then read
    the values.  O(n·D) time, parallel over the blocks; O(COLUMN_BLOCK)
    stack per thread and D × 256 bits' table (uint32) in memory.
    """
    cdef Py_ssize_t n = codes_t.shape[1], D = column.shape[0], l, k, n_blocks
    cdef Py_ssize_t where[30]
    if go_left.shape[0] != D or value.shape[0] != (<Py_ssize_t> 1) << D or out.shape[0] != n or D > 30 \
            or (D > 0 and go_left.shape[1] != 256):
        raise ValueError("oblivious_columns: expected D <= 30 tables of 256 entries, 2^D values and one output "
                         "per row")
    for l in range(D):
        if not 0 <= column[l] < codes_t.shape[0]:
            raise ValueError(f"oblivious_columns: level {l} reads column {column[l]}, codes have {codes_t.shape[0]}")
        where[l] = column[l]
    if n == 0:
        return
    cdef const uint8_t* codes = &codes_t[0, 0]
    # each level's code -> its bit of the leaf index (2^l to the right), shared read-only by the threads
    bits = np.empty(max(D, 1) * 256, dtype=np.uint32)
    cdef uint32_t[::1] bit_view = bits
    cdef uint32_t* right_bit = &bit_view[0]
    cdef Py_ssize_t c
    for l in range(D):
        for c in range(256):
            right_bit[256 * l + c] = (<uint32_t> (go_left[l, c] == 0)) << l
    n_blocks = (n + COLUMN_BLOCK - 1) // COLUMN_BLOCK
    # from about 20 µs of work: two threads against one at depth 6 (2-core VM, medians) took 0.89 at 2,731 rows,
    # 0.70 at 4,096 and 0.79 at 10,000
    n_threads = threads_for(<double> n * D, n_threads, 16384.0)
    with nogil:
        for k in prange(n_blocks, schedule="static", num_threads=n_threads):
            _columns_block(codes, n, where, right_bit, D, &value[0], &out[0], k * COLUMN_BLOCK,
                           min(n, (k + 1) * COLUMN_BLOCK))

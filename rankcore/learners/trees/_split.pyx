"""Split search of the ``trees`` learner: a node's best split from its compact histogram.

A node's histogram is the (S, 3) slot array described in ``_histogram.pyx``
(feature j's bins 0..n_edges[j], then its NaN bin).  ``scan_nodes`` finds
each feature's best gain and parent term for one or several nodes (the two
children of a split share one parallel region), ``choose_split`` then picks
the first candidate within the tie tolerance of the best, and
``best_split`` is the Python entry point the multi-pass learner and the
tests use.  The scan's gains are computed several per vector (2, 4 or 8
doubles, the widest the CPU has: its divisions dominate the scan), with the
scalar arithmetic's results bit for bit.  Every function is O(S) time per node (plus O(K log K) per
categorical feature of K categories) and O(d) scratch memory; none depends
on the thread count.
"""

from cython.parallel cimport prange
from libc.stdint cimport int8_t, uint8_t, uint64_t

from rankcore._parallel cimport threads_for
from rankcore.learners.histograms cimport column_share
from rankcore.learners.trees._split_noise cimport lower_median, noise_key, noise_mix
from rankcore.learners.trees._histogram cimport (FeatureSlots, NodeScan, SlotLayout, SplitChoice, SplitParams,
                                              capped_gain_term, split_params)

import numpy as np

from rankcore._simd import checked_level

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* Whether a histogram slot (3 doubles) holds anything but zeros (of either sign): the bits,
       sign bit aside, tested together -- no floating-point compare per value. */
    static inline int rc_slot_nonzero(const double* x) {
        uint64_t a, b, c;
        memcpy(&a, x, 8); memcpy(&b, x + 1, 8); memcpy(&c, x + 2, 8);
        return ((a | b | c) << 1) != 0;
    }
    """
    int rc_slot_nonzero(const double* x) noexcept nogil

include "_split_simd.pxi"


rc_simd_level = rc_simd_supported()


def simd_level(level=None):
    """The vector width of the split scan's gains: 0 (2 doubles), 1 (AVX2: 4), 2 (AVX-512: 8).

    With ``level``, use that width from now on (at most the CPU's: for the
    tests, which check that every width finds the same splits); returns the
    level in use before.
    """
    global rc_simd_level
    cdef int previous = rc_simd_level
    if level is not None:
        rc_simd_level = checked_level(level, rc_simd_supported())
    return previous

cdef enum:
    C_MAX_EDGES = 254
    # histogram slots (over the nodes scanned together) from which the split scan runs on several threads
    SCAN_PARALLEL_SLOTS = 1024

# ----------------------------------------------------------------------
# Split search
# ----------------------------------------------------------------------
cdef inline bint _allowed(double lc, double rc, double lh, double rh, const SplitParams* p) noexcept nogil:
    """Both sides hold min_samples_leaf rows and min_child_weight curvature (and a positive H + λ)."""
    return not (lc < p.min_samples_leaf or rc < p.min_samples_leaf or lh < p.min_child_weight
                or rh < p.min_child_weight or lh + p.l2 <= 0 or rh + p.l2 <= 0)


cdef inline double _clamped(double v, double lo, double hi) noexcept nogil:
    """v clamped to [lo, hi] (comparisons only: the search's Python side clamps alike)."""
    if v < lo:
        v = lo
    if v > hi:
        v = hi
    return v


cdef inline double _bounded_term(double G, double H, double l2, const SplitParams* p) noexcept nogil:
    """A leaf's gain term −(2·G·w + (H+λ)·w²) at its value w = −G/(H+λ) clamped to the node's bounds
    (G²/(H+λ) when w is inside them); 0 when H + λ <= 0."""
    cdef double w
    if not H + l2 > 0:
        return 0.0
    w = _clamped(-G / (H + l2), p.lo, p.hi)
    return -(2.0 * G * w + (H + l2) * w * w)


cdef inline double _capped_term(double G, double H, double l2, const SplitParams* p) noexcept nogil:
    """A leaf's gain term under a cap alone (``max_delta_step``, no monotone constraints): ``capped_gain_term``
    within the node's [lo, hi] (shared with the oblivious levels' kernels), 0 when H + λ <= 0."""
    if not H + l2 > 0:
        return 0.0
    return capped_gain_term(G, H, l2, p.lo, p.hi)


cdef inline double _leaf_term(double G, double H, double l2, const SplitParams* p) noexcept nogil:
    """A bounded leaf's gain term: ``_bounded_term`` with monotone constraints, else ``_capped_term``."""
    if p.monotone != NULL:
        return _bounded_term(G, H, l2, p)
    return _capped_term(G, H, l2, p)


cdef inline bint _is_found(double lg, double lh, double lc, double tg, double th, double tc, double l2,
                           double parent, const SplitParams* p, bint find, double threshold, double* best,
                           double* gain, double* rg, double* rh, double* rc, Py_ssize_t j) noexcept nogil:
    """Weigh sending (lg, lh, lc) of the totals left: sets the right side's sums and the gain of an allowed split.

    Scan (not ``find``): keeps the best gain in ``best``, returns False.
    Find: whether the split is allowed and its gain reaches ``threshold``.
    With monotone constraints (``p.monotone``) the gain is the clamped
    children's (``_bounded_term``), and a split of feature j against its
    sign (sign·(w_right − w_left) < 0) is not allowed.  With a cap alone
    (``p.bounded``, no monotone) the gain is ``_capped_term``'s, and a split
    whose children are both clamped to the same bound is not allowed (it
    changes no score; its "gain" is −λ·cap² plus rounding).
    """
    cdef double wl, wr
    rg[0] = tg - lg
    rh[0] = th - lh
    rc[0] = tc - lc
    if not _allowed(lc, rc[0], lh, rh[0], p):
        return False
    if not p.bounded:
        gain[0] = lg * lg / (lh + l2) + rg[0] * rg[0] / (rh[0] + l2) - parent
    elif p.monotone == NULL:
        wl = -lg / (lh + l2)
        wr = -rg[0] / (rh[0] + l2)
        if (wl >= p.hi and wr >= p.hi) or (wl <= p.lo and wr <= p.lo):
            return False
        gain[0] = _capped_term(lg, lh, l2, p) + _capped_term(rg[0], rh[0], l2, p) - parent
    else:
        wl = _clamped(-lg / (lh + l2), p.lo, p.hi)
        wr = _clamped(-rg[0] / (rh[0] + l2), p.lo, p.hi)
        # against the sign; or children of one value (both at a bound), which change no score: their "gain" is
        # rounding, and a node whose own value is clamped has a parent term too small to weigh it against
        if p.monotone[j] * (wr - wl) < 0 or wl == wr:
            return False
        gain[0] = _bounded_term(lg, lh, l2, p) + _bounded_term(rg[0], rh[0], l2, p) - parent
    if not find:
        if gain[0] > best[0]:
            best[0] = gain[0]
        return False
    return gain[0] >= threshold


cdef inline void _record(SplitChoice* out, double gain, Py_ssize_t j, Py_ssize_t b, bint nan_left, bint categorical,
                         double lg, double lh, double lc, double rg, double rh, double rc) noexcept nogil:
    out.gain = gain
    out.feature = j
    out.bin = b
    out.nan_left = nan_left
    out.categorical = categorical
    out.left[0] = lg
    out.left[1] = lh
    out.left[2] = lc
    out.right[0] = rg
    out.right[1] = rh
    out.right[2] = rc


cdef inline double _node_totals(double cg, double ch, double cc, double ng, double nh, double nc, double l2,
                                double* tg, double* th, double* tc, double* parent_out,
                                const SplitParams* p) noexcept nogil:
    """The node's totals (the feature's bins, then its NaN bin) and its parent term G²/(H + λ) (with
    monotone constraints: clamped, ``_bounded_term``), also into ``parent_out`` when given."""
    cdef double parent
    tg[0] = cg + ng
    th[0] = ch + nh
    tc[0] = cc + nc
    parent = tg[0] * tg[0] / (th[0] + l2) if th[0] + l2 > 0 else 0.0
    if p.bounded:
        parent = _leaf_term(tg[0], th[0], l2, p)
    if parent_out != NULL:
        parent_out[0] = parent
    return parent


cdef inline bint _weigh_bin(double cg, double ch, double cc, double ng, double nh, double nc, bint has_nan,
                            bint last, double tg, double th, double tc, double parent, const SplitParams* p,
                            bint find, double threshold, double* best, Py_ssize_t j, Py_ssize_t b,
                            SplitChoice* out) noexcept nogil:
    """A numeric bin's two candidates, NaN left then right, from the sums (cg, ch, cc) of bins 0..b.

    Bin b sends its bins left; NaN goes left (its sums added) or right.  The
    last bin has only "NaN right", and only with NaN present (every value
    left); without NaN the two are the same split, weighed once, on the side
    with more rows.  True when ``find`` and a candidate reaches the threshold
    (recorded in ``out``); otherwise ``best`` carries the best gain.
    """
    cdef double lg, lh, lc, gain, rg, rh, rc
    cdef int side
    for side in range(2):               # 0: NaN left, 1: NaN right
        if last and (side == 0 or not has_nan):
            continue
        if not has_nan and (side == 0) != (cc >= tc - cc):
            continue
        if side == 0:
            lg = cg + ng
            lh = ch + nh
            lc = cc + nc
        else:
            lg = cg
            lh = ch
            lc = cc
        if _is_found(lg, lh, lc, tg, th, tc, p.l2, parent, p, find, threshold, best, &gain, &rg, &rh, &rc, j):
            _record(out, gain, j, b, side == 0, False, lg, lh, lc, rg, rh, rc)
            return True
    return False


cdef double _scan_feature(double* fh, Py_ssize_t j, Py_ssize_t n_edges_j, const SplitParams* p,
                          double threshold, bint find, SplitChoice* out, double* parent_out,
                          const double* subtract) noexcept nogil:
    """One numeric feature's candidates, in order (bin, then NaN left before NaN right); ``fh``: its first slot.

    ``parent_out`` (if not NULL) receives the feature's parent term
    G²/(H+λ) (0 when H+λ <= 0), which scales the tie tolerance.
    ``find`` False: the feature's best gain (-1 if no candidate is allowed).
    ``find`` True: the first candidate whose gain is >= ``threshold`` is
    written to ``out`` and 1 is returned, else 0.  Both modes compute every
    gain with the same operations in the same order, so a gain found in the
    first mode is met again in the second.

    One pass keeps the cumulative sums at the bins that hold something: a
    bin b > 0 whose slot is exactly (0, 0, 0) sends the same rows left as
    bin b − 1, so its candidates repeat the previous ones -- same sums, same
    gains, later in the order -- and are skipped without changing the
    result.  (A zero count is not enough: a subtracted histogram can hold a
    rounding residue there.)  ``subtract`` (or NULL): the feature's slots
    of another histogram, first taken from ``fh``'s in the same pass (the
    sibling subtraction).  The bins are found and the first mode weighs its
    candidates several at once (``rc_nonzero_bins``, ``rc_best_gain``: the
    same gains, and their maximum is the same in any order).  O(n_edges_j)
    time, 8 KiB of stack.
    """
    cdef Py_ssize_t b, k, nk = 0, nb = n_edges_j
    cdef double best = -1.0, parent, l2 = p.l2
    cdef double cg = 0.0, ch = 0.0, cc = 0.0, ng, nh, nc, tg, th, tc
    cdef bint has_nan
    cdef const double* x
    cdef rc_gain_args args
    cdef Py_ssize_t n_low
    cdef int pos[C_MAX_EDGES + 1]
    cdef double pg[C_MAX_EDGES + 1]
    cdef double ph[C_MAX_EDGES + 1]
    cdef double pc[C_MAX_EDGES + 1]
    if nb > C_MAX_EDGES:
        nb = C_MAX_EDGES
    nk = rc_nonzero_bins(fh, subtract, nb + 1, n_edges_j + 2, pos)     # the bins that hold something
    for k in range(nk):                 # their cumulative sums, in bin order
        x = fh + 3 * pos[k]
        cg = cg + x[0]
        ch = ch + x[1]
        cc = cc + x[2]
        pg[k] = cg
        ph[k] = ch
        pc[k] = cc
    x = fh + 3 * (n_edges_j + 1)        # the NaN bin
    ng = x[0]
    nh = x[1]
    nc = x[2]
    parent = _node_totals(cg, ch, cc, ng, nh, nc, l2, &tg, &th, &tc, parent_out, p)
    has_nan = nc > 0
    # the best gain only: vectors of candidates (with bounds -- monotone constraints, a cap --, the scalar loop below)
    if not find and not p.bounded:
        args.tg = tg
        args.th = th
        args.tc = tc
        args.ng = ng
        args.nh = nh
        args.nc = nc
        args.l2 = l2
        args.parent = parent
        args.msl = p.min_samples_leaf
        args.mcw = p.min_child_weight
        n_low = nk - 1 if pos[nk - 1] == nb else nk         # the candidates of bins below nb
        if has_nan:
            best = rc_best_gain(pg, ph, pc, n_low, 0, &args, best)
            return rc_best_gain(pg, ph, pc, nk, 1, &args, best)
        return rc_best_gain(pg, ph, pc, n_low, 2, &args, best)
    for k in range(nk):
        b = pos[k]
        if _weigh_bin(pg[k], ph[k], pc[k], ng, nh, nc, has_nan, b == nb, tg, th, tc, parent, p, find, threshold,
                      &best, j, b, out):
            return 1.0
    return best if not find else 0.0


cdef double _scan_binary(const double* fh, Py_ssize_t j, const SplitParams* p, double threshold, bint find,
                         SplitChoice* out, double* parent_out) noexcept nogil:
    """:func:`_scan_feature` of a numeric one-edge feature (bins 0, 1, NaN: one-hot columns), without its buffers.

    The same candidates in the same order from the same operations (the same
    gains, bit for bit): bin 0 (NaN left, then right; without NaN, the side
    with more rows), then bin 1 with NaN right if NaN is present and bin 1
    holds something.  O(1).
    """
    cdef double best = -1.0, gain, parent, l2 = p.l2
    cdef double g0 = 0.0 + fh[0], h0 = 0.0 + fh[1], c0 = 0.0 + fh[2]
    cdef double cg = g0, ch = h0, cc = c0, ng = fh[6], nh = fh[7], nc = fh[8]
    cdef double tg, th, tc, rg, rh, rc
    cdef bint has_nan = nc > 0, one = rc_slot_nonzero(fh + 3)
    if one:
        cg = g0 + fh[3]
        ch = h0 + fh[4]
        cc = c0 + fh[5]
    parent = _node_totals(cg, ch, cc, ng, nh, nc, l2, &tg, &th, &tc, parent_out, p)
    if _weigh_bin(g0, h0, c0, ng, nh, nc, has_nan, False, tg, th, tc, parent, p, find, threshold, &best, j, 0,
                  out):
        return 1.0
    if has_nan and one:                 # bin 1: every value left, NaN right
        if _is_found(cg, ch, cc, tg, th, tc, l2, parent, p, find, threshold, &best, &gain, &rg, &rh, &rc, j):
            _record(out, gain, j, 1, False, False, cg, ch, cc, rg, rh, rc)
            return 1.0
    return best if not find else 0.0


cdef inline void _order_ties_by_bin(int* order, const double* key, Py_ssize_t P, double tolerance) noexcept nogil:
    """Reorder by bin each run of ``order`` (sorted by ``key``) whose neighbouring keys differ by at most
    ``tolerance`` × max |key|.  Runs end at gaps wider than that, so rounding noise far below it never moves a
    category across a run's end; without near ties nothing moves.  O(P²) time, no memory."""
    cdef Py_ssize_t i, start = 0, end, k
    cdef double scale = 0.0, atol
    cdef int b
    for i in range(P):
        if key[i] > scale:
            scale = key[i]
        elif -key[i] > scale:
            scale = -key[i]
    atol = tolerance * scale
    if not atol > 0:
        return
    while start < P:
        end = start + 1
        while end < P and key[end] - key[end - 1] <= atol:
            end += 1
        for i in range(start + 1, end):        # insertion by bin within the run [start, end)
            b = order[i]
            k = i
            while k > start and order[k - 1] > b:
                order[k] = order[k - 1]
                k -= 1
            order[k] = b
        start = end


cdef double _scan_categorical(const double* fh, Py_ssize_t j, Py_ssize_t n_edges_j, const SplitParams* p,
                              double threshold, bint find, SplitChoice* out, double* parent_out) noexcept nogil:
    """One categorical feature's candidates: groups of its categories (bins, and NaN as one more) going left.

    The categories present at the node (count > 0) are ordered by
    G/(H + cat_smooth), and the candidates are the
    first k of that order, k = 1 .. min(P − 1, max_cat), then the last k
    (the order read backwards) -- for a Newton gain, the best binary
    partition of the categories is a prefix of this order (Fisher 1958; as
    LightGBM and scikit-learn's HistGradientBoosting split categories).
    Categories absent from the node go right; NaN, when absent, to the side
    with more rows.  Keys within ``tie_tolerance`` × the node's largest |key|
    of their neighbour in that order are tied (chains of them form one run),
    and a run goes by bin: categories whose statistics agree in exact
    arithmetic (the same rows and labels, say) would otherwise be ordered by
    the rounding of their sums, which changes with the row order and the
    Dask partitions.  Modes and returns as :func:`_scan_feature`.
    O(K²) for the K categories (insertion sorts, K <= 256), 4 KiB of stack.
    """
    cdef Py_ssize_t K = n_edges_j + 1, P = 0, b, i, q, k, limit, v
    cdef int direction
    cdef double tg = 0.0, th = 0.0, tc = 0.0, cg, ch, cc, rg, rh, rc, gain, parent, best = -1.0, denom, l2 = p.l2
    cdef bint nan_left
    cdef const double* x
    cdef int order[C_MAX_EDGES + 2]
    cdef double key[C_MAX_EDGES + 2]
    for b in range(K + 1):              # the categories' bins in order, then NaN: the numeric scan's sums
        x = fh + 3 * b
        tg = tg + x[0]
        th = th + x[1]
        tc = tc + x[2]
        if x[2] > 0:
            denom = x[1] + p.cat_smooth
            key[P] = x[0] / denom if denom > 0 else 0.0
            order[P] = <int> b
            # insertion by (key, bin): P <= 256
            k = P
            while k > 0 and key[k - 1] > key[k]:
                key[k - 1], key[k] = key[k], key[k - 1]
                order[k - 1], order[k] = order[k], order[k - 1]
                k -= 1
            P += 1
    _order_ties_by_bin(order, key, P, p.tie_tolerance)
    parent = tg * tg / (th + l2) if th + l2 > 0 else 0.0
    if p.bounded:
        parent = _leaf_term(tg, th, l2, p)
    if parent_out != NULL:
        parent_out[0] = parent
    limit = P - 1
    if limit > p.max_cat:
        limit = p.max_cat
    for direction in range(2):
        cg = 0.0
        ch = 0.0
        cc = 0.0
        for i in range(limit):
            q = order[i] if direction == 0 else order[P - 1 - i]
            x = fh + 3 * q
            cg = cg + x[0]
            ch = ch + x[1]
            cc = cc + x[2]
            if _is_found(cg, ch, cc, tg, th, tc, l2, parent, p, find, threshold, &best, &gain, &rg, &rh, &rc,
                         j):
                nan_left = False
                for v in range(4):
                    out.left_bins[v] = 0
                for k in range(i + 1):
                    b = order[k] if direction == 0 else order[P - 1 - k]
                    out.left_bins[b >> 6] |= (<uint64_t> 1) << (b & 63)
                    nan_left = nan_left or b == K
                if (fh + 3 * K)[2] <= 0:        # NaN absent: to the side with more rows
                    nan_left = cc >= rc
                    if nan_left:
                        out.left_bins[K >> 6] |= (<uint64_t> 1) << (K & 63)
                _record(out, gain, j, i + 1, nan_left, True, cg, ch, cc, rg, rh, rc)
                return 1.0
    return best if not find else 0.0


cdef inline double _parent_term(const double* fh, Py_ssize_t n_edges_j, double l2,
                                const SplitParams* p) noexcept nogil:
    """G²/(H+λ) of a feature not scanned (masked out), summed as ``_scan_feature`` sums it (with monotone
    constraints: clamped, ``_bounded_term``)."""
    cdef Py_ssize_t b, nan_slot = n_edges_j + 1
    cdef double tg = 0.0, th = 0.0
    for b in range(nan_slot):
        tg = tg + fh[3 * b]
        th = th + fh[3 * b + 1]
    tg = tg + fh[3 * nan_slot]
    th = th + fh[3 * nan_slot + 1]
    if p.bounded:
        return _leaf_term(tg, th, l2, p)
    return tg * tg / (th + l2) if th + l2 > 0 else 0.0


cdef inline double _scan(const double* hist, const FeatureSlots* fs, Py_ssize_t j, const SplitParams* p,
                         double threshold, bint find, SplitChoice* out, double* parent_out) noexcept nogil:
    if fs.categorical[j]:
        return _scan_categorical(hist + 3 * fs.base[j], j, fs.n_edges[j], p, threshold, find, out, parent_out)
    if fs.n_edges[j] == 1:
        return _scan_binary(hist + 3 * fs.base[j], j, p, threshold, find, out, parent_out)
    # (not written: nothing to subtract)
    return _scan_feature(<double*> hist + 3 * fs.base[j], j, fs.n_edges[j], p, threshold, find, out, parent_out,
                         NULL)


cdef inline void _feature_best(double* hist, const FeatureSlots* fs, const uint8_t* feature_mask,
                               Py_ssize_t j, const SplitParams* p, double* feat_best, double* feat_parent,
                               const double* subtract) noexcept nogil:
    cdef Py_ssize_t s, s0, s1
    if feature_mask[j] and not fs.categorical[j] and fs.n_edges[j] > 1:
        # a numeric feature's scan takes the sibling subtraction in its first pass over the slots
        s0 = 3 * fs.base[j]
        feat_best[j] = _scan_feature(hist + s0, j, fs.n_edges[j], p, 0.0, False, NULL, &feat_parent[j],
                                     subtract + s0 if subtract != NULL else NULL)
        return
    if subtract != NULL:        # the sibling subtraction, feature by feature: its slots are then hot
        s0 = 3 * fs.base[j]
        s1 = s0 + 3 * (fs.n_edges[j] + 2)
        for s in range(s0, s1):
            hist[s] = hist[s] - subtract[s]
    if feature_mask[j]:
        feat_best[j] = _scan(hist, fs, j, p, 0.0, False, NULL, &feat_parent[j])
    else:
        feat_parent[j] = _parent_term(hist + 3 * fs.base[j], fs.n_edges[j], p.l2, p)
        feat_best[j] = -1.0


cdef int scan_threads(Py_ssize_t k, const FeatureSlots* fs, int n_threads) noexcept nogil:
    """The threads of :func:`scan_nodes` for k nodes: ``n_threads`` from SCAN_PARALLEL_SLOTS slots in all
    on (a few thousand slots are ~10 µs: worth one fork and join), at most one per (node, feature).  O(1)."""
    cdef int T = threads_for(<double> k * fs.n_slots, n_threads, SCAN_PARALLEL_SLOTS)
    if T > k * fs.d:
        T = <int> (k * fs.d)
    return T if T > 1 else 1


cdef inline const SplitParams* _own(const NodeScan* node, const SplitParams* params) noexcept nogil:
    """The node's own parameters (its bounds, with monotone constraints), else the shared ones."""
    return node.params if node.params != NULL else params


cdef inline const uint8_t* _mask(const NodeScan* node, const uint8_t* feature_mask) noexcept nogil:
    """The node's own features to scan (with interaction constraints), else the shared ones."""
    return node.mask if node.mask != NULL else feature_mask


cdef void scan_part(NodeScan* nodes, Py_ssize_t k, const FeatureSlots* fs, const uint8_t* feature_mask,
                    const SplitParams* params, int tid, int T) noexcept nogil:
    """Thread ``tid``'s share of :func:`scan_nodes` on T threads (``scan_threads``); no barrier.

    With T <= c code columns thread t takes the features of the t-th of T
    groups of columns (``histograms.column_share``) of every node -- the columns whose slots
    ``histograms.node_histogram_part`` has thread t fill, so a thread may
    scan right after filling, without waiting for the others; with more
    threads than columns the (node, feature) items are dealt in turn.
    O(k·S/T) per thread.
    """
    cdef Py_ssize_t d = fs.d, c = fs.n_cols, i, q, j, lo, hi
    if tid >= T:
        return
    if T <= 1:
        for i in range(k * d):
            q = i // d
            _feature_best(nodes[q].hist, fs, _mask(&nodes[q], feature_mask), i - q * d, _own(&nodes[q], params),
                          nodes[q].scratch, nodes[q].scratch + d, nodes[q].subtract)
    elif T <= c:
        lo = column_share(c, fs.col_work, tid, T)
        hi = column_share(c, fs.col_work, tid + 1, T)
        for q in range(k):
            for j in range(d):
                if lo <= fs.col[j] < hi:
                    _feature_best(nodes[q].hist, fs, _mask(&nodes[q], feature_mask), j, _own(&nodes[q], params),
                                  nodes[q].scratch, nodes[q].scratch + d, nodes[q].subtract)
    else:
        i = tid
        while i < k * d:
            q = i // d
            _feature_best(nodes[q].hist, fs, _mask(&nodes[q], feature_mask), i - q * d, _own(&nodes[q], params),
                          nodes[q].scratch, nodes[q].scratch + d, nodes[q].subtract)
            i += T


cdef void scan_nodes(NodeScan* nodes, Py_ssize_t k, const FeatureSlots* fs, const uint8_t* feature_mask,
                     const SplitParams* params, int n_threads) noexcept nogil:
    """Every feature's best gain and parent term of k nodes (a split's two children), in one parallel region.

    Node i's ``scratch`` receives them (2·d doubles); its ``subtract`` (or
    NULL) is first taken from its histogram, feature by feature (the sibling
    subtraction; it may be another node's histogram: read only).  The
    threads (``scan_threads``) share the features as :func:`scan_part`
    says.  A node's feature is never split between threads, so the result
    does not depend on ``n_threads``.  O(k·S) time.
    """
    cdef int T = scan_threads(k, fs, n_threads)
    cdef int t
    if T <= 1:
        scan_part(nodes, k, fs, feature_mask, params, 0, 1)
        return
    for t in prange(T, num_threads=T, schedule="static", chunksize=1):
        scan_part(nodes, k, fs, feature_mask, params, t, T)


# ----------------------------------------------------------------------
# Random strength's deviates (``_split_noise.pxd``)
# ----------------------------------------------------------------------
cdef enum:
    NOISE_BITS = 12

cdef double _NOISE[1 << NOISE_BITS]


def noise_quantiles():
    """The 4,096 standard normal quantiles Φ⁻¹((i + ½)/4096) the deviates are drawn from (the standard
    library's inverse normal CDF, so a plain-Python reference gets the same numbers).

    4,096 inverse-CDF evaluations (a constant, once per import), O(4,096) memory: the output.
    """
    from statistics import NormalDist

    normal = NormalDist()
    return np.array([normal.inv_cdf((i + 0.5) / (1 << NOISE_BITS)) for i in range(1 << NOISE_BITS)])


def _fill_noise_table():
    """Copy :func:`noise_quantiles` into the deviates' table.  O(4,096) time, O(4,096) memory (the quantiles)."""
    cdef Py_ssize_t i
    cdef double[::1] q = noise_quantiles()
    for i in range(1 << NOISE_BITS):
        _NOISE[i] = q[i]


_fill_noise_table()


cdef inline double _deviate(uint64_t key, Py_ssize_t feature) noexcept nogil:
    """Feature j's deviate under the node's ``noise_key``: the hash's top bits pick a quantile."""
    return _NOISE[noise_mix(key + <uint64_t> feature) >> (64 - NOISE_BITS)]


cdef double split_noise(uint64_t seed, Py_ssize_t node, Py_ssize_t feature) noexcept nogil:
    """A standard normal deviate (one of 4,096 quantiles), a function of (seed, node, feature) alone."""
    return _deviate(noise_key(seed, node), feature)


cdef bint choose_split(const double* hist, const FeatureSlots* fs, const uint8_t* feature_mask,
                       const SplitParams* params, SplitChoice* out, double* scratch, Py_ssize_t node) noexcept nogil:
    """The node's best split into ``out`` from its features' best gains and parent terms (:func:`scan_nodes`).

    Reductions in feature order, then the first candidate within the tie
    tolerance, found by rescanning the first feature whose best reaches it.
    With ``params.random_strength`` > 0 the feature is chosen with noise
    (``_split_noise.pxd``; ``node`` keys it, scratch[2d:3d] holds the median's
    work), then its own first candidate within the tolerance of its best.
    """
    cdef Py_ssize_t d = fs.d, j, k = 0, chosen = -1
    cdef double best = -1.0, scale = 0.0, threshold, term, median, noisy, top = 0.0, floor, spread
    cdef uint64_t key
    cdef const double* feat_best = scratch
    cdef const double* feat_parent = scratch + d
    cdef double* work = scratch + 2 * d
    for j in range(d):              # reductions in feature order: independent of the threads
        term = feat_parent[j]
        if term > scale:
            scale = term
        if feature_mask[j] and feat_best[j] > best:
            best = feat_best[j]
    if best > scale:
        scale = best
    if not best > params.tie_tolerance * scale:
        return False
    threshold = best - params.tie_tolerance * scale
    if params.random_strength > 0:
        for j in range(d):          # the features that can split: best gain above the no-split threshold
            if feature_mask[j] and feat_best[j] > params.tie_tolerance * scale:
                work[k] = feat_best[j]
                k += 1
        median = lower_median(work, k)
        spread = params.random_strength * median
        key = noise_key(params.noise_seed, node)
        # a feature whose best gain is below best − 2·spread·max|z| cannot win: no deviate drawn for it
        floor = best - 2.0 * spread * _NOISE[(1 << NOISE_BITS) - 1]
        for j in range(d):
            if feature_mask[j] and feat_best[j] > params.tie_tolerance * scale and feat_best[j] >= floor:
                noisy = feat_best[j] + spread * _deviate(key, j)
                if chosen < 0 or noisy > top:
                    chosen = j
                    top = noisy
        if _scan(hist, fs, chosen, params, feat_best[chosen] - params.tie_tolerance * scale, True, out, NULL) > 0:
            return True
    for j in range(d):
        if feature_mask[j] and feat_best[j] >= threshold:
            if _scan(hist, fs, j, params, threshold, True, out, NULL) > 0:
                return True
    return False


cdef bint find_best_split(double* hist, const FeatureSlots* fs, const uint8_t* feature_mask,
                          const SplitParams* params, SplitChoice* out, double* scratch, int n_threads,
                          const double* subtract, Py_ssize_t node_id) noexcept nogil:
    """The best split of a node from its (S, 3) histogram into ``out``; False when no split gains.

    See :func:`best_split`.  ``scratch`` holds 3·d doubles; ``node_id`` keys the noise.  ``subtract``
    (or NULL): first replace every feature's slots of ``hist`` by
    hist − subtract (the sibling subtraction, done feature by feature just
    before each feature is scanned; slots of no feature are left as they are).
    """
    cdef NodeScan node
    if fs.d == 0:
        return False
    node.hist = hist
    node.subtract = subtract
    node.scratch = scratch
    node.params = NULL
    node.mask = NULL
    scan_nodes(&node, 1, fs, feature_mask, params, n_threads)
    return choose_split(hist, fs, feature_mask, params, out, scratch, node_id)


def best_split(const double[:, ::1] hist,        # IN  (S, 3) Σg, Σh, count per slot of a node
               SlotLayout slots,
               const uint8_t[::1] feature_mask,   # IN  (d,) features this tree may split on
               double min_samples_leaf, double min_child_weight, double l2, double tie_tolerance,
               double[::1] out,                   # OUT (10,) gain, feature, bin, nan_left, GL, HL, CL, GR, HR, CR
               int n_threads=1,
               double cat_smooth=0.0, Py_ssize_t max_cat=C_MAX_EDGES + 1,
               uint64_t[::1] left_bins=None,      # OUT (4,) a categorical split's left bins (256 bits)
               double random_strength=0.0, uint64_t noise_seed=0, Py_ssize_t node=0,
               const int8_t[::1] monotone=None,   # IN  (d,) or None: each feature's sign, -1, 0 or +1
               double lo=-np.inf, double hi=np.inf, double cap=0.0):
    """The best split of a node from its histogram; returns False when no split gains.

    Candidates, in this order: feature j; for a numeric feature, bin
    b ≤ n_edges[j] (b = n_edges[j] only with NaN right: every value left,
    NaN right), NaN left before NaN right, and a node without NaN has one
    direction (NaN to the side with more rows); for a categorical feature,
    groups of its categories (see ``_scan_categorical``; ``out[2]`` is the
    group's size, ``left_bins`` its bins).  Gain
    G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), with both sides holding at least
    ``min_samples_leaf`` rows and ``min_child_weight`` curvature.  Gains
    within ``tie_tolerance`` × scale of the best (scale: the largest of the
    best gain and the features' parent terms) are ties, won by the first
    candidate; a best gain below that is no split.  ``random_strength`` > 0:
    the feature is chosen with noise keyed by (``noise_seed``, ``node``, feature)
    (see ``_split_noise.pxd``), then its first candidate within the tolerance
    of its own best.

    ``monotone`` (or None: no constraints) and the node's bounds [lo, hi]:
    the children's values are clamped to the bounds, a split of a feature
    against its sign is not allowed, and every gain (the parent term too)
    is the clamped values' −(2·G·w + (H+λ)·w²) (``_bounded_term``), from a
    scalar scan.  ``cap`` > 0 (``max_delta_step``): the bounds are
    intersected with [−cap, cap]; without ``monotone`` each gain term is
    G²/(H+λ) while its value is within them, else the clamped value's
    (``_capped_term``), and children both clamped to one bound do not split.

    O(S) time (plus O(K log K) per categorical feature of K categories):
    each feature's best gain and parent term (``prange`` over the features
    with ``n_threads`` when S is large), then the first candidate within the
    tolerance, found by rescanning only the first feature whose best reaches
    it (its gains recomputed identically).  O(d) scratch memory; the result
    does not depend on ``n_threads``.
    """
    cdef const FeatureSlots* fs = &slots.fs
    cdef SplitChoice choice
    cdef SplitParams params
    cdef bint found
    cdef Py_ssize_t v
    if hist.shape[0] != fs.n_slots or hist.shape[1] != 3 or feature_mask.shape[0] < fs.d or out.shape[0] < 10 \
            or (left_bins is not None and left_bins.shape[0] < 4):
        raise ValueError(f"best_split: hist must be ({fs.n_slots}, 3), feature_mask ({fs.d},), out (10,), "
                         f"left_bins (4,)")
    if fs.d == 0:
        return False
    if not random_strength >= 0:
        raise ValueError(f"best_split: random_strength must be >= 0, got {random_strength}")
    params = split_params(min_samples_leaf, min_child_weight, l2, tie_tolerance, cat_smooth, max_cat)
    params.random_strength = random_strength
    params.noise_seed = noise_seed
    if not cap >= 0:
        raise ValueError(f"best_split: cap must be >= 0 (0: none), got {cap}")
    if cap > 0:
        lo = lo if lo > -cap else -cap
        hi = hi if hi < cap else cap
    if monotone is not None or cap > 0:
        if monotone is not None and monotone.shape[0] != fs.d:
            raise ValueError(f"best_split: monotone must hold one sign per feature ({fs.d}), got {monotone.shape[0]}")
        if not lo <= hi:
            raise ValueError(f"best_split: expected bounds lo <= hi, got [{lo}, {hi}]")
        params.monotone = &monotone[0] if monotone is not None else NULL
        params.bounded = True
        params.lo = lo
        params.hi = hi
    scratch = np.empty(3 * fs.d)
    cdef double[::1] sc = scratch
    with nogil:
        found = find_best_split(<double*> &hist[0, 0], fs, &feature_mask[0], &params, &choice, &sc[0], n_threads,
                                NULL, node)
    if found:
        out[0] = choice.gain
        out[1] = <double> choice.feature
        out[2] = <double> choice.bin
        out[3] = 1.0 if choice.nan_left else 0.0
        out[4] = choice.left[0]
        out[5] = choice.left[1]
        out[6] = choice.left[2]
        out[7] = choice.right[0]
        out[8] = choice.right[1]
        out[9] = choice.right[2]
        if left_bins is not None:
            for v in range(4):
                left_bins[v] = choice.left_bins[v] if choice.categorical else 0
    return found


def feature_gains(double[:, ::1] hist,           # IN/OUT (S, 3) Σg, Σh, count per slot of a node
                  SlotLayout slots,
                  const uint8_t[::1] feature_mask,  # IN  (d,) features scanned (the others: parent term only)
                  double min_samples_leaf, double min_child_weight, double l2,
                  const double[:, ::1] subtract=None):  # IN  (S, 3) or None: taken from hist first
    """Each feature's best gain (−1: none allowed or masked out) and parent term G²/(H+λ), as (2, d).

    The scan :func:`best_split` runs before it picks a split.  With
    ``subtract``, every feature's slots of ``hist`` are first replaced by
    hist − subtract, feature by feature (the sibling subtraction of the
    in-memory grower).  O(S) time.
    """
    cdef const FeatureSlots* fs = &slots.fs
    cdef SplitParams params = split_params(min_samples_leaf, min_child_weight, l2, 0.0, 0.0, C_MAX_EDGES + 1)
    cdef NodeScan node
    if hist.shape[0] != fs.n_slots or hist.shape[1] != 3 or feature_mask.shape[0] != fs.d \
            or (subtract is not None and (subtract.shape[0] != fs.n_slots or subtract.shape[1] != 3)):
        raise ValueError(f"feature_gains: hist and subtract must be ({fs.n_slots}, 3) and feature_mask ({fs.d},)")
    out = np.empty((2, fs.d))
    cdef double[:, ::1] o = out
    if fs.d == 0:
        return out
    node.hist = &hist[0, 0]
    node.subtract = &subtract[0, 0] if subtract is not None else NULL
    node.scratch = &o[0, 0]
    node.params = NULL
    node.mask = NULL
    with nogil:
        scan_nodes(&node, 1, fs, &feature_mask[0], &params, 1)
    return out


def split_noise_deviates(uint64_t seed, Py_ssize_t node, Py_ssize_t d):
    """The noise deviates z_0..z_{d-1} of a node (``_split_noise.pxd``), for tests and references.

    O(d) time (a hash and a table lookup per feature), O(d) memory: the output.
    """
    out = np.empty(d)
    cdef double[::1] o = out
    cdef Py_ssize_t j
    for j in range(d):
        o[j] = split_noise(seed, node, j)
    return out


cdef void split_bounds(double lo, double hi, int sign, const SplitChoice* split, double l2,
                       double* out) noexcept nogil:
    """The bounds of a split's children, (left lo, left hi, right lo, right hi), from the node's [lo, hi].

    A split on a feature of ``sign`` ±1 bounds its children by the midpoint
    of their clamped values (sign +1: the left child's values below it, the
    right child's above; −1 the reverse); another split passes the node's
    bounds on.  O(1).
    """
    cdef double wl, wr, mid
    out[0] = lo
    out[1] = hi
    out[2] = lo
    out[3] = hi
    if sign == 0:
        return
    wl = _clamped(-split.left[0] / (split.left[1] + l2), lo, hi)
    wr = _clamped(-split.right[0] / (split.right[1] + l2), lo, hi)
    mid = (wl + wr) / 2.0
    if sign > 0:
        out[1] = mid if mid < hi else hi
        out[2] = mid if mid > lo else lo
    else:
        out[0] = mid if mid > lo else lo
        out[3] = mid if mid < hi else hi


def child_bounds(double lo, double hi, int sign, double left_g, double left_h, double right_g, double right_h,
                 double l2):
    """:func:`split_bounds` for the multi-pass search: a split's children's bounds as a 4-tuple.

    The same arithmetic as the in-memory grower's (one function), so both
    routes bound the same nodes alike.  O(1).
    """
    cdef SplitChoice split
    cdef double out[4]
    split.left[0] = left_g
    split.left[1] = left_h
    split.right[0] = right_g
    split.right[1] = right_h
    split_bounds(lo, hi, sign, &split, l2, out)
    return out[0], out[1], out[2], out[3]


def clamped(double v, double lo, double hi):
    """v clamped to [lo, hi] as the grower clamps its leaf values (comparisons only).  O(1)."""
    return _clamped(v, lo, hi)

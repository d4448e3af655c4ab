"""Histogram regression-tree kernels of the ``trees`` learner.

Design
------
A. Bin codes are uint8, stored **row-major** (n, d) (unlike ``stumps``): a
   node's rows are visited in index order, and a row's d codes share a cache
   line, where a feature-major layout costs one cache miss per row *and*
   feature on large data.  Code
   c = #{edges of j < x} in [0, 254] (at most 254 edges), and NaN gets the
   reserved code ``NAN_CODE`` = 255.  A split (j, b) sends a row right iff
   c > b, i.e. iff x > edges[b]: training (codes) and prediction (raw values)
   route every row the same way, exactly.
B. Rows are partitioned per node as in LightGBM: every block keeps a
   permutation ``idx`` of its rows in which each node owns a contiguous range
   [start, end).  Splitting a node is a stable in-place partition of its
   range (``partition``), so a node's rows stay in increasing order and the
   histogram of a node costs O(rows in node × features), not O(n × d).
C. ``node_histogram`` first gathers the node's gradient and Hessian into
   contiguous buffers, then builds the (g, h, count) histogram of every
   feature: the features are split into one contiguous group per thread
   (prange over groups), and each thread walks the node's rows, updating its
   features' histograms from the row's cache line.  Each feature's bins are
   summed by one thread in the node's row order: the result does not depend
   on ``n_threads``.  The sibling's histogram is the parent's minus this one
   (done by the caller, in NumPy, on (d, 256, 3) arrays).
D. Every buffer (idx, scratch, gathered gradients) is allocated once per fit
   and block by the caller; no kernel allocates memory proportional to n·d.
E. ``predict_trees`` walks a list of trees for each row, in parallel over
   rows (static schedule), accumulating Σ_t α_t v_t(x) in tree order -- the
   same floating-point operations, in the same order, as adding the trees'
   predictions one after another, so it equals that sum bitwise.
"""

from cython.parallel cimport prange
from libc.math cimport isnan
from libc.stdlib cimport free, malloc
from libc.stdint cimport uint8_t, int32_t

from rankcore._parallel cimport threads_for

import numpy as np

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define RC_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define RC_PREFETCH(p) ((void)0)
    #endif
    """
    void RC_PREFETCH(const void* p) noexcept nogil

cdef enum:
    AHEAD = 16          # rows prefetched ahead when the node's rows are not contiguous


ctypedef fused real_t:
    float
    double

#: The bin code of a missing value (NaN).
NAN_CODE = 255
cdef enum:
    C_NAN_CODE = 255

cdef enum:
    C_PARALLEL_ROWS = 65536

#: Rows below which :func:`partition` and the gather of :func:`node_histogram` stay on one thread.
PARALLEL_ROWS = C_PARALLEL_ROWS


def encode(const real_t[:, ::1] X,              # IN  (n, d) feature values (NaN allowed)
           const double[::1] edges,             # IN  concatenated sorted edges of every feature
           const Py_ssize_t[::1] offsets,       # IN  (d + 1,) feature j's edges: edges[offsets[j]:offsets[j+1]]
           uint8_t[:, ::1] codes,               # OUT (n, d) #{edges of j < x}, or NAN_CODE for NaN
           int n_threads=1):
    """Bin codes of every value, NaN → ``NAN_CODE``.  O(n·d·log B) time, no extra memory; parallel over rows."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], j, r, lo, hi, mid, base
    cdef double x
    n_threads = threads_for(<double> n * d, n_threads, 65536.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for j in range(d):
                x = X[r, j]
                if isnan(x):
                    codes[r, j] = C_NAN_CODE
                    continue
                base = offsets[j]
                lo = 0
                hi = offsets[j + 1] - base
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if edges[base + mid] < x:
                        lo = mid + 1
                    else:
                        hi = mid
                codes[r, j] = <uint8_t> lo


def node_histogram(const uint8_t[:, ::1] codes,   # IN  (n, d) bin codes of the block
                   const double[::1] g,           # IN  (n,) gradient of the block's rows
                   const double[::1] h,           # IN  (n,) Hessian (or weight) of the block's rows
                   const int32_t[::1] idx,        # IN  (n,) row permutation; the node owns idx[start:end]
                   Py_ssize_t start, Py_ssize_t end,
                   double[::1] og,                # SCRATCH (n,) gathered gradient
                   double[::1] oh,                # SCRATCH (n,) gathered Hessian
                   double[:, :, ::1] hist,        # OUT (d, 256, 3) Σg, Σh, count per (feature, code); zeroed here
                   int n_threads=1,
                   bint identity=False,           # idx[start:end] is start..end-1 (the root): no gather
                   bint unit_h=False):            # h is all ones: Σh is the count (not accumulated)
    """(g, h, count) histogram of the rows idx[start:end], per feature and bin code.

    O(m·d) time for m = end − start rows, O(d·256) output, no allocation.
    The features are split into one contiguous group per thread; each
    thread walks the rows in order and updates its group's histograms, so
    every feature is summed in row order by one thread: bitwise independent
    of ``n_threads``.
    """
    cdef Py_ssize_t d = codes.shape[1], m = end - start, i, j, r, t
    cdef int T
    cdef const double* gg
    cdef const double* hh
    cdef const int32_t* rows = NULL
    hist[:, :, :] = 0.0
    if m <= 0:
        return
    with nogil:
        if identity:
            gg = &g[start]
            hh = &h[start]
        else:
            # the gather is a copy: any split of the rows over threads gives the same arrays
            T = threads_for(<double> m, n_threads, C_PARALLEL_ROWS)
            for i in prange(m, schedule="static", num_threads=T):
                if i + AHEAD < m:
                    RC_PREFETCH(&g[idx[start + i + AHEAD]])
                og[i] = g[idx[start + i]]
                if not unit_h:
                    oh[i] = h[idx[start + i]]
            gg = &og[0]
            hh = &oh[0]
            rows = &idx[start]
        T = threads_for(<double> m * d, n_threads, 131072.0)
        if T > d:
            T = <int> d
        for t in prange(T, schedule="static", chunksize=1, num_threads=T):
            _group_histogram(&codes[0, 0], d, (t * d) // T, ((t + 1) * d) // T, rows, start, gg, hh, m, unit_h,
                             &hist[0, 0, 0])
        if unit_h:
            for j in range(d):
                for r in range(256):
                    hist[j, r, 1] = hist[j, r, 2]


cdef inline void _group_histogram(const uint8_t* codes, Py_ssize_t d, Py_ssize_t j0, Py_ssize_t j1,
                                  const int32_t* rows, Py_ssize_t start, const double* gg, const double* hh,
                                  Py_ssize_t m, bint unit_h, double* hist) noexcept nogil:
    """Histograms of features [j0, j1) over m rows (row rows[i], or start + i without rows), in row order."""
    cdef Py_ssize_t i, j, r
    cdef const uint8_t* row
    cdef double* hp
    cdef double gv, hv
    for i in range(m):
        if rows != NULL:
            r = rows[i]
            if i + AHEAD < m:          # the node's rows are scattered: fetch a later row's codes now
                RC_PREFETCH(codes + rows[i + AHEAD] * d + j0)
        else:
            r = start + i
        row = codes + r * d
        gv = gg[i]
        if unit_h:
            for j in range(j0, j1):
                hp = hist + (j * 256 + row[j]) * 3
                hp[0] += gv
                hp[2] += 1.0
        else:
            hv = hh[i]
            for j in range(j0, j1):
                hp = hist + (j * 256 + row[j]) * 3
                hp[0] += gv
                hp[1] += hv
                hp[2] += 1.0


def partition(const uint8_t[:, ::1] codes,   # IN  (n, d) bin codes of the block
              int32_t[::1] idx,              # IN/OUT (n,) row permutation; idx[start:end] is partitioned
              int32_t[::1] scratch,          # SCRATCH (n,)
              Py_ssize_t start, Py_ssize_t end,
              Py_ssize_t feature, Py_ssize_t bin, bint nan_left,
              int n_threads=1,
              double min_parallel=PARALLEL_ROWS):   # rows from which the threads share the work
    """Stable partition of idx[start:end]: rows going left (code ≤ bin, or NaN when ``nan_left``) first.

    Returns the number of rows going left.  O(m) time for m = end − start
    rows, no allocation beyond T counters.  With T > 1 threads the range is
    cut into T contiguous chunks: each thread splits its chunk into scratch
    (its left rows from the chunk's front, its right rows from the back),
    then, once every chunk's count is known, copies them to their places --
    the left rows of chunk 0, 1, ... then the right rows of chunk 0, 1, ... --
    which is the order of the one-thread pass: the result does not depend on
    ``n_threads``.
    """
    cdef Py_ssize_t m = end - start, nl = 0, t
    cdef int T
    cdef Py_ssize_t* before
    cdef const uint8_t* cp = &codes[0, 0] if codes.shape[0] > 0 else NULL
    cdef Py_ssize_t d = codes.shape[1]
    if m <= 0:
        return 0
    T = threads_for(<double> m, n_threads, min_parallel)
    if T > m:
        T = <int> m
    if T <= 1:
        with nogil:
            nl = _split_chunk(cp, d, &idx[0], &scratch[0], start, start, end, feature, bin, nan_left)
            _place_chunk(&idx[0], &scratch[0], start, start, end, nl, start, start + nl)
        return nl
    # before[t]: left rows of the chunks before chunk t (before[T] = all of them)
    before = <Py_ssize_t*> malloc((T + 1) * sizeof(Py_ssize_t))
    if before == NULL:
        raise MemoryError("partition: no memory for the per-thread counts")
    try:
        with nogil:
            for t in prange(T, schedule="static", chunksize=1, num_threads=T):
                before[t + 1] = _split_chunk(cp, d, &idx[0], &scratch[0], start, start + (t * m) // T,
                                             start + ((t + 1) * m) // T, feature, bin, nan_left)
            before[0] = 0
            for t in range(T):
                before[t + 1] += before[t]
            nl = before[T]
            for t in prange(T, schedule="static", chunksize=1, num_threads=T):
                # chunk t's right rows follow all left rows and the right rows of chunks < t
                _place_chunk(&idx[0], &scratch[0], start, start + (t * m) // T, start + ((t + 1) * m) // T,
                             before[t + 1] - before[t], start + before[t], start + nl + (t * m) // T - before[t])
    finally:
        free(before)
    return nl


cdef inline Py_ssize_t _split_chunk(const uint8_t* codes, Py_ssize_t d, const int32_t* idx, int32_t* scratch,
                                    Py_ssize_t start, Py_ssize_t s, Py_ssize_t e, Py_ssize_t feature,
                                    Py_ssize_t bin, bint nan_left) noexcept nogil:
    """Rows idx[s:e] into scratch[s−start:e−start]: left ones from the front in order, right ones from the back.

    Returns the number of left rows.
    """
    cdef Py_ssize_t i, r, nl = 0, back = e - start - 1, left
    cdef int32_t* front = scratch + (s - start)
    cdef uint8_t c
    for i in range(s, e):
        r = idx[i]
        if i + AHEAD < e:
            RC_PREFETCH(codes + idx[i + AHEAD] * d + feature)
        c = codes[r * d + feature]
        left = (c <= bin) if c != C_NAN_CODE else nan_left
        # branch-free (the side is a coin flip the predictor cannot learn): write the row to
        # both ends and advance one; a slot written in vain is overwritten later or is the
        # slot the other end writes the same row to (front + nl <= scratch + back throughout)
        front[nl] = <int32_t> r
        scratch[back] = <int32_t> r
        nl += left
        back -= 1 - left
    return nl


cdef inline void _place_chunk(int32_t* idx, const int32_t* scratch, Py_ssize_t start, Py_ssize_t s, Py_ssize_t e,
                              Py_ssize_t nl, Py_ssize_t left_at, Py_ssize_t right_at) noexcept nogil:
    """Copy a chunk's split rows back: its nl left rows to idx[left_at:], its right rows (in order) to idx[right_at:]."""
    cdef Py_ssize_t k, nr = (e - s) - nl
    for k in range(nl):
        idx[left_at + k] = scratch[s - start + k]
    for k in range(nr):
        idx[right_at + k] = scratch[e - start - 1 - k]


def predict_codes(const uint8_t[:, ::1] codes,    # IN  (n, d) bin codes
                  const int32_t[::1] feature,     # IN  (nodes,) split feature
                  const int32_t[::1] bins,        # IN  (nodes,) split bin: right iff code > bin
                  const uint8_t[::1] nan_left,    # IN  (nodes,) NaN goes left
                  const int32_t[::1] left,        # IN  (nodes,) left child, −1 at a leaf
                  const int32_t[::1] right,       # IN  (nodes,) right child
                  const double[::1] value,        # IN  (nodes,) leaf value
                  double[::1] out,                # OUT (n,)
                  int n_threads=1):
    """One tree's leaf value for every encoded row.  O(n·depth) time, parallel over rows."""
    cdef Py_ssize_t n = codes.shape[0], r, node
    cdef uint8_t c
    n_threads = threads_for(<double> n, n_threads, 65536.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            node = 0
            while left[node] >= 0:
                c = codes[r, feature[node]]
                if c == C_NAN_CODE:
                    node = left[node] if nan_left[node] else right[node]
                elif c > bins[node]:
                    node = right[node]
                else:
                    node = left[node]
            out[r] = value[node]


def predict_trees(const real_t[:, ::1] X,         # IN  (n, d) raw feature values (NaN allowed)
                  const int32_t[::1] feature,     # IN  all trees' nodes, concatenated
                  const double[::1] threshold,    # IN  right iff x > threshold
                  const uint8_t[::1] nan_left,    # IN  NaN goes left
                  const int32_t[::1] left,        # IN  left child (index within the tree), −1 at a leaf
                  const int32_t[::1] right,       # IN  right child
                  const double[::1] value,        # IN  leaf values
                  const Py_ssize_t[::1] roots,    # IN  (T,) offset of each tree's node 0
                  const double[::1] alpha,        # IN  (T,) coefficient of each tree
                  double[::1] out,                # OUT (n,) Σ_t α_t v_t(x), summed in tree order
                  int n_threads=1):
    """Σ_t α_t h_t(x) for every row.  O(n·Σ_t depth_t) time, no allocation, parallel over rows.

    Per row the sum starts at 0 and adds α_t·v_t in tree order: bitwise the
    result of ``s += alpha_t * tree_t.predict(X)`` tree after tree.
    """
    cdef Py_ssize_t n = X.shape[0], T = roots.shape[0], r, t, node, base
    cdef double s, x
    n_threads = threads_for(<double> n * T, n_threads, 16384.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            s = 0.0
            for t in range(T):
                base = roots[t]
                node = 0
                while left[base + node] >= 0:
                    x = X[r, feature[base + node]]
                    if isnan(x):
                        node = left[base + node] if nan_left[base + node] else right[base + node]
                    elif x > threshold[base + node]:
                        node = right[base + node]
                    else:
                        node = left[base + node]
                s = s + alpha[t] * value[base + node]
            out[r] = s


cdef double _scan_feature(const double[:, :, ::1] hist, Py_ssize_t j, Py_ssize_t n_edges_j,
                          double min_samples_leaf, double min_child_weight, double l2,
                          double threshold, bint find, double* out, double* parent_out) noexcept nogil:
    """One feature's candidates, in order (bin, then NaN left before NaN right).

    ``parent_out`` (if not NULL) receives the feature's parent term
    G²/(H+λ) (0 when H+λ <= 0), which scales the tie tolerance.
    ``find`` False: the feature's best gain (-1 if no candidate is allowed).
    ``find`` True: the first candidate whose gain is >= ``threshold`` is
    written to ``out`` (10 values, see ``best_split``) and 1 is returned,
    else 0.  Both modes compute every gain with the same operations in the
    same order, so a gain found in the first mode is met again in the second.
    O(256).
    """
    cdef Py_ssize_t b, nb
    cdef int side
    cdef double best = -1.0, gain, parent
    cdef double cg, ch, cc, ng, nh, nc, tg, th, tc, lg, lh, lc, rg, rh, rc
    cdef bint has_nan
    ng = hist[j, C_NAN_CODE, 0]
    nh = hist[j, C_NAN_CODE, 1]
    nc = hist[j, C_NAN_CODE, 2]
    tg = 0.0
    th = 0.0
    tc = 0.0
    for b in range(C_NAN_CODE):         # the same order as a cumulative sum over the bins
        tg = tg + hist[j, b, 0]
        th = th + hist[j, b, 1]
        tc = tc + hist[j, b, 2]
    tg = tg + ng
    th = th + nh
    tc = tc + nc
    parent = tg * tg / (th + l2) if th + l2 > 0 else 0.0
    if parent_out != NULL:
        parent_out[0] = parent
    has_nan = nc > 0
    nb = n_edges_j
    if nb > C_NAN_CODE - 1:
        nb = C_NAN_CODE - 1
    cg = 0.0
    ch = 0.0
    cc = 0.0
    for b in range(nb + 1):
        cg = cg + hist[j, b, 0]
        ch = ch + hist[j, b, 1]
        cc = cc + hist[j, b, 2]
        for side in range(2):           # 0: NaN left, 1: NaN right
            if b == nb and (side == 0 or not has_nan):
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
            rg = tg - lg
            rh = th - lh
            rc = tc - lc
            if (lc < min_samples_leaf or rc < min_samples_leaf or lh < min_child_weight
                    or rh < min_child_weight or lh + l2 <= 0 or rh + l2 <= 0):
                continue
            gain = lg * lg / (lh + l2) + rg * rg / (rh + l2) - parent
            if not find:
                if gain > best:
                    best = gain
            elif gain >= threshold:
                out[0] = gain
                out[1] = <double> j
                out[2] = <double> b
                out[3] = 1.0 if side == 0 else 0.0
                out[4] = lg
                out[5] = lh
                out[6] = lc
                out[7] = rg
                out[8] = rh
                out[9] = rc
                return 1.0
    return best if not find else 0.0


cdef inline double _parent_term(const double[:, :, ::1] hist, Py_ssize_t j, double l2) noexcept nogil:
    """G²/(H+λ) of a feature not scanned (masked out), summed as ``_scan_feature`` sums it."""
    cdef Py_ssize_t b
    cdef double tg = 0.0, th = 0.0
    for b in range(C_NAN_CODE):
        tg = tg + hist[j, b, 0]
        th = th + hist[j, b, 1]
    tg = tg + hist[j, C_NAN_CODE, 0]
    th = th + hist[j, C_NAN_CODE, 1]
    return tg * tg / (th + l2) if th + l2 > 0 else 0.0


def best_split(const double[:, :, ::1] hist,      # IN  (d, 256, 3) Σg, Σh, count per (feature, code) of a node
               const Py_ssize_t[::1] n_edges,     # IN  (d,) candidate bins of each feature
               const uint8_t[::1] feature_mask,   # IN  (d,) features this tree may split on
               double min_samples_leaf, double min_child_weight, double l2, double tie_tolerance,
               double[::1] out,                   # OUT (10,) gain, feature, bin, nan_left, GL, HL, CL, GR, HR, CR
               int n_threads=1):
    """The best split of a node from its histogram; returns False when no split gains.

    Candidates, in this order: feature j, bin b ≤ n_edges[j] (b = n_edges[j]
    only with NaN right: every value left, NaN right), NaN left before NaN
    right; a node without NaN has one direction (NaN to the side with more
    rows).  Gain G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), with both sides
    holding at least ``min_samples_leaf`` rows and ``min_child_weight``
    curvature.  Gains within ``tie_tolerance`` × scale of the best (scale:
    the largest of the best gain and the features' parent terms) are ties,
    won by the first candidate; a best gain below that is no split.

    O(d·256) time: each feature's best gain and parent term (``prange`` over
    the features with ``n_threads``), then the first candidate within the
    tolerance, found by rescanning only the first feature whose best reaches
    it (its gains recomputed identically).  O(d) scratch memory; the result
    does not depend on ``n_threads``.
    """
    cdef Py_ssize_t d = hist.shape[0], j
    cdef double best = -1.0, scale = 0.0, threshold, term
    cdef bint found = False
    cdef int T
    if hist.shape[1] < C_NAN_CODE + 1 or hist.shape[2] < 3 or n_edges.shape[0] < d or feature_mask.shape[0] < d \
            or out.shape[0] < 10:
        raise ValueError("best_split: hist must be (d, 256, 3), n_edges and feature_mask (d,), out (10,)")
    if d == 0:
        return False
    cdef double* feat_best = <double*>malloc(2 * d * sizeof(double))
    if feat_best == NULL:
        raise MemoryError()
    cdef double* feat_parent = feat_best + d
    T = threads_for(<double> d * C_NAN_CODE, n_threads, 16384.0)
    try:
        with nogil:
            for j in prange(d, num_threads=T, schedule="static"):
                if feature_mask[j]:
                    feat_best[j] = _scan_feature(hist, j, n_edges[j], min_samples_leaf, min_child_weight, l2,
                                                 0.0, False, NULL, &feat_parent[j])
                else:
                    feat_parent[j] = _parent_term(hist, j, l2)
                    feat_best[j] = -1.0
            for j in range(d):              # reductions in feature order: independent of the threads
                term = feat_parent[j]
                if term > scale:
                    scale = term
                if feature_mask[j] and feat_best[j] > best:
                    best = feat_best[j]
            if best > scale:
                scale = best
            if best > tie_tolerance * scale:
                threshold = best - tie_tolerance * scale
                for j in range(d):
                    if feature_mask[j] and feat_best[j] >= threshold:
                        if _scan_feature(hist, j, n_edges[j], min_samples_leaf, min_child_weight, l2,
                                         threshold, True, &out[0], NULL) > 0:
                            found = True
                            break
    finally:
        free(feat_best)
    return found

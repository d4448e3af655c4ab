# Bootstrap replicates as weights over one sorted order, and DeLong's placement values.
#
# Design
# ------
# A. Sort once.  A replicate is a vector of row multiplicities (multinomial
#    counts); a repeated row is tied with its original, so the sorted order of
#    the data is the sorted order of every replicate, and a metric's weighted
#    tie-group walk (_weighted.pyx) evaluates a replicate in O(rows walked)
#    without sorting anything.
# B. Multinomial counts drawn sequentially, in the sorted order.  The counts
#    of a class's rows, highest score first, come from one *stream*: with m
#    draws left for R rows, the next c rows receive Binomial(m, c/R) draws in
#    all -- the exact conditional law of a multinomial, so the stream yields
#    exactly Multinomial(m; 1/R, ..., 1/R).  Rows are taken in blocks of
#    BLOCK: one binomial per block, then its draws are placed on the block's
#    rows one by one (uniform, unbiased: a full block has 256 rows, so 8 bits
#    of a random word pick a row exactly and one word places two draws), in an
#    L1-resident buffer.  A tie
#    group of at least BLOCK rows of a class gets its total from one binomial.
#    So a replicate costs O(rows walked) with about one cheap random number
#    per row, and the top-of-the-list metrics, which stop early, never draw
#    the weights of the rows below what they read.
# C. Stratified (the default) fixes each class's total: I draws over the
#    positives, K over the negatives, as pROC's boot.stratified.  Otherwise the
#    positives' total is first drawn as Binomial(n, I/n), then each class
#    stream as above: together exactly Multinomial(n; 1/n, ..., 1/n) over all rows.
# D. Seeded per replicate: replicate b's streams are seeded from (seed, b)
#    only (SplitMix64, Steele, Lea & Flood 2014), so the replicates do not
#    depend on how they are spread over threads.  Replicates run in a prange
#    without the GIL (static schedule; every one writes its own slot).
# E. The binomial sampler is inversion: from 0 when the mean is below 16,
#    else outward from the mode (the next outcome is the likelier neighbour),
#    O(1 + sd) steps; both orders are fixed, so each is an exact inversion.
#
# Complexity: a replicate of a metric that walks G groups covering r rows
# costs O(G + r) time; memory is O(BLOCK) per thread plus the output.

from cpython.exc cimport PyErr_CheckSignals
from cython.parallel cimport prange
from libc.math cimport exp, floor, lgamma, log, log1p
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from .sorted_helpers cimport lowest_of
from ._weighted cimport GroupMetric, GroupWalk
from rankcore._parallel cimport threads_for

import numpy as np

#: Replicates per thread between two looks for a pending signal (a few milliseconds each on 10^5 rows).
_SLICE = 64

cdef enum:
    BLOCK = 256     # rows per block of a stream (Design B): a 1 KiB buffer

# ---------------------------------------------------------------------------
# Random numbers: SplitMix64, one state per stream
# ---------------------------------------------------------------------------

cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _next(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL
    return _mix(state[0])


cdef inline double _uniform(uint64_t* state) noexcept nogil:
    """Uniform in [0, 1) with 53 random bits."""
    return (_next(state) >> 11) * (1.0 / 9007199254740992.0)


cdef inline uint32_t _below(uint64_t* state, uint32_t bound) noexcept nogil:
    """Uniform integer in [0, bound), unbiased (Lemire's multiply-shift with rejection)."""
    cdef uint64_t m = (_next(state) & 0xFFFFFFFFULL) * bound
    cdef uint32_t low = <uint32_t> m, threshold
    if low < bound:
        threshold = (<uint32_t> (-bound)) % bound
        while low < threshold:
            m = (_next(state) & 0xFFFFFFFFULL) * bound
            low = <uint32_t> m
    return <uint32_t> (m >> 32)


cdef inline uint64_t _stream_seed(uint64_t seed, int64_t replicate, int stream) noexcept nogil:
    return _mix(seed ^ _mix(<uint64_t> replicate * 4 + <uint64_t> stream + 1))


# ---------------------------------------------------------------------------
# Binomial(m, q)
# ---------------------------------------------------------------------------

cdef int64_t _binomial(uint64_t* state, int64_t m, double q) noexcept nogil:
    """One Binomial(m, q) draw by inversion (Design E)."""
    cdef double u, r, pk, pm, pu, pd, pu_next, pd_next, mean
    cdef int64_t k, mode, lo, hi
    if m <= 0 or q <= 0.0:
        return 0
    if q >= 1.0:
        return m
    if q > 0.5:
        return m - _binomial(state, m, 1.0 - q)
    mean = m * q
    r = q / (1.0 - q)
    u = _uniform(state)
    if mean < 16.0:
        pk = exp(m * log1p(-q))
        k = 0
        while u > pk and k < m:
            u -= pk
            k += 1
            pk *= r * (m - k + 1) / k
        return k
    mode = <int64_t> floor((m + 1) * q)
    if mode > m:
        mode = m
    pm = exp(lgamma(m + 1.0) - lgamma(mode + 1.0) - lgamma(m - mode + 1.0)
             + mode * log(q) + (m - mode) * log1p(-q))
    u -= pm
    if u <= 0.0:
        return mode
    lo = mode
    hi = mode
    pu = pm
    pd = pm
    while True:
        # the next outcome up and down, from the last probability on each side
        pu_next = pu * r * (m - hi) / (hi + 1) if hi < m else 0.0
        pd_next = pd * lo / ((m - lo + 1) * r) if lo > 0 else 0.0
        if pu_next <= 0.0 and pd_next <= 0.0:
            return mode  # only rounding mass is left
        if pu_next >= pd_next:
            hi += 1
            pu = pu_next
            u -= pu
            if u <= 0.0:
                return hi
        else:
            lo -= 1
            pd = pd_next
            u -= pd
            if u <= 0.0:
                return lo


def binomial_draws(int64_t m, double q, Py_ssize_t size, uint64_t seed):
    """``size`` Binomial(m, q) draws of the sampler (for the tests' distribution checks).

    O(size·(1 + sd)) time for sd = √(m·q·(1 − q)) (Design E), O(size) memory: the output.
    """
    out = np.empty(size, dtype=np.int64)
    cdef int64_t[::1] o = out
    cdef uint64_t state = _mix(seed)
    cdef Py_ssize_t i
    with nogil:
        for i in range(size):
            o[i] = _binomial(&state, m, q)
    return out


# ---------------------------------------------------------------------------
# Streams: multinomial counts of one class's rows, in order (Design B)
# ---------------------------------------------------------------------------

cdef struct Stream:
    uint64_t state
    int64_t draws           # draws left
    int64_t rows            # rows left (not yet in the buffer)
    int32_t buf[BLOCK]      # counts of the current block's rows
    int pos                 # next unread row of the buffer
    int filled              # rows in the buffer


cdef inline void _stream_init(Stream* s, uint64_t state, int64_t draws, int64_t rows) noexcept nogil:
    s.state = state
    s.draws = draws
    s.rows = rows
    s.pos = 0
    s.filled = 0


cdef inline void _refill(Stream* s) noexcept nogil:
    cdef int b = BLOCK if s.rows > BLOCK else <int> s.rows
    cdef int64_t x = _binomial(&s.state, s.draws, (<double> b) / s.rows), t
    cdef uint64_t bits
    s.draws -= x
    s.rows -= b
    memset(s.buf, 0, b * sizeof(int32_t))
    if b == BLOCK:
        # a full block: each 64-bit random word places two draws (BLOCK is a power of two: exact)
        t = 0
        while t + 1 < x:
            bits = _next(&s.state)
            s.buf[bits & (BLOCK - 1)] += 1
            s.buf[(bits >> 32) & (BLOCK - 1)] += 1
            t += 2
        if t < x:
            s.buf[_next(&s.state) & (BLOCK - 1)] += 1
    else:
        for t in range(x):
            s.buf[_below(&s.state, <uint32_t> b)] += 1
    s.pos = 0
    s.filled = b


cdef inline int64_t _take_one(Stream* s) noexcept nogil:
    """The count of the stream's next row (the common case of an untied score)."""
    if s.pos == s.filled:
        _refill(s)
    s.pos += 1
    return s.buf[s.pos - 1]


cdef inline int64_t _take(Stream* s, int64_t c) noexcept nogil:
    """Total count of the stream's next ``c`` rows."""
    cdef int64_t total = 0, x
    cdef int t
    while c > 0:
        if s.pos == s.filled:
            if c >= BLOCK:  # a long run (a large tie group): one binomial for all of it
                x = _binomial(&s.state, s.draws, (<double> c) / s.rows)
                s.draws -= x
                s.rows -= c
                return total + x
            _refill(s)
        t = s.filled - s.pos
        if t > c:
            t = <int> c
        while t > 0:
            total += s.buf[s.pos]
            s.pos += 1
            t -= 1
            c -= 1
    return total


cdef inline void _class_streams(Stream* sp, Stream* sn, uint64_t seed, int64_t b,
                                int64_t n_pos, int64_t n_neg, bint stratified) noexcept nogil:
    """The two class streams of replicate b (Design C)."""
    cdef int64_t total_pos = n_pos
    cdef uint64_t state
    if not stratified:
        state = _stream_seed(seed, b, 2)
        total_pos = _binomial(&state, n_pos + n_neg, (<double> n_pos) / (n_pos + n_neg))
    _stream_init(sp, _stream_seed(seed, b, 0), total_pos, n_pos)
    _stream_init(sn, _stream_seed(seed, b, 1), n_pos + n_neg - total_pos, n_neg)


# ---------------------------------------------------------------------------
# One scoring: replicates of a metric over the tie groups of its sorted order
# ---------------------------------------------------------------------------

cdef inline bint _step(GroupMetric metric, GroupWalk* w, double p, double n) noexcept nogil:
    """Feed one tie group to the walk (an empty one changes nothing); True when the metric is done."""
    if p + n == 0.0:
        return False
    w.done = metric.add(w, p, n)
    w.tp += p
    w.fp += n
    return w.done


cdef double _walk_replicate(GroupMetric metric, const int64_t* pos_size, const int64_t* neg_size,
                            Py_ssize_t n_groups, int64_t n_pos, int64_t n_neg, uint64_t seed,
                            int64_t b, bint stratified) noexcept nogil:
    cdef Stream sp, sn
    cdef GroupWalk w
    cdef Py_ssize_t g
    cdef double p, n
    _class_streams(&sp, &sn, seed, b, n_pos, n_neg, stratified)
    w.total_pos = <double> sp.draws
    w.total_neg = <double> sn.draws
    w.tp = 0.0
    w.fp = 0.0
    metric.start(&w)
    for g in range(n_groups):
        if pos_size[g] + neg_size[g] == 1:  # an untied row: no loop
            if pos_size[g]:
                p = <double> _take_one(&sp)
                n = 0.0
            else:
                p = 0.0
                n = <double> _take_one(&sn)
        else:
            p = <double> _take(&sp, pos_size[g]) if pos_size[g] > 0 else 0.0
            n = <double> _take(&sn, neg_size[g]) if neg_size[g] > 0 else 0.0
        if _step(metric, &w, p, n):
            break
    return metric.finish(&w)


def _group_sizes(pos_size, neg_size):
    ps = np.ascontiguousarray(pos_size, dtype=np.int64)
    ns = np.ascontiguousarray(neg_size, dtype=np.int64)
    if ps.ndim != 1 or ps.shape != ns.shape or (ps < 0).any() or (ns < 0).any():
        raise ValueError("pos_size, neg_size: expected two 1-D arrays of counts >= 0 of one length")
    return ps, ns


def bootstrap_groups(GroupMetric metric, pos_size, neg_size, uint64_t seed, int64_t n_boot,
                     bint stratified=True, int n_threads=1, int64_t first=0):
    """The metric on bootstrap replicates ``first .. first + n_boot - 1`` of one sorted scoring.

    Parameters
    ----------
    metric : GroupMetric
    pos_size, neg_size : int64 arrays, shape (n_groups,)
        The number of positive and of negative rows tied at each distinct
        score, highest score first (the tie groups of the sorted scores).
    seed : int
        64-bit key; replicate b depends on (seed, b) only.
    n_boot : int
    stratified : bool
        Resample each class on its own (fixed I and K) or all rows together.
    n_threads : int
        Replicates run in parallel, without the GIL.

    Returns
    -------
    ndarray of float64, shape (n_boot,)
        NaN where the metric is undefined on a replicate.

    O(n_boot · rows walked) time (a walk stops where the metric stops
    reading), O(n_threads · BLOCK) scratch memory; no sort.
    """
    ps, ns = _group_sizes(pos_size, neg_size)
    cdef const int64_t[::1] pv = ps
    cdef const int64_t[::1] nv = ns
    cdef int64_t n_pos = int(ps.sum()), n_neg = int(ns.sum())
    cdef Py_ssize_t n_groups = ps.shape[0]
    if n_pos < 1 or n_neg < 1:
        raise ValueError(f"pos_size, neg_size: expected both classes, got {n_pos} positive and {n_neg} negative rows")
    out = np.empty(n_boot, dtype=np.float64)
    cdef double[::1] o = out
    cdef int64_t b
    cdef int threads = threads_for(<double> n_boot * (n_pos + n_neg), n_threads, 200000.0)
    cdef const int64_t* pp = &pv[0] if n_groups > 0 else NULL
    cdef const int64_t* nn = &nv[0] if n_groups > 0 else NULL
    cdef int64_t start = 0, stop
    while start < n_boot:                   # in slices, Ctrl-C heard between them (each replicate its own seed)
        stop = min(n_boot, start + _SLICE * threads)
        with nogil:
            for b in prange(start, stop, num_threads=threads, schedule="static"):
                o[b] = _walk_replicate(metric, pp, nn, n_groups, n_pos, n_neg, seed, first + b, stratified)
        PyErr_CheckSignals()
        start = stop
    return out


def bootstrap_group_weights(pos_size, neg_size, uint64_t seed, int64_t first, int64_t count,
                            bint stratified=True):
    """The tie-group weights of replicates ``first .. first + count - 1`` (the same as :func:`bootstrap_groups` walks).

    Returns
    -------
    pos_weight, neg_weight : ndarray of float64, shape (count, n_groups)
        Every group's weight (drawn to the bottom; no early stop).

    O(count · n) time and O(count · n_groups) memory: for metrics without a
    weighted kernel (evaluated on these weights in Python) and the tests.
    """
    ps, ns = _group_sizes(pos_size, neg_size)
    cdef const int64_t[::1] pv = ps
    cdef const int64_t[::1] nv = ns
    cdef int64_t n_pos = int(ps.sum()), n_neg = int(ns.sum())
    cdef Py_ssize_t n_groups = ps.shape[0], g
    if n_pos < 1 or n_neg < 1:
        raise ValueError(f"pos_size, neg_size: expected both classes, got {n_pos} positive and {n_neg} negative rows")
    pw = np.zeros((count, n_groups), dtype=np.float64)
    nw = np.zeros((count, n_groups), dtype=np.float64)
    cdef double[:, ::1] po = pw
    cdef double[:, ::1] no = nw
    cdef Stream sp, sn
    cdef int64_t b
    with nogil:
        for b in range(count):
            _class_streams(&sp, &sn, seed, first + b, n_pos, n_neg, stratified)
            for g in range(n_groups):
                if pv[g] > 0:
                    po[b, g] = <double> _take(&sp, pv[g])
                if nv[g] > 0:
                    no[b, g] = <double> _take(&sn, nv[g])
    return pw, nw


# ---------------------------------------------------------------------------
# Several scorings of the same rows: one row-weight vector per replicate
# ---------------------------------------------------------------------------

cdef void _row_weights(int32_t* w, const int64_t* pos_rows, int64_t n_pos, const int64_t* neg_rows,
                       int64_t n_neg, uint64_t seed, int64_t b, bint stratified) noexcept nogil:
    """w[row] = the multiplicity of ``row`` in replicate b (the streams of Design B, in row order)."""
    cdef Stream sp, sn
    cdef int64_t t
    _class_streams(&sp, &sn, seed, b, n_pos, n_neg, stratified)
    for t in range(n_pos):
        w[pos_rows[t]] = <int32_t> _take_one(&sp)
    for t in range(n_neg):
        w[neg_rows[t]] = <int32_t> _take_one(&sn)


cdef double _walk_rows(GroupMetric metric, const int32_t* weight, const int64_t* order,
                       const int64_t* ends, Py_ssize_t n_groups, const signed char* y,
                       double total_pos, double total_neg) noexcept nogil:
    """The metric over one scoring's tie groups (rows ``order[ends[g-1]:ends[g]]``) with row weights."""
    cdef GroupWalk w
    cdef Py_ssize_t g, t, start = 0
    cdef double p, n
    cdef int64_t row
    w.total_pos = total_pos
    w.total_neg = total_neg
    w.tp = 0.0
    w.fp = 0.0
    metric.start(&w)
    for g in range(n_groups):
        p = 0.0
        n = 0.0
        for t in range(start, ends[g]):
            row = order[t]
            if y[row]:
                p += weight[row]
            else:
                n += weight[row]
        start = ends[g]
        if _step(metric, &w, p, n):
            break
    return metric.finish(&w)


def bootstrap_rows(GroupMetric metric, const signed char[::1] y, const int64_t[:, ::1] orders,
                   const int64_t[:, ::1] ends, const int64_t[::1] n_groups, uint64_t seed, int64_t n_boot,
                   bint stratified=True, int n_threads=1):
    """The metric of several scorings of the same rows on shared (paired) bootstrap replicates.

    Parameters
    ----------
    y : int8 array, shape (n,)
        0/1 labels.
    orders : int64 array, shape (m, n)
        Row indices of scoring j in decreasing score order.
    ends : int64 array, shape (m, n)
        ``ends[j, g]`` = end (exclusive) in ``orders[j]`` of scoring j's tie
        group g, for g < ``n_groups[j]``.
    seed, n_boot, stratified, n_threads
        As in :func:`bootstrap_groups`; replicate b is one vector of row
        multiplicities, the same for every scoring.

    Returns
    -------
    ndarray of float64, shape (n_boot, m)

    O(n_boot · (n + m · rows walked)) time: each replicate draws every row's
    multiplicity once (O(n)), then walks each scoring; O(n_threads · n)
    scratch memory (one int32 weight vector per thread).
    """
    cdef Py_ssize_t n = y.shape[0], m = orders.shape[0], j, t
    if orders.shape[1] != n or ends.shape[0] != m or ends.shape[1] != n or n_groups.shape[0] != m:
        raise ValueError("orders, ends, n_groups: expected shapes (m, n), (m, n) and (m,)")
    y_arr = np.asarray(y)
    pos_rows = np.ascontiguousarray(np.flatnonzero(y_arr), dtype=np.int64)
    neg_rows = np.ascontiguousarray(np.flatnonzero(y_arr == 0), dtype=np.int64)
    cdef const int64_t[::1] pr = pos_rows
    cdef const int64_t[::1] nr = neg_rows
    cdef int64_t n_pos = pr.shape[0], n_neg = nr.shape[0]
    if n_pos < 1 or n_neg < 1:
        raise ValueError(f"y: expected both classes, got {n_pos} positive and {n_neg} negative rows")
    for j in range(m):
        if not (0 <= n_groups[j] <= n) or (n_groups[j] > 0 and ends[j, n_groups[j] - 1] != n):
            raise ValueError(f"ends, n_groups: scoring {j}'s groups must end at row {n}")
        for t in range(n):
            if not (0 <= orders[j, t] < n):
                raise ValueError(f"orders[{j}, {t}] = {orders[j, t]} is not a row index")
    out = np.empty((n_boot, m), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef int threads = threads_for(<double> n_boot * n * (m + 1), n_threads, 200000.0)
    cdef int32_t* scratch = <int32_t*> malloc(threads * n * sizeof(int32_t))
    if scratch == NULL:
        raise MemoryError("bootstrap_rows: no memory for the row weights")
    cdef int64_t b
    cdef int tid
    cdef int32_t* w
    cdef uint64_t s = seed
    cdef bint strat = stratified
    cdef double total_pos, total_neg
    cdef int64_t start = 0, stop
    try:
        while start < n_boot:               # in slices, Ctrl-C heard between them (each replicate its own seed)
            stop = min(n_boot, start + _SLICE * threads)
            with nogil:
                for b in prange(start, stop, num_threads=threads, schedule="static"):
                    tid = _thread_id()
                    w = scratch + tid * n
                    _row_weights(w, &pr[0], n_pos, &nr[0], n_neg, s, b, strat)
                    total_pos = 0.0
                    for t in range(n_pos):
                        total_pos = total_pos + w[pr[t]]
                    total_neg = n_pos + n_neg - total_pos
                    for j in range(m):
                        o[b, j] = _walk_rows(metric, w, &orders[j, 0], &ends[j, 0], n_groups[j], &y[0],
                                             total_pos, total_neg)
            PyErr_CheckSignals()
            start = stop
    finally:
        free(scratch)
    return out


def bootstrap_row_weights(const signed char[::1] y, uint64_t seed, int64_t first, int64_t count,
                          bint stratified=True):
    """Row multiplicities of replicates ``first ..`` as :func:`bootstrap_rows` draws them.

    Returns
    -------
    ndarray of int32, shape (count, n)

    O(count · n) time and memory (metrics without a weighted kernel, tests).
    """
    y_arr = np.asarray(y)
    pos_rows = np.ascontiguousarray(np.flatnonzero(y_arr), dtype=np.int64)
    neg_rows = np.ascontiguousarray(np.flatnonzero(y_arr == 0), dtype=np.int64)
    cdef const int64_t[::1] pr = pos_rows
    cdef const int64_t[::1] nr = neg_rows
    cdef int64_t n_pos = pr.shape[0], n_neg = nr.shape[0], b
    if n_pos < 1 or n_neg < 1:
        raise ValueError(f"y: expected both classes, got {n_pos} positive and {n_neg} negative rows")
    out = np.zeros((count, y.shape[0]), dtype=np.int32)
    cdef int32_t[:, ::1] o = out
    with nogil:
        for b in range(count):
            _row_weights(&o[b, 0], &pr[0], n_pos, &nr[0], n_neg, seed, first + b, stratified)
    return out


cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int rankcore_thread_id(void) { return omp_get_thread_num(); }
    #else
    static int rankcore_thread_id(void) { return 0; }
    #endif
    """
    int _thread_id "rankcore_thread_id"() noexcept nogil


# ---------------------------------------------------------------------------
# DeLong's placement values (Sun & Xu 2014: from one sort, in O(n))
# ---------------------------------------------------------------------------

def placements(const double[::1] pos, const double[::1] neg):
    """DeLong's placement values from ascending-sorted positive and negative scores.

    Returns
    -------
    v10 : ndarray of float64, shape (I,)
        For each positive (in ``pos``'s order): the fraction of negatives
        scored below it, ties counting ½.  Their mean is the AUC.
    v01 : ndarray of float64, shape (K,)
        For each negative: the fraction of positives scored above it, ties ½.

    O(I + K) time by one merge of the two sorted sides (the midrank
    differences of Sun & Xu, 2014), O(I + K) memory for the output.
    """
    cdef Py_ssize_t n_pos = pos.shape[0], n_neg = neg.shape[0], i = 0, j = 0, i_end, j_end, t
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"placements: expected both classes, got {n_pos} positive and {n_neg} negative scores")
    v10 = np.empty(n_pos, dtype=np.float64)
    v01 = np.empty(n_neg, dtype=np.float64)
    cdef double[::1] a = v10
    cdef double[::1] c = v01
    cdef double v, x
    cdef const double* pp = &pos[0]
    cdef const double* nn = &neg[0]
    with nogil:
        while i < n_pos or j < n_neg:
            v = lowest_of(pp, i, n_pos, nn, j, n_neg)
            i_end = i
            while i_end < n_pos and pos[i_end] == v:
                i_end += 1
            j_end = j
            while j_end < n_neg and neg[j_end] == v:
                j_end += 1
            # the group's positives: negatives below (j) plus half the tied ones
            x = (j + 0.5 * (j_end - j)) / n_neg
            for t in range(i, i_end):
                a[t] = x
            # the group's negatives: positives above (n_pos - i_end) plus half the tied ones
            x = ((n_pos - i_end) + 0.5 * (i_end - i)) / n_pos
            for t in range(j, j_end):
                c[t] = x
            i = i_end
            j = j_end
    return v10, v01

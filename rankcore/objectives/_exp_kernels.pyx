"""Row-block reductions of the exponential push objective, in log space (docs/theory/push.md#log-space).

Design
------
A. With ℓ(z) = e^{−rz} every quantity of the push objective is a sum over
   rows of exponentials of an affine function of the row's score: the
   positives' log w_i − r·f_i and, for a price of degree d, the negatives'
   log v_k + d·r·f_k.  These kernels compute such sums as log-sum-exp
   values with running maxima (one exp per row, never an overflow), plus the
   first two moments of a direction h under the same weights, which are the
   α-derivatives the line search needs.
B. Rows are cut into fixed chunks of CHUNK rows, each reduced sequentially,
   and the chunk results are merged in chunk order.  The partition depends on
   the row count only, not on ``n_threads``: results are bitwise identical
   for any number of threads, and a block-wise backend (Dask) that merges its
   blocks the same way gets the same numbers to rounding.
C. A partial is the triple (m, s, s1, s2) → (lse, E[h], E[h²]); merging two
   partials rescales by e^{m_a − m} and e^{m_b − m}.  Rows of zero weight and
   empty classes contribute lse = −inf and are skipped, never producing NaN.
"""

from cython.parallel cimport prange
from libc.math cimport exp, log, INFINITY, NAN, isinf, isnan
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint8_t
from libc.string cimport memcpy

from rankcore._parallel cimport threads_for

import numpy as np

from rankcore._simd import checked_level

cdef enum:
    CHUNK = 16384
    # directions with at most this many values find a row's value by comparing with all at once
    VALUES_AT_ONCE = 32

cdef extern from *:
    """
    #include <stdint.h>
    /* Σ|g| per (value of h, class) over rows [r0, r_end), each sum in row order: group_abs_sums'
       loop, with a row's value found by comparing h with every value at once (AVX2: 4, AVX-512: 8
       per instruction) instead of a binary search.  ``padded``: the V (<= 32) distinct ascending
       values, then NaN up to 32 (never equal to anything), so the equal value is the one the
       search finds; a row whose h equals none counts as bad.  Returns the bad rows. */
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #define RC_EXP_SIMD 1
    #include <immintrin.h>
    #define RC_ABS_SUMS_BODY(FIND)                                                                \
        Py_ssize_t r, lo, bad = 0;                                                                \
        uint32_t m;                                                                               \
        double a;                                                                                 \
        for (r = r0; r < r_end; r++) {                                                            \
            FIND                                                                                  \
            if (m == 0) {                                                                         \
                bad++;                                                                            \
                continue;                                                                         \
            }                                                                                     \
            lo = __builtin_ctz(m);                                                                \
            a = g[r] >= 0 ? g[r] : -g[r];                                                         \
            parts[2 * lo + (y[r] != 0 ? 0 : 1)] += a;                                             \
        }                                                                                         \
        return bad;

    __attribute__((target("avx2")))
    static Py_ssize_t rc_abs_sums_4(const signed char* y, const double* g, const double* h,
                                    const double* padded, Py_ssize_t r0, Py_ssize_t r_end, double* parts) {
        __m256d p[8], x;
        int k;
        for (k = 0; k < 8; k++)
            p[k] = _mm256_loadu_pd(padded + 4 * k);
        RC_ABS_SUMS_BODY(
            x = _mm256_set1_pd(h[r]);
            m = 0;
            for (k = 0; k < 8; k++)
                m |= (uint32_t) _mm256_movemask_pd(_mm256_cmp_pd(x, p[k], _CMP_EQ_OQ)) << (4 * k);
        )
    }

    __attribute__((target("avx512f")))
    static Py_ssize_t rc_abs_sums_8(const signed char* y, const double* g, const double* h,
                                    const double* padded, Py_ssize_t r0, Py_ssize_t r_end, double* parts) {
        __m512d p0 = _mm512_loadu_pd(padded), p1 = _mm512_loadu_pd(padded + 8),
                p2 = _mm512_loadu_pd(padded + 16), p3 = _mm512_loadu_pd(padded + 24), x;
        RC_ABS_SUMS_BODY(
            x = _mm512_set1_pd(h[r]);
            m = (uint32_t) _mm512_cmp_pd_mask(x, p0, _CMP_EQ_OQ)
                | ((uint32_t) _mm512_cmp_pd_mask(x, p1, _CMP_EQ_OQ) << 8)
                | ((uint32_t) _mm512_cmp_pd_mask(x, p2, _CMP_EQ_OQ) << 16)
                | ((uint32_t) _mm512_cmp_pd_mask(x, p3, _CMP_EQ_OQ) << 24);
        )
    }
    #endif

    /* 0: the binary search, 1: AVX2, 2: AVX-512 (set at import, to the CPU's best). */
    static int rc_exp_simd_level = 0;

    static int rc_exp_simd_supported(void) {
    #ifdef RC_EXP_SIMD
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f"))
            return 2;
        if (__builtin_cpu_supports("avx2"))
            return 1;
    #endif
        return 0;
    }

    static Py_ssize_t rc_abs_sums(const signed char* y, const double* g, const double* h, const double* padded,
                                  Py_ssize_t r0, Py_ssize_t r_end, double* parts) {
    #ifdef RC_EXP_SIMD
        if (rc_exp_simd_level == 2)
            return rc_abs_sums_8(y, g, h, padded, r0, r_end, parts);
        return rc_abs_sums_4(y, g, h, padded, r0, r_end, parts);
    #else
        return 0;   /* not called: level 0 */
    #endif
    }
    """
    int rc_exp_simd_level
    int rc_exp_simd_supported() noexcept nogil
    Py_ssize_t rc_abs_sums(const signed char* y, const double* g, const double* h, const double* padded,
                           Py_ssize_t r0, Py_ssize_t r_end, double* parts) noexcept nogil

rc_exp_simd_level = rc_exp_simd_supported()


def simd_level(level=None):
    """How :func:`group_abs_sums` finds a row's value: 0 (binary search), 1 (AVX2), 2 (AVX-512).

    With ``level``, use that from now on (at most the CPU's: for the tests,
    which check that every level gives the same sums); returns the level in
    use before.
    """
    global rc_exp_simd_level
    cdef int previous = rc_exp_simd_level
    if level is not None:
        rc_exp_simd_level = checked_level(level, rc_exp_simd_supported())
    return previous


cdef inline double _log_weight(double w) noexcept nogil:
    """log w, without calling log() for the common unit weight."""
    return 0.0 if w == 1.0 else log(w)


cdef struct Acc:
    double m      # running maximum of the exponents
    double s      # Σ e^{x − m}
    double s1     # Σ e^{x − m}·h
    double s2     # Σ e^{x − m}·h²


cdef inline void acc_init(Acc* a) noexcept nogil:
    a.m = -INFINITY
    a.s = 0.0
    a.s1 = 0.0
    a.s2 = 0.0


cdef inline void acc_add(Acc* a, double x, double h) noexcept nogil:
    cdef double e
    if x > a.m:
        e = exp(a.m - x)          # 0 when a.m = −inf
        a.s = a.s * e + 1.0
        a.s1 = a.s1 * e + h
        a.s2 = a.s2 * e + h * h
        a.m = x
    else:
        e = exp(x - a.m)
        a.s = a.s + e
        a.s1 = a.s1 + e * h
        a.s2 = a.s2 + e * h * h


cdef inline void acc_merge(Acc* a, const Acc* b) noexcept nogil:
    cdef double ea, eb, m
    if b.s == 0.0:
        return
    if a.s == 0.0:
        a[0] = b[0]
        return
    m = a.m if a.m > b.m else b.m
    ea = exp(a.m - m)
    eb = exp(b.m - m)
    a.s = a.s * ea + b.s * eb
    a.s1 = a.s1 * ea + b.s1 * eb
    a.s2 = a.s2 * ea + b.s2 * eb
    a.m = m


cdef inline void acc_out(const Acc* a, double* out) noexcept nogil:
    if a.s == 0.0:
        out[0] = -INFINITY
        out[1] = 0.0
        out[2] = 0.0
    else:
        out[0] = a.m + log(a.s)
        out[1] = a.s1 / a.s
        out[2] = a.s2 / a.s


def class_moments(const signed char[::1] y,   # IN  (n,) 1 = positive, 0 = negative
                  const double[::1] w,        # IN  (n,) weights ≥ 0
                  const double[::1] f,        # IN  (n,) scores
                  const double[::1] h,        # IN  (n,) direction, or empty for none
                  double alpha,               # step: exponents use f + alpha·h
                  double pos_coef,            # exponent of positives: log w + pos_coef·(f + αh)
                  double neg_coef,            # exponent of negatives: log w + neg_coef·(f + αh)
                  double[::1] out,            # OUT (6,) lse, E[h], E[h²] of positives, then negatives
                  int n_threads=1):
    """Log-sum-exp and h-moments of each class's exponential weights.  O(n), O(n/CHUNK) memory."""
    cdef Py_ssize_t n = f.shape[0]
    cdef bint has_h = h.shape[0] > 0
    if has_h and h.shape[0] != n:
        raise ValueError(f"h: expected {n} values, got {h.shape[0]}")
    cdef Py_ssize_t n_chunks = (n + CHUNK - 1) // CHUNK
    cdef Acc* parts = <Acc*> malloc(2 * (n_chunks + 1) * sizeof(Acc))
    if parts == NULL:
        raise MemoryError()
    cdef Py_ssize_t c, r, r_end
    cdef double hr, x
    cdef Acc tot_p, tot_n
    n_threads = threads_for(<double> n, n_threads, 131072.0)
    try:
        with nogil:
            for c in prange(n_chunks, schedule="dynamic", num_threads=n_threads):
                acc_init(&parts[2 * c])
                acc_init(&parts[2 * c + 1])
                r_end = min((c + 1) * CHUNK, n)
                for r in range(c * CHUNK, r_end):
                    if w[r] <= 0.0:
                        continue
                    hr = h[r] if has_h else 0.0
                    if y[r] != 0:
                        x = _log_weight(w[r]) + pos_coef * (f[r] + alpha * hr)
                        acc_add(&parts[2 * c], x, hr)
                    else:
                        x = _log_weight(w[r]) + neg_coef * (f[r] + alpha * hr)
                        acc_add(&parts[2 * c + 1], x, hr)
            acc_init(&tot_p)
            acc_init(&tot_n)
            for c in range(n_chunks):
                acc_merge(&tot_p, &parts[2 * c])
                acc_merge(&tot_n, &parts[2 * c + 1])
            acc_out(&tot_p, &out[0])
            acc_out(&tot_n, &out[3])
    finally:
        free(parts)


def merge_moments(double[:, ::1] parts,   # IN  (m, 3k) triples (lse, E[h], E[h²]) per block
                  double[::1] out):       # OUT (3k,)
    """Merge per-block (lse, E[h], E[h²]) triples, in block order.

    O(m·k) time for m blocks of k triples (two passes over each column), O(1) extra memory.
    """
    cdef Py_ssize_t m = parts.shape[0], width = parts.shape[1], b, j
    cdef double lse, mean1, mean2, e, mx
    for j in range(0, width, 3):
        mx = -INFINITY
        for b in range(m):
            if parts[b, j] > mx or isnan(parts[b, j]):
                mx = parts[b, j]
            if isnan(mx):
                break
        if isnan(mx):            # a block's sum is NaN (a price or weight gone wrong): so is the whole
            out[j] = NAN
            out[j + 1] = NAN
            out[j + 2] = NAN
            continue
        if isinf(mx) and mx < 0:
            out[j] = -INFINITY
            out[j + 1] = 0.0
            out[j + 2] = 0.0
            continue
        if isinf(mx):            # a block's sum overflowed: so does the whole (inf − inf would give NaN below)
            out[j] = INFINITY
            out[j + 1] = NAN
            out[j + 2] = NAN
            continue
        lse = 0.0
        mean1 = 0.0
        mean2 = 0.0
        for b in range(m):
            if isinf(parts[b, j]) and parts[b, j] < 0:
                continue
            e = exp(parts[b, j] - mx)
            lse += e
            mean1 += e * parts[b, j + 1]
            mean2 += e * parts[b, j + 2]
        out[j] = mx + log(lse)
        out[j + 1] = mean1 / lse
        out[j + 2] = mean2 / lse


def gradient(const signed char[::1] y,   # IN  (n,)
             const double[::1] w,        # IN  (n,)
             const double[::1] f,        # IN  (n,)
             double pos_coef, double pos_shift, double pos_scale,
             double neg_coef, double neg_shift, double neg_scale,
             double[::1] out,            # OUT (n,) gradient
             int n_threads=1):
    """out = −pos_scale·w·e^{pos_coef·f − pos_shift} on positives, neg_scale·w·e^{neg_coef·f − neg_shift} on negatives.

    O(n) time, O(1) extra memory.
    """
    cdef Py_ssize_t n = f.shape[0], r
    n_threads = threads_for(<double> n, n_threads, 131072.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            if w[r] <= 0.0:
                out[r] = 0.0
            elif y[r] != 0:
                out[r] = -pos_scale * w[r] * exp(pos_coef * f[r] - pos_shift)
            else:
                out[r] = neg_scale * w[r] * exp(neg_coef * f[r] - neg_shift)


cdef inline Py_ssize_t _value_index(const double* values, Py_ssize_t V, double x) noexcept nogil:
    """Position of x in the ascending ``values`` (V >= 0), or V when x is not one of them.

    Two values (a binary direction, the common case) are two comparisons;
    otherwise a branch-free binary search, O(log V): a tree's leaf values come
    in no order the branch predictor could learn, and a conditional move per
    halving costs less than a mispredicted branch.
    """
    cdef Py_ssize_t base = 0, n = V, half
    if V == 2:
        return 1 if x == values[1] else (0 if x == values[0] else V)
    if V == 0:
        return 0
    while n > 1:
        half = n >> 1
        base = base + half if values[base + half] <= x else base
        n -= half
    return base if values[base] == x else V


cdef struct ValueTable:
    # An open-addressing hash table of the values' positions (linear probing, at most a quarter full), so that
    # a row's value is found in O(1) expected time where the binary search takes log2 V dependent loads (a
    # tree of 63 leaves: 6).  Empty slots hold -1.
    const double* values
    Py_ssize_t V
    int* slots
    unsigned int mask
    int shift


cdef enum:
    # from this many values on, the hash table beats the branch-free binary search
    HASH_MIN_VALUES = 9


cdef inline unsigned int _hash(double x, int shift) noexcept nogil:
    """Fibonacci hash of x's bits (x + 0.0 makes −0.0 hash as 0.0, which it equals)."""
    cdef double z = x + 0.0
    cdef unsigned long long bits
    memcpy(&bits, &z, 8)
    return <unsigned int> ((bits * 0x9E3779B97F4A7C15ULL) >> shift)


cdef int _table_init(ValueTable* t, const double* values, Py_ssize_t V) noexcept nogil:
    """Fill t for ``values`` (positions inserted last to first, so that of equal values the last is found
    first, as the binary search finds it).  O(V) time and memory; returns -1 when out of memory."""
    cdef Py_ssize_t size = 16, i
    cdef int bits = 4
    cdef unsigned int s
    t.values = values
    t.V = V
    t.slots = NULL
    if V < HASH_MIN_VALUES:
        return 0
    while size < 4 * V:
        size *= 2
        bits += 1
    t.slots = <int*> malloc(size * sizeof(int))
    if t.slots == NULL:
        return -1
    t.mask = <unsigned int> (size - 1)
    t.shift = 64 - bits
    for i in range(size):
        t.slots[i] = -1
    for i in range(V - 1, -1, -1):
        s = _hash(values[i], t.shift)
        while t.slots[s] >= 0:
            s = (s + 1) & t.mask
        t.slots[s] = <int> i
    return 0


cdef inline Py_ssize_t _table_index(const ValueTable* t, double x) noexcept nogil:
    """:func:`_value_index` of x, the same position: O(1) expected with the table, else the binary search."""
    cdef unsigned int s
    cdef int i
    if t.slots == NULL:
        return _value_index(t.values, t.V, x)
    s = _hash(x, t.shift)
    while True:
        i = t.slots[s]
        if i < 0:
            return t.V
        if t.values[i] == x:
            return i
        s = (s + 1) & t.mask


def lse_by_value(const signed char[::1] y,   # IN  (n,)
                 const double[::1] w,        # IN  (n,)
                 const double[::1] f,        # IN  (n,)
                 const double[::1] h,        # IN  (n,) direction; every value must be in `values`
                 const double[::1] values,   # IN  (V,) the direction's possible values, ascending
                 double pos_coef, double neg_coef,
                 double[:, ::1] out,         # OUT (V, 2) lse of positives, negatives per value
                 int n_threads=1):
    """Log-sum-exp of each class's exponential weights, grouped by the value of h.  O(n + V) expected.

    O(V·n/CHUNK + V) extra memory: a partial per chunk, value and class, and the values' hash table.

    Returns the number of rows whose h is not one of ``values`` (0 when all fit).
    """
    cdef Py_ssize_t n = f.shape[0], V = values.shape[0]
    cdef Py_ssize_t n_chunks = (n + CHUNK - 1) // CHUNK
    cdef Py_ssize_t c, r, r_end, lo, v
    cdef const double* vals = &values[0] if V > 0 else NULL
    cdef Py_ssize_t bad = 0
    cdef double x
    cdef Acc* parts = <Acc*> malloc(2 * V * (n_chunks + 1) * sizeof(Acc))
    cdef Acc tot
    cdef ValueTable table
    if parts == NULL:
        raise MemoryError()
    if _table_init(&table, vals, V) != 0:
        free(parts)
        raise MemoryError()
    n_threads = threads_for(<double> n, n_threads, 131072.0)
    try:
        with nogil:
            for c in prange(n_chunks, schedule="dynamic", num_threads=n_threads):
                for v in range(2 * V):
                    acc_init(&parts[2 * V * c + v])
                r_end = min((c + 1) * CHUNK, n)
                for r in range(c * CHUNK, r_end):
                    if w[r] <= 0.0:
                        continue
                    lo = _table_index(&table, h[r])
                    if lo == V:
                        bad += 1
                        continue
                    if y[r] != 0:
                        acc_add(&parts[2 * V * c + 2 * lo], _log_weight(w[r]) + pos_coef * f[r], 0.0)
                    else:
                        acc_add(&parts[2 * V * c + 2 * lo + 1], _log_weight(w[r]) + neg_coef * f[r], 0.0)
            for v in range(2 * V):
                acc_init(&tot)
                for c in range(n_chunks):
                    acc_merge(&tot, &parts[2 * V * c + v])
                out[v // 2, v % 2] = -INFINITY if tot.s == 0.0 else tot.m + log(tot.s)
    finally:
        free(parts)
        free(table.slots)
    return bad


cdef inline Py_ssize_t _indexed_abs_sums(const signed char* y, const double* g, const uint8_t* index,
                                         Py_ssize_t V, Py_ssize_t r0, Py_ssize_t r_end,
                                         double* part) noexcept nogil:
    """part[2·index[r] + (0 if positive else 1)] += |g[r]| for r in [r0, r_end), in row order; rows with an
    index ≥ V are counted (returned), not added."""
    cdef Py_ssize_t r, k, bad = 0
    cdef double a
    for r in range(r0, r_end):
        k = index[r]
        if k >= V:
            bad += 1
            continue
        a = g[r] if g[r] >= 0 else -g[r]
        part[2 * k + (y[r] == 0)] += a
    return bad


def group_abs_sums(const signed char[::1] y,   # IN  (n,)
                   const double[::1] g,        # IN  (n,) the rows' gradient
                   const double[::1] h,        # IN  (n,) direction; every value must be in `values`
                   const double[::1] values,   # IN  (V,) the direction's possible values, ascending
                   double[:, ::1] out,         # OUT (V, 2) Σ |g| of positives, negatives per value
                   int n_threads=1,
                   const uint8_t[::1] value_index=None):   # IN  (n,) optional: h[r] = values[value_index[r]]
    """Σ|g| per class and value of h: the line-search summary from an existing gradient.  O(n + V) expected, no exp.

    With ``value_index`` (a tree knows each row's leaf, hence its value's
    position) each row's value is read from it: O(n + V), one byte per row
    and no search; h is not read.  Otherwise up to 32 distinct values are
    compared with a row's h all at once (AVX2 or AVX-512, as the CPU allows:
    O(n·V/8) instructions, no dependent loads; in a fit a third of the hash
    table's time), else the hash table (or the binary search) finds them.
    Every route adds the same |g| in the same order (row order within
    chunks of CHUNK rows, then the chunks in order): the sums are the same,
    bit for bit, and do not depend on the threads.

    Returns the number of rows whose h is not one of ``values`` (with
    ``value_index``: whose index is not below V).  O(V·n/CHUNK + V) extra memory: a sum per
    chunk, value and class, and the values' hash table.
    """
    cdef Py_ssize_t n = g.shape[0], V = values.shape[0]
    cdef Py_ssize_t n_chunks = (n + CHUNK - 1) // CHUNK
    cdef Py_ssize_t c, r, r_end, lo, v
    cdef const double* vals = &values[0] if V > 0 else NULL
    cdef Py_ssize_t bad = 0
    cdef double* parts = <double*> malloc(2 * V * (n_chunks + 1) * sizeof(double))
    cdef double a
    cdef ValueTable table
    cdef double padded[VALUES_AT_ONCE]
    cdef bint indexed = value_index is not None
    cdef const uint8_t* vi = NULL
    cdef bint at_once = 2 < V <= VALUES_AT_ONCE and rc_exp_simd_level > 0 and not indexed
    if parts == NULL:
        raise MemoryError()
    if indexed:
        if value_index.shape[0] != n:
            free(parts)
            raise ValueError(f"group_abs_sums: value_index must have one entry per row ({n}), "
                             f"got {value_index.shape[0]}")
        if n > 0:
            vi = &value_index[0]
    for v in range(1, V):
        if not values[v - 1] < values[v]:           # not distinct and ascending: the table's own answer
            at_once = False
    if at_once:
        for v in range(VALUES_AT_ONCE):
            padded[v] = values[v] if v < V else NAN
    # the table only where the rows are looked up in it
    if _table_init(&table, vals, 0 if (at_once or indexed) else V) != 0:
        free(parts)
        raise MemoryError()
    n_threads = threads_for(<double> n, n_threads, 32768.0)      # two chunks and more
    try:
        with nogil:
            for c in prange(n_chunks, schedule="dynamic", num_threads=n_threads):
                for v in range(2 * V):
                    parts[2 * V * c + v] = 0.0
                r_end = min((c + 1) * CHUNK, n)
                if at_once:
                    bad += rc_abs_sums(&y[0], &g[0], &h[0], padded, c * CHUNK, r_end, &parts[2 * V * c])
                    continue
                if indexed:
                    bad += _indexed_abs_sums(&y[0], &g[0], vi, V, c * CHUNK, r_end, &parts[2 * V * c])
                    continue
                for r in range(c * CHUNK, r_end):
                    lo = _table_index(&table, h[r])
                    if lo == V:
                        bad += 1
                        continue
                    a = g[r] if g[r] >= 0 else -g[r]
                    parts[2 * V * c + 2 * lo + (0 if y[r] != 0 else 1)] += a
            for v in range(2 * V):
                a = 0.0
                for c in range(n_chunks):
                    a = a + parts[2 * V * c + v]
                out[v // 2, v % 2] = a
    finally:
        free(parts)
        free(table.slots)
    return bad


def gradient_hessian(const signed char[::1] y,   # IN  (n,)
                     const double[::1] w,        # IN  (n,)
                     const double[::1] f,        # IN  (n,)
                     double pos_coef, double pos_shift, double pos_scale, double pos_h1, double pos_h2,
                     double neg_coef, double neg_shift, double neg_scale, double neg_h1,
                     double floor,
                     double[::1] out_g,          # OUT (n,) gradient, as gradient() computes it
                     double[::1] out_h,          # OUT (n,) curvature, clipped below at floor
                     int n_threads=1):
    """The gradient of :func:`gradient` and a curvature from the same exponential, in one pass.  O(n), O(1) memory.

    With e = w·e^{coef·f − shift} (a row's normalized weight): positives get
    h = e·(pos_h1 + pos_h2·e), negatives h = neg_h1·e; then h = max(h, floor).
    """
    cdef Py_ssize_t n = f.shape[0], r
    cdef double ex, e, h
    # an exp per row: ~8 ns, so 8,192 rows are ~60 µs on one thread -- worth a fork and join (rows are
    # independent: the result does not depend on the threads)
    n_threads = threads_for(<double> n, n_threads, 8192.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            if w[r] <= 0.0:
                out_g[r] = 0.0
                out_h[r] = floor
                continue
            if y[r] != 0:
                ex = exp(pos_coef * f[r] - pos_shift)
                out_g[r] = -pos_scale * w[r] * ex
                e = w[r] * ex
                h = e * (pos_h1 + pos_h2 * e)
            else:
                ex = exp(neg_coef * f[r] - neg_shift)
                out_g[r] = neg_scale * w[r] * ex
                h = neg_h1 * (w[r] * ex)
            out_h[r] = h if h > floor else floor

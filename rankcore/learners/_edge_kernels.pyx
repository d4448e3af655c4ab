"""The bin edges' sort: a feature's distinct values and their quantiles, by radix sort.

Design
------
A. The unweighted bin-edge rule (``_binning.edges_of_distinct``) needs each
   feature's sorted distinct values and, beyond ``max_bins`` of them, the
   first value whose cumulative count reaches each level b/max_bins of the
   total.  A comparison sort costs O(n log n) and the NumPy steps after it
   (runs, counts, cumulative sums, searches) as many passes again over n
   values; here one LSD radix sort over the values' bits (float32: 3 passes
   of 11, 11 and 10 bits; float64: 6 passes of 11 bits, a pass skipped when
   every value has the same digit) and one walk over the sorted keys give the
   pairs of distinct values whose midpoints are the edges.
B. A float's bits become an unsigned key of the same order: the sign bit set
   for positive values, every bit flipped for negative ones.  -0.0 and +0.0
   get two keys side by side; the walk compares the values as floats, so they
   make one run (as ``numpy.not_equal`` does), its value the first of the two.
C. The levels and the search repeat the NumPy rule's arithmetic exactly
   (``b / max_bins * total`` in float64, counts summed in float64: exact
   integers below 2**53), so the selected pairs are the same.
"""

from libc.stdint cimport uint32_t, uint64_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from rankcore.typedefs cimport real_t

import numpy as np

cdef enum:
    RADIX_BITS = 11
    RADIX = 1 << RADIX_BITS


cdef inline uint32_t _key32(float v) noexcept nogil:
    cdef uint32_t bits
    memcpy(&bits, &v, 4)
    if bits >> 31:
        return ~bits
    return bits | <uint32_t> 0x80000000u


cdef inline float _value32(uint32_t key) noexcept nogil:
    cdef uint32_t bits = (key ^ <uint32_t> 0x80000000u) if key >> 31 else ~key
    cdef float v
    memcpy(&v, &bits, 4)
    return v


cdef inline uint64_t _key64(double v) noexcept nogil:
    cdef uint64_t bits
    memcpy(&bits, &v, 8)
    if bits >> 63:
        return ~bits
    return bits | (<uint64_t> 1 << 63)


cdef inline double _value64(uint64_t key) noexcept nogil:
    cdef uint64_t bits = (key ^ (<uint64_t> 1 << 63)) if key >> 63 else ~key
    cdef double v
    memcpy(&v, &bits, 8)
    return v


ctypedef fused key_t:
    uint32_t
    uint64_t


cdef key_t* _radix_sort(key_t* keys, key_t* spare, Py_ssize_t m, Py_ssize_t* counts) noexcept nogil:
    """LSD radix sort of ``m`` keys, 11 bits a pass (3 passes of 32-bit keys, 6 of 64-bit ones); ``counts``:
    passes·RADIX zeros.  Returns the buffer holding the result (``keys`` or ``spare``).  O(m) per pass."""
    cdef int passes = 3 if key_t is uint32_t else 6
    cdef Py_ssize_t i, total, c
    cdef int p, shift
    cdef key_t* tmp
    for i in range(m):                      # every pass's digit counts in one read
        for p in range(passes):
            counts[p * RADIX + <Py_ssize_t> ((keys[i] >> (RADIX_BITS * p)) & (RADIX - 1))] += 1
    for p in range(passes):
        shift = RADIX_BITS * p
        if m == 0 or counts[p * RADIX + <Py_ssize_t> ((keys[0] >> shift) & (RADIX - 1))] == m:
            continue                        # one digit for every key: the pass would copy them in order
        total = 0
        for i in range(RADIX):              # counts -> each digit's first place
            c = counts[p * RADIX + i]
            counts[p * RADIX + i] = total
            total += c
        for i in range(m):
            c = <Py_ssize_t> ((keys[i] >> shift) & (RADIX - 1))
            spare[counts[p * RADIX + c]] = keys[i]
            counts[p * RADIX + c] += 1
        tmp = keys
        keys = spare
        spare = tmp
    return keys


cdef Py_ssize_t _runs(const key_t* keys, Py_ssize_t m, double* distinct, double* counts) noexcept nogil:
    """The runs of equal values in ``m`` sorted keys: their values (as floats: -0.0 and 0.0 are one run, its
    value the first's) into ``distinct`` and their lengths into ``counts``; how many.  O(m)."""
    cdef Py_ssize_t i, n_distinct = 0
    cdef double v, previous = 0.0
    for i in range(m):
        if key_t is uint32_t:
            v = <double> _value32(keys[i])
        else:
            v = _value64(keys[i])
        if n_distinct == 0 or v != previous:
            distinct[n_distinct] = v
            counts[n_distinct] = 1.0
            n_distinct += 1
            previous = v
        else:
            counts[n_distinct - 1] += 1.0
    return n_distinct


cdef Py_ssize_t _pairs(const double* distinct, const double* counts, Py_ssize_t n_distinct, double total,
                       int max_bins, double* lo, double* hi) noexcept nogil:
    """The (lo, hi) pairs of ``edges_of_distinct`` for more than ``max_bins`` distinct values; how many.

    For b = 1 .. max_bins − 1 the first i whose cumulative count reaches
    b / max_bins · total, at most n_distinct − 2; each i once (they ascend).
    """
    cdef Py_ssize_t i = 0, k = 0, last = -1, at
    cdef double cumulative = counts[0], level
    cdef int b
    for b in range(1, max_bins):
        level = <double> b / <double> max_bins * total
        while cumulative < level and i + 1 < n_distinct:
            i += 1
            cumulative += counts[i]
        at = i if i < n_distinct - 2 else n_distinct - 2
        if at != last:
            lo[k] = distinct[at]
            hi[k] = distinct[at + 1]
            k += 1
            last = at
    return k


def edge_pairs(const real_t[::1] values, int max_bins, Py_ssize_t n_zero=0):
    """The pairs of consecutive distinct values whose midpoints are the unweighted bin edges.

    Parameters
    ----------
    values : (m,) float32 or float64
        One feature's sampled values; NaN values are left out (missing).
    max_bins : int
        At least 2.
    n_zero : int
        Zeros counted besides ``values`` (a sparse column's rows where no
        value is stored), without being passed.

    Returns
    -------
    lo, hi : (k,) float64
        With u the sorted distinct values (compared as floats: -0.0 and 0.0
        are one value) and c their counts: every consecutive pair (u_i,
        u_{i+1}) when there are at most ``max_bins`` of them; otherwise, for
        each level b / max_bins of the total count (b = 1 .. max_bins − 1),
        the pair at the first i whose cumulative count reaches it (at most the
        next to last), each i once.  Empty with fewer than two distinct
        values.  ``_binning._midpoints(lo, hi)`` are then the edges that
        ``_binning._feature_edges(values[~isnan(values)], None, max_bins)``
        gives.

    Notes
    -----
    O(m) time (a radix sort of a fixed number of passes and one walk),
    O(m) extra memory (the keys twice, the distinct values and their
    counts); the GIL is released throughout.
    """
    if max_bins < 2:
        raise ValueError(f"max_bins: expected at least 2, got {max_bins}")
    if n_zero < 0:
        raise ValueError(f"n_zero: expected a count of at least 0, got {n_zero}")
    cdef Py_ssize_t n = values.shape[0], m = 0, i, n_distinct = 0, k = 0
    cdef Py_ssize_t n_keys = n + (1 if n_zero > 0 else 0)
    cdef bint single = real_t is float
    cdef size_t width = 4 if single else 8
    cdef void* keys = malloc(max(n_keys, 1) * width)
    cdef void* spare = malloc(max(n_keys, 1) * width)
    cdef Py_ssize_t* digit_counts = <Py_ssize_t*> malloc(6 * RADIX * sizeof(Py_ssize_t))
    cdef double* distinct = <double*> malloc(max(n_keys, 1) * sizeof(double))
    cdef double* run_counts = <double*> malloc(max(n_keys, 1) * sizeof(double))
    if keys == NULL or spare == NULL or digit_counts == NULL or distinct == NULL or run_counts == NULL:
        free(keys); free(spare); free(digit_counts); free(distinct); free(run_counts)
        raise MemoryError(f"edge_pairs: no memory for the keys of {n} values")
    lo = np.empty(max_bins, dtype=np.float64)
    hi = np.empty(max_bins, dtype=np.float64)
    cdef double[::1] lo_v = lo, hi_v = hi
    cdef uint32_t* k32
    cdef uint64_t* k64
    cdef double[::1] out_v
    try:
        with nogil:
            memset(digit_counts, 0, 6 * RADIX * sizeof(Py_ssize_t))
            if single:
                k32 = <uint32_t*> keys
                for i in range(n):
                    if values[i] == values[i]:          # NaN is missing: left out
                        k32[m] = _key32(<float> values[i])
                        m += 1
                if n_zero > 0:                          # one zero stands for all of them (counted below)
                    k32[m] = _key32(0.0)
                    m += 1
                k32 = _radix_sort(k32, <uint32_t*> spare, m, digit_counts)
                n_distinct = _runs(k32, m, distinct, run_counts)
            else:
                k64 = <uint64_t*> keys
                for i in range(n):
                    if values[i] == values[i]:
                        k64[m] = _key64(<double> values[i])
                        m += 1
                if n_zero > 0:
                    k64[m] = _key64(0.0)
                    m += 1
                k64 = _radix_sort(k64, <uint64_t*> spare, m, digit_counts)
                n_distinct = _runs(k64, m, distinct, run_counts)
            if n_zero > 1:                              # the zeros' run: n_zero − 1 more than the one key
                for i in range(n_distinct):
                    if distinct[i] == 0.0:
                        run_counts[i] += <double> (n_zero - 1)
                        break
                m += n_zero - 1
            if n_distinct < 2:
                k = 0
            elif n_distinct <= max_bins:
                k = n_distinct - 1
            else:
                k = _pairs(distinct, run_counts, n_distinct, <double> m, max_bins, &lo_v[0], &hi_v[0])
        if 2 <= n_distinct <= max_bins:
            out = np.empty(n_distinct, dtype=np.float64)
            out_v = out
            memcpy(&out_v[0], distinct, n_distinct * sizeof(double))
            return out[:-1], out[1:]
    finally:
        free(keys); free(spare); free(digit_counts); free(distinct); free(run_counts)
    return lo[:k], hi[:k]

"""XE-NDCG's gradient and curvature over every query in one compiled pass (``_xendcg.py`` states the formulas).

Design
------
A. Each query is three passes over its rows, in place: its largest score m
   (and the first row that holds it); then e_i = exp(f_i − m) and the target
   weight φ_i = (2^{y_i} − γ_i) · s_q, summed, the two kept in the rows'
   outputs (hess and grad) so that the pass needs no buffer; then
   ρ_i = e_i / Σe and g_i = ρ_i − φ_i / Σφ, h_i = ρ_i (1 − ρ_i).  Every
   exponent is ≤ 0 and the top row's is 0, so Σe lies in [1, n_q]: scores
   1e300 apart give ρ = 0 and 1, never inf or NaN.
B. 1 − ρ of the top row is Σ_{j ≠ top} e_j / Σe, summed apart, not 1 − ρ:
   when the top row takes almost all the mass (ρ = 1 − 1e-20) the difference
   would round to 0 and its curvature with it.  Any other row has
   e_i ≤ 1 ≤ Σe − e_i, so ρ_i ≤ ½ and 1 − ρ_i loses nothing.
C. γ_i is ``_counter_hash.pxd``'s hash of (the evaluation's key, row number):
   its top 52 bits, u = (j + ½) / 2^52, a uniform strictly inside (0, 1) (53
   bits would round the largest to 1).  A row's draw depends on its number
   alone, so any grouping of the rows into blocks, or of the queries onto
   threads, draws the same numbers.
D. Threads over queries (OpenMP, the GIL released): each query writes only
   its own rows, in row order, so the result is the same bit for bit at any
   number of threads.  A NumPy form (per-query maxima and sums with
   ``np.maximum.reduceat`` and ``np.add.reduceat``) is the tests' reference
   and the benchmark's alternative (benchmarks/bench_query_objective.py).
"""

from cython.parallel cimport prange
from libc.math cimport exp
from libc.stdint cimport int64_t, uint64_t

from rankcore._parallel cimport threads_for
from rankcore.objectives._counter_hash cimport row_bits

#: 2^-52: the spacing of the uniforms drawn from a row's top 52 bits.
cdef double _SPACING = 2.220446049250313e-16


cdef inline double uniform(uint64_t key, uint64_t row) noexcept nogil:
    """(j + ½) / 2^52, j the top 52 bits of the row's hash under ``key``: in [2^-53, 1 − 2^-53]."""
    return (<double> (row_bits(key, row) >> 12) + 0.5) * _SPACING


cdef void _one_query(const int64_t* rows, int64_t n, const double[::1] gain, double scale, const double[::1] f,
                     uint64_t key, uint64_t first_row, double[::1] grad, double[::1] hess) noexcept nogil:
    cdef int64_t k, r, top = 0
    cdef double m, e, phi, rest = 0.0, total = 0.0, mass, rho
    if n < 2 or scale == 0.0:                   # one row, or one grade: no gradient
        for k in range(n):
            grad[rows[k]] = 0.0
            hess[rows[k]] = 0.0
        return
    m = f[rows[0]]
    for k in range(1, n):
        if f[rows[k]] > m:
            m = f[rows[k]]
            top = k
    for k in range(n):
        r = rows[k]
        e = exp(f[r] - m)
        phi = (gain[r] - uniform(key, first_row + <uint64_t> r)) * scale
        hess[r] = e
        grad[r] = phi
        total += phi
        if k != top:
            rest += e
    mass = 1.0 + rest                           # the top row's e is exp(0) = 1
    for k in range(n):
        r = rows[k]
        rho = hess[r] / mass
        grad[r] = rho - grad[r] / total
        hess[r] = rho * (rest / mass if k == top else 1.0 - rho)


def xendcg_gradient(const int64_t[::1] rows,        # IN: row indices grouped by query
                    const int64_t[::1] bounds,      # IN: query q is rows[bounds[q]:bounds[q + 1]]
                    const double[::1] gain,         # IN: 2^grade, by row
                    const double[::1] scale,        # IN: s_q per query, a power of 2; 0: the query carries nothing
                    const double[::1] f,            # IN: scores, by row
                    uint64_t key,                   # IN: the evaluation's noise key
                    uint64_t first_row,             # IN: the number of row 0 in the noise's numbering
                    double[::1] grad,               # OUT, by row (every row of a query in ``rows`` written)
                    double[::1] hess,               # OUT, by row
                    int n_threads):
    """XE-NDCG's g = ρ − p and h = ρ (1 − ρ) of every row, each query's own softmax against its target p.

    For query q: ρ = softmax of its scores, φ_i = (gain_i − γ_i) · s_q with
    γ_i the uniform of row ``first_row`` + i under ``key``, p = φ / Σφ.  A
    query of one row, or with s_q = 0, gets g = h = 0.

    Time O(n) (three passes over each query's rows, one exponential and one
    hash per row, about 7 ns a row), threads over queries from 131,072 rows
    (below, one: a parallel region may wait a time slice on a loaded
    machine); memory O(1) besides the outputs.
    """
    cdef Py_ssize_t n_queries = bounds.shape[0] - 1, q
    cdef int threads
    if scale.shape[0] != n_queries:
        raise ValueError(f"scale: expected one per query ({n_queries}), got {scale.shape[0]}")
    if gain.shape[0] != f.shape[0] or grad.shape[0] != f.shape[0] or hess.shape[0] != f.shape[0]:
        raise ValueError(f"gain, grad, hess: expected one value per row ({f.shape[0]})")
    threads = threads_for(<double> rows.shape[0], n_threads, 131072.0)         # about 1 ms of work on one thread
    threads = max(1, min(threads, n_queries))          # a thread owns whole queries: one query keeps one thread busy
    for q in prange(n_queries, nogil=True, schedule="dynamic", chunksize=64, num_threads=threads):
        _one_query(&rows[bounds[q]], bounds[q + 1] - bounds[q], gain, scale[q], f, key, first_row, grad, hess)

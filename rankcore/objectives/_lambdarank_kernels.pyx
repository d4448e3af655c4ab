"""LambdaMART's pair gradients over every query in one compiled pass (``_lambdarank.py`` states the formulas).

Design
------
A. What depends on the grades alone -- the rows grouped by query, their
   grades and gains in that order, each query's ideal DCG -- is computed once
   by the caller (at bind time in a fit).  Each call orders each query's rows
   by score inside the parallel loop (``rankcore._keyed_sort`` on the keys
   (−score, place in the query): LightGBM's stable order, score descending,
   ties in row order).  A global ``lexsort`` of all rows by (query, score)
   and another by (query, gain) at each call cost five times the pair loop on
   160,000 queries of 2-10 rows, on one thread.
B. Each query's scores, grades and gains are gathered in score order into
   contiguous per-thread buffers, λ and h are added there and scattered to
   the rows once: about 10 ns a pair at every query length.  Reading and
   writing row-indexed arrays through the order in the pair loop makes every
   pair wait on memory once a query leaves the cache: 45 and 94 ns a pair at
   640,000 and 1.28 million rows, against 21 ns below 400,000.  The j loop
   is not tiled: tiles would change the order in which S (below) is summed,
   to win at most the 10 % by which a pair costs more at 1.28 million rows
   than at 160,000.  The discounts
   1 / log2(place + 2) come from a table: one logarithm per place, not two
   per pair.
C. Each query writes only its own rows' λ and curvature, so queries run on
   threads with no reduction between them; within a query the pairs are
   added in place order (i, then j), the order of LightGBM's loop, and each
   sum, S included, is the one of a global sort, bit for bit.  A NumPy form
   per query (blocks of top places × the query's rows) cost about 34 µs a
   query in Python and 2 KB a row: 22 to 26 times LightGBM's time on many
   short queries.
"""

from cython.parallel cimport prange, threadid
from libc.math cimport exp, fabs, log2
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, realloc

import numpy as np

from rankcore._keyed_sort cimport Keyed, keyed_sort
from rankcore._parallel cimport threads_for


cdef struct Scratch:
    # one thread's buffers, grown to the longest query it has met, in score order: the gathered inputs and the
    # accumulated outputs
    int64_t capacity
    bint failed
    Keyed* order
    double* score
    double* grade
    double* gain
    double* lam
    double* curv


def place_discounts(int64_t n):
    """1 / log2(place + 2) for the places 0 .. n − 1 (float64, shape (n,)): the kernel's table of discounts.

    O(n) time and memory.
    """
    out = np.empty(max(n, 0), dtype=np.float64)
    cdef double[::1] d = out
    cdef int64_t p
    with nogil:
        for p in range(n):
            d[p] = 1.0 / log2(<double> p + 2.0)
    return out


cdef void _zero_rows(const int64_t* rows, int64_t n, double[::1] grad, double[::1] hess) noexcept nogil:
    cdef int64_t p
    for p in range(n):
        grad[rows[p]] = 0.0
        hess[rows[p]] = 0.0


cdef void _gather(const int64_t* rows, int64_t n, const double* grade, const double* gain,
                  const double[::1] scores, Scratch* w) noexcept nogil:
    # the query's places in score order (ties by place in the query, which is row order) and their inputs
    cdef int64_t p, a
    for p in range(n):
        w.order[p].key = -scores[rows[p]]
        w.order[p].row = p
    keyed_sort(w.order, n)
    for p in range(n):
        a = w.order[p].row
        w.score[p] = -w.order[p].key           # exact: the score itself
        w.grade[p] = grade[a]
        w.gain[p] = gain[a]
        w.lam[p] = 0.0
        w.curv[p] = 0.0


cdef double _pairs(int64_t n, int64_t k, double max_dcg, const double* discount, double sigmoid, bint norm,
                   double distance_offset, Scratch* w) noexcept nogil:
    # λ and h of the pairs (i, j), i < k, i < j, added in place order; returns S = Σ 2σΔρ
    cdef int64_t i, j
    cdef double* score = w.score
    cdef double* grade = w.grade
    cdef double* gain = w.gain
    cdef double* lam = w.lam
    cdef double* curv = w.curv
    cdef double ds, delta, rho, p_lambda, p_hess, total = 0.0
    cdef double grade_i, score_i, gain_i, discount_i, lam_i, curv_i
    cdef bint divide = norm and score[0] != score[n - 1]
    for i in range(k):
        grade_i = grade[i]
        score_i = score[i]
        gain_i = gain[i]
        discount_i = discount[i]
        lam_i = lam[i]                        # place i's sums continue in registers, in the same order
        curv_i = curv[i]
        for j in range(i + 1, n):
            if grade_i == grade[j]:
                continue
            if grade_i > grade[j]:
                ds = score_i - score[j]
                delta = (gain_i - gain[j]) * fabs(discount_i - discount[j]) / max_dcg
            else:
                ds = score[j] - score_i
                delta = (gain[j] - gain_i) * fabs(discount[j] - discount_i) / max_dcg
            if divide:
                delta = delta / (distance_offset + fabs(ds))
            rho = 1.0 / (1.0 + exp(sigmoid * ds))
            p_lambda = -sigmoid * delta * rho
            p_hess = sigmoid * sigmoid * delta * rho * (1.0 - rho)
            if grade_i > grade[j]:
                lam_i += p_lambda
                lam[j] -= p_lambda
            else:
                lam[j] += p_lambda
                lam_i -= p_lambda
            curv_i += p_hess
            curv[j] += p_hess
            total = total - 2.0 * p_lambda
        lam[i] = lam_i
        curv[i] = curv_i
    return total


cdef void _scatter(const int64_t* rows, int64_t n, double total, bint norm, Scratch* w, double[::1] grad,
                   double[::1] hess) noexcept nogil:
    cdef int64_t p, r
    cdef double factor = 1.0
    if norm and total > 0.0:
        factor = log2(1.0 + total) / total
    for p in range(n):
        r = rows[w.order[p].row]
        grad[r] = w.lam[p] * factor
        hess[r] = w.curv[p] * factor


cdef bint _reserve(Scratch* w, int64_t n, int64_t longest) noexcept nogil:
    # room for a query of n rows (False, and ``failed`` set, when memory runs out); growing by half at least, up
    # to the longest query, so queries of rising lengths cost few copies
    cdef Keyed* order
    cdef double* values
    if n <= w.capacity:
        return True
    n = min(max(n, w.capacity + w.capacity // 2), longest)
    order = <Keyed*> realloc(w.order, n * sizeof(Keyed))
    if order != NULL:
        w.order = order
    values = <double*> realloc(w.score, 5 * n * sizeof(double))
    if values != NULL:
        w.score = values
    if order == NULL or values == NULL:
        w.failed = True
        return False
    w.capacity = n
    w.grade = w.score + n
    w.gain = w.grade + n
    w.lam = w.gain + n
    w.curv = w.lam + n
    return True


def lambdarank_pairs(const int64_t[::1] rows, const int64_t[::1] starts, const int64_t[::1] sizes,
                     const double[::1] max_dcg, const double[::1] gain, const double[::1] grade,
                     const double[::1] discount, const double[::1] scores, int64_t truncation, double sigmoid,
                     bint norm, double distance_offset, double[::1] grad, double[::1] hess, int n_threads):
    """λ and curvature of every row (``grad``, ``hess`` OUT, indexed by row), LightGBM's lambdarank.

    ``rows``: the row indices grouped by query (query q is
    ``rows[starts[q]:starts[q] + sizes[q]]``, each query's rows in row
    order); ``gain`` and ``grade``: the rows' gains and grades in that same
    order; ``max_dcg``: each query's ideal DCG at depth min(``truncation``,
    size) (a query with 0, or with one row, gets zeros); ``discount``:
    :func:`place_discounts` of the longest query; ``scores``: by row.  Each
    query's rows are ordered by score descending, ties in row order.  A pair
    (i, j), i < j places, i among the first ``truncation``, of different
    grades: with s the higher-graded row's score minus the lower's,
    Δ = |gain difference| · |discount difference| / max_dcg (over
    ``distance_offset`` + |s| with ``norm`` when the query's scores are not
    all equal), ρ = 1 / (1 + e^{σ s}); λ_high −= σΔρ, λ_low += σΔρ, both
    curvatures += σ²Δρ(1 − ρ); with ``norm`` each query's λ and h are scaled
    by log2(1 + S) / S, S the sum of 2σΔρ over its pairs.

    Time O(Σ_q n_q log n_q) to order the queries plus O(Σ_q n_q · min(truncation, n_q)) pairs, threads over
    queries; memory per thread 56 bytes a row of the longest query it meets (keys, inputs and sums in score
    order).
    """
    cdef Py_ssize_t n_queries = starts.shape[0], q
    cdef int64_t longest = 0, s, n, k
    cdef int t, threads
    cdef bint failed = False
    cdef double total
    cdef double work = <double> rows.shape[0] * <double> (truncation if truncation < 64 else 64)
    cdef Scratch* scratch
    for q in range(n_queries):
        longest = max(longest, sizes[q])
    if discount.shape[0] < longest:
        raise ValueError(f"discount: expected at least {longest} places (the longest query), got {discount.shape[0]}")
    threads = threads_for(work, n_threads, 262144.0)
    scratch = <Scratch*> calloc(threads, sizeof(Scratch))
    if scratch == NULL:
        raise MemoryError()
    for q in prange(n_queries, nogil=True, schedule="dynamic", chunksize=16, num_threads=threads):
        s = starts[q]
        n = sizes[q]
        if n < 2 or max_dcg[q] <= 0.0:
            _zero_rows(&rows[s], n, grad, hess)
            continue
        t = threadid()
        if not _reserve(&scratch[t], n, longest):
            continue
        _gather(&rows[s], n, &grade[s], &gain[s], scores, &scratch[t])
        k = n if truncation > n else truncation
        total = _pairs(n, k, max_dcg[q], &discount[0], sigmoid, norm, distance_offset, &scratch[t])
        _scatter(&rows[s], n, total, norm, &scratch[t], grad, hess)
    for t in range(threads):
        failed = failed or scratch[t].failed
        free(scratch[t].order)
        free(scratch[t].score)
    free(scratch)
    if failed:
        raise MemoryError()

"""YetiRank's gradient and curvature in one pass per query and permutation (``_yetirank.py`` states the formulas).

Design
------
A. A NumPy form (sort all rows by (query, noisy score) with ``lexsort`` once
   per permutation, then arrays of P · n pairs) took 6 ms an iteration on
   3,800 rows at P = 10: more than the tree it feeds.  Here each query's rows
   are copied into a small buffer of (noisy score, row) and ordered there,
   and the neighbours' λ and h are added to their rows at once.
B. Only the first ``places + 1`` places of a noisy order carry weight (the
   caller drops the places whose decay^k is below 1e-6): a longer query is
   first split around its (places + 1)-th best row by a selection (Hoare's,
   median-of-three pivots: O(n_q)), and only that head is sorted.  Selection and sort use one total
   order (noisy score, then row), so the result does not depend on the
   pivots.  A query of 1,000 rows costs a selection and a sort of 87 rows
   instead of a sort of 1,000.  Both are ``rankcore._keyed_sort``'s, on the
   keys −(noisy score), inlined (libc's qsort, a call per comparison, took
   twice as long on queries of 30-100 rows).
C. The noise is ``_counter_hash.pxd``'s counter-based hash of (key of the
   permutation, row number), its top ``table_bits`` bits an index into a
   table of the logistic quantiles (both from Python): no logarithm per
   row, and the kernel and ``logistic_noise`` draw the same numbers, bit
   for bit.
D. One thread: queries are independent, so threads over queries are possible
   should it matter.
"""

from libc.stdint cimport int64_t, uint64_t
from libc.math cimport exp, fabs
from libc.stdlib cimport free, malloc

from rankcore._keyed_sort cimport Keyed, keyed_select, keyed_sort
from rankcore.objectives._counter_hash cimport row_bits


cdef void _one_query(const double[::1] y, const double[::1] f, const int64_t[::1] rows, Py_ssize_t lo,
                     Py_ssize_t hi, const uint64_t[::1] keys, uint64_t first_row, const double[::1] table,
                     int shift, const double[::1] weights, double scale, bint newton, Keyed *buf,
                     double[::1] grad, double[::1] hess) noexcept nogil:
    cdef Py_ssize_t n = hi - lo, k, p, head
    cdef int64_t a, b, high, low
    cdef uint64_t bits
    cdef double c, rho, lam
    head = min(n, weights.shape[0] + 1)          # places 0 .. head − 1: pairs (k, k + 1) for k < head − 1
    for p in range(keys.shape[0]):
        for k in range(n):
            a = rows[lo + k]
            bits = row_bits(keys[p], first_row + <uint64_t> a)
            buf[k].row = a
            buf[k].key = -(f[a] + table[bits >> shift])     # the highest noisy score first
        if head < n:
            keyed_select(buf, n, head)
        keyed_sort(buf, head)
        for k in range(head - 1):
            a = buf[k].row
            b = buf[k + 1].row
            if y[a] == y[b]:
                continue
            if y[a] > y[b]:
                high, low = a, b
            else:
                high, low = b, a
            c = weights[k] * fabs(y[a] - y[b]) * scale
            rho = 1.0 / (1.0 + exp(f[high] - f[low]))
            lam = c * rho
            grad[high] -= lam
            grad[low] += lam
            if newton:
                hess[high] += lam * (1.0 - rho)
                hess[low] += lam * (1.0 - rho)


def yetirank_gradient(const double[::1] y,             # IN: grades, by row
                      const double[::1] f,             # IN: scores, by row
                      const int64_t[::1] rows,         # IN: row indices grouped by query
                      const int64_t[::1] bounds,       # IN: query q is rows[bounds[q]:bounds[q + 1]]
                      const uint64_t[::1] keys,        # IN: one noise key per permutation
                      uint64_t first_row,
                      const double[::1] table,         # IN: 2^b logistic quantiles, indexed by the top b bits
                      const double[::1] weights,       # IN: decay^k of the places k kept (length: places)
                      bint newton,
                      double[::1] grad,                # OUT (zeroed here)
                      double[::1] hess):               # OUT (zeroed here; 1 everywhere without newton)
    """YetiRank's λ and h of every row for the permutations of ``keys``.

    Time O(P · Σ_q (n_q + m_q log m_q)), m_q = min(n_q, places + 1); memory
    one buffer of the longest query (16 bytes a row).
    """
    cdef Py_ssize_t n_queries = bounds.shape[0] - 1, q, i, longest = 0
    cdef double scale = 1.0 / keys.shape[0]
    cdef int shift = 64
    cdef Keyed *buf
    while (<Py_ssize_t> 1) << (64 - shift) < table.shape[0]:
        shift -= 1
    if (<Py_ssize_t> 1) << (64 - shift) != table.shape[0]:
        raise ValueError(f"table: expected a power of 2 entries, got {table.shape[0]}")
    for i in range(grad.shape[0]):
        grad[i] = 0.0
        hess[i] = 0.0 if newton else 1.0
    for q in range(n_queries):
        longest = max(longest, bounds[q + 1] - bounds[q])
    if longest < 2 or weights.shape[0] == 0:
        return
    buf = <Keyed *> malloc(longest * sizeof(Keyed))
    if buf == NULL:
        raise MemoryError()
    with nogil:
        for q in range(n_queries):
            _one_query(y, f, rows, bounds[q], bounds[q + 1], keys, first_row, table, shift, weights, scale, newton,
                       buf, grad, hess)
    free(buf)

"""Column summaries of a dense matrix for the ``trees`` learner's bins and bundles, in one pass over its rows.

Both kernels read row-major (n, d) X once, row by row (a row's values share
cache lines), with the columns cut into one contiguous group per thread, so
each column is summarized by one thread in row order: the result does not
depend on the number of threads.

* :func:`few_distinct` -- each column's sorted distinct values, for the
  columns with at most k of them (their bin edges are all the midpoints:
  no sort of the column, which one-hot and other low-cardinality columns
  spend most of the binning time on);
* :func:`outside_counts` and :func:`outside_rows` -- the rows at which each
  column leaves an interval (lo, hi] (its default bin): the non-default
  rows that exclusive bundling checks, counted, then listed by column.
"""

from cython.parallel cimport prange
from libc.math cimport isnan
from libc.stdint cimport int64_t, uint8_t

from rankcore.typedefs cimport real_t
from rankcore._parallel cimport threads_for
from rankcore.learners.histograms cimport bin_code

import numpy as np


cdef inline void _distinct_group(const real_t* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* rows,
                                 Py_ssize_t j0, Py_ssize_t j1, Py_ssize_t k, double* values,
                                 Py_ssize_t* counts) noexcept nogil:
    """Columns [j0, j1) of the rows: their sorted distinct values into values[j·k:], counts[j] (−1: more than k)."""
    cdef Py_ssize_t i, r, j, lo, mid, c
    cdef double x
    cdef double* v
    for i in range(n):
        r = rows[i] if rows != NULL else i
        for j in range(j0, j1):
            c = counts[j]
            if c < 0:
                continue
            x = <double> X[r * d + j]
            if isnan(x):
                continue
            v = values + j * k
            lo = 0
            if c <= 8:                      # few values (one-hot: two): count them, without branches
                for mid in range(c):
                    lo += v[mid] < x
            else:                           # lower bound of x among the c sorted values
                lo = bin_code(x, v, c)
            if lo < c and v[lo] == x:
                continue
            if c == k:                      # a (k + 1)-th value: the column is left to the sort
                counts[j] = -1
                continue
            for mid in range(c, lo, -1):
                v[mid] = v[mid - 1]
            v[lo] = x
            counts[j] = c + 1


def few_distinct(const real_t[:, ::1] X, Py_ssize_t k, rows=None, int n_threads=1):
    """Each column's sorted distinct non-NaN values over the rows, if it has at most k of them.

    Parameters
    ----------
    X : (n, d) float32 or float64, C-contiguous
    k : int >= 1
    rows : (m,) intp array or None
        The rows to read (every row by default), each in [0, n).
    n_threads : int

    Returns
    -------
    values : (d, k) float64
        Column j's distinct values ascending in ``values[j, :counts[j]]``
        (a value equal to 0 is kept with the sign of its first occurrence).
    counts : (d,) intp
        The number of distinct values, or −1 when column j has more than k.

    O(m·d·log k) time, plus O(k) per insertion of a new value (O(d·k²) in
    all); O(d·k) memory.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], m = n, t
    cdef const Py_ssize_t[::1] rv
    cdef const Py_ssize_t* rp = NULL
    if k < 1:
        raise ValueError(f"k: expected an integer >= 1, got {k}")
    if rows is not None:
        rv = np.ascontiguousarray(rows, dtype=np.intp)
        m = rv.shape[0]
        if m > 0:
            if np.min(rv) < 0 or np.max(rv) >= n:
                raise ValueError(f"rows: every row must be in [0, {n})")
            rp = &rv[0]
    values = np.zeros((d, k))
    counts = np.zeros(d, dtype=np.intp)
    cdef double[:, ::1] vv = values
    cdef Py_ssize_t[::1] cv = counts
    if d == 0 or m == 0:
        return values, counts
    cdef int T = threads_for(<double> m * d, n_threads, 262144.0)
    if T > d:
        T = <int> d
    with nogil:
        if T <= 1:
            _distinct_group(&X[0, 0], m, d, rp, 0, d, k, &vv[0, 0], &cv[0])
        else:
            for t in prange(T, schedule="static", chunksize=1, num_threads=T):
                _distinct_group(&X[0, 0], m, d, rp, (t * d) // T, ((t + 1) * d) // T, k, &vv[0, 0], &cv[0])
    return values, counts


cdef inline void _count_group(const real_t* X, Py_ssize_t n, Py_ssize_t d, Py_ssize_t j0, Py_ssize_t j1,
                              const double* lo, const double* hi, int64_t* counts) noexcept nogil:
    cdef Py_ssize_t r, j
    cdef double x
    for r in range(n):
        for j in range(j0, j1):
            x = <double> X[r * d + j]
            counts[j] += not (x > lo[j] and x <= hi[j])


def outside_counts(const real_t[:, ::1] X, const double[::1] lo, const double[::1] hi, int n_threads=1):
    """counts[j] = #{rows r : not lo[j] < X[r, j] <= hi[j]} (NaN counts as outside).

    O(n·d) time, O(d) memory; parallel over groups of columns.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], t
    if lo.shape[0] != d or hi.shape[0] != d:
        raise ValueError(f"outside_counts: lo and hi must hold one bound per column ({d})")
    counts = np.zeros(d, dtype=np.int64)
    cdef int64_t[::1] cv = counts
    if d == 0 or n == 0:
        return counts
    cdef int T = threads_for(<double> n * d, n_threads, 262144.0)
    if T > d:
        T = <int> d
    with nogil:
        if T <= 1:
            _count_group(&X[0, 0], n, d, 0, d, &lo[0], &hi[0], &cv[0])
        else:
            for t in prange(T, schedule="static", chunksize=1, num_threads=T):
                _count_group(&X[0, 0], n, d, (t * d) // T, ((t + 1) * d) // T, &lo[0], &hi[0], &cv[0])
    return counts


def outside_rows(const real_t[:, ::1] X, const Py_ssize_t[::1] columns, const double[::1] lo,
                 const double[::1] hi, const int64_t[::1] indptr):
    """The rows at which each listed column leaves its interval, ascending: CSC-like lists.

    ``columns[q]``'s rows r with not lo[q] < X[r, columns[q]] <= hi[q] are
    written to ``rows[indptr[q]:indptr[q + 1]]``; ``indptr`` comes from
    :func:`outside_counts` (a mismatch is a ValueError).  O(n·len(columns))
    time, O(Σ counts) memory.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], q, r, nq = columns.shape[0], j
    cdef double x
    if lo.shape[0] != nq or hi.shape[0] != nq or indptr.shape[0] != nq + 1:
        raise ValueError("outside_rows: lo, hi need one bound per column listed and indptr one more entry")
    for q in range(nq):
        if not 0 <= columns[q] < d:
            raise ValueError(f"outside_rows: column {columns[q]} is not one of the {d} columns")
        if indptr[q + 1] < indptr[q]:
            raise ValueError("outside_rows: indptr must not decrease")
    out = np.empty(indptr[nq] if nq > 0 else 0, dtype=np.intp)
    fill = np.array(indptr[:nq], dtype=np.int64)
    cdef Py_ssize_t[::1] o = out
    cdef int64_t[::1] f = fill
    cdef bint overflow = False
    with nogil:
        for r in range(n):
            for q in range(nq):
                j = columns[q]
                x = <double> X[r, j]
                if not (x > lo[q] and x <= hi[q]):
                    if f[q] >= indptr[q + 1]:
                        overflow = True
                        break
                    o[f[q]] = r
                    f[q] += 1
            if overflow:
                break
    if overflow or any(f[q] != indptr[q + 1] for q in range(nq)):
        raise ValueError("outside_rows: indptr does not match the columns' counts")
    return out


def first_free_bundle(const uint8_t[:, ::1] used,      # IN  (b, n) each open bundle's rows taken (0/1)
                      const uint8_t[::1] eligible,     # IN  (b,) bundles that may still take the feature
                      const Py_ssize_t[::1] rows):     # IN  the feature's non-default rows
    """The first eligible bundle k that no row of ``rows`` is taken in (used[k, r] == 0 for all), or −1.

    Exclusive bundling tries a feature against every open bundle in turn; a
    bundle it meets usually shows it within the first few rows, so each try
    stops at its first conflict.  O(b + the rows read: at most b·len(rows)),
    no allocation.
    """
    cdef Py_ssize_t b = used.shape[0], m = rows.shape[0], n = used.shape[1], k, i, found = -1
    if eligible.shape[0] != b:
        raise ValueError(f"first_free_bundle: eligible must have one entry per bundle ({b}), got {eligible.shape[0]}")
    for i in range(m):
        if not 0 <= rows[i] < n:
            raise ValueError(f"first_free_bundle: row {rows[i]} is not one of the {n} rows")
    with nogil:
        for k in range(b):
            if not eligible[k]:
                continue
            i = 0
            while i < m and not used[k, rows[i]]:
                i += 1
            if i == m:
                found = k
                break
    return found

"""Kernels of the threshold learners (``stumps``, ``thresholds``) and the ``features`` learner, over
feature-major codes.

Design
------
A. A threshold ranker is h(x) = 1[x_j > t].  With the candidate thresholds
   of feature j sorted (the bin edges e_0 < e_1 < ...), a row's code is
   c = #{b : e_b < x_j} and h_b(x) = 1[c > b] exactly, so the derivative of
   every candidate of feature j is a suffix sum of one histogram of the
   gradient over the codes: one pass over the rows per iteration finds the
   best threshold of every feature (a depth-1 GBDT round).
B. Codes are stored feature-major, (d, n) uint8 (or uint16 beyond 256 bins),
   so a feature's codes are contiguous.  Rows are processed in chunks of
   ``HIST_ROWS`` (the chunk of the gradient stays in cache while every feature reads
   it); within a chunk the features are split over threads (prange).  Each
   feature's histogram is accumulated by one thread in row order, so the
   result is bitwise identical for any ``n_threads``.
C. The encoder binary-searches each value in its feature's edges (``bin_code``), in
   parallel over features; it reads X in either float32 or float64.
"""

from cython.parallel cimport prange

from rankcore.typedefs cimport code_t, real_t
from rankcore._parallel cimport threads_for
from rankcore.learners.histograms cimport bin_code, feature_histograms, HIST_ROWS

import numpy as np


def encode(const real_t[:, ::1] X,              # IN  (n, d) feature values
           const double[::1] edges,             # IN  concatenated sorted edges of every feature
           const Py_ssize_t[::1] offsets,       # IN  (d + 1,) feature j's edges: edges[offsets[j]:offsets[j+1]]
           code_t[:, ::1] codes,                # OUT (d, n) c = #{edges of j < x}
           int n_threads=1):
    """Bin codes of every value.  O(n·d·log B) time, no extra memory."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], j, r
    cdef const double* e = &edges[0] if edges.shape[0] > 0 else NULL
    n_threads = threads_for(<double> n * d, n_threads, 65536.0)
    with nogil:
        for j in prange(d, schedule="dynamic", num_threads=n_threads):
            for r in range(n):
                codes[j, r] = <code_t> bin_code(X[r, j], e + offsets[j], offsets[j + 1] - offsets[j])


cdef inline int _feature_threads(Py_ssize_t n, Py_ssize_t d, int n_threads) noexcept nogil:
    """Threads of a region that deals d features of n rows out round-robin: 1 to min(n_threads, d)."""
    cdef int T = threads_for(<double> n * d, n_threads, 262144.0)
    if T > d:
        T = <int> d
    return T if T >= 1 else 1


def histograms(const code_t[:, ::1] codes,   # IN  (d, n) bin codes
               const double[::1] g,          # IN  (n,) gradient weights
               double[:, ::1] hist,          # OUT (d, B) Σ g over rows of each (feature, code); zeroed here
               int n_threads=1):
    """Histogram of the gradient per feature and bin.  O(n·d) time, O(d·B) memory.

    ``rankcore.learners.histograms.feature_histograms`` with one class: thread
    t owns features t, t + T, ... and walks the rows in chunks, so a chunk of
    g is read from cache by every feature of the thread.  Each feature's bins
    are summed in row order by one thread: the result does not depend on
    ``n_threads``.  Every code must be < B (the layout's encoder guarantees
    it); only those B bins of a feature are ever written.
    """
    cdef Py_ssize_t d = codes.shape[0], n = codes.shape[1], B = hist.shape[1]
    cdef int T
    if hist.shape[0] != d:
        raise ValueError(f"hist: expected {d} rows (one per feature of codes), got {hist.shape[0]}")
    if g.shape[0] != n:
        raise ValueError(f"g: expected {n} values (as codes has rows), got {g.shape[0]}")
    hist[:, :] = 0.0
    if n == 0 or d == 0:
        return
    T = _feature_threads(n, d, n_threads)
    with nogil:
        feature_histograms(&codes[0, 0], d, n, &g[0], &hist[0, 0], B, 1, n, T)


def dots(const double[:, ::1] Z,   # IN  (d, n) scaled features, feature-major
         const double[::1] g,      # IN  (n,) gradient weights
         double[::1] out,          # OUT (d,) Σ_n g_n Z[j, n]
         int n_threads=1):
    """Per-feature dot products with the gradient.  O(n·d) time, O(1) extra memory.

    One parallel region, features split over threads as in :func:`histograms`;
    each dot product is summed in row order by one thread.
    """
    cdef Py_ssize_t d = Z.shape[0], n = Z.shape[1], t, j, r, r0, r_end, c
    cdef double s
    cdef int T
    out[:] = 0.0
    T = _feature_threads(n, d, n_threads)
    with nogil:
        for t in prange(T, schedule="static", chunksize=1, num_threads=T):
            for c in range((n + HIST_ROWS - 1) // HIST_ROWS):
                r0 = c * HIST_ROWS
                r_end = min(r0 + HIST_ROWS, n)
                j = t
                while j < d:
                    s = out[j]
                    for r in range(r0, r_end):
                        s = s + g[r] * Z[j, r]
                    out[j] = s
                    j = j + T

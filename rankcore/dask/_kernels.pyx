"""Worker-side kernels of the Dask backend: per-class histograms of the gradient.

Design
------
A. With the exponential loss and a homogeneous price, the line search along
   a threshold ranker h = 1[code_j > b] needs, per class, the sums of the
   rows' |gradient| on either side of the threshold (docs/theory/push.md#log-space: four numbers
   give φ at every α).  Histograms of the gradient per feature, bin *and
   class* hold those sums for every candidate at once, so one pass over the
   rows per iteration gives both the weak-ranker search (the two classes
   added) and the line search of whichever ranker wins (prefix and suffix
   sums of one feature's two class histograms): 2 × features × bins doubles,
   16 bytes per (feature, bin), per worker per iteration.
B. The rows of a block are stored negatives first, then positives (the
   backend sorts each block by label once, when it encodes it), so the class
   of a row is known from its position: the kernel walks the rows below
   ``n_neg`` into the negatives' histogram and the rest into the positives',
   with exactly the loop of the one-class histogram (no label is read).
C. Layout (d, B, 2): the two classes of a bin are adjacent.  The loop is
   ``rankcore.learners.histograms.feature_histograms`` with two classes (the
   ``stumps`` histogram's, written once): parallel over features, rows in
   chunks so a chunk of g stays in cache while every feature of the thread
   reads it; each feature's bins are summed by one thread in row order, so
   the result does not depend on n_threads.
D. The histogram is *added to* (not zeroed): a worker accumulates all its
   blocks into one array and sends only that.
"""

from rankcore.typedefs cimport code_t
from rankcore._parallel cimport threads_for
from rankcore.learners.histograms cimport feature_histograms


def class_histograms(const code_t[:, ::1] codes,   # IN  (d, n) bin codes, negatives' rows first
                     const double[::1] g,           # IN  (n,) gradient weights
                     Py_ssize_t n_neg,              # IN  rows [0, n_neg) are negatives, the rest positives
                     double[:, :, ::1] hist,        # IN/OUT (d, B, 2) added to: Σ g per (feature, code, class)
                     int n_threads=1):
    """Add the histogram of the gradient per feature, bin and class into ``hist``.

    ``hist[j, c, 0]`` sums g over the negatives' rows (r < n_neg) with code c
    of feature j, ``hist[j, c, 1]`` over the positives' rows.  Every code
    must be < B (the layout's encoder guarantees it).  O(n·d) time, no memory
    beyond ``hist`` (and 8 KiB of stack per thread for uint8 codes).
    """
    cdef Py_ssize_t d = codes.shape[0], n = codes.shape[1], B = hist.shape[1]
    cdef int T
    if hist.shape[0] != d or hist.shape[2] != 2:
        raise ValueError(f"hist: expected shape ({d}, B, 2), got ({hist.shape[0]}, {hist.shape[1]}, {hist.shape[2]})")
    if g.shape[0] != n:
        raise ValueError(f"g: expected {n} rows (as codes), got {g.shape[0]}")
    if not 0 <= n_neg <= n:
        raise ValueError(f"n_neg: expected a row count in [0, {n}], got {n_neg}")
    if n == 0 or d == 0:
        return
    T = threads_for(<double> n * d, n_threads, 262144.0)
    if T > d:
        T = <int> d
    if T < 1:
        T = 1
    with nogil:
        feature_histograms(&codes[0, 0], d, n, &g[0], &hist[0, 0, 0], B, 2, n_neg, T)

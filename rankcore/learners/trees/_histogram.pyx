"""Histogram regression-tree kernels of the ``trees`` learner.

Design
------
A. Bin codes are uint8, stored **row-major** (n, c) (unlike ``stumps``): a
   node's rows are visited in index order, and a row's codes share a cache
   line, where a column-major layout costs one cache miss per row *and*
   column on large data.  Feature j's bin of a value x is
   b = #{edges of j < x} in [0, n_edges_j] (at most 254 edges), and NaN
   gets the bin n_edges_j + 1.  A split (j, b) sends a row right iff its bin
   is > b, i.e. iff x > edges[b]: training (codes) and prediction (raw
   values) route every row the same way, exactly.
B. Histograms are **compact**: an (S, 3) array of (Σg, Σh, count) per slot,
   feature j owning the n_edges_j + 2 slots from ``base[j]`` (its bins, then
   NaN), so a node's histogram -- zeroed, subtracted and scanned once per
   node -- costs Σ_j (n_edges_j + 2) slots, not d·256 (binary features: 3).
   A code column is one feature (code = bin) or a bundle of mutually
   exclusive features (see :class:`SlotLayout`); column c's code k counts in
   slot ``col_base[c] + k``.
C. Rows are partitioned per node as in LightGBM: every block keeps a
   permutation ``idx`` of its rows in which each node owns a contiguous range
   [start, end).  Splitting a node is a stable in-place partition of its
   range (``partition``), driven by a 256-entry table saying which codes of
   the split's column go left (``split_table``), so a node's rows stay in
   increasing order and its histogram costs O(rows in node × columns).
D. ``node_histogram`` (``rankcore.learners.histograms``) gathers the node's
   gradient and Hessian, then fills the slots of every column: one contiguous
   group of columns per thread, each thread walking the node's rows in order,
   so every slot is summed in row order by one thread -- the result does not
   depend on ``n_threads``.  The sibling's histogram is the parent's minus it.
E. Every buffer (idx, scratch, gathered gradients) is allocated once per fit
   and block by the caller; no kernel allocates memory proportional to n·d.
F. Prediction (from codes or raw values) is in ``_predict.pyx``.
"""

from cython.parallel cimport parallel, prange, threadid
from libc.math cimport isnan
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t

from rankcore.typedefs cimport index_t, real_t
from rankcore._parallel cimport rc_barrier, threads_for
from rankcore.learners.histograms cimport (RC_PREFETCH, HIST_AHEAD, HIST_PARALLEL_ROWS, bin_code, column_share,
                                          node_histogram as _node_histogram, node_histogram_part,
                                          node_histogram_threads, rc_hist_on, rc_hist_vectors)

import numpy as np

cdef enum:
    C_MAX_EDGES = 254
    # rows of a block that :func:`encode` bins feature by feature (their values of 637 features, 330 KB,
    # stay in the L2 cache from one feature to the next)
    ENCODE_ROWS = 64

#: Rows below which :func:`partition` and the gather of :func:`node_histogram` stay on one thread.
PARALLEL_ROWS = HIST_PARALLEL_ROWS
#: Largest number of bin edges of a feature (its bins 0..254 and the NaN bin fit a uint8 code).
MAX_EDGES = C_MAX_EDGES


cdef inline const Py_ssize_t* _ptr(const Py_ssize_t[::1] a) noexcept:
    return &a[0] if a.shape[0] > 0 else NULL


cdef class SlotLayout:
    """Where each feature's bins live: in the histogram (slots) and in the codes (columns).

    Parameters
    ----------
    base : (d,) int
        Feature j's first slot; its bins 0..n_edges[j] and NaN bin
        n_edges[j] + 1 take the n_edges[j] + 2 slots from there.
    n_edges : (d,) int in [0, 254]
    col : (d,) int
        The code column of feature j.
    col_base : (n_cols,) int
        The slot of code 0 of each column: the feature's first slot for a
        column holding one feature; for a *bundle* (several features none of
        which leaves its default bin on the same row), a slot of its own
        counting the rows where every member is at its default bin, and member
        j's bin b is the code base[j] + b − col_base.
    default_bin : (d,) int
        A bundled feature's default bin (its rows are not coded in its
        column, and its slot is filled by subtraction: the node's total minus
        the feature's other slots), −1 for a feature alone in its column.
    n_slots : int
        S, the histogram's length.
    categorical : (d,) bool, optional
        Feature j's bins are categories (split by groups of them, see
        :func:`best_split`); default: none.
    sparse_columns : int, optional
        The first this many columns are *sparse* bundles (code 0 on nearly
        every row): the histograms do not count their code 0, which no split
        reads (a member's default-bin slot is the node's total minus its other
        slots).  Each must be a bundle whose code 0 has a slot of its own.

    Every feature's slots must lie in [0, S), and a bundle's codes in [0, 255];
    a ValueError says which feature or column breaks this.
    """

    def __cinit__(self, base, n_edges, col, col_base, default_bin, Py_ssize_t n_slots, categorical=None,
                  Py_ssize_t sparse_columns=0):
        cdef Py_ssize_t d, j
        self.base = np.ascontiguousarray(base, dtype=np.intp)
        self.n_edges = np.ascontiguousarray(n_edges, dtype=np.intp)
        self.col = np.ascontiguousarray(col, dtype=np.intp)
        self.col_base = np.ascontiguousarray(col_base, dtype=np.intp)
        self.default_bin = np.ascontiguousarray(default_bin, dtype=np.intp)
        d = self.base.shape[0]
        self.categorical = np.ascontiguousarray(np.zeros(d, dtype=np.uint8) if categorical is None else categorical,
                                                dtype=np.uint8)
        if any(a.ndim != 1 or a.shape[0] != d for a in (self.n_edges, self.col, self.default_bin, self.categorical)):
            raise ValueError(f"SlotLayout: base, n_edges, col, default_bin and categorical must be 1-D of length {d}")
        n_cols = self.col_base.shape[0]
        for j in range(d):
            b, e, c, z = int(self.base[j]), int(self.n_edges[j]), int(self.col[j]), int(self.default_bin[j])
            if not (0 <= e <= MAX_EDGES and 0 <= b and b + e + 2 <= n_slots and 0 <= c < n_cols
                    and -1 <= z <= e + 1):
                raise ValueError(f"SlotLayout: feature {j} (base {b}, n_edges {e}, column {c}, default bin {z}) "
                                 f"does not fit {n_slots} slots and {n_cols} columns")
            cb = int(self.col_base[c])
            if z < 0 and cb != b:
                raise ValueError(f"SlotLayout: feature {j} is alone in column {c} but the column starts at slot {cb}")
            if not (0 <= cb <= b and b + e + 1 - cb <= 255):
                raise ValueError(f"SlotLayout: feature {j}'s codes in column {c} do not fit [0, 255]")
        self.bundled = np.ascontiguousarray(np.flatnonzero(self.default_bin >= 0), dtype=np.intp)
        self.fs.d = d
        self.fs.n_cols = n_cols
        self.fs.n_slots = n_slots
        self.fs.base = _ptr(self.base)
        self.fs.n_edges = _ptr(self.n_edges)
        self.fs.col = _ptr(self.col)
        self.fs.col_base = _ptr(self.col_base)
        self.fs.default_bin = _ptr(self.default_bin)
        self.fs.n_bundled = self.bundled.shape[0]
        self.fs.bundled = _ptr(self.bundled)
        own_slot = np.zeros(n_cols, dtype=bool)              # columns whose code 0 is a slot of its own
        own_slot[self.col[self.bundled]] = True
        own_slot[self.col[self.base == self.col_base[self.col]]] = False
        if not (0 <= sparse_columns <= n_cols and own_slot[:sparse_columns].all()):
            raise ValueError(f"SlotLayout: sparse_columns={sparse_columns} must count leading columns that are "
                             f"bundles with a slot of their own for code 0 (of {n_cols} columns)")
        self.fs.n_skip0 = sparse_columns
        cdef const uint8_t[::1] cat = self.categorical
        self.fs.categorical = &cat[0] if d > 0 else NULL
        ends = np.r_[self.col_base[1:], n_slots] if n_cols > 0 else np.empty(0, dtype=np.intp)
        self.fs.column_slots = bool(np.all(ends >= self.col_base)
                                    and np.all(self.base >= self.col_base[self.col])
                                    and np.all(self.base + self.n_edges + 2 <= ends[self.col]))
        self.column_work = None
        self.fs.col_work = NULL

    def set_column_work(self, work):
        """Share the code columns among threads by their expected cost ``work`` (n_cols,), not by their count.

        Thread t of T then takes the columns from the first one where the
        cost's partial sum reaches t/T of the total
        (``histograms.column_share``): the histograms' filling and the
        scans of their slots.  Only the speed depends on it, never a sum.
        None: back to equal counts.  A ValueError unless ``work`` holds one
        finite number >= 0 per column with a positive total.
        """
        cdef const double[::1] view
        if work is None:
            self.column_work = None
            self.fs.col_work = NULL
            return
        w = np.asarray(work, dtype=np.float64)
        if w.ndim != 1 or w.shape[0] != self.fs.n_cols or not np.all(np.isfinite(w)) or np.any(w < 0) \
                or not w.sum() > 0:
            raise ValueError(f"work: expected {self.fs.n_cols} finite costs >= 0 (one per code column) with a "
                             f"positive total, got {work!r}")
        self.column_work = np.ascontiguousarray(np.r_[0.0, np.cumsum(w)])
        view = self.column_work
        self.fs.col_work = &view[0]

    @property
    def n_slots(self):
        return self.fs.n_slots

    @property
    def n_cols(self):
        return self.fs.n_cols

    def __reduce__(self):
        return (SlotLayout, (self.base, self.n_edges, self.col, self.col_base, self.default_bin, self.fs.n_slots,
                             self.categorical, self.fs.n_skip0))

    @property
    def sparse_columns(self):
        return self.fs.n_skip0

    @property
    def column_slots(self):
        """Whether each column's slots lie between its first slot and the next column's (columns in slot order)."""
        return bool(self.fs.column_slots)


cdef inline int _put_code(const FeatureSlots* fs, uint8_t* row, Py_ssize_t j, double x, const double* edges,
                          const Py_ssize_t* offsets) noexcept nogil:
    """Write feature j's code of the value x into its column of ``row``; 1 if that was a bundle conflict.

    NaN is bin n_edges[j] + 1.  A lone feature's code is its bin; a bundled
    feature writes only a non-default bin, as the column's code (a conflict
    when a member already wrote the column on this row).  A bundled
    feature's default bin is the bin of 0 (as ``encode_csr`` takes it for
    the values not stored), so its zeros write nothing without a search.
    """
    cdef Py_ssize_t b, c = fs.col[j], z = fs.default_bin[j]
    cdef int conflict = 0
    cdef bint moved
    if z >= 0 and x == 0.0:             # most values of a bundled (sparse) feature
        return 0
    if isnan(x):
        b = fs.n_edges[j] + 1
    else:
        b = bin_code(x, edges + offsets[j], offsets[j + 1] - offsets[j])
    if z < 0:
        row[c] = <uint8_t> b
    else:                           # (without a branch: whether a one-hot value is 1 is a coin flip)
        moved = b != z
        conflict = moved & (row[c] != 0)
        row[c] = <uint8_t> (b + fs.base[j] - fs.col_base[c]) if moved else row[c]
    return conflict


def encode(const real_t[:, ::1] X,              # IN  (n, d) feature values (NaN allowed)
           const double[::1] edges,             # IN  concatenated sorted edges of every feature
           const Py_ssize_t[::1] offsets,       # IN  (d + 1,) feature j's edges: edges[offsets[j]:offsets[j+1]]
           SlotLayout slots,
           uint8_t[:, ::1] codes,               # IN/OUT (n, n_cols) zeros on entry (bundles); the codes
           int n_threads=1,
           const Py_ssize_t[::1] columns=None):  # IN  (d,) or None: feature j is column columns[j] of X
    """Bin codes of every value (NaN → bin n_edges_j + 1), into each feature's column.

    A bundled feature writes only its non-default bins (as column codes);
    returns the number of values that found their bundle's column already
    written on the same row (0 when the bundles are exclusive on X).
    ``columns``: the columns of X that the layout's features are (a layout
    that leaves some out), read in place; None: every column, in order.
    O(n·d·log B) time, no extra memory; parallel over blocks of rows.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], j, r, b, r0, r1, q, conflicts = 0
    cdef const FeatureSlots* fs = &slots.fs
    cdef const double* e = &edges[0] if edges.shape[0] > 0 else NULL
    cdef const Py_ssize_t* where = NULL
    if columns is not None:
        if columns.shape[0] != fs.d or (fs.d > 0 and not (0 <= np.min(columns) and np.max(columns) < d)):
            raise ValueError(f"encode: columns must hold {fs.d} column indices of X's {d}")
        where = &columns[0] if fs.d > 0 else NULL
        d = fs.d
    if d != fs.d or codes.shape[0] != n or codes.shape[1] != fs.n_cols or offsets.shape[0] != d + 1:
        raise ValueError(f"encode: X has {d} features and codes {codes.shape[1]} columns; the layout "
                         f"expects {fs.d} and {fs.n_cols}")
    n_threads = threads_for(<double> n * d, n_threads, 65536.0)
    with nogil:
        # blocks of ENCODE_ROWS rows, feature by feature within a block: one feature's edges stay in the
        # core's cache while its binary search runs on the block's rows (row by row, every value of the
        # row searches a different feature's edges: on 637 features × 255 edges, 1.3 MB of them, a
        # cache miss a step); each row still takes its features in order (the same codes and conflicts)
        for b in prange((n + ENCODE_ROWS - 1) // ENCODE_ROWS, schedule="static", num_threads=n_threads):
            r0 = b * ENCODE_ROWS
            r1 = min(r0 + ENCODE_ROWS, n)
            for j in range(d):
                q = where[j] if where != NULL else j
                for r in range(r0, r1):
                    conflicts += _put_code(fs, &codes[r, 0], j, X[r, q], e, &offsets[0])
    return conflicts


def all_ones(const double[::1] h):
    """Whether every entry is 1.0 (stops at the first that is not: O(1) for a Hessian).  No allocation."""
    cdef Py_ssize_t i
    for i in range(h.shape[0]):
        if h[i] != 1.0:
            return False
    return True


def encode_csr(const index_t[::1] indptr,         # IN  (n + 1,) CSR row pointers
               const index_t[::1] indices,        # IN  (nnz,) column of each stored value (sorted per row)
               const real_t[::1] data,            # IN  (nnz,) stored values (NaN allowed)
               const double[::1] edges,           # IN  concatenated sorted edges of every feature
               const Py_ssize_t[::1] offsets,     # IN  (d + 1,)
               SlotLayout slots,
               const uint8_t[::1] column_default, # IN  (n_cols,) each column's code when every value is 0
               uint8_t[:, ::1] codes,             # OUT (n, n_cols)
               int n_threads=1):
    """The codes :func:`encode` gives the dense form of a CSR matrix, from its stored values only.

    Each row starts from the columns' codes of an all-zero row, then each
    stored value writes its feature's code as in :func:`encode`.  Returns the
    number of bundle conflicts (0 when the bundles are exclusive).
    O(n·c + nnz·log B), no extra memory; parallel over rows.
    """
    cdef Py_ssize_t n = codes.shape[0], r, k, c, conflicts = 0
    cdef const FeatureSlots* fs = &slots.fs
    cdef const double* e = &edges[0] if edges.shape[0] > 0 else NULL
    if indptr.shape[0] != n + 1 or codes.shape[1] != fs.n_cols or column_default.shape[0] != fs.n_cols \
            or offsets.shape[0] != fs.d + 1 or indices.shape[0] < indptr[n] or data.shape[0] < indptr[n]:
        raise ValueError("encode_csr: the CSR arrays, codes and column defaults do not fit the layout")
    for k in range(indptr[n]):
        if not 0 <= indices[k] < fs.d:
            raise ValueError(f"encode_csr: column index {indices[k]} out of range [0, {fs.d})")
    n_threads = threads_for(<double> n * fs.n_cols + indptr[n], n_threads, 65536.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for c in range(fs.n_cols):
                codes[r, c] = column_default[c]
            for k in range(indptr[r], indptr[r + 1]):
                conflicts += _put_code(fs, &codes[r, 0], indices[k], data[k], e, &offsets[0])
    return conflicts


def vector_updates(on=None):
    """Whether :func:`node_histogram` fills groups of dense columns with vectors of four doubles (AVX2 and up).

    With ``on``, set it from now on in this module (for the tests and the
    benchmark, which compare the vector updates with the scalar ones: the
    same bits; True where the CPU has no AVX2 is refused); returns the
    setting in use before.
    """
    global rc_hist_on
    cdef int previous = rc_hist_vectors()
    if on is not None:
        if not isinstance(on, (bool, np.bool_)):
            raise TypeError(f"on: expected a bool or None, got {on!r}")
        rc_hist_on = 1 if on else 0
        if on and not rc_hist_vectors():
            raise ValueError("on: this CPU (or this build) has no vector updates of four doubles")
    return bool(previous)


def transpose_codes(const uint8_t[:, ::1] codes, int n_threads=1):
    """The (c, n) column-major copy of (n, c) row-major codes: a split's partition reads one column.

    Blocked by 64 rows (a block's column segments are whole cache lines);
    O(n·c) time and memory, parallel over blocks.
    """
    cdef Py_ssize_t n = codes.shape[0], c = codes.shape[1], b, r, j, r0, r1
    out = np.empty((c, n), dtype=np.uint8)
    cdef uint8_t[:, ::1] o = out
    if n == 0 or c == 0:
        return out
    n_threads = threads_for(<double> n * c, n_threads, 1048576.0)
    with nogil:
        for b in prange((n + 63) // 64, schedule="static", num_threads=n_threads):
            r0 = b * 64
            r1 = min(r0 + 64, n)
            for j in range(c):
                for r in range(r0, r1):
                    o[j, r] = codes[r, j]
    return out


# ----------------------------------------------------------------------
# Histograms
# ----------------------------------------------------------------------
cdef void build_histogram(const uint8_t* codes, const FeatureSlots* fs, const double* g, const double* h,
                          const int32_t* idx, Py_ssize_t start, Py_ssize_t end, double* og, double* oh,
                          double* hist, int n_threads, bint identity, bint unit_h,
                          const int64_t* sp_ptr, const int32_t* sp_slot, const double* counts=NULL,
                          const uint8_t* codes_t=NULL, Py_ssize_t n_rows=0) noexcept nogil:
    """A node's histogram (``histograms.node_histogram``), then its bundled features' default-bin slots.

    With ``fs.column_slots`` one parallel region of :c:func:`histogram_part`
    (each thread fills its columns' default-bin slots itself); else the
    filling, then :c:func:`bundle_defaults` on one thread.  ``sp_ptr``,
    ``sp_slot`` (or NULL): the rows' listed sparse slots (:func:`listed_rows`),
    read instead of the sparse columns' codes (``fs.column_slots`` only).
    ``counts`` (or NULL; ``fs.column_slots`` only, else ignored): the
    slots' counts of these rows, known beforehand (:func:`root_counts`):
    copied, not counted row by row.  ``codes_t`` (or NULL; ``fs.column_slots``
    only): the block's ``n_rows`` codes column-major, from which the dense
    columns of a node with enough rows are filled (the same sums).
    O(m·c + S) for m rows and c columns (the sparse columns: O(their nonzero
    codes) when listed).
    """
    cdef bint gathered
    cdef int T, T_gather, team, tid = 0
    if fs.column_slots:
        node_histogram_threads(end - start, fs.n_cols, n_threads, identity, &T, &T_gather)
        team = T if T > T_gather else T_gather
        if team <= 1:
            histogram_part(codes, fs, g, h, idx, start, end, og, oh, hist, 0, T, T_gather, identity, unit_h,
                           sp_ptr, sp_slot, counts, codes_t, n_rows)
        else:
            with parallel(num_threads=team):
                tid = threadid()
                histogram_part(codes, fs, g, h, idx, start, end, og, oh, hist, tid, T, T_gather, identity, unit_h,
                               sp_ptr, sp_slot, counts, codes_t, n_rows)
        return
    gathered = _node_histogram(codes, fs.n_cols, fs.col_base, g, h, idx, start, end, og, oh, hist, fs.n_slots,
                               n_threads, identity, unit_h, fs.n_skip0)
    bundle_defaults(fs, g, h, idx, start, end, og, oh, hist, identity, gathered, unit_h)


cdef bint histogram_part(const uint8_t* codes, const FeatureSlots* fs, const double* g, const double* h,
                         const int32_t* idx, Py_ssize_t start, Py_ssize_t end, double* og, double* oh, double* hist,
                         int tid, int T, int T_gather, bint identity, bint unit_h,
                         const int64_t* sp_ptr, const int32_t* sp_slot, const double* counts=NULL,
                         const uint8_t* codes_t=NULL, Py_ssize_t n_rows=0) noexcept nogil:
    """Thread ``tid``'s share of :c:func:`build_histogram` (``fs.column_slots`` layouts), in a parallel region
    whose threads all call it (``T``, ``T_gather``: ``histograms.node_histogram_threads``).

    Thread t < T zeroes, fills and (``unit_h``) completes the slots of its
    columns (``histograms.node_histogram_part``), then the default-bin
    slots of the bundled features among them, from the node's totals that
    it summed in row order while filling (as :c:func:`bundle_defaults`
    sums them): no thread waits for another but in a parallel gather, and
    a thread may scan its columns right after.  Thread 0 alone (T = 1)
    owns every slot.  Returns whether og, oh hold the gathered g, h.
    O(m·c/T + S/T) per thread, no allocation.
    """
    cdef Py_ssize_t c = fs.n_cols, j0 = 0, j1 = 0, lo = 0, hi = 0, q, j
    cdef double totals[3]
    cdef bint bundles = False, gathered
    if tid < T:
        j0 = column_share(c, fs.col_work, tid, T)
        j1 = column_share(c, fs.col_work, tid + 1, T)
        # a group may be empty and end the columns (by cost, one of two threads can get none: the last column
        # costing more than half): col_base has no entry at n_cols, so such a group owns the slots from S on
        lo = 0 if tid == 0 else (fs.col_base[j0] if j0 < c else fs.n_slots)
        hi = fs.n_slots if tid == T - 1 or j1 >= c else fs.col_base[j1]
        for q in range(fs.n_bundled):
            if j0 <= fs.col[fs.bundled[q]] < j1:
                bundles = True
    gathered = node_histogram_part(codes, c, fs.col_base, g, h, idx, start, end, og, oh, hist, lo, hi, tid, T,
                                   T_gather, identity, unit_h, totals if bundles else NULL, fs.n_skip0, sp_ptr,
                                   sp_slot, counts, codes_t, n_rows, fs.col_work)
    if bundles:
        totals[2] = <double> (end - start if end > start else 0)
        for q in range(fs.n_bundled):
            j = fs.bundled[q]
            if j0 <= fs.col[j] < j1:
                _bundle_default(fs, j, hist, totals)
    return gathered


cdef inline void _bundle_default(const FeatureSlots* fs, Py_ssize_t j, double* hist,
                                 const double* totals) noexcept nogil:
    """Bundled feature j's default-bin slot: the node's totals minus its other slots, summed in slot order.

    The three sums (Σg, Σh, count) are walked together: three chains of
    additions in flight instead of one after the other, each in slot order
    as before.  O(n_edges_j), no allocation.
    """
    cdef Py_ssize_t b, z = fs.default_bin[j], base = fs.base[j]
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0
    cdef const double* x
    for b in range(fs.n_edges[j] + 2):
        if b != z:
            x = hist + (base + b) * 3
            s0 = s0 + x[0]
            s1 = s1 + x[1]
            s2 = s2 + x[2]
    hist[(base + z) * 3] = totals[0] - s0
    hist[(base + z) * 3 + 1] = totals[1] - s1
    hist[(base + z) * 3 + 2] = totals[2] - s2


cdef void bundle_defaults(const FeatureSlots* fs, const double* g, const double* h, const int32_t* idx,
                          Py_ssize_t start, Py_ssize_t end, const double* og, const double* oh, double* hist,
                          bint identity, bint gathered, bint unit_h) noexcept nogil:
    """The bundled features' default-bin slots of a node's filled histogram (nothing without bundles).

    A bundled feature's default bin gets the node's total (Σg, Σh, count,
    summed over its rows in order: from og, oh when ``gathered``) minus the
    feature's other slots, summed in slot order.  O(m + S), one thread.
    """
    cdef Py_ssize_t m = end - start, i, q
    cdef double totals[3]
    cdef const double* gg
    cdef const double* hh
    if fs.n_bundled == 0:
        return
    totals[0] = 0.0
    totals[1] = 0.0
    if identity or gathered:
        gg = g + start if identity else og
        hh = h + start if identity else oh
        for i in range(m):
            totals[0] += gg[i]
            totals[1] += 1.0 if unit_h else hh[i]
    else:                       # the same sums, in the same order, from the rows' own g and h
        for i in range(m):
            totals[0] += g[idx[start + i]]
            totals[1] += 1.0 if unit_h else h[idx[start + i]]
    totals[2] = <double> m
    for q in range(fs.n_bundled):
        _bundle_default(fs, fs.bundled[q], hist, totals)


def column_groups(SlotLayout slots, int T):
    """The code columns' T thread groups: (T + 1,) bounds, group t = columns [bounds[t], bounds[t + 1]).

    What every histogram, gain pass and node scan on T threads uses
    (``histograms.column_share``, by ``set_column_work``'s costs when set).
    A ValueError unless T >= 1.  O(T·log n_cols) time, O(T) memory: the bounds.
    """
    if T < 1:
        raise ValueError(f"T: expected a number of threads >= 1, got {T}")
    out = np.empty(T + 1, dtype=np.intp)
    cdef Py_ssize_t t
    for t in range(T + 1):
        out[t] = column_share(slots.fs.n_cols, slots.fs.col_work, t, T)
    return out


def node_histogram(const uint8_t[:, ::1] codes,   # IN  (n, n_cols) bin codes of the block
                   SlotLayout slots,
                   const double[::1] g,           # IN  (n,) gradient of the block's rows
                   const double[::1] h,           # IN  (n,) Hessian (or weight) of the block's rows
                   const int32_t[::1] idx,        # IN  (n,) row permutation; the node owns idx[start:end]
                   Py_ssize_t start, Py_ssize_t end,
                   double[::1] og,                # SCRATCH (n,) gathered gradient
                   double[::1] oh,                # SCRATCH (n,) gathered Hessian
                   double[:, ::1] hist,           # OUT (S, 3) Σg, Σh, count per slot; zeroed here
                   int n_threads=1,
                   bint identity=False,           # idx[start:end] is start..end-1 (the root): no gather
                   bint unit_h=False,             # h is all ones: Σh is the count (not accumulated)
                   listed=None,                   # IN  (sp_ptr, sp_slot) of listed_rows(codes, slots), or None
                   counts=None,                   # IN  (S,) the rows' counts per slot (root_counts), or None
                   codes_t=None):                 # IN  (n_cols, n) the same codes column-major, or None
    """(g, h, count) histogram of the rows idx[start:end], per slot (see :func:`build_histogram`).

    O(m·c) time for m = end − start rows and c columns, O(S) output, no
    allocation; bitwise independent of ``n_threads``, of ``listed``, of
    ``counts`` (when they are these rows' counts) and of ``codes_t`` (when
    it holds ``codes`` transposed).
    """
    cdef const uint8_t[:, ::1] ct
    cdef const uint8_t* ct_ptr = NULL
    cdef const FeatureSlots* fs = &slots.fs
    cdef Py_ssize_t n = codes.shape[0]
    cdef const int64_t* ptr = NULL
    cdef const int32_t* slot = NULL
    listed_pointers(listed, n, fs, &ptr, &slot, "node_histogram")
    cdef const double* known = checked_counts(counts, fs, "node_histogram")
    if codes.shape[1] != fs.n_cols or hist.shape[0] != fs.n_slots or hist.shape[1] != 3:
        raise ValueError(f"node_histogram: codes must have {fs.n_cols} columns and hist shape ({fs.n_slots}, 3)")
    if not (0 <= start <= end <= n) or g.shape[0] < n or h.shape[0] < n or idx.shape[0] < n \
            or og.shape[0] < end - start or oh.shape[0] < end - start:
        raise ValueError(f"node_histogram: rows [{start}, {end}) do not fit the {n} rows and buffers given")
    if codes_t is not None:
        ct = codes_t
        if ct.shape[0] != fs.n_cols or ct.shape[1] != n:
            raise ValueError(f"node_histogram: codes_t must be codes transposed, shape ({fs.n_cols}, {n}), got "
                             f"({ct.shape[0]}, {ct.shape[1]})")
        if n > 0 and fs.n_cols > 0:
            ct_ptr = &ct[0, 0]
    if fs.n_slots == 0:
        return
    with nogil:
        build_histogram(&codes[0, 0] if n > 0 else NULL, fs, &g[0] if n > 0 else NULL,
                        &h[0] if n > 0 else NULL, &idx[0] if n > 0 else NULL, start, end,
                        &og[0] if og.shape[0] > 0 else NULL, &oh[0] if oh.shape[0] > 0 else NULL,
                        &hist[0, 0], n_threads, identity, unit_h, ptr, slot, known, ct_ptr, n)


cdef const double* checked_counts(object counts, const FeatureSlots* fs, str caller) except? NULL:
    """A pointer to ``counts`` ((S,) float64, C-contiguous) or NULL for None; a ValueError naming ``caller``
    for any other shape.  The array stays the caller's: the pointer is good while it holds it."""
    cdef const double[::1] view
    if counts is None:
        return NULL
    view = counts
    if view.shape[0] != fs.n_slots or fs.n_slots == 0:
        raise ValueError(f"{caller}: counts must hold one count per slot ({fs.n_slots}), got {view.shape[0]}")
    return &view[0]


def root_counts(const uint8_t[:, ::1] codes, SlotLayout slots, listed=None, int n_threads=1):
    """(S,) float64: every slot's count over all the rows of ``codes`` (a root without row sampling).

    The count column of :func:`node_histogram` on every row, as that kernel
    fills it (a sparse column's code 0 not counted): a root's counts are the
    same tree after tree, so the growers copy them (``counts=``) and their
    rows update Σg and Σh alone.  O(n·c) time once per block, O(S + n) memory.
    """
    cdef Py_ssize_t n = codes.shape[0]
    hist = np.zeros((slots.fs.n_slots, 3))
    if n > 0 and slots.fs.n_slots > 0:
        zeros = np.zeros(n)
        node_histogram(codes, slots, zeros, zeros, np.arange(n, dtype=np.int32), 0, n, zeros, zeros, hist,
                       n_threads, True, False, listed)
    return np.ascontiguousarray(hist[:, 2])


cdef int listed_pointers(object listed, Py_ssize_t n, const FeatureSlots* fs, const int64_t** sp_ptr,
                         const int32_t** sp_slot, str caller) except -1:
    """Point ``sp_ptr``, ``sp_slot`` at ``listed`` (:func:`listed_rows` of n rows; None: NULL), checked first.

    The arrays stay the caller's: the pointers are good while it holds ``listed``.
    """
    cdef const int64_t[::1] ptr
    cdef const int32_t[::1] slot
    sp_ptr[0] = NULL
    sp_slot[0] = NULL
    if listed is None:
        return 0
    ptr, slot = listed
    if ptr.shape[0] != n + 1 or not fs.column_slots or ptr[0] != 0 or slot.shape[0] != ptr[n]:
        raise ValueError(f"{caller}: listed must be listed_rows(codes, slots) of the {n} rows, for a layout whose "
                         f"columns are in slot order")
    sp_ptr[0] = &ptr[0]
    sp_slot[0] = &slot[0] if slot.shape[0] > 0 else NULL
    return 0


def listed_rows(const uint8_t[:, ::1] codes, SlotLayout slots, int n_threads=1):
    """Each row's slots of its sparse columns' nonzero codes, as CSR: (sp_ptr (n + 1,) int64, sp_slot int32).

    Row r's nonzero codes c of the first ``slots.sparse_columns`` columns j,
    in column order, as slots col_base[j] + c (ascending when col_base is):
    what a node histogram updates for them.  With many sparse columns a
    histogram reads these lists instead of every row's codes (one read per
    nonzero code, not one per eight columns).  O(n·s) time for s sparse
    columns, O(n + nonzero codes) memory; two passes, parallel over rows.
    """
    cdef const FeatureSlots* fs = &slots.fs
    cdef Py_ssize_t n = codes.shape[0], s = fs.n_skip0, r, j, k
    if codes.shape[1] != fs.n_cols:
        raise ValueError(f"listed_rows: codes must have {fs.n_cols} columns")
    ptr = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] p = ptr
    n_threads = threads_for(<double> n * s, n_threads, 65536.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            k = 0
            for j in range(s):
                if codes[r, j] != 0:
                    k = k + 1
            p[r + 1] = k
    np.cumsum(ptr, out=ptr)
    slot = np.empty(int(ptr[n]), dtype=np.int32)
    cdef int32_t[::1] q = slot
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            k = p[r]
            for j in range(s):
                if codes[r, j] != 0:
                    q[k] = <int32_t> (fs.col_base[j] + codes[r, j])
                    k = k + 1
    return ptr, slot


# ----------------------------------------------------------------------
# Partition
# ----------------------------------------------------------------------
cdef void split_table(const FeatureSlots* fs, const SplitChoice* split, uint8_t* go_left) noexcept nogil:
    """go_left[k] for every code k of the split feature's column: does a row with that code go left?

    Numeric: bin ≤ ``split.bin``, or the NaN bin when ``split.nan_left``;
    categorical: the bin is among ``split.left_bins``.  In a bundle, a code
    outside the feature's range means the feature is at its default bin.
    """
    cdef Py_ssize_t k, b, feature = split.feature, nb = fs.n_edges[feature], z = fs.default_bin[feature]
    cdef Py_ssize_t shift = fs.col_base[fs.col[feature]] - fs.base[feature]
    for k in range(256):
        b = k + shift
        if b < 0 or b > nb + 1:
            b = z
        if b < 0:
            go_left[k] = 0               # a code the column never holds
        elif split.categorical:
            go_left[k] = (split.left_bins[b >> 6] >> (b & 63)) & 1
        elif b == nb + 1:
            go_left[k] = split.nan_left
        else:
            go_left[k] = b <= split.bin


def split_tables(SlotLayout slots, const int32_t[::1] feature, const int32_t[::1] bins,
                 const uint8_t[::1] nan_left, const int32_t[::1] left, const uint64_t[:, ::1] left_bins=None):
    """(nodes, 256) uint8: row i is internal node i's :func:`split_table` (zeros at leaves).

    ``left_bins`` (nodes, 4): a categorical node's left bins as 256 bits
    (all zero for numeric nodes, which then use ``bins`` and ``nan_left``).

    O(nodes·256) time and memory: the returned tables.
    """
    cdef Py_ssize_t n = feature.shape[0], i, v
    cdef SplitChoice split
    out = np.zeros((n, 256), dtype=np.uint8)
    cdef uint8_t[:, ::1] o = out
    if left_bins is not None and (left_bins.shape[0] != n or left_bins.shape[1] != 4):
        raise ValueError(f"split_tables: left_bins must be ({n}, 4)")
    for i in range(n):
        if left[i] >= 0:
            if not 0 <= feature[i] < slots.fs.d:
                raise ValueError(f"split_tables: node {i} splits on feature {feature[i]}, not one of {slots.fs.d}")
            split.feature = feature[i]
            split.bin = bins[i]
            split.nan_left = nan_left[i]
            split.categorical = slots.fs.categorical[feature[i]] != 0
            for v in range(4):
                split.left_bins[v] = left_bins[i, v] if left_bins is not None else 0
            split_table(&slots.fs, &split, &o[i, 0])
    return out


cdef inline Py_ssize_t _split_chunk(const uint8_t* codes, Py_ssize_t n_cols, const int32_t* idx, int32_t* scratch,
                                    Py_ssize_t start, Py_ssize_t s, Py_ssize_t e, Py_ssize_t column,
                                    const uint8_t* go_left) noexcept nogil:
    """Rows idx[s:e] into scratch[s−start:e−start]: left ones from the front in order, right ones from the back.

    Returns the number of left rows.
    """
    cdef Py_ssize_t i, r, nl = 0, back = e - start - 1, left
    cdef int32_t* front = scratch + (s - start)
    for i in range(s, e):
        r = idx[i]
        if i + HIST_AHEAD < e:
            RC_PREFETCH(codes + idx[i + HIST_AHEAD] * n_cols + column)
        left = go_left[codes[r * n_cols + column]]
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
    """Copy a chunk's split rows back: its nl left rows to idx[left_at:], its right rows in order to idx[right_at:]."""
    cdef Py_ssize_t k, nr = (e - s) - nl
    for k in range(nl):
        idx[left_at + k] = scratch[s - start + k]
    for k in range(nr):
        idx[right_at + k] = scratch[e - start - 1 - k]


cdef int partition_threads(Py_ssize_t m, int n_threads, double min_parallel) noexcept nogil:
    """The threads of a partition of m rows: ``n_threads`` from ``min_parallel`` rows on (at most one per
    row and MAX_PARTITION_THREADS), else 1.  O(1)."""
    cdef int T = threads_for(<double> m, n_threads, min_parallel)
    if T > m:
        T = <int> m
    if T > MAX_PARTITION_THREADS:
        T = MAX_PARTITION_THREADS
    return T if T > 1 else 1


cdef Py_ssize_t partition_part(const uint8_t* codes, Py_ssize_t n_cols, int32_t* idx, int32_t* scratch,
                               Py_ssize_t start, Py_ssize_t end, Py_ssize_t column, const uint8_t* go_left,
                               int tid, int T, Py_ssize_t* before) noexcept nogil:
    """Thread ``tid``'s share of :c:func:`partition_rows` on T threads (``partition_threads``), in a
    parallel region whose threads all call it; every thread returns the number of rows going left.

    ``before`` (MAX_PARTITION_THREADS + 1 entries, shared by the threads)
    receives each chunk's left rows.  Thread t < T splits chunk t into
    scratch; after a barrier each thread adds up the chunks' counts itself
    (no thread waits for another's sums) and places its chunk; a last
    barrier makes the whole range (and the count) visible to every thread
    of the region -- with T = 1 thread 0 does all of it.  O(m/T) per
    thread, no allocation.
    """
    cdef Py_ssize_t m = end - start, nl = 0, left_at = 0, t, s, e
    if m > 0 and T <= 1:
        if tid == 0:
            before[1] = _split_chunk(codes, n_cols, idx, scratch, start, start, end, column, go_left)
            _place_chunk(idx, scratch, start, start, end, before[1], start, start + before[1])
    elif m > 0:
        if tid < T:
            before[tid + 1] = _split_chunk(codes, n_cols, idx, scratch, start, start + (tid * m) // T,
                                           start + ((tid + 1) * m) // T, column, go_left)
        rc_barrier()
        for t in range(T):
            if t < tid:
                left_at += before[t + 1]
            nl += before[t + 1]
        if tid < T:
            # chunk t's right rows follow all left rows and the right rows of chunks < t
            s = start + (tid * m) // T
            e = start + ((tid + 1) * m) // T
            _place_chunk(idx, scratch, start, s, e, before[tid + 1], start + left_at,
                         start + nl + (s - start) - left_at)
    rc_barrier()
    if m <= 0:
        return 0
    if T <= 1:
        return before[1]
    return nl


cdef Py_ssize_t partition_rows(const uint8_t* codes, Py_ssize_t n_cols, int32_t* idx, int32_t* scratch,
                               Py_ssize_t start, Py_ssize_t end, Py_ssize_t column, const uint8_t* go_left,
                               int n_threads, double min_parallel) noexcept nogil:
    """Stable partition of idx[start:end]: rows whose code in ``column`` goes left (``go_left``) first.

    Row r's code is codes[r·n_cols + column]: row-major codes, or one column
    of column-major codes with n_cols = 1 and column = 0 (which the trees
    pass: a column is read with far fewer cache misses than every row's line).

    Returns the number of rows going left.  O(m) time for m = end − start
    rows, no allocation.  With T > 1 threads the range is cut into T
    contiguous chunks: each thread splits its chunk into scratch (its left
    rows from the chunk's front, its right rows from the back), then, once
    every chunk's count is known, copies them to their places -- the left
    rows of chunk 0, 1, ... then the right rows of chunk 0, 1, ... -- which
    is the order of the one-thread pass: the result does not depend on
    ``n_threads``.  One parallel region (:c:func:`partition_part`'s two
    phases, a barrier apart).
    """
    cdef Py_ssize_t m = end - start, nl
    cdef Py_ssize_t before[MAX_PARTITION_THREADS + 1]     # before[t + 1]: left rows of chunk t
    cdef int T, tid = 0
    if m <= 0:
        return 0
    T = partition_threads(m, n_threads, min_parallel)
    if T <= 1:
        nl = _split_chunk(codes, n_cols, idx, scratch, start, start, end, column, go_left)
        _place_chunk(idx, scratch, start, start, end, nl, start, start + nl)
        return nl
    with parallel(num_threads=T):
        tid = threadid()
        partition_part(codes, n_cols, idx, scratch, start, end, column, go_left, tid, T, before)
    nl = 0
    for tid in range(T):
        nl += before[tid + 1]
    return nl


def partition(const uint8_t[:, ::1] codes,   # IN  (n, n_cols) bin codes of the block, or (n, 1): one column
              int32_t[::1] idx,              # IN/OUT (n,) row permutation; idx[start:end] is partitioned
              int32_t[::1] scratch,          # SCRATCH (n,)
              Py_ssize_t start, Py_ssize_t end,
              Py_ssize_t column,             # the code column the split reads
              const uint8_t[::1] go_left,    # IN  (256,) code → goes left (see split_table)
              int n_threads=1,
              double min_parallel=PARALLEL_ROWS):   # rows from which the threads share the work
    """Stable partition of idx[start:end] (see :c:func:`partition_rows`); returns the rows going left.

    O(end − start) time, parallel over chunks of the range; no allocation (``scratch`` is the caller's).
    """
    cdef Py_ssize_t n = codes.shape[0], nl
    if not (0 <= start <= end <= n) or idx.shape[0] < n or scratch.shape[0] < end - start \
            or not 0 <= column < codes.shape[1] or go_left.shape[0] != 256:
        raise ValueError("partition: bad range, column or buffers (go_left must have 256 entries)")
    if end == start:
        return 0
    with nogil:
        nl = partition_rows(&codes[0, 0], codes.shape[1], &idx[0], &scratch[0], start, end, column, &go_left[0],
                            n_threads, min_parallel)
    return nl

# The ``trees`` learner's kernels that its in-memory grower (``_grow.pyx``) calls without the GIL.
#
# A tree node's histogram is an (S, 3) float64 array of (Σg, Σh, count) per *slot*: feature j owns
# the slots base[j] .. base[j] + n_edges[j] + 1 -- its bins 0..n_edges[j], then its NaN bin -- so a
# histogram costs Σ_j (n_edges[j] + 2) slots, not d·256.  Rows are stored as row-major uint8 codes in
# ``n_cols`` columns: column c's code k counts in slot col_base[c] + k.  A column is one feature (its
# code is the bin) or a *bundle* of mutually exclusive features (code 0: every member at its default
# bin; see ``_bundles.py``), whose members' default-bin slots ``build_histogram`` fills.
from libc.math cimport INFINITY
from libc.stdint cimport uint8_t, int8_t, int32_t, int64_t, uint64_t


cdef struct FeatureSlots:
    Py_ssize_t d                    # features
    Py_ssize_t n_cols               # code columns
    Py_ssize_t n_slots              # histogram slots S
    const Py_ssize_t* base          # (d,) feature j's first slot
    const Py_ssize_t* n_edges       # (d,) feature j's bins are 0..n_edges[j]; its NaN bin is n_edges[j] + 1
    const Py_ssize_t* col           # (d,) the code column holding feature j
    const Py_ssize_t* col_base      # (n_cols,) slot of code 0 of column c
    const Py_ssize_t* default_bin   # (d,) a bundled feature's default bin (its rows are not in its column), else −1
    Py_ssize_t n_bundled            # features with default_bin >= 0
    Py_ssize_t n_skip0              # the first columns: sparse bundles, whose code 0 the histograms skip
    const Py_ssize_t* bundled       # (n_bundled,) those features, ascending
    const uint8_t* categorical      # (d,) feature j's bins are categories: split by groups of them
    bint column_slots               # col_base ascending and column c's features' slots in [col_base[c],
                                    # col_base[c + 1]) (the last column's up to S): columns [j0, j1) own
                                    # the slots [col_base[j0], col_base[j1])
    const double* col_work          # NULL, or (n_cols + 1,) partial sums of the columns' expected cost, by
                                    # which the threads share them (``histograms.column_share``)


cdef struct SplitParams:
    double min_samples_leaf
    double min_child_weight         # in curvature units (the caller scales it)
    double l2
    double tie_tolerance
    double cat_smooth               # added to each category's H when ordering categories, curvature units
    Py_ssize_t max_cat              # categories on the left of a categorical split, at most
    double random_strength          # > 0: each feature's best gain gets noise (``_split_noise.pxd``)
    uint64_t noise_seed             # the tree's seed of that noise
    const int8_t* monotone          # NULL (no constraints), or (d,) each feature's sign: -1, 0 or +1
    bint bounded                    # values clamped to [lo, hi]: monotone constraints, or a cap (max_delta_step)
    double lo                       # when bounded: the node's bounds on its children's values
    double hi


cdef inline SplitParams split_params(double min_samples_leaf, double min_child_weight, double l2, double tie_tolerance,
                                     double cat_smooth, Py_ssize_t max_cat) noexcept nogil:
    """The split search's parameters as one record."""
    cdef SplitParams p
    p.min_samples_leaf = min_samples_leaf
    p.min_child_weight = min_child_weight
    p.l2 = l2
    p.tie_tolerance = tie_tolerance
    p.cat_smooth = cat_smooth
    p.max_cat = max_cat
    p.random_strength = 0.0
    p.noise_seed = 0
    p.monotone = NULL
    p.bounded = False
    p.lo = -INFINITY
    p.hi = INFINITY
    return p


cdef inline double capped_gain_term(double G, double H, double l2, double lo, double hi) noexcept nogil:
    """A leaf's gain term at its Newton value w = −G/(H+λ) held within [lo, hi] (a cap, ``max_delta_step``):
    G²/(H+λ) while w lies inside -- the unbounded term's own operations, so bounds that bind nowhere change no bit
    of a gain -- else −(2·G·w + (H+λ)·w²) at the bound w passes (the second-order model's decrease at the value
    the leaf will take).  The caller checks H + λ > 0.  O(1)."""
    cdef double w = -G / (H + l2)
    if lo <= w <= hi:
        return G * G / (H + l2)
    if w < lo:
        w = lo
    elif w > hi:
        w = hi
    return -(2.0 * G * w + (H + l2) * w * w)


cdef struct SplitChoice:
    double gain
    Py_ssize_t feature
    Py_ssize_t bin                  # numeric: rows go right iff their bin > bin; categorical: left group size
    bint nan_left
    bint categorical
    uint64_t left_bins[4]           # categorical: the bins (NaN bin included) that go left, as 256 bits
    double left[3]                  # (G, H, count) of the left child
    double right[3]


cdef struct NodeScan:
    double* hist                    # the node's (S, 3) histogram
    const double* subtract          # NULL, or a histogram to take from it first (the sibling subtraction)
    double* scratch                 # (2·d,) out: each feature's best gain, then its parent term
    const SplitParams* params       # NULL, or this node's own parameters (its bounds, with monotone)
    const uint8_t* mask             # NULL, or this node's own (d,) features to scan (interaction constraints)


cdef void split_table(const FeatureSlots* fs, const SplitChoice* split, uint8_t* go_left) noexcept nogil

cdef enum:
    MAX_PARTITION_THREADS = 64      # a partition's threads, at most

cdef int partition_threads(Py_ssize_t m, int n_threads, double min_parallel) noexcept nogil

cdef Py_ssize_t partition_part(const uint8_t* codes, Py_ssize_t n_cols, int32_t* idx, int32_t* scratch,
                               Py_ssize_t start, Py_ssize_t end, Py_ssize_t column, const uint8_t* go_left,
                               int tid, int T, Py_ssize_t* before) noexcept nogil

cdef Py_ssize_t partition_rows(const uint8_t* codes, Py_ssize_t n_cols, int32_t* idx, int32_t* scratch,
                               Py_ssize_t start, Py_ssize_t end, Py_ssize_t column, const uint8_t* go_left,
                               int n_threads, double min_parallel) noexcept nogil

cdef void bundle_defaults(const FeatureSlots* fs, const double* g, const double* h, const int32_t* idx,
                          Py_ssize_t start, Py_ssize_t end, const double* og, const double* oh, double* hist,
                          bint identity, bint gathered, bint unit_h) noexcept nogil

cdef bint histogram_part(const uint8_t* codes, const FeatureSlots* fs, const double* g, const double* h,
                         const int32_t* idx, Py_ssize_t start, Py_ssize_t end, double* og, double* oh, double* hist,
                         int tid, int T, int T_gather, bint identity, bint unit_h,
                         const int64_t* sp_ptr, const int32_t* sp_slot, const double* counts=*,
                         const uint8_t* codes_t=*, Py_ssize_t n_rows=*) noexcept nogil

cdef void build_histogram(const uint8_t* codes, const FeatureSlots* fs, const double* g, const double* h,
                          const int32_t* idx, Py_ssize_t start, Py_ssize_t end, double* og, double* oh,
                          double* hist, int n_threads, bint identity, bint unit_h,
                          const int64_t* sp_ptr, const int32_t* sp_slot, const double* counts=*,
                          const uint8_t* codes_t=*, Py_ssize_t n_rows=*) noexcept nogil

cdef const double* checked_counts(object counts, const FeatureSlots* fs, str caller) except? NULL

cdef int listed_pointers(object listed, Py_ssize_t n, const FeatureSlots* fs, const int64_t** sp_ptr,
                         const int32_t** sp_slot, str caller) except -1


cdef class SlotLayout:
    """The arrays behind a :c:type:`FeatureSlots` (kept alive with it)."""
    cdef FeatureSlots fs
    cdef readonly object base, n_edges, col, col_base, default_bin, bundled, categorical, column_work

# The tiled pair-sum skeleton of the exact O(I·K) loss kernels (_pairwise.pyx, _logistic.pyx).
#
# Every per-example sum over the other class -- L_k = Σ_i w_i ℓ(f_i − f_k),
# E_i = Σ_k c_k ℓ′(f_i − f_k), the directional and curvature sums -- has the
# same loop: prange over chunks of CHUNK outputs (one thread owns each output,
# so results do not depend on the thread count), and for each tile of TILE
# entries of the other side (L1-resident) every output of the chunk adds the
# tile's contribution.  A kernel subclasses PairSum and writes only that
# contribution (``tile``); the loop, and the zeroing of the outputs, is
# ``run_tiled``, written once.
#
#     from rankcore.losses._tiling cimport PairSum, run_tiled
#     cdef class MySums(PairSum):          # out0 (and out1, out2) set by the caller
#         cdef void tile(self, Py_ssize_t o, Py_ssize_t j0, Py_ssize_t j1) noexcept nogil: ...
#     run_tiled(kernel, n_outputs, n_other, n_threads)     # nogil
#     run_pairs(kernel, n_outputs, n_other, n_threads, min_work)   # with the GIL: threads_for, then nogil

cdef class PairSum:
    # outputs o = 0..n_outputs-1 (the negatives, or the positives), up to three arrays of them
    # (NULL when unused), zeroed by run_tiled; the other side j = 0..n_other-1
    cdef double* out0
    cdef double* out1
    cdef double* out2
    cdef void tile(self, Py_ssize_t o, Py_ssize_t j0, Py_ssize_t j1) noexcept nogil


cdef void run_tiled(PairSum kernel, Py_ssize_t n_outputs, Py_ssize_t n_other, int n_threads) noexcept nogil
cdef void run_pairs(PairSum kernel, Py_ssize_t n_outputs, Py_ssize_t n_other, int n_threads, double min_work)


cdef inline const double* data_of(const double[::1] a) noexcept:
    # the first element's address, or NULL for an empty array (never read then)
    return &a[0] if a.shape[0] > 0 else NULL

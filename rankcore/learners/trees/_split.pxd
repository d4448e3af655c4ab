# The split search (``_split.pyx``) that the in-memory grower (``_grow.pyx``) calls without the GIL.
from libc.stdint cimport uint8_t, uint64_t

from rankcore.learners.trees._histogram cimport FeatureSlots, NodeScan, SplitChoice, SplitParams


cdef int scan_threads(Py_ssize_t k, const FeatureSlots* fs, int n_threads) noexcept nogil

cdef void scan_part(NodeScan* nodes, Py_ssize_t k, const FeatureSlots* fs, const uint8_t* feature_mask,
                    const SplitParams* params, int tid, int T) noexcept nogil

cdef void scan_nodes(NodeScan* nodes, Py_ssize_t k, const FeatureSlots* fs, const uint8_t* feature_mask,
                     const SplitParams* params, int n_threads) noexcept nogil

cdef bint choose_split(const double* hist, const FeatureSlots* fs, const uint8_t* feature_mask,
                       const SplitParams* params, SplitChoice* out, double* scratch, Py_ssize_t node) noexcept nogil

cdef bint find_best_split(double* hist, const FeatureSlots* fs, const uint8_t* feature_mask,
                          const SplitParams* params, SplitChoice* out, double* scratch, int n_threads,
                          const double* subtract, Py_ssize_t node_id) noexcept nogil

cdef double split_noise(uint64_t seed, Py_ssize_t node, Py_ssize_t feature) noexcept nogil

cdef void split_bounds(double lo, double hi, int sign, const SplitChoice* split, double l2,
                       double* out) noexcept nogil

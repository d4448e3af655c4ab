# The oblivious (symmetric) trees' level search (``_oblivious_kernels.pyx``), which the in-memory
# oblivious grower (``_grow_oblivious.pyx``) calls without the GIL.
from libc.stdint cimport uint8_t, uint64_t


cdef enum:
    MAX_EDGES = 254                 # a feature's bin edges, at most (its codes, NaN's included, are one byte)


cdef struct LevelSplit:
    Py_ssize_t feature
    Py_ssize_t bin                  # rows go right iff their bin > bin
    bint nan_left
    double gain                     # summed over the level's nodes


cdef void feature_gains_add(const double* hist, Py_ssize_t s0, Py_ssize_t nb, double min_samples_leaf,
                            double min_child_weight, double l2, double* out, int sign, double cap) noexcept nogil

cdef void feature_gains_sub_add(double* hist, const double* small, Py_ssize_t s0, Py_ssize_t nb, bint search,
                                double min_samples_leaf, double min_child_weight, double l2,
                                double* out, int sign, double cap) noexcept nogil

cdef void feature_gains_pair(double* hist, const double* small, Py_ssize_t s0, Py_ssize_t nb, bint search_large,
                             bint search_small, bint small_first, double min_samples_leaf, double min_child_weight,
                             double l2, double* out, int sign, double cap) noexcept nogil

cdef double feature_best_gain(const double* gains, Py_ssize_t s0, Py_ssize_t nb) noexcept nogil

cdef bint choose_level_split(const double* gains, const Py_ssize_t* base, const Py_ssize_t* n_edges,
                             const uint8_t* feature_mask, Py_ssize_t d, double tie_tolerance, double random_strength,
                             uint64_t noise_seed, Py_ssize_t level, double* feature_top, double* work,
                             LevelSplit* out, bint have_top=*, const Py_ssize_t* noise_key=*) noexcept nogil

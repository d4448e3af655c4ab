# The numeric types rankcore's Cython kernels share (cimport them, never redeclare):
#
#     from rankcore.typedefs cimport code_t, real_t
#
# code_t: a bin code -- uint8 up to 256 bins per feature, uint16 beyond.
# real_t: a feature value as the caller gives it, float32 or float64 (read without a copy).
# index_t: a scipy.sparse index (indptr, indices), int32 or int64.
from libc.stdint cimport uint8_t, uint16_t, int32_t, int64_t

ctypedef fused code_t:
    uint8_t
    uint16_t

ctypedef fused real_t:
    float
    double

ctypedef fused index_t:
    int32_t
    int64_t

# The path of path-dependent TreeSHAP (Algorithm 2 of Lundberg, Erion & Lee, "Consistent individualized feature
# attribution for tree ensembles", 2018): shared by the SHAP values (``_treeshap.pyx``) and the SHAP interaction
# values (``_shap_interactions.pyx``), so both weigh the subsets with the same arithmetic.
#
#     from rankcore.learners.trees._treeshap_path cimport PathElement, Forest, _extend, _unwind, _unwound_sum
#
# Only ``cdef inline`` functions live here: each kernel module compiles its own copy.
# Complexity: O(depth) time per call, no allocation.

from libc.stdint cimport uint8_t, int32_t, int64_t


cdef struct PathElement:
    Py_ssize_t feature          # the split feature (−1: the root's placeholder)
    double share_unknown        # share of the rows that follow this path when the feature is unknown
    double share_known          # 1 when x follows this path, 0 when it does not
    double weight               # weight of the subsets of each size (Algorithm 2's w)


cdef struct Forest:
    const int32_t* feature
    const double* threshold
    const uint8_t* nan_left
    const int32_t* left
    const int32_t* right
    const double* value
    const double* cover
    const uint8_t* is_cat
    const int64_t* cat_offset
    const double* cat_values


cdef inline void _extend(PathElement* path, Py_ssize_t depth, double zero, double one,
                         Py_ssize_t feature) noexcept nogil:
    """EXTEND: append the feature with its fractions and update the subset-size weights."""
    cdef Py_ssize_t i
    path[depth].feature = feature
    path[depth].share_unknown = zero
    path[depth].share_known = one
    path[depth].weight = 1.0 if depth == 0 else 0.0
    for i in range(depth - 1, -1, -1):
        path[i + 1].weight = path[i + 1].weight + one * path[i].weight * (i + 1) / <double> (depth + 1)
        path[i].weight = zero * path[i].weight * (depth - i) / <double> (depth + 1)


cdef inline void _unwind(PathElement* path, Py_ssize_t depth, Py_ssize_t index) noexcept nogil:
    """UNWIND: take element ``index`` out of the path (the inverse of its EXTEND)."""
    cdef Py_ssize_t i
    cdef double one = path[index].share_known, zero = path[index].share_unknown
    cdef double next_one = path[depth].weight, tmp
    for i in range(depth - 1, -1, -1):
        if one != 0:
            tmp = path[i].weight
            path[i].weight = next_one * (depth + 1) / ((i + 1) * one)
            next_one = tmp - path[i].weight * zero * (depth - i) / <double> (depth + 1)
        else:
            path[i].weight = path[i].weight * (depth + 1) / (zero * (depth - i))
    for i in range(index, depth):
        path[i].feature = path[i + 1].feature
        path[i].share_unknown = path[i + 1].share_unknown
        path[i].share_known = path[i + 1].share_known


cdef inline double _unwound_sum(const PathElement* path, Py_ssize_t depth, Py_ssize_t index) noexcept nogil:
    """UNWOUND_SUM: the total weight of the path with element ``index`` taken out (the path unchanged)."""
    cdef Py_ssize_t i
    cdef double one = path[index].share_known, zero = path[index].share_unknown
    cdef double next_one = path[depth].weight, total = 0.0, tmp
    for i in range(depth - 1, -1, -1):
        if one != 0:
            tmp = next_one * (depth + 1) / ((i + 1) * one)
            total = total + tmp
            next_one = path[i].weight - tmp * zero * (depth - i) / <double> (depth + 1)
        else:                   # zero > 0: a branch with both fractions 0 is never walked
            total = total + path[i].weight * (depth + 1) / (zero * (depth - i))
    return total

# Routing a raw value at a tree node: shared by the prediction walk (``_predict.pyx``) and TreeSHAP
# (``_treeshap.pyx``), so that both send every value -- NaN and categories included -- the same way.
#
#     from rankcore.learners.trees._route cimport child_of
#
# Only ``cdef inline`` functions live here: each kernel module compiles its own copy.
# Complexity: O(1) at a numeric node, O(log k) at a categorical node of k left categories.

from libc.math cimport isnan
from libc.stdint cimport uint8_t, int32_t, int64_t

from rankcore.learners.histograms cimport bin_code


cdef inline bint in_sorted(const double* values, Py_ssize_t lo, Py_ssize_t end, double x) noexcept nogil:
    """Whether x is one of values[lo:end] (ascending)."""
    lo = lo + bin_code(x, values + lo, end - lo)          # the first of them >= x
    return lo < end and values[lo] == x


cdef inline Py_ssize_t child_of(double x, Py_ssize_t k, const double* threshold, const uint8_t* nan_left,
                                const int32_t* left, const int32_t* right, const uint8_t* is_cat,
                                const int64_t* cat_offset, const double* cat_values) noexcept nogil:
    """The child of node k (index in the concatenated nodes) that value x goes to.

    Numeric node: right iff x > threshold.  Categorical node: left iff x is
    one of its left categories.  NaN: left iff nan_left.
    """
    if isnan(x):
        return left[k] if nan_left[k] else right[k]
    if is_cat[k]:
        return left[k] if in_sorted(cat_values, cat_offset[k], cat_offset[k + 1], x) else right[k]
    return right[k] if x > threshold[k] else left[k]

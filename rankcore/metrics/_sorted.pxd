# Shared interface of the bipartite metric kernels.
#
# A SortedMetric evaluates a metric from the ascending-sorted positive scores
# pos[0..n_pos) and negative scores neg[0..n_neg) in O(n_pos + n_neg), without
# the GIL, so that other kernels (ExactBoost's branch and bound) can call any
# built-in metric from inside a ``with nogil`` block:
#
#     from rankcore.metrics._sorted cimport SortedMetric
#     cdef SortedMetric m = metric.sorted_kernel()
#     with nogil:
#         v = m.value(&pos[0], n_pos, &neg[0], n_neg)
#
# Callers guarantee sortedness, n_pos + n_neg >= 1 and whatever the metric's
# Python wrapper checks (both classes present where required, k <= n).

cdef class SortedMetric:
    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil

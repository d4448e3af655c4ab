# Shared interface of the bipartite metric kernels.
#
# A SortedMetric evaluates a metric from the ascending-sorted positive scores
# pos[0..n_pos) and negative scores neg[0..n_neg) in O(n_pos + n_neg), without
# the GIL, so that other kernels (ExactBoost's branch and bound) can call any
# built-in metric from inside a ``with nogil`` block:
#
#     from rankcore.metrics.sorted_kernels cimport SortedMetric
#     cdef SortedMetric m = metric.sorted_kernel()
#     with nogil:
#         v = m.value(&pos[0], n_pos, &neg[0], n_neg)
#
# Callers guarantee sortedness, n_pos + n_neg >= 1 and whatever the metric's
# Python wrapper checks (both classes present where required, k <= n).
#
# Guarantees of every built-in kernel (see sorted_kernels.pyx):
# - ``value`` allocates nothing and uses O(1) scratch space;
# - it never reads outside pos[0..n_pos) / neg[0..n_neg), also when n_pos == 0
#   or n_neg == 0 (the pointers are then not dereferenced), and it returns a
#   documented finite value in those cases instead of dividing by zero;
# - the value is the metric itself in its natural direction (not a loss).
#
# The concrete kernels are declared here so that Cython code may also cimport
# them by type; their fields are the metric's parameters.

cdef class SortedMetric:
    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil


cdef class SortedAUC(SortedMetric):
    pass


cdef class SortedKS(SortedMetric):
    pass


cdef class SortedPrecAtK(SortedMetric):
    cdef Py_ssize_t k_count     # the count k (used when k_fraction == 0)
    cdef double k_fraction      # a fraction of n in (0, 1), or 0 for a count


cdef class SortedRMax(SortedMetric):
    pass


cdef class SortedMaxHeight(SortedMetric):
    pass


cdef class SortedPartialAUC(SortedMetric):
    cdef double max_fpr         # alpha in (0, 1]
    cdef bint mcclish           # McClish standardization (scikit-learn's max_fpr)


cdef class SortedTwoWayPartialAUC(SortedMetric):
    cdef double min_tpr         # beta in [0, 1)
    cdef double max_fpr         # alpha in (0, 1]
    cdef bint normalized        # divide by (1 - beta) * alpha


cdef class SortedPNormRisk(SortedMetric):
    cdef double p               # p >= 1
    cdef double theta           # margin

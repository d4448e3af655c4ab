# Loss evaluators: what ExactBoost's branch and bound calls to score a ranking.
#
# A LossEvaluator turns ascending-sorted positive and negative scores into the
# lower-is-better loss of one metric, callable from a ``with nogil`` block.
# Built-in metrics go through ``SortedLoss`` (rankcore.exactboost._sorted_loss,
# a SortedMetric kernel, no GIL); metrics without a Cython kernel go through
# ``PythonLoss`` (the metric's Python code, under the GIL).

cdef class LossEvaluator:
    # Set by PythonLoss when the metric raised; the kernel stops and re-raises.
    cdef public bint failed
    cdef double loss(self, const double* pos, Py_ssize_t n_pos,
                     const double* neg, Py_ssize_t n_neg) noexcept nogil


cdef class PythonLoss(LossEvaluator):
    cdef object metric          # a rankcore Metric (any plugin)
    cdef bint use_from_sorted   # the metric overrides Metric.from_sorted
    cdef public object error    # the first exception the metric raised
    cdef double _py_loss(self, const double* pos, Py_ssize_t n_pos,
                         const double* neg, Py_ssize_t n_neg) except? -1.0

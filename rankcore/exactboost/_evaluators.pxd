# Loss evaluators: what ExactBoost's branch and bound calls to score a ranking.
#
# A LossEvaluator turns ascending-sorted positive and negative scores into the
# lower-is-better loss of one metric, callable from a ``with nogil`` block.
# Built-in metrics go through ``SortedLoss`` (rankcore.exactboost._sorted_loss,
# a SortedMetric kernel, no GIL); metrics without a Cython kernel go through
# ``PythonLoss`` (the metric's Python code, under the GIL).
#
# ``loss_runs`` is the same loss on run-length encoded scores: strictly
# ascending distinct values, each with the number of examples holding it.
# The base class expands the runs into the scratch arrays and calls ``loss``
# (any metric); ``SortedLoss`` evaluates AUC, KS, prec@k and pAUC on the runs
# directly, in O(runs) instead of O(examples), with the same result.
#
# ``pair_count_form`` tells the kernel that the loss is an affine function of
# AUC's pair counts (below, tied): it can then add up the counts of groups of
# examples without merging them (``_bnb.box_bound``), with the same result.
# ``pauc_form`` does the same for the partial AUC, which reads only the top
# of the list: the kernel merges a box's groups from the top down and stops
# where the metric stops looking.

from libc.stdint cimport int32_t

cdef class LossEvaluator:
    # Set by PythonLoss when the metric raised; the kernel stops and re-raises.
    cdef public bint failed
    cdef double loss(self, const double* pos, Py_ssize_t n_pos,
                     const double* neg, Py_ssize_t n_neg) noexcept nogil
    cdef double loss_runs(self, const double* pv, const int32_t* pc, Py_ssize_t rp, Py_ssize_t n_pos,
                          const double* nv, const int32_t* nc, Py_ssize_t rn, Py_ssize_t n_neg,
                          double* scratch_p, double* scratch_n) noexcept nogil
    # True when loss = sign * (2 below + tied) / (2 n_pos n_neg) + offset (AUC's
    # pair-count form, see ``_sorted_loss``); the kernel may then count pairs itself.
    cdef bint pair_count_form(self, double* sign, double* offset) noexcept nogil
    # True when loss = sign * pauc:alpha (raw or McClish) + offset; the kernel may
    # then walk a box's groups from the top and stop at FPR = alpha.
    cdef bint pauc_form(self, double* alpha, bint* mcclish, double* sign, double* offset) noexcept nogil


cdef class PythonLoss(LossEvaluator):
    cdef object metric          # a rankcore Metric (any plugin)
    cdef bint use_from_sorted   # the metric overrides Metric.from_sorted
    cdef public object error    # the first exception the metric raised
    cdef double _py_loss(self, const double* pos, Py_ssize_t n_pos,
                         const double* neg, Py_ssize_t n_neg) except? -1.0


cdef class CompositeLoss(LossEvaluator):
    cdef LossEvaluator target
    cdef LossEvaluator tie_break
    cdef double weight

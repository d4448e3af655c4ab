"""The nogil loss evaluator of built-in metrics (a SortedMetric kernel).

Kept in its own module so that the branch-and-bound kernel imports without
``rankcore.metrics._sorted``; this module is loaded only for metrics whose
``sorted_kernel()`` returns a kernel.
"""

from rankcore.metrics._sorted cimport SortedMetric

from ._evaluators cimport LossEvaluator


cdef class SortedLoss(LossEvaluator):
    """``sign * kernel.value(pos, neg) + offset``: a metric's loss form, without the GIL.

    Parameters
    ----------
    kernel : SortedMetric
        ``metric.sorted_kernel()``.
    sign, offset : float
        The metric's ``to_loss`` as an affine map (``-1, 1`` for bounded
        higher-is-better metrics, ``-1, 0`` for unbounded ones, ``1, 0`` for
        lower-is-better ones).

    Time O(n_pos + n_neg) per call (the kernel's), no allocation.
    """

    cdef SortedMetric kernel
    cdef double sign
    cdef double offset

    def __init__(self, SortedMetric kernel not None, double sign, double offset):
        self.kernel = kernel
        self.sign = sign
        self.offset = offset
        self.failed = False

    cdef double loss(self, const double* pos, Py_ssize_t n_pos,
                     const double* neg, Py_ssize_t n_neg) noexcept nogil:
        return self.sign * self.kernel.value(pos, n_pos, neg, n_neg) + self.offset

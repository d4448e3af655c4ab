"""Loss evaluators for ExactBoost's kernel (see ``_evaluators.pxd``).

Design
------
A. The branch and bound runs without the GIL; it sees a metric only through
   ``LossEvaluator.loss(pos, n_pos, neg, n_neg)`` on ascending-sorted score
   arrays, so built-in metrics (SortedMetric kernels, O(n), nogil) and any
   third-party metric look the same to it.
B. ``PythonLoss`` is the fallback for metrics without a sorted kernel: it
   takes the GIL, copies the arrays into NumPy and calls the metric's own
   Python code.  Correct but slower (a Python call per box), and runs
   executed in parallel then take turns on the GIL.  An exception inside the
   metric cannot propagate through a ``noexcept nogil`` function, so it is
   stored, the loss is reported as +inf (which prunes everything) and the
   kernel checks ``failed`` and re-raises after the run.
"""

import numpy as np

from libc.math cimport INFINITY


cdef class LossEvaluator:
    """Base class: the loss of a ranking given sorted positive/negative scores."""

    cdef double loss(self, const double* pos, Py_ssize_t n_pos,
                     const double* neg, Py_ssize_t n_neg) noexcept nogil:
        return INFINITY

    def evaluate(self, const double[::1] pos, const double[::1] neg):
        """The loss of ascending-sorted ``pos`` and ``neg`` (for tests and checks)."""
        cdef double out
        cdef double dummy = 0.0
        cdef const double* p = &pos[0] if pos.shape[0] > 0 else &dummy
        cdef const double* q = &neg[0] if neg.shape[0] > 0 else &dummy
        with nogil:
            out = self.loss(p, pos.shape[0], q, neg.shape[0])
        self._raise_if_failed()
        return out

    def _raise_if_failed(self):
        if self.failed:
            error = getattr(self, "error", None)
            if error is not None:
                raise error
            raise RuntimeError("the metric failed inside ExactBoost's kernel")


cdef class PythonLoss(LossEvaluator):
    """Loss of a metric evaluated by its Python code (metrics without a sorted kernel).

    Parameters
    ----------
    metric : rankcore.Metric
        Scalar, bipartite metric.  ``metric.from_sorted`` is used when the
        class overrides it, else ``metric.compute(y, scores)``; the value is
        turned into a loss with ``metric.to_loss``.

    Time per call: the metric's own cost plus O(n) copies; holds the GIL.
    """

    def __init__(self, metric):
        from ..metrics._base import Metric

        self.metric = metric
        self.use_from_sorted = type(metric).from_sorted is not Metric.from_sorted
        self.failed = False
        self.error = None

    cdef double loss(self, const double* pos, Py_ssize_t n_pos,
                     const double* neg, Py_ssize_t n_neg) noexcept nogil:
        with gil:
            if self.failed:
                return INFINITY
            try:
                return self._py_loss(pos, n_pos, neg, n_neg)
            except BaseException as exc:  # stored and re-raised after the run
                self.failed = True
                self.error = exc
                return INFINITY

    cdef double _py_loss(self, const double* pos, Py_ssize_t n_pos,
                         const double* neg, Py_ssize_t n_neg) except? -1.0:
        cdef Py_ssize_t i
        p = np.empty(n_pos, dtype=np.float64)
        q = np.empty(n_neg, dtype=np.float64)
        cdef double[::1] pv = p
        cdef double[::1] qv = q
        for i in range(n_pos):
            pv[i] = pos[i]
        for i in range(n_neg):
            qv[i] = neg[i]
        if self.use_from_sorted:
            value = self.metric.from_sorted(p, q)
        else:
            y = np.zeros(n_pos + n_neg, dtype=np.int8)
            y[:n_pos] = 1
            value = self.metric.compute(y, np.concatenate((p, q)))
        out = float(self.metric.to_loss(value))
        if out != out:
            raise ValueError(f"metric {self.metric.spec!r} returned NaN inside ExactBoost")
        return out

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
from libc.stdint cimport int32_t


cdef inline void expand_runs(const double* v, const int32_t* c, Py_ssize_t r, double* out) noexcept nogil:
    """Write run k's value c[k] times, runs in order (OUT: sum(c) values).  O(sum(c))."""
    cdef Py_ssize_t k, i, w = 0
    for k in range(r):
        for i in range(c[k]):
            out[w + i] = v[k]
        w += c[k]


cdef class LossEvaluator:
    """Base class: the loss of a ranking given sorted positive/negative scores."""

    cdef double loss(self, const double* pos, Py_ssize_t n_pos,
                     const double* neg, Py_ssize_t n_neg) noexcept nogil:
        return INFINITY

    cdef double loss_runs(self, const double* pv, const int32_t* pc, Py_ssize_t rp, Py_ssize_t n_pos,
                          const double* nv, const int32_t* nc, Py_ssize_t rn, Py_ssize_t n_neg,
                          double* scratch_p, double* scratch_n) noexcept nogil:
        """The loss of run-length encoded scores (values ascending, counts summing to n_pos / n_neg).

        Default: expand the runs into ``scratch_p`` / ``scratch_n`` (room for
        n_pos / n_neg values) and call ``loss``.  O(n_pos + n_neg) plus the metric.
        """
        expand_runs(pv, pc, rp, scratch_p)
        expand_runs(nv, nc, rn, scratch_n)
        return self.loss(scratch_p, n_pos, scratch_n, n_neg)

    cdef bint pair_count_form(self, double* sign, double* offset) noexcept nogil:
        """False: the loss is not known to be AUC's affine pair-count form (see the pxd)."""
        return False

    cdef bint pauc_form(self, double* alpha, bint* mcclish, double* sign, double* offset) noexcept nogil:
        """False: the loss is not known to be an affine function of the partial AUC (see the pxd)."""
        return False

    def evaluate_runs(self, const double[::1] pv, const int32_t[::1] pc,
                      const double[::1] nv, const int32_t[::1] nc):
        """``loss_runs`` on strictly ascending values with positive counts (for tests).

        O(r + n) time for r runs of n scores plus the metric's own, O(n) memory: the scratch the
        default ``loss_runs`` expands the runs into.
        """
        cdef Py_ssize_t n_pos = 0, n_neg = 0, k
        if pv.shape[0] != pc.shape[0] or nv.shape[0] != nc.shape[0]:
            raise ValueError("runs: expected as many counts as values")
        for k in range(pc.shape[0]):
            if pc[k] <= 0 or (k > 0 and not pv[k] > pv[k - 1]):
                raise ValueError("pv, pc: expected strictly ascending values with counts >= 1")
            n_pos += pc[k]
        for k in range(nc.shape[0]):
            if nc[k] <= 0 or (k > 0 and not nv[k] > nv[k - 1]):
                raise ValueError("nv, nc: expected strictly ascending values with counts >= 1")
            n_neg += nc[k]
        sp = np.empty(n_pos + 1)
        sn = np.empty(n_neg + 1)
        cdef double[::1] sp_v = sp
        cdef double[::1] sn_v = sn
        cdef double dummy = 0.0
        cdef int32_t idummy = 0
        cdef double out
        cdef const double* pvp = &pv[0] if pv.shape[0] > 0 else &dummy
        cdef const double* nvp = &nv[0] if nv.shape[0] > 0 else &dummy
        cdef const int32_t* pcp = &pc[0] if pc.shape[0] > 0 else &idummy
        cdef const int32_t* ncp = &nc[0] if nc.shape[0] > 0 else &idummy
        with nogil:
            out = self.loss_runs(pvp, pcp, pc.shape[0], n_pos, nvp, ncp, nc.shape[0], n_neg,
                                 &sp_v[0], &sn_v[0])
        self._raise_if_failed()
        return out

    def evaluate(self, const double[::1] pos, const double[::1] neg):
        """The loss of ascending-sorted ``pos`` and ``neg`` (for tests and checks).

        The metric's own time and memory (O(I + K) time, O(1) extra memory for the sorted kernels;
        ``PythonLoss`` copies the scores, O(I + K)).
        """
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


cdef class CompositeLoss(LossEvaluator):
    """``target + weight * tie_break``: the search loss of ExactBoost with a tie-break metric.

    A sum of monotone losses with a weight >= 0 is monotone, so the interval
    bound stays valid: with every positive at the top of its interval and
    every negative at the bottom, each term is at its lowest over the box.
    Costs one call of each evaluator (the run-length path of each when it
    has one).
    """

    def __init__(self, LossEvaluator target not None, LossEvaluator tie_break not None, double weight):
        if not weight >= 0.0:
            raise ValueError(f"weight: expected a number >= 0, got {weight!r}")
        self.target = target
        self.tie_break = tie_break
        self.weight = weight
        self.failed = False

    cdef double loss(self, const double* pos, Py_ssize_t n_pos,
                     const double* neg, Py_ssize_t n_neg) noexcept nogil:
        cdef double out = (self.target.loss(pos, n_pos, neg, n_neg)
                           + self.weight * self.tie_break.loss(pos, n_pos, neg, n_neg))
        if self.target.failed or self.tie_break.failed:
            self.failed = True
        return out

    cdef double loss_runs(self, const double* pv, const int32_t* pc, Py_ssize_t rp, Py_ssize_t n_pos,
                          const double* nv, const int32_t* nc, Py_ssize_t rn, Py_ssize_t n_neg,
                          double* scratch_p, double* scratch_n) noexcept nogil:
        cdef double out = (
            self.target.loss_runs(pv, pc, rp, n_pos, nv, nc, rn, n_neg, scratch_p, scratch_n)
            + self.weight * self.tie_break.loss_runs(pv, pc, rp, n_pos, nv, nc, rn, n_neg, scratch_p, scratch_n))
        if self.target.failed or self.tie_break.failed:
            self.failed = True
        return out

    def _raise_if_failed(self):
        self.target._raise_if_failed()
        self.tie_break._raise_if_failed()
        LossEvaluator._raise_if_failed(self)

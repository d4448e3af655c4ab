# Weighted tie-group kernels: every scalar bipartite built-in as a walk down the tie groups.
#
# Design
# ------
# A. The resampling form of a metric.  A bootstrap replicate repeats rows; a
#    repeated row is tied with its original, so a replicate changes only the
#    weight of each tie group of the original sorted order, never the order.
#    Every kernel here reads, group by group from the top, the total weight p
#    of the group's positives and n of its negatives -- so one sort serves
#    every replicate, and a replicate costs O(number of groups walked).
# B. Top down, and stop early.  The walk goes from the highest score down and
#    ``add`` says when nothing below can change the value (pauc once FPR passes
#    α, prec@k once k rows are seen, rmax at the first negative, auc/ks/pnorm
#    once every positive is above), so the driver need not even draw the
#    weights of the rest.
# C. The same tie conventions as sorted_kernels.pyx: ½ credit for tied pairs in auc,
#    diagonal ROC segments in pauc/tpauc, fractional credit at the k-th row in
#    prec@k, tied positives not above a negative in rmax.  With unit weights
#    each kernel reproduces its SortedMetric (tests/test_intervals_kernels.py).
# D. Undefined is NaN: a class of zero total weight (a non-stratified
#    replicate that drew no positive) makes ``finish`` return NaN, which the
#    bootstrap counts as a dropped replicate and reports.

from libc.math cimport NAN, floor, pow

from .sorted_helpers cimport area_above
from .sorted_kernels cimport SortedPrecAtK

import numpy as np


cdef class GroupMetric:
    """A bipartite metric evaluated from weighted tie groups, walked from the top score down.

    ``start``/``add``/``finish`` (C level, nogil) are what the bootstrap
    drivers call; :meth:`evaluate` is the validated Python form.  The state of
    a walk lives in the caller's ``GroupWalk``, so one object serves every
    thread.
    """

    cdef void start(self, GroupWalk* w) noexcept nogil:
        w.acc = 0.0
        w.acc2 = 0.0
        w.acc3 = 0.0
        w.done = False

    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil:
        return False

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        return NAN

    def evaluate(self, pos_weight, neg_weight):
        """The metric from tie-group weights in decreasing score order.

        Parameters
        ----------
        pos_weight, neg_weight : array-like of float, shape (n_groups,)
            Total weight (multiplicity) of the positives and of the negatives
            tied at each distinct score, highest score first; non-negative
            and finite.

        Returns
        -------
        float
            NaN where the metric is undefined (a class of zero weight).

        O(n_groups) time, O(1) extra memory.
        """
        p = np.ascontiguousarray(pos_weight, dtype=np.float64)
        q = np.ascontiguousarray(neg_weight, dtype=np.float64)
        if p.ndim != 1 or q.shape != p.shape:
            raise ValueError(f"pos_weight, neg_weight: expected two 1-D arrays of one length, "
                             f"got shapes {p.shape} and {q.shape}")
        if not (np.isfinite(p).all() and np.isfinite(q).all()) or (p < 0).any() or (q < 0).any():
            raise ValueError("pos_weight, neg_weight: expected finite non-negative weights")
        cdef const double[::1] pv = p
        cdef const double[::1] qv = q
        cdef GroupWalk w
        cdef Py_ssize_t g
        w.total_pos = float(p.sum())
        w.total_neg = float(q.sum())
        w.tp = 0.0
        w.fp = 0.0
        with nogil:
            self.start(&w)
            for g in range(pv.shape[0]):
                if pv[g] + qv[g] == 0.0:
                    continue
                w.done = self.add(&w, pv[g], qv[g])
                w.tp += pv[g]
                w.fp += qv[g]
                if w.done:
                    break
        return float(self.finish(&w))

    def __repr__(self):
        return f"{type(self).__name__}()"


cdef inline bint _empty(GroupWalk* w) noexcept nogil:
    return w.total_pos <= 0.0 or w.total_neg <= 0.0


cdef class GroupAUC(GroupMetric):
    """auc: Σ_g p_g·(2·(negatives below and tied) − n_g) / (2IK), ties ½.  Stops once every positive is above."""

    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil:
        w.acc += p * (2.0 * (w.total_neg - w.fp) - n)
        return w.tp + p >= w.total_pos

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        if _empty(w):
            return NAN
        return w.acc / (2.0 * w.total_pos * w.total_neg)


cdef class GroupKS(GroupMetric):
    """ks = max over cuts between groups of tp/I − fp/K (compared as tp·K − fp·I)."""

    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil:
        cdef double diff = (w.tp + p) * w.total_neg - (w.fp + n) * w.total_pos
        if diff > w.acc:
            w.acc = diff
        return w.tp + p >= w.total_pos  # below, tp stays I and fp grows: the gap only shrinks

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        if _empty(w):
            return NAN
        return w.acc / (w.total_pos * w.total_neg)


cdef class GroupPrecAtK(GroupMetric):
    """prec@k: (positives among the k top rows)/k, the tie group at row k credited in expectation.

    k is a count, or a fraction κ of the total weight n resolved to
    max(1, floor(κn + 0.5)); either is clamped to [1, n].  Defined with one
    class; NaN only when the total weight is 0.
    """

    cdef Py_ssize_t k_count
    cdef double k_fraction

    def __init__(self, SortedPrecAtK kernel):
        # k as the sorted kernel validated and resolved it (a count, or a fraction of n)
        self.k_count = kernel.k_count
        self.k_fraction = kernel.k_fraction

    cdef void start(self, GroupWalk* w) noexcept nogil:
        cdef double total = w.total_pos + w.total_neg, k
        GroupMetric.start(self, w)
        k = floor(self.k_fraction * total + 0.5) if self.k_fraction > 0 else <double> self.k_count
        if k > total:
            k = total
        if k < 1.0:
            k = 1.0
        w.acc3 = k          # k; acc: positives above, acc2: rows above

    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil:
        cdef double group = p + n, k = w.acc3
        if w.acc2 + group >= k:
            w.acc += (k - w.acc2) * (p / group)
            w.acc2 = k
            return True
        w.acc += p
        w.acc2 += group
        return False

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        if w.total_pos + w.total_neg <= 0.0:
            return NAN
        return w.acc / w.acc3

    def __repr__(self):
        return f"GroupPrecAtK(k={self.k_fraction if self.k_fraction > 0 else self.k_count!r})"


cdef class GroupRMax(GroupMetric):
    """rmax: the positive weight strictly above the highest group holding negative weight."""

    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil:
        if n > 0.0:
            w.acc = w.tp
            return True
        return False

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        if _empty(w):
            return NAN
        return w.acc


cdef class GroupMaxHeight(GroupRMax):
    """max_height = I − rmax."""

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        if _empty(w):
            return NAN
        return w.total_pos - w.acc


cdef class GroupPartialAUC(GroupMetric):
    """pauc:α (raw or McClish): the ROC area up to fp = αK, the crossing segment cut by interpolation."""

    cdef double max_fpr
    cdef bint mcclish

    def __init__(self, double max_fpr, scale="raw"):
        self.max_fpr = max_fpr
        self.mcclish = scale == "mcclish"

    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil:
        cdef double limit = self.max_fpr * w.total_neg, dx, y_cut
        if w.fp + n <= limit:
            w.acc += n * (2.0 * w.tp + p)      # twice the area of a whole segment
            return w.fp + n >= limit
        dx = limit - w.fp
        y_cut = w.tp + p * (dx / n)
        w.acc2 = dx * (w.tp + y_cut)
        return True

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        cdef double alpha = self.max_fpr, raw
        if _empty(w):
            return NAN
        raw = (w.acc + w.acc2) / (2.0 * w.total_pos * w.total_neg)
        if self.mcclish:
            return 0.5 * (1.0 + (raw - 0.5 * alpha * alpha) / (alpha - 0.5 * alpha * alpha))
        return raw

    def __repr__(self):
        return f"GroupPartialAUC(max_fpr={self.max_fpr!r}, scale={'mcclish' if self.mcclish else 'raw'!r})"


cdef class GroupTwoWayPartialAUC(GroupMetric):
    """tpauc:β,α: ∫_0^α max(0, ROC(u) − β) du over the weighted ROC curve."""

    cdef double min_tpr
    cdef double max_fpr
    cdef bint normalized

    def __init__(self, double min_tpr, double max_fpr, scale="raw"):
        self.min_tpr = min_tpr
        self.max_fpr = max_fpr
        self.normalized = scale == "normalized"

    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil:
        cdef double limit = self.max_fpr * w.total_neg
        cdef double x0 = w.fp, y0 = w.tp, x1 = w.fp + n, y1 = w.tp + p
        if x1 > limit:
            y1 = y0 + (y1 - y0) * ((limit - x0) / (x1 - x0))
            x1 = limit
        w.acc += area_above(x0, y0, x1, y1, self.min_tpr * w.total_pos)
        return x1 >= limit

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        cdef double raw
        if _empty(w):
            return NAN
        raw = w.acc / (w.total_pos * w.total_neg)
        if self.normalized:
            return raw / ((1.0 - self.min_tpr) * self.max_fpr)
        return raw

    def __repr__(self):
        return (f"GroupTwoWayPartialAUC(min_tpr={self.min_tpr!r}, max_fpr={self.max_fpr!r}, "
                f"scale={'normalized' if self.normalized else 'raw'!r})")


cdef class GroupPNormRisk(GroupMetric):
    """pnorm:p (θ = 0): ((1/K) Σ_k h_k^p)^{1/p}, h_k = (positives at or below negative k)/I.

    The first group holding negative weight has the largest height (acc);
    the sum (acc2) is scaled by it so p = 64 neither under- nor overflows.
    Stops once every positive is above (the heights below are 0).
    """

    cdef double p

    def __init__(self, double p):
        self.p = p

    cdef void start(self, GroupWalk* w) noexcept nogil:
        GroupMetric.start(self, w)
        w.acc = -1.0        # the largest height, not yet seen

    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil:
        cdef double height = w.total_pos - w.tp
        if n > 0.0:
            if w.acc < 0.0:
                w.acc = height
            if height > 0.0:
                w.acc2 += n * pow(height / w.acc, self.p)
        return w.tp + p >= w.total_pos

    cdef double finish(self, GroupWalk* w) noexcept nogil:
        if _empty(w):
            return NAN
        if w.acc <= 0.0:
            return 0.0
        return (w.acc / w.total_pos) * pow(w.acc2 / w.total_neg, 1.0 / self.p)

    def __repr__(self):
        return f"GroupPNormRisk(p={self.p!r})"

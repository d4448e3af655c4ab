"""The nogil loss evaluator of built-in metrics (a SortedMetric kernel).

Kept in its own module so that the branch-and-bound kernel imports without
``rankcore.metrics.sorted_kernels``; this module is loaded only for metrics whose
``sorted_kernel()`` returns a kernel.

Design
------
A. ``loss`` calls the kernel on the expanded score arrays (any metric).
B. ``loss_runs`` takes scores run-length encoded (strictly ascending values
   with counts), the form ExactBoost's boxes come in: a subsample of m
   examples holds q << m distinct scores once scores live on its dyadic
   lattice.  AUC, KS, prec@k and pAUC are evaluated on the runs in O(q) with
   the same integer counts and the same floating-point operations, in the
   same order, as their SortedMetric kernels, so the result is bit-identical
   to ``loss`` on the expanded arrays (tested); other metrics expand (the
   base class's default).  prec@k and pAUC walk down from the top and stop
   where the metric stops looking: O(runs above rank k) and O(runs above
   FPR = α), where expanding costs O(m) before the kernel starts.
"""

from libc.stdint cimport int32_t

from rankcore.metrics.sorted_helpers cimport (PaucWalk, highest_of, pauc_walk_add, pauc_walk_start, pauc_walk_value,
                                              resolve_k)
from rankcore.metrics.sorted_kernels cimport SortedAUC, SortedKS, SortedMetric, SortedPartialAUC, SortedPrecAtK

from ._evaluators cimport LossEvaluator

cdef enum RunKind:
    RUNS_EXPAND = 0
    RUNS_AUC = 1
    RUNS_KS = 2
    RUNS_PREC = 3
    RUNS_PAUC = 4


cdef double auc_runs(const double* pv, const int32_t* pc, Py_ssize_t rp, Py_ssize_t n_pos,
                     const double* nv, const int32_t* nc, Py_ssize_t rn, Py_ssize_t n_neg) noexcept nogil:
    """SortedAUC on runs: O(rp + rn)."""
    cdef Py_ssize_t i, j = 0
    cdef long long below = 0, tied = 0, cum = 0
    if n_pos == 0 or n_neg == 0:
        return 0.5
    for i in range(rp):
        while j < rn and nv[j] < pv[i]:
            cum += nc[j]
            j += 1
        below += <long long>pc[i] * cum
        if j < rn and nv[j] == pv[i]:
            tied += <long long>pc[i] * nc[j]
    return (2.0 * below + tied) / (2.0 * n_pos * n_neg)


cdef double ks_runs(const double* pv, const int32_t* pc, Py_ssize_t rp, Py_ssize_t n_pos,
                    const double* nv, const int32_t* nc, Py_ssize_t rn, Py_ssize_t n_neg) noexcept nogil:
    """SortedKS on runs: O(rp + rn)."""
    cdef Py_ssize_t i = 0, j = 0
    cdef long long ci = 0, cj = 0, best = 0, diff
    cdef double v
    if n_pos == 0 or n_neg == 0:
        return 0.0
    while i < rp or j < rn:
        if i == rp:
            v = nv[j]
        elif j == rn:
            v = pv[i]
        else:
            v = pv[i] if pv[i] < nv[j] else nv[j]
        if i < rp and pv[i] == v:
            ci += pc[i]
            i += 1
        if j < rn and nv[j] == v:
            cj += nc[j]
            j += 1
        diff = cj * n_pos - ci * n_neg
        if diff > best:
            best = diff
    return best / (<double> n_pos * n_neg)


cdef inline Py_ssize_t take_top_run(const double* v, const int32_t* c, Py_ssize_t* i, double top) noexcept nogil:
    """The count of the last of the runs v[0..i) when it scores ``top`` (then removed: i - 1), else 0."""
    if i[0] > 0 and v[i[0] - 1] == top:
        i[0] -= 1
        return c[i[0]]
    return 0


cdef double prec_runs(Py_ssize_t k_count, double k_fraction,
                      const double* pv, const int32_t* pc, Py_ssize_t rp, Py_ssize_t n_pos,
                      const double* nv, const int32_t* nc, Py_ssize_t rn, Py_ssize_t n_neg) noexcept nogil:
    """SortedPrecAtK on runs, walking down from the top: O(runs above rank k)."""
    cdef Py_ssize_t n = n_pos + n_neg, k, i = rp, j = rn, above = 0, gp, group
    cdef long long hits = 0
    cdef double v
    if n == 0:
        return 0.0
    k = resolve_k(k_count, k_fraction, n)
    while True:  # terminates: k <= n
        v = highest_of(pv, i, nv, j)
        gp = take_top_run(pv, pc, &i, v)
        group = gp + take_top_run(nv, nc, &j, v)
        if above + group >= k:
            return (hits + (k - above) * (<double> gp / group)) / k
        above += group
        hits += gp


cdef double pauc_runs(double alpha, bint mcclish,
                      const double* pv, const int32_t* pc, Py_ssize_t rp, Py_ssize_t n_pos,
                      const double* nv, const int32_t* nc, Py_ssize_t rn, Py_ssize_t n_neg) noexcept nogil:
    """SortedPartialAUC on runs, walking down from the top: O(runs above FPR = alpha).

    A run is a group of tied scores, so each step takes one positive run
    and/or one negative run where the kernel drops the same tied group from
    the expanded arrays, through the kernel's own step (bit for bit).
    """
    cdef Py_ssize_t i = rp, j = rn
    cdef double v
    cdef PaucWalk w
    pauc_walk_start(&w, alpha, n_neg)
    if n_pos > 0 and n_neg > 0:
        while (i > 0 or j > 0) and w.fp < w.limit:
            v = highest_of(pv, i, nv, j)
            pauc_walk_add(&w, take_top_run(pv, pc, &i, v), take_top_run(nv, nc, &j, v))
    return pauc_walk_value(&w, alpha, mcclish, n_pos, n_neg)


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

    Time O(n_pos + n_neg) per call (the kernel's), no allocation; on runs
    O(number of runs) for AUC, KS, prec@k and pAUC.
    """

    cdef SortedMetric kernel
    cdef double sign
    cdef double offset
    cdef int kind
    cdef Py_ssize_t k_count
    cdef double k_fraction
    cdef double max_fpr
    cdef bint mcclish

    def __init__(self, SortedMetric kernel not None, double sign, double offset):
        self.kernel = kernel
        self.sign = sign
        self.offset = offset
        self.failed = False
        self.kind = RUNS_EXPAND
        # exact type checks: a subclass may change the value
        if type(kernel) is SortedAUC:
            self.kind = RUNS_AUC
        elif type(kernel) is SortedKS:
            self.kind = RUNS_KS
        elif type(kernel) is SortedPrecAtK:
            self.kind = RUNS_PREC
            self.k_count = (<SortedPrecAtK>kernel).k_count
            self.k_fraction = (<SortedPrecAtK>kernel).k_fraction
        elif type(kernel) is SortedPartialAUC:
            self.kind = RUNS_PAUC
            self.max_fpr = (<SortedPartialAUC>kernel).max_fpr
            self.mcclish = (<SortedPartialAUC>kernel).mcclish

    cdef double loss(self, const double* pos, Py_ssize_t n_pos,
                     const double* neg, Py_ssize_t n_neg) noexcept nogil:
        return self.sign * self.kernel.value(pos, n_pos, neg, n_neg) + self.offset

    cdef bint pair_count_form(self, double* sign, double* offset) noexcept nogil:
        """AUC: loss = sign * (2 below + tied) / (2 n_pos n_neg) + offset, as ``auc_runs`` computes it."""
        if self.kind != RUNS_AUC:
            return False
        sign[0] = self.sign
        offset[0] = self.offset
        return True

    cdef bint pauc_form(self, double* alpha, bint* mcclish, double* sign, double* offset) noexcept nogil:
        """pAUC: loss = sign * pauc_runs(alpha, mcclish, ...) + offset, as ``loss_runs`` computes it."""
        if self.kind != RUNS_PAUC:
            return False
        alpha[0] = self.max_fpr
        mcclish[0] = self.mcclish
        sign[0] = self.sign
        offset[0] = self.offset
        return True

    def _pauc_form(self):
        """(alpha, mcclish, sign, offset) of ``pauc_form`` or None (for tests)."""
        cdef double alpha = 0.0, sign = 0.0, offset = 0.0
        cdef bint mcclish = False
        return (alpha, bool(mcclish), sign, offset) if self.pauc_form(&alpha, &mcclish, &sign, &offset) else None

    def _pair_count_form(self):
        """(sign, offset) of ``pair_count_form`` or None (for tests)."""
        cdef double sign = 0.0, offset = 0.0
        return (sign, offset) if self.pair_count_form(&sign, &offset) else None

    cdef double loss_runs(self, const double* pv, const int32_t* pc, Py_ssize_t rp, Py_ssize_t n_pos,
                          const double* nv, const int32_t* nc, Py_ssize_t rn, Py_ssize_t n_neg,
                          double* scratch_p, double* scratch_n) noexcept nogil:
        cdef double value
        if self.kind == RUNS_AUC:
            value = auc_runs(pv, pc, rp, n_pos, nv, nc, rn, n_neg)
        elif self.kind == RUNS_KS:
            value = ks_runs(pv, pc, rp, n_pos, nv, nc, rn, n_neg)
        elif self.kind == RUNS_PREC:
            value = prec_runs(self.k_count, self.k_fraction, pv, pc, rp, n_pos, nv, nc, rn, n_neg)
        elif self.kind == RUNS_PAUC:
            value = pauc_runs(self.max_fpr, self.mcclish, pv, pc, rp, n_pos, nv, nc, rn, n_neg)
        else:
            return LossEvaluator.loss_runs(self, pv, pc, rp, n_pos, nv, nc, rn, n_neg, scratch_p, scratch_n)
        return self.sign * value + self.offset

# Bipartite metric kernels on ascending-sorted positive and negative scores.
#
# Design
# ------
# A. One sort, then O(n) merges.  Every scalar bipartite metric (docs/theory/metrics.md) is
#    a function of how the positive scores interleave with the negative ones,
#    so the Python layer splits the scores by label and sorts each side once
#    (two threads; np.sort releases the GIL), and the kernels below walk the
#    two sorted arrays with two pointers.  Nothing here sorts or allocates.
# B. Tied scores are handled by *groups*: a pass visits each distinct score
#    value once, with the number of positives and negatives that carry it.
#    That makes the tie conventions explicit (½ credit in auc, diagonal ROC
#    segments in pauc/tpauc, fractional credit at the k-th score in prec@k)
#    and keeps the cost O(n) however many ties there are.
# C. Counts are exact: pair counts are accumulated in 64-bit integers (I·K fits
#    for any n a machine can hold), divided once at the end, so auc at n = 10⁶
#    is exact to the last bit of the final division.
# D. Top-of-the-list metrics (prec@k, pauc, tpauc, rmax) walk down from the
#    highest score and stop as soon as they are done, so their cost is
#    proportional to the part of the list they look at.
# E. The kernels are extension types with their parameters as cdef fields and a
#    ``value(...) noexcept nogil`` method (declared in sorted_kernels.pxd), so that
#    ExactBoost's branch and bound can call any of them from nogil code in a
#    tight loop.  ``value`` never reads outside the given ranges; with an empty
#    class it returns a documented finite value (listed per class) and the
#    Python wrapper ``evaluate`` raises instead where the metric is undefined.

from libc.math cimport pow, INFINITY

from .sorted_helpers cimport (PaucWalk, area_above, count_le, drop_top, highest_of, lowest_of, pauc_walk_add,
                      pauc_walk_start, pauc_walk_value, resolve_k)

import numpy as np


# ---------------------------------------------------------------------------
# Per-step helpers
# ---------------------------------------------------------------------------

cdef Py_ssize_t _first_unsorted(const double[::1] a) noexcept nogil:
    """Index of the first entry that is not finite or is below its predecessor; -1 if none."""
    cdef Py_ssize_t i, n = a.shape[0]
    cdef double prev = -INFINITY, v
    for i in range(n):
        v = a[i]
        # NaN fails every comparison; +inf fails the first test, -inf the second
        if not (v < INFINITY and v > -INFINITY and v >= prev):
            return i
        prev = v
    return -1


def _as_sorted(values, name):
    """Validate one side for ``SortedMetric.evaluate``: 1-D, finite, ascending (one O(n) pass; O(1) extra
    memory unless ``values`` must be copied into contiguous float64)."""
    arr = np.ascontiguousarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of scores, got shape {arr.shape}")
    cdef const double[::1] view = arr
    cdef Py_ssize_t bad
    with nogil:
        bad = _first_unsorted(view)
    if bad >= 0:
        if not np.isfinite(arr[bad]):
            raise ValueError(f"{name}: expected finite scores, got {float(arr[bad])!r} at index {bad}")
        raise ValueError(f"{name}: expected scores sorted in ascending order (np.sort them first); "
                         f"index {bad} holds {float(arr[bad])!r} after {float(arr[bad - 1])!r}")
    return arr


# ---------------------------------------------------------------------------
# The interface
# ---------------------------------------------------------------------------

cdef class SortedMetric:
    """A bipartite metric evaluated on ascending-sorted positive/negative scores.

    ``value`` (C level, nogil) is what kernels call; ``evaluate`` is its
    validated Python wrapper.  Subclasses keep their parameters in cdef fields.
    """

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        return 0.0

    def _check_counts(self, Py_ssize_t n_pos, Py_ssize_t n_neg):
        """Raise where the metric is undefined (default: a class is empty)."""
        if n_pos == 0 or n_neg == 0:
            missing = "positive" if n_pos == 0 else "negative"
            raise ValueError(
                f"{self!r}: needs both classes, got no {missing} scores "
                f"(n_pos={n_pos}, n_neg={n_neg})"
            )

    def evaluate(self, pos, neg, *, check_classes=True):
        """The metric from ascending-sorted positive and negative scores.

        Parameters
        ----------
        pos, neg : array-like of float, 1-D, ascending
            Scores of the positives and of the negatives.
        check_classes : bool, default True
            Raise ``ValueError`` where the metric is undefined (an empty
            class, for most metrics).  False returns what the nogil ``value``
            returns in that case (documented per kernel).

        Returns
        -------
        float

        Notes
        -----
        O(I + K) time to check both sides, plus the kernel's own ``value``
        (stated per class); O(1) extra memory unless a side must be copied
        into contiguous float64 (O(I + K)).
        """
        cdef const double[::1] p = _as_sorted(pos, "pos")
        cdef const double[::1] q = _as_sorted(neg, "neg")
        cdef Py_ssize_t n_pos = p.shape[0], n_neg = q.shape[0]
        if n_pos + n_neg == 0:
            raise ValueError(f"{self!r}: expected at least one score, got none")
        if check_classes:
            self._check_counts(n_pos, n_neg)
        cdef const double* pp = &p[0] if n_pos > 0 else NULL
        cdef const double* qq = &q[0] if n_neg > 0 else NULL
        cdef double out
        with nogil:
            out = self.value(pp, n_pos, qq, n_neg)
        return float(out)

    def __repr__(self):
        return f"{type(self).__name__}()"


# ---------------------------------------------------------------------------
# auc
# ---------------------------------------------------------------------------

cdef class SortedAUC(SortedMetric):
    """auc = (1/IK) Σ_i Σ_k [1(f_i > f_k) + ½·1(f_i = f_k)].

    O(I + K) time, O(1) memory.  With an empty class ``value`` returns 0.5.
    """

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        cdef Py_ssize_t i = 0, i_end, j_lt = 0, j_le
        cdef long long below = 0, tied = 0, group
        cdef double v
        if n_pos == 0 or n_neg == 0:
            return 0.5
        while i < n_pos:
            v = pos[i]
            i_end = i + 1
            while i_end < n_pos and pos[i_end] == v:
                i_end += 1
            group = i_end - i
            while j_lt < n_neg and neg[j_lt] < v:
                j_lt += 1
            j_le = j_lt
            while j_le < n_neg and neg[j_le] == v:
                j_le += 1
            below += group * j_lt
            tied += group * (j_le - j_lt)
            i = i_end
        return (2.0 * below + tied) / (2.0 * n_pos * n_neg)

    def __repr__(self):
        return "SortedAUC()"


# ---------------------------------------------------------------------------
# ks
# ---------------------------------------------------------------------------

cdef class SortedKS(SortedMetric):
    """ks = max_t (F₋(t) − F₊(t)), F±(t) = fraction of scores <= t.

    The maximum is over t = −∞ (value 0) and every distinct score.
    O(I + K) time, O(1) memory.  With an empty class ``value`` returns 0.
    """

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        cdef Py_ssize_t i = 0, j = 0
        cdef long long best = 0, diff
        cdef double v
        if n_pos == 0 or n_neg == 0:
            return 0.0
        while i < n_pos or j < n_neg:
            v = lowest_of(pos, i, n_pos, neg, j, n_neg)
            while i < n_pos and pos[i] <= v:
                i += 1
            while j < n_neg and neg[j] <= v:
                j += 1
            # F₋ − F₊ = j/K − i/I, compared exactly as j·I − i·K.
            diff = <long long> j * n_pos - <long long> i * n_neg
            if diff > best:
                best = diff
        return best / (<double> n_pos * n_neg)

    def __repr__(self):
        return "SortedKS()"


# ---------------------------------------------------------------------------
# prec@k
# ---------------------------------------------------------------------------

cdef class SortedPrecAtK(SortedMetric):
    """prec@k = (1/k)·E[#positives among the k top scores], ties in random order.

    Walks down from the top score; the tie group that straddles rank k
    contributes (k − above)·(its positives / its size).  k is a count or a
    fraction κ of n = I + K (k = max(1, floor(κn + 0.5)), resolved at call
    time); either is clamped to [1, n].  k > I keeps k as the denominator.
    O(k + size of the tie group at rank k) time, O(1) memory.  One class may
    be empty (the value is then 0 or 1); with n = 0 ``value`` returns 0.
    """

    def __init__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float, np.integer, np.floating)):
            raise TypeError(f"k: expected a count >= 1 or a fraction in (0, 1), got {type(k).__name__}")
        if not np.isfinite(k) or not (k > 0) or (k >= 1 and float(k) != int(k)):
            raise ValueError(f"k: expected a count >= 1 or a fraction in (0, 1), got {k!r}")
        if k < 1:
            self.k_fraction = float(k)
            self.k_count = 0
        else:
            self.k_fraction = 0.0
            self.k_count = int(k)

    @property
    def k(self):
        return self.k_fraction if self.k_fraction > 0 else self.k_count

    def _check_counts(self, Py_ssize_t n_pos, Py_ssize_t n_neg):
        pass  # defined with one class present

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        cdef Py_ssize_t n = n_pos + n_neg
        cdef Py_ssize_t k, i = n_pos, j = n_neg, i_next, j_next, above = 0, group
        cdef long long hits = 0
        cdef double v
        if n == 0:
            return 0.0
        k = resolve_k(self.k_count, self.k_fraction, n)
        while True:  # terminates: k <= n
            v = highest_of(pos, i, neg, j)
            i_next = drop_top(pos, i, v)
            j_next = drop_top(neg, j, v)
            group = (i - i_next) + (j - j_next)
            if above + group >= k:
                return (hits + (k - above) * (<double> (i - i_next) / group)) / k
            above += group
            hits += i - i_next
            i, j = i_next, j_next

    def __repr__(self):
        return f"SortedPrecAtK(k={self.k!r})"


# ---------------------------------------------------------------------------
# rmax and max_height
# ---------------------------------------------------------------------------

cdef inline Py_ssize_t _rmax(const double* pos, Py_ssize_t n_pos,
                             const double* neg, Py_ssize_t n_neg) noexcept nogil:
    if n_neg == 0:
        return n_pos
    return n_pos - count_le(pos, n_pos, neg[n_neg - 1])


cdef class SortedRMax(SortedMetric):
    """rmax = #{positives scored strictly above every negative}.

    O(log I) time (binary search for the highest negative), O(1) memory.
    With no negatives ``value`` returns I (vacuously all), with no positives 0.
    """

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        return <double> _rmax(pos, n_pos, neg, n_neg)

    def __repr__(self):
        return "SortedRMax()"


cdef class SortedMaxHeight(SortedMetric):
    """max_height = max_k #{i : f_i <= f_k} = I − rmax (lower is better).

    O(log I) time, O(1) memory.  With an empty class ``value`` returns 0.
    """

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        if n_neg == 0:
            return 0.0
        return <double> (n_pos - _rmax(pos, n_pos, neg, n_neg))

    def __repr__(self):
        return "SortedMaxHeight()"


# ---------------------------------------------------------------------------
# pauc and tpauc: areas under the tied ROC curve, walked from the top
# ---------------------------------------------------------------------------
#
# The ROC curve goes from (0, 0) through one point per distinct score
# (descending), a tie group of c₊ positives and c₋ negatives being the
# straight segment from (FP, TP) to (FP + c₋, TP + c₊) -- the expected curve
# under a random order of the tie.  Both kernels work in count units
# (x ∈ [0, K], y ∈ [0, I]) and divide by I·K once.

cdef class SortedPartialAUC(SortedMetric):
    """pauc:α = area under the ROC curve over FPR ∈ [0, α].

    raw: the area itself, in [0, α] (a constant scorer gets α²/2).
    mcclish: ½·(1 + (raw − α²/2)/(α − α²/2)) -- scikit-learn's
    ``roc_auc_score(max_fpr=α)``; 0.5 for a random scorer, 1 for a perfect one.
    The curve is cut at FPR = α by linear interpolation.  O(αK + the positives
    above that point) time, O(1) memory.  With an empty class ``value``
    returns the constant scorer's value (raw α²/2, mcclish 0.5).
    """

    def __init__(self, double max_fpr, scale="raw"):
        if not (0.0 < max_fpr <= 1.0):
            raise ValueError(f"max_fpr: expected a number in (0, 1], got {max_fpr!r}")
        if scale not in ("raw", "mcclish"):
            raise ValueError(f"scale: expected 'raw' or 'mcclish', got {scale!r}")
        self.max_fpr = max_fpr
        self.mcclish = scale == "mcclish"

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        cdef Py_ssize_t i = n_pos, j = n_neg, i_next, j_next
        cdef double v
        cdef PaucWalk w
        pauc_walk_start(&w, self.max_fpr, n_neg)
        if n_pos > 0 and n_neg > 0:
            while (i > 0 or j > 0) and w.fp < w.limit:
                v = highest_of(pos, i, neg, j)
                i_next = drop_top(pos, i, v)
                j_next = drop_top(neg, j, v)
                pauc_walk_add(&w, i - i_next, j - j_next)
                i, j = i_next, j_next
        return pauc_walk_value(&w, self.max_fpr, self.mcclish, n_pos, n_neg)

    @property
    def scale(self):
        return "mcclish" if self.mcclish else "raw"

    def __repr__(self):
        return f"SortedPartialAUC(max_fpr={self.max_fpr!r}, scale={self.scale!r})"


cdef class SortedTwoWayPartialAUC(SortedMetric):
    """tpauc:β,α = area of the ROC region with TPR >= β and FPR <= α.

    = ∫_0^α max(0, ROC(u) − β) du with the tied ROC curve (diagonal tie
    segments, cut at FPR = α by linear interpolation).  raw lies in
    [0, (1 − β)α]; normalized divides by (1 − β)α.  O(αK + the positives
    above that point) time, O(1) memory.  With an empty class ``value``
    returns the constant scorer's value max(0, α − β)²/2 (normalized: divided
    by (1 − β)α).
    """

    def __init__(self, double min_tpr, double max_fpr, scale="raw"):
        if not (0.0 <= min_tpr < 1.0):
            raise ValueError(f"min_tpr: expected a number in [0, 1), got {min_tpr!r}")
        if not (0.0 < max_fpr <= 1.0):
            raise ValueError(f"max_fpr: expected a number in (0, 1], got {max_fpr!r}")
        if scale not in ("raw", "normalized"):
            raise ValueError(f"scale: expected 'raw' or 'normalized', got {scale!r}")
        self.min_tpr = min_tpr
        self.max_fpr = max_fpr
        self.normalized = scale == "normalized"

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        cdef double alpha = self.max_fpr, beta = self.min_tpr, raw, gap
        cdef double limit, b, x0, y0, x1, y1, area = 0.0
        cdef Py_ssize_t i = n_pos, j = n_neg, i_next, j_next
        cdef double v
        if n_pos == 0 or n_neg == 0:
            gap = alpha - beta if alpha > beta else 0.0
            raw = 0.5 * gap * gap
        else:
            limit = alpha * n_neg
            b = beta * n_pos
            x0 = 0.0
            y0 = 0.0
            while (i > 0 or j > 0) and x0 < limit:
                v = highest_of(pos, i, neg, j)
                i_next = drop_top(pos, i, v)
                j_next = drop_top(neg, j, v)
                x1 = x0 + (j - j_next)
                y1 = y0 + (i - i_next)
                if x1 > limit:  # cut the segment at FPR = α
                    y1 = y0 + (y1 - y0) * ((limit - x0) / (x1 - x0))
                    x1 = limit
                area += area_above(x0, y0, x1, y1, b)
                x0, y0 = x1, y1
                i, j = i_next, j_next
            raw = area / (<double> n_pos * n_neg)
        if self.normalized:
            return raw / ((1.0 - beta) * alpha)
        return raw

    @property
    def scale(self):
        return "normalized" if self.normalized else "raw"

    def __repr__(self):
        return (f"SortedTwoWayPartialAUC(min_tpr={self.min_tpr!r}, max_fpr={self.max_fpr!r}, "
                f"scale={self.scale!r})")


# ---------------------------------------------------------------------------
# pnorm
# ---------------------------------------------------------------------------

cdef class SortedPNormRisk(SortedMetric):
    """pnorm:p,θ = ( (1/K) Σ_k h_k^p )^{1/p}, h_k = (1/I)·#{i : f_i − f_k <= θ}.

    Lower is better.  h_k is non-decreasing along the ascending negatives, so
    one pointer over the positives gives every h_k; the power sum is scaled by
    the largest h (the last one) so that p = 64 neither underflows nor
    overflows.  The condition is tested as written, f_i − f_k <= θ, which is
    monotone in f_i and f_k also in floating point.  O(I + K) time with one
    pow() per distinct h_k, O(1) memory.  With an empty class ``value``
    returns 0.
    """

    def __init__(self, double p, double theta=0.0):
        if not (p >= 1.0) or p == INFINITY:
            raise ValueError(f"p: expected a finite number >= 1, got {p!r}")
        if theta != theta or theta in (INFINITY, -INFINITY):
            raise ValueError(f"theta: expected a finite number, got {theta!r}")
        self.p = p
        self.theta = theta

    cdef double value(self, const double* pos, Py_ssize_t n_pos,
                      const double* neg, Py_ssize_t n_neg) noexcept nogil:
        cdef double p = self.p, theta = self.theta, total = 0.0, term = 1.0, f_k
        cdef Py_ssize_t i = 0, k, largest, last = -1
        if n_pos == 0 or n_neg == 0:
            return 0.0
        # largest count: the positives within θ of the highest negative
        f_k = neg[n_neg - 1]
        largest = 0
        while largest < n_pos and pos[largest] - f_k <= theta:
            largest += 1
        if largest == 0:
            return 0.0
        for k in range(n_neg):
            f_k = neg[k]
            while i < n_pos and pos[i] - f_k <= theta:
                i += 1
            if i != last:  # one pow() per distinct count
                term = pow(<double> i / largest, p) if i > 0 else 0.0
                last = i
            total += term
        return (<double> largest / n_pos) * pow(total / n_neg, 1.0 / p)

    def __repr__(self):
        return f"SortedPNormRisk(p={self.p!r}, theta={self.theta!r})"

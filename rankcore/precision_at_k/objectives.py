"""The precision@k surrogates as objectives of the boosting driver (``objective`` family).

Spec strings ``prec@k-avg:k``, ``prec@k-max:k``, ``prec@k-ramp:k`` and
``prec@k-struct:k`` name the surrogates of SPEC §3 as functions of the whole
score vector, so ``rankcore.boost(objective="prec@k-avg:20", learner="stumps")``
minimizes precision@k surrogates over nonlinear weak rankers (the paper only
has linear models).

* ``k`` is a count or a fraction of the training set (``check_k``), or
  ``n+``: the number of positives (the precision-recall break-even point).
  With fewer positives than k the objective is the k = n₊ one, as in the
  linear learners' batches.
* Values and gradients are normalized by k, and each evaluation costs one sort,
  O(n log n).  Ties are not broken by position: see
  :func:`rankcore.precision_at_k.surrogate_and_grad`.
* ``avg`` and ``max`` are convex and shift invariant, so a line search along
  any weak ranker has a single minimum. ``ramp`` is shift invariant but not
  convex: the line search may stop at a local minimum.  ``struct`` is
  convex, but when k < n₊ it is neither an upper bound nor shift invariant.
  It is then unbounded below (raise every positive's score and it goes to
  −∞), so as an objective it is accepted only for k >= n₊, where it equals
  ``avg`` (its default k is ``n+``).
* Sample weights are not supported.
* **No curvature** (``has_hessian`` False).  The surrogates are piecewise
  linear in the scores: their second derivative is zero wherever it exists,
  so there is no diagonal curvature to give a Newton leaf.  Trees fit them
  with gradient leaves and the driver's line search; the LightGBM/XGBoost
  adapters (``rankcore.gbdt``) pass a constant curvature (documented there).
* **Line search.**  Along a weak ranker h with few distinct values (a stump:
  two; a tree: one per leaf) the driver's line function is exact and cheap
  (:class:`TopKLine`): each surrogate depends on the scores only through
  sums of the top k positive and top k negative scores (and the sum of all
  positives, linear in α), and within the rows sharing a value of h the
  order never changes along the line.  So each class is sorted once per
  line, by (value of h, score), only the top k of each group are kept, and
  φ(α) and φ′(α) cost O(G k log(G k)) for G groups instead of a sort of all
  n rows.  Other directions (and ``prec@k-max``, which needs the lowest
  positives) use the generic line.
* **Ties.**  The surrogates are piecewise linear with a kink wherever two
  scores tie: everywhere at the all-zero start, and within every leaf of the
  weak rankers.  There the (tie-averaged) subgradient need not descend along
  the stump it selects, and coordinate descent from f = 0 stops at once at
  the base rate.  So each objective declares ``tie_break_scale`` (the
  optional second parameter ``tie_break``, default 0.1): the estimators
  start the *training* scores at a random permutation (``random_state``) of
  evenly spaced values spanning [−0.05, 0.05], never part of the model
  (``rankcore.push._tie_break``).  As ‖∇J‖₁ <= 2 after normalization by k
  and J is shift invariant, the offset moves J by at most ``tie_break``.
  Why 0.1 and not an infinitesimal offset: until the scores spread, the
  line search's steps are of the order of the offset (rows of a leaf are
  only ε apart; measured: a median |α| of a quarter of the offset's range),
  and the surrogates' margin is 1.  An offset of 1e-6 ranks as well but, at
  k = 1 %, leaves the surrogate at its start value after 100 iterations;
  with 0.1 a budget of about 100 stumps can span the margin.
  ``tie_break=0`` restores the all-zero start (and the stall).  See
  ``docs/precision_at_k.md``.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from ..objectives._base import BoundObjective, LinePoint, Objective
from ..spec import Parameter, count_or_fraction
from ..validation import check_k

#: The value of ``k`` that means "the number of positives".
N_POS = "n+"


def count_fraction_or_npos(value):
    """Parameter kind for k: a count >= 1, a fraction in (0, 1), or ``"n+"`` (the number of positives)."""
    if isinstance(value, str) and value.strip().lower() in ("n+", "npos", "n_pos"):
        return N_POS
    return count_or_fraction(value)


count_fraction_or_npos.__name__ = "a count, a fraction or n+"  # shown in error messages

__all__ = ["PrecAtKAvg", "PrecAtKMax", "PrecAtKRamp", "PrecAtKStruct", "SURROGATE_OBJECTIVES", "TIE_BREAK"]

#: Default width of the tie-break offset of the training scores (a tenth of the surrogates' unit margin).
TIE_BREAK = 0.1

_TIE_BREAK_PARAMETER = Parameter(
    "tie_break", float, default=TIE_BREAK, minimum=0.0,
    doc="width of the random offset the training scores start from, breaking ties (0: start at 0)",
)


class _PrecAtKSurrogate(Objective):
    """Shared implementation; subclasses set ``name`` and ``kind``."""

    kind: ClassVar[str] = "avg"
    task: ClassVar[str] = "bipartite"
    log_value: ClassVar[bool] = False
    supports_sample_weight: ClassVar[bool] = False
    parameters = (
        Parameter("k", count_fraction_or_npos,
                  doc="a count >= 1, a fraction in (0, 1) of the training set, or n+ (the number of positives)"),
        _TIE_BREAK_PARAMETER,
    )

    @property
    def tie_break_scale(self) -> float:
        """Width of the training scores' tie-break offset (the ``tie_break`` parameter; see the module doc)."""
        return self.tie_break

    def requested_k(self, y: np.ndarray) -> int:
        """k as a count for labels ``y`` (check_k on n; ``n+`` is n₊), before the cap at n₊."""
        if self.k == N_POS:
            return int(np.count_nonzero(y))
        return check_k(self.k, int(y.shape[0]), name=f"objective {self.spec!r}: k")

    def resolve_k(self, y: np.ndarray) -> int:
        """The k used: :meth:`requested_k` capped at n₊."""
        return min(self.requested_k(y), int(np.count_nonzero(y)))

    def check_target(self, y: np.ndarray, sample_weight: np.ndarray | None = None) -> None:
        if sample_weight is not None:
            raise ValueError(f"objective {self.spec!r} does not support sample_weight; fit without it")
        if np.count_nonzero(y) == 0 or np.count_nonzero(y) == y.shape[0]:
            raise ValueError(f"objective {self.spec!r}: y needs both classes (one class given)")
        self.resolve_k(y)

    def value_and_gradient(self, y, scores, sample_weight=None):
        self.check_target(y, sample_weight)
        return _SurrogateBound(self, y, None).value_and_gradient(scores)

    def bind(self, y, sample_weight=None, *, n_threads=1):
        self.check_target(y, sample_weight)
        return _SurrogateBound(self, y, sample_weight)


#: Most distinct values of a direction for the exact line (:class:`TopKLine`).
MAX_LINE_GROUPS = 64


def _few_values(direction: np.ndarray, max_groups: int):
    """(distinct values, group of each row) when ``direction`` has at most ``max_groups`` values, else None.

    Peels one value at a time: O(G n) for G values, no sort (a stump has 2).
    """
    groups = np.zeros(direction.shape[0], dtype=np.intp)
    values = []
    todo = np.arange(direction.shape[0])
    while todo.size:
        if len(values) == max_groups:
            return None
        v = direction[todo[0]]
        same = direction[todo] == v
        groups[todo[same]] = len(values)
        values.append(v)
        todo = todo[~same]
    return np.asarray(values, dtype=np.float64), groups


def _top_per_group(values: np.ndarray, groups: np.ndarray, n_groups: int, count: int):
    """Indices of the ``count`` highest ``values`` of each group and of every value tied with
    the count-th, ordered by group, then by descending value.

    O(G n) for G groups (a partition per group), plus sorting what is kept.
    """
    if count <= 0 or values.size == 0:
        return np.empty(0, dtype=np.intp)
    keep = []
    for g in range(n_groups):
        idx = np.flatnonzero(groups == g)
        if idx.size > count:
            # the count-th highest value; keeping everything >= it keeps its ties
            cut = np.partition(values[idx], idx.size - count)[idx.size - count]
            idx = idx[values[idx] >= cut]
        keep.append(idx[np.argsort(-values[idx], kind="stable")])
    return np.concatenate(keep)


class TopKLine:
    """φ(α) = J(f + α·h) of a precision@k surrogate, exactly, from each class's top-k candidates.

    Built once per line in O(n log n); each evaluation O(C log C) for C <= G·k
    candidates (G distinct values of h).  Values and derivatives are those of
    :func:`rankcore.precision_at_k.surrogate_and_grad` (count units divided by
    k): the derivative is the tie-averaged subgradient's dot product with h.

    Use :meth:`build`, which returns None when h has more than
    :data:`MAX_LINE_GROUPS` distinct values or the kind is not supported.
    """

    KINDS = ("avg", "struct", "ramp")

    def __init__(self, kind, k, n_pos, n_neg, pos_f, pos_h, neg_f, neg_h, pos_total, pos_h_total):
        self.kind = kind
        self.k = k
        self.n_pos = n_pos
        self.d_max = min(k, n_neg)
        self.pos_f, self.pos_h = pos_f, pos_h
        self.neg_f, self.neg_h = neg_f, neg_h
        self.pos_total = pos_total
        self.pos_h_total = pos_h_total
        # the candidates' order at the last α evaluated (a line search's next α is
        # near its last one, so the sort of the next ranking starts nearly sorted)
        self._order_p = np.arange(pos_f.shape[0])
        self._order_n = np.arange(neg_f.shape[0])

    @classmethod
    def build(cls, kind: str, k: int, y: np.ndarray, scores: np.ndarray, direction: np.ndarray):
        if kind not in cls.KINDS:
            return None
        if not np.all(np.isfinite(direction)):
            return None
        few = _few_values(direction, MAX_LINE_GROUPS)
        if few is None:
            return None
        values, groups = few
        pos = y != 0
        n_pos = int(np.count_nonzero(pos))
        n_neg = y.shape[0] - n_pos
        k = min(k, n_pos)
        sp, gp, hp = scores[pos], groups[pos], direction[pos]
        sn, gn, hn = scores[~pos], groups[~pos], direction[~pos]
        ip = _top_per_group(sp, gp, values.size, k)
        in_ = _top_per_group(sn, gn, values.size, min(k, n_neg))
        return cls(kind, k, n_pos, n_neg, sp[ip], hp[ip], sn[in_], hn[in_],
                   float(np.sum(sp)), float(np.sum(hp)))

    @staticmethod
    def _ranked(f, h, alpha, start):
        """Candidates at α, by descending score: (scores, h, prefix sums of scores, order).

        ``start`` is the order at the previous α: the stable sort (a merge
        sort that detects runs) of a nearly sorted array is close to linear.
        The first order is G runs already descending (within a group the
        order does not depend on α).  Ties keep the previous order, but no
        result depends on the order within a tie group (sums of equal
        values, pro-rata shares of h).
        """
        v = (f + alpha * h)[start]
        order = start[np.argsort(-v, kind="stable")]
        v = f[order] + alpha * h[order]
        cum = np.empty(v.shape[0] + 1)
        cum[0] = 0.0
        np.cumsum(v, out=cum[1:])
        return v, h[order], cum, order

    @staticmethod
    def _h_prefix(v, h, r):
        """Σ h over the top r ranks, a tie group straddling rank r counted pro rata."""
        if r <= 0:
            return 0.0
        if r >= v.size or v[r - 1] != v[r]:
            return float(np.sum(h[:r]))
        a = int(np.searchsorted(-v, -v[r], side="left"))
        b = int(np.searchsorted(-v, -v[r], side="right"))
        return float(np.sum(h[:a]) + (r - a) / (b - a) * np.sum(h[a:b]))

    def maximize(self, alpha: float):
        """(surrogate in count units, maximizing Δ, ranked positives (v, h), ranked negatives (v, h)) at α."""
        k, d_max = self.k, self.d_max
        vp, hp, tp, self._order_p = self._ranked(self.pos_f, self.pos_h, alpha, self._order_p)
        vn, hn, tn, self._order_n = self._ranked(self.neg_f, self.neg_h, alpha, self._order_n)
        d = np.arange(d_max + 1)
        total = self.pos_total + alpha * self.pos_h_total
        if self.kind == "avg":
            fn_mass = np.maximum(self.n_pos - k + d, 1)
            lows = np.where(d > 0, d * (total - tp[k - d]) / fn_mass, 0.0)
        elif self.kind == "struct":
            lows = total - tp[k - d]
        else:  # ramp
            lows = tp[k] - tp[k - d]
        value = d + tn[: d_max + 1] - lows
        best = int(np.argmax(value))  # the first maximum, as the kernel
        return float(value[best]), best, vp, hp, vn, hn

    def __call__(self, alpha: float) -> LinePoint:
        k = self.k
        value, best, vp, hp, vn, hn = self.maximize(alpha)
        dn = self._h_prefix(vn, hn, best)
        if self.kind == "avg":
            d1 = 0.0 if best == 0 else dn - best / (self.n_pos - k + best) * (
                self.pos_h_total - self._h_prefix(vp, hp, k - best))
        elif self.kind == "struct":
            d1 = dn - (self.pos_h_total - self._h_prefix(vp, hp, k - best))
        else:
            d1 = dn - (self._h_prefix(vp, hp, k) - self._h_prefix(vp, hp, k - best))
        return LinePoint(alpha, value / k, d1 / k, math.nan)

    def minimize(self, max_step: float):
        """The line's minimum: φ is piecewise linear in α, so it lies at a breakpoint.

        :func:`rankcore.push._line_search.piecewise_linear_search` (line_search's
        semantics; a few evaluations instead of a bisection to 1e-13).
        """
        from ..push._line_search import piecewise_linear_search
        return piecewise_linear_search(self, max_step=max_step)


def _top_sorted(values: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` highest values and every value tied with the count-th, descending.  O(n + count log count)."""
    if count <= 0 or values.size == 0:
        return values[:0]
    if values.size > count:
        cut = np.partition(values, values.size - count)[values.size - count]
        values = values[values >= cut]
    return -np.sort(-values)


def _rank_share(values: np.ndarray, ranked: np.ndarray, r: int) -> np.ndarray:
    """Each value's share of the top r ranks of its class, a tie group straddling rank r pro rata.

    ``ranked`` holds at least the top r values, descending.  O(n).
    """
    if r <= 0:
        return np.zeros(values.shape[0])
    if r >= values.shape[0]:
        return np.ones(values.shape[0])
    t = ranked[r - 1]
    above = int(np.count_nonzero(values > t))
    tied = values == t
    share = (values > t).astype(np.float64)
    share[tied] = (r - above) / np.count_nonzero(tied)
    return share


def top_k_value_and_gradient(kind: str, k: int, y: np.ndarray, scores: np.ndarray):
    """(value, gradient) in count units, as the Cython kernel, from the top k of each class.

    The avg, struct and ramp surrogates read only the k highest positive
    and negative scores (and the sum of all positives); their subgradient is
    a constant on rank intervals of each class, averaged over tie groups.
    So a partition (O(n)) replaces the kernel's sort (O(n log n)).
    """
    pos = y != 0
    sp, sn = scores[pos], scores[~pos]
    n_pos, n_neg = sp.shape[0], sn.shape[0]
    k = min(k, n_pos)
    top_p = _top_sorted(sp, k)
    top_n = _top_sorted(sn, min(k, n_neg))
    line = TopKLine(kind, k, n_pos, n_neg, top_p, np.zeros(top_p.shape[0]), top_n, np.zeros(top_n.shape[0]),
                    float(np.sum(sp)), 0.0)
    value, best, _, _, _, _ = line.maximize(0.0)
    grad = np.zeros(scores.shape[0])
    grad[~pos] = _rank_share(sn, top_n, best)
    if kind == "avg":
        coef = best / (n_pos - k + best) if best > 0 else 0.0
        grad[pos] = -coef * (1.0 - _rank_share(sp, top_p, k - best))
    elif kind == "struct":
        grad[pos] = -(1.0 - _rank_share(sp, top_p, k - best))
    else:  # ramp
        grad[pos] = -(_rank_share(sp, top_p, k) - _rank_share(sp, top_p, k - best))
    return value, grad, k


class _SurrogateBound(BoundObjective):
    """The surrogate with its labels and k fixed: straight to the Cython kernel."""

    #: Use :class:`TopKLine` and :func:`top_k_value_and_gradient` where they apply
    #: (False: the generic line and the sorting kernel, the reference).
    exact_line: ClassVar[bool] = True

    def __init__(self, objective, y, sample_weight):
        super().__init__(objective, np.ascontiguousarray(y, dtype=np.int8), sample_weight)
        from . import _surrogates

        self._kernel = _surrogates.surrogate_batch
        self._kind = _surrogates.KINDS[objective.kind]
        self.k = objective.resolve_k(self.y)

    def value_and_gradient(self, scores):
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        if self.exact_line and self.objective.kind in TopKLine.KINDS:
            value, grad, k_used = top_k_value_and_gradient(self.objective.kind, self.k, self.y, scores)
            grad /= k_used
            return value / k_used, grad
        value, grad, k_used, _, _ = self._kernel(scores, self.y, self.k, self._kind, True)
        grad /= k_used
        return float(value / k_used), grad

    def value(self, scores):
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        value, _, k_used, _, _ = self._kernel(scores, self.y, self.k, self._kind, False)
        return float(value / k_used)

    def line(self, scores, direction):
        """φ along ``direction``: :class:`TopKLine` when h has few values, else the generic line."""
        if self.exact_line:
            line = TopKLine.build(self.objective.kind, self.k, self.y,
                                  np.asarray(scores, dtype=np.float64), np.asarray(direction, dtype=np.float64))
            if line is not None:
                return line
        return super().line(scores, direction)


class PrecAtKAvg(_PrecAtKSurrogate):
    """The avg surrogate of precision@k (convex upper bound; Kar et al. 2015), normalized by k."""

    name = "prec@k-avg"
    kind = "avg"
    examples = ("prec@k-avg:1", "prec@k-avg:5", "prec@k-avg:0.2", "prec@k-avg:n+", "prec@k-avg:5,tie_break=0")


class PrecAtKMax(_PrecAtKSurrogate):
    """The max surrogate of precision@k (convex upper bound, looser than avg), normalized by k."""

    name = "prec@k-max"
    kind = "max"
    examples = ("prec@k-max:1", "prec@k-max:5", "prec@k-max:0.2")


class PrecAtKRamp(_PrecAtKSurrogate):
    """The ramp surrogate of precision@k (tightest upper bound; not convex), normalized by k."""

    name = "prec@k-ramp"
    kind = "ramp"
    examples = ("prec@k-ramp:1", "prec@k-ramp:5", "prec@k-ramp:0.2")


class PrecAtKStruct(_PrecAtKSurrogate):
    """Joachims' struct-SVM surrogate of precision@k, accepted only for k >= n₊ (where it equals avg)."""

    name = "prec@k-struct"
    kind = "struct"
    examples = ("prec@k-struct", "prec@k-struct:n+")
    parameters = (
        Parameter("k", count_fraction_or_npos, default=N_POS,
                  doc="n+ (default), or a count / fraction that is at least the number of positives"),
        _TIE_BREAK_PARAMETER,
    )

    def check_target(self, y, sample_weight=None):
        super().check_target(y, sample_weight)
        count = self.requested_k(y)
        n_pos = int(np.count_nonzero(y))
        if count < n_pos:
            raise ValueError(
                f"objective {self.spec!r}: k = {count} < n₊ = {n_pos}; for k < n₊ the struct surrogate is not "
                f"shift invariant and is unbounded below (raise every positive's score), so it cannot be "
                f"boosted; use k >= {n_pos} (where it equals prec@k-avg) or prec@k-avg"
            )


#: The classes registered through ``rankcore_register_objectives``.
SURROGATE_OBJECTIVES = [PrecAtKAvg, PrecAtKMax, PrecAtKRamp, PrecAtKStruct]

"""The precision@k surrogates as objectives of the boosting driver (``objective`` family).

Spec strings ``prec@k-avg:k``, ``prec@k-max:k``, ``prec@k-ramp:k`` and
``prec@k-struct:k`` name the surrogates of docs/theory/precision_at_k.md as functions of the whole
score vector, so ``rankcore.boost(objective="prec@k-avg:20", learner="stumps")``
minimizes precision@k surrogates over nonlinear weak rankers (the paper only
has linear models).

* ``k`` is a count or a fraction of the training set (``check_k``), or
  ``n+``: the number of positives (the precision-recall break-even point).
  With fewer positives than k the objective is the k = n₊ one, as in the
  linear learners' batches.
* Values and gradients are normalized by k; the value and gradient at the
  scores cost O(n + k log k) (a selection per class and a sort of the k kept,
  :func:`top_k_value_and_gradient`).  Ties are not broken by position: see
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
  two; a tree: one per leaf; up to :data:`MAX_LINE_GROUPS`) the driver's line
  function is exact and cheap (:class:`TopKLine`): each surrogate depends on
  the scores only through sums of the top k positive scores (``max``: the
  lowest k) and top k negative scores (and the sum of all positives, linear
  in α), and within the rows sharing a value of h the order never changes
  along the line.  So each class is split by the value of h once per line
  (Cython, O(n)), only the top k of each group are kept and sorted
  (O(n + G k log k)), and φ(α), φ′(α) merge the G sorted groups (O(k log G),
  no sort).  The convex kinds (avg, struct, max) are minimized from the
  previous line's step (:meth:`TopKLine.minimize`).  Directions with more
  values use the generic line.
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
  ``docs/precision_at_k_surrogates.md``.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from ..objectives import BoundObjective, LinePoint, Objective
from ..spec import Parameter, count_or_fraction
from ..validation import ArgumentRefusal, check_k

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

#: The widest tie-break offset: the offset moves J by up to its width, on a scale where the surrogates' margin is
#: 1, so a wider one outweighs the objective it only breaks ties in (and near 1e308 the start scores overflow).
MAX_TIE_BREAK = 100.0

_TIE_BREAK_PARAMETER = Parameter(
    "tie_break", float, default=TIE_BREAK, minimum=0.0, maximum=MAX_TIE_BREAK, saved_beyond_maximum=True,
    doc="width of the random offset the training scores start from, breaking ties (0: start at 0; at most 100, "
        "a hundred margins)",
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
            # the weights are the argument refused (the command line's --weight reads it), said with the objective
            raise ArgumentRefusal(f"objective {self.spec!r} does not support sample_weight; fit without it",
                                  parameter="sample_weight")
        if np.count_nonzero(y) == 0 or np.count_nonzero(y) == y.shape[0]:
            raise ValueError(f"objective {self.spec!r}: y needs both classes (one class given)")
        self.resolve_k(y)

    def value_and_gradient(self, y, scores, sample_weight=None):
        self.check_target(y, sample_weight)
        return _BoundPrecAtK(self, y, None).value_and_gradient(scores)

    def bind(self, y, sample_weight=None, *, n_threads=1):
        self.check_target(y, sample_weight)
        return _BoundPrecAtK(self, y, sample_weight)


#: Most distinct values of a direction for the exact line (:class:`TopKLine`).
MAX_LINE_GROUPS = 64


class TopKLine:
    """φ(α) = J(f + α·h) of a precision@k surrogate, exactly, from each class's top-k candidates.

    Built once per line (:func:`rankcore.precision_at_k._topk_line.line_candidates`:
    O(n·G) to find the G distinct values of h -- O(n) for a stump -- O(n) for
    the selections, O(C log C) to sort the C <= G·k + ties candidates kept);
    each evaluation merges the G sorted groups (``LineKernel``, O(k log G), no
    sort).  Values and derivatives are those of
    :func:`rankcore.precision_at_k.surrogate_and_grad` (count units divided by
    k): the derivative is the tie-averaged subgradient's dot product with h.
    ``max`` keeps the lowest positives instead of the highest.

    Use :meth:`build`, which returns None when h has more than
    :data:`MAX_LINE_GROUPS` distinct values (or a non-finite one) or the kind
    is not supported.
    """

    KINDS = ("avg", "struct", "ramp", "max")
    #: The convex kinds: one minimum value along any line, found from any first trial step.
    CONVEX_KINDS = ("avg", "struct", "max")

    def __init__(self, kind, k, candidates, step_memory=None):
        from . import _surrogates, _topk_line

        pos_f, pos_h, pos_starts, neg_f, neg_h, neg_starts, pos_total, pos_h_total, n_pos, n_neg = candidates
        self.kind = kind
        self.k = min(k, n_pos)
        self.n_pos, self.n_neg = n_pos, n_neg
        self.d_max = min(self.k, n_neg)
        self.n_candidates = (pos_f.shape[0], neg_f.shape[0])
        # [|α| of the previous line, or None]: shared with the bound objective, the next line's first trial
        self.step_memory = step_memory if step_memory is not None else [None]
        self._kernel = _topk_line.LineKernel(_surrogates.KINDS[kind], self.k, n_pos, self.d_max,
                                             pos_f, pos_h, pos_starts, neg_f, neg_h, neg_starts,
                                             pos_total, pos_h_total)

    @classmethod
    def build(cls, kind: str, k: int, y: np.ndarray, scores: np.ndarray, direction: np.ndarray,
              step_memory: list | None = None):
        """The line along ``direction`` from ``scores`` (labels ``y``), or None (see the class doc).

        ``step_memory``: a one-element list holding the previous line's |α| (or
        None), read as this line's first trial step and updated by :meth:`minimize`.
        """
        from . import _topk_line

        if kind not in cls.KINDS:
            return None
        candidates = _topk_line.line_candidates(
            np.ascontiguousarray(y, dtype=np.int8), np.ascontiguousarray(scores, dtype=np.float64),
            np.ascontiguousarray(direction, dtype=np.float64), k, k, kind == "max", MAX_LINE_GROUPS)
        if candidates is None:
            return None
        return cls(kind, k, candidates, step_memory)

    def point(self, alpha: float):
        """(surrogate in count units, maximizing Δ, φ′ in count units) at α."""
        return self._kernel.point(alpha)

    def __call__(self, alpha: float) -> LinePoint:
        value, _, d1 = self._kernel.point(alpha)
        return LinePoint(alpha, value / self.k, d1 / self.k, math.nan)

    def minimize(self, max_step: float):
        """The line's minimum: φ is piecewise linear in α, so it lies at a breakpoint.

        The convex kinds (avg, struct, max) use
        :func:`rankcore.push._line_search.convex_piecewise_linear_search` from
        the previous line's step (kept in ``step_memory``): the same minimum
        value in fewer evaluations (about 8 to 10 instead of 14 to 15 at 10⁵
        rows).  ``ramp`` is not convex, so another first step could stop at
        another local minimum: it keeps
        :func:`rankcore.push._line_search.piecewise_linear_search` (first trial
        step 1, the steps of :func:`line_search`).
        """
        from ..push import convex_piecewise_linear_search, piecewise_linear_search

        if self.kind not in self.CONVEX_KINDS:
            return piecewise_linear_search(self, max_step=max_step)
        result = convex_piecewise_linear_search(self, max_step=max_step, first_step=self.step_memory[0])
        if result.alpha != 0.0:
            self.step_memory[0] = abs(result.alpha)
        return result


def top_k_value_and_gradient(kind: str, k: int, y: np.ndarray, scores: np.ndarray):
    """(value, gradient, k used) in count units, as the sorting kernel, from the top k of each class.

    The surrogates read only the k highest positive and negative scores (max:
    the k lowest positives) and the sum of all positives; their subgradient is
    a constant on rank intervals of each class, averaged over tie groups.  So
    selections (O(n)) replace the kernel's sort (O(n log n)):
    :func:`rankcore.precision_at_k._topk_line.top_k_value_and_gradient`.
    """
    from . import _surrogates, _topk_line

    return _topk_line.top_k_value_and_gradient(
        _surrogates.KINDS[kind], k, np.ascontiguousarray(y, dtype=np.int8),
        np.ascontiguousarray(scores, dtype=np.float64))


class _BoundPrecAtK(BoundObjective):
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
        self._step_memory = [None]  # the last line's |α|: the next line's first trial step

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
                                  np.asarray(scores, dtype=np.float64), np.asarray(direction, dtype=np.float64),
                                  self._step_memory)
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

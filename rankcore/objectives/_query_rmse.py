"""CatBoost's QueryRMSE as a term of the per-query push (``QueryPush(..., query_rmse=λ)``).

    J(f) = J_push(f) + λ·c · Q(f),    Q(f) = ½ Σ_i w_i (r_i − m_{q(i)})²,
    r = f − y,    m_q = Σ_{i ∈ q} w_i r_i / W_q,    W_q = Σ_{i ∈ q} w_i

Q is the per-query squared error of CatBoost's QueryRMSE (L. Prokhorenkova,
G. Gusev, A. Vorobev, A. V. Dorogush, A. Gulin, "CatBoost: unbiased boosting
with categorical features", 2018): each query's residuals about their own
weighted mean, so Q depends on score differences within a query only, like
the push.  Since Σ_{i ∈ q} w_i (r_i − m_q) = 0, the derivative through m_q
vanishes:

    ∂Q/∂f_i = w_i (r_i − m_q),    ∂²Q/∂f_i² = w_i (1 − w_i / W_q).

c = ‖∇J_push(0)‖₁ / ‖∇Q(0)‖₁ is fixed once at bind time (∇Q(0) = the
weighted grades centred per query, negated), so λ weighs the term against
the push's own gradient: λ = 1 gives the two gradients the same L1 norm at
f = 0.  When every query holds one grade among its rows of positive weight,
∇Q(0) = 0 and c = 0: the term is off (the push itself refuses such data when
it binds, so a fit never meets it).  A query whose rows share one grade
still gets the term: it pulls its scores together.

Design
------
A. A wrapper around whichever bound form the push takes (the plain
   :class:`~rankcore.objectives._query_push.BoundQueryPush`, or the
   position-aware form over one): the term is added once, outside the
   push's own merging of its parts, and every form (linear-space kernel,
   log-space, pairwise losses, place discounts) keeps its code unchanged.
   With λ = 0 no wrapper is made: the objective is the push, bit for bit.
B. J stays the log of a positive objective: J = log(R · e^{λcQ}).  So
   ``log_value`` still holds (the value the driver compares, reports and
   searches along lines is this J, whose gradient is the one returned), and
   the line search's fallback curvature φ″ + φ′² is the curvature of
   R · e^{λcQ} along the line over its value: ≥ 0 wherever that product is
   convex, as it is whenever R is log-convex (the exponential loss with the
   identity price: a sum of exponentials of linear functions).  Elsewhere
   the line search's safeguards apply as for the push.
C. The curvature is the push's (the diagonal of ∇²R / R, a majorant of
   ∂²J_push) plus the term's exact diagonal λc·w_i(1 − w_i/W_q): a majorant
   of the diagonal of ∇²J, as the push's own.
D. Every evaluation is O(rows + queries): ``_query_kernels.query_rmse_term``
   makes two passes over the rows (the weighted residual per query, then each
   row's centred residual added into the push's gradient), no loop over
   queries in Python; memory O(rows + queries).  :class:`QueryRMSETerm` is
   the same in NumPy (``np.bincount`` over the query codes): its reference,
   and the line's coefficients.  The kernel exists because the NumPy form's
   ten array passes cost about 40 µs per evaluation on the 3,773 rows of
   LightGBM's LTR example, half the push's own, where the fit evaluates the
   objective once per tree.  Along a line f + αd the term is the quadratic
   Q(f) + α⟨∇Q(f), d⟩ + ½α² Σ_i w_i (d_i − m_q(d))², whose three
   coefficients are formed once per line.
E. Over blocks of whole queries (Dask), J is no longer a log-sum-exp of the
   blocks' values, but Q is a plain sum of theirs and c a ratio of sums the
   blocks can give: :mod:`rankcore.objectives._query_blocks` merges the
   push's part and the term's apart, and forms c from each block's numbers
   at f = 0.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._vector import dot as _dot
from ..metrics import Queries
from ._base import BoundObjective, LinePoint
from ._query_kernels import query_rmse_term

__all__ = ["QueryRMSETerm", "BoundQueryRMSEBlend", "check_query_rmse", "numbers_at_zero"]


def check_query_rmse(value: Any) -> float:
    """λ as a float, after checking that it is a finite number ≥ 0 (ValueError naming ``query_rmse``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not (
            math.isfinite(float(value)) and float(value) >= 0):
        raise ValueError(f"query_rmse: expected a finite number >= 0 (the weight of the QueryRMSE term; "
                         f"0: none), got {value!r}")
    return float(value)


def heaviest_rows(codes: np.ndarray, weight: np.ndarray, n_queries: int) -> np.ndarray:
    """Per query, its first row of the largest weight where that weight is more than half the query's total, else −1
    (the term's centring is exact enough as written: ``query_rmse_term``).  O(n log n) time, O(n) memory."""
    anchor = np.full(n_queries, -1, dtype=np.int64)
    if codes.shape[0]:
        order = np.lexsort((-weight, codes))          # stable: among equal weights, the first row
        sorted_codes = codes[order]
        first = np.flatnonzero(np.append(True, sorted_codes[1:] != sorted_codes[:-1]))
        total = np.bincount(codes, weight, minlength=n_queries)[sorted_codes[first]]
        heavy = 2.0 * weight[order[first]] > total
        anchor[sorted_codes[first][heavy]] = order[first][heavy]
    return anchor


def numbers_at_zero(push: BoundObjective | None, term: "QueryRMSETerm") -> np.ndarray:
    """(J_push(0), ‖∇J_push(0)‖₁, ‖∇Q(0)‖₁): what c is formed from (``push`` None, or R(0) = 0: (−inf, 0, ‖∇Q(0)‖₁)).

    One evaluation of the push and of the term at f = 0, O(rows + queries).
    """
    zero = np.zeros(term.y.shape[0])
    value, push_norm = -math.inf, 0.0
    if push is not None:
        value, grad = push.value_and_gradient(zero)
        push_norm = float(np.abs(grad).sum()) if value > -math.inf else 0.0
    term_norm = float(np.abs(term.value_and_gradient(zero)[1]).sum())
    return np.array([value, push_norm, term_norm])


class QueryRMSETerm:
    """Q(f) = ½ Σ_i w_i (r_i − m_{q(i)})² on fixed grades, queries and weights (rows in the caller's order).

    Parameters
    ----------
    y : ndarray of float64, shape (n,)
        The grades.
    queries : Queries
        Each row's query.
    weight : ndarray of float64, shape (n,)
        Row weights ≥ 0.

    Notes
    -----
    :meth:`add_to` (what the fit calls) is the Cython kernel
    ``query_rmse_term``: O(n + n_queries) time, its output and one value per
    query of memory.  :meth:`value_and_gradient` and :meth:`centred` are the
    NumPy form (a weighted ``np.bincount`` per centring, O(n + n_queries)):
    the kernel's reference and the line's coefficients.  A query of total
    weight 0 has every term 0.
    """

    def __init__(self, y: np.ndarray, queries: Queries, weight: np.ndarray):
        self.y = np.ascontiguousarray(y, dtype=np.float64)
        self.codes = np.ascontiguousarray(queries.codes, dtype=np.int64)
        self.n_queries = int(queries.n_queries)
        self.weight = np.ascontiguousarray(weight, dtype=np.float64)
        total = np.bincount(self.codes, self.weight, minlength=self.n_queries)
        # 1/W_q, 0 for a query of weight 0 (its rows' terms are 0 whatever their mean)
        self._inverse_total = np.divide(1.0, total, out=np.zeros_like(total), where=total > 0)
        # w_i (1 − w_i / W_q) ≥ 0 in exact arithmetic; a one-row query's w·(1/w) may round above 1
        self.curvature = np.maximum(self.weight * (1.0 - self.weight * self._inverse_total[self.codes]), 0.0)
        self._anchor = heaviest_rows(self.codes, self.weight, self.n_queries)

    def centred(self, x: np.ndarray) -> np.ndarray:
        """x_i − m_{q(i)}(x), m_q the w-weighted mean of x over the query's rows.

        In a query whose heaviest row a holds more than half of W_q, formed about x_a: (x_i − x_a) − Σ_k w_k
        (x_k − x_a) / W_q, so that row (a weight of 1e152 among ones) keeps the digits of its tiny centred value
        (see ``query_rmse_term``); elsewhere x_i − m_q as written.
        """
        a = self._anchor
        ref = np.where(a >= 0, x[np.maximum(a, 0)], 0.0) if x.shape[0] else np.zeros(a.shape[0])
        d = x - ref[self.codes]
        mean = np.bincount(self.codes, self.weight * d, minlength=self.n_queries) * self._inverse_total
        return d - mean[self.codes]

    def value_and_gradient(self, scores: np.ndarray) -> tuple[float, np.ndarray]:
        """(Q, ∂Q/∂f) at ``scores`` (NumPy: the reference of ``query_rmse_term``)."""
        centred = self.centred(scores - self.y)
        grad = self.weight * centred
        return 0.5 * float(_dot(grad, centred)), grad

    def add_to(self, scores: np.ndarray, scale: float, grad: np.ndarray | None) -> tuple[float, np.ndarray]:
        """(Q, grad + scale·∂Q/∂f) at ``scores`` by the kernel (``grad`` None: zeros), in a new array."""
        f = np.ascontiguousarray(scores, dtype=np.float64)
        if f.shape != self.y.shape:
            # the kernel reads one score per row: a vector of another length must not reach it
            raise ValueError(f"scores: expected one value per row ({self.y.shape[0]}), got shape {f.shape}")
        out = np.empty(self.y.shape[0])
        base = out if grad is None else np.ascontiguousarray(grad, dtype=np.float64)
        if grad is None:
            out[:] = 0.0
        value = query_rmse_term(f, self.y, self.weight, self.codes, self._inverse_total, self._anchor, float(scale),
                                base, np.empty(self.n_queries), out)
        return float(value), out

    def line_coefficients(self, scores: np.ndarray, direction: np.ndarray) -> tuple[float, float, float]:
        """(a0, a1, a2) with Q(scores + α·direction) = a0 + a1·α + ½·a2·α²."""
        value, grad = self.value_and_gradient(scores)
        centred = self.centred(direction)
        return value, float(_dot(grad, direction)), float(_dot(self.weight * centred, centred))


class BoundQueryRMSEBlend(BoundObjective):
    """A bound per-query push plus λ·c·Q (see the module docstring), in the caller's row order.

    Parameters
    ----------
    push : BoundObjective
        The bound per-query push (any of its forms): its ``value``,
        ``value_and_gradient``, ``value_gradient_hessian`` and ``line``.
    queries : Queries
    query_rmse : float
        λ ≥ 0, the term's weight relative to the push's gradient at f = 0.

    Attributes
    ----------
    scale : float
        λ·c, the weight of Q in J (0 when every query holds one grade).
    term : QueryRMSETerm
    at_zero : ndarray, shape (3,)
        :func:`numbers_at_zero` of the push and the term (blocks of queries send them to form c).
    """

    #: Over blocks of queries the push's part and the term's merge apart, c from the blocks' numbers at
    #: f = 0 (module docstring, E; rankcore.objectives._query_blocks reads ``push``, ``term``, ``query_rmse``).
    splits_into_query_blocks = True

    def __init__(self, push: BoundObjective, queries: Queries, query_rmse: float):
        super().__init__(push.objective, push.y, push.sample_weight)
        self.push = push
        self.query_rmse = check_query_rmse(query_rmse)
        n = push.n_rows
        weight = np.ones(n) if push.sample_weight is None else np.asarray(push.sample_weight, dtype=np.float64)
        self.term = QueryRMSETerm(push.y, queries, weight)
        self.at_zero = numbers_at_zero(push, self.term)
        _, push_norm, term_norm = self.at_zero
        # ∇Q(0) = 0 only when every query holds one grade (or weight 0): the term then has no scale to match
        c = push_norm / term_norm if term_norm > 0 else 0.0
        self.scale = self.query_rmse * c
        self._scaled_curvature = self.scale * self.term.curvature

    def use_threads(self, n_threads: int) -> None:
        """The wrapped push's kernels run on ``n_threads`` from the next evaluation."""
        super().use_threads(n_threads)
        self.push.use_threads(n_threads)

    @property
    def has_hessian(self) -> bool:
        """The push's: the term always has its curvature."""
        return self.push.has_hessian

    def _scores(self, scores) -> np.ndarray:
        return np.asarray(scores, dtype=np.float64)

    def value(self, scores) -> float:
        """J = J_push + λc·Q at ``scores``."""
        value = self.push.value(scores)        # checks the scores (named errors)
        if value == -math.inf:                 # R = 0: J = log(R · e^{λcQ}) is −inf too
            return value
        return value + self.scale * self.term.add_to(scores, 0.0, None)[0]

    def value_and_gradient(self, scores) -> tuple[float, np.ndarray]:
        """(J, ∂J/∂f) at ``scores``."""
        value, grad = self.push.value_and_gradient(scores)
        q, grad = self.term.add_to(scores, self.scale, grad)
        return value + self.scale * q, grad

    def value_gradient_hessian(self, scores) -> tuple[float, np.ndarray, np.ndarray]:
        """(J, ∂J/∂f, the push's curvature + λc·w_i(1 − w_i/W_q)), the push's part clipped at the floor."""
        value, grad, hess = self.push.value_gradient_hessian(scores)
        q, grad = self.term.add_to(scores, self.scale, grad)
        return value + self.scale * q, grad, hess + self._scaled_curvature

    def line(self, scores, direction):
        """α ↦ :class:`~rankcore.objectives.LinePoint` of φ(α) = J(scores + α·direction).

        The push's own line plus the term's quadratic in α (exact φ, φ′, φ″); φ″ stays NaN where the
        push's is (secant steps).
        """
        f = self._scores(scores)
        d = self._scores(direction)
        if d.shape != (self.n_rows,):
            raise ValueError(f"direction: expected one value per row ({self.n_rows}), got shape {d.shape}")
        push_line = self.push.line(f, d)
        a0, a1, a2 = self.term.line_coefficients(f, d)
        k = self.scale

        def evaluate(alpha: float) -> LinePoint:
            point = push_line(alpha)
            if point.value == -math.inf:
                return point
            return LinePoint(alpha, point.value + k * (a0 + alpha * (a1 + 0.5 * alpha * a2)),
                             point.d1 + k * (a1 + alpha * a2), point.d2 + k * a2)

        return evaluate

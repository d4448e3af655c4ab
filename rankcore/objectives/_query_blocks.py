"""Objectives within queries as reductions over blocks that each hold whole queries.

A per-query objective compares rows of the same query only.  When every
query lies whole in one block of rows (a chunk of a Dask collection), each
block is an objective of its own, bound to its rows with their queries, and
the blocks combine through a few numbers:

* the push within queries (``log_value``): R = Σ_q Σ_{k ∈ q} v_k g(L_k) is a
  sum over queries, so R = Σ_c R_c over blocks and J = log R is the
  log-sum-exp of the blocks' J_c = log R_c.  A row's gradient is its block's
  own ∂J_c/∂f scaled by ρ_c = R_c / R = e^{J_c − J}; so is its curvature
  (the diagonal of ∇²R / R: a row's second derivative reads only its own
  query).  Along a direction h the blocks give (J_c, φ_c′, φ_c″) and
  φ′ = Σ_c ρ_c φ_c′, φ″ = Σ_c ρ_c (φ_c″ + φ_c′²) − φ′²: the moments of a
  mixture, merged pairwise, so any grouping of the blocks gives the same
  numbers (to rounding).
* an objective without a value (``lambdarank``, ``yetirank``): its gradient
  and curvature are computed query by query, so each block's own are the
  rows' values; the merged value is NaN, as the in-memory binding reports
  it.  A ``randomized`` one (``yetirank``) numbers its rows' draws from the
  block's ``offset``: the blocks draw what the whole binding draws.

A block whose queries hold no pair of rows with different grades and
positive weights contributes nothing (R_c = 0, zero gradient, the curvature
floor): the in-memory objective gives those rows the same.

The push with the QueryRMSE term (``query_rmse`` = λ > 0,
:mod:`rankcore.objectives._query_rmse`): J = log R + λc·Q.  Q = ½ Σ_i w_i
(r_i − m_q)² is a plain sum over queries, so Q = Σ_c Q_c, and a row's term
gradient ∂Q/∂f_i = w_i (r_i − m_q) and curvature w_i (1 − w_i/W_q) read its
own query only: each block's own.  What needs every row is the constant
c = ‖∇J_push(0)‖₁ / ‖∇Q(0)‖₁.  At f = 0 the push's gradient on the rows of
block c is ρ_c(0)·∇J_c(0), so

    c = Σ_c ρ_c(0)·‖∇J_c(0)‖₁ / Σ_c ‖∇Q_c(0)‖₁,    ρ_c(0) = R_c(0) / R(0),

where a block without pairs has R_c = 0 (ρ_c = 0, no push gradient) but its
Q_c still counts, in the denominator too.  Each block computes its three
numbers (J_c(0), ‖∇J_c(0)‖₁, ‖∇Q_c(0)‖₁) once, when it is first bound, and
sends them with every partial: the merge forms c again each time from the
same numbers (the same bits every iteration), so the driver needs no
separate stage for it and no extra round trip.  A block's partials are then
[J_c, Q_c, J_c(0), n_c, t_c], or along a direction [J_c, φ_c′, φ_c″, Q_c,
Q_c′, Q_c″, J_c(0), n_c, t_c] (Q is a quadratic along a line); the push's
columns merge as above, the term's by plain sums, and (J_c(0), n_c) as a
log-sum-exp with the ρ_c(0)-weighted sum of n_c, so that merging merged
partials again gives the same numbers.  The working value is J = J_push +
λc·Q (−inf where R = 0, as in memory); the gradient ρ_c·∂J_c/∂f + λc·∂Q_c/∂f;
the curvature the push's, clipped, plus λc·w_i (1 − w_i/W_q), as the
in-memory :class:`~rankcore.objectives._query_rmse.BoundQueryRMSEBlend`.

:class:`BoundQueryBlocks` is this form, a
:class:`~rankcore.objectives.BoundSeparable`: the blocks are
:class:`~rankcore.objectives.RowBlock` objects carrying their ``queries``,
and each block's binding is made once (on its first use) and kept: for
the push, its sort by (query, grade) and level indices, about 60 bytes a
row besides the block's own data (with the QueryRMSE term, 8 bytes a row
more: the term's curvature).  Each evaluation costs what the block's own
binding costs, O(rows + levels) for the exponential push, plus O(rows +
queries) for the term; a merge is O(blocks).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._vector import dot as _dot
from ..metrics import Queries
from ._base import LinePoint, RowBlock, clip_hessian
from ._separable import BoundSeparable

__all__ = ["BoundQueryBlocks"]

_TWO_ROWS = np.array([0.0, 1.0])


def has_pairs(grades: np.ndarray, weight: np.ndarray, codes: np.ndarray) -> bool:
    """Whether some query holds two rows of positive weight and different grades."""
    live = weight > 0
    if not live.any():
        return False
    codes, grades = codes[live], grades[live]
    n_queries = int(codes.max()) + 1
    low = np.full(n_queries, np.inf)
    high = np.full(n_queries, -np.inf)
    np.minimum.at(low, codes, grades)
    np.maximum.at(high, codes, grades)
    return bool(np.any(low < high))


def _merge_logs(values: np.ndarray, sums: np.ndarray) -> tuple[float, float]:
    """(log Σ_c e^{J_c}, Σ_c e^{J_c − J} s_c): a log-sum-exp and the sum its weights ρ_c give, −inf blocks left out.

    Associative: merging merged pairs (J, s) gives the same pair (to rounding).
    """
    value = float(np.logaddexp.reduce(values))
    if not math.isfinite(value):
        return value, 0.0
    live = values > -math.inf
    return value, float(_dot(np.exp(values[live] - value), sums[live]))


class BoundQueryBlocks(BoundSeparable):
    """An objective within queries over blocks of whole queries (see the module docstring).

    Parameters
    ----------
    objective : Objective
        A component with ``ranks_within_queries``: a push objective (log
        value, with or without the QueryRMSE term) or one without a value
        (``lambdarank``).
    n_threads : int
        Threads of each block's binding.
    random_state : int, numpy Generator or None
        The fit's seed, for a ``randomized`` objective (YetiRank): each
        block's binding gets it with the block's ``offset`` as its first
        row, so that the blocks draw what one binding of all the rows would.

    Attributes
    ----------
    query_rmse : float
        λ of the QueryRMSE term (0: none), as the objective's binding
        declares it.

    Raises
    ------
    ValueError
        When the objective cannot rank within queries, has a value that
        is not a logarithm (its blocks would not merge by log-sum-exp), or
        its binding declares ``splits_into_query_blocks`` False.
    """

    n_stages = 1

    def __init__(self, objective: Any, *, n_threads: int = 1, random_state: Any = None):
        objective.check_queries(Queries.single(2))
        if objective.has_value and not objective.log_value:
            raise ValueError(f"objective {objective.spec!r}: within queries on blocks, an objective with a value "
                             "must give it as a logarithm (log_value), so that the blocks merge by log-sum-exp")
        super().__init__(objective, _TWO_ROWS, None)
        self.n_threads = int(n_threads)
        self.random_state = random_state
        self.has_value = bool(objective.has_value)
        self._template = objective.bind(_TWO_ROWS, None, n_threads=1, queries=Queries.single(2))
        if not getattr(self._template, "splits_into_query_blocks", True):
            raise ValueError(f"objective {objective.spec!r}: its value is not a sum over blocks of queries (a term "
                             "scaled by every row at bind time); fit it in memory")
        self.query_rmse = float(getattr(self._template, "query_rmse", 0.0))
        self._bound: dict[int, tuple[Queries, Any]] = {}

    @property
    def has_hessian(self) -> bool:
        """Whether the objective gives a curvature within queries (its binding's ``has_hessian``)."""
        return bool(self._template.has_hessian)

    @property
    def gradient_reads_stages(self) -> bool:
        """Whether a block's gradient reads the merged stages: with a value, each block's is scaled by ρ_c = R_c / R
        (and the QueryRMSE term by c); without one (lambdarank), a block's gradient is its own."""
        return self.has_value

    def _bind(self, block: RowBlock):
        """The objective bound to the block's rows (None when they hold no pair), made once per block.

        With the QueryRMSE term: a :class:`_TermBlock` (the push's binding or None, the block's term, and
        its numbers at f = 0).
        """
        if block.queries is None:
            raise ValueError("queries: the rows of a block ranked within queries need their queries (RowBlock.queries)")
        key = id(block.queries)
        cached = self._bound.get(key)
        if cached is not None and cached[0] is block.queries:
            return cached[1]
        weight = np.asarray(block.weight, dtype=np.float64)
        bound = None
        if has_pairs(np.asarray(block.y, dtype=np.float64), weight, block.queries.codes):
            extra = {}
            if getattr(self.objective, "randomized", False):
                extra = {"random_state": self.random_state, "first_row": int(block.offset)}
            bound = self.objective.bind(block.y, weight, n_threads=self.n_threads, queries=block.queries, **extra)
        if self.query_rmse > 0:
            bound = _TermBlock(bound, block.y, block.queries, weight)
        self._bound[key] = (block.queries, bound)
        return bound

    def _scale(self, merged: np.ndarray) -> float:
        """λ·c from the merged (J(0), Σ_c ρ_c(0)‖∇J_c(0)‖₁, Σ_c ‖∇Q_c(0)‖₁): the last three entries of G[0]."""
        push_norm, term_norm = float(merged[-2]), float(merged[-1])
        # ∇Q(0) = 0 only when every query holds one grade (or weight 0): no scale to match, as in memory
        return self.query_rmse * (push_norm / term_norm if term_norm > 0 else 0.0)

    # ------------------------------------------------------------------
    # Reductions
    # ------------------------------------------------------------------
    def block_partials(self, stage, block, G, direction=None, alpha=0.0):
        """[J_c] at the block's scores, or [J_c, φ_c′, φ_c″] at f + α·h along ``direction``.

        With the QueryRMSE term, [J_c, Q_c, J_c(0), n_c, t_c], or along ``direction``
        [J_c, φ_c′, φ_c″, Q_c, Q_c′, Q_c″, J_c(0), n_c, t_c] (module docstring).
        """
        if direction is not None:
            return self.block_line(stage, block, direction)(G, alpha)
        if not self.has_value:
            return np.array([math.nan])
        bound = self._bind(block)
        if self.query_rmse > 0:
            return bound.partials(block.scores)
        if bound is None:
            return np.array([-math.inf])
        return np.array([bound.value(block.scores)])

    def block_line(self, stage, block, direction):
        """``block_partials`` along ``direction`` as a function of (G, α), its line formed once.

        What does not depend on α is formed here, as the in-memory binding's
        ``line`` forms it: the push's scores and direction in its sorted
        order (then O(rows) per α for its sums), the term's quadratic
        coefficients (then O(1) per α).
        """
        if not self.has_value:
            return lambda G, alpha: np.array([math.nan])
        bound = self._bind(block)
        if self.query_rmse > 0:
            return bound.line(block.scores, direction)
        if bound is None:
            return lambda G, alpha: np.array([-math.inf, 0.0, 0.0])
        line = bound.line(block.scores, direction)

        def partials(G, alpha):
            point = line(float(alpha))
            return np.array([point.value, point.d1, point.d2])

        return partials

    def merge_partials(self, stage, parts):
        """Log-sum-exp of the J_c; the line derivatives as the moments of the mixture ρ_c = R_c / R.

        With the QueryRMSE term, the term's columns add, and (J_c(0), n_c) merge by
        :func:`_merge_logs`.
        """
        parts = np.asarray(parts, dtype=np.float64)
        if not self.has_value:
            return np.array([math.nan])
        n_push = parts.shape[1] if self.query_rmse == 0 else (1 if parts.shape[1] == 5 else 3)
        push = self._merge_push(parts[:, :n_push])
        if self.query_rmse == 0:
            return push
        term = parts[:, n_push:-3].sum(axis=0)
        at_zero = _merge_logs(parts[:, -3], parts[:, -2])
        return np.concatenate([push, term, at_zero, [parts[:, -1].sum()]])

    @staticmethod
    def _merge_push(parts: np.ndarray) -> np.ndarray:
        value = float(np.logaddexp.reduce(parts[:, 0]))
        if parts.shape[1] == 1:
            return np.array([value])
        if not math.isfinite(value):
            return np.array([value, 0.0, 0.0])
        live = parts[:, 0] > -math.inf
        rho = np.exp(parts[live, 0] - value)
        d1s, d2s = parts[live, 1], parts[live, 2]
        d1 = float(_dot(rho, d1s))
        d2 = float(_dot(rho, d2s + d1s * d1s)) - d1 * d1
        return np.array([value, d1, d2])

    def finish(self, G, with_direction=False):
        """J (and, ``with_direction``, its first two derivatives along the line) from the merged partials ``G``."""
        merged = np.asarray(G[0], dtype=np.float64)
        if self.query_rmse > 0:
            return self._finish_with_term(merged, with_direction)
        if not with_direction:
            return LinePoint(0.0, float(merged[0]), math.nan, math.nan)
        return LinePoint(0.0, float(merged[0]), float(merged[1]), float(merged[2]))

    def _finish_with_term(self, merged: np.ndarray, with_direction: bool) -> LinePoint:
        """J = J_push + λc·Q and its line derivatives; R = 0 gives the push's point (J = −inf)."""
        k = self._scale(merged)
        if not with_direction:
            value = float(merged[0])
            return LinePoint(0.0, value if value == -math.inf else value + k * float(merged[1]), math.nan, math.nan)
        value, d1, d2, q, q1, q2 = (float(x) for x in merged[:6])
        if value == -math.inf:
            return LinePoint(0.0, value, d1, d2)
        return LinePoint(0.0, value + k * q, d1 + k * q1, d2 + k * q2)

    @staticmethod
    def _rho(value_c: float, G) -> float:
        """ρ_c = R_c / R = e^{J_c − J} of a block whose value is ``value_c``."""
        if value_c == -math.inf:
            return 0.0
        return math.exp(value_c - float(np.asarray(G[0])[0]))

    def block_gradient(self, block, G):
        """∂J/∂f on the rows of ``block`` from the merged partials ``G``."""
        bound = self._bind(block)
        if self.query_rmse > 0:
            return bound.gradient(block.scores, G, self._scale(np.asarray(G[0])))
        if bound is None:
            return np.zeros(len(block))
        value_c, grad = bound.value_and_gradient(block.scores)
        return grad * self._rho(value_c, G) if self.has_value else grad

    def block_gradient_hessian(self, block, G):
        if not self.has_hessian:
            return super().block_gradient_hessian(block, G)
        bound = self._bind(block)
        if self.query_rmse > 0:
            return bound.gradient_hessian(block.scores, G, self._scale(np.asarray(G[0])))
        if bound is None:
            return np.zeros(len(block)), clip_hessian(np.zeros(len(block)))
        value_c, grad, hess = bound.value_gradient_hessian(block.scores)
        if not self.has_value:
            return grad, hess
        rho = self._rho(value_c, G)
        # ρ ≤ 1, so scaling a curvature the block clipped at the floor and clipping again gives the floor,
        # as the whole objective clips it
        return grad * rho, clip_hessian(hess * rho)


class _TermBlock:
    """One block of the push with the QueryRMSE term: the push's binding, the block's term, its numbers at 0.

    Parameters
    ----------
    bound : BoundQueryRMSEBlend or None
        The objective bound to the block's rows (None: no pair in the block).  Its ``push`` is used
        and its own ``scale`` is not: c belongs to every row, not to one block.
    y, queries, weight
        The block's grades, queries and weights.

    Attributes
    ----------
    at_zero : ndarray, shape (3,)
        (J_c(0), ‖∇J_c(0)‖₁, ‖∇Q_c(0)‖₁), computed once: one evaluation of the push and of the term.
    """

    def __init__(self, bound: Any, y, queries: Queries, weight: np.ndarray):
        from ._query_rmse import QueryRMSETerm, numbers_at_zero

        if bound is None:
            self.push, self.term = None, QueryRMSETerm(y, queries, weight)
            self.at_zero = numbers_at_zero(None, self.term)
        else:                                   # the binding computed its numbers at 0 already
            self.push, self.term, self.at_zero = bound.push, bound.term, bound.at_zero

    def partials(self, scores) -> np.ndarray:
        """The block's partials at the scores (module docstring): the push's, the term's, then ``at_zero``."""
        push = [-math.inf] if self.push is None else [self.push.value(scores)]
        return np.concatenate([push, [self.term.add_to(scores, 0.0, None)[0]], self.at_zero])

    def line(self, scores, direction):
        """(G, α) ↦ the block's partials at scores + α·direction (module docstring), the push's line and the
        term's coefficients formed once."""
        push_line = None if self.push is None else self.push.line(scores, direction)
        a0, a1, a2 = self.term.line_coefficients(np.asarray(scores, dtype=np.float64),
                                                 np.asarray(direction, dtype=np.float64))

        def partials(G, alpha):
            alpha = float(alpha)
            if push_line is None:
                push = [-math.inf, 0.0, 0.0]
            else:
                point = push_line(alpha)
                push = [point.value, point.d1, point.d2]
            term = [a0 + alpha * (a1 + 0.5 * alpha * a2), a1 + alpha * a2, a2]
            return np.concatenate([push, term, self.at_zero])

        return partials

    def _push_gradient(self, scores, G, order: int):
        n = self.term.y.shape[0]
        if self.push is None:
            return np.zeros(n), (clip_hessian(np.zeros(n)) if order == 2 else None)
        if order == 1:
            value_c, grad = self.push.value_and_gradient(scores)
            hess = None
        else:
            value_c, grad, hess = self.push.value_gradient_hessian(scores)
        rho = BoundQueryBlocks._rho(value_c, G)
        # the push's curvature clipped, then scaled by ρ ≤ 1 and clipped again: the floor stays the floor.
        # (An overflowed weight times ρ = 0 is NaN, kept without NumPy's warning: the fit stops with "overflow".)
        with np.errstate(invalid="ignore"):
            return grad * rho, (None if hess is None else clip_hessian(hess * rho))

    def gradient(self, scores, G, scale: float) -> np.ndarray:
        """ρ_c·∂J_c/∂f + λc·∂Q_c/∂f on the block's rows (``scale`` = λc)."""
        grad, _ = self._push_gradient(scores, G, 1)
        return self.term.add_to(scores, scale, grad)[1]

    def gradient_hessian(self, scores, G, scale: float) -> tuple[np.ndarray, np.ndarray]:
        """The gradient and the push's clipped curvature plus λc·w_i (1 − w_i/W_q)."""
        grad, hess = self._push_gradient(scores, G, 2)
        return self.term.add_to(scores, scale, grad)[1], hess + scale * self.term.curvature

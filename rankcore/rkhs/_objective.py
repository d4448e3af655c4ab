"""The magnitude-preserving squared loss as a boosting objective.

Over a score vector f with graded labels y and residuals a = y − f,

    J(f) = (1/W²) Σ_{i,j} w_i w_j (y_i − y_j − (f_i − f_j))²
         = (1/W²) Σ_{i,j} w_i w_j (a_i − a_j)²,           W = Σ_i w_i,

the empirical risk of docs/theory/kernel_ranking.md#the-risk (without the
penalty; unit weights give its 1/m² normalization).  The pairs never need forming:
Σ_{i,j}(a_i − a_j)² = 2n Σ a_i² − 2(Σ a_i)², and with weights

    J = 2 Σ_i w_i (a_i − ā)² / W,   ā = Σ_i w_i a_i / W   (twice the weighted variance),
    ∂J/∂f_i = −4 w_i (a_i − ā) / W.

The centered form is used instead of the raw sums: it has no cancellation when
the residuals share a large offset.  Along a direction h the objective is an
exact quadratic, φ(α) = J(f + αh) = 2 Var_w(a − αh), so the line search gets
φ′ = −4 Cov_w(a, h) and φ″ = 4 Var_w(h) and one Newton step is exact.

As row-block reductions (:class:`~rankcore.objectives.BoundSeparable`),
each block contributes (W, mean a, M2 a, mean h, M2 h, co-moment of a and h)
merged by Chan's pairwise update: numerically stable, associative, O(1) per
block -- the seam the blocked (Dask) backends use.

Curvature (Newton leaves): the exact diagonal of ∇²J,
∂²J/∂f_i² = 4 w_i (1 − w_i / W) / W, positive for every row of positive
weight when there are two or more; clipped below at ``HESSIAN_FLOOR``.

Within queries (``fit(X, y, qid=...)``) only the pairs of one query count,
each query's pairs normalized by its own weight W_q and the query weighted by
its share W_q / W of the rows:

    J = Σ_q (W_q / W) (1/W_q²) Σ_{i,j ∈ q} w_i w_j (a_i − a_j)²
      = (2/W) Σ_q Σ_{i ∈ q} w_i (a_i − ā_q)²,

the residuals centered per query (CatBoost's QueryRMSE is this loss with
unit weights); one query is the single list above.  Gradient
−4 w_i (a_i − ā_q) / W, exact curvature 4 w_i (1 − w_i / W_q) / W, and along
a direction h an exact quadratic in α from the per-query centered a and h:
O(n) per evaluation, one pass of per-query sums (``np.bincount``).
"""

from __future__ import annotations

import math
from typing import ClassVar, Sequence

import numpy as np

from .._vector import dot as _dot
from ..objectives import (BoundObjective, BoundSeparable, LinePoint, Objective, QueryRMSETerm, RowBlock,
                          clip_hessian)
from ..validation import ArgumentRefusal

__all__ = ["MagnitudePreservingSquared"]


def _moments(w: np.ndarray, a: np.ndarray, h: np.ndarray | None) -> np.ndarray:
    """(W, mean a, M2 a, mean h, M2 h, C ah) of one block, two-pass."""
    W = float(w.sum())
    if W <= 0:
        return np.zeros(6)
    ma = float(_dot(w, a)) / W
    da = a - ma
    if h is None:
        return np.array([W, ma, float(_dot(w, da * da)), 0.0, 0.0, 0.0])
    mh = float(_dot(w, h)) / W
    dh = h - mh
    return np.array([W, ma, float(_dot(w, da * da)), mh, float(_dot(w, dh * dh)), float(_dot(w, da * dh))])


def _merge(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Chan et al.'s pairwise merge of two moment vectors."""
    n1, n2 = p[0], q[0]
    if n1 <= 0:
        return q.copy()
    if n2 <= 0:
        return p.copy()
    n = n1 + n2
    da, dh = q[1] - p[1], q[3] - p[3]
    f = n1 * n2 / n
    return np.array([
        n,
        p[1] + da * n2 / n,
        p[2] + q[2] + da * da * f,
        p[3] + dh * n2 / n,
        p[4] + q[4] + dh * dh * f,
        p[5] + q[5] + da * dh * f,
    ])


class MagnitudePreservingSquared(Objective):
    """Magnitude-preserving squared loss (1/W²) Σ_{i,j} w_i w_j (y_i − y_j − (f_i − f_j))²; graded labels.

    O(n) value, gradient and exact line derivatives (see the module docs).
    """

    name: ClassVar[str] = "mp-squared"
    aliases: ClassVar[tuple[str, ...]] = ("magnitude-preserving",)
    task: ClassVar[str] = "graded"
    log_value: ClassVar[bool] = False
    supports_sample_weight: ClassVar[bool] = True
    ranks_within_queries: ClassVar[bool] = True
    examples: ClassVar[tuple[str, ...]] = ("mp-squared",)

    def value_and_gradient(self, y, scores, sample_weight=None):
        w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        W = float(w.sum())
        a = np.asarray(y, dtype=np.float64) - scores
        centered = a - float(_dot(w, a)) / W
        value = 2.0 * float(_dot(w, centered * centered)) / W
        return value, (-4.0 / W) * w * centered

    def line_derivatives(self, y, scores, direction, sample_weight=None):
        w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        m = _moments(w, np.asarray(y, dtype=np.float64) - scores, np.asarray(direction, dtype=np.float64))
        return 2.0 * m[2] / m[0], -4.0 * m[5] / m[0], 4.0 * m[4] / m[0]

    def check_target(self, y, sample_weight=None):
        w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
        if not float(np.sum(w)) > 0:
            raise ValueError(f"objective {self.spec!r}: the total sample weight must be positive")

    def bind(self, y, sample_weight=None, *, n_threads=1, queries=None):
        y = np.asarray(y, dtype=np.float64)
        if queries is not None:
            return _BoundQueryMPSquared(self, y, sample_weight, queries)
        return _BoundMPSquared(self, y, sample_weight)


class _BoundMPSquared(BoundSeparable):
    """Bound form: one reduction stage of mergeable moments."""

    n_stages = 1

    def block_partials(self, stage, block: RowBlock, G, direction=None, alpha=0.0):
        w = np.asarray(block.weight, dtype=np.float64)
        f = np.asarray(block.scores, dtype=np.float64)
        h = None if direction is None else np.asarray(direction, dtype=np.float64)
        a = np.asarray(block.y, dtype=np.float64) - (f if h is None or alpha == 0.0 else f + alpha * h)
        return _moments(w, a, h)

    def merge_partials(self, stage, parts: Sequence[np.ndarray]) -> np.ndarray:
        out = np.zeros(6)
        for part in parts:
            out = _merge(out, np.asarray(part, dtype=np.float64))
        return out

    def finish(self, G, with_direction=False):
        W, _, M2a, _, M2h, Cah = (float(v) for v in G[0])
        if W <= 0:
            return LinePoint(0.0, 0.0, 0.0, 0.0)
        value = 2.0 * M2a / W
        if not with_direction:
            return LinePoint(0.0, value, math.nan, math.nan)
        return LinePoint(0.0, value, -4.0 * Cah / W, 4.0 * M2h / W)

    def block_gradient(self, block: RowBlock, G):
        W, mean_a = float(G[0][0]), float(G[0][1])
        w = np.asarray(block.weight, dtype=np.float64)
        a = np.asarray(block.y, dtype=np.float64) - np.asarray(block.scores, dtype=np.float64)
        return (-4.0 / W) * w * (a - mean_a)

    def block_gradient_hessian(self, block: RowBlock, G):
        """(∇J, exact diagonal 4 w (1 − w/W) / W clipped at the floor) of the block's rows."""
        W = float(G[0][0])
        w = np.asarray(block.weight, dtype=np.float64)
        hess = (4.0 / W) * w * (1.0 - w / W)
        return self.block_gradient(block, G), clip_hessian(hess)


class _BoundQueryMPSquared(BoundObjective):
    """Within queries: the residuals centered per query (module docs), O(n) per call.

    J = (4/W)·Q with Q = ½ Σ_i w_i (r_i − m_q)² the per-query squared term the
    push's ``query_rmse`` option adds (r = f − y): one kernel pass
    (:class:`~rankcore.objectives.QueryRMSETerm`) for the value and
    the gradient, its exact curvature and its quadratic along a line.
    """

    def __init__(self, objective, y, sample_weight, queries):
        super().__init__(objective, y, sample_weight)
        w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        total = float(w.sum())
        if not total > 0:      # all the training rows' weights zero: what an early-stopping hold-out can leave
            detail = (f"needs positive total weight, got zero total weight over the {y.shape[0]} training rows "
                      "(sample_weight)")
            raise ArgumentRefusal(f"objective {objective.spec!r}: {detail}", parameter="sample_weight", detail=detail,
                                  reason="zero_total")
        self._scale = 4.0 / total
        # a query of zero weight has no pairs: the term gives its rows 0
        self._term = QueryRMSETerm(self.y, queries, w)

    def value_and_gradient(self, scores):
        value, grad = self._term.add_to(scores, self._scale, None)
        return self._scale * value, grad

    @property
    def has_hessian(self) -> bool:
        return True

    def value_gradient_hessian(self, scores):
        value, grad = self.value_and_gradient(scores)
        return value, grad, clip_hessian(self._scale * self._term.curvature)

    def line(self, scores, direction):
        a0, a1, a2 = self._term.line_coefficients(np.asarray(scores, dtype=np.float64),
                                                  np.asarray(direction, dtype=np.float64))
        k = self._scale

        def evaluate(alpha: float) -> LinePoint:
            # φ(α) = (4/W)·Q(f + α·h), Q an exact quadratic in α along the line (never below 0)
            value = k * max(a0 + alpha * (a1 + 0.5 * alpha * a2), 0.0)
            return LinePoint(alpha, value, k * (a1 + alpha * a2), k * a2)

        return evaluate

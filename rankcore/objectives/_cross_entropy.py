"""The pointwise cross-entropy of soft labels: each row's score read as the log-odds of a probability.

With labels r_i in [0, 1] (probabilities: a click model's posterior relevance, or 0/1 labels) and weights w_i,

    J(f) = (1/W) Σ_i w_i [log(1 + e^{f_i}) − r_i f_i],           W = Σ_i w_i,

the mean negative log-likelihood of r under P(relevant) = σ(f), less the labels' own entropy (a constant).  It is
LightGBM's ``cross_entropy`` (alias ``xentropy``): the log loss, taking soft labels.  The gradient is
w_i (σ(f_i) − r_i) / W and the exact diagonal curvature w_i σ(f_i)(1 − σ(f_i)) / W, positive everywhere (clipped
below at ``HESSIAN_FLOOR`` where σ saturates); along a direction h the line derivatives are exact,
φ′ = Σ w (σ − r) h / W and φ″ = Σ w σ(1 − σ) h² / W.  O(n) time and memory per evaluation (NumPy; no pairs).

J is not shift invariant: the scores carry a level (σ(f) is a probability).  Within queries
(``fit(X, y, qid=...)``) the rows are still judged one by one, so the queries change nothing: the objective takes
them so that the per-query estimators and validation (NDCG per query) can use it, as the click model's refits do
(:mod:`rankcore.push._click_model`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._vector import dot as _dot
from .._argument_refusal import ArgumentRefusal
from ._base import LinePoint, Objective, clip_hessian
from ._separable import BoundSeparable

__all__ = ["CrossEntropy", "sigmoid", "softplus"]


def sigmoid(f: np.ndarray) -> np.ndarray:
    """σ(f) = 1 / (1 + e^{−f}) without overflow for either sign."""
    out = np.empty_like(f, dtype=np.float64)
    positive = f >= 0
    out[positive] = 1.0 / (1.0 + np.exp(-f[positive]))
    e = np.exp(f[~positive])
    out[~positive] = e / (1.0 + e)
    return out


def softplus(f: np.ndarray) -> np.ndarray:
    """log(1 + e^f) without overflow: max(f, 0) + log1p(e^{−|f|})."""
    return np.maximum(f, 0.0) + np.log1p(np.exp(-np.abs(f)))


class CrossEntropy(Objective):
    """Cross-entropy of soft labels in [0, 1] against σ(score): (1/W) Σ w [log(1 + e^f) − r f].

    Exact gradient, curvature and line derivatives in O(n) (see the module docs).  Labels must lie in [0, 1].
    """

    name: ClassVar[str] = "cross-entropy"
    aliases: ClassVar[tuple[str, ...]] = ("xentropy", "cross_entropy")
    summary: ClassVar[str] = "pointwise cross-entropy of soft labels in [0, 1] (log loss; LightGBM's xentropy)"
    task: ClassVar[str] = "graded"
    ranks_within_queries: ClassVar[bool] = True
    examples: ClassVar[tuple[str, ...]] = ("cross-entropy",)
    max_grade: float = 1.0
    max_grade_reason: ClassVar[str] = "reads labels as probabilities"

    @staticmethod
    def _weights(y: np.ndarray, sample_weight) -> tuple[np.ndarray, float]:
        w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        return w, float(w.sum())

    def value_and_gradient(self, y, scores, sample_weight=None):
        value, grad, _ = self.value_gradient_hessian(y, scores, sample_weight)
        return value, grad

    def value_gradient_hessian(self, y, scores, sample_weight=None):
        y = np.asarray(y, dtype=np.float64)
        f = np.asarray(scores, dtype=np.float64)
        w, W = self._weights(y, sample_weight)
        p = sigmoid(f)
        value = float(_dot(w, softplus(f) - y * f)) / W
        return value, w * (p - y) / W, w * p * (1.0 - p) / W

    def line_derivatives(self, y, scores, direction, sample_weight=None):
        y = np.asarray(y, dtype=np.float64)
        f = np.asarray(scores, dtype=np.float64)
        h = np.asarray(direction, dtype=np.float64)
        w, W = self._weights(y, sample_weight)
        p = sigmoid(f)
        value = float(_dot(w, softplus(f) - y * f)) / W
        return value, float(_dot(w * (p - y), h)) / W, float(_dot(w * p * (1.0 - p), h * h)) / W

    def check_target(self, y, sample_weight=None):
        y = np.asarray(y, dtype=np.float64)
        bad = np.flatnonzero((y < 0) | (y > 1) | ~np.isfinite(y))
        if bad.size:
            raise ArgumentRefusal.said("y", f"the objective {self.spec!r} reads labels as probabilities in [0, 1], "
                                            f"got {float(y[bad[0]])!r} at row {int(bad[0])}", row=int(bad[0]))
        w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
        if not float(np.sum(w)) > 0:
            raise ValueError(f"objective {self.spec!r}: the total sample weight must be positive")

    def bind(self, y, sample_weight=None, *, n_threads=1, queries=None):
        """The default binding; ``queries`` are accepted and change nothing (each row is judged alone)."""
        y = np.asarray(y, dtype=np.float64)
        self.check_target(y, sample_weight)
        self.check_queries(queries)
        return super().bind(y, sample_weight, n_threads=n_threads)       # the queries change nothing here

    def bind_blocks(self, n_threads: int = 1) -> "BoundCrossEntropyBlocks":
        """The form on blocks of rows (a Dask fit's chunks; on one list or within queries alike: each row is judged
        alone), :class:`BoundCrossEntropyBlocks`."""
        return BoundCrossEntropyBlocks(self, np.array([0.0, 1.0]), None)


class BoundCrossEntropyBlocks(BoundSeparable):
    """Cross-entropy as a reduction over blocks: each block's [Σ w, Σ w ℓ(f + αh), Σ w (p − r) h, Σ w p(1 − p) h²]
    (ℓ = log(1 + e^f) − r f, p = σ(f + αh)), summed; J and its line derivatives are the sums over Σ w.  A row's
    gradient w (p − r) / W and curvature w p (1 − p) / W (clipped) read W = Σ w alone, with the in-memory
    arithmetic; the model equals the in-memory fit's up to the order of the sums over blocks.  O(rows) a block."""

    n_stages = 1

    def block_partials(self, stage, block, G, direction=None, alpha=0.0):
        w = np.asarray(block.weight, dtype=np.float64)
        y = np.asarray(block.y, dtype=np.float64)
        f = np.asarray(block.scores, dtype=np.float64)
        if direction is None:
            return np.array([float(w.sum()), float(_dot(w, softplus(f) - y * f)), 0.0, 0.0])
        h = np.asarray(direction, dtype=np.float64)
        f = f + alpha * h if alpha != 0.0 else f
        p = sigmoid(f)
        return np.array([float(w.sum()), float(_dot(w, softplus(f) - y * f)), float(_dot(w * (p - y), h)),
                         float(_dot(w * p * (1.0 - p), h * h))])

    def merge_partials(self, stage, parts):
        out = np.zeros(4)
        for part in parts:
            out = out + np.asarray(part, dtype=np.float64)
        return out

    def finish(self, G, with_direction=False):
        W, value, d1, d2 = (float(v) for v in G[0])
        if not W > 0:
            return LinePoint(0.0, 0.0, 0.0, 0.0)
        if not with_direction:
            return LinePoint(0.0, value / W, float("nan"), float("nan"))
        return LinePoint(0.0, value / W, d1 / W, d2 / W)

    def block_gradient(self, block, G):
        return self.block_gradient_hessian(block, G)[0]

    def block_gradient_hessian(self, block, G):
        W = float(G[0][0])
        w = np.asarray(block.weight, dtype=np.float64)
        y = np.asarray(block.y, dtype=np.float64)
        p = sigmoid(np.asarray(block.scores, dtype=np.float64))
        return w * (p - y) / W, clip_hessian(w * p * (1.0 - p) / W)

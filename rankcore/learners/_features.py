"""The ``features`` learner: each feature scaled to [0, 1] is a weak ranker (the paper's setting)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _threshold_kernels
from ._base import Candidate, Learner, LearnerLayout, WeakRanker

__all__ = ["FeatureRanker", "FeatureLayout", "Features"]


def _scale(column: np.ndarray, low: float, high: float) -> np.ndarray:
    """(x − low) / (high − low) in float64; zeros for a constant feature.

    Shared by training (encode) and prediction so that the two agree bit for bit.
    When the range overflows float64 (|low|, |high| near 1.8e308), both
    differences are taken on halved values: halving is exact for such
    magnitudes, so the ratio is the same, and no inf/inf = NaN reaches the fit.
    """
    column = np.asarray(column, dtype=np.float64)
    with np.errstate(over="ignore"):
        span = high - low
    if not span > 0:
        return np.zeros(column.shape[0])
    if not math.isfinite(span):
        with np.errstate(over="ignore"):
            return (0.5 * column - 0.5 * low) / (0.5 * high - 0.5 * low)
    with np.errstate(over="ignore"):
        return (column - low) / span


@dataclass(frozen=True)
class FeatureRanker(WeakRanker):
    """h(x) = (x_feature − low) / (high − low) with the training range [low, high].

    Linear in the feature: values outside the training range extrapolate
    (no clipping), so a model of feature rankers is a linear model, as in the
    paper.
    """

    feature: int
    low: float
    high: float

    kind = "feature"
    values = None

    @property
    def features(self):
        return (self.feature,)

    def predict(self, X):
        return _scale(np.asarray(X)[:, self.feature], self.low, self.high)

    def to_state(self):
        return {"kind": self.kind, "feature": int(self.feature), "low": float(self.low), "high": float(self.high)}

    def describe(self, feature_names=None):
        name = feature_names[self.feature] if feature_names is not None else f"x{self.feature}"
        return f"({name} − {self.low:.6g}) / {self.high - self.low:.6g}"


class FeatureLayout(LearnerLayout):
    """Scaled features, stored feature-major (d, n) float64; statistics are d dot products."""

    def __init__(self, lows: np.ndarray, highs: np.ndarray, *, n_threads: int = 1):
        self.lows = np.asarray(lows, dtype=np.float64)
        self.highs = np.asarray(highs, dtype=np.float64)
        self.n_features = self.lows.shape[0]
        self.n_threads = int(n_threads)

    def ranker(self, j: int) -> FeatureRanker:
        """The weak ranker of feature ``j``: the feature min–max scaled by its training range."""
        return FeatureRanker(int(j), float(self.lows[j]), float(self.highs[j]))

    def encode(self, X):
        X = np.asarray(X)
        Z = np.empty((self.n_features, X.shape[0]))
        for j in range(self.n_features):
            Z[j] = _scale(X[:, j], self.lows[j], self.highs[j])
        return Z

    def statistics(self, encoded, gradient, *, n_threads=None):
        out = np.empty(self.n_features)
        _threshold_kernels.dots(encoded, np.ascontiguousarray(gradient, dtype=np.float64), out,
                        self.n_threads if n_threads is None else int(n_threads))
        return out

    def select(self, statistics):
        live = self.highs > self.lows
        if not live.any():
            return None
        score = np.where(live, np.abs(statistics), -1.0)
        j = int(np.argmax(score))
        return Candidate(self.ranker(j), float(statistics[j]))

    def evaluate(self, ranker, encoded):
        return encoded[ranker.feature].copy()

    def no_candidate_reason(self) -> str | None:
        if not (self.highs > self.lows).any():
            return "every feature is constant on the training rows"
        return None


class Features(Learner):
    """Each feature min–max scaled to [0, 1] on the training data is one weak ranker.

    The hypothesis space of the P-Norm Push experiments (Rudin 2006): the
    model is linear in the features.  Constant features are never chosen.
    """

    name = "features"
    aliases = ("feature", "linear")

    def prepare(self, X, *, sample_weight=None, thresholds=None, random_state=None, n_threads=1):
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        X = np.asarray(X)
        rows = X if sample_weight is None else X[np.asarray(sample_weight) > 0]
        lows = rows.min(axis=0).astype(np.float64)
        highs = rows.max(axis=0).astype(np.float64)
        return FeatureLayout(lows, highs, n_threads=n_threads)

    def prepare_distributed(self, rows, *, thresholds=None, random_state=None, n_threads=1):
        """The per-feature ranges of the rows of positive weight: one reduction."""
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        lows, highs = rows.ranges()
        return FeatureLayout(lows, highs, n_threads=n_threads)

    def ranker_from_state(self, state):
        if state.get("kind") != FeatureRanker.kind or set(state) != {"kind", "feature", "low", "high"}:
            raise ValueError(f"expected a feature ranker record {{kind, feature, low, high}}, got {sorted(state)}")
        feature = state["feature"]
        if isinstance(feature, bool) or not isinstance(feature, int) or feature < 0:
            raise ValueError(f"feature ranker: feature must be a non-negative integer, got {feature!r}")
        low, high = state["low"], state["high"]
        for name, v in (("low", low), ("high", high)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"feature ranker: {name} must be a finite number, got {v!r}")
        if high < low:
            raise ValueError(f"feature ranker: high ({high!r}) must be >= low ({low!r})")
        return FeatureRanker(int(feature), float(low), float(high))

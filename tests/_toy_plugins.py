"""A third-party plugin written against rankcore's public API only: a toy learner and a toy metric.

Nothing here knows about Dask.  The learner declares no distributed
preparation (it inherits ``Learner.prepare_distributed``, which gathers the
rows) and its statistics are plain dot products; the metric declares the
simplest distributed form, a mergeable summary.  ``tests/test_dask_seams.py``
registers them (in this process and on the workers) and runs them on a
``distributed.LocalCluster`` unmodified.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import rankcore
from rankcore.learners import Candidate, LearnerLayout, WeakRanker


@dataclass(frozen=True)
class MidRangeRanker(WeakRanker):
    """h(x) = 1[x_feature > cut], the cut at the middle of the feature's training range."""

    feature: int
    cut: float

    kind = "midrange"
    values = (0.0, 1.0)

    @property
    def features(self):
        return (self.feature,)

    def predict(self, X):
        return (np.asarray(X)[:, self.feature] > self.cut).astype(np.float64)

    def to_state(self):
        return {"kind": self.kind, "feature": int(self.feature), "cut": float(self.cut)}


class MidRangeLayout(LearnerLayout):
    """Encoded rows: the (d, n) 0/1 matrix of every ranker; statistics: d dot products with the gradient."""

    def __init__(self, cuts):
        self.cuts = np.asarray(cuts, dtype=np.float64)
        self.n_features = self.cuts.shape[0]

    def encode(self, X):
        return (np.asarray(X, dtype=np.float64) > self.cuts).T.astype(np.float64)

    def statistics(self, encoded, gradient, *, n_threads=1):
        return encoded @ np.asarray(gradient, dtype=np.float64)

    def select(self, statistics):
        j = int(np.argmax(np.abs(statistics)))
        return Candidate(MidRangeRanker(j, float(self.cuts[j])), float(statistics[j]))

    def evaluate(self, ranker, encoded):
        return encoded[ranker.feature].copy()


class MidRangeStumps(rankcore.Learner):
    """One stump per feature, cut at the middle of its range over the rows of positive weight."""

    name = "toy-midrange"

    def prepare(self, X, *, sample_weight=None, thresholds=None, random_state=None, n_threads=1):
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        X = np.asarray(X, dtype=np.float64)
        rows = X if sample_weight is None else X[np.asarray(sample_weight) > 0]
        return MidRangeLayout(0.5 * (rows.min(axis=0) + rows.max(axis=0)))

    def ranker_from_state(self, state):
        return MidRangeRanker(int(state["feature"]), float(state["cut"]))


class MeanGap(rankcore.Metric):
    """Mean score of the positives minus mean score of the negatives (higher is better)."""

    name = "toy-gap"

    def compute(self, y, scores):
        return float(scores[y == 1].mean() - scores[y == 0].mean())

    # the distributed form: four sums per chunk, added
    def chunk_summary(self, y, scores):
        pos = y == 1
        return np.array([scores[pos].sum(), pos.sum(), scores[~pos].sum(), (~pos).sum()], dtype=np.float64)

    def from_summary(self, summary):
        s_pos, n_pos, s_neg, n_neg = summary
        return float(s_pos / n_pos - s_neg / n_neg) if n_pos and n_neg else math.nan


class Plugin:
    @rankcore.hookimpl
    def rankcore_register_learners(self):
        return [MidRangeStumps]

    @rankcore.hookimpl
    def rankcore_register_metrics(self):
        return [MeanGap]

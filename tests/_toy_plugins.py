"""A third-party plugin written against rankcore's public API only: a toy learner and a toy metric.

Nothing here knows about Dask.  The learner declares no distributed
preparation (it inherits ``Learner.prepare_distributed``, which gathers the
rows) and its statistics are plain dot products; the metric declares the
simplest distributed form, a mergeable summary.  ``tests/dask/test_dask_seams.py``
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
class StepRanker(WeakRanker):
    """h(x) = (1[x_j > low] + 1[x_j > high]) / 2: three steps over one feature's training range."""

    feature: int
    cuts: tuple

    kind = "steps"
    values = (0.0, 0.5, 1.0)

    @property
    def features(self):
        return (self.feature,)

    def predict(self, X):
        column = np.asarray(X, dtype=np.float64)[:, self.feature]
        return 0.5 * ((column > self.cuts[0]).astype(np.float64) + (column > self.cuts[1]))

    def to_state(self):
        return {"kind": self.kind, "feature": int(self.feature), "cuts": [float(c) for c in self.cuts]}


class StepLayout(LearnerLayout):
    """Encoded rows: h of every feature's ranker, (d, n); statistics: d dot products with the gradient."""

    def __init__(self, lows, highs):
        span = np.asarray(highs, dtype=np.float64) - lows
        self.rankers = [StepRanker(j, (float(lo + s / 3), float(lo + 2 * s / 3)))
                        for j, (lo, s) in enumerate(zip(lows, span))]
        self.n_features = len(self.rankers)

    def encode(self, X):
        return np.array([r.predict(X) for r in self.rankers]).reshape(self.n_features, -1)

    def statistics(self, encoded, gradient, *, n_threads=1):
        return encoded @ np.asarray(gradient, dtype=np.float64)

    def select(self, statistics):
        j = int(np.argmax(np.abs(statistics)))
        return Candidate(self.rankers[j], float(statistics[j]))

    def evaluate(self, ranker, encoded):
        return encoded[ranker.feature].copy()


class ThirdsSteps(rankcore.Learner):
    """One three-step ranker per feature, its steps at the thirds of the range of the rows of positive weight."""

    name = "toy-thirds"

    def prepare(self, X, *, sample_weight=None, thresholds=None, random_state=None, n_threads=1):
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        X = np.asarray(X, dtype=np.float64)
        rows = X if sample_weight is None else X[np.asarray(sample_weight) > 0]
        return StepLayout(rows.min(axis=0), rows.max(axis=0))

    def ranker_from_state(self, state):
        return StepRanker(int(state["feature"]), tuple(float(c) for c in state["cuts"]))


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
    """The plugin object an entry point would name: one learner, one metric."""

    rankcore_register_learners = rankcore.hookimpl(lambda self: [ThirdsSteps])
    rankcore_register_metrics = rankcore.hookimpl(lambda self: [MeanGap])

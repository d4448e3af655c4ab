"""AutoRanker(metric=<a Metric object that is not registered>): every candidate gets the metric itself."""

import numpy as np
import pytest

import rankcore
from rankcore.auto._tasks import make_context
from rankcore.metrics import Metric


class _PairAUC(Metric):
    """An unregistered AUC (plain pair counting): its spec 'pair-auc' resolves to nothing."""

    name = "pair-auc"
    bounded = True

    def compute(self, y, scores):
        y, s = np.asarray(y), np.asarray(scores, dtype=float)
        pos, neg = s[y == 1], s[y == 0]
        wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
        return float(wins / (pos.size * neg.size))


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    return X, y


def test_the_spec_of_the_metric_does_not_resolve():
    with pytest.raises(ValueError, match="pair-auc"):
        rankcore.resolve("metric", "pair-auc")


def test_exactboost_candidate_fits_an_unregistered_metric_object():
    X, y = _data()
    model = rankcore.AutoRanker(metric=_PairAUC(), candidates=["exactboost:n_runs=1"], cv=2).fit(X, y)
    assert model.best_candidate_ == "exactboost:n_runs=1"
    assert model.metric_ == "pair-auc"
    row = [r for r in model.leaderboard_ if r.name == "exactboost:n_runs=1"][0]
    assert row.status == "chosen" and np.isfinite(row.mean)
    assert model.best_estimator_ is not None and np.isfinite(model.decision_function(X)).all()


def test_exactboost_candidate_builds_on_the_metric_itself():
    X, y = _data()
    metric = _PairAUC()
    context = make_context(metric, X, y, 0, 1)
    assert context.metric == "pair-auc" and context.target_metric is metric
    built = rankcore.resolve("candidate", "exactboost:n_runs=1").build(context)
    assert built.metric is metric          # not its spec, which names no registered metric


def test_a_registered_metric_stays_a_spec_string():
    X, y = _data()
    context = make_context(rankcore.resolve("metric", "pauc:0.1"), X, y, 0, 1)
    assert context.target_metric == rankcore.resolve("metric", "pauc:0.1")
    assert rankcore.resolve("candidate", "exactboost:n_runs=1").build(context).metric == "pauc:0.1"
    assert rankcore.resolve("candidate", "exactboost:n_runs=1").build(make_context("pauc:0.1", X, y, 0, 1)).metric \
        == "pauc:0.1"

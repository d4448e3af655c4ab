"""A plugin metric's ``query_values`` is checked in every door that averages it over queries.

``rankcore.evaluate(..., qid=)`` refused a ``query_values`` of the wrong length or with an infinite value; the
estimators' ``scoring`` and ``eval_metric`` on an ``eval_set`` and AutoRanker's validation parts averaged it as
given (an infinite curve, or one value too many in the mean).  A model whose plugin component is not installed says
so when its file is loaded.
"""

from __future__ import annotations

import numpy as np
import pytest
from _query_data import graded_queries
from _plugin_registration import components_registered

import rankcore
from rankcore.auto import AutoRanker


class OneTooMany(rankcore.Metric):
    """Gives one value more than there are queries."""

    name = "one-too-many-for-tests"
    task = "graded"
    requires_both_classes = False

    def compute(self, y, scores):
        return 1.0

    def query_values(self, y, scores, queries):
        return np.ones(queries.n_queries + 1)


class Infinite(OneTooMany):
    """Gives +inf for its first query."""

    name = "infinite-for-tests"

    def query_values(self, y, scores, queries):
        values = np.ones(queries.n_queries)
        values[0] = np.inf
        return values


WHY = {"one-too-many-for-tests": r"query_values returned shape \(\d+,\), expected one value per query",
       "infinite-for-tests": "query_values returned an infinite value"}


@pytest.fixture(scope="module")
def registered():
    with components_registered("rankcore_register_metrics", [OneTooMany, Infinite], "metric-query-values-tests"):
        yield


@pytest.fixture(scope="module")
def data():
    X, y, qid = graded_queries(seed=0, n_queries=30)
    return (X[:200], y[:200], qid[:200]), (X[200:], y[200:], qid[200:])


@pytest.mark.parametrize("spec", sorted(WHY))
def test_evaluate_refuses_it(registered, data, spec):
    (X, y, qid), _ = data
    with pytest.raises(ValueError, match=WHY[spec]):
        rankcore.evaluate(y, X[:, 0], spec, qid=qid)


@pytest.mark.parametrize("spec", sorted(WHY))
def test_scoring_on_an_eval_set_refuses_it(registered, data, spec):
    train, valid = data
    with pytest.raises(ValueError, match=rf"scoring='{spec}' on eval_set: {WHY[spec]}"):
        rankcore.boost(learner="stumps", n_iter=2, scoring=spec).fit(*train[:2], qid=train[2], eval_set=[valid])


@pytest.mark.parametrize("spec", sorted(WHY))
def test_eval_metric_refuses_it(registered, data, spec):
    train, valid = data
    with pytest.raises(ValueError, match=rf"eval_metric: the metric '{spec}' cannot score eval_set y: {WHY[spec]}"):
        rankcore.boost(learner="stumps", n_iter=2).fit(*train[:2], qid=train[2], eval_set=[valid], eval_metric=[spec])


@pytest.mark.parametrize("spec", sorted(WHY))
def test_autoranker_refuses_it(registered, data, spec):
    (X, y, qid), _ = data
    with pytest.raises(ValueError, match=WHY[spec]):
        AutoRanker(metric=spec, candidates=["stumps:n_iter=3"], cv=3, random_state=0, n_jobs=1).fit(X, y, qid=qid)


class LossForTests(rankcore.Loss):
    """ℓ(z) = exp(−z), under a plugin's name."""

    name = "plugin-loss-for-tests"

    def value(self, z):
        return np.exp(-np.asarray(z, dtype=np.float64))

    def derivative(self, z):
        return -np.exp(-np.asarray(z, dtype=np.float64))


def test_a_model_whose_plugin_is_not_installed_says_so(data, tmp_path):
    (X, y, qid), _ = data
    with components_registered("rankcore_register_losses", [LossForTests], "plugin-loss-tests"):
        model = rankcore.boost(learner="stumps", loss="plugin-loss-for-tests", n_iter=2).fit(X, y, qid=qid)
        rankcore.save_model(model, tmp_path / "model.json")
        assert rankcore.load_model(tmp_path / "model.json").n_iter_ == 2
    with pytest.raises(rankcore.persistence.ModelFormatError,
                       match=r"unknown loss 'plugin-loss-for-tests'.*install the plugin that provides it"):
        rankcore.load_model(tmp_path / "model.json")

"""AutoRanker's per-query scoring keeps a list metric bound to each unit's labels: the same values, bit for bit."""

import pickle

import numpy as np
import pytest
from _query_data import graded_queries

from rankcore.auto._queries import PerQueryMean, query_labels
from rankcore.metrics import check_qid
from rankcore.registry import resolve


def unit_labels(seed, n_queries=12):
    _, y, qid = graded_queries(seed=seed, n_queries=n_queries)
    codes = check_qid(qid, y.shape[0]).codes
    return query_labels(y, codes)


def today(metric, labels, scores):
    """The values without a kept binding (the metric's own query_values)."""
    queries = check_qid(labels["query"], labels.shape[0])
    return metric.query_values(np.ascontiguousarray(labels["grade"]), scores, queries)


@pytest.mark.parametrize("spec", ["ndcg@k:3", "map@k:2", "err@k:2,empty=0", "mrr"])
def test_units_scored_again_equal_the_unbound_values(spec):
    metric = resolve("metric", spec)
    unit = PerQueryMean(metric)
    units = [unit_labels(seed) for seed in range(3)]
    rng = np.random.default_rng(0)
    for _ in range(3):                                  # candidates, each on every unit
        for labels in units:
            scores = rng.integers(0, 3, labels.shape[0]).astype(float)       # ties
            np.testing.assert_array_equal(unit.values(labels, scores), today(metric, labels, scores))
            assert unit(labels.copy(), scores) == unit(labels, scores)
    assert sum(map(len, unit._bindings.values())) == 3


def test_changed_labels_rebind_and_default_metric_is_lowered():
    labels = unit_labels(7)
    unit = PerQueryMean(resolve("metric", "ndcg@k:1000"), default=True)     # k above every query: read whole
    scores = np.random.default_rng(1).normal(size=labels.shape[0])
    lowered = resolve("metric", f"ndcg@k:{int(np.bincount(labels['query']).max())}")
    np.testing.assert_array_equal(unit.values(labels, scores), today(lowered, labels, scores))
    changed = labels.copy()
    changed["grade"] = changed["grade"][::-1]                   # same sums, other labels
    np.testing.assert_array_equal(unit.values(changed, scores), today(lowered, changed, scores))
    assert sum(map(len, unit._bindings.values())) == 2
    again = pickle.loads(pickle.dumps(unit))
    assert again._bindings == {} and again(labels, scores) == unit(labels, scores)


def test_metric_without_bind_queries_takes_todays_path():
    labels = unit_labels(2)
    labels["grade"] = labels["grade"] >= 2
    unit = PerQueryMean(resolve("metric", "auc"))
    scores = np.random.default_rng(2).normal(size=labels.shape[0])
    queries = check_qid(labels["query"], labels.shape[0])
    expected = resolve("metric", "auc").query_values(labels["grade"].astype(np.int8), scores, queries)
    np.testing.assert_array_equal(unit.values(labels, scores), expected)
    assert unit._bindings == {}

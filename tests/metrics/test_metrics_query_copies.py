"""Query metrics whose defaults mean "not set" survive copy, deepcopy and pickle (libraries copy their metrics)."""

import copy
import pickle

import pytest

from rankcore.registry import resolve


@pytest.mark.parametrize("spec", ["ndcg@k:10", "ndcg@k:5,gain=linear,ties=first,empty=0", "err@k:3", "map",
                                  "mrr:empty=1", "ndcg@k:0.5,convention=lightgbm", "map@k:5",
                                  "map@k:3,convention=xgboost,denominator=relevant"])
def test_query_metrics_are_rebuilt_equal(spec):
    metric = resolve("metric", spec)
    for copied in (copy.copy(metric), copy.deepcopy(metric), pickle.loads(pickle.dumps(metric))):
        assert copied == metric and copied.spec == metric.spec

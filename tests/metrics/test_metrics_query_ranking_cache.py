"""``RankingCache``: list metrics bound to one set of queries share one sort of the same scores, never a stale one."""

import numpy as np
import pytest

import rankcore
from rankcore.metrics import RankingCache, check_qid

SPECS = ("ndcg@k:1", "ndcg@k:5", "ndcg@k:10,ties=first", "map", "map@k:3", "mrr", "err@k:5")


def _data(seed=0, n_queries=300):
    rng = np.random.default_rng(seed)
    qid = rng.permutation(np.repeat(np.arange(n_queries), rng.integers(1, 15, n_queries)))
    y = rng.integers(0, 4, qid.size).astype(np.float64)
    scores = rng.integers(0, 6, qid.size).astype(np.float64)          # ties
    return y, scores, check_qid(qid, qid.size)


def test_metrics_bound_with_one_cache_give_their_own_values_bit_for_bit():
    y, scores, queries = _data()
    cache = RankingCache(queries, n_threads=2)
    shared = [rankcore.resolve("metric", spec).bind_queries(y, queries, cache=cache) for spec in SPECS]
    alone = [rankcore.resolve("metric", spec).bind_queries(y, queries) for spec in SPECS]
    for step in range(3):
        for with_cache, without in zip(shared, alone):
            np.testing.assert_array_equal(with_cache(scores), without(scores))
        scores += np.random.default_rng(step).normal(size=scores.shape)      # changed in place: sorted again


def test_the_cache_sorts_once_for_the_same_scores(monkeypatch):
    from rankcore.metrics import _query_kernels

    y, scores, queries = _data(1)
    calls = []
    real = _query_kernels.rank_queries
    monkeypatch.setattr(_query_kernels, "rank_queries", lambda *a, **k: calls.append(1) or real(*a, **k))
    cache = RankingCache(queries)
    bound = [rankcore.resolve("metric", spec).bind_queries(y, queries, cache=cache) for spec in SPECS]
    for b in bound:
        b(scores)
    assert len(calls) == 1
    scores[0] += 1.0
    bound[0](scores)
    assert len(calls) == 2


def test_a_cache_of_other_queries_is_refused():
    y, scores, queries = _data(2)
    _, _, other = _data(3)
    with pytest.raises(ValueError, match="cache: a RankingCache of other queries"):
        rankcore.resolve("metric", "ndcg@k:5").bind_queries(y, queries, cache=RankingCache(other))


def test_eval_metric_curves_with_the_shared_sort_equal_evaluate():
    from _query_data import graded_queries

    X, y, qid = graded_queries(0)
    Xv, yv, qv = graded_queries(1)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=6, random_state=0)
    model.fit(X, y, qid=qid, eval_set=(Xv, yv, qv), eval_metric=["ndcg@k:1", "map@k:3", "mrr"])
    for metric, curve in model.evals_result_["validation_0"].items():
        expected = [rankcore.evaluate(yv, s, metrics=[metric], qid=qv)[metric]
                    for s in model.staged_decision_function(Xv)]
        np.testing.assert_array_equal(curve, expected)

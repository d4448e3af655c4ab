"""The ``ndcg@k``/``map@k`` conventions and ``map``/``mrr``/``prec@k`` reproduce scikit-learn, LightGBM, XGBoost
and trec_eval.

Random grouped data with ties and queries without a relevant row, rows of
each query in shuffled order; every number to 1e-12.  ``pytrec_eval`` (the
trec_eval bindings) is a test extra: its test skips when it is absent.
"""

from __future__ import annotations

import numpy as np
import pytest
from _query_data import xgboost_evals

import rankcore
from rankcore.metrics import per_query


def grouped(seed, *, n_queries=40, max_size=25, grades=5):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, max_size + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, grades, size=qid.shape[0])
    y[rng.random(qid.shape[0]) < 0.5] = 0
    for q in rng.choice(n_queries, size=5, replace=False):         # queries without a relevant row
        y[qid == q] = 0
    scores = rng.integers(0, 6, size=qid.shape[0]).astype(np.float64)   # many ties
    return y, scores, qid


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_ndcg_sklearn_convention_equals_ndcg_score(seed, k):
    from sklearn.metrics import ndcg_score

    y, scores, qid = grouped(seed)
    perm = np.random.default_rng(seed).permutation(y.shape[0])
    got = per_query(y[perm], scores[perm], f"ndcg@k:{k},convention=sklearn", qid=qid[perm])
    expected = [ndcg_score(y[qid == q][None], scores[qid == q][None], k=k) for q in got.queries]
    np.testing.assert_allclose(got.values, expected, rtol=0, atol=1e-12)
    assert got.n_left_out == 0 and got.mean == pytest.approx(np.mean(expected), abs=1e-12)


def _lightgbm_ndcg(y, scores, qid, k):
    """LightGBM's ndcg@k of ``scores``: the eval of a one-leaf booster (a constant shift) on init_score."""
    import lightgbm as lgb

    order = np.argsort(qid, kind="stable")                         # LightGBM wants each query contiguous
    sizes = np.bincount(qid[order])
    X = np.zeros((y.shape[0], 1))
    train = lgb.Dataset(X[order], label=y[order], group=sizes, init_score=scores[order])
    valid = lgb.Dataset(X[order], label=y[order], group=sizes, init_score=scores[order], reference=train)
    record: dict = {}
    lgb.train({"objective": "lambdarank", "metric": "ndcg", "eval_at": [k], "min_data_in_leaf": y.shape[0] + 1,
               "verbosity": -1, "num_threads": 1},
              train, num_boost_round=1, valid_sets=[valid], valid_names=["v"],
              callbacks=[lgb.record_evaluation(record)])
    return record["v"][f"ndcg@{k}"][0]


@pytest.mark.parametrize("k", [1, 5, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_ndcg_lightgbm_convention_equals_lightgbm(seed, k):
    pytest.importorskip("lightgbm")
    y, scores, qid = grouped(seed)
    got = rankcore.evaluate(y, scores, f"ndcg@k:{k},convention=lightgbm", qid=qid)
    assert got[f"ndcg@k:{k},convention=lightgbm"] == pytest.approx(_lightgbm_ndcg(y, scores, qid, k), abs=1e-12)
    # the default convention leaves LightGBM's empty queries out and averages ties: a different number
    assert rankcore.evaluate(y, scores, f"ndcg@k:{k}", qid=qid)[f"ndcg@k:{k}"] != pytest.approx(
        _lightgbm_ndcg(y, scores, qid, k), abs=1e-6)


def _lightgbm_map(y, scores, qid, ks):
    """LightGBM's map@k of ``scores`` for each k of ``ks`` (the ``metric="map"`` eval of a one-leaf booster)."""
    import lightgbm as lgb

    order = np.argsort(qid, kind="stable")
    sizes = np.bincount(qid[order])
    X = np.zeros((y.shape[0], 1))
    train = lgb.Dataset(X[order], label=y[order], group=sizes, init_score=scores[order])
    valid = lgb.Dataset(X[order], label=y[order], group=sizes, init_score=scores[order], reference=train)
    record: dict = {}
    lgb.train({"objective": "lambdarank", "metric": "map", "eval_at": list(ks), "min_data_in_leaf": y.shape[0] + 1,
               "verbosity": -1, "num_threads": 1},
              train, num_boost_round=1, valid_sets=[valid], valid_names=["v"],
              callbacks=[lgb.record_evaluation(record)])
    return {k: record["v"][f"map@{k}"][0] for k in ks}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_map_at_k_lightgbm_convention_equals_lightgbm(seed):
    pytest.importorskip("lightgbm")
    y, scores, qid = grouped(seed)
    expected = _lightgbm_map(y, scores, qid, (1, 3, 5, 10))
    for k, value in expected.items():
        spec = f"map@k:{k},convention=lightgbm"
        assert rankcore.evaluate(y, scores, spec, qid=qid)[spec] == pytest.approx(value, abs=1e-12)
    # the default averages ties and leaves the queries without a relevant row out: another number
    assert rankcore.evaluate(y, scores, "map@k:3", qid=qid)["map@k:3"] != pytest.approx(expected[3], abs=1e-6)


def _xgboost_map(y, scores, qid, name):
    """XGBoost's ``name`` (``map@3``, ``map@3-``) of ``scores``: the eval of a booster that adds nothing."""
    import xgboost as xgb

    order = np.argsort(qid, kind="stable")
    data = xgb.DMatrix(np.zeros((y.shape[0], 1)), label=y[order], qid=qid[order], base_margin=scores[order])
    booster = xgb.train({"objective": "rank:pairwise", "eval_metric": name, "eta": 0.0, "max_depth": 1,
                         "nthread": 1}, data, num_boost_round=1)
    return float(booster.eval(data).rsplit(":", 1)[1])


@pytest.mark.parametrize("seed", [0, 1])
def test_map_at_k_xgboost_convention_equals_xgboost(seed):
    pytest.importorskip("xgboost")
    y, scores, qid = grouped(seed)
    relevant = (y > 0).astype(np.float64)                         # XGBoost's map takes 0/1 labels only
    for k in (1, 3, 10):
        for suffix, spec in [("", f"map@k:{k},convention=xgboost"), ("-", f"map@k:{k},convention=xgboost,empty=0")]:
            # XGBoost prints 6 significant digits
            assert rankcore.evaluate(relevant, scores, spec, qid=qid)[spec] == pytest.approx(
                _xgboost_map(relevant, scores, qid, f"map@{k}{suffix}"), abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_trec_eval_conventions_equal_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, scores, qid = grouped(seed)
    rows = np.arange(y.shape[0])
    # trec_eval breaks ties by document id, descending: ids that descend with the row give row order
    docno = np.array([f"d{2 * 10**7 - i}" for i in rows])      # one width: string order is number order
    qrel = {str(q): {docno[i]: int(y[i]) for i in rows[qid == q]} for q in np.unique(qid)}
    run = {str(q): {docno[i]: float(scores[i]) for i in rows[qid == q]} for q in np.unique(qid)}
    measures = {"ndcg_cut.5", "ndcg_cut.10", "map", "map_cut.5", "recip_rank", "P.5"}
    result = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    queries = [str(q) for q in np.unique(qid)]
    relevant = (y > 0).astype(int)
    for spec, name, labels in [("ndcg@k:5,convention=trec_eval", "ndcg_cut_5", y),
                               ("ndcg@k:10,convention=trec_eval", "ndcg_cut_10", y),
                               ("map:ties=first,empty=0", "map", y),
                               ("map@k:5,ties=first,empty=0,denominator=relevant", "map_cut_5", y),
                               ("mrr:ties=first,empty=0", "recip_rank", y),
                               ("prec@k:5", "P_5", relevant)]:
        expected = [result[q][name] for q in queries]
        if spec.startswith("prec@k"):
            # rankcore shares a tie at place k; trec_eval breaks it: compare on untied scores
            untied = scores + rows * 1e-6
            run_untied = {str(q): {docno[i]: float(untied[i]) for i in rows[qid == q]} for q in np.unique(qid)}
            res = pytrec_eval.RelevanceEvaluator(qrel, {"P.5"}).evaluate(run_untied)
            expected = [res[q][name] for q in queries]
            got = per_query(labels, untied, spec, qid=qid).values
        else:
            got = per_query(labels, scores, spec, qid=qid).values
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, err_msg=spec)


@pytest.mark.parametrize("seed", [0, 1])
def test_ndcg_lightgbm_convention_equals_xgboost_ndcg(seed):
    # XGBoost's ndcg@k (exp gain, its default) breaks ties by row order and scores a query without a relevant
    # row 1, as LightGBM: convention=lightgbm; its ndcg@k- scores such a query 0
    pytest.importorskip("xgboost")
    y, scores, qid = grouped(seed)
    for k in (1, 3, 10):
        got = xgboost_evals(y.astype(np.float64), scores, qid, [f"ndcg@{k}", f"ndcg@{k}-"])
        for name, spec in [(f"ndcg@{k}", f"ndcg@k:{k},convention=lightgbm"),
                           (f"ndcg@{k}-", f"ndcg@k:{k},convention=lightgbm,empty=0")]:
            assert rankcore.evaluate(y, scores, spec, qid=qid)[spec] == pytest.approx(got[name], abs=1e-6), spec


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_map_is_sklearn_average_precision_without_ties_and_the_random_order_mean_with_them(seed):
    import itertools

    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=7)
    y[0] = 1
    untied = rng.permutation(7).astype(np.float64)
    assert rankcore.evaluate(y, untied, "map")["map"] == pytest.approx(average_precision_score(y, untied), abs=1e-12)
    # scikit-learn gives every relevant row of a tie group the precision at the group's end (one threshold);
    # rankcore the mean average precision over the orders of the tie, here over every order of the rows
    y, tied = np.array([1, 1, 1, 0, 0]), np.array([2.0, 2.0, 0.0, 0.0, 2.0])
    means = []
    for order in itertools.permutations(range(5)):
        if np.all(np.diff(tied[list(order)]) <= 0):
            hits = np.cumsum(y[list(order)])
            means.append(np.mean((hits / np.arange(1, 6))[y[list(order)] == 1]))
    assert rankcore.evaluate(y, tied, "map")["map"] == pytest.approx(np.mean(means), abs=1e-12)
    assert average_precision_score(y, tied) == pytest.approx(2 / 3 * 2 / 3 + 1 / 3 * 3 / 5, abs=1e-12)

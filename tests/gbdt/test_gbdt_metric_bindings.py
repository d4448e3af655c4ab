"""The evaluation-metric adapters keep a list metric bound to each validation set: values as without, bit for bit."""

import pickle

import numpy as np
import pytest

from rankcore.gbdt import lightgbm_metric, xgboost_metric
from rankcore.metrics import evaluate, per_query

from _query_data import consecutive_queries

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

LGB = {"objective": "lambdarank", "metric": "None", "verbose": -1, "num_threads": 1, "deterministic": True,
       "force_col_wise": True, "min_child_samples": 5}
SPECS = ["ndcg@k:5", "map@k:3"]


TRAIN = consecutive_queries(0, 40)
VALIDS = [consecutive_queries(1, 25), consecutive_queries(2, 30)]


def recording(metric, calls):
    """``metric`` as the library calls it, each (value, labels, scores, sizes) kept."""
    def call(preds, data):
        result = metric(preds, data)
        calls.append((result[1], np.array(data.get_label()), np.array(preds, dtype=np.float64), data.get_group()))
        return result
    return call


def today(spec, labels, scores, sizes):
    """The value without a kept binding: per_query's mean of the checked labels and scores."""
    sizes = np.asarray(sizes, dtype=np.int64) if np.ndim(sizes) and np.size(sizes) else None
    return per_query(labels, scores, spec, group=sizes if sizes is not None and sizes.size else None).mean


@pytest.mark.parametrize("spec", SPECS)
def test_lightgbm_two_validation_sets_every_round(spec):
    X, y, _, g = TRAIN
    train = lgb.Dataset(X, y, group=g)
    valids = [lgb.Dataset(Xv, yv, group=gv, reference=train) for Xv, yv, _, gv in VALIDS]
    metric, calls, record = lightgbm_metric(spec), [], {}
    booster = lgb.train(LGB, train, num_boost_round=4, valid_sets=valids, valid_names=["a", "b"],
                        feval=recording(metric, calls), callbacks=[lgb.record_evaluation(record)])
    assert len(calls) == 8 and len(metric._bindings) == 2          # one binding per validation set, kept
    for value, labels, scores, sizes in calls:
        assert value == today(spec, labels, scores, sizes)           # bit for bit
    for name, (Xv, yv, qv, _) in zip("ab", VALIDS):
        staged = [evaluate(yv, booster.predict(Xv, num_iteration=i + 1), spec, qid=qv)[spec] for i in range(4)]
        np.testing.assert_allclose(record[name][spec], staged, rtol=0, atol=1e-12)


@pytest.mark.parametrize("spec", SPECS)
def test_xgboost_two_validation_sets_every_round(spec):
    X, y, q, _ = TRAIN
    valids = [xgb.DMatrix(Xv, yv, qid=qv) for Xv, yv, qv, _ in VALIDS]
    metric, calls, record = xgboost_metric(spec), [], {}

    def call(predt, dmatrix):
        result = metric(predt, dmatrix)
        sizes = np.diff(dmatrix.get_uint_info("group_ptr"))
        calls.append((result[1], dmatrix.get_label(), np.array(predt, dtype=np.float64), sizes))
        return result

    booster = xgb.train({"objective": "rank:ndcg", "nthread": 1, "disable_default_eval_metric": 1},
                        xgb.DMatrix(X, y, qid=q), num_boost_round=4, evals=[(v, n) for v, n in zip(valids, "ab")],
                        custom_metric=call, maximize=metric.maximize, evals_result=record, verbose_eval=False)
    assert len(calls) == 8 and len(metric._bindings) == 2
    for value, labels, scores, sizes in calls:
        assert value == today(spec, labels, scores, sizes)
    for name, (Xv, yv, qv, _), dmatrix in zip("ab", VALIDS, valids):
        staged = [evaluate(yv, booster.predict(dmatrix, output_margin=True, iteration_range=(0, i + 1)), spec,
                           qid=qv)[spec] for i in range(4)]
        np.testing.assert_allclose(record[name][metric.name], staged, rtol=0, atol=1e-6)   # XGBoost logs 6 digits


def test_changed_labels_in_the_same_array_rebind():
    _, y, _, g = VALIDS[0]
    labels, scores = y.copy(), np.random.default_rng(3).normal(size=y.size)
    metric = lightgbm_metric("ndcg@k:5")
    assert metric(labels, scores, None, g)[1] == today("ndcg@k:5", labels, scores, g)
    labels[:40] = labels[:40][::-1] + 1.0                         # the caller's array changed in place
    assert metric(labels, scores, None, g)[1] == today("ndcg@k:5", labels, scores, g)
    regrouped = np.concatenate([[g[0] + g[1]], g[2:]])               # same labels, other queries
    assert metric(labels, scores, None, regrouped)[1] == today("ndcg@k:5", labels, scores, regrouped)
    assert len(metric._bindings) == 3


def test_bindings_are_bounded_and_not_pickled():
    metric = xgboost_metric("map@k:3")
    rng = np.random.default_rng(4)
    for _ in range(20):
        y = rng.integers(0, 3, 30).astype(float)
        y[0] = 1.0
        scores = rng.normal(size=30)
        assert metric.evaluate(y, scores, None, [10, 10, 10]) == today("map@k:3", y, scores, [10, 10, 10])
    assert len(metric._bindings) == 16
    copy = pickle.loads(pickle.dumps(metric))
    assert copy._bindings == [] and copy.evaluate(y, scores, None, [10, 10, 10]) == metric.evaluate(
        y, scores, None, [10, 10, 10])


def test_metric_without_bind_queries_and_errors_unchanged():
    _, y, qv, g = VALIDS[0]
    binary = (y >= 2).astype(float)
    scores = np.random.default_rng(5).normal(size=y.size)
    metric = lightgbm_metric("auc")                                  # no bind_queries: today's path
    assert metric(binary, scores, None, g)[1] == evaluate(binary, scores, "auc", qid=qv)["auc"]
    assert metric._bindings == []
    with pytest.raises(ValueError, match="counts none of the"):
        lightgbm_metric("ndcg@k:2")(np.zeros(y.size), scores, None, g)

"""Several validation sets on Dask: scored on the client as in memory, the last one (not the training data) watched.

On the shared 2-worker LocalCluster; no part of Dask is mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskExactBoost, DaskPushBoost  # noqa: E402
from rankcore.learners import bin_edges  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _query_data import graded_queries  # noqa: E402


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.8).astype(int)
    return X, y


def _assert_same_curves(model, local):
    assert list(model.evals_result_) == list(local.evals_result_)
    for name, curves in local.evals_result_.items():
        for metric, curve in curves.items():
            np.testing.assert_allclose(model.evals_result_[name][metric], curve, rtol=1e-12)
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12)
    assert model.best_iteration_ == local.best_iteration_ and model.n_iter_ == local.n_iter_


def test_dask_several_sets_stop_on_the_last_as_in_memory(dask_client):  # noqa: F811
    X, y = _data(600, 0)
    Xa, ya = _data(200, 1)
    Xb, yb = _data(200, 2)
    Xd, yd = da.from_array(X, chunks=(150, -1)), da.from_array(y, chunks=150)
    params = dict(n_iter=40, thresholds=bin_edges(X, max_bins=16), early_stopping=True, n_iter_no_change=3)
    # the training collection itself is a set: scored (computed to the client), never watched
    model = DaskPushBoost(placement="distributed", **params).fit(
        Xd, yd, eval_set=[(Xd, yd), (da.from_array(Xa, chunks=50), ya), (Xb, yb)], eval_names=["train", "a", "b"])
    local = rankcore.PushBoost(**params).fit(X, y, eval_set=[(X, y), (Xa, ya), (Xb, yb)],
                                             eval_names=["train", "a", "b"])
    assert model.fit_info_["placement"] == "distributed" and model.stop_reason_ == "early_stopping"
    _assert_same_curves(model, local)
    assert model.rankers_ == local.rankers_
    local_copy = model.to_local()                 # the curves go with the model's state
    assert list(local_copy.evals_result_) == ["train", "a", "b"]
    np.testing.assert_array_equal(local_copy.evals_result_["a"]["auc"], model.evals_result_["a"]["auc"])
    alone = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_set=(Xb, yb))
    assert alone.rankers_ == model.rankers_
    np.testing.assert_array_equal(model.validation_scores_, model.evals_result_["b"]["auc"])
    # the training data put last is skipped: the watched set is the one before it
    last = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_set=[(Xb, yb), (Xd, yd)])
    assert last.rankers_ == alone.rankers_
    np.testing.assert_array_equal(last.validation_scores_, last.evals_result_["validation_0"]["auc"])


def test_dask_one_worker_keeps_the_watched_set_read_on_the_client(dask_client):  # noqa: F811
    X, y = _data(400, 3)
    Xb, yb = _data(150, 4)
    Xd, yd = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    params = dict(learner="trees:max_leaves=4", n_iter=30, random_state=0, early_stopping=True, n_iter_no_change=2)
    model = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd, eval_set=[(Xb, yb), (Xd, yd)])
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, eval_set=[(Xb, yb), (X, y)])
    assert model.fit_info_["placement"] == "one_worker"
    _assert_same_curves(model, local)
    np.testing.assert_array_equal(model.decision_function(Xb), local.decision_function(Xb))


def test_dask_several_sets_within_queries(dask_client):  # noqa: F811
    X, y, qid = graded_queries(3, n_queries=40, rows=(6, 14))
    Xa, ya, qa = graded_queries(4)
    Xb, yb, qb = graded_queries(5)
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    Xd, yd, qd = (da.from_array(a, chunks=(120, -1) if a.ndim == 2 else 120) for a in (X, y, qid))
    params = dict(learner="stumps:max_bins=8", price="pow:2", n_iter=8, random_state=0)
    sets = [(Xa, ya, qa), (Xb, yb, qb)]
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd, eval_set=sets)
    local = rankcore.PushBoost(**params).fit(X, y, qid=qid, eval_set=sets)
    assert model.stop_reason_ == local.stop_reason_ == "n_iter"
    _assert_same_curves(model, local)
    with pytest.raises(ValueError, match=r"eval_set\[1\]: expected a triple \(X_val, y_val, qid_val\)"):
        DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd, eval_set=[(Xa, ya, qa), (Xb, yb)])


def test_dask_exactboost_takes_one_set(dask_client):  # noqa: F811
    X, y = _data(200, 5)
    with pytest.raises(ValueError, match=r"eval_set: DaskExactBoost takes one validation set, got a list of 2"):
        DaskExactBoost(n_runs=1, n_rounds=2).fit(X, y, eval_set=[(X, y), (X, y)])


def test_dask_eval_metric_records_the_in_memory_curves_and_the_same_model(dask_client):  # noqa: F811
    X, y = _data(400, 6)
    Xa, ya = _data(150, 7)
    Xd, yd = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    params = dict(n_iter=20, thresholds=bin_edges(X, max_bins=16), early_stopping=True, n_iter_no_change=3)
    metrics = ["ndcg@k:5", "map@k:10"]
    plain = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_set=[(Xd, yd), (Xa, ya)])
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_set=[(Xd, yd), (Xa, ya)],
                                                                 eval_metric=metrics)
    local = rankcore.PushBoost(**params).fit(X, y, eval_set=[(X, y), (Xa, ya)], eval_metric=metrics)
    assert list(model.evals_result_["validation_1"]) == ["auc", *metrics]
    _assert_same_curves(model, local)
    assert model.rankers_ == plain.rankers_ and model.n_iter_ == plain.n_iter_
    np.testing.assert_array_equal(model.alphas_, plain.alphas_)
    one = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd, eval_set=[(Xd, yd), (Xa, ya)],
                                                              eval_metric=metrics)
    _assert_same_curves(one, local)
    assert list(model.to_local().evals_result_["training"]) == ["auc", *metrics]
    with pytest.raises(ValueError, match="eval_metric: given without eval_set"):
        DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_metric=metrics)


def test_dask_training_data_in_eval_set_is_scored_with_the_training_weights(dask_client):  # noqa: F811
    # scoring="objective" on the training data itself reads the weighted objective the fit minimizes, as in memory
    X, y = _data(80, 4)
    w = np.random.default_rng(4).integers(0, 4, size=80).astype(float)
    Xd, yd, wd = da.from_array(X, chunks=40), da.from_array(y, chunks=40), da.from_array(w, chunks=40)
    params = dict(objective="push:exp,pow:4", learner="stumps", n_iter=4, early_stopping=False, scoring="objective",
                  random_state=0)
    model = DaskPushBoost(**params).fit(Xd, yd, sample_weight=wd, eval_set=[(Xd, yd)])
    np.testing.assert_allclose(model.evals_result_["training"]["objective"], model.objective_values_[1:],
                               rtol=1e-12)


def test_dask_only_the_training_data_as_eval_set_warns_and_does_not_stop(dask_client):  # noqa: F811
    # as in memory (and LightGBM): the training collection alone is watched, never stopped on
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), (rng.normal(size=200) > 0.5).astype(int)
    Xd, yd = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    params = dict(n_iter=20, thresholds=bin_edges(X, max_bins=16), early_stopping=True, n_iter_no_change=1,
                  scoring="ks", random_state=0)
    with pytest.warns(UserWarning, match="early stopping is off for this fit"):
        model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_set=[(Xd, yd)])
    assert model.n_iter_ == 20 and model.stop_reason_ == "n_iter"
    assert model.evals_result_["training"]["ks"].shape == (20,)


def test_dask_auto_on_large_data_with_only_the_training_data_fits_as_early_stopping_false(dask_client):  # noqa: F811
    # as in memory: "auto"'s large-data settings (n_iter=None: the learner's large-data count) assume a stop
    n = rankcore.push.AUTO_MIN_ROWS + 50
    X, y = _data(n, 5)
    Xd, yd = da.from_array(X, chunks=(n // 2 + 1, -1)), da.from_array(y, chunks=n // 2 + 1)
    params = dict(learner="stumps", thresholds=bin_edges(X, max_bins=8), random_state=0)
    with pytest.warns(UserWarning, match="early stopping is off for this fit"):
        model = DaskPushBoost(early_stopping="auto", **params).fit(Xd, yd, eval_set=[(Xd, yd)])
    off = DaskPushBoost(early_stopping=False, **params).fit(Xd, yd, eval_set=[(Xd, yd)])
    assert model.n_iter_ == off.n_iter_ and model.stop_reason_ == "n_iter"

"""DaskPushBoost with ``position_bias="em"`` (the click model) equals the in-memory click model.

On the shared 2-worker LocalCluster, a simulated click log with its queries interleaved across unequal chunks:
distributed, every EM round a Dask cross-entropy fit on the posterior relevance and θ summed over the chunks --
the same θ, rounds, trees and scores as in memory to 1e-9, as the other Dask query fits; on one worker, the
in-memory click model bit for bit.  What the click model cannot take is refused as in memory.  No part of Dask is
mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPNormPush, DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _query_data import logged_clicks  # noqa: E402

CHUNKS = (90, 41, 120, 49)
PARAMS = dict(n_iter=6, random_state=3, learner="trees:max_leaves=6,min_samples_leaf=3")


def _data(seed=0):
    X, clicks, qid, position, _ = logged_clicks(seed, n_queries=30)
    # the queries interleaved (each query's rows in their order): every query is split between chunks
    order = np.argsort(np.random.default_rng(seed).permutation(qid.size) % 7, kind="stable")
    return X[order], clicks[order], qid[order], position[order] + 1


def _dask(*arrays):
    return [da.from_array(a, chunks=(CHUNKS, -1) if a.ndim == 2 else (CHUNKS,)) for a in arrays]


def _assert_same_model(model, local, X):
    assert model.position_em_rounds_ == local.position_em_rounds_
    np.testing.assert_array_equal(model.position_ids_, local.position_ids_)
    np.testing.assert_allclose(model.position_propensities_, local.position_propensities_, rtol=1e-9, atol=1e-12)
    assert model.n_iter_ == local.n_iter_
    for a, b in zip(model.rankers_, local.rankers_):
        for field in ("feature", "threshold", "left", "right"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("spec, weighted", [("em:rounds=3", False), ("em:rounds=4", True)])
def test_distributed_click_model_equals_in_memory(dask_client, tmp_path, spec, weighted):
    X, clicks, qid, position = _data()
    w = np.random.default_rng(1).integers(1, 4, clicks.size).astype(np.float64) if weighted else None
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    wd = None if w is None else _dask(w)[0]
    model = DaskPushBoost(placement="distributed", position_bias=spec, **PARAMS)
    model.fit(Xd, yd, wd, qid=qd, position=pd_)
    local = rankcore.PushBoost(position_bias=spec, **PARAMS).fit(X, clicks, w, qid=qid, position=position)
    assert model.fit_info_["placement"] == "distributed" and model.fit_info_["workers"] == 2
    assert model.position_em_rounds_ == int(spec.split("=")[1])
    _assert_same_model(model, local, X)
    assert np.ptp(model.position_propensities_) > 0.1      # θ falls with the place: there was a bias to find
    # the saved model is the click model, as in memory
    path = tmp_path / "model.json"
    rankcore.save_model(model.to_local(), path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.position_propensities_, model.position_propensities_)
    assert loaded.position_em_rounds_ == model.position_em_rounds_


def test_the_rounds_stop_at_the_tolerance_as_in_memory(dask_client):
    X, clicks, qid, position = _data(1)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    spec = "em:rounds=20,tol=0.02"
    model = DaskPushBoost(placement="distributed", position_bias=spec, **PARAMS).fit(Xd, yd, qid=qd, position=pd_)
    local = rankcore.PushBoost(position_bias=spec, **PARAMS).fit(X, clicks, qid=qid, position=position)
    assert 1 < local.position_em_rounds_ < 20
    _assert_same_model(model, local, X)


def test_one_worker_click_model_is_the_in_memory_fit_bit_for_bit(dask_client):
    X, clicks, qid, position = _data(2)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    local = rankcore.PushBoost(n_jobs=1, position_bias="em:rounds=3", **PARAMS).fit(X, clicks, qid=qid,
                                                                                     position=position)
    one = DaskPushBoost(placement="one_worker", position_bias="em:rounds=3", **PARAMS).fit(Xd, yd, qid=qd,
                                                                                          position=pd_)
    assert one.fit_info_["placement"] == "one_worker"
    np.testing.assert_array_equal(one.decision_function(X), local.decision_function(X))
    np.testing.assert_array_equal(one.position_propensities_, local.position_propensities_)
    np.testing.assert_array_equal(one.position_ids_, local.position_ids_)
    assert one.position_em_rounds_ == local.position_em_rounds_ == 3


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
@pytest.mark.parametrize("change, message", [
    ({"qid": None}, "pass qid \\(or group\\) and position"),
    ({"position": None}, "position_bias='em' needs position"),
    ({"objective": "lambdarank"}, "objective='lambdarank': position_bias='em' refits"),
    ({"init_model": True}, "init_model: the model was fitted on one list"),
    ({"pnorm": True}, "DaskPNormPush's objective is fixed"),
])
def test_what_the_click_model_cannot_take_is_refused_as_in_memory(dask_client, placement, change, message):
    X, clicks, qid, position = _data(3)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    fit = {"qid": qd, "position": pd_}
    for name in ("qid", "position"):
        if name in change:
            fit[name] = change[name]
    if "init_model" in change:         # a model that ranks one list: the rounds rank within queries
        fit["init_model"] = rankcore.PushBoost(n_iter=2, learner="trees").fit(X, clicks)
    if "pnorm" in change:
        est = DaskPNormPush(placement=placement, position_bias="em", n_iter=2, learner="trees")
    else:
        est = DaskPushBoost(placement=placement, position_bias="em", n_iter=2, learner="trees",
                            objective=change.get("objective"))
    with pytest.raises(ValueError, match=message):
        est.fit(Xd, yd, **fit)


def test_labels_that_are_not_clicks_are_refused_naming_the_chunk(dask_client):
    X, clicks, qid, position = _data(4)
    grades = clicks.copy()
    grades[CHUNKS[0] + 5] = 2.0
    Xd, yd, qd, pd_ = _dask(X, grades, qid, position)
    est = DaskPushBoost(placement="distributed", position_bias="em", n_iter=2, learner="trees")
    with pytest.raises(ValueError, match=r"labels must be clicks, 0 or 1, got 2.0 at row 5 .*\(chunk 1, whose first "
                                         r"row is row 90"):
        est.fit(Xd, yd, qid=qd, position=pd_)


def test_a_chunk_without_clicks_is_fitted_and_a_log_without_clicks_refused(dask_client):
    """Whether the rows hold clicks and rows not clicked is a question of the whole log, not of a chunk's."""
    X, clicks, qid, position = _data(5)
    clicks = clicks.copy()
    clicks[:CHUNKS[0]] = 0.0                                  # the first chunk: no click
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    params = dict(PARAMS, position_bias="em:rounds=2")
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd, position=pd_)
    local = rankcore.boost(**params).fit(X, clicks, qid=qid, position=position)
    _assert_same_model(model, local, X)
    Xd, yd, qd, pd_ = _dask(X, np.zeros_like(clicks), qid, position)
    with pytest.raises(ValueError, match=rf"^y: position_bias='em' needs rows clicked and rows not clicked, got no "
                                         rf"click in {clicks.size} rows"):
        DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd, position=pd_)


@pytest.mark.parametrize("within_queries", [False, True])
def test_a_cross_entropy_fit_on_soft_labels_is_distributed_as_in_memory(dask_client, within_queries):
    # the rounds' objective on its own: cross-entropy's form on chunks (each row judged alone)
    X, clicks, qid, _ = _data(5)
    soft = np.clip(0.5 * clicks + 0.4 * np.random.default_rng(5).random(clicks.size), 0.0, 1.0)
    Xd, yd, qd = _dask(X, soft, qid)
    params = dict(PARAMS, objective="cross-entropy", early_stopping=False)
    fit = {"qid": qd} if within_queries else {}
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, **fit)
    local = rankcore.PushBoost(**params).fit(X, soft, **({"qid": qid} if within_queries else {}))
    assert model.fit_info_["path"] == "separable"
    assert model.n_iter_ == local.n_iter_ == 6
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(model.objective_values_, local.objective_values_, rtol=1e-9)

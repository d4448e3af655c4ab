"""DaskPushBoost fit with ``position`` (display positions of clicks) equals the in-memory fit with the same positions.

On a 2-worker LocalCluster, queries interleaved across unequal chunks (so the
positions move with their rows): one worker gives the in-memory model bit
for bit; the distributed fit -- each shard's place sums of the gradient and
curvature merged on the client, the effects stepped there -- the same trees,
α and effects to 1e-9, as the other Dask query fits.  Errors are the
in-memory fit's.  No part of Dask is mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _query_data import graded_queries, logged_clicks  # noqa: E402

CHUNKS = (90, 41, 120, 49)


def _data(seed=0):
    X, clicks, qid, position, grades = logged_clicks(seed, n_queries=30)
    # the queries interleaved (each query's rows in their order): every query is split between chunks
    order = np.argsort(np.random.default_rng(seed).permutation(qid.size) % 7, kind="stable")
    return X[order], clicks[order], qid[order], position[order] + 1, grades[order]


def _dask(*arrays):
    return [da.from_array(a, chunks=(CHUNKS, -1) if a.ndim == 2 else (CHUNKS,)) for a in arrays]


def _assert_same_model(model, local, X):
    assert model.n_iter_ == local.n_iter_
    for a, b in zip(model.rankers_, local.rankers_):
        if hasattr(a, "left"):
            for field in ("feature", "threshold", "left", "right"):
                np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
            np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
        else:
            assert a == b
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(model.position_ids_, local.position_ids_)
    np.testing.assert_allclose(model.position_effects_, local.position_effects_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.objective_values_, local.objective_values_, rtol=1e-9)


CASES = [
    dict(learner="trees:max_leaves=6,min_samples_leaf=3"),                       # the default push: 3 trips a tree
    dict(objective="lambdarank:5", learner="trees:max_leaves=4,min_samples_leaf=3"),
    dict(loss="exp", price="pow:2", learner="stumps:max_bins=16", position_l2=0.0),  # a line search at the new b
    dict(objective="yetirank:3", learner="trees:max_leaves=4,min_samples_leaf=3,line_search=true"),
]


@pytest.mark.parametrize("params", CASES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_distributed_fit_with_positions_equals_in_memory(dask_client, params):
    X, clicks, qid, position, _ = _data()
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    model = DaskPushBoost(placement="distributed", n_iter=6, random_state=3, **params)
    model.fit(Xd, yd, qid=qd, position=pd_)
    local = rankcore.PushBoost(n_iter=6, random_state=3, **params).fit(X, clicks, qid=qid, position=position)
    assert model.fit_info_["path"] == "separable"
    _assert_same_model(model, local, X)
    assert np.abs(model.position_effects_).max() > 0
    # positions given in memory (a NumPy array) give the same fit
    again = DaskPushBoost(placement="distributed", n_iter=6, random_state=3, **params)
    again.fit(Xd, yd, qid=qd, position=position)
    np.testing.assert_array_equal(again.position_effects_, model.position_effects_)


def test_round_trips_per_tree_with_and_without_positions(dask_client):
    X, clicks, qid, position, _ = _data(1)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    trips = {}
    for name, spec in (("push", {}), ("lambdarank", {"objective": "lambdarank:5"})):
        for given in (None, pd_):
            model = DaskPushBoost(placement="distributed", n_iter=4, random_state=0,
                                  learner="trees:max_leaves=4,min_samples_leaf=3", **spec)
            model.fit(Xd, yd, qid=qd, position=given)
            assert model.n_iter_ == 4
            trips[name, given is not None] = model.fit_info_["round_trips"]
    # the push's gradient reads the merged value: one more round trip an iteration for the place sums;
    # lambdarank's does not: its shards send their place sums with the partials
    assert trips["push", True] == trips["push", False] + 5
    assert trips["lambdarank", True] == trips["lambdarank", False]


def test_one_worker_fit_with_positions_is_the_in_memory_fit_bit_for_bit(dask_client):
    X, clicks, qid, position, _ = _data(2)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    params = dict(n_iter=5, random_state=3, learner="trees:max_leaves=6,min_samples_leaf=3", position_l2=0.5)
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, clicks, qid=qid, position=position)
    one = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd, qid=qd, position=pd_)
    assert one.fit_info_["placement"] == "one_worker"
    np.testing.assert_array_equal(one.decision_function(X), local.decision_function(X))
    np.testing.assert_array_equal(one.position_effects_, local.position_effects_)
    np.testing.assert_array_equal(one.position_ids_, local.position_ids_)
    assert one.get_params()["position_l2"] == 0.5


def test_early_stopping_on_an_eval_set_keeps_the_kept_trees_effects(dask_client, tmp_path):
    X, clicks, qid, position, _ = _data(3)
    X_val, _, qid_val, _, grades_val = logged_clicks(4, n_queries=20)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    params = dict(n_iter=25, early_stopping=True, n_iter_no_change=3, random_state=0,
                  learner="trees:max_leaves=6,min_samples_leaf=3")
    local = rankcore.PushBoost(**params).fit(X, clicks, qid=qid, position=position,
                                              eval_set=(X_val, grades_val, qid_val))
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd, position=pd_,
                                                                 eval_set=(X_val, grades_val, qid_val))
    assert model.n_iter_ < 25
    _assert_same_model(model, local, X)
    # the model file holds the effects, as in memory
    path = tmp_path / "model.json"
    rankcore.save_model(model.to_local(), path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.position_effects_, model.position_effects_)
    np.testing.assert_array_equal(loaded.position_ids_, model.position_ids_)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_errors_are_the_in_memory_fits(dask_client, placement):
    X, clicks, qid, position, _ = _data(5)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    est = DaskPushBoost(placement=placement, n_iter=2, learner="trees")
    with pytest.raises(ValueError, match=r"position: display positions are places within each query's list"):
        est.fit(Xd, yd, position=pd_)
    with pytest.raises(ValueError, match="position: expected one display position per row"):
        est.fit(Xd, yd, qid=qd, position=position[1:])
    with pytest.raises(ValueError, match="has no curvature"):
        DaskPushBoost(placement=placement, n_iter=2, learner="trees", loss="hinge").fit(Xd, yd, qid=qd,
                                                                                       position=pd_)
    bad = position.astype(np.float64)
    bad[7] = 1.5
    with pytest.raises(ValueError, match="position: expected integer display positions"):
        est.fit(Xd, yd, qid=qd, position=_dask(bad)[0])
    negative = position.copy()
    negative[200] = -1
    with pytest.raises(ValueError, match="position: display positions are integers >= 0"):
        est.fit(Xd, yd, qid=qd, position=_dask(negative)[0])


def test_a_refit_without_positions_keeps_no_effects(dask_client):
    X, clicks, qid, position, _ = _data(6)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    model = DaskPushBoost(placement="distributed", n_iter=2, learner="trees").fit(Xd, yd, qid=qd, position=pd_)
    assert hasattr(model, "position_effects_")
    model.fit(Xd, yd, qid=qd)
    assert not hasattr(model, "position_effects_") and not hasattr(model, "position_ids_")


def test_bad_values_in_several_chunks_name_the_first_chunk_every_time(dask_client):
    # the first chunk with a bad value is named, whatever order the chunks fail in (in memory: the first bad row)
    X, y, qid = graded_queries(0)
    position = np.tile(np.arange(10), qid.size // 10 + 1)[: qid.size].astype(float)
    chunks = (qid.size // 4, qid.size // 4, qid.size // 4, qid.size - 3 * (qid.size // 4))
    bad = position.copy()
    starts = np.r_[0, np.cumsum(chunks)[:-1]]
    bad[starts + 1] = np.nan                                    # one bad row in every chunk
    for _ in range(3):
        with pytest.raises(ValueError, match=r"row 1 has no display position .*\(chunk 0, whose first row is row 0"):
            DaskPushBoost(client=dask_client, learner="trees", n_iter=2, placement="distributed").fit(
                da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks=(chunks,)),
                qid=da.from_array(qid, chunks=(chunks,)), position=da.from_array(bad, chunks=(chunks,)))

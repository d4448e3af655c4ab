"""The trees' searches run on the first worker: one client round trip per tree, the per-pass protocol's trees.

``DaskBackend.lead_searches`` switches between the two protocols on the same
cluster: the first shard runs the whole search with the others
(``rankcore.dask._lead``), or the client runs it, one round trip per pass.
Both must give the same model bit for bit, and the in-memory one.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask._backend import DaskBackend  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from test_dask_fails_cleanly import _within_timeout  # noqa: E402

CHUNKS = (700, 300, 1200, 800)


def _data(n=3000, d=6, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = np.round(X[:, 3], 1)                      # ties
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return X, y


def _fit(X, y, spec, n_iter, *, lead: bool, monkeypatch):
    monkeypatch.setattr(DaskBackend, "lead_searches", lead)
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    return DaskPushBoost(placement="distributed", learner=spec, n_iter=n_iter, random_state=0).fit(Xd, yd)


def _assert_same_trees(a_model, b_model):
    assert [r.to_state() for r in a_model.rankers_] == [r.to_state() for r in b_model.rankers_]


@pytest.mark.parametrize("spec", [
    "trees",                                                           # leaf-wise, 31 leaves, subsample 0.8
    "trees:growth=depthwise,colsample=0.7",
    "trees:growth=oblivious,max_depth=3",
    "trees:line_search=false,max_leaves=8",
])
def test_the_lead_grows_the_per_pass_trees_in_one_round_trip_each(dask_client, monkeypatch, spec):  # noqa: F811
    X, y = _data()
    n_iter = 4
    lead = _fit(X, y, spec, n_iter, lead=True, monkeypatch=monkeypatch)
    per_pass = _fit(X, y, spec, n_iter, lead=False, monkeypatch=monkeypatch)
    local = rankcore.PushBoost(learner=spec, n_iter=n_iter, random_state=0).fit(X, y)
    assert lead.n_iter_ == per_pass.n_iter_ == local.n_iter_ == n_iter
    _assert_same_trees(lead, per_pass)
    np.testing.assert_array_equal(lead.alphas_, per_pass.alphas_)
    for a, b in zip(lead.rankers_, local.rankers_):
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
    np.testing.assert_allclose(lead.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)
    # the client waits once per tree, plus once for the initial objective and once to hand the lead its
    # peers; without a line search, also once per tree for the objective at the new scores (as in memory)
    info, before = lead.fit_info_, per_pass.fit_info_
    newton = "line_search=false" in spec
    assert info["round_trips"] == n_iter * (2 if newton else 1) + 2
    assert before["worker_passes"] == 0
    # the same passes, now between the workers: the per-pass protocol's trips less one per tree (its line
    # summary, or the objective's partials) and the initial objective
    assert info["worker_passes"] == before["round_trips"] - n_iter - 1
    assert info["worker_passes"] >= 2 * n_iter


def test_a_tree_the_lead_cannot_split_says_why_on_the_client(dask_client, monkeypatch):  # noqa: F811
    X, y = _data()
    spec = "trees:min_samples_leaf=2000"
    with pytest.warns(UserWarning, match="no_split") as lead_warnings:
        lead = _fit(X, y, spec, 3, lead=True, monkeypatch=monkeypatch)
    with warnings.catch_warnings(record=True) as local_warnings:
        warnings.simplefilter("always")
        local = rankcore.PushBoost(learner=spec, n_iter=3, random_state=0).fit(X, y)
    assert lead.stop_reason_ == local.stop_reason_ == "no_split"
    messages = [str(w.message) for w in local_warnings if "no_split" in str(w.message)]
    assert [str(w.message) for w in lead_warnings if "no_split" in str(w.message)] == messages
    assert "min_samples_leaf" in messages[0]


def test_a_peer_worker_lost_during_the_lead_search_is_a_clear_error():
    from distributed import Client, LocalCluster

    X, y = _data(n=1000)
    chunks = (250, 250, 250, 250)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="1GiB", silence_logs=50) as cluster, Client(cluster) as client:
        def kill_the_second_worker(info):
            if info.iteration == 1:
                pids = client.run(os.getpid)
                os.kill(pids[sorted(pids)[1]], 9)

        model = DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=20, client=client)
        Xd, yd = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,))
        with pytest.raises(RuntimeError, match="Dask worker holding training rows was lost during the fit"):
            _within_timeout(lambda: model.fit(Xd, yd, callbacks=[kill_the_second_worker]))

"""Fits ask the scheduler for its workers; they never read the client's cached identity.

``Client.scheduler_info()`` returns a cache that the client's periodic refresh
overwrites with cluster totals only (no workers), so a fit that read it could
see an empty cluster and place its shards on no worker (an ``IndexError`` seen
once in CI).  Here the cache is made to say "no workers" for the whole fit.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskExactBoost, DaskPushBoost  # noqa: E402
from rankcore.dask._workers import worker_info  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def _data(n=800, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.5).astype(float)
    return da.from_array(X, chunks=(n // 4, d)), da.from_array(y, chunks=n // 4)


@pytest.fixture
def cache_says_no_workers(dask_client, monkeypatch):  # noqa: F811
    stale = {"type": "Scheduler", "id": "stale", "workers": {}}
    monkeypatch.setattr(type(dask_client), "scheduler_info", lambda self, *a, **k: stale)
    return dask_client


@pytest.mark.parametrize("placement", ["distributed", "one_worker", "auto"])
def test_a_push_fit_does_not_depend_on_the_cached_identity(cache_says_no_workers, placement):
    X, y = _data()
    model = DaskPushBoost(placement=placement, learner="trees:max_leaves=4", n_iter=3,
                          early_stopping=False, random_state=0).fit(X, y)
    assert np.isfinite(np.asarray(model.decision_function(X))).all()


def test_an_exactboost_fit_does_not_depend_on_the_cached_identity(cache_says_no_workers):
    X, y = _data()
    model = DaskExactBoost(n_rounds=2, n_runs=2, random_state=0).fit(X, y)
    assert np.isfinite(np.asarray(model.decision_function(X))).all()


def test_worker_info_lists_every_worker_with_its_threads(dask_client):  # noqa: F811
    info = worker_info(dask_client)
    assert len(info) == 2
    assert all(int(w["nthreads"]) == 1 for w in info.values())


def test_worker_info_names_a_cluster_without_workers():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
        with pytest.raises(RuntimeError, match="has no workers"):
            worker_info(client)


def test_evaluate_and_bin_edges_on_a_cluster_without_workers_say_so_instead_of_waiting():
    # the fits refused such a cluster; evaluate and bin_edges handed it their tasks and waited for a worker forever
    from distributed import Client, LocalCluster

    from rankcore.dask import bin_edges, evaluate

    X, y = _data(n=40)
    scores = X[:, 0]
    qid = da.from_array(np.repeat(np.arange(4), 10), chunks=10)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
        for call in (lambda: evaluate(y, scores, "auc", client=client),
                     lambda: evaluate(y, scores, "ndcg@k:5", qid=qid, client=client),
                     lambda: bin_edges(X, client=client)):
            with pytest.raises(RuntimeError, match=r"has no workers: .* before (evaluating|binning)"):
                call()

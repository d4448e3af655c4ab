"""A distributed fit lets go of what it put on the cluster when it ends: its shard actors and their blocks.

Ended normally, by an error, or interrupted (Ctrl-C raises ``KeyboardInterrupt``
in the client's thread, as a callback raising it does here), the workers
hold no actor and the scheduler no more keys than before the fit, at once:
not only once the client's cyclic garbage collector has run, which a
quiet session may never do (it is disabled during these checks).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def _actors(dask_worker):
    return len(dask_worker.state.actors)


def _keys(dask_scheduler):
    return len(dask_scheduler.tasks)


def _data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(size=n) > 1.0).astype(int)
    return da.from_array(X, chunks=((700, 0, 300, n - 1000), 4)), da.from_array(y, chunks=((700, 0, 300, n - 1000),))


def _interrupt(info):
    if info.iteration >= 2:
        raise KeyboardInterrupt


def _fail(info):
    if info.iteration >= 2:
        raise RuntimeError("a callback's error")


@pytest.mark.parametrize("how", ["ends", "interrupted", "failed"])
def test_a_distributed_fit_releases_its_actors_when_it_ends(dask_client, how):  # noqa: F811
    X, y = _data()
    before = dask_client.run_on_scheduler(_keys)
    est = DaskPushBoost(learner="trees:max_leaves=4", n_iter=5, placement="distributed", random_state=0)
    fit = dict(ends=lambda: est.fit(X, y),
               interrupted=lambda: est.fit(X, y, callbacks=[_interrupt]),
               failed=lambda: est.fit(X, y, callbacks=[_fail]))[how]
    enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            fit()
        except (KeyboardInterrupt, RuntimeError):
            assert how != "ends"
        assert dask_client.run(_actors) == {w: 0 for w in dask_client.scheduler_info()["workers"]}
        assert dask_client.run_on_scheduler(_keys) <= before
    finally:
        if enabled:
            gc.enable()

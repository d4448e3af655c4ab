"""A Dask fit fails cleanly or fits correctly, never hangs: a lost worker, one-class and tiny chunks, NaN in X.

Each fit runs in a thread joined with a timeout, so a hang fails the test
instead of the suite.  The lost-worker test starts its own one-worker
LocalCluster (it kills the worker); the others use the shared one.
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

TIMEOUT = 120.0


def _within_timeout(func):
    """func()'s result, or its exception raised here; a test failure if it runs beyond TIMEOUT seconds."""
    outcome = {}

    def run():
        try:
            outcome["value"] = func()
        except BaseException as exc:            # handed to the test thread below
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), f"the fit did not end within {TIMEOUT} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _data(n=1000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] > 0.0)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    order = np.argsort(y, kind="stable")          # the first chunks hold negatives only, the last positives only
    return X[order], y[order]


def test_a_worker_lost_mid_fit_is_a_clear_error():
    from distributed import Client, LocalCluster

    X, y = _data()
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="1GiB", silence_logs=50) as cluster, Client(cluster) as client:
        def kill_a_worker(info):
            if info.iteration == 1:
                pid = next(iter(client.run(os.getpid).values()))
                os.kill(pid, 9)

        model = DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=20, client=client)
        Xd, yd = da.from_array(X, chunks=(250, -1)), da.from_array(y, chunks=250)
        with pytest.raises(RuntimeError, match="Dask worker holding training rows was lost during the fit"):
            _within_timeout(lambda: model.fit(Xd, yd, callbacks=[kill_a_worker]))


@pytest.mark.parametrize("chunks", [(1, 2, 0, 700, 3, 294), (997, 1, 1, 1)], ids=["tiny-and-empty", "one-large"])
def test_chunks_of_very_different_sizes_and_one_class_fit_the_in_memory_model(dask_client, chunks):  # noqa: F811
    X, y = _data()
    spec = "trees:max_leaves=8,min_samples_leaf=5"
    Xd, yd = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,))
    model = _within_timeout(lambda: DaskPushBoost(placement="distributed",
                                                  learner=spec, n_iter=5, random_state=1).fit(Xd, yd))
    local = rankcore.PushBoost(learner=spec, n_iter=5, random_state=1).fit(X, y)
    assert model.n_iter_ == local.n_iter_ == 5
    for a, b in zip(model.rankers_, local.rankers_):
        for field in ("feature", "threshold", "nan_left", "left", "right"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)


def test_nan_in_X_is_refused_by_name(dask_client):  # noqa: F811
    X, y = _data(n=400)
    X[123, 2] = np.nan
    Xd, yd = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    with pytest.raises(ValueError, match=r"X \(chunk 1\): missing values \(NaN\) are not supported on Dask, got NaN "
                                         r"at row 23, column 2"):
        _within_timeout(lambda: DaskPushBoost(placement="distributed", learner="trees", n_iter=2).fit(Xd, yd))


@pytest.mark.parametrize("learner", ["trees", "trees:max_depth=3", "stumps"])
def test_the_tags_refuse_nan_and_sparse_x_as_the_distributed_fit_does(learner):
    """The Dask push estimators inherited the in-memory tags: with the trees, allow_nan and sparse were True,
    though the distributed fit refuses both (above, and ``X sparse`` in test_dask_push.py)."""
    tags = DaskPushBoost(learner=learner).__sklearn_tags__()
    assert tags.input_tags.allow_nan is False and tags.input_tags.sparse is False
    assert rankcore.PushBoost(learner=learner).__sklearn_tags__().input_tags.allow_nan is learner.startswith("trees")


@pytest.mark.parametrize("placement", ["auto", "one_worker", "distributed"])
def test_a_category_column_is_refused_by_name(dask_client, placement):  # noqa: F811
    # a learner that does not split by category groups: on Dask such a column is refused, not read as its values
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=60), "cat": pd.Categorical(rng.choice([10, 20, 30], 60))})
    y = (frame["a"] > 0).astype(int)
    with pytest.raises(TypeError, match=r"^X: column 'cat' is a pandas 'category' column, which only the trees "
                                        r"learner splits \(by category groups\) on Dask; encode it as numbers"):
        DaskPushBoost(learner="stumps", n_iter=3, placement=placement).fit(dd.from_pandas(frame, npartitions=3),
                                                                            dd.from_pandas(y, npartitions=3))

"""A fit on one worker runs on all of that worker's threads, though Dask starts workers with OMP_NUM_THREADS=1.

A cluster of its own: one worker process of two threads.  The fit's
estimator sees ``n_jobs`` = 2 and the OpenMP limit 2 inside its fit (before
the limit was raised, ``effective_n_threads`` capped it at 1), and the model
is the in-memory one.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402


class _ThreadProbe:
    """An estimator whose fit records the threads its ``n_jobs`` gives (``effective_n_threads``)."""

    def __init__(self, n_jobs=None):
        self.n_jobs = n_jobs

    def get_params(self, deep=False):
        return {"n_jobs": self.n_jobs}

    def set_params(self, **params):
        self.__dict__.update(params)
        return self

    def fit(self, X, y, sample_weight=None, qid=None):
        import os

        from rankcore.validation import effective_n_threads

        self.threads_ = effective_n_threads(self.n_jobs)
        self.environ_ = os.environ.get("OMP_NUM_THREADS")
        return self


def _quiet_host():
    from rankcore import _cpus

    _cpus.LOAD_AWARE = False            # the worker's two threads whatever else the shared test machine runs


@pytest.fixture(scope="module")
def two_thread_worker():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None,
                           memory_limit="2GiB", silence_logs=40)
    client = Client(cluster, set_as_default=False)
    client.run(_quiet_host)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def test_the_fit_has_every_thread_of_its_worker(two_thread_worker):
    import cloudpickle

    from rankcore.dask._inputs import as_row_chunks
    from rankcore.dask._placement import fit_on_one_worker

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    data = as_row_chunks(da.from_array(X, chunks=(50, -1)), da.from_array(y, chunks=50))
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # the probe class travels by value
    try:
        fitted, _, threads = fit_on_one_worker(two_thread_worker, _ThreadProbe(), data, "bipartite", fit_kwargs={})
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert fitted.environ_ == "1"                       # Dask's setting, which the fit overrides
    assert (fitted.n_jobs, fitted.threads_, threads) == (2, 2, 2)


def test_the_model_is_the_in_memory_model(two_thread_worker):
    from rankcore.dask import DaskPushBoost

    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 4)).astype(np.float32)
    y = (X[:, 0] + rng.normal(size=400) > 1.0).astype(int)
    params = dict(learner="trees:max_leaves=6,min_samples_leaf=5", n_iter=5, random_state=2, early_stopping=False)
    model = DaskPushBoost(placement="one_worker", client=two_thread_worker, **params).fit(
        da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100))
    assert model.fit_info_["threads"] == 2
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), local.decision_function(X))

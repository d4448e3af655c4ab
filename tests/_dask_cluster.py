"""One real ``distributed.LocalCluster`` (2 worker processes) shared by the Dask test modules.

Import the fixture into a test module (``from _dask_cluster import dask_client``).
The cluster is started once per test session, on first use, and closed at
the end of the session; no part of Dask is mocked.
"""

from __future__ import annotations

import pytest

_STATE: dict = {}


def _start():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           memory_limit="2GiB", silence_logs=40)
    client = Client(cluster)
    _STATE.update(cluster=cluster, client=client)
    client.run(_warm_up)                # import rankcore's Dask modules on the workers once, here
    return client


def _warm_up():
    import rankcore.dask  # noqa: F401
    from rankcore.dask import _kernels, _shard  # noqa: F401


def _close():
    client, cluster = _STATE.pop("client", None), _STATE.pop("cluster", None)
    if client is not None:
        client.close()
    if cluster is not None:
        cluster.close()


@pytest.fixture(scope="session")
def dask_client(request):
    """A client of the shared 2-worker LocalCluster (the default client while it runs)."""
    pytest.importorskip("distributed")
    client = _STATE.get("client") or _start()
    request.addfinalizer(_close)
    return client


def register_everywhere(client, module: str, attr: str, name: str) -> None:
    """Register ``module.attr()`` as a rankcore plugin in this process and on every worker."""
    client.run(_register, module, attr, name)
    _register(module, attr, name)


def unregister_everywhere(client, name: str) -> None:
    client.run(_unregister, name)
    _unregister(name)


def _register(module, attr, name):
    import importlib

    from rankcore.registry import register_plugin

    register_plugin(getattr(importlib.import_module(module), attr)(), name=name)


def _unregister(name):
    from rankcore.registry import unregister_plugin

    unregister_plugin(name)


#: Small trees, few iterations: a fit of a few hundred rows in milliseconds, on Dask and in memory alike.
SMALL_TREES = dict(learner="trees:max_leaves=6,min_samples_leaf=5", n_iter=5, random_state=2, early_stopping=False)


def small_chunked_data(n=500, seed=0):
    """(X, y, X as 4 Dask chunks, y as 4 Dask chunks): float32 X of 4 columns, y from the first column and noise."""
    import dask.array as da
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).astype(np.float32)
    y = (X[:, 0] + rng.normal(size=n) > 1.0).astype(int)
    return X, y, da.from_array(X, chunks=(n // 4, -1)), da.from_array(y, chunks=n // 4)

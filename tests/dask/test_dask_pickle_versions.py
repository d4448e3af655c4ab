"""Dask pickles models to its workers and back: the same rankcore on both ends, no PickleVersionWarning."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import SMALL_TREES, dask_client  # noqa: E402,F401


def _unpickled_on_a_worker(data: bytes) -> list:
    """The warnings a worker sees unpickling ``data``, and the version it runs."""
    import rankcore as here

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pickle.loads(data)
    return [here.__version__] + [w.category.__name__ for w in caught]


def test_models_travel_to_the_workers_and_back_without_a_version_warning(dask_client):  # noqa: F811
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)).astype(np.float32)
    y = (X[:, 0] + rng.normal(size=300) > 0.5).astype(int)
    Xd, yd = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankcore.PickleVersionWarning)
        model = DaskPushBoost(placement="one_worker", **SMALL_TREES).fit(Xd, yd)      # there and back
        local = model.to_local()
        back = pickle.loads(pickle.dumps(model))
    assert back.client is None
    np.testing.assert_array_equal(back.decision_function(X), local.decision_function(X))
    assert dask_client.submit(_unpickled_on_a_worker, pickle.dumps(local), pure=False).result() == [
        rankcore.__version__]

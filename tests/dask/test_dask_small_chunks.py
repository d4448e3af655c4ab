"""Many small chunks: a distributed fit says why it is slow and how to rechunk, and fits the same model."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask._inputs import MANY_CHUNKS  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def _data(n=660):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + rng.normal(size=n) > 0.5).astype(float)


def test_many_small_chunks_are_warned_of_with_the_rechunk_advice(dask_client):
    X, y = _data()
    params = dict(placement="distributed", n_iter=2, random_state=0, learner="stumps")
    small = da.from_array(X, chunks=(10, -1))               # 66 chunks of 10 rows
    assert small.numblocks[0] > MANY_CHUNKS
    with pytest.warns(UserWarning, match=r"X: 66 chunks of 10 rows on average.*X\.rechunk\(\{0: 65536\}\)"):
        model = DaskPushBoost(**params).fit(small, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # 11 chunks of 60 rows: not many
        few = DaskPushBoost(**params).fit(da.from_array(X, chunks=(60, -1)), y)
    np.testing.assert_allclose(model.decision_function(X), few.decision_function(X), rtol=1e-9, atol=1e-12)


"""In-memory inputs to a Dask fit go to the workers as data (scattered), not embedded in a task graph.

A graph embedding X is unpacked into tasks by the scheduler, and Dask warns
of a large graph (10 MB by default; lowered here so that small data shows
it); scattered, each chunk is sent to a worker as data. The chunks stay as
they were, empty ones too, aligned with a Dask X's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask._inputs import as_row_chunks  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

CHUNKS = (700, 0, 300, 1000)


def _data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    y = (X[:, 0] + rng.normal(size=n) > 1.0).astype(int)
    return X, y


def test_in_memory_rows_travel_as_data_not_as_a_graph(dask_client):  # noqa: F811
    X, y = _data()
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": f"{X.nbytes // 4}B"}):
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*large graph", category=UserWarning)
            data = as_row_chunks(X, y).persist_if_local(dask_client)
    assert np.array_equal(data.X.compute(), X) and np.array_equal(data.y.compute(), y)
    assert data.from_memory == (False, False, False)


def test_an_in_memory_y_keeps_the_empty_chunk_of_a_dask_x(dask_client):  # noqa: F811
    X, y = _data()
    data = as_row_chunks(da.from_array(X, chunks=(CHUNKS, -1)), y).persist_if_local(dask_client)
    assert data.y.chunks == (CHUNKS,) and data.X.chunks[0] == CHUNKS
    assert np.array_equal(data.y.compute(), y)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_in_memory_inputs_fit_the_in_memory_model(dask_client, placement):  # noqa: F811
    X, y = _data()
    params = dict(learner="trees:max_leaves=4", n_iter=4, random_state=0)
    dask_fit = DaskPushBoost(placement=placement, **params).fit(da.from_array(X, chunks=(CHUNKS, -1)), y)
    local = rankcore.PushBoost(**params).fit(X, y)
    np.testing.assert_allclose(dask_fit.to_local().decision_function(X), local.decision_function(X),
                               rtol=1e-9, atol=1e-12)

"""The placement's run count at its thresholds: the model within queries is the in-memory fit's whatever the runs.

``MIN_RUNS`` and ``MIN_RUN_ROWS`` are shrunk (monkeypatch) so that a few hundred rows cross them: 7, 8, 9 and 12
chunks given, the rows just below, at and above ``MIN_RUNS`` x ``MIN_RUN_ROWS``.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask import _queries  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _query_data import graded_queries  # noqa: E402

N = 320


def _chunks(k: int) -> tuple:
    base = [N // k] * k
    base[-1] += N - sum(base)
    return tuple(base)


@pytest.mark.parametrize("n_chunks", [7, 8, 9, 12])
@pytest.mark.parametrize("min_run_rows", [41, 40, 39])       # 8 x 40 = N: runs by rows just below, at, above 8
def test_runs_around_the_thresholds_fit_the_in_memory_model(dask_client, monkeypatch, n_chunks, min_run_rows):
    monkeypatch.setattr(_queries, "MIN_RUN_ROWS", min_run_rows)
    X, y, qid = graded_queries(5, n_queries=40, rows=(6, 16))
    X, y, qid = X[:N], y[:N], qid[:N]
    order = np.random.default_rng(2).permutation(N)          # every query split between chunks
    X, y, qid = X[order], y[order], qid[order]
    chunks = _chunks(n_chunks)
    Xd, yd, qd = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,)), \
        da.from_array(qid, chunks=(chunks,))
    wanted = max(8, -(-N // min_run_rows))
    assert _queries.run_count(N, n_chunks) == min(n_chunks, wanted)
    expected = min(n_chunks, wanted + wanted % 2)             # on the fixture's 2 workers: a multiple of 2
    params = dict(n_iter=4, random_state=3, learner="trees:max_leaves=4,min_samples_leaf=3")
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
    local = rankcore.PushBoost(**params).fit(X, y, qid=qid)
    assert model.fit_info_["chunks"] == expected
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)


def test_runs_are_never_fewer_than_the_workers_nor_shared_unevenly(dask_client, monkeypatch):
    # MIN_RUNS runs on a cluster of more workers left the others without rows for the whole fit (8 shards on 16
    # workers); here 1 run on the fixture's 2 workers
    monkeypatch.setattr(_queries, "MIN_RUNS", 1)
    monkeypatch.setattr(_queries, "MIN_RUN_ROWS", 10 * N)
    X, y, qid = graded_queries(5, n_queries=40, rows=(6, 16))
    X, y, qid = X[:N], y[:N], qid[:N]
    order = np.random.default_rng(4).permutation(N)
    X, y, qid = X[order], y[order], qid[order]
    Xd, yd, qd = (da.from_array(a, chunks=(_chunks(5),) + ((-1,) if a.ndim == 2 else ())) for a in (X, y, qid))
    params = dict(n_iter=3, random_state=3, learner="trees:max_leaves=4,min_samples_leaf=3")
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
    assert (model.fit_info_["chunks"], model.fit_info_["workers"]) == (2, 2)
    local = rankcore.PushBoost(**params).fit(X, y, qid=qid)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)
    # a multiple of the workers, never more runs than chunks given
    assert [_queries.run_count(1_000, 40, w) for w in (1, 2, 3, 16, 64)] == [1, 2, 3, 16, 40]
    monkeypatch.setattr(_queries, "MIN_RUNS", 8)
    assert [_queries.run_count(1_000, 40, w) for w in (1, 3, 5)] == [8, 9, 10]

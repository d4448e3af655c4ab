"""Huge learning rates on Dask's distributed (separable) path: the same named overflow stop as in memory.

The shards check the gradient they compute and the step they apply; a FloatingPointError raised there reaches
the client's driver, which stops with ``stop_reason_ = "overflow"`` instead of "converged" (the per-query push's
overflowed gradient left the trees no split) or "scores: must be finite" (an objective without a value).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _query_data import graded_queries  # noqa: E402

CHUNKS = (90, 41, 120, 77)


@pytest.mark.parametrize("objective, rate", [(None, "30"), (None, "1e10"), ("lambdarank", "1e308"),
                                             ("xendcg", "1e308")])
def test_dask_huge_learning_rate_stops_with_overflow_as_in_memory(dask_client, objective, rate):
    X, y, qid = graded_queries(0, n_queries=32, rows=(6, 18))
    n = sum(CHUNKS)
    X, y, qid = X[:n], y[:n], qid[:n]
    Xd = da.from_array(X, chunks=(CHUNKS, -1))
    yd, qd = (da.from_array(a, chunks=(CHUNKS,)) for a in (y, qid))
    params = dict(learner=f"trees:learning_rate={rate}", random_state=0, n_iter=30)
    if objective is not None:
        params["objective"] = objective
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
        local = rankcore.PushBoost(**params).fit(X, y, qid=qid)
    assert model.fit_info_["path"] == "separable"
    runtime = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(runtime) == 2 and all("stop_reason_ = 'overflow'" in m for m in runtime)
    assert model.stop_reason_ == local.stop_reason_ == "overflow"
    assert model.n_iter_ == local.n_iter_
    assert np.isfinite(model.decision_function(X)).all()

"""``trees:leaf_newton_steps`` on Dask: the in-memory backend takes the steps (one worker), the distributed
placement refuses them with an error naming the option."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import SMALL_TREES, dask_client, small_chunked_data  # noqa: E402,F401

PARAMS = SMALL_TREES
_data = small_chunked_data


def test_leaf_newton_steps_run_on_one_worker_and_are_refused_distributed(dask_client):  # noqa: F811
    """``trees:leaf_newton_steps`` needs the in-memory backend: on one worker it is the in-memory fit; the
    distributed placement refuses it with an error naming the option."""
    X, y, Xd, yd = _data(seed=3)
    params = dict(PARAMS, learner="trees:max_leaves=6,min_samples_leaf=5,leaf_newton_steps=2")
    model = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd)
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), local.decision_function(X))
    with pytest.raises(ValueError, match="leaf_newton_steps=2"):
        DaskPushBoost(placement="distributed", **params).fit(Xd, yd)


def test_bagging_by_query_runs_on_one_worker_and_is_refused_distributed(dask_client):  # noqa: F811
    """``trees:bagging_unit=query`` weighs each query: on one worker it is the in-memory fit; the distributed
    placement (whose blocks do not know their rows' queries) refuses it with an error naming the option."""
    X, y, Xd, yd = _data(seed=4)
    qid = np.repeat(np.arange(25), 20)
    qd = da.from_array(qid, chunks=125)
    y = (X[:, 0] > 0.3).astype(int) + (X[:, 1] > 0.5)
    yd = da.from_array(y, chunks=125)
    params = dict(PARAMS, learner="trees:max_leaves=6,min_samples_leaf=5,bagging_temperature=1,bagging_unit=query")
    model = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd, qid=qd)
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, qid=qid)
    np.testing.assert_array_equal(model.decision_function(X), local.decision_function(X))
    with pytest.raises(ValueError, match="bagging_unit='query'"):
        DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)

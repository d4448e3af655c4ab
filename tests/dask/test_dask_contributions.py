"""``feature_contributions`` of Dask-fitted trees: covers summed over the chunks, lazy per-chunk TreeSHAP values."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

CHUNKS = (100, 37, 200, 163, 100)


def _data(n=600, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = np.round(X[:, 3], 1)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return X, y


@pytest.mark.parametrize("spec", ["trees:max_leaves=6,min_samples_leaf=5,subsample=0.7",
                                  "trees:growth=oblivious,max_depth=3,min_samples_leaf=5"])
def test_distributed_fit_records_the_in_memory_covers(dask_client, spec):
    X, y = _data()
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    model = DaskPushBoost(placement="distributed", loss="exp", price="pow:4", learner=spec, n_iter=5,
                          random_state=3).fit(Xd, yd)
    local = rankcore.PushBoost(loss="exp", price="pow:4", learner=spec, n_iter=5, random_state=3).fit(X, y)
    for a, b in zip(model.rankers_, local.rankers_):
        np.testing.assert_array_equal(a.cover, b.cover)
    lazy = model.feature_contributions(Xd)
    assert lazy.shape == (X.shape[0], X.shape[1] + 1)
    np.testing.assert_array_equal(lazy.compute(), model.feature_contributions(X))
    np.testing.assert_allclose(lazy.compute(), local.feature_contributions(X), rtol=1e-9, atol=1e-9)


def test_a_learner_without_trees_is_refused_before_computing(dask_client):
    X, y = _data()
    model = DaskPushBoost(learner="stumps", n_iter=2, random_state=0).fit(da.from_array(X, chunks=(300, -1)),
                                                                          da.from_array(y, chunks=300))
    with pytest.raises(TypeError, match="learner 'stumps'"):
        model.feature_contributions(da.from_array(X, chunks=(300, -1)))

"""``apply`` of Dask-fitted trees: a lazy int32 Dask array of each chunk's leaves, the in-memory leaves."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

CHUNKS = (100, 37, 200, 163, 100)


def _data(n=600, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)            # ties
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return X, y


@pytest.mark.parametrize("spec", ["trees:max_leaves=6,min_samples_leaf=5",
                                  "trees:growth=oblivious,max_depth=3,min_samples_leaf=5"])
def test_lazy_leaves_are_the_in_memory_leaves(dask_client, spec):
    X, y = _data()
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    model = DaskPushBoost(learner=spec, n_iter=5, random_state=3).fit(Xd, yd)
    lazy = model.apply(Xd)
    assert isinstance(lazy, da.Array) and lazy.dtype == np.int32 and lazy.shape == (X.shape[0], 5)
    leaves = lazy.compute()
    assert isinstance(leaves, np.ndarray) and leaves.dtype == np.int32
    np.testing.assert_array_equal(leaves, model.apply(X))
    np.testing.assert_array_equal(leaves, model.to_local().apply(X))
    s = np.zeros(X.shape[0])
    for t, (ranker, alpha) in enumerate(zip(model.rankers_, model.alphas_)):
        s = s + alpha * ranker.value[leaves[:, t]]
    np.testing.assert_array_equal(s, model.decision_function(X))
    frame = dd.from_pandas(pd.DataFrame(X, columns=[f"x{j}" for j in range(5)]), npartitions=3)
    np.testing.assert_array_equal(model.apply(frame).compute(), leaves)
    assert isinstance(model.apply(X), np.ndarray)


def test_a_learner_without_trees_is_refused_before_computing(dask_client):
    X, y = _data()
    model = DaskPushBoost(learner="stumps", n_iter=2, random_state=0).fit(da.from_array(X, chunks=(300, -1)),
                                                                          da.from_array(y, chunks=300))
    with pytest.raises(TypeError, match="apply: the learner 'stumps'"):
        model.apply(da.from_array(X, chunks=(300, -1)))
    with pytest.raises(ValueError, match="expected 5 features"):
        DaskPushBoost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(
            da.from_array(X, chunks=(300, -1)), da.from_array(y, chunks=300)).apply(da.from_array(X[:, :4]))


def test_unfitted_is_refused(dask_client):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        rankcore.dask.DaskPushBoost(learner="trees").apply(da.zeros((4, 2)))


def test_missing_values_in_rows_to_score_are_routed_as_in_memory(dask_client):  # noqa: F811
    # fitting on Dask refuses NaN, but a model of trees routes it: scores, contributions and leaves of rows with
    # missing values are the in-memory ones; a learner that does not route NaN still refuses it
    X, y = _data()
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    model = DaskPushBoost(learner="trees:max_leaves=6,min_samples_leaf=5", n_iter=5, random_state=3).fit(Xd, yd)
    holes = X.copy()
    holes[::11, 1] = np.nan
    lazy = da.from_array(holes, chunks=(CHUNKS, -1))
    local = model.to_local()
    np.testing.assert_array_equal(model.decision_function(lazy).compute(), local.decision_function(holes))
    np.testing.assert_array_equal(model.feature_contributions(lazy).compute(), local.feature_contributions(holes))
    np.testing.assert_array_equal(model.apply(lazy).compute(), local.apply(holes))
    stumps = DaskPushBoost(learner="stumps", n_iter=3, random_state=0).fit(Xd, yd)
    with pytest.raises(ValueError, match="NaN"):
        stumps.decision_function(lazy).compute()

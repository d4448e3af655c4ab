"""``feature_interactions`` of Dask-fitted trees: lazy per-chunk SHAP interaction values, the chunk size bound."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

CHUNKS = (100, 37, 200, 163, 100)


def _data(n=600, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = np.round(X[:, 3], 1)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    return X, y


@pytest.mark.parametrize("spec", ["trees:max_leaves=6,min_samples_leaf=5", "trees:growth=oblivious,max_depth=3"])
def test_lazy_chunks_give_the_in_memory_values(dask_client, spec):
    X, y = _data()
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    model = DaskPushBoost(learner=spec, n_iter=4, random_state=3).fit(Xd, yd)
    X[::9, 0] = np.nan                                      # explained rows may miss values: the trees route NaN
    Xd = da.from_array(X, chunks=(CHUNKS, -1))
    lazy = model.feature_interactions(Xd)
    assert lazy.shape == (X.shape[0], X.shape[1] + 1, X.shape[1] + 1)
    in_memory = model.feature_interactions(X)
    # the oblivious trees' cells are looked up in a chunk as in memory: the same bits either way
    np.testing.assert_array_equal(lazy.compute(), in_memory)
    np.testing.assert_allclose(in_memory.sum(axis=2), model.feature_contributions(X), rtol=1e-9, atol=1e-12)


def test_a_chunk_too_large_and_a_learner_without_trees_are_refused_before_computing(dask_client):
    X, y = _data()
    Xd, yd = da.from_array(X, chunks=(300, -1)), da.from_array(y, chunks=300)
    model = DaskPushBoost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(Xd, yd)
    with pytest.raises(ValueError, match=r"largest chunk of X's rows: rechunk them\): the output of 300 rows"):
        model.feature_interactions(Xd, max_bytes=300 * 36 * 8 - 1)
    assert model.feature_interactions(Xd, max_bytes=300 * 36 * 8).shape == (600, 6, 6)
    stumps = DaskPushBoost(learner="stumps", n_iter=2, random_state=0).fit(Xd, yd)
    with pytest.raises(TypeError, match="feature_interactions: the learner 'stumps'"):
        stumps.feature_interactions(Xd)


def test_a_dataframe_partition_too_large_is_refused_before_computing(dask_client):
    """A Dask DataFrame's partitions have unknown sizes: they are counted, and the largest is checked up front."""
    import dask.dataframe as dd
    import pandas as pd

    X, y = _data()
    frame = dd.from_pandas(pd.DataFrame(X, columns=list("abcde")), npartitions=3)
    model = DaskPushBoost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(frame, dd.from_pandas(
        pd.Series(y), npartitions=3))
    with pytest.raises(ValueError, match=r"largest chunk of X's rows: rechunk them\): the output of 200 rows"):
        model.feature_interactions(frame, max_bytes=1000)
    lazy = model.feature_interactions(frame, max_bytes=200 * 36 * 8)
    np.testing.assert_array_equal(lazy.compute(), model.feature_interactions(pd.DataFrame(X, columns=list("abcde"))))

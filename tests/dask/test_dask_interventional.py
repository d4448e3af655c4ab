"""``feature_contributions(X, background=...)`` of Dask push estimators: lazy per chunk, the in-memory values."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _dask_explained_data import CHUNKS, explained_data as _data  # noqa: E402


@pytest.mark.parametrize("spec", ["trees:max_leaves=6,min_samples_leaf=5",
                                  "trees:growth=oblivious,max_depth=3,min_samples_leaf=5"])
def test_lazy_chunks_give_the_in_memory_values(dask_client, spec):
    X, y = _data()
    fit_rows = da.from_array(np.nan_to_num(X), chunks=(CHUNKS, -1))         # a Dask fit takes no NaN; scoring does
    model = DaskPushBoost(learner=spec, n_iter=5, random_state=0).fit(fit_rows, da.from_array(y, chunks=(CHUNKS,)))
    Xd = da.from_array(X, chunks=(CHUNKS, -1))
    Z = X[:25]
    assert np.isnan(Z).any()
    lazy = model.feature_contributions(Xd, background=Z)
    assert lazy.shape == (X.shape[0], X.shape[1] + 1)
    local = model.to_local()
    np.testing.assert_array_equal(lazy.compute(), local.feature_contributions(X, background=Z))
    from_dask = model.feature_contributions(Xd, background=da.from_array(Z, chunks=(10, -1))).compute()
    np.testing.assert_array_equal(from_dask, lazy.compute())


def test_a_bad_background_is_refused_before_computing(dask_client):
    X, y = _data()
    Xd = da.from_array(np.nan_to_num(X), chunks=(CHUNKS, -1))
    model = DaskPushBoost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(Xd, da.from_array(y, chunks=(
        CHUNKS,)))
    with pytest.raises(ValueError, match="background has 3 features"):
        model.feature_contributions(Xd, background=np.ones((2, 3)))
    with pytest.raises(ValueError, match="background: expected at least 1 row"):
        model.feature_contributions(Xd, background=np.empty((0, 4)))


@pytest.mark.parametrize("spec", ["trees:max_leaves=6,min_samples_leaf=5",
                                  "trees:growth=oblivious,max_depth=3,min_samples_leaf=5"])
def test_lazy_chunks_of_groups_give_the_in_memory_values(dask_client, spec):
    X, y = _data()
    fit_rows = da.from_array(np.nan_to_num(X), chunks=(CHUNKS, -1))
    model = DaskPushBoost(learner=spec, n_iter=5, random_state=0).fit(fit_rows, da.from_array(y, chunks=(CHUNKS,)))
    Xd, Z, groups = da.from_array(X, chunks=(CHUNKS, -1)), X[:25], np.array([1, 0, 1, 2])
    lazy = model.feature_contributions(Xd, background=Z, groups=groups)
    assert lazy.shape == (X.shape[0], 4) and lazy.chunks[1] == (4,)
    local = model.to_local().feature_contributions(X, background=Z, groups=groups)
    np.testing.assert_array_equal(lazy.compute(), local)
    np.testing.assert_allclose(local.sum(axis=1), model.to_local().decision_function(X), rtol=1e-9, atol=1e-12)


def test_groups_are_refused_before_computing(dask_client):
    X, y = _data()
    Xd = da.from_array(np.nan_to_num(X), chunks=(CHUNKS, -1))
    model = DaskPushBoost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(Xd, da.from_array(y, chunks=(
        CHUNKS,)))
    with pytest.raises(ValueError, match="groups: only with background rows"):
        model.feature_contributions(Xd, groups=np.array([0, 0, 1, 1]))
    with pytest.raises(TypeError, match="list of lists"):
        model.feature_contributions(Xd, background=X[:3], groups=[[0, 1], [2, 3]])

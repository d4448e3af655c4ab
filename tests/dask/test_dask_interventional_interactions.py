"""``feature_interactions(X, background=...)`` of Dask push estimators: lazy per chunk, the in-memory values."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _dask_explained_data import CHUNKS, explained_data as _data  # noqa: E402


def _fit(spec, X, y):
    fit_rows = da.from_array(np.nan_to_num(X), chunks=(CHUNKS, -1))         # a Dask fit takes no NaN; scoring does
    return DaskPushBoost(learner=spec, n_iter=5, random_state=0).fit(fit_rows, da.from_array(y, chunks=(CHUNKS,)))


@pytest.mark.parametrize("spec", ["trees:max_leaves=6,min_samples_leaf=5",
                                  "trees:growth=oblivious,max_depth=3,min_samples_leaf=5"])
def test_lazy_chunks_give_the_in_memory_values(dask_client, spec):
    X, y = _data()
    model = _fit(spec, X, y)
    Xd = da.from_array(X, chunks=(CHUNKS, -1))
    Z = X[:25]
    assert np.isnan(Z).any()
    lazy = model.feature_interactions(Xd, background=Z)
    assert lazy.shape == (X.shape[0], X.shape[1] + 1, X.shape[1] + 1)
    in_memory = model.to_local().feature_interactions(X, background=Z)
    np.testing.assert_array_equal(lazy.compute(), in_memory)
    from_dask = model.feature_interactions(Xd, background=da.from_array(Z, chunks=(10, -1))).compute()
    np.testing.assert_array_equal(from_dask, in_memory)
    np.testing.assert_allclose(in_memory.sum(axis=2), model.to_local().feature_contributions(X, background=Z),
                               rtol=1e-9, atol=1e-12)
    grouped = model.feature_interactions(Xd, background=Z, groups=[0, 1, 0, 2])
    assert grouped.shape == (X.shape[0], 4, 4)
    np.testing.assert_array_equal(grouped.compute(), model.to_local().feature_interactions(X, background=Z,
                                                                                           groups=[0, 1, 0, 2]))


def test_a_bad_background_and_a_chunk_too_large_are_refused_before_computing(dask_client):
    X, y = _data()
    model = _fit("trees:max_leaves=4", X, y)
    Xd = da.from_array(np.nan_to_num(X), chunks=(CHUNKS, -1))
    with pytest.raises(ValueError, match="background has 3 features"):
        model.feature_interactions(Xd, background=np.ones((2, 3)))
    with pytest.raises(ValueError, match="background: expected at least 1 row"):
        model.feature_interactions(Xd, background=np.empty((0, 4)))
    with pytest.raises(ValueError, match=r"largest chunk of X's rows: rechunk them\): the output of 163 rows"):
        model.feature_interactions(Xd, background=X[:5], max_bytes=1000)
    with pytest.raises(ValueError, match="groups: only with background rows"):
        model.feature_interactions(Xd, groups=[0, 0, 1, 1])


def test_dask_auto_ranker_computes_collections_to_the_client(dask_client):
    """DaskAutoRanker's model is in memory on the client: X and a background given as Dask collections are
    computed there, the values the in-process AutoRanker's."""
    import rankcore
    from rankcore.dask import DaskAutoRanker

    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.6 * rng.normal(size=150) > 0.5).astype(int)
    params = dict(candidates=["trees:n_iter=5"], random_state=5, n_jobs=1)
    remote = DaskAutoRanker(client=dask_client, **params).fit(X, y)
    local = rankcore.AutoRanker(**params).fit(X, y)
    Phi = remote.feature_interactions(da.from_array(X, chunks=(50, -1)), background=da.from_array(X[:20],
                                                                                                   chunks=(10, -1)))
    np.testing.assert_array_equal(Phi, local.feature_interactions(X, background=X[:20]))
    np.testing.assert_allclose(Phi.sum(axis=2), local.feature_contributions(X, background=X[:20]), rtol=1e-9,
                               atol=1e-12)

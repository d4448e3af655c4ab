"""DaskExactBoost: ExactBoost's runs on a real 2-worker LocalCluster, identical to the in-memory fit."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")     # rankcore.dask needs the [dask] extra
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskExactBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def _data(n=240, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.8, size=n) > 0.6).astype(int)
    return X, y


@pytest.mark.parametrize("metric", ["auc", "prec@k:20"])
def test_dask_exactboost_runs_equal_the_in_memory_fit(dask_client, metric):
    X, y = _data()
    params = dict(metric=metric, n_runs=9, n_rounds=6, random_state=3, max_boxes=32)
    model = DaskExactBoost(**params).fit(da.from_array(X, chunks=(60, -1)), da.from_array(y, chunks=60))
    local = rankcore.ExactBoost(**params).fit(X, y)
    np.testing.assert_array_equal(model.stumps_, local.stumps_)
    np.testing.assert_array_equal(model.run_lengths_, local.run_lengths_)
    np.testing.assert_array_equal(model.train_loss_, local.train_loss_)
    assert model.n_evaluations_ == local.n_evaluations_
    # prec@k: the tail ensemble's runs travel to the workers too
    assert (local.tail_stumps_ is None) == (metric == "auc")
    if local.tail_stumps_ is not None:
        np.testing.assert_array_equal(model.tail_stumps_, local.tail_stumps_)
        assert model.head_threshold_ == local.head_threshold_
    scores = model.decision_function(da.from_array(X, chunks=(50, -1)))
    assert isinstance(scores, da.Array)
    np.testing.assert_array_equal(scores.compute(), local.decision_function(X))
    again = model.to_local()
    assert type(again) is rankcore.ExactBoost
    np.testing.assert_array_equal(again.decision_function(X), local.decision_function(X))


def test_dask_exactboost_batches_do_not_change_the_model(dask_client, tmp_path):
    X, y = _data(seed=1)
    params = dict(n_runs=7, n_rounds=4, random_state=11, max_boxes=16)
    one = DaskExactBoost(batches_per_worker_thread=1, **params).fit(X, y)
    many = DaskExactBoost(batches_per_worker_thread=4, **params).fit(X, y)
    np.testing.assert_array_equal(one.stumps_, many.stumps_)
    rankcore.save_model(many.to_local(), tmp_path / "eb.json")
    loaded = rankcore.load_model(tmp_path / "eb.json")
    np.testing.assert_array_equal(loaded.decision_function(X), one.decision_function(X))
    from sklearn.base import clone

    twin = clone(DaskExactBoost(client=dask_client, **params))
    assert twin.client is dask_client and twin.get_params()["n_runs"] == 7
    with pytest.raises(ValueError, match="batches_per_worker_thread"):
        DaskExactBoost(batches_per_worker_thread=0, **params).fit(X, y)


@pytest.mark.filterwarnings("ignore:Dask currently has limited support for converting pandas extension dtypes")
def test_dask_exactboost_dataframe_input_and_bad_input(dask_client):
    import dask.dataframe as dd
    import pandas as pd

    X, y = _data(seed=2)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    params = dict(n_runs=4, n_rounds=3, random_state=5, max_boxes=16)
    model = DaskExactBoost(**params).fit(dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), 3))
    local = rankcore.ExactBoost(**params).fit(frame, y)
    np.testing.assert_array_equal(model.stumps_, local.stumps_)
    assert list(model.feature_names_in_) == list(frame.columns)
    scores = model.decision_function(dd.from_pandas(frame, npartitions=2))
    assert isinstance(scores, da.Array)
    np.testing.assert_array_equal(scores.compute(), local.decision_function(frame))
    with pytest.raises(ValueError, match="columns"):
        model.decision_function(dd.from_pandas(frame.rename(columns={"c0": "z"}), npartitions=2))
    with pytest.raises(ValueError, match=r"X: expected 6 features \(as in fit\), got 2"):
        model.decision_function(da.from_array(X[:, :2]))
    with pytest.raises(ValueError, match="X: expected a 2-D array"):
        model.decision_function(da.from_array(X[:, 0]))
    with pytest.raises(ValueError, match="both classes"):
        DaskExactBoost(**params).fit(da.from_array(X), da.zeros(X.shape[0]))
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X: expected finite numbers"):
        DaskExactBoost(**params).fit(da.from_array(bad), y)
    with pytest.raises(TypeError, match="client: expected a distributed.Client"):
        DaskExactBoost(client=3, **params).fit(X, y)


def test_dask_exactboost_explains_lazily_as_the_in_memory_model(dask_client):
    X, y = _data()
    model = DaskExactBoost(n_runs=4, n_rounds=6, random_state=3).fit(da.from_array(X, chunks=(60, -1)),
                                                                     da.from_array(y, chunks=60))
    local = model.to_local()
    chunked, Z = da.from_array(X, chunks=(50, -1)), da.from_array(X[:40], chunks=(20, -1))
    for background, groups in ((None, None), (Z, None), (Z, [0, 0, 1, 1, 2, 2])):
        lazy = model.feature_contributions(chunked, background=background, groups=groups)
        assert isinstance(lazy, da.Array)
        np.testing.assert_array_equal(lazy.compute(), local.feature_contributions(
            X, background=None if background is None else X[:40], groups=groups))
        pairs = model.feature_interactions(chunked, background=background, groups=groups)
        np.testing.assert_array_equal(pairs.compute(), local.feature_interactions(
            X, background=None if background is None else X[:40], groups=groups))
    np.testing.assert_array_equal(model.feature_contributions(X), local.feature_contributions(X))
    with pytest.raises(ValueError, match="rechunk"):
        model.feature_interactions(chunked, max_bytes=1000)

"""In-memory Polars tables given to the Dask estimators: read as the pandas frames they stand for.

On the shared 2-worker LocalCluster; no part of Dask is mocked.  Skipped without Polars (an optional extra).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pl = pytest.importorskip("polars")

import pandas as pd  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def _rows(n=200, seed=2):
    rng = np.random.default_rng(seed)
    x, level = rng.normal(size=n), rng.integers(0, 4, n)
    y = ((x + (level == 2)) > 0.8).astype(int)
    return x, np.array(["red", "green", "blue", "white"])[level], y


def test_a_polars_date_column_is_refused_by_name_on_dask(dask_client):  # noqa: F811
    # NumPy read the Polars frame as floats: the dates became day counts and the fit went on
    x, _, y = _rows()
    frame = pl.DataFrame({"x": x}).with_columns(day=pl.date(2024, 1, 1) + pl.duration(days=pl.Series(np.arange(200))))
    with pytest.raises(TypeError, match=r"^X: column 'day' holds dates"):
        DaskPushBoost(learner="trees", n_iter=3, client=dask_client).fit(frame, y)


def test_a_polars_categorical_column_is_a_category_column_on_dask(dask_client):  # noqa: F811
    x, colours, y = _rows()
    frame = pl.DataFrame({"x": x, "colour": pl.Series(colours, dtype=pl.Categorical)})
    expected = pd.DataFrame({"x": x, "colour": pd.Categorical(colours)})
    model = DaskPushBoost(learner="trees", n_iter=4, random_state=0, client=dask_client).fit(frame, y)
    assert list(model.categories_[1]) == ["blue", "green", "red", "white"]
    reference = DaskPushBoost(learner="trees", n_iter=4, random_state=0, client=dask_client).fit(expected, y)
    np.testing.assert_array_equal(np.asarray(model.decision_function(expected)),
                                  np.asarray(reference.decision_function(expected)))


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_an_eval_set_frame_in_another_column_order_is_refused_on_dask(dask_client, kind):  # noqa: F811
    """(Before: on one worker the rows were fitted as an array and the set's columns read by position -- its
    validation curve was that of another model, silently; the in-memory fit refuses the order.)"""
    x, _, y = _rows()
    other = np.random.default_rng(3).normal(size=x.shape[0])
    frame = pd.DataFrame({"x": x, "z": other})
    swapped = frame[["z", "x"]] if kind == "pandas" else pl.DataFrame({"z": other, "x": x})
    with pytest.raises(ValueError, match=r"^eval_set X: its columns are X's in fit in another order"):
        DaskPushBoost(learner="trees", n_iter=3, client=dask_client).fit(frame, y, eval_set=[(swapped, y)])


def test_another_librarys_data_container_is_refused_by_name_on_dask(dask_client):  # noqa: F811
    """(Before: "X: expected a 2-D array, got shape ()" in fit, and a serialization error for an eval_set.)"""
    xgb = pytest.importorskip("xgboost")
    x, _, y = _rows()
    X = np.c_[x, x ** 2]
    message = r"^(eval_set )?X: got an xgboost.DMatrix, which rankcore does not read"
    with pytest.raises(TypeError, match=message):
        DaskPushBoost(learner="trees", n_iter=3, client=dask_client).fit(xgb.DMatrix(X, y), y)
    with pytest.raises(TypeError, match=message):
        DaskPushBoost(learner="trees", n_iter=3, client=dask_client).fit(X, y, eval_set=[(xgb.DMatrix(X), y)])

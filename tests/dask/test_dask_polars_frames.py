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

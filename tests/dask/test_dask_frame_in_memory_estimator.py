"""A Dask DataFrame given to an in-memory estimator is read as the pandas frame it computes to.

NumPy computed a numeric Dask frame already; one with a ``category`` column
failed on a Dask attribute (``'Series' object has no attribute 'to_numpy'``)
in fit and in ``decision_function``.  No cluster is needed: Dask's local
scheduler computes the frame.
"""

from __future__ import annotations

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")

import rankcore  # noqa: E402


def _frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["amber", "blue", "coral"], n)
    frame = pd.DataFrame({"colour": pd.Categorical(colour), "x": rng.normal(size=n)})
    y = ((colour == "blue") + frame["x"] + rng.normal(size=n) > 1.0).astype(int).to_numpy()
    return frame, y


def test_a_dask_frame_with_a_category_column_fits_and_scores_as_its_pandas_frame():
    frame, y = _frame()
    params = dict(learner="trees:max_leaves=4", n_iter=4, random_state=0)
    on_pandas = rankcore.PushBoost(**params).fit(frame, y)
    on_dask = rankcore.PushBoost(**params).fit(dd.from_pandas(frame, npartitions=3), y)
    assert list(on_dask.feature_names_in_) == ["colour", "x"]
    assert [list(c) if c is not None else None for c in on_dask.categories_] == [["amber", "blue", "coral"], None]
    expected = on_pandas.decision_function(frame)
    np.testing.assert_array_equal(on_dask.decision_function(frame), expected)
    np.testing.assert_array_equal(on_pandas.decision_function(dd.from_pandas(frame, npartitions=2)), expected)

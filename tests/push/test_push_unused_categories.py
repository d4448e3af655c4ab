"""A ``category`` column listing categories no training row holds, while some of its rows are missing.

Such categories (a frame split into training and test rows keeps the whole frame's: the test rows' new items) go
right at every categorical split when scored, where a missing value goes the side the fit chose for it, while a
category the fit does not list scores as missing.  (Before, the fit said nothing: new items scored one way or the
other depending on how the training frame's dtype had been built.)
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rankcore


def _frame():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(60), 25)
    level = rng.integers(0, 12, qid.size)
    x = rng.normal(size=qid.size)
    y = (rng.normal(size=12)[level] + x + rng.normal(size=qid.size) > 1).astype(int)
    values = np.array([f"L{i}" for i in range(12)], dtype=object)[level]
    values[::6] = None                                             # missing on a sixth of the rows
    return pd.DataFrame({"shop": pd.Categorical(values), "x": x}), y, qid, np.isin(level, [3, 7])


def _fit(X, y, qid):
    return rankcore.boost(learner="trees", n_iter=8, random_state=0).fit(X, y, qid=qid)


def test_fit_warns_that_listed_unseen_categories_do_not_score_as_missing():
    X, y, qid, new = _frame()
    train = ~new & (qid < 40)
    with pytest.warns(UserWarning, match=r"column 'shop' lists 2 categories that no training row holds .* "
                                         r"X\['shop'\]\.cat\.remove_unused_categories\(\)"):
        model = _fit(X[train], y[train], qid[train])
    test = X[qid >= 40]
    as_missing = test.assign(shop=test["shop"].where(~new[qid >= 40]))
    # what the warning says: the listed new categories do not score as missing values ...
    assert not np.allclose(model.decision_function(test), model.decision_function(as_missing))
    # ... and, their categories dropped before the fit, they do
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pruned = _fit(X[train].assign(shop=X["shop"][train].cat.remove_unused_categories()), y[train], qid[train])
    np.testing.assert_array_equal(pruned.decision_function(test), pruned.decision_function(as_missing))


def test_no_warning_without_missing_values_or_unused_categories():
    """Without missing training values both go right, alike; without unused categories nothing is listed unseen."""
    X, y, qid, new = _frame()
    train = ~new & (qid < 40)
    filled = X.assign(shop=X["shop"].fillna("L0"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _fit(filled[train], y[train], qid[train])
        _fit(X, y, qid)

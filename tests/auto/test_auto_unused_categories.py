"""AutoRanker warns of listed categories no training row holds in a column with missing values, as the push does.

It keeps a ``category`` column's categories as its dtype lists them, like ``PushBoost``: a listed category no
training row holds scores like a known one on the right of its splits, not as missing, where a category the fit
does not list scores as missing.  ``PushBoost.fit`` warned of it; ``AutoRanker.fit`` said nothing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from rankcore import AutoRanker

pd = pytest.importorskip("pandas")


def _frame(listed, n=120):
    rng = np.random.default_rng(3)
    items = rng.choice(["a", "b", "c"], n).astype(object)
    items[:12] = None
    x = rng.normal(size=n)
    y = ((items == "a") | (x > 1)).astype(int)
    return pd.DataFrame({"x": x, "c": pd.Categorical(items, categories=listed)}), y


def _fit(X, y):
    return AutoRanker(candidates=["trees"], cv=2, random_state=0).fit(X, y)


def test_an_unused_listed_category_with_missing_values_warns():
    X, y = _frame(["a", "b", "c", "d"])
    with pytest.warns(UserWarning, match=r"column 'c' lists 1 categor.* no training row holds"):
        _fit(X, y)


def test_no_warning_when_every_listed_category_is_used():
    X, y = _frame(["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*no training row holds.*")
        _fit(X, y)

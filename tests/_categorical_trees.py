"""A model of trees with categorical splits, fitted on rows with missing values: shared by the tests of what the
fitted trees give (contributions, leaves)."""

from __future__ import annotations

import numpy as np

from rankcore import PushBoost


def categorical_model(n: int = 600):
    """``(model, X)``: column 0 categorical (six codes, NaN), column 1 on a grid with NaN, column 2 noise; trees of
    five leaves splitting column 0 by category."""
    rng = np.random.default_rng(1)
    cat = rng.integers(0, 6, n).astype(float)
    cat[rng.random(n) < 0.1] = np.nan
    x = np.round(rng.normal(size=n), 1)
    x[rng.random(n) < 0.1] = np.nan
    X = np.column_stack([cat, x, rng.normal(size=n)])
    y = (np.isin(cat, [1, 4]) * 1.5 + 0.5 * np.nan_to_num(x) + rng.normal(size=n) > 1).astype(int)
    est = PushBoost(learner="trees:categorical=0,max_leaves=5,min_samples_leaf=10", n_iter=6, random_state=0).fit(X, y)
    return est, X

"""The small AutoRanker fits the explanation tests share: 4 columns whose relevance needs an interaction (x0 + x1·x2),
optionally with 8 % of the values missing, and a search over few-tree candidates on one thread."""

import numpy as np

from rankcore import AutoRanker

__all__ = ["TREES", "toy_data", "fit_auto"]

#: A few small trees: fast, and every explanation of them exact.
TREES = "trees:n_iter=6,min_samples_leaf=5"


def toy_data(n=200, d=4, seed=0, nan=False):
    """``(X, y)``: n rows of d normal columns, y = 1 where x0 + x1·x2 plus noise exceeds 0.6; ``nan``: 8 % missing."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.7 * rng.normal(size=n) > 0.6).astype(int)
    if nan:
        X[rng.random(size=X.shape) < 0.08] = np.nan
    return X, y


def fit_auto(X, y, candidates=(TREES,), **params):
    """AutoRanker over ``candidates`` (default: the few small trees), random_state 0, one thread, fitted."""
    return AutoRanker(candidates=list(candidates), random_state=0, n_jobs=1, **params).fit(X, y)

"""Data and fits shared by the tests of the tree exports (``to_lightgbm``, ``to_xgboost_json``): rows on a coarse
grid with NaN, probe rows holding chosen values in every column, and a DataFrame with a ``category`` column."""

from __future__ import annotations

import numpy as np
import pandas as pd

import rankcore

SMALL = "max_leaves=6,min_samples_leaf=5"
#: Every growth of the trees learner, small, a row-sampled fit and monotone oblivious trees.
GROWTHS = [f"trees:{SMALL}", f"trees:{SMALL},growth=depthwise", "trees:growth=oblivious,max_depth=3,min_samples_leaf=5",
           f"trees:{SMALL},subsample=0.7",
           # projected leaf values, cells of unsplit nodes among them
           "trees:growth=oblivious,max_depth=4,min_samples_leaf=20,monotone=1/-1/1/0"]
#: Oblivious trees with nodes that could not split: cells sharing their covers (fractions).
UNSPLIT_OBLIVIOUS = "trees:growth=oblivious,max_depth=4,min_samples_leaf=30"


def grid_data(seed=0, n=300, d=4, nan=0.1):
    """Rows with ties (a coarse grid) and NaN; labels from the first features."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 2) / 2
    X[rng.random(X.shape) < nan] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def with_probe_values(X, values, seed=1):
    """X, then rows drawn from ``values`` (``seed``), the first ones holding every value in every column."""
    rng = np.random.default_rng(seed)
    extra = rng.choice(values, size=(max(200, 3 * len(values)), X.shape[1]))
    for j in range(X.shape[1]):
        extra[:len(values), j] = values                       # every probe value in every column
    return np.vstack([X, extra])


def category_frame_model():
    """(frame, model): a DataFrame of a ``category`` column 'shop' (4 categories) and a number 'x', and trees fitted
    on it that split 'shop' by groups of categories."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"shop": pd.Categorical(rng.choice(["a", "b", "c", "d"], 300)), "x": rng.normal(size=300)})
    labels = ((frame["shop"].isin(["b", "d"])) ^ (frame["x"] > 1)).astype(int)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=5, random_state=0).fit(frame, labels)
    return frame, model

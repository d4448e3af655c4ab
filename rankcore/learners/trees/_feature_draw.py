"""Each tree's feature subset (the ``colsample`` draw of the ``trees`` learner), among the features that can split.

A tree draws ``ceil(colsample · m)`` of the m features of its *pool*
without replacement (at least one; every feature when the pool holds one
or none, so that the search itself says why nothing splits).  The pool is
every feature, less:

* with interaction constraints, the features in no group (they never split);
* the features no split can use on the training rows (the layout's
  ``splittable``, false for a feature with no bin edge and no NaN: every row
  codes to one bin; and, for leaf-wise and depth-wise growth, for one that is
  nonzero on fewer than ``min_samples_leaf`` rows).  A tree that drew only
  such features could not split, and one tree that cannot split ends the
  whole fit: LightGBM likewise never samples its trivial features.

The in-memory and the multi-pass (Dask) preparations store different
features (in memory, the unsplittable ones are often not stored at all) but
give the same pool of columns of X, in column order, so both routes draw the
same columns from the same generator.  A pool of every feature is drawn as
``rng.choice(n_features)``, the draw of layouts without ``splittable``.
O(d) per tree.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["feature_draw", "checked_splittable"]


def checked_splittable(splittable, n_features: int) -> np.ndarray | None:
    """A layout's per-feature "can split" flags as a bool array (n_features,), or None: every feature can."""
    if splittable is None:
        return None
    flags = np.asarray(splittable, dtype=bool)
    if flags.shape != (n_features,):
        raise ValueError(f"TreeLayout: splittable must hold one flag per feature ({n_features}), got shape "
                         f"{flags.shape}")
    return None if flags.all() else np.ascontiguousarray(flags)


def feature_draw(rng: np.random.Generator, colsample: float, n_features: int, groups=None,
                 splittable: np.ndarray | None = None) -> np.ndarray:
    """One tree's feature mask (uint8, n_features): ``colsample`` of the pool (see the module docs).

    ``groups``: the layout's ``InteractionGroups`` or None; ``splittable``:
    bool (n_features,) or None (every feature can split).  Reads ``rng``
    only when colsample < 1 and the pool holds two features or more.
    """
    mask = np.ones(n_features, dtype=np.uint8)
    if colsample >= 1.0:
        return mask
    if groups is None and splittable is None:
        pool, size = n_features, n_features
    else:
        keep = np.ones(n_features, dtype=bool) if groups is None else np.asarray(groups.grouped, dtype=bool)
        if splittable is not None:
            keep = keep & splittable
        pool = np.flatnonzero(keep)
        size = int(pool.shape[0])
    if size > 1:
        k = max(1, int(math.ceil(colsample * size)))
        mask[:] = 0
        mask[rng.choice(pool, size=k, replace=False)] = 1
    return mask

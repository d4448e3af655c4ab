"""Test-only: the rows and chunks the Dask interventional explanation tests share.

Uneven chunks (so a chunk boundary falls inside the rows explained), values on a 0.1 grid (ties with the
thresholds) and 5 % NaN.
"""

import numpy as np

__all__ = ["CHUNKS", "explained_data"]

#: The rows' chunks: uneven, summing to the default 300 rows.
CHUNKS = (100, 37, 163)


def explained_data(n=300, d=4, seed=0):
    """(X, y): rounded normal features with 5 % NaN, labels from an XOR of the first two columns."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((np.nan_to_num(X[:, 0]) > 0) ^ (np.nan_to_num(X[:, 1]) > 0.5)).astype(int)
    return X, y

"""The per-row random draws of a tree, keyed by the tree's seed and each row's position in the training set.

A row's draw depends on its global position only, never on how the rows are
split into blocks, so the in-memory grower, the multi-pass (Dask) search and
any block layout draw the same row subsample and the same bootstrap weights.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GOLDEN", "MASK64", "bagging_weights", "row_hash"]

#: 2^64 - 1: Python integers reduced to 64 bits.
MASK64 = (1 << 64) - 1
#: 2^64 / golden ratio, the seed's odd multiplier (as SplitMix64).
GOLDEN = 0x9E3779B97F4A7C15


def row_hash(seed: int, rows: np.ndarray) -> np.ndarray:
    """A 64-bit hash of (seed, global row index): the row-subsampling draw, independent of the blocks."""
    with np.errstate(over="ignore"):          # in place: two arrays of the rows' length, not eight
        z = rows.astype(np.uint64)
        z += np.uint64((seed * GOLDEN) & MASK64)
        shifted = z >> np.uint64(30)
        z ^= shifted
        z *= np.uint64(0xBF58476D1CE4E5B9)
        np.right_shift(z, np.uint64(27), out=shifted)
        z ^= shifted
        z *= np.uint64(0x94D049BB133111EB)
        np.right_shift(z, np.uint64(31), out=shifted)
        z ^= shifted
        return z


#: Mixed into a tree's seed for its Bayesian-bootstrap weights, so that they are drawn independently of its
#: row subsample (which hashes the seed itself).
_BAG_SALT = 0xD1B54A32D192ED03


def bagging_weights(seed: int, rows: np.ndarray, temperature: float) -> np.ndarray:
    """The Bayesian bootstrap's weights of a tree: w_r = (−log U_r)^T, U_r uniform on (0, 1).

    U_r is the top 53 bits of a 64-bit hash of (``seed``, global row
    position ``rows[r]``), plus one half, over 2^53: never 0 or 1, so every w
    is finite and positive, and a row's weight depends on its position only,
    not on how the rows are split into blocks.  With T = 1 the weights are
    Exp(1) (mean 1), CatBoost's default ``bagging_temperature``; T → 0 makes
    them all 1.  Time O(n), memory O(n) (two arrays of the rows' length).

    Parameters
    ----------
    seed : int
        The tree's seed (``TreeLayout.draw_search``).
    rows : int64 array (n,)
        The rows' positions in the training set.
    temperature : float
        T > 0.

    Returns
    -------
    float64 array (n,)
    """
    z = row_hash(int(seed) ^ _BAG_SALT, rows)
    z >>= np.uint64(11)
    u = z.astype(np.float64)
    u += 0.5
    u *= 2.0**-53
    w = np.log(u)
    np.negative(w, out=w)
    if temperature != 1.0:
        np.power(w, float(temperature), out=w)
    return w

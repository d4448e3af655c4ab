"""Whether two datasets hold the same rows and labels whatever the rows' order: a shuffled copy of the training data.

A validation set that is the training rows shuffled scores like the training rows themselves (a ranking metric
does not read the rows' order), so the command line's ``--validation`` and the Python API's ``eval_set`` treat it
as the training data, as they treat a copy in the same order.  Comparing every row with every other would be
O(n²); instead each row (its features and label) is hashed to 64 bits, both sides' hashes are sorted, and only
when the sorted hashes agree are the rows compared value for value in that order, so a collision can never make
two different datasets "the same" (at worst a collision between rows that differ leaves a copy unrecognized).
Time O(n·d + n log n), memory a few arrays of n integers beside one block of rows at a time.

A set merely overlapping the training rows (some rows shared, others not) is not recognized: it is a validation
set whose score is optimistic in part, as any leak of rows, which no fit can tell from a legitimate one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["matching_rows", "rows_in_order_of"]

#: Rows hashed or compared at a time: the temporaries stay small beside the rows themselves.
_BLOCK_ROWS = 1 << 14

#: Salt of each column's position, so that swapping two columns' values changes a row's hash.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer, in place on ``uint64`` values: every input bit reaches every output bit."""
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


def _row_hashes(X: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """One 64-bit hash per row of ``[X, labels]`` (float64 values; -0.0 as 0.0 and every NaN alike, as
    ``np.array_equal(..., equal_nan=True)`` sees them)."""
    n, d = X.shape
    salts = np.arange(1, d + 2, dtype=np.uint64) * _GOLDEN
    out = np.empty(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for start in range(0, n, _BLOCK_ROWS):
            stop = min(start + _BLOCK_ROWS, n)
            block = np.empty((stop - start, d + 1), dtype=np.float64)
            block[:, :d] = X[start:stop]
            block[:, d] = labels[start:stop]
            block[block == 0] = 0.0
            block[np.isnan(block)] = np.nan
            bits = block.view(np.uint64)
            bits ^= salts
            out[start:stop] = _mix(_mix(bits).sum(axis=1, dtype=np.uint64))
    return out


def _numeric(X: Any) -> np.ndarray | None:
    """``X`` as a 2-D array of numbers (a frame's values), or None: sparse, Dask, text or categories are left to
    the comparison of the rows in their order."""
    if hasattr(X, "__dask_graph__") or hasattr(X, "tocsr"):
        return None
    try:
        arr = np.asarray(X)
    except Exception:       # an object that is no array: not recognized here
        return None
    return arr if arr.ndim == 2 and arr.dtype.kind in "biuf" else None


def _label_codes(y: Any, other: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Both label arrays as float64 numbers (text labels by their place among both arrays' values), or None."""
    a, b = np.asarray(y), np.asarray(other)
    if a.ndim != 1 or a.shape != b.shape:
        return None
    if a.dtype.kind in "biuf" and b.dtype.kind in "biuf":
        return a.astype(np.float64), b.astype(np.float64)
    try:
        _, codes = np.unique(np.concatenate([a.astype(object), b.astype(object)]).astype(str), return_inverse=True)
    except (TypeError, ValueError):
        return None
    codes = codes.astype(np.float64)
    return codes[:a.shape[0]], codes[a.shape[0]:]


def matching_rows(X: Any, y: Any, X_other: Any, y_other: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """``(order, order_other)`` such that row ``order[i]`` of ``(X, y)`` equals row ``order_other[i]`` of
    ``(X_other, y_other)`` for every ``i`` (features NaN as NaN, and label), when the two hold the same rows in any
    order; None when they do not (or cannot be compared so: sparse, Dask, non-numeric features).

    Parameters
    ----------
    X, X_other : array-like of shape (n_samples, n_features)
        Numeric features (a frame of numbers too).
    y, y_other : array-like of shape (n_samples,)
        Labels, numbers or text.

    Returns
    -------
    tuple of ndarray or None
        The two row orders that line the datasets up, or None.
    """
    A, B = _numeric(X), _numeric(X_other)
    if A is None or B is None or A.shape != B.shape or y is None or y_other is None:
        return None
    labels = _label_codes(y, y_other)
    if labels is None or labels[0].shape[0] != A.shape[0]:
        return None
    ha, hb = _row_hashes(A, labels[0]), _row_hashes(B, labels[1])
    order, order_other = np.argsort(ha, kind="stable"), np.argsort(hb, kind="stable")
    if not np.array_equal(ha[order], hb[order_other]):
        return None
    for start in range(0, A.shape[0], _BLOCK_ROWS):     # the hashes agree: the rows themselves must too
        a, b = order[start:start + _BLOCK_ROWS], order_other[start:start + _BLOCK_ROWS]
        if not (np.array_equal(labels[0][a], labels[1][b], equal_nan=True)
                and np.array_equal(A[a].astype(np.float64, copy=False), B[b].astype(np.float64, copy=False),
                                       equal_nan=True)):
            return None
    return order, order_other


def rows_in_order_of(values: Any, orders: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``values`` (one per row of the other dataset, e.g. its query ids) put in the first dataset's row order, by
    the ``orders`` of :func:`matching_rows`."""
    order, order_other = orders
    values = np.asarray(values)
    out = np.empty_like(values)
    out[order] = values[order_other]
    return out

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
            block[:, :d] = _rows(X, slice(start, stop))
            block[:, d] = labels[start:stop]
            block[block == 0] = 0.0
            block[np.isnan(block)] = np.nan
            bits = block.view(np.uint64)
            bits ^= salts
            out[start:stop] = _mix(_mix(bits).sum(axis=1, dtype=np.uint64))
    return out


def _numeric(X: Any) -> Any:
    """``X`` as 2-D numbers (a frame of numeric columns as it is, read by blocks of rows), or None: sparse, Dask,
    text or categories are left to the comparison of the rows in their order.

    A frame's column types are read before any of its values: ``np.asarray`` of a frame with one category or text
    column is an array of Python objects, one per value (gigabytes for 10^6 rows of 50 columns), and of columns of
    mixed number types a full float64 copy; a block of rows at a time costs neither."""
    if hasattr(X, "__dask_graph__") or hasattr(X, "tocsr"):
        return None
    if hasattr(X, "iloc") and hasattr(X, "dtypes"):
        numbers = getattr(X, "ndim", 0) == 2 and all(isinstance(t, np.dtype) and t.kind in "biuf" for t in X.dtypes)
        return X if numbers else None
    try:
        arr = np.asarray(X)
    except Exception:       # an object that is no array: not recognized here
        return None
    return arr if arr.ndim == 2 and arr.dtype.kind in "biuf" else None


def _rows(X: Any, index: Any) -> np.ndarray:
    """Rows ``index`` (a slice or positions) of a 2-D array or numeric frame (:func:`_numeric`), as float64."""
    rows = X.iloc[index].to_numpy(dtype=np.float64) if hasattr(X, "iloc") else X[index]
    return rows.astype(np.float64, copy=False)


def _label_codes(y: Any, other: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Both label arrays as float64 numbers (text labels by their place among both arrays' values), or None.

    Numbers on one side and text on the other are other labels (``"1"`` is not ``1``: the fit refuses text labels
    for training classes of numbers), though their text is alike."""
    a, b = np.asarray(y), np.asarray(other)
    if a.ndim != 1 or a.shape != b.shape:
        return None
    numbers = a.dtype.kind in "biuf", b.dtype.kind in "biuf"
    if all(numbers):
        return a.astype(np.float64), b.astype(np.float64)
    if any(numbers):
        return None
    try:
        _, codes = np.unique(np.concatenate([a.astype(object), b.astype(object)]).astype(str), return_inverse=True)
    except (TypeError, ValueError):
        return None
    codes = codes.astype(np.float64)
    return codes[:a.shape[0]], codes[a.shape[0]:]


def _column_ranges(X: Any) -> np.ndarray:
    """Each column's least and greatest value, NaN left out (NaN for a column of NaN alone): exact, whatever the
    rows' order."""
    if hasattr(X, "iloc"):
        return np.concatenate([X.min(skipna=True).to_numpy(np.float64), X.max(skipna=True).to_numpy(np.float64)])
    return np.concatenate([np.fmin.reduce(X, axis=0), np.fmax.reduce(X, axis=0)]).astype(np.float64)


def _ranges_differ(A: Any, B: Any, labels: np.ndarray, labels_other: np.ndarray) -> bool:
    """Whether the two datasets surely hold other rows: other labels once sorted, or a column of another range.
    A fraction of the hashes' cost (reductions without temporaries), it spares them for a validation set that
    merely has the training data's shape, the common case."""
    if A.shape[0] == 0:
        return False
    if not np.array_equal(np.sort(labels), np.sort(labels_other), equal_nan=True):
        return True
    return not np.array_equal(_column_ranges(A), _column_ranges(B), equal_nan=True)


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
    if labels is None or labels[0].shape[0] != A.shape[0] or _ranges_differ(A, B, *labels):
        return None
    ha, hb = _row_hashes(A, labels[0]), _row_hashes(B, labels[1])
    order, order_other = np.argsort(ha, kind="stable"), np.argsort(hb, kind="stable")
    if not np.array_equal(ha[order], hb[order_other]):
        return None
    for start in range(0, A.shape[0], _BLOCK_ROWS):     # the hashes agree: the rows themselves must too
        a, b = order[start:start + _BLOCK_ROWS], order_other[start:start + _BLOCK_ROWS]
        if not (np.array_equal(labels[0][a], labels[1][b], equal_nan=True)
                and np.array_equal(_rows(A, a), _rows(B, b), equal_nan=True)):
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

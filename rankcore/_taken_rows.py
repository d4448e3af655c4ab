"""Some rows of a dense matrix, named by index and read a block at a time (no copy of them all).

The early-stopping hold-out of a large one-list fit trains on ~90 % of the rows; copying them (``X[rows]``) would
add almost X again to the fit's peak memory. A learner that declares ``takes_row_index`` receives a
:class:`TakenRows` instead and reads it in blocks of :data:`BLOCK_VALUES` values: each block is ``X[rows[a:b]]``,
the same numbers in the same order as the copy, so whatever is computed block by block (counts, codes, row lists) is
what the copy gave.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

#: Values a block of taken rows holds (8 MB of float64): small beside the rows, large enough that the per-block
#: Python work is negligible.
BLOCK_VALUES = 1 << 20


class TakenRows:
    """The rows ``rows`` of the dense 2-D array ``X``, in that order, as if ``X[rows]`` (without the copy).

    Parameters
    ----------
    X : ndarray (n, d)
        The matrix, float32 or float64 (any memory order; it is not modified).
    rows : ndarray (m,) of int
        Row positions in ``X``, each in [0, n).
    """

    def __init__(self, X: np.ndarray, rows: np.ndarray):
        X = np.asarray(X)
        rows = np.asarray(rows)
        if X.ndim != 2:
            raise ValueError(f"X: expected a 2-D array, got {X.ndim} dimensions")
        if rows.ndim != 1 or rows.dtype.kind not in "iu":
            raise ValueError(f"rows: expected a 1-D array of row positions, got {rows.dtype} of shape {rows.shape}")
        self.base = X
        self.rows = rows.astype(np.intp, copy=False)

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.rows.shape[0]), int(self.base.shape[1]))

    @property
    def dtype(self):
        return self.base.dtype

    def __getitem__(self, part: slice) -> "TakenRows":
        """The taken rows ``part`` (a slice), still by index."""
        if not isinstance(part, slice):
            raise TypeError(f"TakenRows: only a slice of rows can be taken, got {type(part).__name__}")
        return TakenRows(self.base, self.rows[part])

    def block_rows(self) -> int:
        """Rows a block holds (at least one)."""
        return max(1, BLOCK_VALUES // max(1, self.shape[1]))

    def blocks(self) -> Iterator[tuple[int, np.ndarray]]:
        """``(start, X[rows[start:start + k]])`` for each block of k rows, in order (C-ordered copies)."""
        k = self.block_rows()
        for start in range(0, self.shape[0], k):
            block = self.base[self.rows[start:start + k]]
            if block.dtype not in (np.float32, np.float64):       # as the kernels read a whole matrix
                block = block.astype(np.float64)
            yield start, np.ascontiguousarray(block)

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of the taken rows (a copy of n values)."""
        return self.base[self.rows, j]

    def columns(self, columns: np.ndarray) -> np.ndarray:
        """The listed columns of the taken rows (a copy of them only)."""
        return self.base[np.ix_(self.rows, np.asarray(columns, dtype=np.intp))]

    def take(self, rows: np.ndarray) -> np.ndarray:
        """``X[self.rows[rows]]``: a copy of some of the taken rows (a sample)."""
        return self.base[self.rows[np.asarray(rows, dtype=np.intp)]]

    def materialized(self) -> np.ndarray:
        """The copy ``X[rows]`` itself (for the code that needs it whole)."""
        return self.base[self.rows]

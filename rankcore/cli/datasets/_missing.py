"""Where a :class:`~rankcore.cli.datasets.Dataset`'s feature values are missing: :class:`MissingValues`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["MissingValues"]


@dataclass(frozen=True)
class MissingValues:
    """How many feature values of a :class:`Dataset` are missing, and where (:meth:`Dataset.missing`).

    Attributes
    ----------
    n_values : int
        Missing values (NaN cells).
    n_rows, n_samples : int
        Rows with at least one missing value, of all rows.
    columns : list of str
        The feature columns with at least one missing value, in file order.
    n_features : int
        All feature columns.
    first : str
        Where the first one is, e.g. ``"data.csv, line 12, column 'age'"``.
    everywhere : list of str
        The feature columns missing on every row, in file order (a feed that lost a column).
    """

    n_values: int
    n_rows: int
    n_samples: int
    columns: list[str]
    n_features: int
    first: str
    everywhere: list[str] = field(default_factory=list)

    def describe(self, limit: int = 6) -> str:
        """One phrase: ``"12 missing values in 9 of 200 rows and 2 of 5 columns (age, bmi); the first at ..."``."""
        shown = ", ".join(self.columns[:limit]) + (", ..." if len(self.columns) > limit else "")
        plural = "s" if self.n_values != 1 else ""
        return (f"{self.n_values} missing value{plural} in {self.n_rows} of {self.n_samples} rows and "
                f"{len(self.columns)} of {self.n_features} columns ({shown}); the first at {self.first}")


#: Rows of a dense matrix :meth:`Dataset.missing` masks at a time (a block of 50 columns: 3 MB of bools).
_MISSING_BLOCK_ROWS = 65536


def _dense_nan_counts(X: np.ndarray) -> tuple[np.ndarray, int, int, int] | None:
    """(NaN per column, rows with one, the first such row, its first NaN column) of ``X``, or None without NaN;
    one block of rows masked at a time."""
    counts = np.zeros(X.shape[1], dtype=np.int64)
    n_rows, first = 0, None
    for start in range(0, X.shape[0], _MISSING_BLOCK_ROWS):
        mask = np.isnan(X[start:start + _MISSING_BLOCK_ROWS])
        counts += np.count_nonzero(mask, axis=0)
        rows = mask.any(axis=1)
        n_rows += int(np.count_nonzero(rows))
        if first is None and rows.any():
            row = int(np.argmax(rows))
            first = (start + row, int(np.argmax(mask[row])))
    return None if first is None else (counts, n_rows, *first)


def _sparse_nan_counts(X) -> tuple[np.ndarray, int, int, int] | None:
    """:func:`_dense_nan_counts` of a CSR matrix, from its stored values (an absent value is 0, never NaN)."""
    stored = np.isnan(X.data)
    if not stored.any():
        return None
    at = np.flatnonzero(stored)
    row_of = np.searchsorted(X.indptr, at, side="right") - 1     # the row of each stored NaN, O(k log n)
    columns = X.indices[at]
    counts = np.bincount(columns, minlength=X.shape[1])
    first_row = int(row_of.min())
    return counts, int(np.unique(row_of).size), first_row, int(columns[row_of == first_row].min())

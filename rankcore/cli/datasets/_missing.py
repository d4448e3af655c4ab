"""Where a :class:`~rankcore.cli.datasets.Dataset`'s feature values are missing: :class:`MissingValues`."""

from __future__ import annotations

from dataclasses import dataclass

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
    """

    n_values: int
    n_rows: int
    n_samples: int
    columns: list[str]
    n_features: int
    first: str

    def describe(self, limit: int = 6) -> str:
        """One phrase: ``"12 missing values in 9 of 200 rows and 2 of 5 columns (age, bmi); the first at ..."``."""
        shown = ", ".join(self.columns[:limit]) + (", ..." if len(self.columns) > limit else "")
        plural = "s" if self.n_values != 1 else ""
        return (f"{self.n_values} missing value{plural} in {self.n_rows} of {self.n_samples} rows and "
                f"{len(self.columns)} of {self.n_features} columns ({shown}); the first at {self.first}")

"""What every reader returns: :class:`Dataset`, :class:`MissingValues`, :class:`DataError`, and shared helpers."""

from __future__ import annotations

import gzip
import io
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from ._labels import python_only_number
from ._missing import MissingValues, _dense_nan_counts, _sparse_nan_counts
from ._labels import same_label

__all__ = ["DataError", "TextColumnsError", "Dataset", "MissingValues", "FORMATS", "DEFAULT_LABEL",
           "MISSING_VALUES"]

#: Formats :func:`load_data` reads.
FORMATS = ("csv", "libsvm", "npy", "npz")

#: The label column a CSV file is expected to have when none is named.
DEFAULT_LABEL = "label"

#: The CSV fields read as a missing value (NaN), compared case-insensitively
#: after stripping surrounding spaces; any other spelling of NaN that
#: ``float()`` reads (``-nan``, ``+NaN``) is missing too.  A missing label is
#: an error.
MISSING_VALUES = ("", "NA", "N/A", "NaN", "null", "None", "?", "-")
_MISSING = frozenset(v.lower() for v in MISSING_VALUES)
_MISSING_FEATURE = _MISSING | {"+nan", "-nan"}  # a feature's missing values: signed NaN too, in a text column as well


class DataError(ValueError):
    """A data file that cannot be used, with a one-line message naming the file (and line)."""


class TextColumnsError(DataError):
    """Feature columns of a CSV file hold text where numbers were expected.

    The message names the first such value (file, line, column) and every
    such column.

    Attributes
    ----------
    columns : list of str
        Every feature column holding text, in file order.
    comma_columns : list of str
        Those whose first text value is a number written with a comma (a
        decimal comma or a thousands separator): numbers to convert, not
        categories.
    """

    def __init__(self, source: str, columns: list[str], first: str, comma_columns: list[str] = ()):
        self.columns = list(columns)
        self.comma_columns = list(comma_columns)
        plural = "s" if len(columns) != 1 else ""
        super().__init__(f"{source}, {first}; text in {len(columns)} column{plural}: {', '.join(columns)}")


@dataclass
class Dataset:
    """Features and labels read from one file.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        C-contiguous; finite, or NaN where a value is missing (see
        :meth:`missing`).  A large, sparse LIBSVM file's is a scipy CSR matrix.
    y : ndarray of shape (n_samples,) or None
        The raw labels (float64, or str objects when a CSV label is text);
        None when the file has no label.
    feature_names : list of str
    label_name : str or None
        The label's column name (CSV), array key (npz), index (npy) or
        ``"first field"`` (libsvm).
    source : str
        The path as given, for messages.
    format : str
        One of :data:`FORMATS`.
    row_lines : sequence of int or None
        For text formats, the file line of each row (1-based), so that errors
        found after parsing still point at a line.
    named : bool
        Whether ``feature_names`` are the file's own column names (a CSV
        header, an npz ``feature_names`` array) rather than positions
        (``x0``, ``x1``, ...).
    categories : dict of str to ndarray of str
        The categorical feature columns (CSV text read by category): column
        name -> its distinct values, sorted.  Their ``X`` column holds each
        row's category code (the value's position in that list; NaN where
        the value is missing).
    kept : dict of str to ndarray of str
        Columns read aside, neither features nor the label (an identifier
        column): name -> each row's text.
    qid : ndarray or None
        Each row's query id (a LIBSVM file's ``qid:`` fields, int64; a CSV
        column named by ``qid=``, text), or None when the rows form one list.
    qid_name : str or None
        Where the query ids come from, for messages and outputs (the CSV
        column's name, ``"qid"`` for LIBSVM).
    query_file : str or None
        The file of query sizes the ids were read from (a LIBSVM file's
        ``.query`` or ``.group`` file, LightGBM's and XGBoost's layout), or
        None.
    position : ndarray of int64 or None
        Each row's display position (a CSV column named by ``position=``:
        integers >= 0, the place the row was shown at in its query's list),
        or None.
    position_name : str or None
        That column's name.
    init_score : ndarray of float64 or None
        Each row's initial score (a CSV column named by ``init_score=``:
        finite numbers, the score the row starts from), or None.
    init_score_name : str or None
        That column's name.
    weight : ndarray of float64 or None
        Each row's sample weight (a CSV column named by ``weight=``: finite
        numbers >= 0, not all 0), or None.
    weight_name : str or None
        That column's name.
    """

    X: np.ndarray
    y: np.ndarray | None
    feature_names: list[str]
    label_name: str | None
    source: str
    format: str
    row_lines: np.ndarray | None = field(default=None, repr=False)
    named: bool = False
    categories: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    kept: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    qid: np.ndarray | None = field(default=None, repr=False)
    qid_name: str | None = None
    query_file: str | None = None
    position: np.ndarray | None = field(default=None, repr=False)
    position_name: str | None = None
    init_score: np.ndarray | None = field(default=None, repr=False)
    init_score_name: str | None = None
    weight: np.ndarray | None = field(default=None, repr=False)
    weight_name: str | None = None

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def frame(self):
        """The features as a pandas DataFrame under their names; categorical columns of pandas ``category`` dtype.

        A numeric column is float64 (the same values as ``X``); a categorical
        column's categories are its values (:attr:`categories`), so an
        estimator that maps categories by value reads the file's text.
        """
        import pandas as pd

        if hasattr(self.X, "tocsr"):    # a LIBSVM file kept sparse (CSR): zero-filled Sparse columns, read as CSR
            return pd.DataFrame.sparse.from_spmatrix(self.X, columns=list(self.feature_names))
        if not self.categories:        # one float block over X itself: no copy, the same array back
            return pd.DataFrame(self.X, columns=list(self.feature_names), copy=False)
        columns = {}
        for j, name in enumerate(self.feature_names):
            if name in self.categories:
                codes = self.X[:, j]
                codes = np.where(np.isnan(codes), -1, codes).astype(np.int64)
                columns[name] = pd.Categorical.from_codes(codes, categories=self.categories[name])
            else:
                columns[name] = self.X[:, j]
        return pd.DataFrame(columns, copy=False)

    def missing(self) -> "MissingValues | None":
        """Where the features have missing values (NaN), or None if they have none.

        One pass over the values, a block of rows at a time: time O(n_samples * n_features), memory one bool per
        value of a block (a LIBSVM file kept sparse: of its stored values only), not one per value of the file.
        The columns missing on every row (``MissingValues.everywhere``) come from the same pass.
        """
        if hasattr(self.X, "tocsr"):   # a LIBSVM file kept sparse: only the stored values can be NaN
            found = _sparse_nan_counts(self.X.tocsr())
        else:
            found = _dense_nan_counts(self.X)
        if found is None:
            return None
        counts, n_rows, first_row, first_column = found
        return MissingValues(
            n_values=int(counts.sum()),
            n_rows=n_rows,
            n_samples=self.n_samples,
            columns=[self.feature_names[j] for j in np.flatnonzero(counts)],
            n_features=self.n_features,
            first=f"{self.where(first_row)}, column {self.feature_names[first_column]!r}",
            everywhere=[self.feature_names[j] for j in np.flatnonzero(counts == self.n_samples)],
        )

    def where(self, row: int) -> str:
        """``"data.csv, line 12"`` (text formats) or ``"data.npy, row 10"``."""
        if self.row_lines is not None:
            return f"{self.source}, line {int(self.row_lines[row])}"
        return f"{self.source}, row {row}"

    def relevant_label(self, positive: Any = None) -> Any:
        """The label :meth:`binary_target` makes relevant (with the same checks): ``positive`` as read in the file,
        or the greater of the two labels -- what another file of the same data is read with."""
        y01 = self.binary_target(positive)
        return self.y[int(np.flatnonzero(y01)[0])]

    def binary_target(self, positive: Any = None, *, require_both: bool = True,
                      may_be_absent: bool = False) -> np.ndarray:
        """The labels as a bipartite target: 1 for the relevant label, 0 otherwise.

        Parameters
        ----------
        positive : label, optional
            The relevant label (compared with the labels as read: ``"1"`` and
            ``1`` both match a numeric label 1).  Default: the greater of the
            two labels; a third label is then an error naming its line.
        require_both : bool, default True
            Raise if only one class is present (training needs both;
            scoring a file of one class does not).  Without ``positive``, a
            file of one label is then relevant when that label is 1 and
            irrelevant when it is 0 (or -1, or False); any other lone label
            is an error asking for ``--positive``.
        may_be_absent : bool, default False
            ``positive`` is the training file's relevant label
            (:meth:`relevant_label`): a file without it is all irrelevant,
            not an error.

        Returns
        -------
        ndarray of int8, shape (n_samples,)
        """
        if self.y is None:
            raise DataError(f"{self.source}: the file has no label ({self._label_hint()})")
        labels = self.y
        uniques, first_index, inverse = np.unique(labels, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        if positive is not None:
            try:
                target = _match_label(positive, labels, self.source)
            except DataError:
                if not may_be_absent:
                    raise
                return np.zeros(labels.shape[0], dtype=np.int8)
            y01 = (labels == target).astype(np.int8)
            if require_both and (y01.all() or not y01.any()):
                what = "every" if y01.all() else "no"
                raise DataError(
                    f"{self.source}: {what} row has the relevant label {_show(target)} "
                    f"(labels present: {_show_list(uniques)}); ranking needs both classes"
                )
            return y01
        if uniques.shape[0] > 2:
            # the row that brought in the third distinct label, in file order
            order = np.sort(first_index)
            row = int(order[2])
            seen = [labels[i] for i in order[:2]]
            raise DataError(
                f"{self.where(row)}: the label {self._label_desc()} has a third value {_show(labels[row])} "
                f"(after {_show(seen[0])} and {_show(seen[1])}); a bipartite ranking needs exactly two labels "
                "(or name the relevant one with --positive LABEL)"
            )
        if uniques.shape[0] < 2:
            if require_both:
                raise DataError(
                    f"{self.source}: the label {self._label_desc()} has only one value, {_show(uniques[0])}; "
                    "ranking needs both classes"
                )
            only = uniques[0]
            if not (_is_one(only) or _is_not_relevant(only)):
                # a lone 'M' may be the relevant label of the training data or the other one
                raise DataError(f"{self.source}: every row has the label {_show(only)}, which may be the relevant "
                                f"label or the other one; say which is relevant with --positive LABEL")
            return np.full(labels.shape[0], 1 if _is_one(only) else 0, dtype=np.int8)
        return inverse.astype(np.int8)

    def _label_desc(self) -> str:
        return f"column {self.label_name!r}" if self.format == "csv" else f"{self.label_name}"

    def _label_hint(self) -> str:
        return {
            "csv": "name the label column with --label COLUMN",
            "npy": "give the label's column index with --label INDEX",
            "npz": "store the labels as array 'y' or name the array with --label KEY",
        }.get(self.format, "")


# --------------------------------------------------------------------------
# helpers shared by the readers
# --------------------------------------------------------------------------


def _canonical_nan(X: np.ndarray) -> np.ndarray:
    """X with every NaN the one quiet NaN (``-nan`` reads with its sign bit set in some readers, not others).

    A missing value is a missing value whatever its spelling: every reader
    then gives the same bytes.  In place; O(size).
    """
    missing = np.isnan(X)
    if missing.any():
        X[missing] = np.nan
    return X


def _open_text(source: str):
    with open(source, "rb") as fh:
        magic = fh.read(2)
    raw = gzip.open(source, "rb") if magic == b"\x1f\x8b" else open(source, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="strict", newline="")


def _label_problem(text: str) -> str | None:
    """``"missing"`` or ``"non-finite"`` for a label field that cannot be a label, else None."""
    if text.strip().lower() in _MISSING:
        return "missing"
    try:
        value = float(text)
    except ValueError:
        return None  # a text label
    if math.isnan(value):
        return "missing"
    return None if math.isfinite(value) else "non-finite"


def _label_array(labels: list[str]) -> np.ndarray:
    """The labels as numbers, or as text when one of them is not a number (as pandas' reader reads them: Python's
    ``float`` also takes ``1_0`` and ``١`` (an Arabic-Indic 1) for numbers, pandas and this take them for text, so
    both readers give one answer)."""
    if any(python_only_number(text) for text in set(labels)):
        return np.asarray(labels, dtype=object)
    try:
        values = np.asarray(labels, dtype=np.float64)
    except ValueError:
        return np.asarray(labels, dtype=object)
    if not np.isfinite(values).all():
        return np.asarray(labels, dtype=object)
    return values


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _columns(names: Iterable[str], limit: int = 12) -> str:
    """The column names, or the first and last few of a long header (the label is often last); a long name cut."""
    names = [n if len(n) <= 40 else f"{n[:37]}..." for n in names]
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:6]) + ", ..., " + ", ".join(names[-4:]) + f" ({len(names)} in all)"


def _show(value: Any) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return repr(int(value))
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _show_list(values: Iterable[Any], limit: int = 5) -> str:
    values = list(values)
    shown = ", ".join(_show(v) for v in values[:limit])
    return shown + (", ..." if len(values) > limit else "")


def _is_one(value: Any) -> bool:
    try:
        return float(value) == 1.0
    except (TypeError, ValueError):
        return False


def _is_not_relevant(value: Any) -> bool:
    """0, -1 and False: the labels that are irrelevant by themselves."""
    if isinstance(value, str) and value.strip().lower() == "false":
        return True
    try:
        return float(value) in (0.0, -1.0)
    except (TypeError, ValueError):
        return False


def _match_label(positive: Any, labels: np.ndarray, source: str) -> Any:
    """The label value equal to ``positive`` (text from the command line or a value), by :func:`same_label`."""
    uniques = np.unique(labels)
    # the label as written first (text labels "1" and "1.0" both in a file), then the same number
    for value in (*(v for v in uniques if v == positive or str(v) == str(positive)), *uniques):
        if same_label(value, positive):
            return value
    raise DataError(f"{source}: the relevant label {positive!r} does not occur (labels present: {_show_list(uniques)})")


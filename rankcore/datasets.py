"""Reading labelled data files: CSV with a header, LIBSVM/svmlight, ``.npy`` and ``.npz``.

:func:`load_data` returns a :class:`Dataset` -- a dense float64 feature
matrix, the raw labels and the feature names -- and turns every problem in a
file into one :class:`DataError` line that names the file and, for text
formats, the line (``data.csv, line 12, column 'age': expected a number, got
'n/a'``).  The command line prints that line and exits with status 2.

Formats (chosen by extension, or by ``fmt=``):

``csv`` (``.csv``, ``.tsv``, ``.txt``, any of them gzipped as ``.gz``)
    A header line, then one row per example.  The delimiter (comma,
    semicolon or tab) is read off the header.  The label is the column named
    ``label`` (default ``"label"``); every other column is a feature unless
    dropped with ``drop=``.  Label values may be numbers or text.  A
    missing feature value -- a field that is empty or one of
    :data:`MISSING_VALUES` (``NA``, ``N/A``, ``NaN``, ``null``, ``None``,
    ``?``, ``-``; any case, surrounding spaces ignored) or any other spelling
    of NaN (``-nan``) -- is read as NaN, for the learners that handle missing
    values (the ``trees`` learner); ``allow_missing=False`` refuses it.
    Infinite values (``inf``, ``1e400``) and a missing or non-finite label
    are always errors.
``libsvm`` (``.svm``, ``.svmlight``, ``.libsvm``, ``.svm.gz``...)
    ``label index:value index:value ... # comment``; an optional ``qid:n``
    is ignored.  Indices are one-based unless some index is 0 (then
    zero-based, as scikit-learn's ``zero_based="auto"``).  The matrix is
    made dense, so an index above :data:`MAX_LIBSVM_FEATURES` (10**6) or a
    matrix of more than :data:`MAX_DENSE_CELLS` values (1 GiB) is refused.
``npy``
    A 2-D numeric array; ``label`` is the column index of the label
    (default: the last column).
``npz``
    Arrays ``X`` (2-D) and ``y`` (1-D, key chosen by ``label``), and
    optionally ``feature_names``.  Loaded without pickle.

Speed: a clean CSV is read by pandas' C parser when pandas is installed
(NumPy's ``loadtxt`` otherwise, for files of numbers); only a file that
fails there goes through the line-tracking parser that finds and names the
problem (``benchmarks/bench_cli_datasets.py`` measures the three).  pandas
also reads missing values (:data:`MISSING_VALUES` in any case).  pandas
cannot tell a missing value in the *last* column from a short row, so then
the delimiters of every line are counted (a NumPy pass over the bytes); a
file with quotes or lone carriage returns, and unusual spellings
(``' NA '``), go to the checking parser, which reads them too, only slower.

``.npy``/``.npz`` features may hold NaN (missing values) as well; LIBSVM
files cannot (an absent feature is 0 there), so NaN in them is an error.

Labels become a bipartite target with :meth:`Dataset.binary_target`: the
greater of the two labels is the relevant one (``1`` of {0, 1}, ``M`` of
{B, M}), unless ``positive=`` names it -- then every other label is
irrelevant, so a multi-class file can rank one class against the rest.
"""

from __future__ import annotations

import csv
import difflib
import gzip
import io
import itertools
import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

__all__ = ["DataError", "Dataset", "MissingValues", "load_data", "detect_format", "FORMATS", "DEFAULT_LABEL",
           "MISSING_VALUES"]

#: Formats :func:`load_data` reads.
FORMATS = ("csv", "libsvm", "npy", "npz")

#: The label column a CSV file is expected to have when none is named.
DEFAULT_LABEL = "label"

_LIBSVM_EXTENSIONS = (".svm", ".svmlight", ".libsvm", ".liblinear")
_CSV_EXTENSIONS = (".csv", ".tsv", ".tab", ".txt", ".dat")
#: The CSV fields read as a missing value (NaN), compared case-insensitively
#: after stripping surrounding spaces; any other spelling of NaN that
#: ``float()`` reads (``-nan``, ``+NaN``) is missing too.  A missing label is
#: an error.
MISSING_VALUES = ("", "NA", "N/A", "NaN", "null", "None", "?", "-")
_MISSING = frozenset(v.lower() for v in MISSING_VALUES)
#: Largest LIBSVM feature index read (the matrix is made dense: a file naming
#: feature 2,000,000,000 on one line must not ask for gigabytes).  Wider,
#: genuinely sparse data: read it with scikit-learn's ``load_svmlight_file``
#: and pass the CSR matrix to a learner that accepts it (SGDAtK, PerceptronAtK).
MAX_LIBSVM_FEATURES = 1_000_000
#: Largest dense matrix a LIBSVM file becomes, in float64 cells (1 GiB).
MAX_DENSE_CELLS = 1 << 27
_CHUNK_ROWS = 65536  # rows converted to float at a time (bounded memory for the text form)


class DataError(ValueError):
    """A data file that cannot be used, with a one-line message naming the file (and line)."""


@dataclass
class Dataset:
    """Features and labels read from one file.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        C-contiguous; finite, or NaN where a value is missing (see
        :meth:`missing`).
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
    """

    X: np.ndarray
    y: np.ndarray | None
    feature_names: list[str]
    label_name: str | None
    source: str
    format: str
    row_lines: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def missing(self) -> "MissingValues | None":
        """Where the features have missing values (NaN), or None if they have none.

        Time O(n_samples * n_features), memory one bool per value.
        """
        mask = np.isnan(self.X)
        if not mask.any():
            return None
        rows = mask.any(axis=1)
        columns = np.flatnonzero(mask.any(axis=0))
        first_row = int(np.argmax(rows))
        first_column = int(np.argmax(mask[first_row]))
        return MissingValues(
            n_values=int(np.count_nonzero(mask)),
            n_rows=int(np.count_nonzero(rows)),
            n_samples=self.n_samples,
            columns=[self.feature_names[j] for j in columns],
            n_features=self.n_features,
            first=f"{self.where(first_row)}, column {self.feature_names[first_column]!r}",
        )

    def where(self, row: int) -> str:
        """``"data.csv, line 12"`` (text formats) or ``"data.npy, row 10"``."""
        if self.row_lines is not None:
            return f"{self.source}, line {int(self.row_lines[row])}"
        return f"{self.source}, row {row}"

    def binary_target(self, positive: Any = None, *, require_both: bool = True) -> np.ndarray:
        """The labels as a bipartite target: 1 for the relevant label, 0 otherwise.

        Parameters
        ----------
        positive : label, optional
            The relevant label (compared with the labels as read: ``"1"`` and
            ``1`` both match a numeric label 1).  Default: the greater of the
            two labels; a third label is then an error naming its line.
        require_both : bool, default True
            Raise if only one class is present (training needs both;
            scoring a file of one class does not).

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
            target = _match_label(positive, labels, self.source)
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


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------


def detect_format(path: str | os.PathLike) -> str:
    """The format of a data file from its name (``.gz`` is looked through)."""
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(".npy"):
        return "npy"
    if name.endswith(".npz"):
        return "npz"
    if name.endswith(_LIBSVM_EXTENSIONS):
        return "libsvm"
    if name.endswith(_CSV_EXTENSIONS):
        return "csv"
    raise DataError(
        f"{os.fspath(path)}: cannot tell the format from the name; use .csv/.tsv (with a header), "
        ".svm/.libsvm (LIBSVM/svmlight), .npy or .npz, or pass the format explicitly (--format)"
    )


def load_data(
    path: str | os.PathLike,
    *,
    label: str | int | None = None,
    require_label: bool = True,
    drop: Sequence[str] = (),
    fmt: str | None = None,
    n_features: int | None = None,
    allow_missing: bool = True,
) -> Dataset:
    """Read a labelled (or unlabelled) data file.

    Parameters
    ----------
    path : str or path-like
    label : str or int, optional
        CSV: the label column's name (default ``"label"``); npy: the label
        column's index (default: the last column); npz: the label array's
        key (default ``"y"``); LIBSVM: ignored (the label is the first field).
    require_label : bool, default True
        With False, a file without the label column is read as features only
        (``Dataset.y`` is None).  For ``.npy`` the label column is then kept
        only if ``n_features`` says there is one column too many.
    drop : sequence of str
        CSV columns that are neither features nor the label (ids, names).
    fmt : {"csv", "libsvm", "npy", "npz"}, optional
        Default: from the file name (:func:`detect_format`).
    n_features : int, optional
        Expected number of features (a fitted model's): LIBSVM rows are
        padded to it; a different count is an error naming both numbers.
    allow_missing : bool, default True
        Read missing feature values (CSV: an empty field or one of
        :data:`MISSING_VALUES`; npy/npz: NaN) as NaN, for the learners that
        handle them (:meth:`Dataset.missing` says where they are).  With
        False, the first one is an error naming its line and column.

    Raises
    ------
    DataError
        Missing file, unreadable or malformed content, missing label column,
        non-numeric or infinite feature values, a missing or non-finite
        label, no rows; missing feature values when ``allow_missing`` is
        False.
    """
    source = os.fspath(path)
    if fmt is None:
        fmt = detect_format(source)
    elif fmt not in FORMATS:
        raise DataError(f"{source}: format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if not os.path.exists(source):
        raise DataError(f"{source}: no such file")
    if os.path.isdir(source):
        raise DataError(f"{source}: is a directory, expected a data file")
    try:
        if fmt == "csv":
            data = _read_csv(source, label, require_label, drop)
        elif fmt == "libsvm":
            data = _read_libsvm(source, n_features)
        elif fmt == "npy":
            data = _read_npy(source, label, require_label, n_features)
        else:
            data = _read_npz(source, label, require_label)
    except OSError as exc:  # permissions, bad gzip stream, ...
        raise DataError(f"{source}: cannot read the file ({exc.strerror or exc})") from None
    if n_features is not None and data.n_features != n_features:
        raise DataError(
            f"{source}: {data.n_features} feature column(s), but the model was fitted on {n_features}"
            + (" (is the label column named differently? use --label)" if data.n_features == n_features + 1 else "")
        )
    if not allow_missing:
        missing = data.missing()
        if missing is not None:
            raise DataError(f"{missing.first}: missing value; complete numeric data was asked for "
                            "(allow_missing=False)")
    return data


# --------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------


def _open_text(source: str):
    with open(source, "rb") as fh:
        magic = fh.read(2)
    raw = gzip.open(source, "rb") if magic == b"\x1f\x8b" else open(source, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="strict", newline="")


def _sniff_delimiter(header: str) -> str:
    counts = {d: header.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def _read_csv(source: str, label: Any, require_label: bool, drop: Sequence[str]) -> Dataset:
    label_name = DEFAULT_LABEL if label is None else str(label)
    explicit_label = label is not None
    try:
        fh = _open_text(source)
        with fh:
            return _parse_csv(fh, source, label_name, explicit_label, require_label, drop)
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start}); is it a binary file?") from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise DataError(f"{source}: damaged gzip data ({exc})") from None
    except csv.Error as exc:
        raise DataError(f"{source}: malformed CSV ({exc})") from None


def _parse_csv(fh, source, label_name, explicit_label, require_label, drop) -> Dataset:
    # Find the header: the first non-blank line.
    header_line = ""
    header_lineno = 0
    for header_lineno, header_line in enumerate(fh, start=1):
        if header_line.strip():
            break
    else:
        raise DataError(f"{source}: the file is empty (expected a header line, then one row per example)")
    delimiter = _sniff_delimiter(header_line)
    header = next(csv.reader([header_line], delimiter=delimiter))
    names = [h.strip() for h in header]
    if any(not n for n in names):
        raise DataError(f"{source}, line {header_lineno}: the header has an empty column name "
                        f"(column {names.index('') + 1})")
    seen: dict[str, int] = {}
    for n in names:
        if n in seen:
            raise DataError(f"{source}, line {header_lineno}: the header names the column {n!r} twice")
        seen[n] = 1
    if all(_is_number(n) for n in names):
        raise DataError(f"{source}, line {header_lineno}: expected a header line of column names, "
                        f"got numbers ({header_line.strip()[:60]!r}); add a header")
    unknown = [d for d in drop if d not in seen]
    if unknown:
        raise DataError(f"{source}: no column {unknown[0]!r} to drop (columns: {_columns(names)})")
    label_index: int | None
    if label_name in seen:
        label_index = names.index(label_name)
    elif require_label or explicit_label:
        close = difflib.get_close_matches(label_name, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        if not explicit_label:
            hint += "; name the label column with --label COLUMN"
        raise DataError(f"{source}: no label column {label_name!r} in the header (columns: {_columns(names)}){hint}")
    else:
        label_index = None
    if label_index is not None and label_name in drop:
        raise DataError(f"{source}: the label column {label_name!r} cannot also be dropped")
    feature_idx = [i for i, n in enumerate(names) if i != label_index and n not in drop]
    if not feature_idx:
        raise DataError(f"{source}: no feature columns (columns: {_columns(names)})")

    fast = _csv_fast_path(source, delimiter, header_lineno, len(names), feature_idx, label_index)
    if fast is not None:
        X, y = fast
        data = Dataset(X, y, [names[i] for i in feature_idx], label_name if label_index is not None else None,
                       source, "csv")
        data.row_lines = _LazyLines(source, header_lineno, delimiter)
        return data

    n_fields = len(names)
    reader = csv.reader(fh, delimiter=delimiter)
    # the reader's line_num counts from the first line it reads
    offset = header_lineno
    blocks: list[np.ndarray] = []
    labels: list[str] = []
    lines: list[int] = []
    chunk: list[list[str]] = []
    chunk_lines: list[int] = []
    take = np.asarray(feature_idx)

    def flush():
        if chunk:
            blocks.append(_chunk_to_float(chunk, chunk_lines, take, names, source))
            chunk.clear()
            chunk_lines.clear()

    for row in reader:
        lineno = reader.line_num + offset
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # blank line
        if len(row) != n_fields:
            raise DataError(f"{source}, line {lineno}: expected {n_fields} fields as in the header, got {len(row)}")
        if label_index is not None:
            value = row[label_index].strip()
            if value.lower() in _MISSING:
                raise DataError(f"{source}, line {lineno}: missing label in column {label_name!r}")
            labels.append(value)
        lines.append(lineno)
        chunk.append(row)
        chunk_lines.append(lineno)
        if len(chunk) >= _CHUNK_ROWS:
            flush()
    flush()
    if not lines:
        raise DataError(f"{source}: no data rows after the header")
    X = np.ascontiguousarray(np.concatenate(blocks, axis=0))
    if label_index is not None:
        for text in set(labels):  # the distinct labels: few, even in a long file
            problem = _label_problem(text)
            if problem is not None:
                row = labels.index(text)
                raise DataError(f"{source}, line {lines[row]}: {problem} label in column {label_name!r}, "
                                f"got {text[:40]!r}")
    y = _label_array(labels) if label_index is not None else None
    return Dataset(X, y, [names[i] for i in feature_idx], label_name if label_index is not None else None,
                   source, "csv", np.asarray(lines, dtype=np.int64))


def _csv_fast_path(source, delimiter, header_lineno, n_fields, feature_idx, label_index):
    """A C reader for the common, clean file; None sends it to the checking parser.

    pandas' reader when pandas is installed (about four times faster than
    ``np.loadtxt``), else NumPy's ``loadtxt`` for files of numbers only.  Both
    read every column, so a row with too many or too few fields fails here.
    The checking parser (the ``csv`` module) tracks lines, so it runs only
    when this fails or a value needs a closer look, and names the line.

    Returns
    -------
    (X, y) or None
        ``y`` as :func:`_label_array` would give it (float64, or stripped
        text), or None without a label column.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's note about blank lines and max_rows
            try:
                import pandas  # noqa: F401
            except ImportError:
                result = _csv_numpy_read(source, delimiter, header_lineno, n_fields, feature_idx, label_index)
            else:
                result = _csv_pandas_read(source, delimiter, header_lineno, n_fields, feature_idx, label_index)
    except Exception:  # any problem: the checking parser finds it and names the line
        return None
    if result is None:
        return None
    X, y = result
    if X.shape[0] == 0 or np.isinf(X).any():
        return None  # NaN is a missing value; inf is refused by the checking parser, which names it
    if y is not None and y.shape[0] != X.shape[0]:
        return None
    return np.ascontiguousarray(X, dtype=np.float64), y


def _case_spellings(word: str) -> list[str]:
    """Every upper/lower-case spelling of ``word`` ("na" -> na, nA, Na, NA)."""
    return ["".join(chars) for chars in itertools.product(*({c.lower(), c.upper()} for c in word))]


#: What pandas reads as missing: the missing values in every case, and
#: signed NaN; anything else odd goes to the checking parser.
_PANDAS_NA = sorted({s for word in (*_MISSING, "+nan", "-nan") for s in _case_spellings(word)})


def _csv_pandas_read(source, delimiter, header_lineno, n_fields, feature_idx, label_index):
    import pandas as pd

    dtypes = {j: str for j in range(n_fields)}
    dtypes.update({j: np.float64 for j in feature_idx})
    # a row longer than the header makes pandas warn and drop data: refuse it
    warnings.filterwarnings("error", category=pd.errors.ParserWarning)
    with open(source, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
    # Missing values become NaN, in every column (one list for all: a per-column
    # dict of NA values costs pandas a fixed ~20 ms per file).  pandas also
    # fills a short row's absent fields with NaN, and absent fields are always
    # the last ones: NaN in the last column is a missing value only if every
    # row has all its fields (_rows_complete), else the checking parser
    # decides and names the short row.
    frame = pd.read_csv(source, sep=delimiter, header=None, names=list(range(n_fields)), index_col=False,
                        skiprows=header_lineno, dtype=dtypes, na_filter=True, keep_default_na=False,
                        na_values=_PANDAS_NA, quotechar='"', skip_blank_lines=True, engine="c",
                        encoding="utf-8-sig", compression="gzip" if gzipped else None)
    if label_index is not None and frame[label_index].isna().any():
        return None  # a missing label: named by the checking parser
    if frame[n_fields - 1].isna().any() and not _rows_complete(source, delimiter, header_lineno, n_fields):
        return None  # a short row, or a file the delimiter count cannot vouch for
    X = frame[list(feature_idx)].to_numpy(dtype=np.float64)
    if label_index is None:
        return X, None
    labels = frame[label_index].str.strip()
    if labels.str.lower().isin(_MISSING).any():
        return None  # a missing label (" NA "): named by the checking parser
    numbers = pd.to_numeric(labels, errors="coerce").to_numpy(dtype=np.float64)
    if np.isfinite(numbers).all():
        return X, numbers
    if np.isinf(numbers).any() or any(_label_problem(text) for text in labels.unique()):
        return None  # a non-finite label: named by the checking parser
    return X, labels.to_numpy(dtype=object)


def _rows_complete(source: str, delimiter: str, header_lineno: int, n_fields: int,
                   block_size: int = 1 << 24) -> bool:
    """Whether every non-blank data line of the file has ``n_fields`` fields, by counting delimiters.

    True only when that is certain: data lines with a quote character (a
    quoted field may hold delimiters or line breaks), a lone carriage return
    or a whitespace-only line give False; the checking parser then reads the
    file.  Time O(file size) in NumPy, memory O(block_size).
    """
    want = n_fields - 1
    sep = ord(delimiter)
    with open(source, "rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    with (gzip.open(source, "rb") if gzipped else open(source, "rb")) as fh:
        for _ in range(header_lineno):
            line = fh.readline()
            if b"\r" in line.rstrip(b"\r\n"):
                return False  # a lone carriage return: the header line is not where this count thinks
        carry = b""
        while True:
            chunk = fh.read(block_size)
            block = carry + chunk
            if not chunk:
                block += b"\n" if block and not block.endswith(b"\n") else b""
            cut = block.rfind(b"\n") + 1
            carry, block = block[cut:], block[:cut]
            if block and not _block_rows_complete(block, sep, want):
                return False
            if not chunk:
                return True


def _block_rows_complete(block: bytes, sep: int, want: int) -> bool:
    """Every line of ``block`` (whole lines, each ending in ``\\n``) is blank or has ``want`` delimiters."""
    if b'"' in block:
        return False
    a = np.frombuffer(block, dtype=np.uint8)
    cr = a == 13
    if cr.any() and (cr[:-1] & (a[1:] != 10)).any():
        return False  # a lone carriage return: a line break to the csv module, not to this count
    ends = np.flatnonzero(a == 10)
    starts = np.concatenate(([0], ends[:-1] + 1))
    counts = np.diff(np.searchsorted(np.flatnonzero(a == sep), ends), prepend=0)
    width = ends - starts - cr[np.maximum(ends - 1, 0)]  # characters before "\r\n" or "\n"
    return bool(np.all((counts == want) | (width == 0)))


def _csv_numpy_read(source, delimiter, header_lineno, n_fields, feature_idx, label_index):
    with _open_text(source) as fh:
        table = np.loadtxt(fh, dtype=np.float64, delimiter=delimiter, skiprows=header_lineno, comments=None,
                           quotechar='"', ndmin=2)  # numbers only; text anywhere -> the checking parser
    if table.shape[1] != n_fields:
        return None
    # NaN in a feature is a missing value ("nan"); NaN or inf in the label, inf anywhere: the checking parser
    if label_index is not None and not np.isfinite(table[:, label_index]).all():
        return None
    return table[:, feature_idx], (None if label_index is None else table[:, label_index].copy())


class _LazyLines:
    """The file line of each data row, found by re-reading the file on first use (errors only)."""

    def __init__(self, source: str, header_lineno: int, delimiter: str):
        self.source, self.header_lineno, self.delimiter = source, header_lineno, delimiter
        self._lines: np.ndarray | None = None

    def __getitem__(self, row: int) -> int:
        if self._lines is None:
            lines = []
            with _open_text(self.source) as fh:
                for _ in range(self.header_lineno):
                    next(fh)
                reader = csv.reader(fh, delimiter=self.delimiter)
                for fields in reader:
                    if fields and not (len(fields) == 1 and not fields[0].strip()):
                        lines.append(reader.line_num + self.header_lineno)
            self._lines = np.asarray(lines, dtype=np.int64)
        return int(self._lines[row])


def _chunk_to_float(chunk, chunk_lines, take, names, source) -> np.ndarray:
    """The feature fields of a chunk of rows as float64, missing values as NaN.

    A column of plain numbers is converted at once; only a column that fails
    goes field by field (missing value, number, or an error naming the line).
    """
    cells = np.asarray(chunk, dtype=object)[:, take]
    try:
        block = cells.astype(np.float64)
    except (ValueError, TypeError):
        block = np.empty(cells.shape, dtype=np.float64)
        for c in range(cells.shape[1]):
            try:
                block[:, c] = cells[:, c].astype(np.float64)
            except (ValueError, TypeError):
                name = names[take[c]]
                block[:, c] = [_field_value(text, source, chunk_lines[r], name) for r, text in enumerate(cells[:, c])]
    infinite = np.isinf(block)
    if infinite.any():
        r, c = (int(v[0]) for v in np.nonzero(infinite))
        raise DataError(f"{source}, line {chunk_lines[r]}, column {names[take[c]]!r}: expected a finite number, "
                        f"got {str(cells[r, c]).strip()[:40]!r}")
    return block


def _field_value(text: str, source: str, line: int, name: str) -> float:
    """One feature field: a number, NaN for a missing value, or a DataError naming the line and column."""
    stripped = str(text).strip()
    if stripped.lower() in _MISSING:
        return math.nan
    try:
        return float(stripped)
    except ValueError:
        raise DataError(f"{source}, line {line}, column {name!r}: expected a number, got {stripped[:40]!r}"
                        " (drop non-numeric columns with --drop COLUMN)") from None


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
    try:
        values = np.asarray(labels, dtype=np.float64)
    except ValueError:
        return np.asarray(labels, dtype=object)
    if not np.isfinite(values).all():
        return np.asarray(labels, dtype=object)
    return values


# --------------------------------------------------------------------------
# LIBSVM / svmlight
# --------------------------------------------------------------------------


def _read_libsvm(source: str, n_features: int | None) -> Dataset:
    labels: list[float] = []
    lines: list[int] = []
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    min_index = None
    max_index = -1
    try:
        fh = _open_text(source)
        with fh:
            for lineno, raw in enumerate(fh, start=1):
                text = raw.split("#", 1)[0].strip()
                if not text:
                    continue
                fields = text.split()
                try:
                    label = float(fields[0])
                except ValueError:
                    raise DataError(f"{source}, line {lineno}: expected a numeric label first, got "
                                    f"{fields[0][:40]!r} (LIBSVM rows are 'label index:value ...')") from None
                if not math.isfinite(label):
                    raise DataError(f"{source}, line {lineno}: expected a finite label, got {fields[0]!r}")
                row = len(labels)
                previous = -1
                for item in fields[1:]:
                    key, colon, value = item.partition(":")
                    if not colon:
                        raise DataError(f"{source}, line {lineno}: malformed feature {item[:40]!r} "
                                        "(expected index:value)")
                    if key == "qid":
                        continue
                    try:
                        index = int(key)
                        number = float(value)
                    except ValueError:
                        raise DataError(f"{source}, line {lineno}: malformed feature {item[:40]!r} "
                                        "(expected an integer index and a number)") from None
                    if index < 0:
                        raise DataError(f"{source}, line {lineno}: negative feature index in {item!r}")
                    if index > MAX_LIBSVM_FEATURES:
                        raise DataError(f"{source}, line {lineno}: feature index {index} is beyond the limit of "
                                        f"{MAX_LIBSVM_FEATURES} features (rankcore.datasets.MAX_LIBSVM_FEATURES; "
                                        "the matrix is made dense)")
                    if index <= previous:
                        raise DataError(f"{source}, line {lineno}: feature indices must increase, "
                                        f"got {index} after {previous}")
                    if not math.isfinite(number):
                        raise DataError(f"{source}, line {lineno}: feature {index}: expected a finite number, "
                                        f"got {value!r} (a LIBSVM file has no missing values: an absent "
                                        "feature is 0; write missing values to a CSV or .npy file)")
                    previous = index
                    min_index = index if min_index is None else min(min_index, index)
                    max_index = max(max_index, index)
                    rows.append(row)
                    cols.append(index)
                    vals.append(number)
                labels.append(label)
                lines.append(lineno)
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start}); is it a binary file?") from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise DataError(f"{source}: damaged gzip data ({exc})") from None
    if not labels:
        raise DataError(f"{source}: no data rows (LIBSVM rows are 'label index:value ...')")
    zero_based = min_index == 0
    width = max_index + 1 if zero_based else max_index
    if n_features is not None:
        if width > n_features:
            raise DataError(f"{source}: feature index {max_index} is beyond the model's {n_features} features")
        width = n_features
    if width < 1:
        raise DataError(f"{source}: no feature values in any row")
    if len(labels) * width > MAX_DENSE_CELLS:
        raise DataError(f"{source}: {len(labels)} rows x {width} features is too large a dense matrix "
                        f"(limit {MAX_DENSE_CELLS} values, rankcore.datasets.MAX_DENSE_CELLS); read sparse data "
                        "with sklearn.datasets.load_svmlight_file")
    X = np.zeros((len(labels), width), dtype=np.float64)
    if vals:
        c = np.asarray(cols, dtype=np.int64) - (0 if zero_based else 1)
        X[np.asarray(rows, dtype=np.int64), c] = np.asarray(vals, dtype=np.float64)
    base = 0 if zero_based else 1
    names = [f"f{j + base}" for j in range(width)]
    return Dataset(X, np.asarray(labels, dtype=np.float64), names, "first field", source, "libsvm",
                   np.asarray(lines, dtype=np.int64))


# --------------------------------------------------------------------------
# NumPy files
# --------------------------------------------------------------------------


def _load_numpy(source: str):
    try:
        return np.load(source, allow_pickle=False)
    except ValueError as exc:
        raise DataError(f"{source}: not a NumPy file without pickled objects ({exc})") from None
    except (EOFError, OSError) as exc:
        raise DataError(f"{source}: not a readable NumPy file ({exc})") from None
    except Exception as exc:  # zipfile.BadZipFile and friends
        raise DataError(f"{source}: not a readable NumPy file ({type(exc).__name__}: {exc})") from None


def _numeric_matrix(arr: Any, source: str, what: str) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.dtype.kind not in "biuf":
        raise DataError(f"{source}: {what} must hold numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise DataError(f"{source}: {what} must be a 2-D array (rows, columns), got shape {arr.shape}")
    if arr.shape[0] < 1:
        raise DataError(f"{source}: {what} has no rows")
    out = np.ascontiguousarray(arr, dtype=np.float64)
    bad = np.isinf(out)  # NaN is a missing value; a missing label is refused by the caller
    if bad.any():
        r, c = (int(v[0]) for v in np.nonzero(bad))
        raise DataError(f"{source}, row {r}: {what} column {c}: expected a finite number, got {float(out[r, c])!r}")
    return out


def _read_npy(source: str, label: Any, require_label: bool, n_features: int | None) -> Dataset:
    arr = _load_numpy(source)
    if not isinstance(arr, np.ndarray):
        raise DataError(f"{source}: expected one array (.npy); for several arrays use .npz")
    M = _numeric_matrix(arr, source, "the array")
    d = M.shape[1]
    if label is None:
        index = d - 1
    else:
        try:
            index = int(label)
        except (TypeError, ValueError):
            raise DataError(f"{source}: for a .npy file --label is the label's column index "
                            f"(e.g. -1 for the last), got {label!r}") from None
        if not -d <= index < d:
            raise DataError(f"{source}: label column index {index} is out of range for {d} columns")
        index %= d
    has_label = require_label or label is not None or (n_features is not None and d == n_features + 1)
    if has_label:
        if d < 2:
            raise DataError(f"{source}: the array has 1 column; it needs features and a label column")
        keep = [j for j in range(d) if j != index]
        missing = np.isnan(M[:, index])
        if missing.any():
            raise DataError(f"{source}, row {int(np.argmax(missing))}: missing label (NaN) in column {index}")
        return Dataset(np.ascontiguousarray(M[:, keep]), M[:, index].copy(), [f"x{j}" for j in keep],
                       f"column {index}", source, "npy")
    return Dataset(M, None, [f"x{j}" for j in range(d)], None, source, "npy")


def _read_npz(source: str, label: Any, require_label: bool) -> Dataset:
    archive = _load_numpy(source)
    if isinstance(archive, np.ndarray):
        raise DataError(f"{source}: expected an .npz archive with arrays 'X' and 'y', got a single array")
    with archive:
        keys = list(archive.files)
        if "X" not in keys:
            raise DataError(f"{source}: no array 'X' (arrays: {', '.join(keys) or 'none'})")
        try:
            X = _numeric_matrix(archive["X"], source, "X")
            y_key = "y" if label is None else str(label)
            y = None
            if y_key in keys:
                y = np.asarray(archive[y_key])
            elif require_label or label is not None:
                raise DataError(f"{source}: no label array {y_key!r} (arrays: {', '.join(keys)}); "
                                "name it with --label KEY")
            names = [f"x{j}" for j in range(X.shape[1])]
            if "feature_names" in keys:
                raw = np.asarray(archive["feature_names"])
                if raw.ndim != 1 or raw.shape[0] != X.shape[1]:
                    raise DataError(f"{source}: feature_names must list {X.shape[1]} names, got shape {raw.shape}")
                names = [str(v) for v in raw]
        except ValueError as exc:
            if isinstance(exc, DataError):
                raise
            raise DataError(f"{source}: {exc}") from None
    if y is not None:
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1:
            raise DataError(f"{source}: the label array {y_key!r} must be 1-D, got shape {y.shape}")
        if y.shape[0] != X.shape[0]:
            raise DataError(f"{source}: X has {X.shape[0]} rows but the label array {y_key!r} has {y.shape[0]}")
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            row = int(np.flatnonzero(~np.isfinite(y))[0])
            what = "missing label (NaN)" if np.isnan(y[row]) else f"non-finite label {float(y[row])!r}"
            raise DataError(f"{source}, row {row}: {what} in array {y_key!r}")
        if y.dtype.kind in "biu":
            y = y.astype(np.float64)
        elif y.dtype.kind == "U":
            y = y.astype(object)
        elif y.dtype.kind != "f":
            raise DataError(f"{source}: the label array {y_key!r} must hold numbers or text, got dtype {y.dtype}")
    return Dataset(X, y, names, None if y is None else y_key, source, "npz")


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _columns(names: Iterable[str], limit: int = 12) -> str:
    """The column names, or the first and last few of a long header (the label is often last)."""
    names = list(names)
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


def _match_label(positive: Any, labels: np.ndarray, source: str) -> Any:
    """The label value equal to ``positive`` (text from the command line or a value)."""
    uniques = np.unique(labels)
    for value in uniques:
        if value == positive or str(value) == str(positive):
            return value
        if labels.dtype.kind == "f":
            try:
                if float(positive) == float(value):
                    return value
            except (TypeError, ValueError):
                pass
    raise DataError(f"{source}: the relevant label {positive!r} does not occur (labels present: {_show_list(uniques)})")

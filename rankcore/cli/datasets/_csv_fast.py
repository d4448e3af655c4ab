"""The fast route for a clean CSV file: pandas' C parser, or NumPy's ``loadtxt`` without pandas.

Every function here returns None when the file needs the checking parser
(:mod:`._csv`), which then finds the problem and names its line.
"""

from __future__ import annotations

import gzip
import itertools
import warnings

import numpy as np

from ._dataset import _MISSING, _MISSING_FEATURE, _canonical_nan, _label_problem, _open_text
from ._labels import python_only_number


def _csv_fast_path(source, delimiter, header_lineno, n_fields, feature_idx, label_index, text=frozenset(),
                   keep_idx=(), first_name=None):
    """A C reader for the common, clean file; None sends it to the checking parser.

    pandas' reader when pandas is installed (about four times faster than
    ``np.loadtxt``), else NumPy's ``loadtxt`` for files of numbers only.  Both
    read every column, so a row with too many or too few fields fails here.
    The checking parser (the ``csv`` module) tracks lines, so it runs only
    when this fails or a value needs a closer look, and names the line.

    Parameters
    ----------
    text : frozenset of int or "auto"
        Feature columns read as text (categories), or every column that
        holds text.  Text in any other feature column sends the file to the
        checking parser, which names every such column.
    keep_idx : sequence of int
        Columns read aside as text (identifiers).
    first_name : str, optional
        The header's first name: a row holding it there may be the header
        again (files joined with ``cat``), for the checking parser to name.

    Returns
    -------
    (X, y, texts, kept) or None
        ``y`` as :func:`_label_array` would give it (float64, or stripped
        text), or None without a label column.  ``texts``: text feature
        column index -> its stripped values (None where missing); their
        ``X`` column is NaN.  ``kept``: kept column index -> its values.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's note about blank lines and max_rows
            try:
                import pandas  # noqa: F401
            except ImportError:
                if text or keep_idx:
                    return None
                result = _csv_numpy_read(source, delimiter, header_lineno, n_fields, feature_idx, label_index)
                result = None if result is None else (*result, {}, {})
            else:
                result = _csv_pandas_read(source, delimiter, header_lineno, n_fields, feature_idx, label_index,
                                          text, keep_idx, first_name)
    except Exception:  # any problem: the checking parser finds it and names the line
        return None
    if result is None:
        return None
    X, y, texts, kept = result
    if X.shape[0] == 0 or np.isinf(X).any():
        return None  # NaN is a missing value; inf is refused by the checking parser, which names it
    X = _canonical_nan(X)
    if y is not None and y.shape[0] != X.shape[0]:
        return None
    return np.ascontiguousarray(X, dtype=np.float64), y, texts, kept


def _case_spellings(word: str) -> list[str]:
    """Every upper/lower-case spelling of ``word`` ("na" -> na, nA, Na, NA)."""
    return ["".join(chars) for chars in itertools.product(*({c.lower(), c.upper()} for c in word))]


#: What pandas reads as missing: the missing values in every case, and
#: signed NaN; anything else odd goes to the checking parser.
_PANDAS_NA = sorted({s for word in _MISSING_FEATURE for s in _case_spellings(word)})


def _pandas_frame(source, delimiter, header_lineno, n_fields, numeric):
    import pandas as pd

    dtypes = {j: str for j in range(n_fields)}
    dtypes.update({j: np.float64 for j in numeric})
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
    return pd.read_csv(source, sep=delimiter, header=None, names=list(range(n_fields)), index_col=False,
                       skiprows=header_lineno, dtype=dtypes, na_filter=True, keep_default_na=False,
                       na_values=_PANDAS_NA, quotechar='"', skip_blank_lines=True, engine="c",
                       encoding="utf-8-sig", compression="gzip" if gzipped else None)


def plain_numbers(cells: np.ndarray) -> bool:
    """Whether no field of ``cells`` (text) holds an underscore or a character beyond ASCII.

    Python's ``float()``, which NumPy's conversion of text calls, reads ``1_000`` as 1000 and other scripts' digits
    (``"٣"``) as numbers; to pandas, R and a spreadsheet they are text, and so they are here.  One pass over the
    fields joined a block at a time, O(total length): a column of hundreds of megabytes is never copied whole.
    """
    flat = np.ravel(cells)
    for start in range(0, flat.shape[0], _PLAIN_BLOCK):
        joined = "".join(str(cell) for cell in flat[start:start + _PLAIN_BLOCK].tolist())
        if python_only_number(joined):
            return False
    return True


#: Fields joined at once by :func:`plain_numbers` (a few megabytes of text).
_PLAIN_BLOCK = 1 << 16


def plain_floats(cells: np.ndarray) -> np.ndarray:
    """``cells`` (text) as float64, or a ValueError when a field holds what only Python's ``float()`` reads as a
    number (:func:`plain_numbers`) or no number at all."""
    if not plain_numbers(cells):
        raise ValueError("an underscore or a non-ASCII character in a number")
    return np.asarray(cells).astype(np.float64)


def _csv_pandas_read(source, delimiter, header_lineno, n_fields, feature_idx, label_index, text, keep_idx,
                     first_name=None):
    import pandas as pd

    named = frozenset() if text == "auto" else frozenset(text)
    numeric = [j for j in feature_idx if j not in named]
    try:
        frame = _pandas_frame(source, delimiter, header_lineno, n_fields, numeric)
    except ValueError:
        if text != "auto":
            return None  # text in a numeric column: the checking parser names every such column
        # which columns hold text: read everything as text, then convert the columns of numbers
        frame = _pandas_frame(source, delimiter, header_lineno, n_fields, ())
        for j in feature_idx:
            try:                   # as the checking parser converts (plain_floats), converted once
                column = frame[j].to_numpy(dtype=object)
                if not plain_numbers(column[frame[j].notna().to_numpy()]):
                    raise ValueError(j)
                frame[j] = column.astype(np.float64)
            except (ValueError, TypeError):
                named |= {j}
    if any(_spaced_oddly(frame[j]) for j in feature_idx if j in named):
        return None  # text the checking parser strips to a number or a missing value: it decides, as on every file
    first = frame[0]
    if (first_name is not None and not pd.api.types.is_numeric_dtype(first)
            and (first.str.strip().str.lstrip("\ufeff") == first_name).any()):
        return None  # the header again, as a row (files joined with `cat`): named by the checking parser
    if label_index is not None and frame[label_index].isna().any():
        return None  # a missing label: named by the checking parser
    if frame[n_fields - 1].isna().any() and not _rows_complete(source, delimiter, header_lineno, n_fields):
        return None  # a short row, or a file the delimiter count cannot vouch for
    if any(frame[j].isna().any() for j in keep_idx):
        return None  # an identifier spelled like a missing value: the checking parser keeps its text
    texts = {j: frame[j].str.strip().astype(object).where(frame[j].notna(), None).to_numpy(dtype=object)
             for j in feature_idx if j in named}
    kept = {j: frame[j].str.strip().to_numpy(dtype=object) for j in keep_idx}
    X = np.full((frame.shape[0], len(feature_idx)), np.nan)
    for c, j in enumerate(feature_idx):
        if j not in named:
            X[:, c] = frame[j].to_numpy(dtype=np.float64)
    if label_index is None:
        return X, None, texts, kept
    labels = frame[label_index].str.strip()
    if labels.str.lower().isin(_MISSING).any():
        return None  # a missing label (" NA "): named by the checking parser
    numbers = pd.to_numeric(labels, errors="coerce").to_numpy(dtype=np.float64)
    if np.isfinite(numbers).all():
        return X, numbers, texts, kept
    if np.isinf(numbers).any() or any(_label_problem(value) for value in labels.unique()):
        return None  # a non-finite label: named by the checking parser
    return X, labels.to_numpy(dtype=object), texts, kept


def _spaced_oddly(column) -> bool:
    """Whether a column of text holds a field that stripping makes a missing value (`` NA ``) or that has spaces
    beyond ASCII at an end (a no-break space before ``1``).

    The checking parser strips every field as Python does (all of Unicode's spaces) before it reads a number or a
    missing value; pandas' reader compares the fields as written.
    """
    given = column.dropna()
    stripped = given.str.strip()
    return bool((stripped.str.lower().isin(_MISSING_FEATURE) | (stripped != given.str.strip(_ASCII_SPACES))).any())


#: The spaces of ASCII, which the checking parser strips as pandas' reader keeps them.
_ASCII_SPACES = " \t\n\r\x0b\x0c"


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

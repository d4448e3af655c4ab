"""CSV with a header line: the checking parser, which names the line and column of every problem.

A clean file is read by a C reader first (:mod:`._csv_fast`); only a file
that fails there, or whose values need a closer look, comes through the
line-tracking parser here.
"""

from __future__ import annotations

import csv
import difflib
import gzip
import math
from typing import Any, Sequence

import numpy as np

from ._csv_fast import _csv_fast_path
from ._dataset import (_MISSING, DEFAULT_LABEL, DataError, Dataset, TextColumnsError, _canonical_nan, _columns,
                       _is_number, _label_array, _label_problem, _open_text)

_CHUNK_ROWS = 65536  # rows converted to float at a time (bounded memory for the text form)


def _sniff_delimiter(header: str) -> str:
    counts = {d: header.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


class _NewTextColumns(Exception):
    """Text found, after the first chunk of rows, in columns read as numbers until then: read again."""

    def __init__(self, columns: set[int]):
        super().__init__(columns)
        self.columns = columns


def _read_csv(source: str, label: Any, require_label: bool, drop: Sequence[str], categorical: Any = None,
              keep: Sequence[str] = (), qid: str | None = None) -> Dataset:
    label_name = DEFAULT_LABEL if label is None else str(label)
    explicit_label = label is not None
    found: set[int] = set()     # in "auto" mode: the columns known to hold text
    try:
        while True:
            fh = _open_text(source)
            with fh:
                try:
                    data = _parse_csv(fh, source, label_name, explicit_label, require_label, drop, categorical,
                                      _with_qid(keep, qid, label_name, drop, source), found, qid)
                    return data if qid is None else _queries_aside(data, qid, keep)
                except _NewTextColumns as more:
                    found |= more.columns
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start}); is it a binary file?") from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise DataError(f"{source}: damaged gzip data ({exc})") from None
    except csv.Error as exc:
        raise DataError(f"{source}: malformed CSV ({exc})") from None


def _parse_csv(fh, source, label_name, explicit_label, require_label, drop, categorical, keep, found,
               qid=None) -> Dataset:
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
    if qid is not None and qid not in seen:
        close = difflib.get_close_matches(qid, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise DataError(f"{source}: no query-id column {qid!r} (--qid) in the header (columns: {_columns(names)})"
                        f"{hint}")
    for name in keep:
        if name not in seen:
            raise DataError(f"{source}: no column {name!r} to copy to the output (columns: {_columns(names)})")
        if name == label_name or name in drop:
            raise DataError(f"{source}: the column {name!r} to copy to the output is the label or dropped")
    feature_idx = [i for i, n in enumerate(names) if i != label_index and n not in drop and n not in keep]
    if not feature_idx:
        raise DataError(f"{source}: no feature columns (columns: {_columns(names)})")
    text = _text_columns(categorical, names, feature_idx, source)
    keep_idx = [names.index(n) for n in keep]

    fast = _csv_fast_path(source, delimiter, header_lineno, len(names), feature_idx, label_index, text, keep_idx)
    if fast is not None:
        X, y, texts, kept = fast
        data = Dataset(X, y, [names[i] for i in feature_idx], label_name if label_index is not None else None,
                       source, "csv", named=True)
        data.row_lines = _LazyLines(source, header_lineno, delimiter)
        return _with_text(data, texts, kept, feature_idx, names)
    if text == "auto":
        text = frozenset(found)
        auto = True
    else:
        auto = False

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
    texts: dict[int, list] = {j: [] for j in text}
    kept: dict[int, list] = {j: [] for j in keep_idx}
    refused: dict[int, str] = {}     # a text column not read as text -> where its first text value is

    def flush():
        nonlocal text
        if chunk:
            cells = np.asarray(chunk, dtype=object)
            block, new = _chunk_to_float(cells, chunk_lines, take, names, source, text, auto or None, refused)
            if new:                  # auto: columns of text found in this chunk
                if blocks:
                    raise _NewTextColumns(found | new)
                text = text | new
                for j in new:
                    texts[j] = []
                block, _ = _chunk_to_float(cells, chunk_lines, take, names, source, text, None, refused)
            blocks.append(block)
            for j, values in texts.items():
                values.extend(_text_value(v) for v in cells[:, j])
            for j, values in kept.items():
                values.extend(str(v).strip() for v in cells[:, j])
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
    if refused:
        raise TextColumnsError(source, [names[j] for j in sorted(refused)], next(iter(refused.values())))
    X = np.ascontiguousarray(np.concatenate(blocks, axis=0))
    if label_index is not None:
        for text in set(labels):  # the distinct labels: few, even in a long file
            problem = _label_problem(text)
            if problem is not None:
                row = labels.index(text)
                raise DataError(f"{source}, line {lines[row]}: {problem} label in column {label_name!r}, "
                                f"got {text[:40]!r}")
    y = _label_array(labels) if label_index is not None else None
    data = Dataset(X, y, [names[i] for i in feature_idx], label_name if label_index is not None else None,
                   source, "csv", np.asarray(lines, dtype=np.int64), named=True)
    return _with_text(data, {j: np.asarray(v, dtype=object) for j, v in texts.items()},
                      {j: np.asarray(v, dtype=object) for j, v in kept.items()}, feature_idx, names)


def _with_qid(keep: Sequence[str], qid: str | None, label_name: str, drop: Sequence[str],
              source: str) -> list[str]:
    """The columns read aside: ``keep`` and the query-id column (checked to be neither the label nor dropped)."""
    if qid is None or qid in keep:
        return list(keep)
    if qid == label_name or qid in drop:
        raise DataError(f"{source}: the query-id column {qid!r} (--qid) is the label or dropped")
    return [*keep, qid]


def _queries_aside(data: Dataset, qid: str, keep: Sequence[str]) -> Dataset:
    """``data`` with the query-id column moved from the kept columns to :attr:`Dataset.qid`; no id missing."""
    values = data.kept[qid] if qid in keep else data.kept.pop(qid)
    missing = np.flatnonzero(np.isin(np.char.lower(values.astype(str)), list(_MISSING)))
    if missing.size:
        raise DataError(f"{data.where(int(missing[0]))}: missing query id in column {qid!r} (--qid); "
                        f"every row needs its query, got {values[missing[0]]!r}")
    data.qid, data.qid_name = values, qid
    return data


def _text_columns(categorical: Any, names: list[str], feature_idx: list[int], source: str):
    """The feature columns to read as text: ``"auto"`` (every one that holds text) or their indices."""
    if categorical is None:
        return frozenset()
    if isinstance(categorical, str) and categorical == "auto":
        return "auto"
    features = {names[j]: j for j in feature_idx}
    unknown = [c for c in categorical if c not in features]
    if unknown:
        raise DataError(f"{source}: no feature column {unknown[0]!r} to read by category "
                        f"(feature columns: {_columns(features)})")
    return frozenset(features[c] for c in categorical)


def _text_value(text: Any) -> str | None:
    """A categorical field: its text without surrounding spaces, or None for a missing value."""
    stripped = str(text).strip()
    return None if stripped.lower() in _MISSING else stripped


def _with_text(data: Dataset, texts: dict, kept: dict, feature_idx: list[int], names: list[str]) -> Dataset:
    """``data`` with its text feature columns as category codes (:attr:`Dataset.categories`) and kept columns."""
    for j, values in texts.items():
        present = values[np.not_equal(values, None)]
        categories = np.unique(present.astype(str)) if present.size else np.empty(0, dtype=str)
        codes = np.full(values.shape[0], np.nan)
        mask = np.not_equal(values, None)
        codes[mask] = np.searchsorted(categories, values[mask].astype(str))
        data.X[:, feature_idx.index(j)] = codes
        data.categories[names[j]] = categories.astype(object)
    data.kept = {names[j]: values for j, values in kept.items()}
    return data


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


def _chunk_to_float(rows, chunk_lines, take, names, source, text, found_new, refused):
    """The feature fields of a chunk of rows as float64, missing values as NaN, text columns NaN.

    A column of plain numbers is converted at once; only a column that fails
    goes field by field (missing value or number).  A column with other text
    is, with ``found_new`` (``"auto"`` mode), returned among the new text
    columns; otherwise recorded in ``refused`` (column -> where its first
    text value is), to be named with every other one once the file is read.

    Returns
    -------
    (block, new text columns)
    """
    cells = rows[:, take]
    new: set[int] = set()
    block = np.full(cells.shape, np.nan)
    numeric = [c for c in range(cells.shape[1]) if int(take[c]) not in text]
    try:
        block[:, numeric] = cells[:, numeric].astype(np.float64)
    except (ValueError, TypeError):
        for c in numeric:
            try:
                block[:, c] = cells[:, c].astype(np.float64)
            except (ValueError, TypeError):
                j = int(take[c])
                values = [_field_value(value) for value in cells[:, c]]
                bad = [r for r, v in enumerate(values) if v is None]
                if not bad:
                    block[:, c] = values
                elif found_new:
                    new.add(j)
                elif j not in refused:
                    refused[j] = (f"line {chunk_lines[bad[0]]}, column {names[j]!r}: expected a number, "
                                  f"got {str(cells[bad[0], c]).strip()[:40]!r}")
    infinite = np.isinf(block)
    if infinite.any():
        r, c = (int(v[0]) for v in np.nonzero(infinite))
        raise DataError(f"{source}, line {chunk_lines[r]}, column {names[take[c]]!r}: expected a finite number, "
                        f"got {str(cells[r, c]).strip()[:40]!r}")
    return _canonical_nan(block), new


def _field_value(text: str) -> float | None:
    """One feature field: a number, NaN for a missing value, or None for text."""
    stripped = str(text).strip()
    if stripped.lower() in _MISSING:
        return math.nan
    try:
        return float(stripped)
    except ValueError:
        return None

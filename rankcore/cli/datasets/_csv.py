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

from ._csv_fast import _csv_fast_path, plain_floats, plain_numbers
from ._aside import init_scores_aside, positions_aside, queries_aside, weights_aside, with_aside
from ._dataset import (_MISSING, _MISSING_FEATURE, DEFAULT_LABEL, DataError, Dataset, TextColumnsError, _canonical_nan,
                       _columns, _is_number, _label_array, _label_problem, _open_text)
from ._oddities import (comma_number, not_text_error, refuse_comma_categories, refuse_odd_header,
                        refuse_repeated_header, sniff_delimiter)

_CHUNK_ROWS = 65536  # rows converted to float at a time (bounded memory for the text form)


class _NewTextColumns(Exception):
    """Text found, after the first chunk of rows, in columns read as numbers until then: read again."""

    def __init__(self, columns: set[int]):
        super().__init__(columns)
        self.columns = columns


def header_names(source: str) -> list[str]:
    """The column names of a CSV file's header; none when it cannot be read (:func:`_read_csv` then says why)."""
    try:
        with _open_text(source) as fh:
            return _read_header(fh, source)[2]
    except (DataError, OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile, csv.Error):
        return []


def _read_csv(source: str, label: Any, require_label: bool, drop: Sequence[str], categorical: Any = None,
              keep: Sequence[str] = (), qid: str | None = None, position: str | None = None,
              init_score: str | None = None, weight: str | None = None) -> Dataset:
    label_name = DEFAULT_LABEL if label is None else str(label)
    explicit_label = label is not None
    found: set[int] = set()     # in "auto" mode: the columns known to hold text
    _check_distinct_aside(source, qid, position, init_score, weight)
    aside = with_aside(keep, qid, "query-id", "--qid", label_name, drop, source)
    aside = with_aside(aside, position, "display-position", "--position", label_name, drop, source)
    aside = with_aside(aside, init_score, "initial-score", "--init-score", label_name, drop, source)
    aside = with_aside(aside, weight, "weight", "--weight", label_name, drop, source)
    try:
        while True:
            fh = _open_text(source)
            with fh:
                try:
                    data = _parse_csv(fh, source, label_name, explicit_label, require_label, drop, categorical,
                                      aside, found, qid, position, init_score, weight)
                    refuse_comma_categories(data, categorical)
                    data = data if qid is None else queries_aside(data, qid, keep)
                    data = data if position is None else positions_aside(data, position, keep)
                    data = data if init_score is None else init_scores_aside(data, init_score, keep)
                    return data if weight is None else weights_aside(data, weight, keep)
                except _NewTextColumns as more:
                    found |= more.columns
    except UnicodeDecodeError as exc:
        raise not_text_error(source, exc) from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise DataError(f"{source}: damaged gzip data ({exc})") from None
    except csv.Error as exc:
        raise DataError(f"{source}: malformed CSV ({exc})") from None


def _check_distinct_aside(source: str, qid: str | None, position: str | None, init_score: str | None,
                          weight: str | None = None) -> None:
    """The columns read aside (query ids, display positions, initial scores, weights) are distinct columns."""
    named = [(column, what) for column, what in ((qid, "the query ids (--qid)"),
                                                 (position, "the display positions (--position)"),
                                                 (init_score, "the initial scores (--init-score)"),
                                                 (weight, "the weights (--weight)"))
             if column is not None]
    for i, (column, what) in enumerate(named):
        for other, other_what in named[i + 1:]:
            if column == other:
                raise DataError(f"{source}: the column {column!r} cannot be both {what} and {other_what}")


def _parse_csv(fh, source, label_name, explicit_label, require_label, drop, categorical, keep, found,
               qid=None, position=None, init_score=None, weight=None) -> Dataset:
    header_lineno, delimiter, names = _read_header(fh, source)
    unknown = [d for d in drop if d not in names]
    if unknown:
        raise DataError(f"{source}: no column {unknown[0]!r} to drop (columns: {_columns(names)})")
    label_index = _label_column(names, label_name, explicit_label, require_label, drop, source)
    unread = None
    if label_index is not None and not require_label:
        # a label the command does not need is left unread: rows to score may have a blank or unknown label
        unread, label_index = label_index, None
    _check_aside(names, label_name, drop, keep, qid, source, position, init_score, weight)
    feature_idx = [i for i, n in enumerate(names)
                   if i != label_index and i != unread and n not in drop and n not in keep]
    if not feature_idx:
        raise DataError(f"{source}: no feature columns (columns: {_columns(names)})")
    text = _text_columns(categorical, names, feature_idx, source)
    keep_idx = [names.index(n) for n in keep]

    fast = _csv_fast_path(source, delimiter, header_lineno, len(names), feature_idx, label_index, text, keep_idx,
                          names[0])
    if fast is None:
        return _parse_rows(fh, source, delimiter, header_lineno, names, label_index, label_name, feature_idx,
                           _Blocks(names, feature_idx, keep_idx, source, text, found))
    X, y, texts, kept = fast
    data = Dataset(X, y, [names[i] for i in feature_idx], label_name if label_index is not None else None,
                   source, "csv", named=True)
    data.row_lines = _LazyLines(source, header_lineno, delimiter)
    return _with_text(data, texts, kept, feature_idx, names)


def _read_header(fh, source: str) -> tuple[int, str, list[str]]:
    """The header: the first non-blank line, as ``(line number, delimiter, column names)``, names checked."""
    header_line = ""
    header_lineno = 0
    for header_lineno, header_line in enumerate(fh, start=1):
        if header_line.strip():
            break
    else:
        raise DataError(f"{source}: the file is empty (expected a header line, then one row per example)")
    delimiter = sniff_delimiter(header_line)
    header = next(csv.reader([header_line], delimiter=delimiter))
    names = [h.strip() for h in header]
    refuse_odd_header(source, header_lineno, names, delimiter)
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise DataError(f"{source}, line {header_lineno}: the header names the column {n!r} twice")
        seen.add(n)
    if all(_is_number(n) for n in names):
        raise DataError(f"{source}, line {header_lineno}: expected a header line of column names, "
                        f"got numbers ({header_line.strip()[:60]!r}); add a header")
    return header_lineno, delimiter, names


def _label_column(names: list[str], label_name: str, explicit_label: bool, require_label: bool,
                  drop: Sequence[str], source: str) -> int | None:
    """The index of the label column; None when the file has none and none is required."""
    if label_name not in names:
        if require_label or explicit_label:
            close = difflib.get_close_matches(label_name, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            if not explicit_label:
                hint += "; name the label column with --label COLUMN"
            raise DataError(f"{source}: no label column {label_name!r} in the header (columns: {_columns(names)})"
                            f"{hint}")
        return None
    if label_name in drop:
        if not require_label:
            return None                    # dropped: read neither as the label nor as a feature
        raise DataError(f"{source}: the label column {label_name!r} cannot also be dropped")
    return names.index(label_name)


def _check_aside(names: list[str], label_name: str, drop: Sequence[str], keep: Sequence[str], qid: str | None,
                 source: str, position: str | None = None, init_score: str | None = None,
                 weight: str | None = None) -> None:
    """The query-id, display-position, initial-score and weight columns and the columns copied to the output are in
    the header, neither label nor dropped."""
    for column, what, option in ((qid, "query-id", "--qid"), (position, "display-position", "--position"),
                                 (init_score, "initial-score", "--init-score"), (weight, "weight", "--weight")):
        if column is not None and column not in names:
            close = difflib.get_close_matches(column, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise DataError(f"{source}: no {what} column {column!r} ({option}) in the header "
                            f"(columns: {_columns(names)}){hint}")
    for name in keep:
        if name not in names:
            raise DataError(f"{source}: no column {name!r} to copy to the output (columns: {_columns(names)})")
        if name == label_name or name in drop:
            raise DataError(f"{source}: the column {name!r} to copy to the output is the label or dropped")


class _Blocks:
    """The rows read so far, converted a chunk at a time: float feature blocks, text and kept columns.

    In ``"auto"`` mode (``text == "auto"``) the columns known to hold text
    are ``found``; text in another column of the first chunk adds it, text
    after the first chunk raises :class:`_NewTextColumns` to read the file
    again.
    """

    def __init__(self, names: list[str], feature_idx: list[int], keep_idx: list[int], source: str, text: Any,
                 found: set[int]):
        self.auto = text == "auto"
        self.text = frozenset(found) if self.auto else text
        self.names, self.source, self.found = names, source, found
        self.take = np.asarray(feature_idx)
        self.blocks: list[np.ndarray] = []
        self.texts: dict[int, list] = {j: [] for j in self.text}
        self.kept: dict[int, list] = {j: [] for j in keep_idx}
        self.refused: dict[int, tuple[str, str]] = {}   # a text column not read as text -> (where, first value)

    def add(self, chunk: list[list[str]], chunk_lines: list[int]) -> None:
        """Convert and keep one chunk of rows (``chunk_lines``: their file lines)."""
        cells = np.asarray(chunk, dtype=object)
        block, new = _chunk_to_float(cells, chunk_lines, self.take, self.names, self.source, self.text,
                                     self.auto or None, self.refused)
        if new:                  # auto: columns of text found in this chunk
            if self.blocks:
                raise _NewTextColumns(self.found | new)
            self.text = self.text | new
            for j in new:
                self.texts[j] = []
            block, _ = _chunk_to_float(cells, chunk_lines, self.take, self.names, self.source, self.text, None,
                                       self.refused)
        self.blocks.append(block)
        for j, values in self.texts.items():
            values.extend(_text_value(v) for v in cells[:, j])
        for j, values in self.kept.items():
            values.extend(str(v).strip() for v in cells[:, j])

    def features(self) -> np.ndarray:
        """All feature rows as one C-contiguous float64 array; every refused text column named in one error."""
        if self.refused:
            columns = sorted(self.refused)
            raise TextColumnsError(self.source, [self.names[j] for j in columns], next(iter(self.refused.values()))[0],
                                   [self.names[j] for j in columns if comma_number(self.refused[j][1])])
        return np.ascontiguousarray(np.concatenate(self.blocks, axis=0))


def _parse_rows(fh, source: str, delimiter: str, header_lineno: int, names: list[str], label_index: int | None,
                label_name: str, feature_idx: list[int], blocks: _Blocks) -> Dataset:
    """The data rows after the header, each problem named by its file line."""
    labels, lines = _read_rows(csv.reader(fh, delimiter=delimiter), header_lineno, len(names), label_index,
                               label_name, source, blocks)
    if not lines:
        raise DataError(f"{source}: no data rows after the header")
    X = blocks.features()
    y = None
    if label_index is not None:
        _check_labels(labels, lines, label_name, source)
        y = _label_array(labels)
    data = Dataset(X, y, [names[i] for i in feature_idx], label_name if label_index is not None else None,
                   source, "csv", np.asarray(lines, dtype=np.int64), named=True)
    return _with_text(data, {j: np.asarray(v, dtype=object) for j, v in blocks.texts.items()},
                      {j: np.asarray(v, dtype=object) for j, v in blocks.kept.items()}, feature_idx, names)


def _read_rows(reader, header_lineno: int, n_fields: int, label_index: int | None, label_name: str, source: str,
               blocks: _Blocks) -> tuple[list[str], list[int]]:
    """Every non-blank row handed to ``blocks`` a chunk at a time: ``(label texts, file line of each row)``."""
    offset = header_lineno       # the reader's line_num counts from the first line it reads
    labels: list[str] = []
    lines: list[int] = []
    chunk: list[list[str]] = []
    chunk_lines: list[int] = []
    for row in reader:
        lineno = reader.line_num + offset
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # blank line
        if len(row) != n_fields:
            raise DataError(f"{source}, line {lineno}: expected {n_fields} fields as in the header, got {len(row)}")
        refuse_repeated_header(row, blocks.names, source, lineno, header_lineno)
        if label_index is not None:
            value = row[label_index].strip()
            if value.lower() in _MISSING:
                raise DataError(f"{source}, line {lineno}: missing label in column {label_name!r}")
            labels.append(value)
        lines.append(lineno)
        chunk.append(row)
        chunk_lines.append(lineno)
        if len(chunk) >= _CHUNK_ROWS:
            blocks.add(chunk, chunk_lines)
            chunk, chunk_lines = [], []
    if chunk:
        blocks.add(chunk, chunk_lines)
    return labels, lines


def _check_labels(labels: list[str], lines: list[int], label_name: str, source: str) -> None:
    """Every label a number; the first bad one named by its line."""
    for text in set(labels):  # the distinct labels: few, even in a long file
        problem = _label_problem(text)
        if problem is not None:
            row = labels.index(text)
            raise DataError(f"{source}, line {lines[row]}: {problem} label in column {label_name!r}, "
                            f"got {text[:40]!r}")


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
    """A categorical field: its text without surrounding spaces, or None for a missing value (signed NaN too, as in
    a column of numbers and as pandas reads it)."""
    stripped = str(text).strip()
    return None if stripped.lower() in _MISSING_FEATURE else stripped


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
        block[:, numeric] = plain_floats(cells[:, numeric])
    except (ValueError, TypeError):
        for c in numeric:
            try:
                block[:, c] = plain_floats(cells[:, c])
            except (ValueError, TypeError):
                j = int(take[c])
                values = [_field_value(value) for value in cells[:, c]]
                bad = [r for r, v in enumerate(values) if v is None]
                if not bad:
                    block[:, c] = values
                elif found_new:
                    new.add(j)
                elif j not in refused:
                    first = str(cells[bad[0], c]).strip()
                    refused[j] = (f"line {chunk_lines[bad[0]]}, column {names[j]!r}: expected a number, "
                                  f"got {first[:40]!r}", first)
    infinite = np.isinf(block)
    if infinite.any():
        r, c = (int(v[0]) for v in np.nonzero(infinite))
        raise DataError(f"{source}, line {chunk_lines[r]}, column {names[take[c]]!r}: expected a finite number, "
                        f"got {str(cells[r, c]).strip()[:40]!r}")
    return _canonical_nan(block), new


def _field_value(text: str) -> float | None:
    """One feature field: a number, NaN for a missing value, or None for text (``1_000`` too: plain_numbers)."""
    stripped = str(text).strip()
    if stripped.lower() in _MISSING:
        return math.nan
    try:
        return float(stripped) if plain_numbers([stripped]) else None
    except ValueError:
        return None

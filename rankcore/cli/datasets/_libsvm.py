"""LIBSVM / svmlight text: ``label qid:n index:value index:value ... # comment``, made dense.

``qid:n`` (an integer) is the row's query id, kept as :attr:`Dataset.qid`
(not a feature); a file gives it on every row or on none.

A clean file is read in one compiled pass (:mod:`._libsvm_scan`, the same
numbers); any other goes line by line (:func:`_parse_checking`), which reads
what Python reads and names the file and line of every fault.

A feature's name is its index, ``f<index>``: the file's own name for the
column.  Whether indices start at 0 or 1 is read off the file (0-based when
an index 0 occurs), which one file alone cannot always tell -- a 0-based
file whose feature 0 is zero on every row looks 1-based -- so a file read
for a model or beside a training file (``names``) takes each index to the
column of that name, never by a guessed base: the same index is the same
feature in every file.
"""

from __future__ import annotations

import gzip
import math
import os
import stat
import re
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from ..._memory import available_memory
from ._dataset import DataError, Dataset, _open_text
from ._labels import python_only_number
from ._oddities import not_text_error

#: Largest LIBSVM feature index read (the matrix is made dense: a file naming
#: feature 2,000,000,000 on one line must not ask for gigabytes).  Wider,
#: genuinely sparse data: read it with scikit-learn's ``load_svmlight_file``
#: and pass the CSR matrix to a learner that accepts it (the trees, SGDAtK, PerceptronAtK).
MAX_LIBSVM_FEATURES = 1_000_000
#: Share of the memory available when the file has been parsed (``rankcore._memory.available_memory``) that the
#: dense matrix may take: the fit that follows needs room beside it (the trees bin a copy of the features).
DENSE_MEMORY_SHARE = 0.5
#: Largest dense matrix, in bytes (8 GiB), where the memory available cannot be read (no ``/proc/meminfo``).
FALLBACK_DENSE_BYTES = 8 << 30
#: A file whose dense matrix would take more than this many bytes (1 GiB, the dense copy a model that reads dense
#: rows only is given of sparse input, ``rankcore.validation.DENSE_BYTES_LIMIT``) is kept sparse, a CSR matrix,
#: when that takes at most half the dense bytes (a file about a third nonzero or less): the trees and the models
#: that take sparse input read it as it is.  Smaller files are read dense, as every model and command reads them.
SPARSE_FROM_BYTES = 1 << 30
_SCATTER_BLOCK = 1 << 20
#: The stored values' row and column indices are int32 (4 bytes each, not 8: a third of the parse's memory) up to
#: this many values, rows and indices -- int32's largest -- and int64 beyond.
_NARROW_LIMIT = 2**31 - 1


_INDEX_NAME = re.compile(r"f(0|[1-9][0-9]*)")


def index_names(names: Sequence[str] | None) -> dict[int, int] | None:
    """``{index: column}`` when every name is a LIBSVM index name (``f0``, ``f12``), else None."""
    if not names:
        return None
    columns = {}
    for j, name in enumerate(names):
        match = _INDEX_NAME.fullmatch(str(name))
        if match is None:
            return None
        columns[int(match.group(1))] = j
    return columns if len(columns) == len(names) else None


def _read_libsvm(source: str, n_features: int | None, names: Sequence[str] | None = None,
                 drop: Sequence[str] = ()) -> Dataset:
    """Read a LIBSVM file; ``names``: the features it must have (a model's or a training file's), by index name.

    Without ``names`` the columns are indices ``base .. max`` (``base`` 0 when
    an index 0 occurs, else 1) and ``n_features`` (a model's, without
    names) pads the width.  With index names (:func:`index_names`) index k
    fills the column named ``f<k>``, and an index with no such column is an
    error.  ``drop``: columns left out, by their names ``f<k>`` (``--drop``):
    their values are not read; one the file has no value of is an error,
    unless ``names`` (the file is read for a model or beside a training
    file, which may have dropped it too), where one of ``names`` is.
    """
    by_index = index_names(names)
    dropped = _dropped_indices(source, drop)
    parsed = _scan(source)
    if parsed is None:                 # not in the strict form: line by line, which reads it or names the fault
        parsed = _parse_checking(source)
    labels, lines, qids, rows, cols, vals = parsed
    if dropped:
        rows, cols, vals = _without_indices(source, dropped, rows, cols, vals, names if by_index is not None else None)
    if by_index is not None:
        return _by_index_names(source, list(names), by_index, labels, lines, qids, rows, cols, vals)
    min_index = int(np.min(cols)) if len(cols) else None
    max_index = int(np.max(cols)) if len(cols) else -1
    data = _by_own_indices(source, n_features, min_index, max_index, labels, lines, qids, rows, cols, vals)
    kept = [j for j, name in enumerate(data.feature_names) if int(name[1:]) not in dropped]
    if len(kept) < data.n_features:         # a dropped index between others: its column of zeros goes too
        data.X = data.X[:, kept] if sp.issparse(data.X) else np.ascontiguousarray(data.X[:, kept])
        data.feature_names = [data.feature_names[j] for j in kept]
    return data


def _dropped_indices(source: str, drop: Sequence[str]) -> set[int]:
    """The indices of the columns ``drop`` names (``f<k>``: a LIBSVM file's names of its columns)."""
    out = set()
    for name in drop:
        match = _INDEX_NAME.fullmatch(str(name))
        if match is None:
            raise DataError(f"{source}: --drop {name}: a LIBSVM file's columns are named by their indices (f1, f2, "
                            f"...; f0 for index 0), so --drop takes such names, e.g. --drop f3")
        out.add(int(match.group(1)))
    return out


def _without_indices(source: str, dropped: set[int], rows, cols, vals, names) -> tuple:
    """The stored values (rows, cols, vals) less those of the ``dropped`` indices, checked (see :func:`_read_libsvm`).
    O(values)."""
    cols = _indices(cols)
    wanted = np.fromiter(sorted(dropped), dtype=np.int64)
    if names is not None:
        fitted = [name for name in names if int(str(name)[1:]) in dropped]
        if fitted:
            raise DataError(f"{source}: --drop {','.join(fitted)}: the rows are read into features that include "
                            f"{'them' if len(fitted) > 1 else 'it'} (the model's or the training file's)")
    else:
        absent = wanted[~np.isin(wanted, cols)]
        if absent.size:
            raise DataError(f"{source}: --drop f{int(absent[0])}: no value of index {int(absent[0])} in the file "
                            f"(a LIBSVM column f<k> holds the values of index k)")
    kept = ~np.isin(cols, wanted)
    return _indices(rows)[kept], cols[kept], np.asarray(vals, dtype=np.float64)[kept]


def _indices(values) -> np.ndarray:
    """Row or column indices of the stored values as an array: the scan's as they are (int32 while they fit, see
    :data:`_NARROW_LIMIT`), the checking parser's list as the scan would give it."""
    if isinstance(values, np.ndarray):
        return values
    wide = np.asarray(values, dtype=np.int64)
    fits = wide.size <= _NARROW_LIMIT and (wide.size == 0 or int(wide.max()) <= _NARROW_LIMIT)
    return wide.astype(np.int32) if fits else wide


def _scan(source: str) -> tuple | None:
    """The rows of a clean file in one compiled pass (:func:`._libsvm_scan.scan_clean`), or None."""
    from ._libsvm_scan import scan_clean

    try:
        text = _file_bytes(source)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None                    # the checking parser says what is wrong
    return scan_clean(text, MAX_LIBSVM_FEATURES, _NARROW_LIMIT)


def _file_bytes(source: str) -> bytearray:
    """The file's bytes (gunzipped) followed by one NUL, the scan's sentinel, in one buffer: a plain file is read
    into a buffer of its size plus one, as ``fh.read() + b"\\0"`` would hold the text twice (gigabytes)."""
    with open(source, "rb") as fh:
        info, gzipped = os.fstat(fh.fileno()), fh.read(2) == b"\x1f\x8b"
        if not gzipped and stat.S_ISREG(info.st_mode):
            fh.seek(0)
            text = bytearray(info.st_size + 1)
            # a buffered reader fills the view up to the end of the file; a file that changed is read again below
            if fh.readinto(memoryview(text)[:info.st_size]) == info.st_size and not fh.read(1):
                return text
    with (gzip.open if gzipped else open)(source, "rb") as fh:
        text = bytearray()
        while chunk := fh.read(1 << 24):
            text += chunk
    text.append(0)
    return text


def _parse_checking(source: str) -> tuple:
    """Every row of the file, line by line, naming the first problem (file and line) as a DataError.

    Returns ``(labels, lines, qids, rows, cols, vals)``: per row its label and
    line; the rows' query ids (empty without them); per stored value its
    row, index and value.
    """
    labels: list[float] = []
    lines: list[int] = []
    qids: list[int] = []
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    try:
        fh = _open_text(source)
        with fh:
            for lineno, raw in enumerate(fh, start=1):
                text = raw.split("#", 1)[0].strip()
                if not text:
                    continue
                fields = text.split()
                if python_only_number(text):
                    _refuse_python_only_number(fields, source, lineno)
                try:
                    label = float(fields[0])
                except ValueError:
                    raise DataError(f"{source}, line {lineno}: expected a numeric label first, got "
                                    f"{fields[0][:40]!r} (LIBSVM rows are 'label index:value ...')") from None
                if not math.isfinite(label):
                    raise DataError(f"{source}, line {lineno}: expected a finite label, got {fields[0]!r}")
                row = len(labels)
                previous = -1
                qid = None
                for item in fields[1:]:
                    key, colon, value = item.partition(":")
                    if not colon:
                        raise DataError(f"{source}, line {lineno}: malformed feature {item[:40]!r} "
                                        "(expected index:value)")
                    if key == "qid":
                        if qid is not None:
                            raise DataError(f"{source}, line {lineno}: two qid: fields on one row")
                        qid = _query_id(value, source, lineno)
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
                                        f"{MAX_LIBSVM_FEATURES} features (rankcore.cli.datasets.MAX_LIBSVM_FEATURES; "
                                        "the matrix is made dense)")
                    if index <= previous:
                        raise DataError(f"{source}, line {lineno}: feature indices must increase, "
                                        f"got {index} after {previous}")
                    if not math.isfinite(number):
                        raise DataError(f"{source}, line {lineno}: feature {index}: expected a finite number, "
                                        f"got {value!r} (a LIBSVM file has no missing values: an absent "
                                        "feature is 0; write missing values to a CSV or .npy file)")
                    previous = index
                    rows.append(row)
                    cols.append(index)
                    vals.append(number)
                if (qid is None) != (not qids) and labels:
                    first = "has no qid:" if qid is None else f"has qid:{qid}"
                    raise DataError(f"{source}, line {lineno}: the row {first}, but the rows before it "
                                    f"{'do not' if qid is not None else 'do'}; give every row its query "
                                    "(qid:n after the label) or none")
                if qid is not None:
                    qids.append(qid)
                labels.append(label)
                lines.append(lineno)
    except UnicodeDecodeError as exc:
        raise not_text_error(source, exc) from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise DataError(f"{source}: damaged gzip data ({exc})") from None
    if not labels:
        raise DataError(f"{source}: no data rows (LIBSVM rows are 'label index:value ...')")
    return labels, lines, qids, rows, cols, vals


def _by_own_indices(source, n_features, min_index, max_index, labels, lines, qids, rows, cols, vals) -> Dataset:
    """The rows in the columns of the file's own indices, from 0 when an index 0 occurs, else from 1."""
    zero_based = min_index == 0
    width = max_index + 1 if zero_based else max_index
    if n_features is not None:
        if width > n_features:
            raise DataError(f"{source}: feature index {max_index} is beyond the model's {n_features} features")
        width = n_features
    if width < 1:
        raise DataError(f"{source}: no feature values in any row")
    c = _indices(cols)
    if not zero_based:
        c -= 1                 # in place: the parse's own array, read no more (a copy is 4 or 8 bytes per value)
    X = _matrix(source, len(labels), width, _indices(rows), c, np.asarray(vals, dtype=np.float64))
    base = 0 if zero_based else 1
    names = [f"f{j + base}" for j in range(width)]
    return _dataset(source, X, names, labels, lines, qids)


def _by_index_names(source, names, by_index, labels, lines, qids, rows, cols, vals) -> Dataset:
    """The rows with index k in the column named ``f<k>`` (``by_index``: index -> column).

    Time O(values + largest index + rows × columns) (the dense matrix), memory the matrix.
    """
    index = _indices(cols)
    values = np.asarray(vals, dtype=np.float64)
    # index -> column in one array over the indices named (-1: none), so every value is placed without Python
    lookup = np.full(max(by_index) + 1, -1, dtype=np.int32)     # columns: at most MAX_LIBSVM_FEATURES + 1
    lookup[np.fromiter(by_index.keys(), dtype=np.int64)] = np.fromiter(by_index.values(), dtype=np.int64)
    if index.size and int(index.max()) < lookup.shape[0]:
        column = lookup[index]
    else:
        column = np.where(index < lookup.shape[0], lookup[np.minimum(index, lookup.shape[0] - 1)], -1)
    rows = _indices(rows)
    if column.size and int(column.min()) < 0:
        # an explicit 0 at an index training never saw says what an absent field says
        kept = (column >= 0) | (values != 0.0)
        index, values, column, rows = index[kept], values[kept], column[kept], rows[kept]
    if column.size and int(column.min()) < 0:
        first = int(np.flatnonzero(column < 0)[0])
        shown = ", ".join(names[:3]) + (f", ..., {names[-1]}" if len(names) > 3 else "")
        raise DataError(f"{source}, line {lines[rows[first]]}: feature index {index[first]} (value "
                        f"{values[first]:g}) names no feature the rows were fitted on (their {len(names)} features, "
                        f"by index: {shown}); a LIBSVM index is the same feature in every file (leave it out with "
                        f"--drop f{index[first]})")
    X = _matrix(source, len(labels), len(names), rows, column, values)
    return _dataset(source, X, names, labels, lines, qids)


def dense_limit() -> tuple[int, int | None]:
    """``(largest dense matrix in bytes, bytes available or None)``: :data:`DENSE_MEMORY_SHARE` of
    :func:`available_memory`, else :data:`FALLBACK_DENSE_BYTES`."""
    available = available_memory()
    if available is None:
        return FALLBACK_DENSE_BYTES, None
    return int(available * DENSE_MEMORY_SHARE), available


def _matrix(source: str, n_rows: int, width: int, rows: np.ndarray, columns: np.ndarray, values: np.ndarray):
    """The rows' matrix from their stored values (row, 0-based column, value; rows in file order, no column twice
    in a row): CSR when :data:`SPARSE_FROM_BYTES` and the values' count say so, else dense (:func:`_dense`).

    The CSR matrix holds the values as stored, an explicit 0 too: the same matrix as the dense one.
    """
    dense_bytes = n_rows * width * 8
    csr_bytes = len(values) * 12 + (n_rows + 1) * 8           # float64 values, int32 columns, int64 row starts
    if dense_bytes > SPARSE_FROM_BYTES and 2 * csr_bytes <= dense_bytes:
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
        X = sp.csr_matrix((values, columns.astype(np.int32, copy=False), indptr), shape=(n_rows, width))
        X.sort_indices()                 # by index names the columns need not increase along a row
        return X
    X = _dense(source, n_rows, width)
    flat = X.reshape(-1)
    # one flat index per value (a 1-D scatter is about twice as fast as the 2-D one), a block of values at a time:
    # the indices of all at once would take 16 bytes per value beside the matrix
    for start in range(0, len(values), _SCATTER_BLOCK):
        stop = start + _SCATTER_BLOCK
        # int64 flat indices: rows x width passes int32's largest past 2**31 cells
        flat[rows[start:stop].astype(np.int64) * width + columns[start:stop]] = values[start:stop]
    return X


def _dense(source: str, n_rows: int, width: int) -> np.ndarray:
    """The zero matrix the rows fill, refused (naming the bytes needed and available) beyond :func:`dense_limit`."""
    needed = n_rows * width * 8
    limit, available = dense_limit()
    if needed > limit:
        where = (f"more than {DENSE_MEMORY_SHARE:.0%} of the {_size(available)} of memory available"
                 if available is not None else f"more than the {_size(limit)} allowed where the memory available "
                 "cannot be read")
        raise DataError(f"{source}: {n_rows} rows x {width} features make a dense matrix of {_size(needed)} "
                        f"({needed} bytes), {where}; free memory, split the rows into smaller files or leave features "
                        "out (--drop), or read the file with sklearn.datasets.load_svmlight_file and fit its sparse "
                        "matrix from Python (rankcore.boost(learner='trees'), AutoRanker)")
    return np.zeros((n_rows, width), dtype=np.float64)


def _size(n_bytes: int) -> str:
    """``n_bytes`` for people: ``"1.5 GB"``, ``"320 MB"``, ``"12 kB"`` (powers of 1000)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes} bytes"


def _dataset(source, X, names, labels, lines, qids) -> Dataset:
    data = Dataset(X, np.asarray(labels, dtype=np.float64), list(names), "first field", source, "libsvm",
                   np.asarray(lines, dtype=np.int64), named=True)
    if len(qids):
        data.qid, data.qid_name = np.asarray(qids, dtype=np.int64), "qid"
    return data


def _refuse_python_only_number(fields: list[str], source: str, lineno: int) -> None:
    """Refuse the first field holding an underscore or a character beyond ASCII.

    Python's ``int()`` and ``float()`` read ``1_000`` as 1000 and other scripts' digits (``"٣"``) as numbers;
    svmlight, LIBSVM, LightGBM and scikit-learn do not, and neither does the CSV reader
    (:func:`._csv_fast.plain_numbers`), so a typo is never read as a number here.
    """
    for item in fields:
        if python_only_number(item):
            raise DataError(f"{source}, line {lineno}: {item[:40]!r} holds an underscore or a character beyond ASCII, "
                            "which no number of a LIBSVM row has (1_000 is not 1000 here; write plain digits)")


def _query_id(text: str, source: str, lineno: int) -> int:
    """The integer of a ``qid:n`` field (svmlight's query ids are integers)."""
    try:
        value = int(text)
    except ValueError:
        raise DataError(f"{source}, line {lineno}: malformed query id 'qid:{text[:40]}' (expected qid:n, "
                        "an integer)") from None
    if not -(2**63) <= value < 2**63:
        raise DataError(f"{source}, line {lineno}: query id 'qid:{text[:40]}' is beyond the 64-bit integers")
    return value

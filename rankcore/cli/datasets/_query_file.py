"""The queries of a LIBSVM file without ``qid:`` fields, from a file of query sizes beside it (LightGBM's layout)."""

from __future__ import annotations

import os

import numpy as np

from ._dataset import DataError, Dataset, _open_text

__all__ = ["QUERY_FILE_SUFFIXES", "query_file_of", "read_query_file"]

#: The files of query sizes a LIBSVM file may have beside it: LightGBM's ``DATA.query``, XGBoost's ``DATA.group``.
QUERY_FILE_SUFFIXES = (".query", ".group")
#: Largest query file read, in bytes (one size per line: far more queries than any dense matrix holds rows).
_MAX_QUERY_FILE_BYTES = 1 << 28


def query_file_of(source: str) -> str | None:
    """The file of query sizes beside a LIBSVM file (``rank.train.query`` for ``rank.train`` or
    ``rank.train.gz``), or None."""
    stems = [source] + ([source[:-3]] if source.lower().endswith(".gz") else [])
    for stem in stems:
        for suffix in QUERY_FILE_SUFFIXES:
            if os.path.isfile(stem + suffix):
                return stem + suffix
    return None


def read_query_file(data: Dataset) -> None:
    """Give a LIBSVM file the queries of its query file, if it has one (in place).

    The file holds one query size per line, the queries' rows consecutive
    in the data file (LightGBM's and XGBoost's layout); the queries are
    numbered 0, 1, ... in that order. A file with ``qid:`` fields keeps
    them; its query file must then cut the rows where the ``qid:`` values
    change, and nowhere else.

    Raises
    ------
    DataError
        A line that is not a whole number >= 1, sizes that do not add up
        to the data file's rows, or sizes that contradict the file's
        ``qid:`` fields (each named).
    """
    path = query_file_of(data.source)
    if path is None:
        return
    sizes = _query_sizes(path, data)
    if data.qid is not None:
        _check_against_qid(path, sizes, data)
        return
    data.qid = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    data.qid_name, data.query_file = "qid", path


def _query_sizes(path: str, data: Dataset) -> list[int]:
    """The query sizes in ``path``, checked line by line and against the data file's row count."""
    if os.path.getsize(path) > _MAX_QUERY_FILE_BYTES:
        raise DataError(f"{path}: larger than {_MAX_QUERY_FILE_BYTES} bytes; a query file holds one size per line")
    sizes = []
    try:
        with _open_text(path) as fh:
            for lineno, line in enumerate(fh, start=1):
                text = line.strip()
                if not text:
                    continue
                if not (text.isascii() and text.isdigit()) or len(text) > 18 or int(text) < 1:
                    raise DataError(f"{path}, line {lineno}: expected a query size (a whole number >= 1, of at most "
                                    f"18 digits), got {text[:40]!r}; the query file of {data.source} holds one "
                                    "query's row count per line")
                sizes.append(int(text))
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    total = sum(sizes)
    if total != data.n_samples:
        raise DataError(f"{path}: its {len(sizes)} query sizes add up to {total} rows, but {data.source} has "
                        f"{data.n_samples}; the query file lists each query's row count, in the data file's order")
    return sizes


def _check_against_qid(path: str, sizes: list[int], data: Dataset) -> None:
    """Refuse a query file that cuts the rows elsewhere than where the ``qid:`` fields change.

    Either could be what the user meant, so neither is taken silently.
    """
    qid = np.asarray(data.qid)
    runs = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    cuts = np.cumsum(sizes[:-1], dtype=np.int64)
    if runs.shape == cuts.shape and np.array_equal(runs, cuts):
        return
    first = next((i for i, (a, b) in enumerate(zip(runs, cuts)) if a != b), min(runs.size, cuts.size))
    row = int(min(runs[first:first + 1].tolist() + cuts[first:first + 1].tolist()))
    raise DataError(f"{path}: its query sizes contradict the qid: fields of {data.source} (they cut the rows "
                    f"differently first near row {row + 1}: {len(sizes)} queries in the query file, "
                    f"{runs.size + 1} runs of qid:); remove the query file or make the two agree")

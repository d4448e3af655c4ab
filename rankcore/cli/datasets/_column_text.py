"""The text of one CSV column as written, beside the readers' float64 numbers (``score --id`` naming a model's feature,
``evaluate --scores`` checking integers beyond 2**53)."""

from __future__ import annotations

import csv
import gzip

import numpy as np

from ._csv import _read_header
from ._dataset import DataError, _open_text

__all__ = ["column_text"]


def column_text(source: str, name: str) -> np.ndarray | None:
    """The stripped text of the CSV column ``name``, one cell per data row (blank lines skipped, as the readers do);
    None when the file or the column cannot be read that way.

    For copying a column that is also read as a number (``score --id`` naming a feature, an item id) as it is
    written: its float64 value drops leading zeros and rounds an integer beyond 2**53.  One pass, O(rows).
    """
    try:
        with _open_text(source) as fh:
            _, delimiter, names = _read_header(fh, source)
            if name not in names:
                return None
            j = names.index(name)
            cells = [row[j].strip() for row in csv.reader(fh, delimiter=delimiter)
                     if row and not (len(row) == 1 and not row[0].strip())]
    except (DataError, OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile, csv.Error, IndexError):
        return None
    return np.asarray(cells, dtype=object)

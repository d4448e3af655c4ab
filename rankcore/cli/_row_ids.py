"""An identifier column left among a training file's features: said, not fitted without a word."""

from __future__ import annotations

import re
import warnings

import numpy as np

__all__ = ["warn_if_row_ids"]


#: Column names of row identifiers: ``id``, ``row_id``, ``Customer ID``, ``loan-id``, pandas' written index.
_ID_NAME = re.compile(r"(?i)(?:^|[\s_\-.])id$|^(?:index|unnamed: 0)$")

#: Rows a column needs before its distinct whole numbers say "identifier" rather than a small table's chance.
MIN_ID_ROWS = 20


def warn_if_row_ids(data) -> None:
    """Warn of a feature column named like an identifier whose values are a different whole number on every row.

    Such a column (a row or customer id left in the file) is fitted as a feature without a word, and trees split
    on it: the model ranks partly by row number, which no new row shares.  Only columns named so are looked at
    (one sort each), so continuous features, distinct on every row too, are never suspected.
    """
    X, names = data.X, data.feature_names
    if X.shape[0] < MIN_ID_ROWS or not names:
        return
    for j, name in enumerate(names):
        if not _ID_NAME.search(str(name).strip()):
            continue
        column = X[:, j]
        if not np.isfinite(column).all() or not np.array_equal(column, np.round(column)):
            continue
        if np.unique(column).shape[0] == column.shape[0]:
            warnings.warn(f"{data.source}: column {name!r} holds a different whole number on every row, as a row "
                          f"identifier does; it is fitted as a feature (the model would rank partly by it): "
                          f"--drop {_option_value(name)} leaves it out", UserWarning, stacklevel=2)


def _option_value(name: str) -> str:
    """``name`` as a shell would take it after an option (quoted when it holds a space or a quote)."""
    return name if re.fullmatch(r"[\w.\-]+", name) else "'" + name.replace("'", "'\\''") + "'"

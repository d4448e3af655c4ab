"""CSV columns read aside, neither features nor the label: the query ids (``--qid``) and display positions.

A column of display positions (``--position``) holds the place each row was
shown at in its query's list: labels logged from clicks depend on it, and
with it the push estimators learn an effect per place beside the model
(``fit(..., position=...)``).  Both columns are read aside as text; the
positions are converted here, so that every bad value is named by its file
line and column, as the other readers name theirs.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ._dataset import _MISSING, DataError, Dataset

__all__ = ["with_aside", "queries_aside", "positions_aside"]


def with_aside(keep: Sequence[str], column: str | None, what: str, option: str, label_name: str,
                drop: Sequence[str], source: str) -> list[str]:
    """The columns read aside: ``keep`` and ``column`` (the query ids, the display positions: ``what``, given by
    ``option``), checked to be neither the label nor dropped."""
    if column is None or column in keep:
        return list(keep)
    if column == label_name or column in drop:
        raise DataError(f"{source}: the {what} column {column!r} ({option}) is the label or dropped")
    return [*keep, column]


def queries_aside(data: Dataset, qid: str, keep: Sequence[str]) -> Dataset:
    """``data`` with the query-id column moved from the kept columns to :attr:`Dataset.qid`; no id missing."""
    values = data.kept[qid] if qid in keep else data.kept.pop(qid)
    missing = np.flatnonzero(np.isin(np.char.lower(values.astype(str)), list(_MISSING)))
    if missing.size:
        raise DataError(f"{data.where(int(missing[0]))}: missing query id in column {qid!r} (--qid); "
                        f"every row needs its query, got {values[missing[0]]!r}")
    data.qid, data.qid_name = values, qid
    return data


def positions_aside(data: Dataset, name: str, keep: Sequence[str] = ()) -> Dataset:
    """``data`` with the column ``name`` moved from the kept columns to :attr:`Dataset.position`, as int64.

    Each distinct text is converted once (a log has few places), so this
    costs O(n log n) for the distinct values and O(n) for the rest.

    Raises
    ------
    DataError
        A missing position, or one that is not an integer >= 0 (``3.0`` is
        3), naming the first such row's line, the column and ``--position``.
    """
    values = data.kept[name] if name in keep else data.kept.pop(name)
    texts, first, inverse = np.unique(values.astype(str), return_index=True, return_inverse=True)
    numbers = np.empty(texts.shape[0], dtype=np.int64)
    problems = []
    for i, text in enumerate(texts.tolist()):
        number, problem = _position(text)
        if problem is not None:
            problems.append((int(first[i]), problem))
        else:
            numbers[i] = number
    if problems:
        row, problem = min(problems)
        raise DataError(f"{data.where(row)}, column {name!r} (--position): {problem}")
    data.position, data.position_name = numbers[inverse.reshape(-1)], name
    return data


#: What every row of the column holds.
_PLACE = "the place it was shown at in its query's list"


def _position(text: str) -> tuple[int | None, str | None]:
    """One field: ``(its position, None)``, or ``(None, what is wrong with it)``."""
    stripped = text.strip()
    if stripped.lower() in _MISSING:
        return None, f"missing display position (every row needs {_PLACE})"
    wrong = f"expected the row's display position, an integer >= 0, got {stripped[:40]!r}"
    if "_" in stripped or not stripped.isascii():     # Python's int() reads 1_0 and other scripts' digits
        return None, wrong
    try:
        number = int(stripped)
    except ValueError:
        try:
            value = float(stripped)
        except ValueError:
            return None, wrong
        if math.isnan(value):
            return None, f"missing display position (every row needs {_PLACE})"
        if not math.isfinite(value) or not value.is_integer():
            return None, wrong
        number = int(value)
    if not 0 <= number < 2**63:
        return None, wrong
    return number, None

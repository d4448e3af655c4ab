"""CSV columns read aside, neither features nor the label: the query ids (``--qid``), display positions and
initial scores.

A column of display positions (``--position``) holds the place each row was
shown at in its query's list: labels logged from clicks depend on it, and
with it the push estimators learn an effect per place beside the model
(``fit(..., position=...)``).  Both columns are read aside as text; the
positions are converted here, so that every bad value is named by its file
line and column, as the other readers name theirs.

A column of initial scores (``--init-score``) holds the score each row starts
from (a first-stage ranker's: ``fit(..., init_score=...)``, LightGBM's
``init_score``), finite numbers read aside and converted here likewise.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ._dataset import _MISSING, DataError, Dataset

__all__ = ["with_aside", "queries_aside", "positions_aside", "init_scores_aside"]


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


def init_scores_aside(data: Dataset, name: str, keep: Sequence[str] = ()) -> Dataset:
    """``data`` with the column ``name`` moved from the kept columns to :attr:`Dataset.init_score`, as float64.

    One vectorized conversion, O(n); only a column that fails it is read
    again field by field, to name its first bad row.

    Raises
    ------
    DataError
        A missing initial score, or one that is not a finite number, naming
        the first such row's line, the column and ``--init-score``.
    """
    values = data.kept[name] if name in keep else data.kept.pop(name)
    texts = values.astype(str)
    try:
        # Python's float() reads 1_0 (NumPy's conversion calls it): refused here, as in the feature columns
        numbers = None if np.char.count(texts, "_").any() else texts.astype(np.float64)
    except ValueError:
        numbers = None
    if numbers is None or not np.isfinite(numbers).all():
        rows = range(texts.shape[0]) if numbers is None else np.flatnonzero(~np.isfinite(numbers)).tolist()
        for row in rows:
            problem = _init_score_problem(str(texts[row]))
            if problem is not None:
                raise DataError(f"{data.where(row)}, column {name!r} (--init-score): {problem}")
        if numbers is None:                 # every field passed the closer look: what NumPy refused, float() reads
            numbers = np.array([float(text) for text in texts.tolist()], dtype=np.float64)
    data.init_score, data.init_score_name = np.ascontiguousarray(numbers, dtype=np.float64), name
    return data


def _init_score_problem(text: str) -> str | None:
    """What is wrong with one field of initial scores, or None when it is a finite number."""
    stripped = text.strip()
    missing = "missing initial score (every row needs the score it starts from)"
    if stripped.lower() in _MISSING:
        return missing
    wrong = f"expected the row's initial score, a finite number, got {stripped[:40]!r}"
    if "_" in stripped or not stripped.isascii():     # Python's float() reads 1_0 and other scripts' digits
        return wrong
    try:
        value = float(stripped)
    except ValueError:
        return wrong
    if math.isnan(value):
        return missing
    return None if math.isfinite(value) else wrong

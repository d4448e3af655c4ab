"""CSV columns read aside, neither features nor the label: the query ids (``--qid``), display positions, initial
scores and sample weights.

A column of display positions (``--position``) holds the place each row was
shown at in its query's list: labels logged from clicks depend on it, and
with it the push estimators learn an effect per place beside the model
(``fit(..., position=...)``).  Both columns are read aside as text; the
positions are converted here, so that every bad value is named by its file
line and column, as the other readers name theirs.

A column of initial scores (``--init-score``) holds the score each row starts
from (a first-stage ranker's: ``fit(..., init_score=...)``, LightGBM's
``init_score``), finite numbers read aside and converted here likewise.

A column of sample weights (``--weight``) holds each row's weight in the fit
(``fit(..., sample_weight=...)``, LightGBM's ``weight_column``): finite
numbers >= 0, not all 0, converted likewise.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ._dataset import _MISSING, _MISSING_FEATURE, DataError, Dataset
from ._labels import python_only_number

__all__ = ["with_aside", "queries_aside", "positions_aside", "init_scores_aside", "weights_aside"]


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
    # signed NaN (-nan) as well: a missing value in any column of numbers or text (a query id "-nan" is none)
    missing = np.flatnonzero(np.isin(np.char.lower(np.char.strip(values.astype(str))), list(_MISSING_FEATURE)))
    if missing.size:
        raise DataError(f"{data.where(int(missing[0]))}: missing query id in column {qid!r} (--qid); "
                        f"every row needs its query, got {values[missing[0]]!r}")
    data.qid, data.qid_name = _integer_ids(values), qid
    return data


def _integer_ids(values: np.ndarray) -> np.ndarray:
    """Query ids written as integers (each text exactly an int64's decimal form) as int64, others as read.

    The library orders the queries by their ids, and the per-query default's
    random draws follow that order: ids read as text ('10' before '2') would
    give another model than the same ids given to ``fit`` as numbers.  Texts
    such as '007' or '+7' stay text (as ints they would merge with '7').
    O(n).
    """
    texts = values.astype(str)
    try:
        numbers = texts.astype(np.int64)
    except (ValueError, OverflowError):
        return values
    return numbers if np.array_equal(numbers.astype(str), texts) else values


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
    if python_only_number(stripped):
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
    numbers = _finite_numbers(data, name, keep, _init_score_problem, "--init-score")
    data.init_score, data.init_score_name = numbers, name
    return data


def weights_aside(data: Dataset, name: str, keep: Sequence[str] = ()) -> Dataset:
    """``data`` with the column ``name`` moved from the kept columns to :attr:`Dataset.weight`, as float64.

    Converted as :func:`init_scores_aside` converts, O(n).

    Raises
    ------
    DataError
        A missing weight, or one that is not a finite number >= 0, naming
        the first such row's line, the column and ``--weight``; a column of
        zeros alone (no row would count).
    """
    numbers = _finite_numbers(data, name, keep, _weight_problem, "--weight", nonnegative=True)
    if not numbers.sum() > 0:
        raise DataError(f"{data.source}, column {name!r} (--weight): every weight is 0; the fit needs rows of "
                        "positive weight (a weight is how many times the row counts)")
    data.weight, data.weight_name = numbers, name
    return data


def _finite_numbers(data: Dataset, name: str, keep: Sequence[str], problem_of, option: str, *,
                    nonnegative: bool = False) -> np.ndarray:
    """The column ``name`` moved out of the kept columns (unless in ``keep``) as finite float64 numbers (``>= 0``
    with ``nonnegative``).

    One vectorized conversion, O(n); only a column that fails it is read
    again field by field, ``problem_of(text)`` naming the first bad row's
    problem (None: a number that passes).
    """
    values = data.kept[name] if name in keep else data.kept.pop(name)
    texts = values.astype(str)
    try:
        # Python's float() reads 1_0 (NumPy's conversion calls it): refused here, as in the feature columns
        numbers = None if np.char.count(texts, "_").any() else texts.astype(np.float64)
    except ValueError:
        numbers = None
    good = None if numbers is None else np.isfinite(numbers) & ((numbers >= 0) if nonnegative else True)
    if good is None or not good.all():
        rows = range(texts.shape[0]) if good is None else np.flatnonzero(~good).tolist()
        for row in rows:
            problem = problem_of(str(texts[row]))
            if problem is not None:
                raise DataError(f"{data.where(row)}, column {name!r} ({option}): {problem}")
        if numbers is None:                 # every field passed the closer look: what NumPy refused, float() reads
            numbers = np.array([float(text) for text in texts.tolist()], dtype=np.float64)
    return np.ascontiguousarray(numbers, dtype=np.float64)


def _init_score_problem(text: str) -> str | None:
    """What is wrong with one field of initial scores, or None when it is a finite number."""
    return _number_problem(text, "missing initial score (every row needs the score it starts from)",
                           "expected the row's initial score, a finite number")


def _weight_problem(text: str) -> str | None:
    """What is wrong with one field of weights, or None when it is a finite number >= 0."""
    expected = "expected the row's weight, a finite number >= 0"
    problem = _number_problem(text, "missing weight (every row needs its weight; 0 leaves a row out)", expected)
    if problem is None and float(text.strip()) < 0:
        return f"{expected}, got {text.strip()[:40]!r}"
    return problem


def _number_problem(text: str, missing: str, expected: str) -> str | None:
    """``missing`` for a missing field, ``expected, got ...`` for one that is not a finite number, else None."""
    stripped = text.strip()
    if stripped.lower() in _MISSING:
        return missing
    wrong = f"{expected}, got {stripped[:40]!r}"
    if python_only_number(stripped):
        return wrong
    try:
        value = float(stripped)
    except ValueError:
        return wrong
    if math.isnan(value):
        return missing
    return None if math.isfinite(value) else wrong

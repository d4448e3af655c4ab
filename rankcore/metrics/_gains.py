"""The gain of each relevance grade: ``exp`` (2^grade − 1), ``linear`` or a table such as ``"0/1/3/7"``.

One spelling and one validation for every place that weighs a grade by a
gain: ``ndcg@k``'s ``gain=`` and ``lambdarank``'s ``gain=`` (LightGBM's
``label_gain``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..spec import Kind, read_float

__all__ = ["GAIN", "gain_table", "outside_table"]


def _gain(value: Any) -> str:
    """``"exp"``, ``"linear"``, or a table of gains per integer grade written ``"0/1/3/7"`` (or a sequence)."""
    if isinstance(value, str) and value in ("exp", "linear"):
        return value
    parts = value.split("/") if isinstance(value, str) else list(value)
    table = []
    for v in parts:
        try:
            # a spec's numbers: ASCII digits; a gain that overflows or underflows is refused by read_float
            table.append(read_float(v) if isinstance(v, str) else float(v))
        except (TypeError, ValueError) as exc:
            table_text = isinstance(value, str) and "/" in value           # a table: which gain, and why
            raise ValueError(f"the gain {v!r}: {exc}" if table_text
                             else "not 'exp', 'linear' or gains per grade such as '0/1/3/7'") from None
    if len(table) < 2 or not all(np.isfinite(table)) or min(table) < 0:
        raise ValueError("a table needs at least two finite gains >= 0, one per grade 0, 1, ...")
    return "/".join(repr(int(v)) if v.is_integer() else repr(v) for v in table)


#: The spec kind of a gain rule; its canonical form is ``"exp"``, ``"linear"`` or the table ``"0/1/3/7"``.
GAIN = Kind("'exp' (2^grade - 1), 'linear' (the grade) or gains per grade such as '0/1/3/7'", _gain)


def gain_table(rule: str) -> np.ndarray | None:
    """The gains of a canonical table rule, one per grade 0, 1, ...; None for ``exp`` and ``linear``.

    Parameters
    ----------
    rule : str
        The gain rule: ``exp``, ``linear``, or the gains of grades 0, 1, ... joined by ``/`` (``0/1/3``).

    Returns
    -------
    ndarray or None
        The gain of each grade.
    """
    if rule in ("exp", "linear"):
        return None
    return np.array([float(v) for v in rule.split("/")])


def outside_table(table: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The rows whose grade has no gain in ``table``: not a whole number, or beyond its last grade.  O(n).

    Parameters
    ----------
    table : ndarray
        The gain of each grade, from :func:`gain_table`.
    y : ndarray
        The grades.

    Returns
    -------
    ndarray
        The indices of those rows.
    """
    # in floats first: a grade beyond int64 must not reach the cast
    return np.flatnonzero((y != np.floor(y)) | (y >= table.shape[0]))

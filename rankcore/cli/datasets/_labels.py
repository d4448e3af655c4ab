"""Whether two labels are one: the rule of every comparison of labels across files, a model and ``--positive``."""

from __future__ import annotations

from typing import Any

__all__ = ["same_label", "python_only_number"]


def same_label(a: Any, b: Any) -> bool:
    """Whether two labels are one: equal, or the same number (``1`` and ``1.0``, or a number read as text; text
    that only Python's ``float()`` reads as a number, ``1_000`` or other scripts' digits, is no number here, as
    in a data file).

    The one rule of every comparison of labels across files, a model and ``--positive`` (the relevant label a file
    is read with, the checks that two files code the classes alike, ``evaluate``'s reading of a model's recorded
    label).
    """
    if a == b or str(a) == str(b):
        return True
    if any(isinstance(label, str) and python_only_number(label) for label in (a, b)):
        return False           # 1_000 and other scripts' digits are text in a data file: no number to compare
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def python_only_number(text: str) -> bool:
    """Whether ``text`` holds an underscore or a character beyond ASCII: what only Python's ``int()`` and
    ``float()`` read as part of a number (``1_000``, other scripts' digits such as ``"٣"``), and pandas, R,
    svmlight and a spreadsheet read as text -- as every reader of data files here does."""
    return "_" in text or not text.isascii()

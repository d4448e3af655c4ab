"""Whether two labels are one: the rule of every comparison of labels across files, a model and ``--positive``."""

from __future__ import annotations

from typing import Any

__all__ = ["same_label"]


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
    if not (_plain(a) and _plain(b)):
        return False           # 1_000 and other scripts' digits are text in a data file: no number to compare
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def _plain(label: Any) -> bool:
    """Whether a label read as text has no underscore and no character beyond ASCII (a number is plain)."""
    return not isinstance(label, str) or ("_" not in label and label.isascii())

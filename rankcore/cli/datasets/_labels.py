"""Whether two labels are one: the rule of every comparison of labels across files, a model and ``--positive``."""

from __future__ import annotations

from typing import Any

__all__ = ["same_label"]


def same_label(a: Any, b: Any) -> bool:
    """Whether two labels are one: equal, or the same number (``1`` and ``1.0``, or a number read as text).

    The one rule of every comparison of labels across files, a model and ``--positive`` (the relevant label a file
    is read with, the checks that two files code the classes alike, ``evaluate``'s reading of a model's recorded
    label).
    """
    if a == b or str(a) == str(b):
        return True
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False

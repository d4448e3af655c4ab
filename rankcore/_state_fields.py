"""Checks of the fields that any estimator's model-file state may hold: the feature names, the categories and the
relevant label."""

from __future__ import annotations

import math
from typing import Any, Callable

from ._categories import categories_from_state

__all__ = ["check_feature_names", "checked_categories", "checked_relevant_label", "relevant_label_to_state",
           "MAX_LABEL_LENGTH"]

#: The longest relevant label a model file may record, in characters.
MAX_LABEL_LENGTH = 4096


def check_feature_names(names: Any, n_features: int, fail: Callable[[str], Any]) -> None:
    """Call ``fail`` unless ``names`` (a state's ``feature_names_in``) is None or a list of ``n_features`` strings."""
    if names is not None and not (isinstance(names, list) and len(names) == n_features
                                  and all(isinstance(s, str) for s in names)):
        fail(f"feature_names_in must be a list of {n_features} strings")


def checked_categories(state: dict, n_features: int, fail: Callable[[str], Any]) -> list | None:
    """A state's ``categories`` decoded for ``n_features`` columns (None when absent); ``fail`` names what is wrong."""
    categories = state.get("categories")
    if categories is None:
        return None
    try:
        return categories_from_state(categories, n_features)
    except ValueError as exc:
        fail(f"categories: {exc}")


def relevant_label_to_state(label: Any) -> Any:
    """A relevant label as a model file records it: the Python value of a NumPy scalar (``np.int64(3)`` -> 3)."""
    return label.item() if hasattr(label, "item") else label


def checked_relevant_label(label: Any, fail: Callable[[str], Any], key: str = "relevant_label") -> Any:
    """A state's ``relevant_label``: the data file's label ``rankcore fit`` (``compare``, ``auto``) ranked first
    (fitting on it as 1, the others as 0), one text, number or boolean; ``key``: the field read (``other_label``,
    the file's label fitted as 0)."""
    finite = not isinstance(label, float) or math.isfinite(label)
    if not (isinstance(label, (str, bool, int, float)) and finite and len(str(label)) <= MAX_LABEL_LENGTH):
        fail(f"{key} must be one label (a text, a number or a boolean), got {label!r}")
    return label

"""Checks of the fields that any estimator's model-file state may hold: the feature names and the categories."""

from __future__ import annotations

from typing import Any, Callable

from ._categories import categories_from_state

__all__ = ["check_feature_names", "checked_categories"]


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

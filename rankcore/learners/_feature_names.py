"""The feature names an export writes, checked: one unique nonempty string per feature, in column order."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["checked_feature_names"]


def checked_feature_names(names, n_features: int) -> list[str]:
    """``names`` as a list of ``n_features`` strings, column j's name at j.

    Parameters
    ----------
    names : sequence of str
        A list, tuple, 1-D array or pandas Index/Series -- ordered, so that
        the j-th name is column j's.  A set (hash order, changing from run
        to run) or a single string is refused.
    n_features : int
        The model's number of features.

    Raises
    ------
    TypeError
        ``names`` is not an ordered sequence, or a name is not a string.
    ValueError
        Not one name per feature, an empty name, or two equal names.
    """
    if isinstance(names, (str, bytes)) or not (isinstance(names, Sequence) or hasattr(names, "__array__")):
        what = f"the {type(names).__name__} {names!r}" if isinstance(names, (str, bytes, int, float)) else (
            f"a {type(names).__name__}")
        hint = " (unordered: its names would land on columns in hash order)" if isinstance(
            names, (set, frozenset)) else ""
        raise TypeError(f"feature_names: expected a sequence of strings (list, tuple, 1-D array, pandas Index), one "
                        f"per feature in column order, got {what}{hint}")
    if not isinstance(names, Sequence):
        array = np.asarray(names, dtype=object)
        if array.ndim != 1:
            raise ValueError(f"feature_names: expected a 1-D sequence of names, got an array of shape {array.shape}")
        names = array.tolist()
    names = list(names)
    if len(names) != n_features:
        raise ValueError(f"feature_names: expected {n_features} names (one per feature), got {len(names)}")
    seen: dict[str, int] = {}
    for j, name in enumerate(names):
        if not isinstance(name, (str, np.str_)):
            raise TypeError(f"feature_names: expected strings, got {type(name).__name__} {name!r} for column {j}")
        if not name:
            raise ValueError(f"feature_names: column {j} has an empty name; the engines match features by name")
        if name in seen:
            raise ValueError(f"feature_names: columns {seen[name]} and {j} are both named {name!r}; the engines "
                             f"match features by name, so each must be unique")
        seen[str(name)] = j
    return [str(name) for name in names]

"""The background rows of interventional SHAP values (``feature_contributions(X, background=...)``), checked as X.

The background is read by the same checks as the rows explained (the
features of fit, a DataFrame's columns by name, NaN where the model routes
it), so a background the model could not score is refused; the checks'
messages name ``background`` instead of X.  ``groups`` (players of several
columns, :func:`check_groups`) are given as one integer label per column.
"""

from __future__ import annotations

import numbers
import re
from typing import Any, Callable

import numpy as np

from ._argument_refusal import ArgumentRefusal, said_again

__all__ = ["BACKGROUND_ADVICE", "GROUPS_REFUSED", "GROUPS_NOT_TAKEN", "check_background", "check_groups",
           "group_labels", "check_takes_groups"]

#: Said where ``background`` is documented: the cost grows with its rows.
BACKGROUND_ADVICE = "a few hundred rows, at most about 1,000: the time grows with their number, the memory does not"
#: Why ``groups`` needs a background.
GROUPS_REFUSED = ("groups: only with background rows (background=...): a group's interventional value is its "
                  "Shapley value as one player of the game against the background; the path-dependent values "
                  "of a group are not defined by summing its columns' values")

#: What the ``TypeError`` of :func:`check_takes_groups` says: a learner's method has no ``groups`` parameter.
GROUPS_NOT_TAKEN = "takes no groups"


def check_background(check: Callable[[Any], np.ndarray], background) -> np.ndarray:
    """``check(background)`` (the estimator's check of X), its ``ValueError`` and ``TypeError`` naming
    ``background``; a ``ValueError`` for a background without rows, before the check."""
    if background is None:
        raise ValueError("background: expected at least 1 row, got None")
    shape = getattr(background, "shape", None)
    if (shape is not None and len(shape) == 2 and shape[0] == 0) or (isinstance(background, (list, tuple))
                                                                    and len(background) == 0):
        raise ValueError(f"background: expected at least 1 row (the reference rows the features' values are taken "
                         f"from), got {tuple(shape) if shape is not None else 'an empty list'}")
    try:
        return check(background)
    except (ValueError, TypeError) as exc:
        message = str(exc).strip()
        named = re.sub(r"^X\b", "background", message)
        # an ArgumentRefusal of X (rankcore.validation's checks) is one of background here
        renamed = {"parameter": "background"} if isinstance(exc, ArgumentRefusal) and "parameter" in exc.fields else {}
        raise said_again(exc, named if named != message else f"background: {message}", **renamed) from None


def check_groups(groups, n_features: int, background) -> np.ndarray | None:
    """``groups`` as (n_features,) int32 labels 0..G−1, each used at least once (None: None), given a background.

    The one form taken is an array-like of one integer label per column
    (columns of one label are one player); a list of lists of columns,
    column names, or non-integer labels are refused with a ``TypeError``
    saying how to write them, a wrong length or labels not 0..G−1 with a
    ``ValueError``, and ``groups`` without ``background`` with a
    ``ValueError`` naming both.  O(n_features).
    """
    if groups is None:
        return None
    if background is None:
        raise ValueError(GROUPS_REFUSED)
    return group_labels(groups, n_features)


def group_labels(groups, n_features: int) -> np.ndarray:
    """``groups`` checked as :func:`check_groups` checks it, background or not: (n_features,) int32 labels."""
    how = (f"one integer label per column ({n_features} labels 0..G−1; columns of one label are one player, "
           f"e.g. [0, 0, 0, 1, 2] groups the first three of five columns)")
    if isinstance(groups, (str, bytes, dict, set)):
        raise TypeError(f"groups: expected {how}, got a {type(groups).__name__}")
    try:
        labels = np.asarray(groups)
    except ValueError:              # a ragged list of lists
        labels = None
    if labels is not None and labels.ndim == 1 and labels.dtype == object and not any(
            isinstance(label, (list, tuple, np.ndarray)) for label in labels):
        # one label per column held as objects (a Series or Categorical of names, a None): told as labels
        integral = all(isinstance(label, numbers.Integral) and not isinstance(label, bool) for label in labels)
        if integral and any(abs(label) >= n_features for label in labels):     # no int64 may hold them
            raise ValueError(f"groups: expected labels 0..G−1 with G <= {n_features} (the number of features), got "
                             f"{max(labels, key=abs)}")
        labels = np.array(labels.tolist(), dtype=np.int64) if integral and len(labels) else labels.astype(str)
    if labels is None or labels.ndim != 1 or labels.dtype == object:
        raise TypeError(f"groups: expected {how}, got a list of lists (or a {getattr(labels, 'ndim', 'ragged')}-D "
                        f"array): give the columns of one group the same label")
    if labels.shape[0] and labels.dtype.kind not in "iu":
        raise TypeError(f"groups: expected {how}, got labels of dtype {labels.dtype} (column names are not "
                        f"taken: label the columns by their positions)")
    if labels.shape[0] != n_features:
        raise ValueError(f"groups: expected {n_features} labels, one per feature, got {labels.shape[0]}")
    if n_features and labels.min() < 0:
        raise ValueError(f"groups: expected labels 0..G−1, got {int(labels.min())}")
    if n_features and labels.max() >= n_features:       # before counting them: a huge label is no huge count
        raise ValueError(f"groups: expected labels 0..G−1 with G <= {n_features} (the number of features), got "
                         f"{int(labels.max())}")
    unused = np.flatnonzero(np.bincount(labels.astype(np.intp)) == 0) if n_features else ()
    if len(unused):
        raise ValueError(f"groups: expected the labels 0..{int(labels.max())}, each used at least once; "
                         f"{int(unused[0])} is not (renumber them: np.unique(groups, return_inverse=True)[1])")
    return np.ascontiguousarray(labels, dtype=np.int32)


def check_takes_groups(method: Callable, learner: Any, spec: str, caller: str) -> None:
    """Refuse, before the call, ``groups`` to a learner's ``method`` (``contributions``, ``interaction_values``)
    whose signature has no ``groups`` parameter (nor ``**kwargs``): a plugin's learner written before groups.

    Read from the signature, not by catching the call's ``TypeError``, so that a ``TypeError`` raised inside the
    plugin's own code reaches the caller as it is.  A method whose signature cannot be read is called as it is.

    Raises
    ------
    TypeError
        Naming ``caller`` (``feature_contributions``), the learner's spec and class, and the method.
    """
    import inspect

    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    if any(p.kind == inspect.Parameter.VAR_KEYWORD or (p.name == "groups" and p.kind in named) for p in parameters):
        return
    cls = type(learner)
    # the learner's attribute the caller reads, not the callable's own __name__ (a functools.partial or a callable
    # object has none, an alias another)
    name = _METHODS.get(caller, getattr(method, "__name__", "contributions"))
    # a positional-only ``groups`` cannot be given by name (groups=...), which is how it is passed
    how = " by name (its groups is positional-only)" if any(p.name == "groups" for p in parameters) else ""
    shown = ", ".join(("*" if p.kind == p.VAR_POSITIONAL else "") + p.name for p in parameters)
    raise TypeError(f"{caller}: groups: the learner {spec!r} ({cls.__module__}.{cls.__qualname__}, from a plugin) "
                    f"has a method {name} that {GROUPS_NOT_TAKEN}{how} (its parameters: {shown}); leave out "
                    f"groups, or give the plugin's {name} a "
                    f"groups parameter ((n_features,) integer labels 0..G-1, each group of columns one player)")


#: The learner's method each caller of :func:`check_takes_groups` reads.
_METHODS = {"feature_contributions": "contributions", "feature_interactions": "interaction_values"}

"""Checks of the fields that any estimator's model-file state may hold: the feature names, the categories and the
relevant label."""

from __future__ import annotations

import contextlib
import contextvars
import math
from typing import Any, Callable, Iterator

import numpy as np

from ._argument_refusal import ArgumentRefusal
from ._categories import categories_from_state

__all__ = ["check_feature_names", "checked_categories", "checked_relevant_label", "relevant_label_to_state",
           "refuse_labels_coded_otherwise", "labels_coded", "MAX_LABEL_LENGTH"]

#: The longest relevant label a model file may record, in characters.
MAX_LABEL_LENGTH = 4096

#: True while the command line passes labels it has coded itself (:func:`labels_coded`).
_CODED = contextvars.ContextVar("rankcore_labels_coded", default=False)


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


def _same(a: Any, b: Any) -> bool:
    """Whether two labels are one: numbers by value (1, 1.0 and True alike), texts by text."""
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


@contextlib.contextmanager
def labels_coded() -> Iterator[None]:
    """Within it, labels given to a model are its codes (the command line maps its file's labels itself), and
    :func:`refuse_labels_coded_otherwise` lets them pass."""
    token = _CODED.set(True)
    try:
        yield
    finally:
        _CODED.reset(token)


def _label_values(y: Any) -> list:
    """The distinct labels of ``y`` (a few of them when it holds more than two kinds that do not sort)."""
    values = np.asarray(y, dtype=object if isinstance(y, (list, tuple)) else None).ravel()
    try:
        return np.unique(values).tolist()
    except TypeError:           # texts and numbers together: y is refused by its caller's own check anyway
        distinct: list = []
        for value in values.tolist():
            if value not in distinct:
                distinct.append(value)
            if len(distinct) > 2:
                break
        return distinct


def _misread(label: Any, other: Any, codes: list, values: list) -> bool:
    """Whether labels ``values`` could be a data file's (``label`` relevant, ``other`` the rest; None: the file had
    more labels, unknown) and would rank otherwise read as the codes ``codes`` (``codes[1]`` relevant)."""
    if not any(_same(value, codes[1]) != _same(value, label) for value in values):
        return False                # read either way, the same rows are relevant
    if other is not None:           # the file's two labels known: values outside them cannot be the file's
        return all(_same(value, label) or _same(value, other) for value in values)
    # the file had more than two labels, its others unknown: a number could be one of them, a text not (a file
    # whose relevant label is a text has text labels)
    return not isinstance(label, str) and all(not isinstance(value, str) for value in values)


def refuse_labels_coded_otherwise(model: Any, y: Any = None, name: str = "y", source: str = "the model") -> None:
    """Refuse labels ``y`` given in Python to a model the command line fitted on a data file whose labels could be
    read as the model's codes with another meaning (``--positive 0`` on {0, 1}: ``classes_`` [0, 1] with 1 for
    the file's 0, ``relevant_label_`` 0; or ``--positive 2`` on {0, 1, 2}, whose 1 is not relevant).

    Such a ``y`` cannot say whether it holds the file's labels or the codes, and read as codes -- what ``classes_``
    says -- it would turn the ranking upside down without a word.  Models without ``relevant_label_`` (fitted in
    Python), whose file labels match their codes (``--positive 1`` on {0, 1}) or differ from them in kind
    (texts), and a ``y`` that cannot be the file's labels (a 0 for a model of a {1, 2} file) are not refused.  A
    model without ``classes_`` (a KernelRanker the command line fitted: it reads numeric labels as grades) was
    fitted on the codes 0 and 1.

    Parameters
    ----------
    model : estimator
        The fitted model given the labels.
    y : array-like, optional
        The labels (None: any labels among ``classes_``, refused if some could be misread).
    name : str, default "y"
        The argument the refusal names.
    source : str, default "the model"
        What the refusal calls the model.

    Raises
    ------
    ValueError
        An :class:`~rankcore.ArgumentRefusal` naming ``name`` and ``relevant_label_``.
    """
    if _CODED.get():
        return
    label = vars(model).get("relevant_label_") if hasattr(model, "__dict__") else None
    # no classes_: the command line fitted it on its codes, 0 and 1 (KernelRanker, which keeps none for numbers)
    classes = getattr(model, "classes_", None) if hasattr(model, "classes_") else [0, 1]
    if label is None or classes is None or len(classes) != 2:
        return
    codes = list(classes.tolist() if hasattr(classes, "tolist") else classes)
    other = vars(model).get("other_label_")
    if y is None:
        misread = any(_misread(label, other, codes, [code]) for code in codes)
    else:
        misread = _misread(label, other, codes, _label_values(y))
    if not misread:
        return
    said = "classes_" if hasattr(model, "classes_") else "codes"
    raise ArgumentRefusal.said(
        name, f"{source} was fitted by the command line on a data file's labels coded 1 for {label!r} "
        f"(relevant_label_, ranked first) and 0 for the others ({said} {codes}): the file's labels would be read "
        f"as codes and its ranking turned upside down without a word; give {name} coded ({name} == {label!r} as 1, "
        "the others as 0) and delete the model's relevant_label_ and other_label_ to say it is")

"""A learner's refusal of its monotone or interaction constraints, said with the feature columns' names.

``--learner trees:monotone=1/0/-1`` gives a sign per feature column in
order and ``trees:interactions=0+1/2`` counts the columns from 0: when the
learner refuses them (:class:`~rankcore.learners.ConstraintRefusal`), the
command line names the columns the refusal is about by the file's names
(``columns``: a categorical column given a sign, a column given twice), or,
when it is about none (a count of signs, an index beyond the columns, a
value that cannot be read), lists the columns in the order they are counted,
which the user may not have counted (``--drop`` and the label leave them
out).  The advice is chosen by the refusal's class and fields, never by its
text.

``feature_names`` are the columns of X the learner is given, in order: the
file's feature columns after ``--drop`` and the label, query, position,
weight and initial-score columns are taken out (``data.feature_names``).
"""

from __future__ import annotations

__all__ = ["constraint_advice", "deferred_constraints", "say_unread_constraints", "say_with_columns"]


def constraint_advice(exc: BaseException, feature_names) -> str | None:
    """What to add to the learner's refusal ``exc`` of its ``monotone`` or ``interactions``: the columns it is about
    by name (``"that is column 'age' (index 3) of the feature columns"``), else the columns in order (``"the signs
    follow the feature columns in order: a, b, c"``); None for another error, or without the columns' names."""
    from ..learners import ConstraintRefusal

    if not isinstance(exc, ConstraintRefusal) or not feature_names:
        return None
    names = [str(name) for name in feature_names]
    if exc.columns and all(0 <= j < len(names) for j in exc.columns):
        named = [f"{names[j]!r} (index {j})" for j in exc.columns]
        if len(named) == 1:
            return f"that is column {named[0]} of the feature columns"
        return f"those are columns {', '.join(named[:-1])} and {named[-1]} of the feature columns"
    listed = ", ".join(names)
    if exc.constraint == "monotone":
        return f"the signs follow the feature columns in order: {listed}"
    return f"the indices count the feature columns in order from 0: {listed} (a column may also be given by its name)"


def deferred_constraints(exc: BaseException) -> bool:
    """Whether a spec's refusal ``exc`` (resolved before the data are read, ``check_specs``) waits for the feature
    columns: a ``monotone`` or ``interactions`` value that cannot be read is said with their order
    (:func:`say_unread_constraints`), as a learner's refusal against X is."""
    from ..learners import ConstraintRefusal

    return isinstance(exc, ConstraintRefusal)


def say_unread_constraints(configs, read_names) -> None:
    """Raise the first deferred refusal of the models ``configs`` (a ``monotone`` or ``interactions`` value that
    cannot be read: ``config.unread``, ``(what the option said, the refusal)``) with the feature columns' advice.

    Call it as soon as the models are built: the refusal is said before any
    other check of the options, as any other spec that cannot be read is.
    ``read_names()`` reads the training file as the command does and gives
    its feature columns (see :func:`say_with_columns`).
    """
    unread = next((config.unread for config in configs if config.unread), None)
    if unread:
        said, exc = unread
        say_with_columns(said, exc, read_names)


def say_with_columns(said: str, exc: BaseException, read_names):
    """Raise the command's error ``said`` (the option's words for the refusal ``exc`` of a value that cannot be
    read, before the data are) with the feature columns' advice (:func:`constraint_advice`).

    ``read_names()`` reads the training file as the command does and gives
    its feature columns, for this error alone; when it cannot (no such file,
    a column to drop that is not there...) the refusal is said alone, and the
    reader's warnings are not shown: the value is the error the user meets
    first.
    """
    import warnings

    from . import CommandError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            feature_names = read_names()
    except (CommandError, ValueError, TypeError, OSError, ImportError, ArithmeticError):     # main's user errors
        feature_names = None
    advice = constraint_advice(exc, feature_names)
    raise CommandError(said if advice is None else f"{said}; {advice}")

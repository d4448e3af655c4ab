"""A learner's refusal of its monotone or interaction constraints, said with the feature columns' names.

``--learner trees:monotone=1/0/-1`` gives a sign per feature column in
order and ``trees:interactions=0+1/2`` counts the columns from 0: when the
learner refuses them (:class:`~rankcore.learners.ConstraintRefusal`), the
command line lists the columns in that order, which the user may not have
counted (``--drop`` and the label leave them out).  The advice is chosen by
the refusal's ``constraint``, never by its text.
"""

from __future__ import annotations

__all__ = ["constraint_advice"]


def constraint_advice(exc: BaseException, feature_names) -> str | None:
    """``"the signs follow the feature columns in order: a, b, c"`` (``monotone``) or ``"the indices count the
    feature columns in order from 0: ..."`` (``interactions``) for the learner's refusal ``exc``; None for another
    error, or without the columns' names."""
    from ..learners import ConstraintRefusal

    if not isinstance(exc, ConstraintRefusal) or not feature_names:
        return None
    names = ", ".join(map(str, feature_names))
    if exc.constraint == "monotone":
        return f"the signs follow the feature columns in order: {names}"
    return f"the indices count the feature columns in order from 0: {names} (a column may also be given by its name)"

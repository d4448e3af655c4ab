"""``ConstraintRefusal``: a learner's refusal of its monotone or interaction constraints, with the facts as fields.

A learner's ``monotone`` signs and ``interactions`` groups give columns of X
by their place (``monotone="1/0/-1"``: a sign per column in order;
``interactions="0+1/2"``: columns counted from 0).  When they do not fit the
X a fit is given, the learner refuses them with this class: a caller that
knows the columns by name (the command line's header) chooses its advice by
``constraint`` and finds the columns involved in ``columns``, never in the
text, so a reworded message cannot silently stop it.
"""

from __future__ import annotations

from typing import Any

from .._argument_refusal import ArgumentRefusal
from ..spec import SpecError, abbreviate

__all__ = ["ConstraintRefusal", "ConstraintSpecError", "CONSTRAINTS"]

#: The constraints a refusal is of: the learner parameters that name them.
CONSTRAINTS = ("monotone", "interactions")


class ConstraintRefusal(ArgumentRefusal):
    """A learner refuses its ``monotone`` or ``interactions`` constraints against X (a ``ValueError``).

    An :class:`~rankcore.validation.ArgumentRefusal` of the learner parameter
    ``constraint`` (``parameter`` is the same name), with the columns of X it
    is about.

    Catch it as a ``ValueError`` (its base class) or by this class to read the
    fields::

        try:
            model.fit(X, y)
        except rankcore.learners.ConstraintRefusal as exc:
            if exc.constraint == "monotone":
                ...             # the signs follow X's columns in order

    Parameters
    ----------
    message : str
        The whole message; it ends with ``detail``.
    constraint : str
        One of :data:`CONSTRAINTS`: the parameter refused.
    detail : str, optional
        The refusal without the names before it (``"expected 8 signs, ..."``
        of ``"monotone: expected 8 signs, ..."``).  Default: the message.
    columns : sequence of int, optional
        The columns of X (by index, counted from 0) the refusal is about,
        where it knows them: a categorical column given a sign, a column
        given twice.  Empty when it is about no column of X (a count of
        signs) or one X does not have (an index out of range).
    """

    #: The constructor's keyword fields (see :class:`~rankcore.validation.ArgumentRefusal`)
    fields = ("constraint", "detail", "columns")

    def __init__(self, message: str, *, constraint: str, detail: str | None = None, columns: Any = ()) -> None:
        # the rule a caller relies on instead of reading the text: a wrong raise fails here, at once
        if constraint not in CONSTRAINTS:
            raise TypeError(f"ConstraintRefusal: constraint must be one of {CONSTRAINTS}, got {constraint!r}")
        super().__init__(message, parameter=constraint, detail=detail)
        self.constraint = constraint
        self.columns = tuple(int(j) for j in columns)

    @classmethod
    def said(cls, constraint: str, detail: str, columns: Any = ()) -> "ConstraintRefusal":
        """The refusal as the learner says it: ``"{constraint}: {detail}"``."""
        return cls(f"{constraint}: {detail}", constraint=constraint, detail=detail, columns=columns)


class ConstraintSpecError(ConstraintRefusal, SpecError):
    """A learner's ``monotone`` or ``interactions`` value that cannot be read, before any X (a ``SpecError``).

    The spec ``"trees:monotone=1/2/0"`` (2 is no sign) or
    ``"trees:interactions=0++1"`` (an empty group) is refused when it is
    read, as any spec that cannot be configured: a
    :class:`~rankcore.spec.SpecError`, as before, and a
    :class:`ConstraintRefusal` of the constraint, so that a caller that
    knows the columns (the command line) says how they are counted for it
    as for a refusal against X.  ``columns``: the column indices the value
    names twice, where it does (no X is known yet: any other index may be
    out of range).
    """

    #: How a message that names the class says it (``shown_type``): the SpecError it was before it had fields
    shown_as = "SpecError"

    def __init__(self, message: str, *, constraint: str, detail: str | None = None, columns: Any = ()) -> None:
        # a SpecError's message never repeats a very long value whole: the detail is cut as the message is
        # (ArgumentRefusal's check that the message ends with it then holds)
        message = abbreviate(message)
        detail = None if detail is None else abbreviate(detail)
        if detail is not None and not message.endswith(detail):
            detail = message
        super().__init__(message, constraint=constraint, detail=detail, columns=columns)

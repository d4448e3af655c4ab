"""``ArgumentRefusal``: a check's refusal of one argument, with the argument's name and the refusal as fields.

The checks of :mod:`rankcore.validation` and the fits' checks of
``position`` and ``sample_weight`` start their message with the argument's
name (``"sample_weight: expected non-negative weights, got [-1.]"``).  A
caller that says the refusal again in its own words (the command line's
``--weight FILE: ...``, a metric's refusal of the labels it is given) reads
``parameter`` and ``detail``, never the text: a reworded message cannot
silently stop its rephrasing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ArgumentRefusal", "ArgumentTypeRefusal", "REASONS", "said_again", "shown_type", "with_article"]

#: Why an argument is refused: its values (``"value"``: a wrong length, a negative weight, a missing position...)
#: or, for weights, what they leave an objective (``"zero_total"``: a class or every query of total weight 0).
REASONS = ("value", "zero_total")

_FIELDS = ("parameter", "detail", "reason", "row")


class ArgumentRefusal(ValueError):
    """A check refuses the argument ``parameter`` (a ``ValueError``).

    Catch it as a ``ValueError`` (its base class) or by this class to read the
    fields::

        try:
            model.fit(X, y, qid=qid, sample_weight=w)
        except rankcore.ArgumentRefusal as exc:
            if exc.parameter == "sample_weight":
                ...             # exc.detail: what was wrong with the weights

    Parameters
    ----------
    message : str
        The whole message; it ends with ``detail``.  A check says it as
        ``f"{parameter}: {detail}"`` (:meth:`said`); an objective that
        names itself first (``"objective 'push': needs positive total
        weight ..."``) says the argument in the detail.
    parameter : str
        The argument refused, as the check names it at the start of its
        message: ``"position"``, ``"sample_weight"``, ``"eval_set y"``,
        ``"sample_weight (chunk 2)"``.  A layer above that says the refusal
        again with more words before it (``"early_stopping: the training
        part: sample_weight: ..."``) keeps it (:func:`said_again`).
    detail : str, optional
        The refusal without the names before it.  Default: the message.
    reason : str, default "value"
        One of :data:`REASONS`.
    row : int, optional
        The row refused (counted from 0 among the rows given, as the message
        says it: ``"... got 1100.0 at row 12"``), where one row is; None
        otherwise.  A caller that names the row its own way (the command
        line's file and line) reads it here.
    """

    #: How a message that names the class says it (``shown_type``): the ValueError it was before it had fields
    shown_as = "ValueError"

    #: The constructor's keyword fields, which pickling, copying and :meth:`with_context` carry (a subclass that
    #: takes others names them here)
    fields = _FIELDS

    def __init__(self, message: str, *, parameter: str, detail: str | None = None, reason: str = "value",
                 row: int | None = None) -> None:
        super().__init__(message)
        detail = message if detail is None else detail
        # the rules a caller relies on instead of reading the text: a wrong raise fails here, at once
        if not isinstance(parameter, str) or not parameter:
            raise TypeError(f"{type(self).__name__}: parameter must be a non-empty str, got {parameter!r}")
        if reason not in REASONS:
            raise TypeError(f"{type(self).__name__}: reason must be one of {REASONS}, got {reason!r}")
        if not isinstance(message, str) or not message.endswith(detail):
            raise TypeError(f"{type(self).__name__}: the message {message!r} must end with detail {detail!r}")
        if row is not None and (isinstance(row, bool) or not isinstance(row, int) or row < 0):
            raise TypeError(f"{type(self).__name__}: row must be an int >= 0 or None, got {row!r}")
        self.parameter, self.detail, self.reason, self.row = parameter, detail, reason, row

    def __reduce__(self) -> tuple:
        # the fields rebuild it (BaseException's reduce would call __init__ with the message alone); the rest of the
        # instance's dict (``add_note``'s ``__notes__``, attributes a caller set) is restored as BaseException's is
        state = {k: v for k, v in self.__dict__.items() if k not in self.fields + _FIELDS}
        return (_rebuild, (type(self), str(self), self._field_values()), state or None)

    def _field_values(self) -> dict:
        return {name: getattr(self, name) for name in self.fields}

    @classmethod
    def said(cls, parameter: str, detail: str, reason: str = "value", row: int | None = None) -> "ArgumentRefusal":
        """The refusal as a check says it: ``"{parameter}: {detail}"`` (``row``: the row refused, if one is)."""
        return cls(f"{parameter}: {detail}", parameter=parameter, detail=detail, reason=reason, row=row)

    def with_context(self, message: str, **changes: Any) -> "ArgumentRefusal":
        """The same refusal said as ``message`` (which ends with its detail) by a layer above, with ``changes``.

        Raise it ``from`` the original when the chain helps.
        """
        return type(self)(message, **{**self._field_values(), **changes})


class ArgumentTypeRefusal(ArgumentRefusal, TypeError):
    """A check refuses the argument ``parameter`` for the type of its values (text where numbers are expected,
    query ids that mix numbers and text): an :class:`ArgumentRefusal` that is a ``TypeError`` too.

    Where one call refused such values with a ``TypeError`` (a metric's or
    ``score``'s labels) and another with an ``ArgumentRefusal`` (``fit``'s
    grades), both raise this class: ``except TypeError``, ``except
    ValueError`` and ``except ArgumentRefusal`` each still catch it, and the
    fields name the argument.
    """

    #: How a message that names the class says it (``shown_type``): the built-in class callers catch it by
    shown_as = "TypeError"

    @classmethod
    def of(cls, exc: TypeError, parameter: str) -> "ArgumentTypeRefusal":
        """A check's plain ``TypeError`` that starts with ``f"{parameter}: "`` as this refusal (one already is)."""
        if isinstance(exc, ArgumentRefusal):
            return exc
        text = str(exc)
        named = text.startswith(f"{parameter}: ")
        return cls(text, parameter=parameter, detail=text[len(parameter) + 2:] if named else text)


def said_again(exc: BaseException, message: str, *, plain: type | None = None, **changes: Any) -> BaseException:
    """``exc`` said as ``message`` by a layer above, which adds words before or after the words of ``exc``.

    An :class:`ArgumentRefusal` stays one, with its fields and ``changes``
    (its detail runs from where ``message`` says it to the end, taking in
    words added after it); another exception is ``plain(message)``, by
    default ``type(exc)(message)``.  A class that cannot be made from a
    message alone (a plugin's error with fields of its own) is said as the
    built-in ``ValueError`` or ``TypeError`` it is: the user's error, never
    a ``TypeError`` of the constructor's.  Raise the result ``from None`` or
    ``from exc`` as the site did.
    """
    if not isinstance(exc, ArgumentRefusal):
        try:
            return (type(exc) if plain is None else plain)(message)
        except Exception:       # a constructor that needs more than the message
            return (ValueError if isinstance(exc, ValueError) else TypeError if isinstance(exc, TypeError)
                    else Exception)(message)
    return exc.with_context(message, **{"detail": _detail_in(exc, message), **changes})


def shown_type(exc: BaseException) -> str:
    """The kind of ``exc`` as a message that names it says it (``"fold 1: ValueError: ..."``).

    A refusal with fields (:class:`ArgumentRefusal` and its subclass
    ``ConstraintRefusal``, ``MetricRefusal``, ``InitModelColumns``: each
    declares ``shown_as``)
    is the ``ValueError`` its check raised before it had fields: a
    leaderboard, a format error or a worker's report that names the class
    keeps its words.
    """
    return getattr(type(exc), "shown_as", None) or type(exc).__name__


def _detail_in(exc: ArgumentRefusal, message: str) -> str:
    # where the layer above says the whole of ``exc`` its detail ends that; words it adds after may repeat the
    # detail's words (a short detail), so the detail is not searched for on its own unless the message was reworded
    # (a message reworded after the raise, said whole, is its own detail there, as when unpickled)
    said = str(exc)
    at = message.find(said)
    if at >= 0:
        return message[at + len(said) - len(exc.detail):] if said.endswith(exc.detail) else message[at:]
    at = message.rfind(exc.detail)
    return message[at:] if at >= 0 else message


def _rebuild(cls: Any, message: str, fields: dict) -> ArgumentRefusal:
    if not message.endswith(fields["detail"]):     # the message was reworded after it was raised: it is the detail
        fields = {**fields, "detail": message}
    return cls(message, **fields)


#: Letters whose names start with a vowel sound, said in an acronym read letter by letter: "an RBF", "an NDCG".
_VOWEL_NAMED = frozenset("aefhilmnorsx")
#: Pairs of consonants that start English words: "stumps", "trees", "sqhinge" are read as words, not spelled out.
_WORD_ONSETS = frozenset("bl br ch cl cr dr fl fr gl gr kn ph pl pr sc sh sk sl sm sn sp sq st sw th tr tw wh wr"
                         .split())


def with_article(name: str) -> str:
    """``name`` after its indefinite article, chosen by how it is said: ``"an AUC"``, ``"an ndcg@k"``, ``"an exp"``,
    ``"a map"``, ``"an XGBRanker"``, ``"a LightGBMCandidate"``, ``"an Exponential"``.

    A name is read letter by letter (then "an" before a letter whose name starts with a vowel sound: f, h, l, m, n,
    r, s, x and the vowels) when it starts with two capitals (``AUC``, ``RMax``, ``NDCGAtK``), is a single letter,
    or starts with two lower-case consonants no English word starts with (``ndcg``, ``rmse``, ``mrr``, ``ks``);
    otherwise it is read as a word, "an" before a vowel letter.  The first letter alone would say "a AUC" and
    "a RBF"; a spelling rule cannot know every word (``"a uniform"``), but the registry's names all read right.
    """
    text = str(name)
    letters = text.lstrip("_")
    if not letters[:1].isalpha():
        return f"a {text}"
    first, second = letters[0].lower(), letters[1:2]
    spelled = (not second.isalpha() or letters[:2].isupper()
               or (letters[:2].islower() and not {first, second} & set("aeiouy")
                   and letters[:2] not in _WORD_ONSETS))
    vowel_sound = first in _VOWEL_NAMED if spelled else first in "aeiou"
    return f"{'an' if vowel_sound else 'a'} {text}"

"""``MetricRefusal``: a metric's refusal of the data it is asked to judge, with the facts said as fields.

A refusal travels up through the layers (the metric, an estimator's ``scoring=`` or ``eval_metric=``, AutoRanker's
checks, the command line), each saying it again for its own audience: ``metric 'ndcg@k:40': k = 40 is larger than
every query ...`` becomes ``scoring='ndcg@k:40' on eval_set: k = 40 ...`` in a fit and ``--validation FILE:
--monitor ndcg@k:40: ...`` on the command line.  The layers read the fields (``reason``, ``detail``, ``k``...),
never the text: a reworded message cannot silently stop a layer's rephrasing.
"""

from __future__ import annotations

from typing import Any

from .._argument_refusal import ArgumentRefusal

__all__ = ["MetricRefusal", "REASONS", "REMEDIES", "k_beyond", "one_class"]

#: The kinds of refusal: a count k beyond every query (``k_beyond``) or beyond the rows (``k_rows``), no query
#: counted (``no_query``), labels the metric does not take (``labels``), and ``other``: a layer above wrapped an
#: error that is no refusal of these kinds (a plugin's own ValueError, a TypeError) to say it as its parameter.
REASONS = ("k_beyond", "k_rows", "no_query", "labels", "other")

#: What a refusal's closing advice asks for, where a layer says one (AutoRanker's check of the parts it scores): a
#: metric that fits the parts or larger parts (``"metric_or_larger"``), or parts that hold both classes
#: (``"both_classes"``).
REMEDIES = ("metric_or_larger", "both_classes")

_FACTS = ("spec", "reason", "detail", "k", "longest", "n_queries", "labels", "parameter", "eval_set", "advice",
          "remedy", "row")


class MetricRefusal(ValueError):
    """A metric refuses the labels, queries or count k it is given (a ``ValueError``).

    ``str(exc)`` is the message as the layer that raised it says it last; the
    attributes are the facts every layer reads to say it again.  Catch it as
    a ``ValueError`` (its base class) or by this class to read the fields::

        try:
            model.fit(X, y, qid=qid, eval_set=(X_val, y_val, qid_val))
        except rankcore.MetricRefusal as exc:
            if exc.reason == "k_beyond":
                ...         # exc.k, exc.longest: refit with a smaller k

    Parameters
    ----------
    message : str
        The whole message.  When ``labels`` is given it starts with
        ``f"{labels}: "``; it always ends with ``detail``.
    spec : str
        The metric's spec (``"ndcg@k:40"``).
    reason : str
        One of :data:`REASONS`.
    detail : str, optional
        The refusal without the names before it: ``"k = 40 is larger than
        every query (...)"``, ``"counts none of the 3 queries (...)"``,
        ``"expected binary labels ..."``.  Default: the message.
    k, longest : int, optional
        The count k and the largest query (``k_beyond``) or the number of
        rows (``k_rows``).
    n_queries : int, optional
        The queries judged (``no_query``).
    labels : str, optional
        How the message names the labels judged (``"y"``, ``"eval_set y"``).
    parameter : str, optional
        The parameter that named the metric (``"scoring"``, ``"eval_metric"``);
        None where the metric says it in its own words.
    eval_set : str, optional
        The validation set judged (``"eval_set"``, ``"eval_set[1]"``); None
        for the training rows or rows held out of them.
    advice : str, optional
        The advice the message ends with (``"Use a metric that fits them
        (...) or larger validation parts (a larger eval_set)"``), said with
        the library's names; None without one.  A caller that names things
        its own way (the command line's file) says the message without it
        (``str(exc)[:-len(exc.advice)]``) and gives its own by ``remedy``.
        A layer above that says words after it drops it (and ``remedy``):
        the message no longer ends with it.
    remedy : str, optional
        One of :data:`REMEDIES`: what ``advice`` asks for; None without it.
    row : int, optional
        The row whose label is refused (counted from 0 among the rows judged, as the message says it: ``"...
        got 1100.0 at row 12"``); None when no one row is.
    """

    #: How a message that names the class says it (``shown_type``): the ValueError it was before it had fields
    shown_as = "ValueError"

    def __init__(self, message: str = "", *, spec: str = "", reason: str = "other", detail: str | None = None,
                 k: Any = None, longest: int | None = None, n_queries: int | None = None, labels: str | None = None,
                 parameter: str | None = None, eval_set: str | None = None, advice: str | None = None,
                 remedy: str | None = None, row: int | None = None) -> None:
        super().__init__(message)
        detail = message if detail is None else detail
        # the two rules the layers above rely on instead of reading the text: a wrong raise fails here, at once
        if reason not in REASONS:
            raise TypeError(f"MetricRefusal: reason must be one of {REASONS}, got {reason!r}")
        if not message.endswith(detail) or (labels is not None and not message.startswith(f"{labels}: ")):
            raise TypeError(f"MetricRefusal: the message {message!r} must start with labels {labels!r} and end "
                            f"with detail {detail!r}")
        self.spec, self.reason, self.detail = spec, reason, detail
        self.k, self.longest, self.n_queries = k, longest, n_queries
        self.labels, self.parameter, self.eval_set = labels, parameter, eval_set
        if (advice is None) != (remedy is None) or (remedy is not None and remedy not in REMEDIES):
            raise TypeError(f"MetricRefusal: advice and remedy (one of {REMEDIES}) are given together, got "
                            f"{advice!r} and {remedy!r}")
        if advice is not None and not (detail.endswith(advice) and advice):
            advice = remedy = None       # words said after it: the message no longer ends with its advice
        self.advice, self.remedy = advice, remedy
        self.row = row

    def facts(self) -> dict:
        """The fields, by name (what :meth:`with_context` carries over)."""
        return {name: getattr(self, name) for name in _FACTS}

    def with_context(self, message: str, **changes: Any) -> "MetricRefusal":
        """The same refusal said as ``message`` by a layer above, with ``changes`` to its fields.

        ``labels`` is dropped unless given: the new message names the labels
        its own way.  Raise it ``from`` the original when the chain helps.
        """
        return type(self)(message, **{**self.facts(), "labels": None, **changes})

    def relabeled(self, labels: str) -> "MetricRefusal":
        """The refusal said of other labels: ``"y: metric 'misrank' ..."`` as ``"eval_set y: metric ..."``."""
        if self.labels is None or self.labels == labels:
            return self
        text = str(self)
        return self.with_context(f"{labels}{text[len(self.labels):]}", labels=labels)

    @classmethod
    def said_of(cls, spec: str, reason: str, detail: str, labels: str = "y", **facts: Any) -> "MetricRefusal":
        """The refusal as a metric says it of the labels it judges: ``"{labels}: metric 'spec' {detail}"``."""
        return cls(f"{labels}: metric {spec!r} {detail}", spec=spec, reason=reason, detail=detail, labels=labels,
                   **facts)

    @classmethod
    def of_labels(cls, exc: ValueError, spec: str, labels: str) -> "MetricRefusal":
        """A label check's ValueError (:mod:`rankcore.validation`, called with ``name=labels``) as the refusal of
        the metric ``spec``; a refusal already is one.

        A check of :mod:`rankcore.validation` refuses with an
        :class:`~rankcore.validation.ArgumentRefusal` whose ``parameter`` is
        the name it is given and ``detail`` what it says of it
        (``"eval_set y: expected binary labels ..."``): those fields are read.
        Another ValueError (a plugin's own check) is read by its text, as one
        that starts with the name when it does.
        """
        if isinstance(exc, cls):
            return exc
        text = str(exc)
        if isinstance(exc, ArgumentRefusal):
            # said of these labels, and first (a layer above may have said more before it: then it is all detail)
            named = exc.parameter == labels and text == f"{labels}: {exc.detail}"
            return cls(text, spec=spec, reason="labels", detail=exc.detail if named else text,
                       labels=labels if named else None)
        named = text.startswith(f"{labels}: ")
        return cls(text, spec=spec, reason="labels", detail=text[len(labels) + 2:] if named else text,
                   labels=labels if named else None)

    @classmethod
    def of_metric(cls, exc: Exception, spec: str, labels: str = "y") -> "MetricRefusal":
        """A metric's own error (a plugin's ``check_data`` or ``query_values`` raising a plain ``ValueError``) as
        the refusal of ``spec`` (reason ``"other"``) of the labels ``labels``; a refusal said of ``labels``.

        A metric names its labels ``y`` and often itself (``"y: metric 'x' needs ..."``, ``"metric 'x': k: ..."``):
        the detail is what follows those names, so that a layer that says the metric and the labels its own way
        does not say them twice; the message names the labels ``labels`` where the metric named ``y``.
        """
        if isinstance(exc, cls):
            return exc.relabeled(labels)
        text = str(exc)
        named = text.startswith("y: ")
        said = text[len("y: "):] if named else text
        detail = said.removeprefix(f"metric {spec!r}: ").removeprefix(f"metric {spec!r} ")
        return cls(f"{labels}: {said}" if named else text, spec=spec, reason="other", detail=detail,
                   labels=labels if named else None)


def one_class(spec: str, n_pos: int, n: int, labels: str = "y") -> MetricRefusal:
    """The refusal of ``n`` 0/1 labels of one class (``n_pos`` relevant: none or all) by a metric that needs both
    (the words of :func:`rankcore.validation.check_both_classes`).

    Parameters
    ----------
    spec : str
        The metric's spec.
    n_pos : int
        The relevant labels among them.
    n : int
        The labels.
    labels : str, default "y"
        The argument the refusal names.

    Returns
    -------
    MetricRefusal
        The refusal, to raise.
    """
    detail = f"needs both classes, got {'only negatives (0)' if n_pos == 0 else 'only positives (1)'} in {n} labels"
    return MetricRefusal.said_of(spec, "labels", detail, labels)


def k_beyond(spec: str, k: Any, longest: int, where: str = "every query", advice: str = "") -> MetricRefusal:
    """The refusal of a count ``k`` larger than every query (``where``: ``"the input"`` for one list).

    Parameters
    ----------
    spec : str
        The metric's spec (``prec@k:50``).
    k : int or float
        The count asked for.
    longest : int
        The rows of the longest list.
    where : str, default "every query"
        What the lists are, in the refusal's words.
    advice : str, default ""
        Said after "choose k <= longest": another way out (the spec that reads each query whole).

    Returns
    -------
    MetricRefusal
        The refusal, to raise.
    """
    detail = (f"k = {k} is larger than {where} (the largest has {longest} rows), so no query is cut at k; "
              f"choose k <= {longest}{advice}")
    return MetricRefusal(f"metric {spec!r}: {detail}", spec=spec, reason="k_beyond", detail=detail, k=k,
                         longest=int(longest))

"""What a push fit scores its validation rows by after every iteration: a metric, or the objective itself.

``scoring=`` names a registered metric (``"auc"``, ``"pauc:0.1"``,
``"prec@k:20"``) or ``"objective"``: the fit's own objective J evaluated on
the validation rows (the push objective's log R over the validation pairs).
Both are bound to the validation labels once, so that each iteration costs
one evaluation on the validation scores: O(n log n) for a sorted metric,
O(n) for the exponential push objective (one log-sum-exp per class),
O(n log n) for the hinge losses and O(I·K) for losses without a factorized
pairwise sum (``logistic``).

With queries (``fit(..., qid=...)``) every metric is computed per query of
the validation rows and averaged over the queries it counts, as
``rankcore.evaluate(..., qid=)`` does, and the default is
:data:`QUERY_METRIC` (``ndcg@k:10``; queries without a relevant row left
out).  Without queries the default (``scoring=None``) is a metric: ``auc`` (``misrank`` for graded
objectives), and :data:`LARGE_DATA_METRIC` when ``early_stopping="auto"``
switches on (a validation set of 1,000 rows or more, large enough to measure
the top of the list).  The objective's own loss is not the default: for the
push objective J = log R is a soft maximum over the worst-ordered validation
pairs (the lowest-scored positives, the highest-scored negatives), which rises
as soon as the model grows confident about a few hard rows, long before the top
of the list stops improving (measured in ``docs/push.md``, *Early stopping*).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

__all__ = ["OBJECTIVE_SCORING", "LARGE_DATA_METRIC", "MetricScoring", "ObjectiveScoring", "query_scorer",
           "within_largest_query"]

#: The ``scoring`` value that validates on the objective's own loss.
OBJECTIVE_SCORING = "objective"
#: The validation metric of ``scoring=None`` when ``early_stopping="auto"`` switches on (bipartite objectives).
LARGE_DATA_METRIC = "pauc:0.1"


def within_largest_query(metric: Any, queries: Any) -> Any:
    """``metric`` with a count k above every query lowered to the largest query's size (the same values).

    For the defaults only (``ndcg@k:10`` on queries of fewer than 10 rows
    reads every row of each query, as ``ndcg@k:<largest>`` does); a metric
    the user names keeps its own rule and its error.
    """
    k = getattr(metric, "k", None)
    largest = int(queries.sizes.max())
    if isinstance(k, int) and not isinstance(k, bool) and k > largest:
        given = {p.name: metric.params[p.name] for p in metric.parameters if metric.params[p.name] != p.default}
        return type(metric)(**{**given, "k": largest})
    return metric


def query_scorer(metric: Any, y: Any, queries: Any, *, name: str = "y", n_threads: int = 1,
                 cache: Any = None) -> Callable[[np.ndarray], float]:
    """scores -> the mean of ``metric`` over the queries it counts (labels checked once).

    A list metric (``ndcg@k``, ``err@k``, ``map``, ``map@k``, ``mrr``) is
    bound to the labels once (its ``bind_queries``: the ideal DCG, the cut-offs
    and the grouping of the rows by query are computed here), so that each call
    sorts the scores only inside the queries (``n_threads`` share them); the
    value is :func:`rankcore.evaluate`'s with ``qid``, bit for bit.

    ``cache``: a :class:`~rankcore.metrics.RankingCache` of ``queries`` shared by the metrics scored on the same
    scores (a validation set's ``scoring`` and ``eval_metric``): the built-in list metrics then sort each score
    vector once between them.

    Raises ValueError naming the metric and the labels (``name``: ``"eval_set y"`` for an ``eval_set``'s) when
    they do not suit it or it counts none of the queries.
    """
    from ..metrics import MetricRefusal, query_values_of
    from ..validation import check_binary_labels, check_graded_labels, check_same_length, check_scores

    try:
        y_arr = check_graded_labels(y, name=name) if metric.task == "graded" else check_binary_labels(y, name=name)
    except TypeError:       # text or dates: the labels' own refusal (ArgumentTypeRefusal), as fit's
        raise
    except ValueError as exc:       # the labels this metric does not take (graded labels for prec@k...)
        raise MetricRefusal.of_labels(exc, metric.spec, name) from None
    try:
        if not hasattr(metric, "bind_queries"):
            bound = None
        elif cache is not None and "cache" in inspect.signature(metric.bind_queries).parameters:
            bound = metric.bind_queries(y_arr, queries, n_threads=n_threads, cache=cache)   # a plugin's may not
        else:
            bound = metric.bind_queries(y_arr, queries, n_threads=n_threads)
    except ValueError as exc:       # a count k beyond every query, grades it does not take, a plugin's own error
        raise MetricRefusal.of_metric(exc, metric.spec, name) from None

    def score(scores: np.ndarray) -> float:
        s = np.ascontiguousarray(scores, dtype=np.float64)
        if s.shape != y_arr.shape or not np.isfinite(s).all():
            # the per-query values take any float (a NaN sorts somewhere): refuse it as evaluate(..., qid=) does
            s = check_scores(scores)
            check_same_length(y=y_arr, scores=s)
        try:
            if bound is not None and s.shape == y_arr.shape:
                values = bound(s)
            else:
                values = query_values_of(metric, y_arr, s, queries)    # a plugin's: one per query (NaN: not counted)
        except ValueError as exc:   # the metric's (the scores were checked above): a refusal, its labels ``name``
            raise MetricRefusal.of_metric(exc, metric.spec, name) from None
        counted = values[~np.isnan(values)]
        if counted.size == 0:
            detail = (f"counts none of the {values.shape[0]} queries (it leaves out queries without a relevant row, "
                      "or with one class); score on other queries")
            raise MetricRefusal.said_of(metric.spec, "no_query", detail, name, n_queries=int(values.shape[0]))
        return float(np.mean(counted))

    return score


class MetricScoring:
    """Validation by a registered scalar metric (its ``to_loss`` is what early stopping minimizes).

    ``default``: the metric was not named by the user (``scoring=None``): on
    queries shorter than its k it reads whole queries instead of refusing
    them (:func:`within_largest_query`).
    """

    def __init__(self, metric: Any, *, default: bool = False, parameter: str | None = "scoring"):
        self.metric = metric
        self.name = metric.spec
        self.greater_is_better = bool(metric.greater_is_better)
        self.default = bool(default)
        # what named the metric, for a refusal of the labels; None: the caller names it (fit's ``eval_metric``)
        self.parameter = parameter

    def _named(self, exc: ValueError, name: str) -> ValueError:
        """The metric's refusal of the labels ``name`` (a count k beyond every query, no query counted) said as the
        parameter that named the metric: the error arises in the fit's checks, away from the parameter.

        A :class:`~rankcore.metrics.MetricRefusal` is said by its ``detail``; another error (a plugin metric's own
        ValueError) by what follows the names it gives itself (:meth:`~rankcore.metrics.MetricRefusal.of_metric`).
        """
        from ..metrics import MetricRefusal

        eval_set = None if name == "y" else name.removesuffix(" y")          # an eval_set's labels
        where = "" if eval_set is None else f" on {eval_set}"
        refusal = MetricRefusal.of_metric(exc, self.name, name)
        return refusal.with_context(f"{self.parameter}={self.name!r}{where}: {refusal.detail}",
                                    parameter=self.parameter, eval_set=eval_set)

    def bind(self, y: np.ndarray, sample_weight: np.ndarray | None = None, *, n_threads: int = 1,
             queries: Any = None, name: str = "y", cache: Any = None) -> Callable[[np.ndarray], float]:
        """scores -> the metric of ``(y, scores)`` (metrics take no weights); per query with ``queries``.

        Early stopping scores the same validation labels after every
        iteration, so the labels are checked once here; each call then checks
        only that the scores are finite float64 values of the right length
        (anything else goes through the metric's own checks, and their
        error).  The value is the metric's, bit for bit.  A metric with its
        own ``__call__`` is called as it is.  ``cache``: see :func:`query_scorer`.
        """
        from ..metrics import Metric, MetricRefusal

        metric = self.metric
        if queries is not None:
            if self.default or self.parameter is None:      # not the user's choice, or named by the caller
                return query_scorer(within_largest_query(metric, queries) if self.default else metric, y, queries,
                                    name=name, n_threads=n_threads, cache=cache)
            try:
                scorer = query_scorer(metric, y, queries, name=name, n_threads=n_threads, cache=cache)
            except ValueError as exc:
                raise self._named(exc, name) from None

            def named(scores: np.ndarray) -> float:
                try:
                    return scorer(scores)
                except MetricRefusal as exc:    # a count k beyond every query found as it scores, no query counted
                    raise self._named(exc, name) from None      # (the scores' own check is no refusal: as it is)
            return named
        if type(metric).__call__ is not Metric.__call__:
            return lambda scores: float(metric(y, scores))
        try:
            y_arr = _checked_labels(metric, y, name)
        except MetricRefusal as exc:        # said as the parameter that named it, as per query
            if self.default or self.parameter is None:
                raise
            raise self._named(exc, name) from None

        def score(scores: np.ndarray) -> float:
            s = scores if isinstance(scores, np.ndarray) else np.asarray(scores)
            if s.dtype != np.float64 or s.ndim != 1 or s.shape[0] != y_arr.shape[0] or not np.isfinite(s).all():
                return float(metric(y, scores))
            try:
                value = metric.compute(y_arr, np.ascontiguousarray(s))
            except ValueError as exc:
                # a plugin's compute refusing these scores or labels as the fit goes on (the labels were checked
                # above): its refusal, of the labels ``name``, said as the parameter that named the metric -- as
                # within queries, where the per-query scorer says it so
                if self.default or self.parameter is None:
                    raise MetricRefusal.of_metric(exc, metric.spec, name) from None
                raise self._named(exc, name) from None
            return float(metric.checked_value(value))

        return score

    def to_loss(self, value: float) -> float:
        return self.metric.to_loss(value)


def _checked_labels(metric: Any, y: Any, name: str) -> np.ndarray:
    """``y`` checked as ``metric.__call__`` checks its labels, named ``name`` (a validation set's labels); what the
    metric refuses is a :class:`~rankcore.metrics.MetricRefusal` (``labels``; a count k beyond the rows)."""
    from ..metrics import MetricRefusal, check_metric_data
    from ..validation import check_binary_labels, check_graded_labels

    try:
        y_arr = check_graded_labels(y, name=name) if metric.task == "graded" else check_binary_labels(y, name=name)
    except TypeError:       # text or dates: the labels' own refusal (ArgumentTypeRefusal), as fit's
        raise
    except ValueError as exc:
        raise MetricRefusal.of_labels(exc, metric.spec, name) from None
    check_metric_data(metric, y_arr, np.zeros(y_arr.shape[0]), name)
    return y_arr


class ObjectiveScoring:
    """Validation by the fit's objective J on the validation rows (lower is better).

    The objective is bound to the validation labels (and weights) once; every
    call evaluates J at the validation scores, the same function the
    training minimizes on its own rows.
    """

    greater_is_better = False

    def __init__(self, objective: Any):
        self.objective = objective
        self.name = OBJECTIVE_SCORING

    def bind(self, y: np.ndarray, sample_weight: np.ndarray | None = None, *, n_threads: int = 1,
             queries: Any = None, name: str = "y", cache: Any = None) -> Callable[[np.ndarray], float]:
        """scores -> J of the validation rows at those scores (within their queries, when given; ``cache`` unused).

        Raises
        ------
        ValueError
            When the objective cannot be evaluated on these rows (a class
            missing, k above the validation positives), naming ``scoring``.
        """
        try:
            if queries is None:
                self.objective.check_target(y, sample_weight)
            bound = self.objective.bind(y, sample_weight, n_threads=n_threads,
                                        **({} if queries is None else {"queries": queries}))
        except ValueError as exc:
            raise ValueError(f"scoring='objective': the objective {self.objective.spec!r} cannot be evaluated on "
                             f"the {y.shape[0]} validation rows ({exc}); pass a metric as scoring") from None
        return lambda scores: float(bound.value(np.ascontiguousarray(scores, dtype=np.float64)))

    def to_loss(self, value: float) -> float:
        return float(value)

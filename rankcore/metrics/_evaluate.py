"""``rankcore.evaluate``: several metrics on one scoring, validated and sorted once."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..registry import resolve
from ..spec import Component
from ..validation import (
    check_binary_labels,
    check_graded_labels,
    check_same_length,
    check_scores,
    effective_n_threads,
)
from ._base import Metric, check_metric_data, labels_key
from ._refusal import MetricRefusal
from ._queries import check_queries
from ._split import split_sorted

__all__ = ["evaluate", "resolve_metrics"]


def resolve_metrics(metrics: str | Metric | Iterable[str | Metric]) -> list[tuple[str, Metric]]:
    """The metrics of an ``evaluate`` call, resolved: ``(key, metric)`` pairs in the order given.

    Parameters
    ----------
    metrics : str, Metric, or iterable of them
        Spec strings (``"auc"``, ``"prec@k:10"``) or configured metric objects.

    Returns
    -------
    list of (str, Metric)
        The key of each result (the spec string as given; for a metric
        object, its ``.spec``) and the resolved metric.

    Raises
    ------
    TypeError
        ``metrics`` is neither a spec, a metric nor an iterable of them.
    ValueError
        An empty list.
    UnknownComponentError, SpecError
        As :func:`rankcore.resolve`.
    """
    if isinstance(metrics, (str, Component)):
        metrics = [metrics]
    if isinstance(metrics, (bytes, bytearray)):            # iterable, but of ints: say what it is
        raise TypeError(f"metrics: expected a spec string such as 'auc' or a list of them, got "
                        f"{type(metrics).__name__} {bytes(metrics[:40])!r} (decode it: .decode())")
    try:
        items = list(metrics)
    except TypeError:
        raise TypeError(
            f"metrics: expected a spec string such as 'auc' or a list of them, got {type(metrics).__name__}"
        ) from None
    if not items:
        raise ValueError("metrics: expected at least one metric spec such as 'auc', got an empty list")
    return [(item if isinstance(item, str) else getattr(item, "spec", repr(item)), resolve("metric", item))
            for item in items]


def evaluate(y: Any, scores: Any, metrics: str | Metric | Iterable[str | Metric], *,
             n_jobs: int | None = None, ci: float | None = None, n_boot: int = 2000,
             random_state: Any = None, qid: Any = None, group: Any = None) -> dict[str, Any]:
    """Evaluate several metrics on one scoring; validate and sort only once.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels: in {0, 1} (1 = relevant) for bipartite metrics, real-valued
        for graded ones (``misrank``; 0/1 labels work for it too).
    scores : array-like of shape (n,)
        Finite scores; higher means "rank higher".
    metrics : str, Metric, or iterable of them
        Spec strings such as ``"auc"``, ``"prec@k:10"``, ``"pauc:0.1,mcclish"``
        (any registered metric, plugins included; ``rankcore.get_registry().names("metric")``
        lists them) or configured metric objects.
    n_jobs : int, optional
        Threads for the two sorts and the bootstrap (``None``: every core).
    ci : float in (0, 1), optional
        Also give each scalar metric's confidence interval at this level
        (:func:`rankcore.metrics.confidence_interval` with ``method="auto"``:
        DeLong for the AUC, the bootstrap stratified by class otherwise --
        graded metrics resample all rows together; every metric on the same
        replicates).
    n_boot : int in [100, 1,000,000], default 2000
        Bootstrap replicates (with ``ci``).
    random_state : None, int, RandomState or Generator
        Seeds the replicates (with ``ci``); None draws the seed from NumPy's
        global ``RandomState``, as scikit-learn's ``check_random_state(None)``.
    qid : array-like of shape (n,), optional
        One query id per row (any hashable type; rows need not be sorted or
        contiguous): each metric is computed per query and averaged over the
        queries it counts (:func:`rankcore.metrics.per_query` shows them),
        and ``ci`` resamples whole queries.  With ``qid``, ``y`` holds grades
        >= 0 for the list metrics (``ndcg@k``, ``err@k``, ``map``, ``map@k``, ``mrr``).
    group : array-like of int, optional
        LightGBM's form of ``qid``: the sizes of consecutive queries.

    Returns
    -------
    dict
        Maps each spec string as given (a metric object: its ``.spec``) to its
        value: a float or an int for scalar metrics (in each metric's own
        direction -- ``max_height``, ``pnorm`` and ``misrank`` are lower-is-
        better), an array or a :class:`~rankcore.metrics.RocCurve` otherwise.
        With ``ci``, each scalar metric's value is a
        :class:`~rankcore.metrics.ConfidenceInterval` instead (its
        ``estimate`` is the value above); non-scalar values are unchanged.

    Raises
    ------
    UnknownComponentError
        A name that is not registered; the message lists the registered metrics.
    SpecError
        A malformed spec or a parameter out of range.
    ValueError, TypeError
        Invalid input (see :func:`rankcore.metrics.auc`), one class present
        for a metric that needs both (the message names the metric), k > n;
        with ``qid``: both ``qid`` and ``group``, ``qid`` of the wrong length
        or holding None/NaN, negative grades, k larger than every query, a
        non-scalar metric, a metric that counts no query.

    Notes
    -----
    Every bipartite metric with a sorted form shares one split by label and
    one sort of each side (O(n log n) once, then O(n) per metric).

    Examples
    --------
    >>> import rankcore
    >>> y, s = [0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    >>> result = rankcore.evaluate(y, s, ["auc", "prec@k:3", "rmax"])
    >>> {name: round(value, 4) for name, value in result.items()}
    {'auc': 0.8889, 'prec@k:3': 0.6667, 'rmax': 2}
    """
    threads = effective_n_threads(n_jobs, name="n_jobs")  # named as the caller knows it, before any work
    resolved = resolve_metrics(metrics)
    s_arr = _checked_scores(scores, resolved)
    labels = _checked_labels(y, s_arr, resolved, whole=qid is None and group is None)
    queries = check_queries(qid, group, int(s_arr.shape[0]))
    if queries is not None:
        from ._query_evaluate import evaluate_queries

        return evaluate_queries(resolved, labels, s_arr, queries, ci=ci, n_boot=n_boot, random_state=random_state)
    if ci is not None:
        from ._intervals import intervals_of

        return intervals_of(resolved, labels, s_arr, level=ci, n_boot=n_boot, random_state=random_state,
                            n_threads=threads)
    return _values(resolved, labels, s_arr, n_jobs)


def _checked_scores(scores: Any, resolved: list[tuple[str, Metric]]) -> np.ndarray:
    """The scores checked once for every metric.

    Integer scores beyond 2**53 keep their exact order: ranks when every
    metric only reads the order, a clear error otherwise (float64 would tie
    them).
    """
    by_value = [spec for spec, m in resolved if not m.order_invariant]
    return check_scores(scores, name="scores", integers="refuse" if by_value else "rank",
                        what=f"metric {by_value[0]!r}" if by_value else "")


def _checked_labels(y: Any, scores: np.ndarray, resolved: list[tuple[str, Metric]], *,
                    whole: bool = True) -> dict[str, np.ndarray]:
    """``y`` checked once per task of the metrics (``"bipartite"``, ``"graded"``, ...), then, with ``whole``, by each
    metric on the rows as one list (without: they are queries, each checked when it is computed)."""
    labels: dict[str, np.ndarray] = {}
    for task in sorted({labels_key(m) for _, m in resolved}):
        try:
            if task in ("graded", "graded by order"):
                # integer grades beyond 2^53: ranked exactly for a metric that reads their order, else rounded
                labels[task] = check_graded_labels(y, name="y",
                                                   integers="rank" if task == "graded by order" else "round")
            else:
                labels[task] = check_binary_labels(y, name="y")
        except TypeError:       # text or dates: the labels' own refusal (ArgumentTypeRefusal), as fit's
            raise
        except ValueError as exc:
            raise _refused_labels(exc, task, [m.spec for _, m in resolved if labels_key(m) == task]) from None
        check_same_length(y=labels[task], scores=scores)
    for _, metric in resolved if whole else ():
        check_metric_data(metric, labels[labels_key(metric)], scores)
    return labels


def _refused_labels(exc: ValueError, task: str, users: list[str]) -> MetricRefusal:
    """The labels' check ``exc`` as the refusal of the (first) metric ``users`` of the task that needs them; 0/1
    labels name the metrics that need them (graded labels suit every graded metric)."""
    refusal = MetricRefusal.of_labels(exc, users[0], "y")
    if task in ("graded", "graded by order"):
        return refusal
    needed = f" (needed by the {task} metric(s) {', '.join(map(repr, users))})"
    return MetricRefusal(f"{exc}{needed}", spec=users[0], reason="labels", labels=refusal.labels,
                         detail=f"{refusal.detail}{needed}")


def _values(resolved: list[tuple[str, Metric]], labels: dict[str, np.ndarray], scores: np.ndarray,
            n_jobs: int | None) -> dict[str, Any]:
    """Each metric's value; the bipartite metrics with a sorted form share one split and sort."""
    sorted_sides: tuple[np.ndarray, np.ndarray] | None = None
    out: dict[str, Any] = {}
    for key, metric in resolved:
        y_arr = labels[labels_key(metric)]
        if metric.task == "bipartite" and type(metric).compute is Metric.compute:
            # the metric's own compute would split and sort: share that work
            if sorted_sides is None:
                sorted_sides = split_sorted(labels["bipartite"], scores, n_threads=n_jobs)
            out[key] = metric.checked_value(metric.from_sorted(*sorted_sides))
        else:
            out[key] = metric.checked_value(metric.compute(y_arr, scores))
    return out

"""Confidence intervals for every metric and paired tests between two scorings of the same rows.

``confidence_interval(y, scores, metric)`` gives DeLong's interval for the
AUC and a stratified percentile bootstrap for every other scalar metric
(plugins included); ``compare(y, scores1, scores2, metric)`` gives the
difference, its interval and a two-sided p-value (paired DeLong for the AUC,
paired bootstrap otherwise).  The math, the tie conventions and the papers
are in ``docs/metrics_intervals.md``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..registry import resolve
from ..validation import effective_n_threads
from ._base import Metric, labels_key
from ._delong import delong_variance, paired_delong
from ._interval_results import (
    ConfidenceInterval,
    PairedComparison,
    _check_data,
    _check_level,
    _check_n_boot,
    _p_value,
    _seed,
    bootstrap_options,
    check_two_of_each_class,
    paired_percentile_comparison,
    percentile_interval,
)
from ._queries import Queries, check_queries
from ._query_evaluate import check_query_method, query_comparison, query_interval, query_values_of
from ._resampling import SortedData, paired_replicate_values, replicate_values

__all__ = ["confidence_interval", "compare", "METHODS", "interval_of", "intervals_of"]

METHODS = ("auto", "delong", "bootstrap")


def _check_stratified(stratified: Any) -> bool:
    if not isinstance(stratified, (bool, np.bool_)):
        raise TypeError(f"stratified: expected True or False, got {stratified!r}")
    return bool(stratified)


def _check_metric(metric: Any) -> Metric:
    resolved = resolve("metric", metric)
    if not resolved.scalar or resolved.greater_is_better is None:
        raise ValueError(f"metric: {resolved.spec!r} is not a single number; intervals need a scalar metric "
                         f"such as 'auc', 'pauc:0.1' or 'prec@k:10'")
    return resolved


def _check_method(method: Any, metric: Metric) -> str:
    if method not in METHODS:
        raise ValueError(f"method: expected one of {', '.join(map(repr, METHODS))}, got {method!r}")
    if method == "auto":
        return metric.interval_method
    if method == "delong" and metric.interval_method != "delong":
        raise ValueError(f"method: 'delong' is the AUC's asymptotic interval; metric {metric.spec!r} "
                         f"takes method='bootstrap' (or 'auto')")
    return method


def _check_strata(y: np.ndarray, metric: Metric, stratified: bool) -> None:
    """At least two rows in every stratum (each class; each label value for graded metrics)."""
    if metric.task == "graded":
        values, counts = np.unique(y, return_counts=True)
        if values.shape[0] < 2:
            raise ValueError(f"y: metric {metric.spec!r} needs at least two different label values, "
                             f"got only {float(values[0])!r}")
        if stratified and counts.min() < 2:
            lone = float(values[np.argmin(counts)])
            raise ValueError(f"y: the stratified bootstrap resamples each label value on its own and needs at "
                             f"least two rows of each; the label {lone!r} has one (pass stratified=False)")
        return
    check_two_of_each_class(y)


@dataclass(frozen=True)
class _Checked:
    """The checked arguments and data of :func:`confidence_interval` and :func:`compare`."""

    metric: Metric
    level: float
    n_boot: int
    method: str
    stratified: bool
    threads: int
    seed: int
    y: np.ndarray
    scorings: list[np.ndarray]
    queries: Queries | None


def _checked(y: Any, scorings: dict[str, Any], metric: Any, *, level: Any, method: Any, n_boot: Any,
             stratified: Any, random_state: Any, n_jobs: Any, qid: Any, group: Any) -> _Checked:
    """Every argument checked, each error naming it; with queries the method is checked for them, else the strata."""
    metric = _check_metric(metric)
    level, n_boot, checked_method = _check_level(level), _check_n_boot(n_boot), _check_method(method, metric)
    threads, seed = effective_n_threads(n_jobs, name="n_jobs"), _seed(random_state)
    stratified = _check_stratified(stratified)
    y_arr, arrays = _check_data(y, scorings, metric, whole=qid is None and group is None)
    queries = check_queries(qid, group, int(y_arr.shape[0]))
    if queries is not None:
        check_query_method(method, metric)     # as asked: "auto" is DeLong for the AUC, but not over queries
    else:
        _check_strata(y_arr, metric, stratified)
    return _Checked(metric, level, n_boot, checked_method, stratified, threads, seed, y_arr, arrays, queries)


# --------------------------------------------------------------------------
# One scoring
# --------------------------------------------------------------------------


def _estimate(metric: Metric, data: SortedData) -> float:
    if metric.task == "bipartite" and type(metric).compute is Metric.compute:
        value = metric.from_sorted(*data.sides)  # the sort the replicates use
    else:
        value = metric.compute(data.y, data.scores)
    return int(value) if isinstance(value, numbers.Integral) else float(value)  # a count stays an int


def _normal_quantile(level: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(1.0 - (1.0 - level) / 2.0))


def interval_of(metric: Metric, data: SortedData, *, level: float, method: str, n_boot: int, stratified: bool,
                seed: int, return_replicates: bool, n_threads: int) -> ConfidenceInterval:
    """The interval of one validated, checked metric on ``data`` (shared with ``evaluate(ci=...)``)."""
    estimate = _estimate(metric, data)
    if method == "delong":
        se = math.sqrt(max(delong_variance(data), 0.0))
        half = _normal_quantile(level) * se
        return ConfidenceInterval(metric.spec, max(0.0, estimate - half), min(1.0, estimate + half), level,
                                  "delong", se, estimate=estimate)
    values, _ = replicate_values(metric, data, seed, n_boot, stratified=stratified, n_threads=n_threads)
    return percentile_interval(metric, values, estimate=estimate, level=level, method="bootstrap", n_boot=n_boot,
                               stratified=bool(stratified), what="replicates", return_replicates=return_replicates)


def confidence_interval(y: Any, scores: Any, metric: str | Metric, *, level: float = 0.95, method: str = "auto",
                        n_boot: int = 2000, stratified: bool = True, random_state: Any = None,
                        return_replicates: bool = False, n_jobs: int | None = None, qid: Any = None,
                        group: Any = None) -> ConfidenceInterval:
    """A confidence interval for any scalar metric of one scoring.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels in {0, 1} (real-valued for graded metrics such as ``misrank``).
    scores : array-like of shape (n,)
        Finite scores; higher means "rank higher".
    metric : str or Metric
        Any registered scalar metric, plugins included (``"auc"``,
        ``"pauc:0.1"``, ``"pauc:0.1,mcclish"``, ``"prec@k:10"``, ...).
    level : float in (0, 1), default 0.95
    method : {"auto", "delong", "bootstrap"}, default "auto"
        ``"delong"``: DeLong's asymptotic interval, estimate ± z·SE clipped
        to [0, 1] (the AUC only); ``"bootstrap"``: the percentile interval of
        ``n_boot`` replicates; ``"auto"``: DeLong for the AUC, the bootstrap
        otherwise.
    n_boot : int in [100, 1,000,000], default 2000
    stratified : bool, default True
        Resample the positives and the negatives each on their own (I and K
        fixed; for graded metrics: each label value), as pROC does by
        default; False resamples all rows together.
    random_state : None, int, RandomState or Generator
        Seeds the replicates; the result does not depend on ``n_jobs``.  None
        draws the seed from NumPy's global ``RandomState`` (``np.random.seed``
        makes the interval repeat).
    return_replicates : bool, default False
        Keep the replicates' values (NaN where the metric was undefined).
    n_jobs : int, optional
        Threads for the sort and the replicates (None: every core).
    qid, group : array-like, optional
        The query of each row (or LightGBM's sizes of consecutive queries):
        the estimate is the mean over queries and the bootstrap resamples
        whole queries (method ``"bootstrap over queries"``; ``stratified``
        does not apply).

    Returns
    -------
    ConfidenceInterval
        ``estimate``, ``lower``, ``upper``, ``level``, ``method``,
        ``standard_error``, ``n_boot``, ``n_dropped`` and, on request,
        ``replicates``.

    Raises
    ------
    ValueError
        ``level`` outside (0, 1), ``n_boot`` outside [100, 1,000,000], an unknown ``method`` or
        ``"delong"`` for a metric other than the AUC, a non-scalar
        ``metric``, fewer than two rows of a class (``y``), non-finite
        ``scores``, different lengths, or -- with a warning first -- fewer
        than 100 replicates on which the metric is defined.
    TypeError
        Non-numeric input, a non-integer ``n_boot``, a ``stratified`` other than True or False.

    Warns
    -----
    DroppedReplicatesWarning
        The metric was undefined on some replicates (say, a non-stratified
        replicate without positives); they are left out and counted in
        ``n_dropped``.

    Notes
    -----
    Cost: one O(n log n) sort.  DeLong then takes O(n) (placement values
    from the sorted sides; Sun & Xu, 2014).  A bootstrap replicate is a
    vector of multinomial row counts over that one sorted order, drawn and
    evaluated in O(rows the metric reads) by the metric's Cython tie-group
    kernel, replicates spread over ``n_jobs`` threads: O(n_boot · n) time at
    worst and much less for top-of-the-list metrics (pauc:0.1 reads about
    the top tenth); O(n) memory.  A plugin metric without a resampling form
    (``Metric.weighted_groups``) is evaluated on each replicate's rows:
    correct, O(n_boot) evaluations.

    Examples
    --------
    >>> import numpy as np
    >>> from rankcore.metrics import confidence_interval
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(40), np.zeros(60)]
    >>> scores = np.round(y + rng.normal(size=100), 1)
    >>> confidence_interval(y, scores, "auc")
    ConfidenceInterval(auc 0.7077, 95% CI [0.6067, 0.8087], delong)
    >>> confidence_interval(y, scores, "prec@k:10", random_state=0)
    ConfidenceInterval(prec@k:10 0.6667, 95% CI [0.3, 0.9], bootstrap, 2000 replicates)
    """
    checked = _checked(y, {"scores": scores}, metric, level=level, method=method, n_boot=n_boot,
                       stratified=stratified, random_state=random_state, n_jobs=n_jobs, qid=qid, group=group)
    metric, (s_arr,) = checked.metric, checked.scorings
    if checked.queries is not None:
        values = query_values_of(metric, checked.y, s_arr, checked.queries)
        return query_interval(metric, values, level=checked.level, n_boot=checked.n_boot, seed=checked.seed,
                              return_replicates=return_replicates)
    data = SortedData(checked.y, s_arr, n_threads=checked.threads)
    return interval_of(metric, data, level=checked.level, method=checked.method, n_boot=checked.n_boot,
                       stratified=checked.stratified, seed=checked.seed, return_replicates=return_replicates,
                       n_threads=checked.threads)


def intervals_of(resolved: list[tuple[str, Metric]], labels: dict[str, np.ndarray], scores: np.ndarray, *,
                 level: Any, n_boot: Any, random_state: Any, n_threads: int) -> dict[str, Any]:
    """``evaluate(..., ci=level)``: every scalar metric's interval from one sort and one seed."""
    level, n_boot, seed = bootstrap_options(level, n_boot, random_state)
    data: dict[str, SortedData] = {}
    out: dict[str, Any] = {}
    for key, metric in resolved:
        y = labels[labels_key(metric)]
        if metric.task not in data:
            data[metric.task] = SortedData(y, scores, n_threads=n_threads)
        if not metric.scalar or metric.greater_is_better is None:
            out[key] = metric.compute(y, scores)
            continue
        stratified = metric.task == "bipartite"  # graded labels: all rows together (no strata to trust)
        _check_strata(y, metric, stratified)
        out[key] = interval_of(metric, data[metric.task], level=level, method=metric.interval_method,
                               n_boot=n_boot, stratified=stratified, seed=seed, return_replicates=False,
                               n_threads=n_threads)
    return out


# --------------------------------------------------------------------------
# Two scorings of the same rows
# --------------------------------------------------------------------------


def compare(y: Any, scores1: Any, scores2: Any, metric: str | Metric, *, level: float = 0.95,
            method: str = "auto", n_boot: int = 2000, stratified: bool = True, random_state: Any = None,
            return_replicates: bool = False, n_jobs: int | None = None, qid: Any = None,
            group: Any = None) -> PairedComparison:
    """Compare two scorings of the same rows by one metric: difference, interval and p-value.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels, as for :func:`confidence_interval`.
    scores1, scores2 : array-like of shape (n,)
        Two scorings of the same rows (two models on one test set).
    metric, level, method, n_boot, stratified, random_state, return_replicates, n_jobs
        As for :func:`confidence_interval`.  ``"delong"`` is DeLong's paired
        test (the covariance of the two AUCs from the placement values, as
        pROC's ``roc.test(..., method="delong", paired=TRUE)``); the paired
        bootstrap draws one vector of row multiplicities per replicate and
        evaluates both scorings on it.
    qid, group : array-like, optional
        As for :func:`confidence_interval`: the paired bootstrap resamples
        whole queries, both scorings on the same replicates, over the
        queries both count.

    Returns
    -------
    PairedComparison
        ``estimates``, ``difference`` (first minus second, in the metric's
        own direction), ``lower``, ``upper``, ``p_value`` and the fields of
        :class:`ConfidenceInterval`.

    Raises
    ------
    ValueError, TypeError
        As :func:`confidence_interval`; scorings of different lengths name
        ``scores1`` / ``scores2``.

    Notes
    -----
    DeLong: the difference ± z·SE with SE² = Var₁ + Var₂ − 2·Cov, p from
    z = difference / SE; O(n log n).  Bootstrap: the percentile interval of
    the replicates' differences and, as pROC, p from
    z = difference / sd(replicate differences); O(n_boot · n) time.
    Identical scorings give a difference 0, SE 0 and p = 1.

    Examples
    --------
    >>> import numpy as np
    >>> from rankcore.metrics import compare
    >>> rng = np.random.default_rng(0)
    >>> labels, signal = np.r_[np.ones(40), np.zeros(60)], rng.normal(size=100)
    >>> signal += labels
    >>> compare(labels, signal, signal + rng.normal(size=100), "auc")
    PairedComparison(auc 0.7083 - 0.6717 = 0.03667, 95% CI [-0.04488, 0.1182], p = 0.378, delong)
    """
    checked = _checked(y, {"scores1": scores1, "scores2": scores2}, metric, level=level, method=method,
                       n_boot=n_boot, stratified=stratified, random_state=random_state, n_jobs=n_jobs, qid=qid,
                       group=group)
    metric, y_arr, scorings = checked.metric, checked.y, checked.scorings
    if checked.queries is not None:
        v1, v2 = (query_values_of(metric, y_arr, s, checked.queries) for s in scorings)
        return query_comparison(metric, v1, v2, level=checked.level, n_boot=checked.n_boot, seed=checked.seed,
                                return_replicates=return_replicates)
    estimates = tuple(_estimate(metric, SortedData(y_arr, s, n_threads=checked.threads)) for s in scorings)
    if checked.method == "delong":
        return _paired_delong_comparison(metric, y_arr, scorings, estimates, checked.level)
    values, _ = paired_replicate_values(metric, y_arr, scorings, checked.seed, checked.n_boot,
                                        stratified=checked.stratified, n_threads=checked.threads)
    return paired_percentile_comparison(metric, values, estimates=estimates, level=checked.level, method="bootstrap",
                                        n_boot=checked.n_boot, stratified=checked.stratified, what="replicates",
                                        return_replicates=return_replicates)


def _paired_delong_comparison(metric: Metric, y: np.ndarray, scorings: list[np.ndarray],
                              estimates: tuple[float, float], level: float) -> PairedComparison:
    """DeLong's paired test: the difference ± z·SE from the two AUCs' covariance."""
    difference = estimates[0] - estimates[1]
    _, cov = paired_delong(y, scorings)
    se = math.sqrt(max(cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1], 0.0))
    half = _normal_quantile(level) * se
    return PairedComparison(metric.spec, difference - half, difference + half, level, "delong", se,
                            estimates=estimates, difference=difference, p_value=_p_value(difference, se))

"""Confidence intervals for every metric and paired tests between two scorings of the same rows.

``confidence_interval(y, scores, metric)`` gives DeLong's interval for the
AUC and a stratified percentile bootstrap for every other scalar metric
(plugins included); ``compare(y, scores1, scores2, metric)`` gives the
difference, its interval and a two-sided p-value (paired DeLong for the AUC,
paired bootstrap otherwise).  The math, the tie conventions and the papers
are in ``docs/metrics.md`` ("Confidence intervals and paired tests").
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ..registry import resolve
from ..validation import (
    check_labels_and_scores,
    check_random_state_param,
    check_same_length,
    check_scores,
    effective_n_threads,
)
from ._base import Metric, labels_key
from ._delong import delong_variance, paired_delong
from ._queries import Queries, check_queries
from ._resampling import SortedData, paired_replicate_values, replicate_values, seed_of

__all__ = ["confidence_interval", "compare", "ConfidenceInterval", "PairedComparison",
           "DroppedReplicatesWarning", "METHODS", "MIN_BOOT", "MAX_BOOT"]

METHODS = ("auto", "delong", "bootstrap")
#: Fewer replicates than this cannot place the tails of a 95 % interval.
MIN_BOOT = 100
#: More replicates than this move no printed digit of an interval and only cost time and memory (8 bytes each).
MAX_BOOT = 1_000_000


class DroppedReplicatesWarning(RuntimeWarning):
    """The metric was undefined on some bootstrap replicates; they were left out (and counted)."""


def _fmt(value: float) -> str:
    return f"{value:.4g}"


@dataclass(frozen=True, repr=False, eq=False)
class _Interval:
    """What every interval result has (the fields after ``upper`` are documented on the subclasses)."""

    metric: str
    lower: float
    upper: float
    level: float
    method: str
    standard_error: float
    n_boot: int | None = None
    n_dropped: int = 0
    stratified: bool | None = None
    replicates: np.ndarray | None = None

    @property
    def interval(self) -> tuple[float, float]:
        """``(lower, upper)``."""
        return self.lower, self.upper

    def as_dict(self) -> dict[str, Any]:
        """The fields without the replicates (for tables and JSON)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "replicates"}

    def _how(self, between: str = "") -> str:
        """``[level]% CI [lower, upper], {between}method[, replicates][, dropped]`` for the repr."""
        how = self.method if self.n_boot is None else f"{self.method}, {self.n_boot} replicates"
        if self.n_dropped:
            how += f", {self.n_dropped} dropped"
        return f"{100 * self.level:g}% CI [{_fmt(self.lower)}, {_fmt(self.upper)}], {between}{how}"


@dataclass(frozen=True, repr=False, eq=False)
class ConfidenceInterval(_Interval):
    """A metric's estimate and its confidence interval.

    Attributes
    ----------
    metric : str
        The metric's spec.
    estimate : float
        The metric on the data (in the metric's own direction).
    lower, upper : float
        The interval at ``level``.
    level : float
    method : {"delong", "bootstrap"}
    standard_error : float
        DeLong's standard error, or the standard deviation of the replicates.
    n_boot : int or None
        Replicates drawn (None for DeLong).
    n_dropped : int
        Replicates on which the metric was undefined and that were left out.
    stratified : bool or None
        Whether each class was resampled on its own (None for DeLong).
    replicates : ndarray or None
        The replicates' values (NaN for dropped ones), when asked for.
    """

    estimate: float = field(kw_only=True)

    def __repr__(self) -> str:
        return f"ConfidenceInterval({self.metric} {_fmt(self.estimate)}, {self._how()})"


@dataclass(frozen=True, repr=False, eq=False)
class PairedComparison(_Interval):
    """Two scorings of the same rows compared by one metric: difference, interval, p-value.

    Attributes
    ----------
    estimates : tuple of float
        The metric (spec ``metric``) of the first and of the second scoring.
    difference : float
        ``estimates[0] - estimates[1]`` (in the metric's own direction), and
        ``lower``, ``upper`` its interval at ``level``.
    p_value : float
        Two-sided, for "no difference": the normal approximation
        z = difference / standard_error.
    replicates : ndarray of shape (n_boot, 2) or None
        Both scorings' values on each shared replicate, when asked for.

    The other fields (``method``, ``standard_error``, ``n_boot``,
    ``n_dropped``, ``stratified``) are those of :class:`ConfidenceInterval`,
    for the difference.
    """

    estimates: tuple[float, float] = field(kw_only=True)
    difference: float = field(kw_only=True)
    p_value: float = field(kw_only=True)

    def __repr__(self) -> str:
        a, b = self.estimates
        return (f"PairedComparison({self.metric} {_fmt(a)} - {_fmt(b)} = {_fmt(self.difference)}, "
                f"{self._how(f'p = {self.p_value:.3g}, ')})")


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------


def _check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level: expected a confidence level in (0, 1) such as 0.95, got {level!r}")
    return float(level)


def _check_n_boot(n_boot: Any) -> int:
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral):
        raise TypeError(f"n_boot: expected an integer number of replicates >= {MIN_BOOT}, got {n_boot!r}")
    if n_boot < MIN_BOOT:
        raise ValueError(f"n_boot: expected at least {MIN_BOOT} bootstrap replicates (2000 is usual), got {n_boot}")
    if n_boot > MAX_BOOT:
        raise ValueError(f"n_boot: expected at most {MAX_BOOT:,} bootstrap replicates (2000 is usual), got {n_boot}")
    return int(n_boot)


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


def check_two_of_each_class(y01: np.ndarray) -> None:
    """At least two rows of each class: what a stratified bootstrap of two-class data (and DeLong) needs."""
    n_pos = int(np.count_nonzero(y01))
    n_neg = int(y01.shape[0]) - n_pos
    if n_pos < 2 or n_neg < 2:
        raise ValueError(f"y: a confidence interval needs at least two rows of each class (each class is a "
                         f"stratum of the bootstrap and a sample of DeLong's variance), got {n_pos} positive "
                         f"and {n_neg} negative rows")


def _check_data(y: Any, scorings: dict[str, Any], metric: Metric, *,
                whole: bool = True) -> tuple[np.ndarray, list[np.ndarray]]:
    """Labels and scorings checked for ``metric``; ``whole``: also the metric's checks of the rows as one list
    (False when they are queries, whose own checks follow: a k larger than the input is not the error there)."""
    integers = "rank" if metric.order_invariant else "refuse"
    first, *others = scorings.items()
    y_arr, s_arr = check_labels_and_scores(y, first[1], graded=metric.task == "graded", both_classes=False,
                                           what=f"metric {metric.spec!r}", integers=integers,
                                           label_integers="rank" if metric.labels_order_invariant else "round")
    arrays = [s_arr]
    for name, scores in others:
        arrays.append(check_scores(scores, name=name, integers=integers, what=f"metric {metric.spec!r}"))
    check_same_length(y=y_arr, **{name: a for name, a in zip(scorings, arrays)})
    for s in arrays if whole else ():
        metric.check_data(y_arr, s)
    return y_arr, arrays


def _seed(random_state: Any) -> int:
    return seed_of(check_random_state_param(random_state))


def bootstrap_options(level: Any, n_boot: Any, random_state: Any) -> tuple[float, int, int]:
    """The checked ``(level, n_boot, seed)`` of a bootstrap, each error naming its argument."""
    return _check_level(level), _check_n_boot(n_boot), _seed(random_state)


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
        from ._query_evaluate import check_query_method

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


def _kept(values: np.ndarray, metric: Metric, n_boot: int, what: str) -> tuple[np.ndarray, int]:
    """The defined replicates; a warning says how many were dropped, an error if too few are left."""
    defined = ~np.isnan(values) if values.ndim == 1 else ~np.isnan(values).any(axis=1)
    n_dropped = int(n_boot - np.count_nonzero(defined))
    if n_dropped:
        kept = n_boot - n_dropped
        if kept < MIN_BOOT:
            raise ValueError(f"n_boot: metric {metric.spec!r} is undefined on {n_dropped} of {n_boot} bootstrap "
                             f"{what}, leaving {kept}: fewer than {MIN_BOOT} cannot place the interval's tails "
                             f"(the metric needs more data than a resample keeps)")
        warnings.warn(f"metric {metric.spec!r} is undefined on {n_dropped} of {n_boot} bootstrap {what} "
                      f"(e.g. no positive drawn); the interval uses the other {kept}",
                      DroppedReplicatesWarning, stacklevel=4)  # past the percentile helper and its caller
    return values[defined], n_dropped


def _percentiles(values: np.ndarray, level: float) -> tuple[float, float]:
    """Percentile interval with linear interpolation (R's quantile type 7, as pROC)."""
    tail = (1.0 - level) / 2.0
    lower, upper = np.quantile(values, [tail, 1.0 - tail])
    return float(lower), float(upper)


def percentile_interval(metric: Metric, replicates: np.ndarray, *, estimate: float, level: float, method: str,
                        n_boot: int, stratified: bool, what: str, return_replicates: bool) -> ConfidenceInterval:
    """The percentile interval of a metric's defined replicates (``what`` names them in the warning)."""
    kept, n_dropped = _kept(replicates, metric, n_boot, what)
    lower, upper = _percentiles(kept, level)
    return ConfidenceInterval(metric.spec, lower, upper, level, method, float(np.std(kept, ddof=1)), n_boot,
                              n_dropped, stratified, replicates if return_replicates else None, estimate=estimate)


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
        Seeds the replicates; the result does not depend on ``n_jobs``.
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
        from ._query_evaluate import query_interval, query_values_of

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


def _p_value(difference: float, se: float) -> float:
    from scipy.stats import norm

    if se <= 0.0 or not math.isfinite(se):
        return 1.0 if difference == 0.0 else 0.0
    return float(2.0 * norm.sf(abs(difference) / se))


def paired_percentile_comparison(metric: Metric, replicates: np.ndarray, *, estimates: tuple[float, float],
                                 level: float, method: str, n_boot: int, stratified: bool, what: str,
                                 return_replicates: bool) -> PairedComparison:
    """The percentile interval and p-value of the difference of two scorings' defined replicates, shape (n_boot, 2)."""
    kept, n_dropped = _kept(replicates, metric, n_boot, what)
    differences = kept[:, 0] - kept[:, 1]
    lower, upper = _percentiles(differences, level)
    se = float(np.std(differences, ddof=1))
    difference = estimates[0] - estimates[1]
    return PairedComparison(metric.spec, lower, upper, level, method, se, n_boot, n_dropped, stratified,
                            replicates if return_replicates else None, estimates=estimates, difference=difference,
                            p_value=_p_value(difference, se))


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
        from ._query_evaluate import query_comparison, query_values_of

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

"""Metrics over queries: per-query values, their mean, and intervals and paired tests by resampling queries.

A metric with ``qid`` is the mean of its per-query values over the queries
it counts (``Metric.query_values``: NaN for a query left out).  The
bootstrap resamples whole queries: replicate b draws Q queries from the Q
with replacement (multinomial counts w) and each metric's replicate is
Σ w_q v_q / Σ w_q over the queries it counts -- the metric recomputed on the
resampled queries.  Every metric (and both scorings of ``compare``) sees the
same replicates.  O(n_boot · Q) time after the per-query values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ._base import Metric, labels_key
from ._interval_results import (
    ConfidenceInterval,
    PairedComparison,
    _check_data,
    bootstrap_options,
    paired_percentile_comparison,
    percentile_interval,
)
from ._queries import Queries
from ._refusal import MetricRefusal

__all__ = ["QueryValues", "per_query", "check_query_method", "query_values_of", "mean_of", "evaluate_queries",
           "query_interval", "query_intervals", "query_comparison", "QUERY_BOOTSTRAP"]

#: The ``method`` of intervals that resample queries.
QUERY_BOOTSTRAP = "bootstrap over queries"
#: At most this many multinomial counts are held at once.
_CHUNK_CELLS = 1 << 22


@dataclass(frozen=True)
class QueryValues:
    """A metric's value on each query and their mean.

    Attributes
    ----------
    metric : str
        The metric's spec.
    queries : ndarray
        The distinct query ids, sorted.
    values : ndarray of float64
        One value per query; NaN for a query the mean leaves out.
    sizes : ndarray of int64
        Rows per query.
    mean : float
        The mean over the counted queries (the metric's value with ``qid``).
    n_counted, n_left_out : int
        Queries in the mean and queries left out (no relevant row with
        ``empty=skip``; one class for metrics that need both).
    """

    metric: str
    queries: np.ndarray
    values: np.ndarray
    sizes: np.ndarray
    mean: float
    n_counted: int
    n_left_out: int

    def __repr__(self) -> str:
        return (f"QueryValues({self.metric} {self.mean:.4g} over {self.n_counted} queries, "
                f"{self.n_left_out} left out)")


def query_values_of(metric: Metric, y: np.ndarray, scores: np.ndarray, queries: Queries) -> np.ndarray:
    """``metric.query_values`` checked: one float per query (NaN: left out).

    Parameters
    ----------
    metric : Metric
        The metric of each query.
    y : ndarray
        The labels.
    scores : ndarray
        The scores, one per label.
    queries : Queries
        The rows of each query.

    Returns
    -------
    ndarray
        One float per query.
    """
    values = np.asarray(metric.query_values(y, scores, queries), dtype=np.float64)
    if values.shape != (queries.n_queries,):
        raise ValueError(f"metric {metric.spec!r}: query_values returned shape {values.shape}, expected one value "
                         f"per query ({queries.n_queries})")
    if np.isinf(values).any():
        raise ValueError(f"metric {metric.spec!r}: query_values returned an infinite value")
    return values


def mean_of(metric: Metric, values: np.ndarray) -> float:
    """The mean over the counted queries; an error naming the metric when it counts none."""
    counted = ~np.isnan(values)
    if not counted.any():
        detail = (f"counts none of the {values.shape[0]} queries: it leaves out the queries it is undefined on (for "
                  f"auc, those of one class) and, with empty=skip, those without a relevant row (pass empty=0 or "
                  f"empty=1 to count them)")
        raise MetricRefusal.said_of(metric.spec, "no_query", detail, n_queries=int(values.shape[0]))
    return float(np.mean(values[counted]))


def _replicate_means(value_sets: list[np.ndarray], seed: int, n_boot: int, *,
                     shared_center: bool = True) -> np.ndarray:
    """(n_boot, len(value_sets)): each set's mean over its counted queries on shared query replicates.

    A replicate draws Q queries with replacement (its counts: a bincount of Q uniform draws, the multinomial
    with equal probabilities, several times faster than NumPy's multinomial sampler).  Time O(n_boot · Q · sets),
    memory O(Q) a replicate, in chunks of about ``_CHUNK_CELLS`` counts.
    """
    n_queries = value_sets[0].shape[0]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    out = np.empty((n_boot, len(value_sets)))
    step = max(1, _CHUNK_CELLS // n_queries)
    # about one center: a comparison's two scorings (shared_center) cancel exactly on the replicates that miss the
    # queries they differ on; a set of one value gives its own mean exactly (np.mean, as mean_of's estimate)
    centers = []
    for values in value_sets[:1] if shared_center else value_sets:
        counted = values[~np.isnan(values)]
        centers.append(float(np.mean(counted)) if counted.size else 0.0)
    for start in range(0, n_boot, step):
        count = min(step, n_boot - start)
        draws = rng.integers(0, n_queries, size=(count, n_queries)) + (np.arange(count) * n_queries)[:, None]
        weights = np.bincount(draws.ravel(), minlength=count * n_queries).reshape(count, n_queries).astype(np.float64)
        del draws
        for j, values in enumerate(value_sets):
            center = centers[0 if shared_center else j]
            counted = ~np.isnan(values)
            w = weights[:, counted]
            total = w.sum(axis=1)
            kept = values[counted]
            with np.errstate(invalid="ignore", divide="ignore"):
                if kept.size and np.ptp(kept) == 0:
                    replicate = np.full(count, float(np.mean(kept)))
                else:
                    replicate = center + (w @ (kept - center)) / total
                out[start:start + count, j] = np.where(total > 0, replicate, np.nan)
    return out


class TooFewQueries(ValueError):
    """An interval over queries asked of fewer than two counted queries, or a paired comparison over fewer than
    :data:`MIN_PAIRED_QUERIES` (a ValueError)."""


class TooFewPairedQueries(TooFewQueries):
    """A paired comparison over at least two but fewer than :data:`MIN_PAIRED_QUERIES` queries: each scoring's
    values (and the difference of their means) stand, only the test is refused."""


def _two_counted(metric: Metric, values: np.ndarray) -> None:
    """Refuse an interval over fewer than two counted queries: one says nothing of how queries vary (its
    replicates all repeat it: a zero-width interval, p = 0)."""
    counted = int(np.count_nonzero(~np.isnan(values)))
    if counted < 2:
        raise TooFewQueries(f"qid: an interval of metric {metric.spec!r} over queries needs at least two counted "
                         f"queries, got {counted} of {values.shape[0]} (a query is left out where the metric is "
                         "undefined, and with empty=skip where it has no relevant row)")


#: The fewest queries both scorings count that a paired comparison over queries accepts.  Below it no paired test
#: can find a difference at the 5% level: the exact sign-flip (randomization) test over n queries gives at least
#: p = 2 / 2**n, 0.0625 for 5 queries, whereas the bootstrap's few distinct replicates (3 for 2 queries, 126 for 5)
#: gave intervals around one value and p-values near 0.
MIN_PAIRED_QUERIES = 6


def _enough_paired(metric: Metric, values: np.ndarray) -> None:
    """Refuse a paired comparison over fewer than :data:`MIN_PAIRED_QUERIES` queries counted by both scorings."""
    counted = int(np.count_nonzero(~np.isnan(values)))
    if counted < MIN_PAIRED_QUERIES:
        raise TooFewPairedQueries(
            f"qid: a paired comparison of metric {metric.spec!r} over queries needs at least {MIN_PAIRED_QUERIES} "
            f"queries counted by both scorings, got {counted} of {values.shape[0]}: with {counted} queries no paired "
            f"test can show a difference at the 5% level (the exact sign-flip test's smallest p-value is "
            f"2/2^{counted} = {2.0 / 2 ** counted:.3g}), and the bootstrap's interval and p-value would look far "
            "surer than that; compare each query's values (rankcore.metrics.per_query) or score more queries")


def query_interval(metric: Metric, values: np.ndarray, *, level: float, n_boot: int, seed: int,
                   return_replicates: bool = False) -> ConfidenceInterval:
    """The percentile interval of the metric's mean over resampled queries."""
    return query_intervals([metric], [values], level=level, n_boot=n_boot, seed=seed,
                           return_replicates=return_replicates)[0]


def query_intervals(metrics: list[Metric], value_sets: list[np.ndarray], *, level: float, n_boot: int, seed: int,
                    return_replicates: bool = False) -> list[ConfidenceInterval]:
    """Each metric's :func:`query_interval`, on one draw of the query replicates for all of them."""
    estimates = []
    for metric, values in zip(metrics, value_sets):       # the errors in query_interval's order
        estimates.append(mean_of(metric, values))
        _two_counted(metric, values)
    # each set about its own center: the interval is its own query_interval's, bit for bit
    replicates = _replicate_means(value_sets, seed, n_boot, shared_center=False)
    return [percentile_interval(metric, replicates[:, j], estimate=estimate, level=level, method=QUERY_BOOTSTRAP,
                                n_boot=n_boot, stratified=False, what="replicates of the queries",
                                return_replicates=return_replicates)
            for j, (metric, estimate) in enumerate(zip(metrics, estimates))]


def query_comparison(metric: Metric, values1: np.ndarray, values2: np.ndarray, *, level: float, n_boot: int,
                     seed: int, return_replicates: bool) -> PairedComparison:
    """Two scorings' means compared on shared query replicates: difference, interval, p-value."""
    both = ~np.isnan(values1) & ~np.isnan(values2)
    values1, values2 = np.where(both, values1, np.nan), np.where(both, values2, np.nan)
    estimates = (mean_of(metric, values1), mean_of(metric, values2))
    _two_counted(metric, values1)
    _enough_paired(metric, values1)
    replicates = _replicate_means([values1, values2], seed, n_boot)
    paired = paired_percentile_comparison(metric, replicates, estimates=estimates, level=level,
                                          method=QUERY_BOOTSTRAP, n_boot=n_boot, stratified=False,
                                          what="replicates of the queries", return_replicates=return_replicates)
    # the normal approximation's p-value falls far below what n queries can show (4e-9 over 6 queries, each better):
    # it is kept at least the exact sign-flip test's smallest, 2 / 2**n, where n counts the queries whose values
    # differ: a tied query's sign flip changes nothing, so it adds no evidence
    floor = min(1.0, 2.0 / 2.0 ** int(np.count_nonzero(both & (values1 != values2))))
    return paired if paired.p_value >= floor else replace(paired, p_value=floor)


def evaluate_queries(resolved: list[tuple[str, Metric]], labels: dict[str, np.ndarray], scores: np.ndarray,
                     queries: Queries, *, ci: float | None, n_boot: Any, random_state: Any) -> dict[str, Any]:
    """``evaluate(..., qid=)``: each metric's mean over queries, or its interval with ``ci``."""
    values = {key: query_values_of(metric, labels[labels_key(metric)], scores, queries) for key, metric in resolved}
    if ci is None:
        return {key: mean_of(metric, values[key]) for key, metric in resolved}
    level, n_boot, seed = bootstrap_options(ci, n_boot, random_state)
    intervals = query_intervals([metric for _, metric in resolved], [values[key] for key, _ in resolved],
                                level=level, n_boot=n_boot, seed=seed)
    return dict(zip((key for key, _ in resolved), intervals))


def check_query_method(method: str, metric: Metric) -> None:
    """With queries the interval is always the bootstrap over queries."""
    if method == "delong":
        raise ValueError(f"method: with qid the interval of metric {metric.spec!r} resamples queries "
                         f"(method='bootstrap' or 'auto'); 'delong' treats the rows as independent")


def per_query(y: Any, scores: Any, metric: str | Metric, *, qid: Any = None, group: Any = None) -> QueryValues:
    """A metric's value on each query, with the mean and the count of queries left out.

    Parameters
    ----------
    y : array-like of shape (n,)
        Grades >= 0 for the list metrics (``ndcg@k``, ``err@k``, ``map``,
        ``mrr``), 0/1 labels for the bipartite ones (``auc``, ``prec@k``, ...).
    scores : array-like of shape (n,)
        Finite scores; higher ranks higher inside each query.
    metric : str or Metric
        Any registered scalar metric.
    qid : array-like of shape (n,), optional
        One query id per row, of any hashable type; rows need not be sorted
        or contiguous.
    group : array-like of int, optional
        LightGBM's form instead: the sizes of consecutive queries.

    Returns
    -------
    QueryValues
        ``queries`` (sorted ids), ``values`` (NaN for a query left out),
        ``sizes``, ``mean``, ``n_counted``, ``n_left_out``.

    Raises
    ------
    ValueError
        Neither or both of ``qid`` and ``group``; ``qid`` of the wrong length
        or with None/NaN; negative or NaN grades; k larger than every query;
        a metric that counts no query or is not a single number.

    Examples
    --------
    >>> from rankcore.metrics import per_query
    >>> per_query([2, 0, 1, 0, 0], [0.9, 0.8, 0.1, 0.5, 0.4], "ndcg@k:2", qid=["a", "a", "b", "b", "c"])
    QueryValues(ndcg@k:2 0.8155 over 2 queries, 1 left out)
    """
    from ..registry import resolve
    from ._queries import check_queries

    metric = resolve("metric", metric)
    y_arr, (s_arr,) = _check_data(y, {"scores": scores}, metric, whole=qid is None and group is None)
    queries = check_queries(qid, group, int(y_arr.shape[0]))
    if queries is None:
        raise ValueError("qid: per_query needs the query of each row (qid=, or group= sizes)")
    values = query_values_of(metric, y_arr, s_arr, queries)
    counted = int(np.count_nonzero(~np.isnan(values)))
    return QueryValues(metric.spec, queries.labels, values, queries.sizes, mean_of(metric, values), counted,
                       queries.n_queries - counted)

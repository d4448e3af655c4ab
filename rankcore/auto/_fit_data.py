"""AutoRanker.fit's data checked before any fit: the rows searched, the metric, the plan of validation and its units.

On one list (:func:`one_list_data`) or within queries (:func:`query_data`,
rows in the canonical order of :mod:`._queries`); validated by
cross-validation over X, or -- ``fit(..., eval_set=...)`` -- on the user's
validation set (:func:`~rankcore.auto._fit_inputs.joined_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import MetricRefusal
from ..push import check_some_query_ranks
from ..validation import said_again
from ._fit_inputs import EvalChoice, SearchRows, check_row_extras, joined_rows, read_auto_eval_sets
from ._folds import check_metric_on_units, plan_folds, plan_units
from ._queries import (PerQueryMean, QueryData, check_metric_on_query_units, counted_queries, longest_query,
                       plan_query_folds, plan_query_units, query_labels)

__all__ = ["FitData", "one_list_data", "query_data", "refuse_metric", "check_query_metric"]


@dataclass(frozen=True)
class FitData:
    """A fit's checked data: the rows searched, the metric (and as units are scored), the plan and its units,
    the queries (None: one list) and the user's validation sets (None: cross-validation)."""

    rows: SearchRows
    metric: Any
    unit_metric: Any
    plan: Any
    units: Any
    found: QueryData | None
    evals: EvalChoice | None


def refuse_metric(metric) -> None:
    raise ValueError(f"metric: {metric.spec!r} is not a scalar metric of two-class labels "
                     f"(use e.g. 'pauc:0.1', 'prec@k:0.05', 'rmax', 'auc')")


def check_query_metric(metric, grades: np.ndarray) -> None:
    """Within queries: a metric of grades, or of two classes when every grade is 0 or 1."""
    if metric.task == "bipartite":
        other = np.setdiff1d(np.unique(grades), [0.0, 1.0])
        if other.size:
            raise ValueError(f"metric: {metric.spec!r} takes two classes (grades 0 and 1) in each query, but y holds "
                             f"the grades {other[:5].tolist()}; use a metric of grades such as 'ndcg@k:10', 'map', "
                             f"'mrr' or 'err@k:10'")
    elif metric.task != "graded":
        raise ValueError(f"metric: {metric.spec!r} is not a metric of relevance grades or two classes, so it cannot "
                         f"be taken per query (use e.g. 'ndcg@k:10', 'map', 'mrr')")


def check_metric_on_set(metric, rows, *, default: bool) -> None:
    """Refuse, before any fit, the user's validation set ``rows`` (within queries) when ``metric`` cannot be taken
    on it as a whole: a count k larger than every one of its queries (judged on its own, whatever X's queries)."""
    try:
        PerQueryMean(metric, default=default).values(rows.labels(), np.zeros(rows.y.shape[0]))
    except MetricRefusal as exc:
        raise exc.with_context(f"{rows.label}: {exc}", eval_set=rows.label) from None
    except ValueError as exc:
        raise said_again(exc, f"{rows.label}: {exc}", plain=ValueError) from None     # a refusal keeps its fields


def one_list_data(estimator, X, y, sample_weight, setup, seed, *, init_score, position, **eval_args) -> FitData:
    """The checked data of a fit on one list: rows, metric, plan and units (before any fit)."""
    metric = setup.metric
    if metric.task != "bipartite":
        refuse_metric(metric)
    X_arr, y_fit, weights = estimator._check_data(X, y, sample_weight)
    extras = check_row_extras(init_score, position, X_arr.shape[0], within=False)
    evals = read_auto_eval_sets(estimator, **eval_args, X=X, y=y, within=False, init_score=extras.init_score)
    if evals is not None:
        rows, plan, units = joined_rows(X_arr, y_fit, None, weights, extras, evals, metric, seed)
        return FitData(rows, metric, metric, plan, units, None, evals)
    plan = plan_folds(y_fit, estimator.cv, seed)
    units = plan_units(plan, y_fit, seed)
    check_metric_on_units(metric, y_fit, plan, units)              # before any fit
    return FitData(SearchRows(X_arr, y_fit, y_fit, None, weights, extras, X_arr.shape[0]), metric, metric, plan,
                   units, None, None)


def query_data(estimator, X, y, qid, group, sample_weight, setup, seed, *, init_score, position,
               **eval_args) -> FitData:
    """The checked data of a fit within queries (rows in the canonical order, :mod:`._queries`)."""
    X_arr, y_fit, weights, found = estimator._check_query_data(X, y, qid, group, sample_weight)
    # no query with two grades: no pair to order anywhere. Refused here, counting X's queries, rather than after
    # every candidate's first fold failed on its own training part (the error then counted a fold's queries)
    check_some_query_ranks(found.n_queries, found.n_without_pairs)
    extras = check_row_extras(init_score, position, X_arr.shape[0], within=True)
    metric = setup.query_metric
    codes = found.queries.codes
    labels = query_labels(y_fit, codes)
    default = estimator.metric is None
    check_query_metric(metric, y_fit)
    evals = read_auto_eval_sets(estimator, **eval_args, X=X, y=y, within=True, init_score=extras.init_score,
                                queries=(qid, group))
    extras = extras.take(found.order)
    if evals is not None:
        for rows in evals.sets:
            check_query_metric(metric, rows.y)
            check_metric_on_set(metric, rows, default=default)
        # the units are parts of the watched set, judged on its own
        unit_metric = PerQueryMean(metric, default=default, longest=longest_query(evals.watched_set.labels()))
        rows, plan, units = joined_rows(X_arr, y_fit, codes, weights, extras, evals, unit_metric, seed)
        return FitData(rows, metric, unit_metric, plan, units, found, evals)
    # the units (folds, hold-out parts) are parts of the training data: a fold of queries all shorter than a count k
    # reads them whole; a k beyond every query of the data is refused here, before any fit (the metric's own error)
    unit_metric = PerQueryMean(metric, default=default, longest=int(found.queries.sizes.max()))
    counted = counted_queries(unit_metric, labels)
    plan = plan_query_folds(found.queries, counted, estimator.cv, seed, metric.spec)
    units = plan_query_units(plan, found.queries, counted, seed)
    check_metric_on_query_units(unit_metric, labels, plan, units, budget=estimator.time_budget is not None)
    return FitData(SearchRows(X_arr, y_fit, labels, codes, weights, extras, X_arr.shape[0]), metric,
                   unit_metric, plan, units, found, None)

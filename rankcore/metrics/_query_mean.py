"""Single-list metrics over queries: each query's rows evaluated on their own, then averaged."""

from __future__ import annotations

import numpy as np

from ._base import Metric
from ._queries import Queries
from ._query_kernels import cutoffs, precision, rank_queries

__all__ = ["values_by_query", "precision_by_query"]


def values_by_query(metric: Metric, y: np.ndarray, scores: np.ndarray, queries: Queries) -> np.ndarray:
    """``metric`` on each query's rows; NaN where it is undefined there (one class for auc, ...).

    A query where the metric needs both classes and has one, or where its
    ``check_data`` refuses the rows (a single grade for ``misrank``), does not
    count.  O(n log n) plus one metric call per query.
    """
    if not metric.scalar or metric.greater_is_better is None:
        raise ValueError(f"qid: metric {metric.spec!r} is not a single number, so it cannot be averaged over "
                         f"queries; evaluate it per query, or use a scalar metric such as 'ndcg@k:10' or 'auc'")
    rows = queries.rows()
    ends = np.cumsum(queries.sizes)
    out = np.full(queries.n_queries, np.nan)
    for q, (start, end) in enumerate(zip(ends - queries.sizes, ends)):
        part = rows[start:end]
        y_q, s_q = y[part], scores[part]
        if metric.task == "bipartite" and metric.requires_both_classes and np.all(y_q == y_q[0]):
            continue
        try:
            metric.check_data(y_q, s_q)
        except ValueError:
            continue
        out[q] = float(metric.checked_value(metric.compute(y_q, s_q)))
    return out


def precision_by_query(k: int | float, spec: str, y: np.ndarray, scores: np.ndarray, queries: Queries) -> np.ndarray:
    """``prec@k`` per query: relevant rows in the first k places over k, a tie at place k sharing its places.

    A query shorter than a count k keeps k as the denominator (its missing
    places count as not relevant, as trec_eval's ``P_k``); a fraction is of
    each query's rows.  A count k larger than every query is an error.
    """
    largest = int(queries.sizes.max())
    if not (isinstance(k, float) and k < 1) and k > largest:
        raise ValueError(f"metric {spec!r}: k = {k} is larger than every query (the largest has {largest} rows), "
                         f"so no query is cut at k; choose k <= {largest}")
    kk = np.full(queries.n_queries, k, dtype=np.int64) if not (isinstance(k, float) and k < 1) \
        else cutoffs(k, queries.sizes)
    read = np.minimum(kk, queries.sizes)
    return precision(rank_queries(scores, queries), y == 1, read, "average") * read / kk

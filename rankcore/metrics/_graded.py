"""Metrics for graded (real-valued) relevance labels."""

from __future__ import annotations

import numpy as np

from ._base import OrderMetric
from ._misrank import misranked_pairs, misranked_pairs_by_query
from ._refusal import MetricRefusal

__all__ = ["Misrank", "misrank_counts", "misrank_counts_by_query"]

#: Rows from which the per-query counts run on every core (below, one thread's pass is shorter than the start-up).
_PARALLEL_ROWS = 50_000


def misrank_counts(y: np.ndarray, scores: np.ndarray) -> tuple[int, int]:
    """(misranked pairs, pairs) for validated float64 labels and scores.

    O(n log n): a stable sort by label, a dense ranking of the scores (one
    more sort) and a Fenwick-tree pass (:mod:`rankcore.metrics._misrank`).
    """
    order = np.argsort(y, kind="stable")
    _, rank = np.unique(scores, return_inverse=True)
    n_ranks = int(rank.max()) + 1 if rank.size else 0
    return misranked_pairs(
        np.ascontiguousarray(y[order]),
        np.ascontiguousarray(rank.reshape(-1)[order], dtype=np.int64),
        n_ranks,
    )


def misrank_counts_by_query(y: np.ndarray, scores: np.ndarray, queries) -> tuple[np.ndarray, np.ndarray]:
    """(misranked pairs, pairs) of each query (int64 arrays, in the order of ``queries.labels``)."""
    from ..validation import effective_n_threads

    codes = queries.codes
    n = codes.shape[0]
    by_score = np.lexsort((scores, codes))
    new_value = np.ones(n, dtype=bool)
    new_value[1:] = (scores[by_score][1:] != scores[by_score][:-1]) | (codes[by_score][1:] != codes[by_score][:-1])
    dense = np.cumsum(new_value) - 1                       # dense ranks over all rows, in (query, score) order
    first = np.searchsorted(codes[by_score], np.arange(queries.n_queries))
    rank = np.empty(n, dtype=np.int64)
    rank[by_score] = dense - dense[first][codes[by_score]]  # each query's ranks start at 0
    by_label = np.lexsort((y, codes))
    starts = np.concatenate([[0], np.cumsum(queries.sizes)[:-1]]).astype(np.int64)
    misranked = np.zeros(queries.n_queries, dtype=np.int64)
    pairs = np.zeros(queries.n_queries, dtype=np.int64)
    threads = effective_n_threads(None) if n >= _PARALLEL_ROWS else 1
    misranked_pairs_by_query(np.ascontiguousarray(y[by_label], dtype=np.float64),
                             np.ascontiguousarray(rank[by_label]), starts,
                             np.ascontiguousarray(queries.sizes, dtype=np.int64), misranked, pairs, threads)
    return misranked, pairs


class Misrank(OrderMetric):
    """Fraction of pairs with y_i > y_j that are misranked (f_i <= f_j); graded labels (lower is better)."""

    name = "misrank"
    greater_is_better = False
    monotone = False
    task = "graded"
    bounded = True
    requires_both_classes = False
    labels_order_invariant = True        # the pairs y_i > y_j only
    examples = ("misrank",)

    def check_data(self, y: np.ndarray, scores: np.ndarray) -> None:
        if np.all(y == y[0]):
            detail = (f"needs at least two different label values (pairs with y_i > y_j), got only the value "
                      f"{float(y[0])!r} in {y.shape[0]} labels")
            raise MetricRefusal.said_of(self.spec, "labels", detail)

    def query_values(self, y: np.ndarray, scores: np.ndarray, queries) -> np.ndarray:
        """Each query's misrank in one compiled pass (NaN: a query of one grade, which has no pair).

        Equal to the metric called on each query's rows.  Two stable sorts of
        all rows (by query and score, for each query's dense score ranks; by
        query and grade, for the visit) and the counts of every query from
        its own Fenwick tree (:func:`~rankcore.metrics._misrank.misranked_pairs_by_query`),
        the queries spread over threads: O(n log n) time, O(n) memory.
        """
        counts = misrank_counts_by_query(y, scores, queries)
        misranked, pairs = counts
        out = np.full(queries.n_queries, np.nan)
        np.divide(misranked, pairs, out=out, where=pairs > 0)
        return out

    def compute(self, y: np.ndarray, scores: np.ndarray) -> float:
        misranked, pairs = misrank_counts(y, scores)
        if pairs == 0:
            self.check_data(y, scores)  # raises: all labels equal
        return misranked / pairs

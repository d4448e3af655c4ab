"""Metrics for graded (real-valued) relevance labels."""

from __future__ import annotations

import numpy as np

from ._base import OrderMetric
from ._misrank import misranked_pairs

__all__ = ["Misrank", "misrank_counts"]


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
            raise ValueError(
                f"y: metric {self.spec!r} needs at least two different label values "
                f"(pairs with y_i > y_j), got only the value {float(y[0])!r} in {y.shape[0]} labels"
            )

    def compute(self, y: np.ndarray, scores: np.ndarray) -> float:
        misranked, pairs = misrank_counts(y, scores)
        if pairs == 0:
            self.check_data(y, scores)  # raises: all labels equal
        return misranked / pairs

"""The ``binary_ndcg@k`` metric: normalized discounted cumulative gain of the top k."""

from __future__ import annotations

import numpy as np

import rankcore
from rankcore.spec import Parameter, count_or_fraction
from rankcore.validation import check_k


class NDCGAtK(rankcore.Metric):
    """Normalized DCG of the k top-scored items (binary relevance).

    DCG@k = Σ_{r ≤ k} rel_r / log2(r + 1) over ranks r = 1, 2, ...; NDCG divides
    by the best possible DCG@k, Σ_{r ≤ min(k, n₊)} 1 / log2(r + 1).  Tied
    scores are never ordered by position: a group of tied items spread over
    ranks a..b contributes its expected gain under a random order of the
    group, (positives in the group / group size) · Σ_{r=a}^{min(b,k)} 1/log2(r+1).
    ``k`` is a count (a count beyond n is n) or a fraction of n.  Higher is
    better; monotone (raising a positive's score never lowers it), so
    ExactBoost can optimize it.
    """

    name = "binary_ndcg@k"
    aliases = ("binary_ndcg_at_k",)
    parameters = (Parameter("k", count_or_fraction, doc="count, or fraction of n"),)
    examples = ("binary_ndcg@k:1", "binary_ndcg@k:5", "binary_ndcg@k:0.2")
    greater_is_better = True
    monotone = True
    bounded = True
    shift_invariant = True  # a function of the order of the scores only
    requires_both_classes = True

    def _k(self, n):
        # a count beyond the list is the whole list, as the built-in ndcg@k reads it: within queries a query
        # shorter than k is scored on all its items, not left out of the mean
        k = self.k if self.k < 1 else min(self.k, n)
        return check_k(k, n, name=f"metric {self.spec!r}: k")

    def check_data(self, y, scores):
        self._k(y.shape[0])

    def compute(self, y, scores):
        n = y.shape[0]
        k = self._k(n)
        order = np.argsort(-scores, kind="stable")
        sorted_scores, sorted_y = scores[order], y[order]
        # Tie groups of the descending order: [start, end) in 0-based ranks.
        starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
        ends = np.r_[starts[1:], n]
        positives = np.add.reduceat(sorted_y.astype(np.float64), starts)
        discount = np.r_[0.0, np.cumsum(1.0 / np.log2(np.arange(2, n + 2)))]  # discount[r] = Σ_{1..r}
        inside = np.minimum(ends, k) - starts
        keep = inside > 0
        gain = (positives[keep] / (ends - starts)[keep]
                * (discount[starts[keep] + inside[keep]] - discount[starts[keep]]))
        ideal = discount[min(k, int(y.sum()))]
        return float(gain.sum() / ideal)

    def from_sorted(self, pos, neg):
        y = np.r_[np.ones(pos.shape[0], np.int8), np.zeros(neg.shape[0], np.int8)]
        return self.compute(y, np.r_[pos, neg])

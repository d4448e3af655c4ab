"""The 'list-recall@k' metric: the share of the relevant items found among the k top-scored.

A metric judges scores given labels y in {0, 1}.  ``rankcore.Metric`` validates
the input (lengths, NaN, labels, both classes) before ``compute`` runs.
"""

import numpy as np

import rankcore
from rankcore.spec import Parameter, count_or_fraction
from rankcore.validation import check_k


class ListRecallAtK(rankcore.Metric):
    """Recall at k: relevant items among the k top-scored, over all relevant items (ties by expected value)."""

    name = "list-recall@k"
    # A parameter arrives as an attribute of the same name: "list-recall@k:10" sets self.k = 10.
    parameters = (Parameter("k", count_or_fraction, doc="a count >= 1 or a fraction of n in (0, 1)"),)
    examples = ("list-recall@k:1", "list-recall@k:5", "list-recall@k:0.2")
    greater_is_better = True
    monotone = True                # raising a relevant item's score never lowers it (ExactBoost can use it)
    bounded = True                 # values in [0, 1]
    shift_invariant = True         # a function of the order of the scores only
    requires_both_classes = True   # without relevant items recall is undefined

    def check_data(self, y, scores):
        check_k(self.k, y.shape[0], name=f"metric {self.spec!r}: k")

    def compute(self, y, scores):
        k = check_k(self.k, y.shape[0])
        kth = np.sort(scores)[-k]                      # the k-th highest score
        above, tied = scores > kth, scores == kth
        # the items tied at the k-th score share the places left in the top k, at random
        found = y[above].sum() + y[tied].sum() * (k - above.sum()) / tied.sum()
        return float(found / y.sum())

"""The 'squared-auc' objective: the mean over relevant-irrelevant pairs of (m − (f_i − f_k))².

An objective is what the boosting driver minimizes over the score vector f.
This one is a least-squares surrogate of the AUC: every pair of a relevant
item i and an irrelevant item k should be ordered by a margin m.  Expanding
the square gives its value, gradient and curvature in O(n) -- never the
I × K pairs.  ``value_and_gradient`` is all an objective needs;
``value_gradient_hessian`` (optional) gives trees Newton leaves.
"""

import numpy as np

import rankcore
from rankcore.spec import Parameter


class SquaredAuc(rankcore.Objective):
    """Σ_ik w_i v_k (m − f_i + f_k)² / (Σ w · Σ v): a least-squares AUC surrogate with margin m."""

    name = "squared-auc"
    # A parameter arrives as an attribute of the same name: "squared-auc:2" sets self.margin = 2.
    parameters = (Parameter("margin", float, default=1.0, minimum=0.0, exclusive_minimum=True,
                            doc="the score difference m > 0 every pair should reach"),)
    examples = ("squared-auc", "squared-auc:0.1", "squared-auc:10")
    task = "bipartite"               # y arrives as int8 0/1, 1 = relevant
    supports_sample_weight = True    # weights act as multiplicities

    def _sums(self, y, scores, sample_weight):
        w = np.ones(scores.shape[0]) if sample_weight is None else sample_weight
        pos, neg = y == 1, y == 0
        slack = self.margin - scores[pos]                      # m − f_i of each relevant item
        W, V = w[pos].sum(), w[neg].sum()
        A, B = w[pos] @ slack, w[neg] @ scores[neg]
        return w, pos, neg, slack, W, V, A, B

    def value_and_gradient(self, y, scores, sample_weight=None):
        w, pos, neg, slack, W, V, A, B = self._sums(y, scores, sample_weight)
        # Σ_ik w_i v_k (s_i + f_k)² = V Σ w s² + 2 A B + W Σ v f²
        total = V * (w[pos] @ slack**2) + 2.0 * A * B + W * (w[neg] @ scores[neg] ** 2)
        grad = np.zeros(scores.shape[0])
        grad[pos] = -2.0 * w[pos] * (V * slack + B)
        grad[neg] = 2.0 * w[neg] * (A + W * scores[neg])
        return float(total / (W * V)), grad / (W * V)

    def value_gradient_hessian(self, y, scores, sample_weight=None):
        value, grad = self.value_and_gradient(y, scores, sample_weight)
        w, pos, neg, _, W, V, _, _ = self._sums(y, scores, sample_weight)
        hess = np.empty(scores.shape[0])
        hess[pos] = 2.0 * w[pos] * V / (W * V)                # the exact diagonal of the Hessian
        hess[neg] = 2.0 * w[neg] * W / (W * V)
        return value, grad, hess

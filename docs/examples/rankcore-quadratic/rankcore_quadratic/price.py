"""The 'quadratic' price: g(r) = r + w·r², between RankBoost's identity and a quadratic push.

A price g is applied to each negative's summed loss L_k in the push objective
R = Σ_k g(L_k): the steeper g, the harder the push at the top of the list.
Only the plain forms are needed: ``rankcore.Price`` computes log g, log g′
and log g″ from them, stably (override ``log_value``, ``log_derivative`` and
``log_second_derivative`` when g grows faster than a power, or to give them
in closed form).
"""

import numpy as np

import rankcore
from rankcore.spec import Parameter


class Quadratic(rankcore.Price):
    """g(r) = r + w·r²: convex, non-negative and increasing on [0, ∞) for every w ≥ 0."""

    name = "quadratic"
    # A parameter arrives as an attribute of the same name: "quadratic:0.5" sets self.w = 0.5.
    parameters = (Parameter("w", float, default=1.0, minimum=0.0, doc="weight of the quadratic term"),)
    # The specs the contract checks run on: the default and the parameter's range.
    examples = ("quadratic", "quadratic:0", "quadratic:0.01", "quadratic:10")

    def value(self, r):
        return r + self.w * r * r

    def derivative(self, r):
        return 1.0 + 2.0 * self.w * r

    def second_derivative(self, r):
        return np.full_like(r, 2.0 * self.w)

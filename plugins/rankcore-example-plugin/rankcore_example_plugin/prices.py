"""The ``cubic`` price: g(r) = r + c·r³/3, a gentle push between RankBoost and P-Norm."""

from __future__ import annotations

import numpy as np

import rankcore
from rankcore.spec import Parameter


class CubicPrice(rankcore.Price):
    """g(r) = r + c·r³/3: linear for small summed losses, cubic for large ones.

    Convex, non-negative and increasing on [0, ∞) for every c ≥ 0 (c = 0 is
    RankBoost's identity price).  The log-space forms are exact and never
    overflow, so the push driver can use this price for long fits.
    """

    name = "cubic"
    parameters = (Parameter("c", float, default=1.0, minimum=0.0, doc="weight of the cubic term"),)
    examples = ("cubic", "cubic:0", "cubic:0.01", "cubic:5")

    def value(self, r):
        r = np.asarray(r, dtype=np.float64)
        return r + self.c * r**3 / 3.0

    def derivative(self, r):
        r = np.asarray(r, dtype=np.float64)
        return 1.0 + self.c * r**2

    def second_derivative(self, r):
        return 2.0 * self.c * np.asarray(r, dtype=np.float64)

    # log g(r) = log(r + c r³/3) = logaddexp(log r, log(c/3) + 3 log r), and so on:
    # written with logaddexp so that huge summed losses stay finite.
    def log_value(self, log_r):
        log_r = np.asarray(log_r, dtype=np.float64)
        return np.logaddexp(log_r, self._log(self.c / 3.0) + 3.0 * log_r)

    def log_derivative(self, log_r):
        log_r = np.asarray(log_r, dtype=np.float64)
        return np.logaddexp(0.0, self._log(self.c) + 2.0 * log_r)

    def log_second_derivative(self, log_r):
        return self._log(2.0 * self.c) + np.asarray(log_r, dtype=np.float64)

    @staticmethod
    def _log(x: float) -> float:
        return float(np.log(x)) if x > 0 else -np.inf

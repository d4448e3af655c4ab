"""Built-in prices: ``identity`` (RankBoost), ``pow:p`` (P-Norm Push), ``exp:β``.

Each gives its log-space forms in closed form, so that the push objective stays
finite for any p (docs/theory/push.md#log-space: p = 64 overflows float64 otherwise).
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Parameter
from ._base import Price

__all__ = ["Identity", "Power", "Exponential", "MAX_POWER", "MAX_RATE"]

#: Largest exponent of ``pow:p``.  The objective grows like p·log L, so the
#: useful step along a weak ranker shrinks like 1/p: beyond about 10^13 it is
#: below the rounding of the scores and the fit cannot move (it would report a
#: constant model as converged).  10^6 already pushes as hard as the maximum
#: over the negatives, and leaves seven orders of magnitude of margin.
MAX_POWER = 1e6

#: Largest rate β of ``exp:β``.  log g(L) = β·L grows with the summed loss L
#: (about the number of positives at the start): β·L must stay far from the
#: point where float64 can no longer tell φ(α) from φ(0).  10^3 pushes harder
#: than any practical use and keeps β·L below 10^10 for a million positives.
MAX_RATE = 1e3


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


class Identity(Price):
    """g(r) = r: no push; with the exponential loss this is RankBoost."""

    name = "identity"
    aliases = ("id", "linear")
    homogeneous_degree = 1.0

    def value(self, r):
        return _f64(r).copy()

    def derivative(self, r):
        return np.ones_like(_f64(r))

    def second_derivative(self, r):
        return np.zeros_like(_f64(r))

    def log_value(self, log_r):
        return _f64(log_r).copy()

    def log_derivative(self, log_r):
        return np.zeros_like(_f64(log_r))

    def log_second_derivative(self, log_r):
        return np.full_like(_f64(log_r), -np.inf)


class Power(Price):
    """g(r) = r^p with 1 ≤ p ≤ 10⁶ (MAX_POWER): the P-Norm Push; larger p pushes harder at the top."""

    name = "pow"
    aliases = ("power", "pnorm")
    parameters = (Parameter("p", float, minimum=1.0, maximum=MAX_POWER,
                            doc="the exponent, a number in [1, 1e6]"),)
    examples = ("pow:1", "pow:1.5", "pow:4", "pow:64")

    @property
    def homogeneous_degree(self) -> float:  # type: ignore[override]
        return float(self.p)

    def value(self, r):
        return np.power(_f64(r), self.p)

    def derivative(self, r):
        r = _f64(r)
        if self.p == 1.0:
            return np.ones_like(r)
        return self.p * np.power(r, self.p - 1.0)

    def second_derivative(self, r):
        r = _f64(r)
        if self.p == 1.0:
            return np.zeros_like(r)
        if self.p == 2.0:
            return np.full_like(r, 2.0)
        with np.errstate(divide="ignore"):
            return self.p * (self.p - 1.0) * np.power(r, self.p - 2.0)

    def log_value(self, log_r):
        return self.p * _f64(log_r)

    def log_derivative(self, log_r):
        log_r = _f64(log_r)
        if self.p == 1.0:  # avoid 0 * (-inf) at r = 0
            return np.zeros_like(log_r)
        return math.log(self.p) + (self.p - 1.0) * log_r

    def log_second_derivative(self, log_r):
        log_r = _f64(log_r)
        if self.p == 1.0:
            return np.full_like(log_r, -np.inf)
        if self.p == 2.0:
            return np.full_like(log_r, math.log(2.0))
        return math.log(self.p * (self.p - 1.0)) + (self.p - 2.0) * log_r


class Exponential(Price):
    """g(r) = exp(β·r) with 0 < β ≤ 1000 (MAX_RATE): an exponential push (log g = β·r is never overflowed)."""

    name = "exp"
    aliases = ("exponential",)
    parameters = (Parameter("beta", float, default=1.0, minimum=0.0, exclusive_minimum=True, maximum=MAX_RATE,
                            doc="the rate β, a number in (0, 1000]"),)
    examples = ("exp", "exp:0.1", "exp:2")

    def value(self, r):
        with np.errstate(over="ignore"):
            return np.exp(self.beta * _f64(r))

    def derivative(self, r):
        with np.errstate(over="ignore"):
            return self.beta * np.exp(self.beta * _f64(r))

    def second_derivative(self, r):
        with np.errstate(over="ignore"):
            return self.beta * self.beta * np.exp(self.beta * _f64(r))

    def log_value(self, log_r):
        with np.errstate(over="ignore"):
            return self.beta * np.exp(_f64(log_r))

    def log_derivative(self, log_r):
        with np.errstate(over="ignore"):
            return math.log(self.beta) + self.beta * np.exp(_f64(log_r))

    def log_second_derivative(self, log_r):
        with np.errstate(over="ignore"):
            return 2.0 * math.log(self.beta) + self.beta * np.exp(_f64(log_r))

    def log_elasticity(self, log_r):
        # g′ r / g = β r exactly: no difference of two logs near β r
        return math.log(self.beta) + _f64(log_r)

    def log_second_elasticity(self, log_r):
        return 2.0 * (math.log(self.beta) + _f64(log_r))

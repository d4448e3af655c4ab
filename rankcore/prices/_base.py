"""The :class:`Price` base class of the ``price`` plugin family.

A price g is applied to each negative example's summed loss in the push
objective (docs/theory/push.md#the-objective)::

    R_{g,ℓ}(f) = Σ_k v_k · g(L_k),      L_k = Σ_i w_i · ℓ(f_i − f_k) ≥ 0

(v, w: sample weights, 1 by default).  The steeper g, the harder the push at the
top of the list: ``identity`` is RankBoost's no-push objective, ``pow:64``
approximates the maximum over negatives.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..spec import Component

__all__ = ["Price"]


class Price(Component):
    """Base class of the ``price`` plugin family: a convex, increasing g: [0, ∞) → [0, ∞).

    The push objective only ever evaluates g at the summed losses ``L_k ≥ 0``.
    Steep prices overflow float64 long before they stop being useful
    (``pow:64`` at L = 10⁵ is 10³²⁰), so the push driver works with the
    **log-space forms** below and keeps every quantity as a logarithm until a
    ratio of two of them is taken.

    What a subclass provides
    ------------------------
    Required (vectorized over NumPy arrays of float64, any shape, never
    modifying the input):

    ``value(r)``
        g(r) for r ≥ 0.
    ``derivative(r)``
        g′(r) ≥ 0.

    Optional:

    ``second_derivative(r)``
        g″(r) ≥ 0.  With it the line search takes Newton steps; without it
        (the base implementation raises ``NotImplementedError``) it uses
        safeguarded secant steps.  :attr:`has_second_derivative` tells which.
    ``log_value(log_r)``, ``log_derivative(log_r)``, ``log_second_derivative(log_r)``
        log g(r), log g′(r), log g″(r) as functions of log r (``-inf`` for
        r = 0; the result is ``-inf`` where the value is 0).  The defaults
        exponentiate, call the plain form and take the log, which overflows
        for large r: **override them whenever g grows fast** (every built-in
        does).
    ``homogeneous_degree``
        A number d when g(c·r) = c^d · g(r) for all c > 0 (so g(r) = g(1)·r^d):
        ``identity`` has 1, ``pow:p`` has p.  With the exponential loss this
        makes the whole objective a product of two sums, computed in one pass
        over the data (docs/theory/push.md#pairwise-sums-without-pairs).  ``None`` (the
        default) is always correct, only slower.

    Contract (checked for every registered price by
    ``rankcore.testing.check_component("price", spec)``): g ≥ 0, increasing
    and convex on [0, ∞); the derivatives agree with finite differences; the
    log forms agree with the plain forms; ``homogeneous_degree`` is honest;
    inputs are not modified and shapes are preserved.

    Examples
    --------
    A plugin price (this is the whole class; register it with a
    ``rankcore_register_prices`` hook)::

        import numpy as np
        import rankcore

        class Cube(rankcore.Price):
            '''g(r) = r³.'''
            name = "cube"
            homogeneous_degree = 3.0

            def value(self, r):
                return np.power(r, 3.0)

            def derivative(self, r):
                return 3.0 * np.square(r)

            def second_derivative(self, r):
                return 6.0 * np.asarray(r, dtype=float)

            def log_value(self, log_r):
                return 3.0 * np.asarray(log_r, dtype=float)
    """

    family: ClassVar[str] = "price"
    #: d such that g(c r) = c^d g(r), or None (see the class docstring).
    homogeneous_degree: ClassVar[float | None] = None

    # ------------------------------------------------------------------
    # Plain forms
    # ------------------------------------------------------------------
    def value(self, r: np.ndarray) -> np.ndarray:
        """g(r), elementwise, for r ≥ 0."""
        raise NotImplementedError(f"price {self.spec!r} must implement value(r)")

    def derivative(self, r: np.ndarray) -> np.ndarray:
        """g′(r), elementwise, for r ≥ 0."""
        raise NotImplementedError(f"price {self.spec!r} must implement derivative(r)")

    def second_derivative(self, r: np.ndarray) -> np.ndarray:
        """g″(r), elementwise, for r ≥ 0 (optional; see :attr:`has_second_derivative`)."""
        raise NotImplementedError(f"price {self.spec!r} does not provide a second derivative")

    @property
    def has_second_derivative(self) -> bool:
        """Whether the class overrides :meth:`second_derivative`."""
        return type(self).second_derivative is not Price.second_derivative

    # ------------------------------------------------------------------
    # Log-space forms (override for prices that grow fast)
    # ------------------------------------------------------------------
    def log_value(self, log_r: np.ndarray) -> np.ndarray:
        """log g(r) as a function of log r."""
        return _log_of(self.value, log_r)

    def log_derivative(self, log_r: np.ndarray) -> np.ndarray:
        """log g′(r) as a function of log r."""
        return _log_of(self.derivative, log_r)

    def log_second_derivative(self, log_r: np.ndarray) -> np.ndarray:
        """log g″(r) as a function of log r (needs :meth:`second_derivative`)."""
        return _log_of(self.second_derivative, log_r)


def _log_of(func, log_r) -> np.ndarray:
    log_r = np.asarray(log_r, dtype=np.float64)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return np.log(np.asarray(func(np.exp(log_r)), dtype=np.float64))

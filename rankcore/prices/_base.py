"""The :class:`Price` base class of the ``price`` plugin family.

A price g is applied to each negative example's summed loss in the push
objective (SPEC §2)::

    R_{g,ℓ}(f) = Σ_k v_k · g(L_k),      L_k = Σ_i w_i · ℓ(f_i − f_k) ≥ 0

(v, w: sample weights, 1 by default).  The steeper g, the harder the push at the
top of the list: ``identity`` is RankBoost's no-push objective, ``pow:64``
approximates the maximum over negatives.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..spec import Component

__all__ = ["Price", "log_form"]


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
        exponentiate, call the plain form and take the log -- exact wherever
        the plain form is finite.  Beyond the point where it overflows
        float64 (g(r) = r + r² at r > 10¹⁵⁴), they continue log g linearly in
        log r with the slope of its last finite stretch (:func:`log_form`):
        exact for a polynomial's leading power, never NaN, never decreasing,
        but only a lower bound for a g that grows faster than any power, so
        **override them when g grows fast or you know the closed form**
        (every built-in does).
    ``homogeneous_degree``
        A number d when g(c·r) = c^d · g(r) for all c > 0 (so g(r) = g(1)·r^d):
        ``identity`` has 1, ``pow:p`` has p.  With the exponential loss this
        makes the whole objective a product of two sums, computed in one pass
        over the data (SPEC §2, "pairwise sums without pairs").  ``None`` (the
        default) is always correct, only slower.

    Contract (checked for every registered price by
    ``rankcore.testing.check_component("price", spec)``): g ≥ 0, increasing
    and convex on [0, ∞); the derivatives agree with finite differences; the
    log forms agree with the plain forms; ``homogeneous_degree`` is honest;
    inputs are not modified and shapes are preserved.

    A parameter declared in ``parameters`` arrives as an attribute of the
    same name: ``Parameter("w", float)`` is ``self.w`` (``"quadratic:0.5"``
    sets it to 0.5).

    Examples
    --------
    A plugin price (this is the whole class; register it with a
    ``rankcore_register_prices`` hook, and it passes
    ``rankcore.testing.check_component("price", "cube")``)::

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
        """log g(r) as a function of log r (see :func:`log_form`)."""
        return log_form(self, "value", log_r)

    def log_derivative(self, log_r: np.ndarray) -> np.ndarray:
        """log g′(r) as a function of log r (see :func:`log_form`)."""
        return log_form(self, "derivative", log_r)

    def log_second_derivative(self, log_r: np.ndarray) -> np.ndarray:
        """log g″(r) as a function of log r (needs :meth:`second_derivative`; see :func:`log_form`)."""
        return log_form(self, "second_derivative", log_r)


#: log r at which float64's exp overflows: the plain forms cannot even be called beyond it.
_LOG_MAX = float(np.log(np.finfo(np.float64).max))


def _plain_log(func, log_r) -> np.ndarray:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return np.log(np.asarray(func(np.exp(log_r)), dtype=np.float64))


def log_form(price: "Price", name: str, log_r) -> np.ndarray:
    """log of the plain form ``name`` of ``price`` ("value", "derivative", ...) at r = exp(log_r), computed stably.

    Where ``exp(log_r)`` and the plain form are finite the result is their
    log, exactly.  Where the plain form overflows (or is NaN, as inf − inf
    gives) at large r, log g continues linearly in log r from the last
    point t* where it is finite, with the slope of its secant over
    [t* − 1, t*]: for g(r) = Σ c_j r^j whose leading power dominates by then
    (coefficients of ordinary size: t* is beyond 350) that slope is the
    leading power to within e^(−t*), so the continuation is exact to
    rounding; for a g growing faster than any power it is a lower bound.  t* and the slope
    are found once per component and form (a bisection of 60 scalar calls).

    Time O(n) per call after that.
    """
    log_r = np.asarray(log_r, dtype=np.float64)
    out = _plain_log(getattr(price, name), log_r)
    overflow = ~np.isfinite(out) & (log_r > 0.0)
    if overflow.any():
        edge, at_edge, slope = _overflow_tail(price, name)
        tail = overflow & (log_r > edge)
        if tail.any():
            out = np.array(out, dtype=np.float64)
            out[tail] = at_edge + slope * (log_r[tail] - edge)
    return out


def _overflow_tail(price: "Price", name: str) -> tuple[float, float, float]:
    """(t*, log g(e^t*), slope): where the plain form's log stops being finite, and how it continues."""
    cache = price.__dict__.setdefault("_overflow_tails", {})
    if name not in cache:
        func = getattr(price, name)

        def finite_at(t: float) -> bool:
            return bool(np.isfinite(_plain_log(func, np.array([t]))[0]))

        lo, hi = 0.0, _LOG_MAX + 1.0
        if not finite_at(lo):
            cache[name] = (np.inf, np.nan, np.nan)  # not finite even at r = 1: nothing to continue from
            return cache[name]
        for _ in range(60):  # bisection to float64 resolution of t
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if finite_at(mid) else (lo, mid)
        ends = _plain_log(func, np.array([lo - 1.0, lo]))
        slope = float(ends[1] - ends[0]) if np.isfinite(ends).all() else 0.0
        cache[name] = (lo, float(ends[1]), max(slope, 0.0))
    return cache[name]

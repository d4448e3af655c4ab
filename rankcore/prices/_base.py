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
        float64 (g(r) = r + r² at r > 10¹⁵⁴), and below the point where it
        underflows (r⁶⁴ at r < 10⁻⁴·⁸), they continue log g linearly in log r
        with the slope of its last usable stretch (:func:`log_form`):
        exact for a polynomial's leading power, never NaN, never decreasing,
        but only a lower bound for a g that grows faster than any power, so
        **override them when g grows fast or you know the closed form**
        (every built-in does).
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

    def log_elasticity(self, log_r: np.ndarray) -> np.ndarray:
        """log(g′(r)·r / g(r)) as a function of log r.

        The default takes the difference of the log forms; a price whose
        log g grows far faster than log r (the exponential) overrides it:
        there log g′ + log r − log g loses log r to rounding once log g
        passes about 1e16.
        """
        return self.log_derivative(log_r) + log_r - self.log_value(log_r)

    def log_second_elasticity(self, log_r: np.ndarray) -> np.ndarray:
        """log(g″(r)·r² / g(r)) as a function of log r (see :meth:`log_elasticity`)."""
        return self.log_second_derivative(log_r) + 2.0 * log_r - self.log_value(log_r)


#: log r at which float64's exp overflows: the plain forms cannot even be called beyond it.
_LOG_MAX = float(np.log(np.finfo(np.float64).max))
#: log of the smallest normal float64: a plain form below it has lost digits (or underflowed to 0).
_LOG_TINY = float(np.log(np.finfo(np.float64).tiny))


def _plain_log(func, log_r) -> np.ndarray:
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        return np.log(np.asarray(func(np.exp(log_r)), dtype=np.float64))


def log_form(price: "Price", name: str, log_r) -> np.ndarray:
    """log of the plain form ``name`` of ``price`` ("value", "derivative", ...) at r = exp(log_r), computed stably.

    Where the plain form is a finite, normal float64 the result is its log,
    exactly.  Beyond the two ends of that range log g continues linearly in
    log r:

    * at large r, where the plain form overflows (or is NaN, as inf − inf
      gives), from the last point t* where it is finite, with the slope of
      its secant over [t* − 1, t*];
    * at small r, where it underflows (r⁶⁴ below 10⁻³⁰⁸, at r < 10⁻⁴·⁸), from
      the first point where it is a normal number, with the slope over the
      next unit of log r -- but only when it does underflow there: a g that
      is exactly 0 near r = 0 (as max(0, r − 1)²) keeps log g = −inf.

    For g(r) = Σ c_j r^j with coefficients of ordinary size the slopes are
    the leading and the lowest power to within e^(−|t*|), so the
    continuation is exact to rounding; for a g growing faster than any power
    it is a lower bound.  The ends and slopes are found once per component
    and form (a bisection of 60 scalar calls each).

    Time O(n) per call after that.
    """
    log_r = np.asarray(log_r, dtype=np.float64)
    out = _plain_log(getattr(price, name), log_r)
    overflow = ~np.isfinite(out) & (log_r > 0.0)
    underflow = (out < _LOG_TINY) & np.isfinite(log_r) & (log_r < 0.0)
    for side, mask in (("large", overflow), ("small", underflow)):
        if mask.any():
            edge, at_edge, slope = _tail(price, name, side)
            beyond = mask & (log_r > edge if side == "large" else log_r < edge)
            if beyond.any():
                out = np.array(out, dtype=np.float64)
                out[beyond] = at_edge + slope * (log_r[beyond] - edge)
    return out


def _tail(price: "Price", name: str, side: str) -> tuple[float, float, float]:
    """(t*, log g(e^t*), slope): where the plain form's log stops being usable on ``side``, and how it continues.

    ``t*`` is nan when there is nothing to continue (the form is usable on the
    whole range, or nowhere, or it is exactly 0 near r = 0 rather than
    underflowing).
    """
    cache = price.__dict__.setdefault("_log_form_tails", {})
    key = (name, side)
    if key not in cache:
        func = getattr(price, name)
        large = side == "large"

        def usable(t):
            values = _plain_log(func, np.atleast_1d(np.asarray(t, dtype=np.float64)))
            return np.isfinite(values) if large else values >= _LOG_TINY

        # bracket the end on a coarse grid of log r (one vectorized call), then bisect
        grid = np.linspace(-_LOG_MAX - 40.0, _LOG_MAX + 1.0, 151)
        ok = np.flatnonzero(usable(grid))
        cache[key] = (np.nan, np.nan, np.nan)
        i = (ok[-1] if large else ok[0]) if ok.size else None
        if i is not None and 0 < i < grid.size - 1:
            good, bad = grid[i], grid[i + 1 if large else i - 1]
            for _ in range(60):  # bisection to float64 resolution of t
                mid = 0.5 * (good + bad)
                good, bad = (mid, bad) if usable(mid)[0] else (good, mid)
            step = -1.0 if large else 1.0
            inner, edge = _plain_log(func, np.array([good + step, good]))
            # below: only an underflow continues (the edge value is then at the bottom of the normal range)
            if np.isfinite(inner) and np.isfinite(edge) and (large or edge < _LOG_TINY + 1.0):
                cache[key] = (good, float(edge), max(float((edge - inner) / -step), 0.0))
    return cache[key]

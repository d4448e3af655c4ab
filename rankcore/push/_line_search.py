"""Safeguarded one-dimensional minimization along a weak ranker.

φ(α) = J(f + α·h) is minimized by finding the sign change of φ′ (docs/theory/push.md#coordinate-descent:
"safeguarded Newton or bisection on the derivative").  The search

1. orients itself downhill (α has the sign of −φ′(0));
2. brackets the sign change by expanding the step (Newton steps or doubling)
   up to ``max_step``, stopping early where φ no longer decreases measurably
   (an asymptote: a weak ranker that orders some pairs perfectly);
3. shrinks the bracket with Newton steps when φ″ is available -- on R′ rather
   than on J′ for log-form objectives (R″/R = φ″ + φ′², positive for convex R)
   -- with secant steps when it is not, and with bisection whenever a step
   leaves the bracket or the bracket stops shrinking;
4. returns the evaluated point of lowest φ (never worse than α = 0).  On a
   plateau (φ′(0) < 0 by a subgradient, but φ constant along the line, as
   for piecewise-constant objectives at ties) it takes the first trial step:
   φ does not change, and the rows h separates are no longer tied.

It needs nothing but φ, φ′ and optionally φ″ at the points it asks for, so it
is the same code for every objective, every backend, and the naive reference
of the tests.
"""

from __future__ import annotations

import math
from typing import Callable

from ..objectives import LinePoint, LineSearchResult

__all__ = ["LineSearchResult", "line_search", "piecewise_linear_search", "MAX_STEP"]

#: Largest |α| the search takes (reached when the objective keeps decreasing,
#: e.g. a weak ranker that orders every remaining pair correctly).
MAX_STEP = 1e4

#: Relative change of φ below which it counts as flat (a few ulps).
_FLAT_TOL = 4 * 2.0**-52


def _bad(point: LinePoint) -> bool:
    return math.isnan(point.value) or math.isnan(point.d1) or point.value == math.inf


def _start(phi: Callable[[float], LinePoint], start: LinePoint | None) -> tuple[LinePoint, int]:
    """φ at α = 0 (``start`` if given) and the evaluations it took; raises when it is not finite."""
    p0 = start if start is not None else phi(0.0)
    if _bad(p0):
        raise FloatingPointError(f"line search: the objective is not finite at the current scores ({p0})")
    return p0, 0 if start is not None else 1


def _is_stationary(p0: LinePoint) -> bool:
    """No descent direction at α = 0: φ′(0) = 0, or R already reached 0 in log form."""
    return p0.d1 == 0.0 or p0.value == -math.inf


def _newton_curvature(t, d1, d2, t_prev, d_prev, log_value: bool) -> float:
    """A positive curvature for a Newton step on ψ′ at t, or NaN.

    φ″ when positive (Newton on J′; log-sum-exp objectives are convex in
    log form); else, for log-form objectives, R″/R = φ″ + φ′² (Newton on
    R′, positive whenever R is convex); else the secant slope of ψ′ from
    the previous point (t_prev, d_prev).
    """
    d1, d2 = float(d1), float(d2)       # a line's NumPy scalars would warn where φ′² overflows (inf: no curvature)
    if math.isfinite(d2):
        if d2 > 0:
            return d2
        if log_value and d2 + d1 * d1 > 0:
            return d2 + d1 * d1
    if math.isfinite(d_prev) and t != t_prev:
        slope = (d1 - d_prev) / (t - t_prev)
        if math.isfinite(slope) and slope > 0:
            return slope
    return math.nan


def _safeguarded_step(t, d1, c, lo, hi, dx, dx_old, bad):
    """The next point of a bracketed root search of ψ′ (rtsafe): Newton's step
    from t, or bisection of [lo, hi] when Newton leaves the bracket or does not
    halve the step before last.  Returns (t_next, dx, dx_old)."""
    newton = t - d1 / c if math.isfinite(c) else math.nan
    if bad or not (lo < newton < hi) or abs(newton - t) > 0.5 * abs(dx_old):
        dx_old, dx = dx, 0.5 * (hi - lo)
        return lo + dx, dx, dx_old
    dx_old, dx = dx, newton - t
    return newton, dx, dx_old


def line_search(
    phi: Callable[[float], LinePoint],
    *,
    log_value: bool,
    start: LinePoint | None = None,
    max_step: float = MAX_STEP,
    xtol: float = 1e-13,
    max_evaluations: int = 200,
) -> LineSearchResult:
    """Minimize φ along the line; see the module docstring.

    Parameters
    ----------
    phi : callable
        α ↦ :class:`LinePoint` (φ, φ′, φ″ with NaN for "unknown").
    log_value : bool
        φ is the log of a positive objective R (Newton on R′ then).
    start : LinePoint, optional
        φ at α = 0 if already known (saves one evaluation).
    max_step : float
        Bound on |α|.
    xtol : float
        Relative tolerance on α.
    max_evaluations : int
    """
    p0, n_eval = _start(phi, start)
    if _is_stationary(p0):
        return LineSearchResult(0.0, p0.value, n_eval, "stationary")
    s = -1.0 if p0.d1 > 0 else 1.0          # search α = s·t, t ≥ 0

    def psi(t: float):
        nonlocal n_eval
        n_eval += 1
        p = phi(s * t)
        # ψ(t) = φ(s t): ψ′ = s φ′, ψ″ = φ″
        return p.value, s * p.d1, p.d2

    best_t, best_v = 0.0, p0.value
    evaluated = {0.0}
    lo, hi = 0.0, math.nan                    # ψ′(lo) < 0 ≤ ψ′(hi)
    t_prev, d_prev = 0.0, s * p0.d1
    c0 = _newton_curvature(0.0, d_prev, p0.d2, 0.0, math.nan, log_value)
    t = -d_prev / c0 if math.isfinite(c0) else 1.0
    t = min(max(t, 1e-12), max_step)
    dx_old = dx = math.inf
    flat_from = p0.value                      # φ at the previous expansion point
    reason = "max_evaluations"
    while n_eval < max_evaluations:
        v, d1, d2 = psi(t)
        evaluated.add(t)
        bad = math.isnan(v) or math.isnan(d1) or v == math.inf
        if not bad and v <= best_v:
            best_t, best_v = t, v
        if v == -math.inf or (not bad and d1 == 0.0):
            reason = "converged"              # an exact stationary point, or R reached 0
            break
        if bad or d1 > 0.0:
            hi = t
        else:
            lo = t
        if math.isnan(hi):                    # still descending: expand
            if t >= max_step:
                reason = "max_step"
                break
            if not bad and v >= flat_from - _FLAT_TOL * max(1.0, abs(v)):
                best_t, best_v, reason = _end_of_decrease(p0, t, v, t_prev, flat_from)
                break
            flat_from = v
            c = _newton_curvature(t, d1, d2, t_prev, d_prev, log_value)
            t_prev, d_prev = t, d1
            t = _expansion_step(t, d1, c, max_step)
            continue
        # bracketed: safeguarded Newton (rtsafe): bisect when the Newton step
        # leaves the bracket or does not halve the step before last
        c = math.nan if bad else _newton_curvature(t, d1, d2, t_prev, d_prev, log_value)
        newton = t - d1 / c if math.isfinite(c) else math.nan
        if math.isfinite(newton) and abs(newton - t) <= xtol * max(1.0, abs(t)):
            reason = "converged"              # the Newton step from t vanishes: t is the root
            break
        t_next, dx, dx_old = _safeguarded_step(t, d1, c, lo, hi, dx, dx_old, bad)
        if not bad:
            t_prev, d_prev = t, d1
        scale = max(1.0, abs(t_next))
        if abs(dx) <= xtol * scale or hi - lo <= xtol * scale:
            if t_next not in evaluated and n_eval < max_evaluations:
                v, d1, d2 = psi(t_next)
                t = t_next
            reason = "converged"
            break
        t = t_next
    # Near the root, values differ by rounding noise only: prefer the converged
    # point (reproducible to xtol) over the noisy minimum, if it decreases φ.
    if reason == "converged" and t > 0 and not (math.isnan(v) or math.isnan(d1)) and v <= p0.value:
        best_t, best_v = t, v
    if best_t == 0.0:
        return LineSearchResult(0.0, p0.value, n_eval, "no_decrease")
    return LineSearchResult(s * best_t, best_v, n_eval, reason)


def _expansion_step(t, d1, c, max_step) -> float:
    """The next trial of the expansion from t: the Newton step with curvature c, at least doubling t."""
    t_next = t - d1 / c if math.isfinite(c) else math.nan
    return min(max(2.0 * t, t_next) if math.isfinite(t_next) else 2.0 * t, max_step)


def _end_of_decrease(p0: LinePoint, t, v, t_prev, flat_from) -> tuple[float, float, str]:
    """Where the expansion stops once φ no longer decreases measurably: (t, φ(t), reason)."""
    if t_prev == 0.0 and v <= p0.value and not (math.isfinite(p0.d2) and p0.d2 > 0):
        # flat from the very start, without curvature (a plateau of a
        # piecewise-linear objective, e.g. ties that one weak ranker
        # cannot break): take the trial step -- it costs nothing and
        # separates the rows h tells apart, so later steps can decrease φ.
        # (A smooth objective near its optimum has φ″ > 0: no plateau.)
        return t, v, "plateau"
    # no measurable decrease since the previous expansion: φ is flat to
    # machine precision (an asymptote); going further would only
    # inflate the scores and cost precision in later iterations.
    return t_prev, flat_from, "flat"


class _DescentLine:
    """φ along the descent direction: ``psi(t) = (φ(s·t), s·φ′(s·t), bad)`` for t ≥ 0, counting
    evaluations from ``n_eval`` and keeping the lowest point (``best_t``, ``best_v``); ``result``
    turns a step t into a :class:`LineSearchResult` (no decrease below φ(0) -> step 0)."""

    def __init__(self, phi, p0, n_eval):
        self.phi, self.p0, self.n_eval = phi, p0, n_eval
        self.s = -1.0 if p0.d1 > 0 else 1.0
        self.best_t, self.best_v = 0.0, p0.value

    def __call__(self, t):
        self.n_eval += 1
        p = self.phi(self.s * t)
        bad = math.isnan(p.value) or math.isnan(p.d1) or p.value == math.inf
        return p.value, self.s * p.d1, bad

    def keep(self, t, v, bad, strictly: bool = False):
        """Make (t, v) the best point if it is finite and at most (``strictly``: below) the best so far."""
        if not bad and (v < self.best_v if strictly else v <= self.best_v):
            self.best_t, self.best_v = t, v

    def result(self, t, v, reason):
        if t == 0.0 or not v <= self.p0.value:
            return LineSearchResult(0.0, self.p0.value, self.n_eval, "no_decrease")
        return LineSearchResult(self.s * t, v, self.n_eval, reason)

    def best_result(self, reason):
        return self.result(self.best_t, self.best_v, reason)


class _Bracket:
    """ψ′(lo) < 0 < ψ′(hi) (or ψ not finite at hi: ``hi_bad``), with ψ and ψ′ at both ends.

    For a piecewise-linear ψ, the ends give the two linear pieces through lo and hi.
    """

    def __init__(self, lo, v_lo, d_lo, hi, v_hi, d_hi, hi_bad):
        self.lo, self.v_lo, self.d_lo = lo, v_lo, d_lo
        self.hi, self.v_hi, self.d_hi, self.hi_bad = hi, v_hi, d_hi, hi_bad

    def closed(self, xtol) -> bool:
        """The bracket is narrower than the relative tolerance ``xtol``."""
        return self.hi - self.lo <= xtol * max(1.0, self.hi)

    def intersection(self) -> float:
        """Where the pieces through lo and hi cross (NaN when ψ is not finite at hi or they are parallel)."""
        if self.hi_bad or self.d_lo == self.d_hi:
            return math.nan
        return (self.v_hi - self.v_lo + self.d_lo * self.lo - self.d_hi * self.hi) / (self.d_lo - self.d_hi)

    def on_both_pieces(self, t, v, tol) -> bool:
        """ψ(t) = v lies on both pieces: t is the one breakpoint between lo and hi."""
        scale = tol * max(1.0, abs(v))
        return abs(v - (self.v_lo + self.d_lo * (t - self.lo))) <= scale and \
            abs(v - (self.v_hi + self.d_hi * (t - self.hi))) <= scale

    def narrow(self, t, v, d1, bad) -> bool:
        """Move the end on t's side of the sign change to t; returns whether it was hi."""
        if bad or d1 > 0.0:
            self.hi, self.v_hi, self.d_hi, self.hi_bad = t, v, d1, bad
            return True
        self.lo, self.v_lo, self.d_lo = t, v, d1
        return False


def _expansion_end(psi: _DescentLine, t, v, d1, bad, lo, v_lo, d_lo, max_step):
    """After an expansion trial at t: the result if the search ends there, a
    :class:`_Bracket` once ψ′ changes sign, else None (keep expanding)."""
    psi.keep(t, v, bad)
    if v == -math.inf or (not bad and d1 == 0.0):
        return psi.result(t, v, "converged")
    if bad or d1 > 0.0:
        return _Bracket(lo, v_lo, d_lo, t, v, d1, bad)
    if t >= max_step:
        return psi.best_result("max_step")
    return None


def piecewise_linear_search(
    phi: Callable[[float], LinePoint],
    *,
    start: LinePoint | None = None,
    max_step: float = MAX_STEP,
    xtol: float = 1e-13,
    max_evaluations: int = 200,
) -> LineSearchResult:
    """:func:`line_search` for a piecewise-linear φ: exact at a breakpoint in few evaluations.

    Same orientation, expansion (doubling from t = 1, the step
    :func:`line_search` takes without curvature), ``max_step``, ``"flat"`` and
    ``"plateau"`` rules, and never worse than α = 0.  Once the sign change of
    φ′ is bracketed by [lo, hi], it evaluates the intersection of the two
    linear pieces through lo and hi: when φ there equals both lines (one
    breakpoint in between), that breakpoint is the minimum of the bracket and
    the search stops; otherwise the point splits the bracket by the sign of
    φ′ (a new piece each time, so it ends after at most as many steps as the
    bracket has pieces; bisection guards steps that leave the bracket).
    A line function exposes it as ``phi.minimize(max_step)`` (see the driver).
    """
    p0, n_eval = _start(phi, start)
    if _is_stationary(p0):
        return LineSearchResult(0.0, p0.value, n_eval, "stationary")
    psi = _DescentLine(phi, p0, n_eval)
    end = _expand_by_doubling(psi, max_step, max_evaluations)
    if isinstance(end, LineSearchResult):
        return end
    return _shrink_by_intersections(psi, end, xtol, max_evaluations)


def _expand_by_doubling(psi: _DescentLine, max_step, max_evaluations):
    """The expansion of :func:`line_search` without curvature: doubling from t = 1.

    Returns the result if the search ends there, else the :class:`_Bracket` of ψ′'s sign change.
    """
    p0 = psi.p0
    lo, v_lo, d_lo = 0.0, p0.value, psi.s * p0.d1
    t, flat_from, t_prev = min(1.0, max_step), p0.value, 0.0
    while True:
        if psi.n_eval >= max_evaluations:
            return psi.best_result("max_evaluations")
        v, d1, bad = psi(t)
        end = _expansion_end(psi, t, v, d1, bad, lo, v_lo, d_lo, max_step)
        if end is not None:
            return end
        if v >= flat_from - _FLAT_TOL * max(1.0, abs(v)):
            if t_prev == 0.0 and v <= p0.value:
                return psi.result(t, v, "plateau")
            return psi.result(t_prev, flat_from, "flat")
        lo, v_lo, d_lo = t, v, d1
        flat_from, t_prev = v, t
        t = min(2.0 * t, max_step)


def _shrink_by_intersections(psi: _DescentLine, bracket: _Bracket, xtol, max_evaluations) -> LineSearchResult:
    """Shrink the bracket to the breakpoint of least φ: each trial is the intersection of the
    pieces through its ends (bisection when that leaves the bracket)."""
    while psi.n_eval < max_evaluations:
        t = bracket.intersection()
        if bracket.closed(xtol):
            break                             # a kink that rises on both sides (or rounding)
        if not (bracket.lo < t < bracket.hi):
            t = 0.5 * (bracket.lo + bracket.hi)
        v, d1, bad = psi(t)
        # strictly lower: near a kink at lo that rises, φ(t) rounds to φ(lo)
        psi.keep(t, v, bad, strictly=True)
        if v == -math.inf or (not bad and d1 == 0.0):
            break
        if not bad and not bracket.hi_bad and bracket.on_both_pieces(t, v, _FLAT_TOL):
            break                             # t is the breakpoint between the two pieces
        bracket.narrow(t, v, d1, bad)
    else:
        return psi.best_result("max_evaluations")
    return psi.best_result("converged")


def convex_piecewise_linear_search(
    phi: Callable[[float], LinePoint],
    *,
    start: LinePoint | None = None,
    max_step: float = MAX_STEP,
    first_step: float | None = None,
    xtol: float = 1e-13,
    max_evaluations: int = 200,
) -> LineSearchResult:
    """:func:`piecewise_linear_search` for a *convex* piecewise-linear φ, in fewer evaluations.

    The same minimum (φ convex: one minimum value), found faster:

    * the expansion starts at ``first_step`` (e.g. the previous line's step)
      instead of 1, and extrapolates the secant of φ′ (at most ×8, at least ×2);
    * once the sign change of φ′ is bracketed by [lo, hi], it alternates a
      secant step on φ′ (regula falsi with the Illinois rule: φ′ of a φ with
      many pieces looks like a smooth increasing function) with the
      intersection of the two linear pieces through lo and hi (which ends the
      search when φ there lies on both: one breakpoint in between, the
      minimum, as in :func:`piecewise_linear_search`).

    When φ does not decrease measurably at ``first_step`` (a plateau or a
    kink at 0), it defers to :func:`piecewise_linear_search` from t = 1, so
    the ``"plateau"`` step is that of :func:`line_search`.  Same results
    (:class:`LineSearchResult`), never worse than α = 0.
    """
    p0, n_start = _start(phi, start)
    if _is_stationary(p0):
        return LineSearchResult(0.0, p0.value, n_start, "stationary")
    if first_step is None or not (math.isfinite(first_step) and first_step > 0):
        return _deferred(phi, p0, n_start, max_step, xtol, max_evaluations)
    psi = _DescentLine(phi, p0, n_start)
    end = _expand_by_secants(psi, first_step, max_step, xtol, max_evaluations)
    if isinstance(end, LineSearchResult):
        return end
    return _shrink_by_secants(psi, end, xtol, max_evaluations)


def _deferred(phi, p0: LinePoint, n_eval: int, max_step, xtol, max_evaluations) -> LineSearchResult:
    """:func:`piecewise_linear_search` from ``p0``, counting the ``n_eval`` evaluations already made."""
    ref = piecewise_linear_search(phi, start=p0, max_step=max_step, xtol=xtol,
                                  max_evaluations=max_evaluations - n_eval)
    return LineSearchResult(ref.alpha, ref.value, ref.n_evaluations + n_eval, ref.reason)


def _expand_by_secants(psi: _DescentLine, first_step, max_step, xtol, max_evaluations):
    """The expansion of :func:`convex_piecewise_linear_search`: from ``first_step``, extrapolating
    the secant of ψ′ (at most ×8, at least ×2).

    Returns the result if the search ends there, else the :class:`_Bracket` of ψ′'s sign change.
    """
    p0 = psi.p0
    lo, v_lo, d_lo = 0.0, p0.value, psi.s * p0.d1
    t = min(max(first_step, 1e-12), max_step)
    first = True
    while True:
        if psi.n_eval >= max_evaluations:
            return psi.best_result("max_evaluations")
        v, d1, bad = psi(t)
        if first and not bad and d1 <= 0.0 and v >= p0.value - _FLAT_TOL * max(1.0, abs(v)):
            # no measurable decrease at the first trial: defer to the reference search
            return _deferred(psi.phi, p0, psi.n_eval, max_step, xtol, max_evaluations)
        first = False
        end = _expansion_end(psi, t, v, d1, bad, lo, v_lo, d_lo, max_step)
        if end is not None:
            return end
        if v >= v_lo - _FLAT_TOL * max(1.0, abs(v)):
            return psi.result(lo, v_lo, "flat")
        # secant of φ′ through lo and t, extrapolated to its root: between 2t and 8t
        grow = 2.0 * t
        if d1 > d_lo:
            root = t - d1 * (t - lo) / (d1 - d_lo)
            grow = min(max(grow, root), 8.0 * t)
        lo, v_lo, d_lo = t, v, d1
        t = min(grow, max_step)


def _illinois_secant(bracket: _Bracket, kept: int) -> float:
    """The root of ψ′'s secant through the bracket's ends, the end kept ``|kept|`` ≥ 2 times in a
    row weighed down (Illinois rule; ``kept`` > 0 for lo, < 0 for hi)."""
    dl, dh = bracket.d_lo, bracket.d_hi
    if kept >= 2:                             # lo kept: weigh it down
        dl *= 0.5 ** (kept - 1)
    elif kept <= -2:
        dh *= 0.5 ** (-kept - 1)
    return bracket.lo - dl * (bracket.hi - bracket.lo) / (dh - dl)


def _shrink_by_secants(psi: _DescentLine, bracket: _Bracket, xtol, max_evaluations) -> LineSearchResult:
    """Shrink the bracket alternating secant steps on ψ′ with intersections of the pieces through
    its ends, until a trial lies on both pieces (then only intersections, once a secant step
    finds no new piece)."""
    secant, use_secant = True, True
    kept = 0                                  # +k: lo kept k times in a row, -k: hi (Illinois rule)
    while psi.n_eval < max_evaluations:
        if bracket.closed(xtol):
            break
        t = math.nan
        secant = secant and use_secant
        if not bracket.hi_bad:
            t = _illinois_secant(bracket, kept) if secant else bracket.intersection()
        if not (bracket.lo < t < bracket.hi):
            t = 0.5 * (bracket.lo + bracket.hi)
        was_secant = secant
        secant = not secant
        v, d1, bad = psi(t)
        psi.keep(t, v, bad, strictly=True)
        if v == -math.inf or (not bad and d1 == 0.0):
            break
        if not bad and not bracket.hi_bad and not was_secant and bracket.on_both_pieces(t, v, _FLAT_TOL):
            break                             # t is the breakpoint between the two pieces
        if was_secant and not bad and d1 == (bracket.d_hi if d1 > 0.0 else bracket.d_lo):
            use_secant = False                # the secant step found no new piece: the bracket is
                                              # down to a few pieces, where intersections are exact
        if bracket.narrow(t, v, d1, bad):
            kept = kept + 1 if kept > 0 else 1
        else:
            kept = kept - 1 if kept < 0 else -1
    else:
        return psi.best_result("max_evaluations")
    return psi.best_result("converged")

"""The safeguarded line search on known one-dimensional functions."""

import math

import numpy as np
import pytest

from rankcore.objectives._base import LinePoint
from rankcore.push._line_search import MAX_STEP, line_search


def _lse_line(a, b, log=True):
    """φ(α) = log Σ_j e^{a_j + b_j α} (log-convex): exact derivatives."""
    a, b = np.asarray(a, float), np.asarray(b, float)

    def phi(alpha):
        x = a + b * alpha
        m = x.max()
        e = np.exp(x - m)
        s = e.sum()
        mean = (e * b).sum() / s
        var = (e * b * b).sum() / s - mean**2
        return LinePoint(alpha, m + math.log(s), mean, var)

    return phi


def test_rankboost_closed_form():
    """R(α) = W0 + W₊ e^{−α} + W₋ e^{α}: the minimizer is ½ ln(W₊/W₋)."""
    for w_plus, w_minus in [(3.0, 1.0), (0.2, 5.0), (1e-6, 1.0), (7.0, 7.0 + 1e-9)]:
        phi = _lse_line(np.log([0.5, w_plus, w_minus]), [0.0, -1.0, 1.0])
        result = line_search(phi, log_value=True)
        assert result.alpha == pytest.approx(0.5 * math.log(w_plus / w_minus), rel=1e-12, abs=1e-14)


def test_quadratic_without_second_derivative_uses_secant():
    phi = lambda a: LinePoint(a, (a - 2.5) ** 2, 2 * (a - 2.5), math.nan)
    result = line_search(phi, log_value=False)
    assert result.alpha == pytest.approx(2.5, rel=1e-12)
    assert result.n_evaluations < 15


def test_negative_direction():
    phi = lambda a: LinePoint(a, (a + 0.7) ** 4, 4 * (a + 0.7) ** 3, 12 * (a + 0.7) ** 2)
    assert line_search(phi, log_value=False).alpha == pytest.approx(-0.7, rel=1e-6)


def test_piecewise_linear_kink():
    """|α − 1.3| has no second derivative and a jump in φ′: bisection finds the kink."""
    phi = lambda a: LinePoint(a, abs(a - 1.3), 1.0 if a > 1.3 else -1.0, 0.0)
    result = line_search(phi, log_value=False)
    assert result.alpha == pytest.approx(1.3, abs=1e-12)


def test_asymptote_stops_where_the_function_is_flat():
    """log(1 + e^{−α}) decreases forever; the search stops once it is flat to machine precision."""
    phi = _lse_line([0.0, 0.0], [0.0, -1.0])
    result = line_search(phi, log_value=True)
    assert result.reason == "flat"
    assert 30 < result.alpha < 200 and result.value < 1e-13


def test_max_step():
    phi = lambda a: LinePoint(a, -a, -1.0, 0.0)           # unbounded below
    result = line_search(phi, log_value=False)
    assert result.alpha == MAX_STEP and result.reason == "max_step"


def test_stationary_start():
    phi = lambda a: LinePoint(a, a * a, 2 * a, 2.0)
    result = line_search(phi, log_value=False)
    assert result.alpha == 0.0 and result.reason == "stationary"


def test_never_worse_than_the_start():
    rng = np.random.default_rng(0)
    for _ in range(200):
        a, b = rng.normal(0, 3, 6), rng.normal(0, 2, 6)
        phi = _lse_line(a, b)
        start = phi(0.0).value
        result = line_search(phi, log_value=True)
        assert result.value <= start
        assert phi(result.alpha).value == pytest.approx(result.value, rel=1e-14, abs=1e-14)
        # at the minimizer the derivative vanishes (or the function is flat)
        if result.reason == "converged":
            assert abs(phi(result.alpha).d1) < 1e-8


def test_non_finite_start_is_an_error():
    with pytest.raises(FloatingPointError, match="not finite"):
        line_search(lambda a: LinePoint(a, math.nan, math.nan), log_value=True)


def test_plateau_takes_the_trial_step():
    """φ′(0) < 0 by a subgradient but φ constant along the line (ties): one unit step, φ unchanged."""
    phi = lambda a: LinePoint(a, 1.0, -0.5 if a == 0 else -1e-17, math.nan)
    result = line_search(phi, log_value=False)
    assert result.reason == "plateau" and result.alpha == 1.0 and result.value == 1.0


def test_no_plateau_step_for_smooth_objectives():
    """With curvature at 0 (a smooth objective at its optimum) a flat line is not a plateau."""
    phi = lambda a: LinePoint(a, 5.0, -1e-15, 2.0)
    assert line_search(phi, log_value=False).alpha == 0.0


def _pl_line(knots, slopes, value0=0.0):
    """A piecewise-linear φ with slope slopes[i] on [knots[i-1], knots[i]) (knots ascending, -inf/+inf implied)."""
    knots = np.asarray(knots, float)

    def phi(alpha):
        i = int(np.searchsorted(knots, alpha, side="right"))
        v, x = value0, 0.0
        # integrate the slopes from 0 to alpha
        pts = np.concatenate([[0.0], knots[(knots > min(0.0, alpha)) & (knots < max(0.0, alpha))], [alpha]])
        pts.sort()
        for a, b in zip(pts[:-1], pts[1:]):
            j = int(np.searchsorted(knots, 0.5 * (a + b), side="right"))
            v += (1.0 if alpha >= 0 else -1.0) * slopes[j] * (b - a)
        return LinePoint(alpha, v, slopes[i], math.nan)

    return phi


def test_piecewise_linear_search_is_exact_at_a_breakpoint():
    from rankcore.push._line_search import piecewise_linear_search
    phi = _pl_line([0.3, 2.7, 5.0], [-2.0, -1.0, 0.5, 3.0])
    res = piecewise_linear_search(phi)
    assert res.alpha == pytest.approx(2.7, abs=1e-12)
    assert res.reason == "converged" and res.n_evaluations < 10
    assert res.value <= line_search(phi, log_value=False).value + 1e-12
    # descending to the left: oriented
    res = piecewise_linear_search(_pl_line([-4.0, -1.5], [-1.0, 2.0, 1.0]))
    assert res.alpha == pytest.approx(-4.0, abs=1e-12)
    # plateau: φ′(0) < 0 by the subgradient, φ constant: the first trial step, as line_search
    flat = lambda a: LinePoint(a, 1.0, -1.0 if a == 0.0 else 0.0, math.nan)  # noqa: E731
    assert piecewise_linear_search(flat).reason == line_search(flat, log_value=False).reason
    # still decreasing at max_step
    res = piecewise_linear_search(_pl_line([], [-1.0]), max_step=100.0)
    assert res.alpha == 100.0 and res.reason == "max_step"
    # stationary
    assert piecewise_linear_search(_pl_line([0.0], [-1.0, 1.0])).reason in ("stationary", "no_decrease")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("first_step", [None, 1e-4, 0.01, 1.0, 50.0])
def test_convex_piecewise_linear_search_finds_the_minimum_from_any_first_step(seed, first_step):
    """Many small pieces (as the precision@k surrogates along a stump): the minimizing knot, exactly."""
    from rankcore.push._line_search import convex_piecewise_linear_search, piecewise_linear_search
    rng = np.random.default_rng(seed)
    knots = np.sort(rng.uniform(-3.0, 8.0, 150))
    slopes = np.sort(rng.uniform(-2.0, 2.0, 151))   # ascending: convex
    slopes[np.argmin(np.abs(slopes))] += 1e-3        # no exact zero slope
    phi = _pl_line(knots, slopes)
    res = convex_piecewise_linear_search(phi, first_step=first_step)
    ref = piecewise_linear_search(phi)
    i = int(np.searchsorted(slopes, 0.0))             # the knot where the slope turns positive
    assert res.alpha == pytest.approx(knots[i - 1], abs=1e-9)
    assert res.value <= ref.value + 1e-12 and res.value == pytest.approx(ref.value, abs=1e-12)
    assert res.reason == "converged"


def test_convex_piecewise_linear_search_edge_cases():
    from rankcore.push._line_search import convex_piecewise_linear_search, piecewise_linear_search
    flat = lambda a: LinePoint(a, 1.0, -1.0 if a == 0.0 else 0.0, math.nan)  # noqa: E731
    # a plateau defers to piecewise_linear_search: its step (1, as line_search), whatever the first step
    res = convex_piecewise_linear_search(flat, first_step=0.01)
    ref = piecewise_linear_search(flat)
    assert (res.alpha, res.reason) == (ref.alpha, ref.reason) and res.alpha == 1.0
    plateau = lambda a: LinePoint(a, 1.0, -1.0, math.nan)  # noqa: E731  (a subgradient that never rises)
    res = convex_piecewise_linear_search(plateau, first_step=0.01)
    assert (res.alpha, res.reason) == (1.0, "plateau") == (piecewise_linear_search(plateau).alpha, "plateau")
    res = convex_piecewise_linear_search(_pl_line([], [-1.0]), max_step=100.0, first_step=0.5)
    assert res.alpha == 100.0 and res.reason == "max_step"
    res = convex_piecewise_linear_search(_pl_line([-4.0, -1.5], [-1.0, 2.0, 1.0]), first_step=0.1)
    assert res.alpha == pytest.approx(-4.0, abs=1e-12)
    assert convex_piecewise_linear_search(_pl_line([0.0], [-1.0, 1.0]), first_step=3.0).alpha == 0.0
    # non-positive or non-finite first steps: piecewise_linear_search
    for bad in (0.0, -1.0, math.nan, math.inf):
        phi = _pl_line([0.3, 2.7, 5.0], [-2.0, -1.0, 0.5, 3.0])
        assert convex_piecewise_linear_search(phi, first_step=bad) == piecewise_linear_search(phi)

"""The exponential push objective's native line (φ from the line summary, and its minimum).

``ExpLine.minimize`` must be ``line_search(ExpLine, log_value=True)`` step for step (bitwise: the
same control flow on the same φ values), and ``ExpLine(α)`` the NumPy formulas of the summary.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.objectives._exp_line import ExpLine
from rankcore.push._line_search import MAX_STEP, line_search
from rankcore.registry import resolve


def _numpy_point(summary, values, d, r, log_g1, alpha):
    """φ, φ′, φ″ from the summary with NumPy (the formulas of the module doc)."""
    lp, ln = summary[:, 0], summary[:, 1]
    diff = values[:, None] - values[None, :]

    def softmax(x):
        top = np.max(x)
        if not np.isfinite(top):
            return -math.inf, np.zeros_like(x)
        e = np.exp(x - top)
        return float(top + math.log(e.sum())), e / e.sum()

    A, pi = softmax(lp - r * alpha * values)
    B, rho = softmax(ln + d * r * alpha * values)
    d1 = d * r * float(rho @ diff @ pi)
    var_p = 0.5 * float(pi @ (diff * diff) @ pi)
    var_n = 0.5 * float(rho @ (diff * diff) @ rho)
    return log_g1 + d * A + B, d1, d * r * r * var_p + d * d * r * r * var_n


def _summary(rng, V):
    values = np.sort(rng.choice(np.linspace(-3, 3, 200), size=V, replace=False))
    summary = rng.normal(size=(V, 2)) * 3
    summary[rng.random((V, 2)) < 0.15] = -np.inf           # a class absent at some values
    summary[0, 0] = rng.normal()                          # ... but not everywhere
    summary[-1, 1] = rng.normal()
    return summary, values


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from([1.0, 2.0, 4.0, 64.0]),
       st.sampled_from([1.0, 0.5, 3.0]))
def test_minimize_is_the_python_line_search_step_for_step(seed, V, d, r):
    rng = np.random.default_rng(seed)
    summary, values = _summary(rng, V)
    line = ExpLine(summary, values, d, r, 0.0)
    native = line.minimize(MAX_STEP)
    python = line_search(line, log_value=True, max_step=MAX_STEP)
    assert native == python                                  # alpha, value, evaluations, reason: bitwise


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.floats(-5, 5))
def test_points_match_numpy(seed, V, alpha):
    rng = np.random.default_rng(seed)
    summary, values = _summary(rng, V)
    d, r, log_g1 = 2.0, 1.0, 0.3
    p = ExpLine(summary, values, d, r, log_g1)(alpha)
    ref = _numpy_point(summary, values, d, r, log_g1, alpha)
    assert p.value == pytest.approx(ref[0], rel=1e-12, abs=1e-12)
    assert p.d1 == pytest.approx(ref[1], rel=1e-9, abs=1e-12)
    assert p.d2 == pytest.approx(ref[2], rel=1e-9, abs=1e-12)


def test_constant_direction_is_stationary_and_bad_summaries_are_refused():
    line = ExpLine(np.array([[0.5, -0.2]]), np.array([1.0]), 2.0, 1.0, 0.0)
    result = line.minimize(MAX_STEP)
    assert (result.alpha, result.reason) == (0.0, "stationary")
    with pytest.raises(ValueError, match="ExpLine"):
        ExpLine(np.zeros((3, 2)), np.zeros(2), 2.0, 1.0, 0.0)
    with pytest.raises(FloatingPointError, match="not finite"):
        ExpLine(np.array([[np.nan, 0.0], [0.0, 0.0]]), np.array([0.0, 1.0]), 2.0, 1.0, 0.0).minimize(MAX_STEP)


def test_the_objective_line_is_the_summary_line_and_minimizes_phi():
    """Through the objective: the line from a block's summary, against φ evaluated on the rows."""
    rng = np.random.default_rng(0)
    n = 300
    y = (rng.random(n) < 0.3).astype(np.int8)
    f = rng.normal(size=n)
    h = rng.choice([-0.5, 0.25, 1.0, 2.0], size=n)
    problem = resolve("objective", "push:exp,pow:2").bind(y)
    from rankcore.objectives._base import RowBlock

    block = RowBlock(y, np.ones(n), f)
    G = problem.reduce([block])
    values = np.unique(h)
    line = problem.line_from_summary(problem.block_line_summary(block, h, values, G), values, G)
    for alpha in (0.0, 0.3, -1.2):
        direct = problem.finish(problem.reduce([RowBlock(y, np.ones(n), f + alpha * h)]))
        assert line(alpha).value == pytest.approx(direct.value, rel=1e-12)
    best = line.minimize(MAX_STEP)
    assert best.reason == "converged" and abs(line(best.alpha).d1) < 1e-8

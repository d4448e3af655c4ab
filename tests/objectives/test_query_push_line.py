"""The exponential per-query push's line: φ exact, φ′ = ⟨∇J, h⟩, φ″ from the moments of h (Newton steps)."""

import numpy as np
import pytest

from _query_objective_reference import check_line_point
from rankcore.metrics import check_qid
from rankcore.objectives._query_push import QueryPush

PRICES = ["identity", "pow:3", "pow:1.5", "exp:0.5"]


def _data(seed, n=50, n_queries=6):
    """Rows not sorted by query, ties in scores and grades, a single-grade query, a zero weight."""
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n)
    y = rng.choice([0, 1, 2, 4], n).astype(float)
    y[qid == 0] = 1.0
    f = rng.integers(-6, 7, n) / 4.0
    w = rng.uniform(0.5, 2.0, n)
    w[3] = 0.0
    return y, qid, f, w


@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("price", PRICES)
@pytest.mark.parametrize("direction", ["leaves", "continuous"])
def test_query_push_line_exponential(price, gain_weighted, direction):
    for seed in range(3):
        y, qid, f, w = _data(seed)
        rng = np.random.default_rng(seed)
        h = rng.choice([-0.3, 0.0, 0.7, 1.1], y.shape[0]) if direction == "leaves" else rng.normal(size=y.shape[0])
        bound = QueryPush("exp", price, gain_weighted=gain_weighted).bind(y, check_qid(qid, y.shape[0]), w)
        line = bound.line(f, h)
        for alpha in (0.0, 0.35, -0.6):
            at = check_line_point(bound, line, f, h, alpha, tolerance=1e-13)
            eps = 1e-5
            fd2 = (line(alpha + eps).d1 - line(alpha - eps).d1) / (2 * eps)
            assert at.d2 == pytest.approx(fd2, rel=1e-5, abs=1e-8)
            assert at.d2 + at.d1 ** 2 >= -1e-12                 # R″/R ≥ 0: R is convex along the line


def test_query_push_line_fails_without_the_fix():
    """The exponential line gives φ″ (a Newton step), where the generic line leaves it NaN."""
    y, qid, f, w = _data(0)
    bound = QueryPush("exp", "pow:4").bind(y, check_qid(qid, y.shape[0]), w)
    assert np.isfinite(bound.line(f, np.arange(y.shape[0]) % 3 / 2.0)(0.2).d2)


@pytest.mark.parametrize("x", [[0.0, 1.0, 2.0], [-np.inf, 700.0, 699.0], [-np.inf, -np.inf], [-1e300, 5.0],
                               [745.0, -745.0, 0.0]])
def test_log_sum_exp_is_scipys(x):
    from scipy.special import logsumexp

    from rankcore.objectives._query_push import _log_sum_exp

    x = np.array(x)
    with np.errstate(divide="ignore"):
        expected = float(logsumexp(x))
    assert _log_sum_exp(x) == pytest.approx(expected, rel=1e-15, abs=0) or _log_sum_exp(x) == expected

"""The magnitude-preserving squared loss as a boosting objective."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankcore
from rankcore.objectives._base import RowBlock


def objective():
    return rankcore.get_registry().resolve("objective", "mp-squared")


def pairs_value(y, f, w=None):
    """(1/W²) Σ_{i,j} w_i w_j (y_i − y_j − (f_i − f_j))², with the pairs (O(n²) reference)."""
    w = np.ones_like(y) if w is None else w
    d = (y[:, None] - y[None, :]) - (f[:, None] - f[None, :])
    return float((w[:, None] * w[None, :] * d**2).sum() / w.sum() ** 2)


def pairs_gradient(y, f, w=None):
    """∂/∂f_i of the pair sum: −(4/W²) w_i Σ_j w_j (a_i − a_j), a = y − f (O(n²) reference)."""
    w = np.ones_like(y) if w is None else w
    a = y - f
    return -4.0 / w.sum() ** 2 * w * ((a[:, None] - a[None, :]) * w[None, :]).sum(axis=1)


def data(n=40, seed=0, weights=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, n).astype(float)
    f = rng.normal(size=n)
    w = rng.uniform(0.2, 3.0, n) if weights else None
    return y, f, w


def test_registered_as_a_graded_objective():
    obj = objective()
    assert obj.task == "graded" and not obj.log_value and obj.supports_sample_weight
    assert rankcore.get_registry().resolve("objective", "magnitude-preserving") == obj


@pytest.mark.parametrize("impl", ["reference", "fast"])
@pytest.mark.parametrize("weights", [False, True], ids=["unweighted", "weighted"])
def test_value_and_gradient_against_pairs(impl, weights):
    y, f, w = data(weights=weights)
    if impl == "reference":
        value, grad = pairs_value(y, f, w), pairs_gradient(y, f, w)
    else:
        value, grad = objective().bind(y, w).value_and_gradient(f)
    assert value == pytest.approx(pairs_value(y, f, w), rel=1e-12)
    np.testing.assert_allclose(grad, pairs_gradient(y, f, w), rtol=1e-10, atol=1e-14)


def test_the_o_n_identity():
    rng = np.random.default_rng(1)
    a = rng.normal(size=50)
    n = a.size
    assert ((a[:, None] - a[None, :]) ** 2).sum() == pytest.approx(2 * n * (a**2).sum() - 2 * a.sum() ** 2, rel=1e-12)


@pytest.mark.parametrize("weights", [False, True], ids=["unweighted", "weighted"])
def test_gradient_against_finite_differences(weights):
    y, f, w = data(n=25, seed=2, weights=weights)
    bound = objective().bind(y, w)
    _, grad = bound.value_and_gradient(f)
    eps = 1e-6
    fd = np.array([(bound.value(f + eps * e) - bound.value(f - eps * e)) / (2 * eps) for e in np.eye(f.size)])
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-9)


def test_line_is_an_exact_quadratic():
    y, f, w = data(seed=3, weights=True)
    h = np.random.default_rng(3).normal(size=y.size)
    line = objective().bind(y, w).line(f, h)
    p0 = line(0.0)
    for alpha in (-2.0, -0.3, 0.7, 5.0):
        expected = p0.value + p0.d1 * alpha + 0.5 * p0.d2 * alpha**2
        assert line(alpha).value == pytest.approx(expected, rel=1e-10, abs=1e-12)
        assert line(alpha).value == pytest.approx(pairs_value(y, f + alpha * h, w), rel=1e-10)
    v, d1, d2 = objective().line_derivatives(y, f, h, w)
    assert (v, d1, d2) == pytest.approx((p0.value, p0.d1, p0.d2), rel=1e-12)


def test_blocks_merge_to_the_whole():
    y, f, w = data(n=60, seed=4, weights=True)
    bound = objective().bind(y, w)
    h = np.random.default_rng(4).uniform(size=60)
    cuts = [0, 1, 17, 17, 40, 60]  # an empty block and a one-row block
    blocks = [RowBlock(y[a:b], w[a:b], f[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    G = bound.reduce(blocks)
    assert bound.finish(G).value == pytest.approx(bound.value(f), rel=1e-13)
    np.testing.assert_allclose(np.concatenate([bound.block_gradient(b, G) for b in blocks]),
                               bound.value_and_gradient(f)[1], rtol=1e-12, atol=1e-15)
    dirs = [h[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    p = bound.finish(bound.reduce(blocks, dirs, 0.4), with_direction=True)
    q = bound.line(f, h)(0.4)
    assert (p.value, p.d1, p.d2) == pytest.approx((q.value, q.d1, q.d2), rel=1e-12)


def test_large_offsets_do_not_cancel():
    # y ~ 1e9 with small spread: the raw-sum form 2nΣa² − 2(Σa)² would lose every digit.
    y, f, _ = data(seed=5)
    big = y + 1e9
    v_small, g_small = objective().bind(y, None).value_and_gradient(f)
    v_big, g_big = objective().bind(big, None).value_and_gradient(f)
    assert v_big == pytest.approx(v_small, rel=1e-6)
    np.testing.assert_allclose(g_big, g_small, rtol=1e-5, atol=1e-9)


@given(st.lists(st.floats(-100, 100), min_size=2, max_size=30), st.floats(-1e3, 1e3))
def test_shift_invariance_and_zero_gradient_sum(values, shift):
    y = np.array(values)
    f = np.cos(np.arange(y.size))
    v1, g1 = objective().bind(y, None).value_and_gradient(f)
    v2, _ = objective().bind(y, None).value_and_gradient(f + shift)
    assert v1 >= 0 and math.isclose(v1, v2, rel_tol=1e-9, abs_tol=1e-9)
    assert abs(g1.sum()) <= 1e-9 * max(1.0, np.abs(g1).sum())


@pytest.mark.parametrize("learner", ["stumps", "features"])
def test_the_boosting_driver_decreases_it(learner):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 4))
    y = np.floor(2 * X[:, 0] + np.sin(3 * X[:, 1]) + 0.3 * rng.normal(size=300))
    model = rankcore.boost(objective="mp-squared", learner=learner, n_iter=60).fit(X, y)
    values = model.objective_values_
    assert np.all(np.diff(values) <= 1e-12 * values[0])
    assert values[-1] < 0.5 * values[0]
    # the recorded value is the objective of the fitted scores
    assert values[-1] == pytest.approx(pairs_value(y, model.decision_function(X)), rel=1e-8)


def test_kernel_ranker_minimizes_the_same_loss():
    # Less regularization, lower MP risk on the training data (Tikhonov path).
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 2))
    y = np.floor(X[:, 0] * 2 + 0.2 * rng.normal(size=120))
    path = rankcore.KernelRanker(lam=np.geomspace(1, 1e-6, 12)).fit(X, y)
    f = path.decision_function(X)
    risks = [objective().bind(y, None).value(f[:, j]) for j in range(f.shape[1])]
    assert np.all(np.diff(risks) <= 1e-12)

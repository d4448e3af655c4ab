"""The push objective where its parts meet huge numbers: weights near 1e200, exponential prices of huge sums."""

import math

import numpy as np
import pytest

import rankcore
from rankcore.registry import resolve

PAIRWISE = [f"push:{loss},{price}" for loss in ("hinge", "sqhinge", "logistic") for price in ("identity", "pow:4")]


def _data(seed, n=30):
    rng = np.random.default_rng(seed)
    y = (np.arange(n) % 3 == 0).astype(np.int8)
    return y, rng.normal(size=n), rng.uniform(0.5, 2.0, n)


@pytest.mark.parametrize("spec", PAIRWISE)
@pytest.mark.parametrize("scale", [1e150, 1e200, 1e-200])
def test_scaling_every_weight_leaves_the_gradient_and_curvature(spec, scale):
    # weights are multiplicities: R scales by a constant, J = log R shifts, its derivatives stay. v·e^(log g′ − J)
    # underflowed to 0 at 1e200 (J holds log v twice over), a zero gradient.
    y, f, w = _data(1)
    objective = resolve("objective", spec)
    one, big = objective.bind(y, w), objective.bind(y, w * scale)
    value, grad = one.value_and_gradient(f)
    big_value, big_grad = big.value_and_gradient(f)
    assert np.all(grad != 0) and math.isfinite(big_value)
    np.testing.assert_allclose(big_grad, grad, rtol=1e-9)
    if one.has_hessian:
        np.testing.assert_allclose(big.value_gradient_hessian(f)[2], one.value_gradient_hessian(f)[2], rtol=1e-9)
    h = np.sign(grad) * -1.0
    for alpha in (0.0, 0.3):
        p, q = one.line(f, h)(alpha), big.line(f, h)(alpha)
        assert q.d1 == pytest.approx(p.d1, rel=1e-9)
        if math.isfinite(p.d2):
            assert q.d2 == pytest.approx(p.d2, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_a_fit_with_huge_uniform_weights_is_the_fit_without_them(loss):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0.3).astype(int)
    plain = rankcore.boost(loss=loss, price="pow:4", n_iter=15, early_stopping=False).fit(X, y)
    heavy = rankcore.boost(loss=loss, price="pow:4", n_iter=15, early_stopping=False).fit(
        X, y, sample_weight=np.full(60, 1e200))
    assert heavy.n_iter_ == plain.n_iter_ > 1
    np.testing.assert_allclose(heavy.decision_function(X), plain.decision_function(X), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("gap", [30.0, 37.0, 45.0, 100.0, 600.0])
def test_exp_price_gradient_where_its_log_passes_1e16(gap):
    # one positive at 0, one negative at `gap`: J = e^gap, dJ/df = ±e^gap. log g′ + log L − log g lost log L
    # to rounding once log g = L passed 1e16 (the negative's gradient came out as 1).
    objective = resolve("objective", "push:exp,exp:1")
    y, f = np.array([1, 0], dtype=np.int8), np.array([0.0, gap])
    grad = objective.gradient(y, f)
    np.testing.assert_allclose(grad, [-math.exp(gap), math.exp(gap)], rtol=1e-12)


def test_exp_price_gradient_with_heavy_positives():
    objective = resolve("objective", "push:exp,exp:1")
    grad = objective.gradient(np.array([1, 0], dtype=np.int8), np.zeros(2), np.array([1e17, 1.0]))
    np.testing.assert_allclose(grad, [-1e17, 1e17], rtol=1e-12)


def test_exp_price_overflow_is_an_infinite_objective_not_a_perfect_one():
    objective = resolve("objective", "push:exp,exp:1")
    assert objective(np.array([1, 0], dtype=np.int8), np.array([0.0, 750.0])) == math.inf
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    w = np.where(y == 1, 1e308, 1.0)                 # the positives' weights sum past the largest float
    with pytest.raises(FloatingPointError, match="not finite"):
        rankcore.boost(loss="exp", price="exp:1", n_iter=5).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("spec", ["identity", "pow:1.5", "pow:4", "pow:64", "exp:0.5", "exp:1", "exp:1000"])
def test_a_prices_elasticities_are_its_log_forms_difference(spec):
    price = resolve("price", spec)
    log_r = np.linspace(-30.0, 3.0, 67)          # where the difference of the log forms is still exact enough
    with np.errstate(divide="ignore"):
        first = price.log_derivative(log_r) + log_r - price.log_value(log_r)
        second = price.log_second_derivative(log_r) + 2.0 * log_r - price.log_value(log_r)
    np.testing.assert_allclose(price.log_elasticity(log_r), first, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(price.log_second_elasticity(log_r), second, rtol=1e-9, atol=1e-9)



def test_gradient_past_the_overflow_is_refused_not_nan():
    # a negative 800 above the positives: g(L) = e^(2 L) with L ~ e^800 overflows, and the exp kernel's
    # log-space weights took inf - inf: objective.gradient returned NaN without a word
    y = np.array([1, 1, 0, 0])
    objective = resolve("objective", "push:exp,exp:2")
    near = objective.gradient(y, np.array([0.0, 0.0, 5.0, 0.0]))
    assert np.all(np.isfinite(near)) and near[2] > 0 > near[0]
    with pytest.raises(FloatingPointError, match=r"push:exp,exp:2.*gradient is not finite at these scores"):
        objective.gradient(y, np.array([0.0, 0.0, 800.0, 0.0]))

"""The contract checks of rankcore.testing catch broken losses, prices, learners and objectives."""

import numpy as np
import pytest

import rankcore
from rankcore.learners import Stumps
from rankcore.learners._threshold import ThresholdLayout
from rankcore.losses import Hinge
from rankcore.prices import Power
from rankcore.testing import _learners, _losses, _objectives, _prices


def _run(checks, component):
    rng = np.random.default_rng(0)
    for check in checks:
        check(component, rng)


class WrongDerivativePrice(Power):
    name = "test-wrong-derivative"

    def derivative(self, r):
        return 2.0 * super().derivative(r)


class OverflowingLogPrice(Power):
    name = "test-overflowing"

    def log_value(self, log_r):                   # written naively: exp, power, log -> inf for large r
        with np.errstate(over="ignore"):
            return np.log(np.power(np.exp(np.asarray(log_r, dtype=float)), self.p))


class DefaultLogPrice(Power):
    name = "test-default-log"

    def log_value(self, log_r):                   # the base class's: stable beyond the overflow
        return rankcore.Price.log_value(self, log_r)


class NotConvexPrice(rankcore.Price):
    name = "test-sqrt"

    def value(self, r):
        return np.sqrt(np.asarray(r, dtype=float))

    def derivative(self, r):
        with np.errstate(divide="ignore"):
            return 0.5 / np.sqrt(np.asarray(r, dtype=float))


class DishonestHomogeneous(rankcore.Price):
    name = "test-dishonest"
    homogeneous_degree = 2.0

    def value(self, r):
        r = np.asarray(r, dtype=float)
        return r + r**2

    def derivative(self, r):
        return 1 + 2 * np.asarray(r, dtype=float)


@pytest.mark.parametrize("price, check, message", [
    (WrongDerivativePrice(p=3), _prices.check_price_derivatives, "g' vs finite differences"),
    (NotConvexPrice(), _prices.check_price_nonnegative_increasing_convex, "not convex"),
    (DishonestHomogeneous(), _prices.check_price_homogeneous_degree, "homogeneous_degree=2.0 is wrong"),
    (OverflowingLogPrice(p=64), _prices.check_price_log_forms_large, r"log_value \(log form\) is -?inf at log r = "),
])
def test_price_checks_catch(price, check, message):
    with pytest.raises(AssertionError, match=message):
        check(price, np.random.default_rng(0))


def test_price_default_log_form_passes_where_the_naive_one_overflows():
    price = DefaultLogPrice(p=64)
    _prices.check_price_log_forms_large(price, np.random.default_rng(0))
    _prices.check_price_log_forms(price, np.random.default_rng(0))
    log_r = np.array([0.5, 20.0, 900.0])
    np.testing.assert_allclose(price.log_value(log_r), 64 * log_r, rtol=1e-12)


class WrongSumsHinge(Hinge):
    name = "test-wrong-sums"

    def negative_sums(self, f_pos, w_pos, f_neg, *, n_threads=1):
        L, D = super().negative_sums(f_pos, w_pos, f_neg, n_threads=n_threads)
        return L * (1 + 1e-6), D


class NotABoundLoss(rankcore.Loss):
    name = "test-half-hinge"

    def value(self, z):
        return 0.5 * np.maximum(0.0, 1.0 - np.asarray(z, dtype=float))

    def derivative(self, z):
        return np.where(np.asarray(z) < 1.0, -0.5, 0.0)


def test_loss_checks_catch():
    with pytest.raises(AssertionError, match="pairwise sum L differs"):
        _losses.check_loss_pairwise_sums(WrongSumsHinge(), np.random.default_rng(0))
    with pytest.raises(AssertionError, match="not an upper bound"):
        _losses.check_loss_shape(NotABoundLoss(), np.random.default_rng(0))
    _run(_losses.CHECKS, Hinge())                                # and the real one passes


class OffByOneLayout(ThresholdLayout):
    def evaluate(self, ranker, encoded):
        return (encoded[ranker.feature] >= self.bin_of(ranker)).astype(np.float64)


class OffByOneStumps(Stumps):
    name = "test-off-by-one"

    def prepare(self, X, **kw):
        layout = super().prepare(X, **kw)
        return OffByOneLayout(layout.edges)


def test_learner_checks_catch():
    with pytest.raises(AssertionError, match="evaluate and predict differ"):
        _learners.check_learner_evaluate_matches_predict(OffByOneStumps(), np.random.default_rng(0))
    _run(_learners.CHECKS, Stumps())


class WrongGradient(rankcore.Objective):
    name = "test-wrong-gradient"

    def value_and_gradient(self, y, scores, sample_weight=None):
        w = np.ones_like(scores) if sample_weight is None else sample_weight
        return float((w * (scores - y) ** 2).sum()), 3.0 * w * (scores - y)     # should be 2


class IgnoresWeights(rankcore.Objective):
    name = "test-ignores-weights"

    def value_and_gradient(self, y, scores, sample_weight=None):
        return float(((scores - y) ** 2).sum()), 2.0 * (scores - y)


def test_objective_checks_catch():
    with pytest.raises(AssertionError, match="gradient vs finite differences"):
        _objectives.check_objective_gradient_finite_differences(WrongGradient(), np.random.default_rng(0))
    with pytest.raises(AssertionError, match="weighted value"):
        _objectives.check_objective_sample_weight_multiplicity(IgnoresWeights(), np.random.default_rng(0))
    _run(_objectives.CHECKS, rankcore.resolve("objective", "push:exp,pow:4"))

"""Objective curvature (value_gradient_hessian): pairwise reference, finite differences, extremes, plugins."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankcore
from rankcore.objectives._base import HESSIAN_FLOOR, RowBlock
from rankcore.objectives._push import BoundPairwisePush
from rankcore.registry import register_plugin, resolve, unregister_plugin
from rankcore.testing import _objectives

LOSSES = ["exp", "logistic", "sqhinge"]
PRICES = ["identity", "pow:1.5", "pow:4", "pow:64", "exp:0.5"]
SPECS = [f"push:{loss},{price}" for loss in LOSSES for price in PRICES]


def _data(seed, n=24, ties=False, weights=True):
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int8)
    y[rng.choice(n, n // 3, replace=False)] = 1
    # ties: scores on a grid of quarters, so that differences of exactly 1 (the hinge kinks) occur too
    f = rng.integers(-4, 5, n) / 4.0 if ties else rng.normal(size=n)
    w = rng.uniform(0.5, 2.0, n) if weights else None
    return y, f, w


def reference_push_curvature(objective, y, f, w):
    """(J, ∇J, diag ∇²R / R) with every pair formed: O(I·K) NumPy, straight from the definitions."""
    loss, price = objective.loss_component, objective.price_component
    w = np.ones(y.shape[0]) if w is None else w
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    z = f[pos][None, :] - f[neg][:, None]                 # (K, I)
    wi, vk = w[pos][None, :], w[neg]
    L = (wi * loss.value(z)).sum(axis=1)
    D = (wi * loss.derivative(z)).sum(axis=1)
    D2 = (wi * loss.second_derivative(z)).sum(axis=1)      # Σ_i w_i ℓ″
    R = float((vk * price.value(L)).sum())
    g1 = vk * price.derivative(L) / R
    with np.errstate(divide="ignore", invalid="ignore"):
        g2 = np.where(L > 0, vk * price.second_derivative(L) / R, 0.0)
    grad = np.zeros(y.shape[0])
    hess = np.zeros(y.shape[0])
    d1 = loss.derivative(z)
    grad[pos] = w[pos] * (g1[:, None] * d1).sum(axis=0)
    grad[neg] = -g1 * D
    hess[pos] = (w[pos] ** 2 * (g2[:, None] * d1 * d1).sum(axis=0)
                 + w[pos] * (g1[:, None] * loss.second_derivative(z)).sum(axis=0))
    hess[neg] = g2 * D * D + g1 * D2
    return math.log(R), grad, hess


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
@pytest.mark.parametrize("spec", [s for s in SPECS if "pow:64" not in s])
def test_push_curvature_matches_pairwise_reference(spec, ties):
    objective = resolve("objective", spec)
    for seed in range(3):
        y, f, w = _data(seed, ties=ties, weights=seed != 1)
        value, grad, hess = objective.bind(y, w).value_gradient_hessian(f)
        ref_value, ref_grad, ref_hess = reference_push_curvature(objective, y, f, w)
        assert value == pytest.approx(ref_value, rel=1e-12)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-14 * np.abs(ref_grad).max())
        np.testing.assert_allclose(hess, np.maximum(ref_hess, HESSIAN_FLOOR), rtol=1e-9,
                                   atol=1e-13 * np.abs(ref_hess).max())


@pytest.mark.parametrize("spec", SPECS)
def test_push_curvature_is_r_second_derivative_over_r_by_finite_differences(spec):
    """h − g² is the exact diagonal of ∇²J (central differences of ∇J along e_n)."""
    objective = resolve("objective", spec)
    y, f, w = _data(7, n=18)
    bound = objective.bind(y, w)
    _, grad, hess = bound.value_gradient_hessian(f)
    eps = 1e-6
    fd = np.empty_like(f)
    for n in range(f.shape[0]):
        e = np.zeros_like(f)
        e[n] = eps
        fd[n] = (bound.value_and_gradient(f + e)[1][n] - bound.value_and_gradient(f - e)[1][n]) / (2 * eps)
    exact = hess - grad * grad
    np.testing.assert_allclose(exact, fd, rtol=1e-4, atol=1e-6 * max(1.0, np.abs(hess).max()))


@pytest.mark.parametrize("spec", [s for s in SPECS if s.startswith("push:exp")])
def test_exp_closed_form_equals_pairwise_path(spec):
    objective = resolve("objective", spec)
    y, f, w = _data(3)
    fast = objective.bind(y, w)
    slow = BoundPairwisePush(objective, y, w, objective.loss_component, objective.price_component)
    _, g1, h1 = fast.value_gradient_hessian(f)
    _, g2, h2 = slow.value_gradient_hessian(f)
    np.testing.assert_allclose(g1, g2, rtol=1e-11, atol=1e-15)
    np.testing.assert_allclose(h1, h2, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("spec", ["push:exp,pow:64", "push:exp,pow:4", "push:exp,exp:2", "push:logistic,pow:64",
                                  "push:sqhinge,pow:64", "mp-squared"])
def test_curvature_finite_and_positive_at_extreme_scores(spec):
    objective = resolve("objective", spec)
    y, _, _ = _data(2, n=40, weights=False)
    if objective.task == "graded":
        y = y.astype(np.float64)
    spread = np.linspace(0, 1, y.shape[0])
    for f in (np.where(y == 0, 50.0, -50.0) + spread,      # every negative on top: R ≈ e^{>700}
              np.where(y == 0, -50.0, 50.0) + spread,      # perfectly ranked: R tiny
              np.where(np.arange(y.shape[0]) == np.flatnonzero(y == 0)[0], 200.0, 0.0)):  # one negative dominates
        value, grad, hess = objective.bind(y).value_gradient_hessian(f)
        assert math.isfinite(value) or value == -math.inf, spec     # −inf: a hinge-type R reached 0
        assert np.isfinite(grad).all() and np.isfinite(hess).all(), spec
        assert (hess >= HESSIAN_FLOOR).all(), spec


def test_dominant_negative_keeps_a_bounded_newton_step():
    """The reason for R″/R: where one negative dominates J is nearly linear, but −g/h stays 1/(d r)."""
    objective = resolve("objective", "push:exp,pow:64")
    y, _, _ = _data(4, n=30, weights=False)
    top = np.flatnonzero(y == 0)[0]
    f = np.zeros(y.shape[0])
    f[top] = 3.0
    _, grad, hess = objective.bind(y).value_gradient_hessian(f)
    assert grad[top] / hess[top] == pytest.approx(1 / 64, rel=1e-9)
    assert hess[top] - grad[top] ** 2 < 1e-6 * hess[top]           # J″ itself has (nearly) vanished


@given(seed=st.integers(0, 2**31 - 1), n=st.integers(4, 30), p=st.sampled_from([1.0, 2.0, 4.0, 64.0]),
       loss=st.sampled_from(LOSSES), shift=st.integers(-400, 400))
def test_curvature_invariants(seed, n, p, loss, shift):
    """Finite, ≥ the floor, shift invariant; with the exp loss J is convex, so h = J″ + g² ≥ g²."""
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int8)
    y[rng.choice(n, rng.integers(1, n), replace=False)] = 1
    f = rng.integers(-6, 7, n) / 4.0          # quarters and shift/4: exact differences, so the sqhinge kinks
    shift = shift / 4.0                       # (ℓ″ jumps at z = 1) are where the shifted scores have them too
    bound = resolve("objective", f"push:{loss},pow:{p}").bind(y)
    value, grad, hess = bound.value_gradient_hessian(f)
    assert np.isfinite(hess).all() and (hess >= HESSIAN_FLOOR).all()
    if loss == "exp":
        assert (hess >= grad * grad * (1 - 1e-9) - 1e-12).all()
    v2, g2, h2 = bound.value_gradient_hessian(f + shift)
    assert v2 == pytest.approx(value, rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(h2, hess, rtol=1e-6, atol=1e-9 * hess.max())


def test_mp_squared_curvature_is_exact():
    objective = resolve("objective", "mp-squared")
    rng = np.random.default_rng(0)
    y, f, w = rng.integers(0, 4, 15).astype(float), rng.normal(size=15), rng.uniform(0.5, 2, 15)
    bound = objective.bind(y, w)
    _, grad, hess = bound.value_gradient_hessian(f)
    eps = 1e-5
    for n in range(15):
        e = np.zeros(15)
        e[n] = eps
        fd = (bound.value_and_gradient(f + e)[1][n] - bound.value_and_gradient(f - e)[1][n]) / (2 * eps)
        assert hess[n] == pytest.approx(fd, rel=1e-7)


@pytest.mark.parametrize("spec", ["prec@k-avg:5", "prec@k-max:0.2", "push:hinge,pow:4", "push:hinge,identity"])
def test_piecewise_linear_objectives_declare_no_curvature(spec):
    objective = resolve("objective", spec)
    y, f, _ = _data(0, weights=False)
    bound = objective.bind(y)
    assert bound.has_hessian is False
    with pytest.raises(NotImplementedError, match="no curvature"):
        bound.value_gradient_hessian(f)


def test_blocked_curvature_equals_whole_vector():
    objective = resolve("objective", "push:exp,exp:0.5")
    y, f, w = _data(5, n=40)
    bound = objective.bind(y, w)
    cuts = [0, 1, 13, 40]
    blocks = [RowBlock(y[a:b], w[a:b], f[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    G = bound.reduce(blocks)
    h_blocks = np.concatenate([bound.block_gradient_hessian(b, G)[1] for b in blocks])
    np.testing.assert_allclose(h_blocks, bound.value_gradient_hessian(f)[2], rtol=1e-12)


# ----------------------------------------------------------------------
# Plugin objectives get the curvature forwarded
# ----------------------------------------------------------------------
class PairwiseSquaredWithCurvature(rankcore.Objective):
    """Σ_{i pos, k neg} (1 − (f_i − f_k))², with its exact diagonal Hessian 2K (positives), 2I (negatives)."""

    name = "test-pairsq-curv"
    supports_sample_weight = False

    def value_and_gradient(self, y, scores, sample_weight=None):
        pos, neg = scores[y == 1], scores[y == 0]
        I, K, s_p, s_n = pos.size, neg.size, pos.sum(), neg.sum()
        value = K * ((1 - pos) ** 2).sum() + I * (neg ** 2).sum() + 2 * (I - s_p) * s_n
        grad = np.empty_like(scores)
        grad[y == 1] = -2 * (K * (1 - pos) + s_n)
        grad[y == 0] = 2 * (I * neg + (I - s_p))
        return float(value), grad

    def value_gradient_hessian(self, y, scores, sample_weight=None):
        value, grad = self.value_and_gradient(y, scores, sample_weight)
        return value, grad, np.where(y == 1, 2.0 * np.count_nonzero(y == 0), 2.0 * np.count_nonzero(y == 1))


class BrokenCurvature(PairwiseSquaredWithCurvature):
    name = "test-broken-curv"

    def value_gradient_hessian(self, y, scores, sample_weight=None):
        value, grad = self.value_and_gradient(y, scores, sample_weight)
        return value, grad, np.full(scores.shape[0] + 1, 1.0)


class NanCurvature(PairwiseSquaredWithCurvature):
    name = "test-nan-curv"

    def value_gradient_hessian(self, y, scores, sample_weight=None):
        value, grad = self.value_and_gradient(y, scores, sample_weight)
        return value, grad, np.full(scores.shape[0], np.nan)


class WrongGradientCurvature(PairwiseSquaredWithCurvature):
    name = "test-wrong-grad-curv"

    def value_gradient_hessian(self, y, scores, sample_weight=None):
        value, grad, hess = super().value_gradient_hessian(y, scores, sample_weight)
        return value, grad, hess

    def value_and_gradient(self, y, scores, sample_weight=None):
        value, grad = super().value_and_gradient(y, scores, sample_weight)
        return value, 1.5 * grad


def test_plugin_objective_curvature_is_forwarded():
    class Plugin:
        @rankcore.hookimpl
        def rankcore_register_objectives(self):
            return [PairwiseSquaredWithCurvature]

    register_plugin(Plugin(), name="curv-test")
    try:
        objective = resolve("objective", "test-pairsq-curv")
        y, f, _ = _data(1, weights=False)
        bound = objective.bind(y)
        assert bound.has_hessian
        _, _, hess = bound.value_gradient_hessian(f)
        assert hess[y == 1] == pytest.approx(2 * np.count_nonzero(y == 0))
        rankcore.testing.check_component("objective", "test-pairsq-curv")
    finally:
        unregister_plugin("curv-test")
    assert resolve("objective", "prec@k-avg:3").bind(_data(1)[0]).has_hessian is False


@pytest.mark.parametrize("cls, message", [
    (BrokenCurvature, "hessian has shape"),
    (NanCurvature, "non-finite hessian"),
])
def test_plugin_curvature_is_validated(cls, message):
    y, f, _ = _data(1, weights=False)
    with pytest.raises(ValueError, match=message):
        cls().bind(y).value_gradient_hessian(f)


def test_curvature_check_catches_a_wrong_gradient():
    with pytest.raises(AssertionError, match="finite differences"):
        _objectives.check_objective_curvature(WrongGradientCurvature(), np.random.default_rng(0))


@pytest.mark.parametrize("spec", ["push:exp,pow:4", "push:exp,exp:0.5", "push:sqhinge,pow:4"])
def test_curvature_does_not_depend_on_threads(spec):
    rng = np.random.default_rng(9)
    n = 300_000                                  # above the kernels' parallel threshold
    y = (rng.random(n) < 0.05).astype(np.int8)
    f = rng.normal(size=n)
    objective = resolve("objective", spec)
    one = objective.bind(y, n_threads=1).value_gradient_hessian(f)
    two = objective.bind(y, n_threads=2).value_gradient_hessian(f)
    assert one[0] == two[0]
    np.testing.assert_array_equal(one[1], two[1])
    np.testing.assert_array_equal(one[2], two[2])


def test_loss_curvature_check_catches_wrong_sums():
    from rankcore.losses import SquaredHinge
    from rankcore.testing import _losses

    class WrongCurvature(SquaredHinge):
        name = "test-wrong-curvature"

        def curvature_sums(self, f_pos, w_pos, f_neg, c1_neg, c2_neg, *, n_threads=1):
            P, N = super().curvature_sums(f_pos, w_pos, f_neg, c1_neg, c2_neg, n_threads=n_threads)
            return P, N * (1 + 1e-6)

    with pytest.raises(AssertionError, match="curvature sum N differs"):
        _losses.check_loss_curvature_sums(WrongCurvature(), np.random.default_rng(0))

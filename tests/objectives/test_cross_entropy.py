"""objective="cross-entropy": soft labels in [0, 1] against σ(score), against a plain NumPy reference."""

import math

import numpy as np
import pytest

import rankcore
from rankcore.base import resolve_parameter


def _reference(y, f, w):
    """The loss row by row in plain Python, its gradient and curvature, as written in the module docs."""
    W = float(sum(w))
    value, grad, hess = 0.0, [], []
    for r, s, v in zip(y, f, w):
        p = 1.0 / (1.0 + math.exp(-s))
        value += v * (math.log1p(math.exp(s)) - r * s) if s < 30 else v * (s + math.log1p(math.exp(-s)) - r * s)
        grad.append(v * (p - r) / W)
        hess.append(v * p * (1.0 - p) / W)
    return value / W, np.array(grad), np.array(hess)


@pytest.mark.parametrize("seed", range(4))
def test_value_gradient_curvature_and_line_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    n = 57
    y = rng.random(n)
    y[:5] = [0.0, 1.0, 0.0, 1.0, 0.5]                 # hard labels and a tie of scores below
    f = rng.normal(scale=3.0, size=n)
    f[5:8] = 0.25
    f[8] = 40.0                                      # saturated either way: no overflow
    f[9] = -40.0
    w = rng.random(n) + 0.1
    objective = resolve_parameter("objective", "objective", "cross-entropy")
    value, grad, hess = objective.value_gradient_hessian(y, f, w)
    ref_value, ref_grad, ref_hess = _reference(y, f, w)
    assert value == pytest.approx(ref_value, rel=1e-12)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(hess, ref_hess, rtol=1e-9, atol=1e-300)
    h = rng.normal(size=n)
    v0, d1, d2 = objective.line_derivatives(y, f, h, w)
    assert v0 == pytest.approx(ref_value, rel=1e-12)
    assert d1 == pytest.approx(float(ref_grad @ h), rel=1e-10)
    assert d2 == pytest.approx(float(ref_hess @ (h * h)), rel=1e-10)
    eps = 1e-6                                       # the derivatives are those of the value along h
    plus = objective.value_gradient_hessian(y, f + eps * h, w)[0]
    minus = objective.value_gradient_hessian(y, f - eps * h, w)[0]
    assert (plus - minus) / (2 * eps) == pytest.approx(d1, rel=1e-5, abs=1e-9)


def test_unit_weights_are_the_default_and_the_minimum_is_the_labels_log_odds():
    y = np.array([0.2, 0.5, 0.9])
    objective = resolve_parameter("objective", "objective", "xentropy")
    assert objective.spec == "cross-entropy"
    at_truth = np.log(y / (1 - y))
    _, grad, _ = objective.value_gradient_hessian(y, at_truth, None)
    np.testing.assert_allclose(grad, 0.0, atol=1e-15)
    assert objective(y, at_truth) < objective(y, at_truth + 0.1)


@pytest.mark.parametrize("labels, message", [
    ([0.0, 1.5, 0.2], "probabilities in \\[0, 1\\], got 1.5 at row 1"),
    ([0.0, -0.1, 0.2], "got -0.1 at row 1"),
])
def test_labels_outside_zero_one_are_refused_by_name(labels, message):
    objective = resolve_parameter("objective", "objective", "cross-entropy")
    with pytest.raises(ValueError, match=message):
        objective.bind(np.array(labels))


def test_a_fit_within_queries_refuses_grades_above_one_and_fits_soft_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    qid = np.repeat(np.arange(20), 10)
    soft = 1.0 / (1.0 + np.exp(-2.0 * X[:, 0]))
    with pytest.raises(ValueError, match="reads labels as probabilities, so grades must be <= 1, got 2.0 at row 0"):
        rankcore.boost(objective="cross-entropy", learner="trees").fit(X, np.r_[2.0, soft[1:]], qid=qid)
    model = rankcore.boost(objective="cross-entropy", learner="trees", n_iter=30, random_state=0).fit(X, soft,
                                                                                                      qid=qid)
    assert np.corrcoef(model.decision_function(X), X[:, 0])[0, 1] > 0.9


def test_the_component_passes_the_plugin_checks():
    from rankcore.testing import check_component

    check_component("objective", "cross-entropy")

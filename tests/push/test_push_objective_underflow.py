"""The pairwise push objective where every pair is far apart: its summed losses underflow to subnormal numbers.

Then the weights g′(L)/R overflow while the sums L, L′ underflow; their
products are formed in logs (rankcore.objectives._push).  The references
below use the logistic loss's tail, ℓ(z) ≈ e^{−z}/ln 2 (exact to e^{−2z}),
where log R is a log-sum-exp of the margins and every derivative a softmax
average -- computed here without the objective's code.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from rankcore.registry import resolve


def _far_apart(margin, seed=0, n_pos=4, n_neg=6):
    """Labels and scores with every positive ``margin`` (± 1) above every negative."""
    rng = np.random.default_rng(seed)
    y = np.array([1] * n_pos + [0] * n_neg, dtype=np.int8)
    f = np.where(y == 1, margin, 0.0) + rng.uniform(-1, 1, y.shape[0])
    return y, f


def _margins(y, f):
    return f[y == 1][None, :] - f[y == 0][:, None]          # (negatives, positives)


@pytest.mark.parametrize("margin", [30.0, 700.0, 725.0, 735.0])
def test_identity_price_line_derivatives_are_the_softmax_averages(margin):
    # from a margin of about 705 R is subnormal (below 2^-1022); up to about 740 its sums keep enough bits
    # (beyond, they lose them one by one, and past 745 every loss is 0: the objective is -inf, its floor)
    # R = Σ_k Σ_i ℓ(z_ik) ≈ Σ e^{−z}/ln 2, so φ′(α) = −Σ softmax(−z)·Δh and φ″ = its variance
    y, f = _far_apart(margin)
    h = np.random.default_rng(1).normal(size=y.shape[0])
    bound = resolve("objective", "push:logistic,identity").bind(y)
    z, dh = _margins(y, f).ravel(), _margins(y, h).ravel()
    w = softmax(-z)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        point = bound.line(f, h)(0.0)
        value, grad = bound.value_and_gradient(f)
    assert point.value == pytest.approx(logsumexp(-z) - math.log(math.log(2.0)), rel=1e-9)
    assert point.d1 == pytest.approx(-np.sum(w * dh), rel=1e-4)
    assert point.d2 == pytest.approx(np.sum(w * dh**2) - np.sum(w * dh) ** 2, rel=1e-4)
    # ∂J/∂f_i = −Σ_k softmax(−z)_ik for a positive, +Σ_i for a negative
    W = softmax(-_margins(y, f))
    assert value == pytest.approx(point.value, rel=1e-12)
    np.testing.assert_allclose(grad[y == 1], -W.sum(axis=0), rtol=1e-4)
    np.testing.assert_allclose(grad[y == 0], W.sum(axis=1), rtol=1e-4)


def test_subnormal_losses_give_the_same_derivatives_as_moderate_ones():
    # shifting every positive by the same amount scales every loss alike: φ′ and ∇J do not change
    y, f = _far_apart(30.0, seed=2)
    h = np.random.default_rng(3).normal(size=y.shape[0])
    bound = resolve("objective", "push:logistic,identity").bind(y)
    far = f + np.where(y == 1, 700.0, 0.0)
    near_point, far_point = bound.line(f, h)(0.0), bound.line(far, h)(0.0)
    assert math.isfinite(far_point.value) and far_point.value < -1022 * math.log(2.0)   # R is subnormal
    assert far_point.d1 == pytest.approx(near_point.d1, rel=1e-5)
    assert far_point.d2 == pytest.approx(near_point.d2, rel=1e-4)
    np.testing.assert_allclose(bound.value_and_gradient(far)[1], bound.value_and_gradient(f)[1], rtol=1e-5)


@pytest.mark.parametrize("spec", ["push:logistic,identity", "push:logistic,pow:4", "push:logistic,pow:64",
                                  "push:logistic,exp:2"])
def test_losses_below_every_float_give_a_finite_objective_and_no_warning(spec):
    # margins of 800 to 5,000: the losses underflow entirely or to subnormals; nothing is NaN or inf
    bound = resolve("objective", spec).bind(_far_apart(800.0)[0])
    for margin in (745.0, 800.0, 5000.0):
        y, f = _far_apart(margin, seed=4)
        h = np.random.default_rng(5).normal(size=y.shape[0])
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            value, grad, hess = bound.value_gradient_hessian(f)
            point = bound.line(f, h)(0.0)
        assert not math.isnan(value) and value < math.inf
        assert np.isfinite(grad).all() and np.isfinite(hess).all() and (hess > 0).all()
        assert math.isfinite(point.d1) and not math.isnan(point.d2)


def test_boosting_the_logistic_push_on_separable_tiny_data_warns_nothing():
    import rankcore

    rng = np.random.default_rng(0)
    X = rng.normal(size=(22, 4))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("error", RuntimeWarning)
        model = rankcore.boost(learner="trees:growth=oblivious,learning_rate=0.1,min_samples_leaf=1,l2=1",
                               loss="logistic", price="identity", n_iter=200, random_state=0, n_jobs=1).fit(X, y)
    assert np.isfinite(model.decision_function(X)).all()

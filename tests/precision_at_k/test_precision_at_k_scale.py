"""Perceptron@k and SGD@k do not depend on the features' scale or storage.

Before: features near 1e200 overflowed the internal standardization (the
variance is a sum of squares), every scale became inf and ``coef_`` 0:
constant scores with only NumPy's overflow warning; near 1e-200 the scores
underflowed to 0.  And SGD@k fitted the same data to a different model as a
scipy.sparse CSR matrix than dense (max difference 3.5e-4, the ranking order
differed; ``surrogate="struct"`` by 1.4): sparse input was scaled but not
centred, and the logistic warm start and the struct surrogate depend on the
origin.

Now the standardization is computed on power-of-two-scaled columns (exact:
the same numbers on ordinary data), sparse input is centred implicitly inside
the epoch kernel (O(d) per batch, as averaging already costs), and the warm
start is one L2 logistic regression written for both storages.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rankcore.metrics import auc
from rankcore.precision_at_k import PerceptronAtK, SGDAtK
from rankcore.precision_at_k._linear import _standardization


def _data(n=200, d=4, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + offset
    y = (X[:, 0] - offset + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


_ESTIMATORS = [lambda: SGDAtK(k=10, random_state=0), lambda: PerceptronAtK(k=10, random_state=0),
               lambda: SGDAtK(k=10, surrogate="struct", random_state=0)]


@pytest.mark.parametrize("make", _ESTIMATORS, ids=["sgd", "perceptron", "sgd-struct"])
@pytest.mark.parametrize("scale", [1e200, 1e-200, 1e300, 1e-300, 2.0**600, 2.0**-600])
def test_the_model_does_not_depend_on_the_scale_of_the_features(make, scale):
    X, y = _data()
    base = make().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # no overflow warning, no constant-model warning
        scaled = make().fit(X * scale, y)
    s = scaled.decision_function(X * scale)
    assert np.isfinite(s).all() and np.ptp(s) > 0
    # the same ranking as on the unscaled data, and coef_ in the units of the input
    np.testing.assert_array_equal(np.argsort(s, kind="stable"), np.argsort(base.decision_function(X), kind="stable"))
    np.testing.assert_allclose(scaled.coef_ * scale, base.coef_, rtol=1e-6)   # X * scale rounds: 1e-16 in X
    assert auc(y, s) > 0.85


def test_power_of_two_scaling_gives_bit_identical_models():
    X, y = _data()
    a = SGDAtK(k=10, random_state=0).fit(X, y)
    b = SGDAtK(k=10, random_state=0).fit(X * 2.0**300, y)
    np.testing.assert_array_equal(a.coef_, b.coef_ * 2.0**300)


def test_standardization_is_exact_on_ordinary_data():
    """The power-of-two prescaling changes no digit of the mean and scale where nothing overflowed."""
    X, _ = _data(seed=3)
    mean, scale = _standardization(X)
    np.testing.assert_array_equal(mean, X.mean(axis=0))
    np.testing.assert_array_equal(scale, X.std(axis=0))


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_sparse_standardization_survives_extreme_scales(scale):
    X, _ = _data(seed=4)
    X[np.random.default_rng(0).random(X.shape) < 0.5] = 0.0
    dense_mean, dense_scale = _standardization(X * scale)
    mean, scale_ = _standardization(sp.csr_matrix(X * scale))
    np.testing.assert_allclose(mean, dense_mean, rtol=1e-12)
    np.testing.assert_allclose(scale_, dense_scale, rtol=1e-12)


def test_subnormal_features_are_a_clear_error_not_a_constant_model():
    X, y = _data()
    with pytest.raises(ValueError, match="X: .*too small"):
        SGDAtK(k=10, random_state=0).fit(X * 1e-310, y)


def test_unstandardized_huge_features_are_a_clear_error():
    X, y = _data()
    with pytest.raises(FloatingPointError, match="rescale the features"):
        PerceptronAtK(k=10, standardize=False, random_state=0).fit(X * 1e200, y)


# --------------------------------------------------------------------------
# dense and sparse: the same model
# --------------------------------------------------------------------------

def _sparse_data(seed=0, offset=0.0):
    X, y = _data(n=300, d=6, seed=seed, offset=offset)
    X[np.random.default_rng(seed + 1).random(X.shape) < 0.5] = 0.0
    return X, y


@pytest.mark.parametrize("make", [
    lambda: SGDAtK(k=10, random_state=0),
    lambda: SGDAtK(k=10, surrogate="max", random_state=0),
    lambda: SGDAtK(k=10, surrogate="struct", random_state=0),
    lambda: SGDAtK(k=10, surrogate="struct", init="zero", radius=1.0, random_state=0),
    lambda: SGDAtK(k=10, surrogate="struct", init="zero", alpha=0.1, random_state=0),
    lambda: SGDAtK(k=10, average=False, random_state=0),
    lambda: PerceptronAtK(k=10, random_state=0),
    lambda: PerceptronAtK(k=10, variant="max", random_state=0),
], ids=["sgd-avg", "sgd-max", "sgd-struct", "struct-radius", "struct-alpha", "last-iterate", "perceptron",
        "perceptron-max"])
@pytest.mark.parametrize("offset", [0.0, 3.0], ids=["centred", "offset"])
def test_dense_and_sparse_input_give_the_same_model(make, offset):
    X, y = _sparse_data(offset=offset)
    dense = make().fit(X, y)
    sparse = make().fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-7, atol=1e-9 * np.abs(dense.coef_).max())
    np.testing.assert_array_equal(np.argsort(sparse.decision_function(X), kind="stable"),
                                  np.argsort(dense.decision_function(X), kind="stable"))


def test_partial_fit_dense_and_sparse_agree():
    X, y = _sparse_data(seed=2, offset=1.0)
    a, b = SGDAtK(k=10, surrogate="struct"), SGDAtK(k=10, surrogate="struct")
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        a.partial_fit(X[rows], y[rows], classes=[0, 1])
        b.partial_fit(sp.csr_matrix(X[rows]), y[rows], classes=[0, 1])
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-7, atol=1e-9 * np.abs(a.coef_).max())


def test_the_warm_start_is_the_l2_logistic_regression_optimum():
    """Our warm start solves scikit-learn's LogisticRegression(C=1) problem, to a tighter tolerance."""
    from sklearn.linear_model import LogisticRegression

    from rankcore.precision_at_k._warm_start import logistic_start

    X, y = _data(n=300, d=5, seed=7)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    ours = logistic_start(Z, np.zeros(5), y)
    ref = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(Z, y).coef_.ravel()
    np.testing.assert_allclose(ours, ref, rtol=1e-6, atol=1e-8)
    # implicitly centred sparse rows give the same weights
    Zs = sp.csr_matrix(X / X.std(axis=0))
    np.testing.assert_allclose(logistic_start(Zs, X.mean(axis=0) / X.std(axis=0), y), ours, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("make", [lambda: SGDAtK(k=10, random_state=0), lambda: PerceptronAtK(k=10, random_state=0),
                                  lambda: SGDAtK(k=10, surrogate="struct", random_state=0)],
                         ids=["sgd", "perceptron", "sgd-struct"])
def test_mostly_zero_dense_rows_are_fitted_as_csr_to_the_same_model(monkeypatch, make):
    """Dense rows with few nonzeros take the O(nnz) route: the same model as the dense route, much faster.

    The dense route is forced by a threshold no matrix meets; the two must
    agree to the solvers' tolerance and rank the rows alike.
    """
    from rankcore.precision_at_k import _linear

    rng = np.random.default_rng(3)
    X = (rng.random((400, 300)) < 0.04) * rng.poisson(3.0, size=(400, 300)).astype(np.float64)
    y = (X[:, :5].sum(axis=1) + rng.normal(size=400) > 0.8).astype(int)
    assert X.size >= _linear.SPARSE_MIN_ENTRIES and np.count_nonzero(X) <= _linear.SPARSE_DENSITY * X.size
    assert sp.issparse(_linear._LinearAtK._canonical(X))
    converted = make().fit(X, y)
    monkeypatch.setattr(_linear, "SPARSE_DENSITY", -1.0)
    assert not sp.issparse(_linear._LinearAtK._canonical(X))
    dense = make().fit(X, y)
    np.testing.assert_allclose(converted.coef_, dense.coef_, rtol=1e-7, atol=1e-9 * np.abs(dense.coef_).max())
    np.testing.assert_array_equal(np.argsort(converted.decision_function(X), kind="stable"),
                                  np.argsort(dense.decision_function(X), kind="stable"))


def test_small_or_dense_rows_stay_dense():
    from rankcore.precision_at_k import _linear

    few = np.zeros((10, 10))
    few[0, 0] = 1.0                                    # mostly zeros, but too small to be worth converting
    assert not sp.issparse(_linear._LinearAtK._canonical(few))
    full = np.random.default_rng(0).random((400, 300))  # large, but dense
    assert not sp.issparse(_linear._LinearAtK._canonical(full))


def test_weights_grown_by_a_huge_eta0_are_named_not_the_features():
    # on standardized features the overflow is the steps' doing: the message said "rescale the features"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(FloatingPointError, match=r"the weights grew to \|w\|_1 = .* lower eta0"):
            SGDAtK(eta0=1e308, random_state=0).fit(X, y)


@pytest.mark.parametrize("params", [{}, {"average": True}, {"surrogate": "struct"}, {"radius": 1.0}])
def test_a_huge_eta0_fits_without_numpy_warnings(params):
    # the next epoch's ||w||^2 of weights near 1e300 overflowed np.dot, which warned from the library
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = SGDAtK(eta0=1e300, random_state=0, **params).fit(X, y)
    assert np.isfinite(model.decision_function(X)).all()
    assert auc(y, model.decision_function(X)) > 0.7


def test_weights_whose_l1_norm_overflows_are_named_without_numpy_warnings():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FloatingPointError, match=r"\|w\|_1 = inf .* lower eta0"):
            SGDAtK(eta0=1e308, surrogate="max", random_state=0).fit(X, y)

"""SGD@k's standardization kernel against NumPy's own expressions, bit for bit.

The kernel (``_moments.scaled_column_moments``) computes them without a
temporary the size of X; it must return exactly NumPy's
``(X / unit).mean(axis=0)`` and ``.std(axis=0)`` so that every fitted model
is the same whichever computes them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rankcore.precision_at_k import SGDAtK
from rankcore.precision_at_k._linear import _dense_moments, _standardization
from rankcore.precision_at_k._moments import scaled_column_moments


def _numpy_reference(X):
    peak = np.abs(X).max(axis=0)
    unit = np.ldexp(1.0, np.frexp(np.where(peak > 0, peak, 1.0))[1])
    Xu = X / unit
    return Xu.mean(axis=0), Xu.std(axis=0), unit


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def _matrix(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 10.0 ** rng.uniform(-150, 150, d) + rng.uniform(-1, 1, d) * 10.0 ** rng.uniform(
        -150, 150, d)
    X[rng.random((n, d)) < 0.2] = 0.0                                   # ties at zero
    if d >= 4:
        X[:, 1] = 3.0                                                    # a constant column
        X[:, 2] = -0.0                                                   # negative zeros only
        X[:, 3] = np.round(X[:, 3])                                      # many ties
    return X


@pytest.mark.parametrize("n", [1, 2, 3, 17, 1000])
@pytest.mark.parametrize("d", [2, 5, 64, 301])
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_equals_numpy_bit_for_bit(n, d, seed):
    X = _matrix(n, d, seed)
    mean, std, unit = _numpy_reference(X)
    got_mean, got_std = scaled_column_moments(X, unit)
    np.testing.assert_array_equal(_bits(got_mean), _bits(mean))
    np.testing.assert_array_equal(_bits(got_std), _bits(std))


@pytest.mark.parametrize("layout", ["one column", "fortran", "strided"])
def test_layouts_the_kernel_does_not_take_keep_numpy(layout):
    X = _matrix(500, 6, 3)
    X = {"one column": X[:, :1].copy(), "fortran": np.asfortranarray(X), "strided": X[::2]}[layout]
    mean, std, unit = _numpy_reference(X)
    got_mean, got_std = _dense_moments(X, unit)
    np.testing.assert_array_equal(_bits(got_mean), _bits(mean))
    np.testing.assert_array_equal(_bits(got_std), _bits(std))


@pytest.mark.parametrize("scale", [1e-300, 1.0, 1e300])
def test_standardization_is_scale_free(scale):
    X = _matrix(300, 5, 4)
    peak = np.abs(X).max(axis=0)
    X = X / np.where(peak > 0, peak, 1.0) * scale
    mean, scale_ = _standardization(X)
    ref_mean, ref_std, unit = _numpy_reference(X)
    np.testing.assert_array_equal(mean[0], ref_mean[0] * unit[0])
    assert np.isfinite(scale_).all() and (scale_ > 0).all()


def test_a_fitted_model_uses_the_kernels_numbers():
    X = _matrix(400, 8, 5)
    peak = np.abs(X).max(axis=0)
    X = X / np.where(peak > 0, peak, 1.0)
    y = (X[:, 0] > np.median(X[:, 0])).astype(int)
    model = SGDAtK(n_epochs=2, random_state=0).fit(X, y)
    mean, std, unit = _numpy_reference(X)
    np.testing.assert_array_equal(model.feature_mean_, mean * unit)
    varies = std * unit > 1e-12 * np.abs(mean * unit)
    np.testing.assert_array_equal(model.feature_scale_, np.where(varies, std * unit, 1.0))


def test_kernel_refuses_arrays_of_the_wrong_kind():
    with pytest.raises(ValueError):
        scaled_column_moments(np.asfortranarray(np.ones((3, 2))), np.ones(2))
    with pytest.raises((ValueError, TypeError)):
        scaled_column_moments(np.ones((3, 2), dtype=np.float32), np.ones(2))


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(2, 9)),
              elements=st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)))
def test_kernel_equals_numpy_on_any_finite_matrix(X):
    mean, std, unit = _numpy_reference(X)
    got_mean, got_std = scaled_column_moments(np.ascontiguousarray(X), unit)
    np.testing.assert_array_equal(_bits(got_mean), _bits(mean))
    np.testing.assert_array_equal(_bits(got_std), _bits(std))

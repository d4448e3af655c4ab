"""Built-in prices: closed forms, log-space forms at extreme values, spec errors."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankcore
from rankcore.registry import resolve
from rankcore.testing import check_component

R = np.array([0.0, 1e-8, 0.3, 1.0, 2.5, 40.0])


@pytest.mark.parametrize("spec, g, dg, d2g", [
    ("identity", lambda r: r, lambda r: np.ones_like(r), lambda r: np.zeros_like(r)),
    ("pow:1", lambda r: r, lambda r: np.ones_like(r), lambda r: np.zeros_like(r)),
    ("pow:2", lambda r: r**2, lambda r: 2 * r, lambda r: np.full_like(r, 2.0)),
    ("pow:3.5", lambda r: r**3.5, lambda r: 3.5 * r**2.5, lambda r: 3.5 * 2.5 * r**1.5),
    ("exp:0.5", lambda r: np.exp(0.5 * r), lambda r: 0.5 * np.exp(0.5 * r), lambda r: 0.25 * np.exp(0.5 * r)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_price_closed_forms(spec, g, dg, d2g):
    price = resolve("price", spec)
    np.testing.assert_allclose(price.value(R), g(R), rtol=1e-14)
    np.testing.assert_allclose(price.derivative(R), dg(R), rtol=1e-14)
    np.testing.assert_allclose(price.second_derivative(R), d2g(R), rtol=1e-14)


def test_pow_64_log_forms_stay_finite_where_the_plain_form_overflows():
    price = resolve("price", "pow:64")
    log_r = np.array([np.log(1e6), np.log(1e300), 700.0])
    with np.errstate(over="ignore"):
        assert np.isinf(price.value(np.exp(log_r[:1]))).all()       # 1e6^64 = 1e384 overflows
    np.testing.assert_allclose(price.log_value(log_r), 64 * log_r)
    np.testing.assert_allclose(price.log_derivative(log_r), np.log(64) + 63 * log_r)
    np.testing.assert_allclose(price.log_second_derivative(log_r), np.log(64 * 63) + 62 * log_r)


def test_log_forms_at_zero():
    """r = 0 (log r = −inf): log g(0) = −inf for powers, log g′(0) = 0 for identity, finite for exp."""
    neg_inf = np.array([-np.inf])
    assert resolve("price", "pow:4").log_value(neg_inf)[0] == -np.inf
    assert resolve("price", "pow:4").log_derivative(neg_inf)[0] == -np.inf
    assert resolve("price", "identity").log_derivative(neg_inf)[0] == 0.0
    assert resolve("price", "pow:1").log_derivative(neg_inf)[0] == 0.0
    assert resolve("price", "exp:2").log_value(neg_inf)[0] == 0.0
    assert resolve("price", "exp:2").log_derivative(neg_inf)[0] == pytest.approx(math.log(2))
    assert not np.isnan(resolve("price", "pow:1.5").log_second_derivative(neg_inf)).any()


@given(p=st.floats(1.0, 80.0), c=st.floats(0.01, 100.0))
def test_pow_is_homogeneous(p, c):
    price = resolve("price", f"pow:{p!r}")
    assert price.homogeneous_degree == p
    r = R[R > 1e-3]                       # g(1e-8) is subnormal at large p: no relative precision
    np.testing.assert_allclose(price.value(c * r), c**p * price.value(r), rtol=1e-10)


def test_homogeneous_degrees():
    assert resolve("price", "identity").homogeneous_degree == 1.0
    assert resolve("price", "exp").homogeneous_degree is None


def test_aliases_and_canonical_spec():
    assert resolve("price", "power:4") == resolve("price", "pow:4.0")
    assert resolve("price", "pow:4.0").spec == "pow:4"
    assert resolve("price", "exp").spec == "exp"
    assert resolve("price", "exp:0.25").spec == "exp:0.25"


@pytest.mark.parametrize("spec", ["identity", "pow:1", "pow:1.5", "pow:64", "exp:0.1", "exp:3"])
def test_builtin_price_contract(spec):
    check_component("price", spec)


def test_price_base_class_is_public_and_documented():
    assert rankcore.Price.__doc__ and "log-space forms" in rankcore.Price.__doc__
    with pytest.raises(NotImplementedError, match="must implement value"):
        rankcore.Price().value(R)

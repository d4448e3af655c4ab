"""Contract checks of the ``price`` family (see :class:`rankcore.Price`)."""

from __future__ import annotations

import numpy as np

from ._common import assert_finite, spec_round_trip_check

__all__ = ["CHECKS"]

_GRID = np.r_[0.0, np.geomspace(1e-6, 1e-2, 5), np.linspace(0.05, 5.0, 40), np.geomspace(6.0, 200.0, 10)]


def _call(func, x):
    x = np.array(x, dtype=np.float64)
    x.setflags(write=False)            # implementations must not modify their input
    out = np.asarray(func(x), dtype=np.float64)
    assert out.shape == x.shape, f"{func.__qualname__}: output shape {out.shape} != input shape {x.shape}"
    return out


def check_price_shapes_and_types(price, rng):
    """Vectorized over any shape, float64 output, input untouched (read-only arrays accepted)."""
    for shape in [(0,), (7,), (3, 4)]:
        r = rng.uniform(0.0, 3.0, size=shape)
        for func in (price.value, price.derivative, price.log_value, price.log_derivative):
            _call(func, np.log(r) if func in (price.log_value, price.log_derivative) else r)


def check_price_nonnegative_increasing_convex(price, rng):
    """g ≥ 0, g′ ≥ 0, g non-decreasing and convex on [0, 200]."""
    owner = f"price {price.spec!r}"
    with np.errstate(over="ignore"):
        g = _call(price.value, _GRID)
        dg = _call(price.derivative, _GRID)
    # +inf is an honest overflow of a steep g (exp:2 at r = 200); NaN never is
    assert_finite(g, owner=owner, what="g", at=_GRID, at_name="r", allow_inf=True)
    assert_finite(dg, owner=owner, what="g'", at=_GRID, at_name="r", allow_inf=True)
    finite = np.isfinite(g)
    assert np.all(g[finite] >= 0), f"price {price.spec!r}: g < 0 at r = {_GRID[finite][g[finite] < 0][:3]}"
    assert np.all(dg[np.isfinite(dg)] >= 0), f"price {price.spec!r}: g' < 0 somewhere on [0, 200]"
    gf = g[finite]
    assert np.all(np.diff(gf) >= -1e-12 * np.abs(gf[1:])), f"price {price.spec!r}: g decreases"
    # convexity: g(midpoint) ≤ mean of the ends, on random pairs, near 0 and out to 200
    a = np.r_[rng.uniform(0, 20, 200), np.exp(rng.uniform(np.log(20.0), np.log(200.0), 100))]
    b = np.r_[rng.uniform(0, 20, 200), np.exp(rng.uniform(np.log(20.0), np.log(200.0), 100))]
    with np.errstate(over="ignore"):
        ga, gb, gm = _call(price.value, a), _call(price.value, b), _call(price.value, 0.5 * (a + b))
    for values, at in ((ga, a), (gb, b), (gm, 0.5 * (a + b))):
        assert_finite(values, owner=owner, what="g", at=at, at_name="r", allow_inf=True)
    ok = np.isfinite(ga) & np.isfinite(gb)
    slack = 1e-9 * np.maximum(1.0, np.abs(ga + gb))
    assert np.all(gm[ok] <= 0.5 * (ga + gb)[ok] + slack[ok]), f"price {price.spec!r}: not convex"


def check_price_derivatives(price, rng):
    """g′ (and g″ if given) agree with central finite differences."""
    owner = f"price {price.spec!r}"
    r = np.r_[rng.uniform(0.2, 5.0, 30), np.geomspace(5.0, 100.0, 12)]
    with np.errstate(over="ignore"):
        r = r[np.isfinite(_call(price.value, r * (1 + 1e-5)))]      # where g does not overflow (exp:2 past 350)
    h = 1e-6 * np.maximum(1.0, r)
    for name in ("value", "derivative") + (("second_derivative",) if price.has_second_derivative else ()):
        assert_finite(_call(getattr(price, name), r), owner=owner, what=name, at=r, at_name="r")
    fd = (_call(price.value, r + h) - _call(price.value, r - h)) / (2 * h)
    dg = _call(price.derivative, r)
    np.testing.assert_allclose(dg, fd, rtol=1e-5, atol=1e-8, err_msg=f"price {price.spec!r}: g' vs finite differences")
    if price.has_second_derivative:
        fd2 = (_call(price.derivative, r + h) - _call(price.derivative, r - h)) / (2 * h)
        np.testing.assert_allclose(_call(price.second_derivative, r), fd2, rtol=1e-4, atol=1e-7,
                                   err_msg=f"price {price.spec!r}: g'' vs finite differences")


def check_price_log_forms(price, rng):
    """log g, log g′, log g″ as functions of log r agree with the plain forms (and at r = 0)."""
    r = np.r_[0.0, rng.uniform(1e-3, 30.0, 40), np.geomspace(30.0, 1e6, 20)]    # compared where g is finite
    with np.errstate(divide="ignore"):
        log_r = np.log(r)
    pairs = [(price.log_value, price.value), (price.log_derivative, price.derivative)]
    if price.has_second_derivative:
        pairs.append((price.log_second_derivative, price.second_derivative))
    for log_form, plain in pairs:
        with np.errstate(divide="ignore", over="ignore"):
            expected = np.log(_call(plain, r))
            got = _call(log_form, log_r)
        finite = np.isfinite(expected)
        assert not np.isnan(got).any(), (
            f"price {price.spec!r}: {log_form.__name__} is NaN at log r = {log_r[np.isnan(got)][0]!r}")
        np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-9, atol=1e-9,
                                   err_msg=f"price {price.spec!r}: {log_form.__name__} vs log of {plain.__name__}")
        zero = expected == -np.inf                  # g = 0 (r = 0); where g overflows the log form goes on
        assert np.array_equal(got[zero], expected[zero]), (
            f"price {price.spec!r}: {log_form.__name__} gives {got[zero]} where log {plain.__name__} is -inf")


def check_price_log_forms_large(price, rng):
    """The log forms are finite and never decrease, even where g itself overflows (log r up to 700)."""
    log_r = np.linspace(-50.0, 700.0, 200)
    with np.errstate(over="ignore", invalid="ignore"):
        for log_form in (price.log_value, price.log_derivative):
            got = _call(log_form, log_r)
            # a non-finite value is reported as what it is (a NaN, an overflow), not as a decrease
            assert_finite(got, owner=f"price {price.spec!r}", what=f"{log_form.__name__} (log form)", at=log_r,
                          at_name="log r")
            drop = np.diff(got) < -1e-9 * np.maximum(1.0, np.abs(got[1:]))
            assert not drop.any(), (
                f"price {price.spec!r}: {log_form.__name__} decreases in log r, from {got[:-1][drop][0]!r} at "
                f"log r = {log_r[:-1][drop][0]!r} to {got[1:][drop][0]!r}")
        if price.has_second_derivative:
            # g″ may fall (r^p, 1 < p < 2) or vanish (log −inf); the push's curvature reads it: never NaN or +inf
            got = _call(price.log_second_derivative, log_r)
            bad = np.isnan(got) | (got == np.inf)
            assert not bad.any(), (f"price {price.spec!r}: log_second_derivative is {float(got[bad][0])!r} at log r = "
                                   f"{float(log_r[bad][0])!r}")


def check_price_homogeneous_degree(price, rng):
    """If ``homogeneous_degree`` is d, then g(c r) = c^d g(r)."""
    d = price.homogeneous_degree
    if d is None:
        return
    r = rng.uniform(0.0, 5.0, 30)
    for c in (0.3, 2.0, 7.0):
        np.testing.assert_allclose(_call(price.value, c * r), c ** d * _call(price.value, r), rtol=1e-10, atol=1e-300,
                                   err_msg=f"price {price.spec!r}: homogeneous_degree={d} is wrong (c={c})")


check_price_spec_round_trip = spec_round_trip_check("price")


CHECKS = [
    check_price_shapes_and_types,
    check_price_nonnegative_increasing_convex,
    check_price_derivatives,
    check_price_log_forms,
    check_price_log_forms_large,
    check_price_homogeneous_degree,
    check_price_spec_round_trip,
]

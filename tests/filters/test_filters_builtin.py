"""The built-in spectral filters: formulas, stable limits, parameters, errors."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankcore
from rankcore.filters import Filter
from rankcore.spec import SpecError

from _rkhs_reference import FORMULAS, high_precision_filter

SPECS = sorted(FORMULAS)


def resolve(spec):
    return rankcore.get_registry().resolve("filter", spec)


def test_builtin_filters_are_registered():
    names = rankcore.get_registry().names("filter")
    assert set(names) >= {"tikhonov", "iterated", "cutoff", "landweber", "showalter"}
    assert resolve("lavrentiev") == resolve("tikhonov")
    assert resolve("tsvd") == resolve("cutoff")


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("lam", [0.9, 0.05, 1e-3])
def test_filter_matches_formula_away_from_zero(spec, lam):
    # Where the printed formula has no cancellation (t not tiny against lam).
    t = np.linspace(0.05, 1.0, 40)
    got = resolve(spec)(t, lam, norm=1.0)
    expected = FORMULAS[spec](t, lam, 1.0)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("t", [0.0, 1e-300, 1e-200, 1e-40, 1e-17, 1e-9, 1e-5, 3e-3])
@pytest.mark.parametrize("lam", [0.5, 1e-2, 1e-4])
def test_filter_matches_high_precision_near_zero(spec, t, lam):
    got = float(resolve(spec)(np.array([t]), lam, norm=1.0)[0])
    expected = high_precision_filter(spec, t, lam)
    assert got == pytest.approx(expected, rel=1e-13, abs=1e-300)


def test_naive_formula_loses_what_the_filter_keeps():
    # The reason for the expm1/log1p forms: the printed iterated formula cancels.
    t, lam = 1e-14, 1e-2
    naive = FORMULAS["iterated"](t, lam, 1.0)  # eq. 13 is already stable ...
    printed = (1.0 / t) * (1.0 - (lam / (t + lam)) ** 2)  # ... the (1 - r^nu)/t form is not
    exact = high_precision_filter("iterated", t, lam)
    assert abs(printed - exact) / exact > 1e-6
    assert resolve("iterated")(np.array([t]), lam)[0] == pytest.approx(exact, rel=1e-14)
    assert naive == pytest.approx(exact, rel=1e-14)


def test_iterated_one_is_tikhonov_and_two_is_eq13():
    t = np.concatenate([[0.0, 1e-300, 1e-20], np.logspace(-12, 0, 50)])
    for lam in (0.3, 1e-3, 1e-7):
        np.testing.assert_allclose(resolve("iterated:1")(t, lam), resolve("tikhonov")(t, lam), rtol=1e-14)
        np.testing.assert_allclose(resolve("iterated:2")(t, lam), (t + 2 * lam) / (t + lam) ** 2, rtol=1e-13)


@pytest.mark.parametrize("spec, limit", [
    ("tikhonov", lambda lam: 1 / lam),
    ("iterated:7", lambda lam: 7 / lam),
    ("cutoff", lambda lam: 0.0),
    ("landweber", lambda lam: math.floor(1 / lam) / 2.0),  # norm 2: mu = 1/2
    ("showalter", lambda lam: 1 / lam),
])
def test_filter_limit_at_zero(spec, limit):
    for lam in (0.9, 0.01, 1e-6):
        assert resolve(spec).at_zero(lam, norm=2.0) == pytest.approx(limit(lam), rel=1e-12)


def test_landweber_steps_and_step_parameter():
    f = resolve("landweber")
    assert f.n_steps(0.25) == 4 and f.n_steps(1 / 3) == 3 and f.n_steps(0.95) == 1
    assert np.all(f(np.linspace(0, 1, 5), 1.5) == 0.0)  # lambda > 1: zero steps
    half = resolve("landweber:0.5")
    t = np.array([0.2, 0.7])
    k = 10
    np.testing.assert_allclose(half(t, 1 / k, norm=2.0), (1 - (1 - 0.25 * t) ** k) / t, rtol=1e-13)
    with pytest.raises(SpecError, match="step"):
        resolve("landweber:1.5")
    with pytest.raises(ValueError, match="norm"):
        f(np.array([0.5, 3.0]), 0.1, norm=1.0)  # spectrum above the norm


def test_iterated_parameter_validation():
    with pytest.raises(SpecError, match="nu"):
        resolve("iterated:0")
    with pytest.raises(SpecError, match="nu"):
        resolve("iterated:1.5")
    assert resolve("iterated:100")(np.array([0.0, 1e-3, 1.0]), 1e-2).tolist()[0] == pytest.approx(1e4)


@pytest.mark.parametrize("spec", SPECS)
def test_filter_bad_arguments(spec):
    f = resolve(spec)
    with pytest.raises(ValueError, match="lam"):
        f(np.array([0.1]), 0.0)
    with pytest.raises(TypeError, match="lam"):
        f(np.array([0.1]), "0.1")
    with pytest.raises(ValueError, match=">= 0"):
        f(np.array([-1e-3]), 0.1)
    with pytest.raises(ValueError, match="finite"):
        f(np.array([np.nan]), 0.1)
    with pytest.raises(ValueError, match="norm"):
        f(np.array([0.1]), 0.1, norm=-1.0)


@given(
    t=st.lists(st.floats(min_value=0.0, max_value=1.0, allow_subnormal=True), min_size=1, max_size=30),
    lam=st.floats(min_value=1e-12, max_value=10.0),
)
def test_filters_are_finite_bounded_and_monotone_residual(t, lam):
    t = np.array(t)
    for spec in SPECS:
        g = resolve(spec)(t, lam, norm=1.0)
        assert np.isfinite(g).all() and (g >= 0).all()
        tg = t * g
        assert (tg <= 1 + 1e-12).all(), spec


class _Broken(Filter):
    name = "broken-test-filter"

    def evaluate(self, t, lam, norm):
        with np.errstate(divide="ignore"):
            return 1.0 / t  # infinite at t = 0


def test_base_class_reports_a_defective_filter():
    with pytest.raises(RuntimeError, match="broken-test-filter"):
        _Broken()(np.array([0.0, 1.0]), 0.1)


def test_iterated_tikhonov_nu_is_bounded():
    """iterated:1e308 is a spec error naming the documented bound."""
    from rankcore.spec import SpecError

    with pytest.raises(SpecError, match=r"nu must be an integer >= 1 and <= 1000000"):
        rankcore.get_registry().resolve("filter", "iterated:1e308")
    assert rankcore.get_registry().resolve("filter", "iterated:1000000").nu == 10**6


@pytest.mark.parametrize("spec", ["tikhonov", "iterated", "iterated:5", "iterated:100", "cutoff", "landweber",
                                  "landweber:0.5", "showalter"])
def test_vectorized_path_equals_calls_bit_for_bit(spec):
    # The built-in filters evaluate a whole λ grid at once (_evaluate_path); each row must equal the
    # one-λ call exactly, at t = 0, subnormal and tiny t, t = λ (the cut-off step), and for Landweber
    # at λ > 1 (zero steps), λ = 1/k (the floor guard) and μt = 1 (log1p(-1) = -inf).
    flt = rankcore.get_registry().resolve("filter", spec)
    rng = np.random.default_rng(len(spec))
    t = np.concatenate([[0.0, 5e-324, 1e-300, 1e-291, 2.0, 1.0, 0.25],
                        rng.uniform(0, 2, 40), 10.0 ** rng.uniform(-300, 0, 40)])
    lams = np.concatenate([[1.0, 1.5, 3.0, 0.5, 1 / 3, 1 / 7, 1e-300, 1e-12, 0.25], 10.0 ** rng.uniform(-12, 1, 30)])
    grid = flt.path(t, lams, norm=2.0)
    assert grid.shape == (lams.size, t.size)
    for i, lam in enumerate(lams):
        np.testing.assert_array_equal(grid[i], flt(t, lam, norm=2.0), err_msg=f"{spec} lam={lam!r}")

"""A price written with its plain forms only is computed stably in log space and passes the contract checks."""

import importlib.util
import inspect
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankcore
from rankcore.prices._base import log_form
from rankcore.registry import register_plugin, unregister_plugin
from rankcore.testing import check_component, component_checks

ROOT = Path(__file__).resolve().parents[2]


def _docs_price():
    """The price of docs/plugins.md as written there (docs/examples/rankcore-quadratic): g, g′ and g″ only."""
    spec = importlib.util.spec_from_file_location("_docs_quadratic_price", ROOT / "docs" / "examples" /
                                                  "rankcore-quadratic" / "rankcore_quadratic" / "price.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Quadratic


Quadratic = _docs_price()


class Polynomial(rankcore.Price):
    """Σ_j c_j r^j with non-negative coefficients (for the property test)."""

    name = "test-polynomial"

    def __init__(self, coefficients):
        self.coefficients = tuple(coefficients)
        super().__init__()

    def value(self, r):
        return sum(c * np.power(r, j) for j, c in enumerate(self.coefficients))

    def derivative(self, r):
        return sum(j * c * np.power(r, j - 1) for j, c in enumerate(self.coefficients) if j)

    def log_exact(self, log_r):
        terms = [np.log(c) + j * log_r for j, c in enumerate(self.coefficients) if c > 0]
        return np.logaddexp.reduce(np.stack(terms), axis=0)


class _Plugin:
    def __init__(self, *classes):
        self.classes = list(classes)

    @rankcore.hookimpl
    def rankcore_register_prices(self):
        return self.classes


@pytest.fixture
def registered():
    """Register price classes for one test: ``registered(Cls, ...)``."""
    names = []

    def register(*classes):
        name = f"test-prices-{len(names)}"
        register_plugin(_Plugin(*classes), name=name, distribution="tests")
        names.append(name)

    yield register
    for name in names:
        unregister_plugin(name)


@pytest.mark.parametrize("spec", Quadratic.examples)
def test_price_minimal_plugin_passes_every_check(registered, spec):
    registered(Quadratic)
    check_component("price", spec)


def test_price_default_log_forms_exact_where_finite_and_continue_beyond():
    price = Quadratic(w=0.5)
    log_r = np.array([-30.0, 0.0, 10.0, 300.0, 354.0, 360.0, 700.0, 720.0, 2000.0])
    expected = np.logaddexp(log_r, np.log(0.5) + 2 * log_r)          # log(r + r²/2)
    np.testing.assert_allclose(price.log_value(log_r), expected, rtol=1e-13)
    np.testing.assert_allclose(price.log_derivative(log_r), np.logaddexp(0.0, log_r), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(price.log_second_derivative(log_r), 0.0, atol=1e-15)                 # log 1
    finite = log_r < 300
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(price.log_value(log_r[finite]), np.log(price.value(np.exp(log_r[finite]))))


# coefficients 0 or in [1e-3, 1e3]: the leading power dominates long before float64 overflows
# (with a coefficient of 1e-300 it would only take over beyond, where no plain form can see it)
@given(st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 1e3)), min_size=2, max_size=6).filter(lambda c: any(c[1:])),
       st.lists(st.floats(-800.0, 3000.0), min_size=1, max_size=20))
def test_price_default_log_value_matches_closed_form_for_polynomials(coefficients, points):
    price = Polynomial(coefficients)
    log_r = np.array(points)
    got = price.log_value(log_r)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, price.log_exact(log_r), rtol=1e-9, atol=1e-9)


def test_price_default_log_form_keeps_zeros_and_shapes():
    price = Quadratic(w=2.0)
    assert price.log_value(np.array(-np.inf)) == -np.inf                    # g(0) = 0
    assert price.log_value(np.array(-800.0)) == pytest.approx(-800.0)        # r underflows, log g ≈ log r does not

    class Hinge2(rankcore.Price):
        """g(r) = max(0, r − 1)²: exactly 0 on [0, 1], so log g = −inf there, not a continuation."""

        name = "test-hinge2"

        def value(self, r):
            return np.maximum(0.0, r - 1.0) ** 2

        def derivative(self, r):
            return 2.0 * np.maximum(0.0, r - 1.0)

    hinge = Hinge2()
    np.testing.assert_array_equal(hinge.log_value(np.array([-800.0, -5.0, 0.0])), -np.inf)
    assert hinge.log_value(np.array([800.0]))[0] == pytest.approx(1600.0)
    assert price.log_value(np.zeros((2, 3))).shape == (2, 3)
    assert log_form(price, "value", np.array([800.0])).shape == (1,)


def _docstring_example(cls):
    """The code of the class docstring's example, as written (the indented block after '::')."""
    doc = inspect.getdoc(cls)
    block = re.search(r"::\n\n((?:    .*\n|\n)+)", doc + "\n").group(1)
    return textwrap.dedent(block)


def test_price_docstring_example_passes_the_checks_as_written(registered):
    namespace = {}
    exec(_docstring_example(rankcore.Price), namespace)
    registered(namespace["Cube"])
    check_component("price", "cube")


def test_price_check_reports_non_finite_log_forms_as_such(registered):
    class NaiveLog(Quadratic):
        """A log form written naively: overflows to inf, and inf - inf is NaN."""

        name = "test-naive-log"

        def log_derivative(self, log_r):
            with np.errstate(over="ignore"):
                return np.log(self.derivative(np.exp(log_r)))

        def log_value(self, log_r):
            with np.errstate(over="ignore", invalid="ignore"):
                r = np.exp(log_r)
                return np.log(r + self.w * r * r - r * r + r * r)  # inf - inf = NaN for huge r

    registered(NaiveLog)
    checks = {c.func.__name__: c for c in component_checks("price", "test-naive-log")}
    with pytest.raises(AssertionError) as info:
        checks["check_price_log_forms_large"]()
    message = str(info.value)
    assert "decreases" not in message
    assert "log_value (log form) is NaN at log r = " in message


def test_price_check_reports_overflow_to_inf(registered):
    class InfLog(Quadratic):
        """log g′ that overflows to inf instead of continuing."""

        name = "test-inf-log"

        def log_derivative(self, log_r):
            with np.errstate(over="ignore"):
                return np.log(1.0 + 2.0 * self.w * np.exp(log_r))

    registered(InfLog)
    check = {c.func.__name__: c for c in component_checks("price", "test-inf-log:1e6")}["check_price_log_forms_large"]
    with pytest.raises(AssertionError, match=r"log_derivative \(log form\) is inf at log r = 69\d\."):
        check()

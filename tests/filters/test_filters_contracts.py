"""The filter contract checks (rankcore.testing._filters) catch broken filters, and a plugin filter works end to end."""

import numpy as np
import pytest

import rankcore
from rankcore.filters import Filter
from rankcore.registry import register_plugin, unregister_plugin
from rankcore.testing import _filters
from rankcore.testing import check_component


class NaiveIterated(Filter):
    """(1 − (λ/(t+λ))²)/t evaluated as printed: cancels near 0, 0/0 at 0."""

    name = "naive-iterated"

    def evaluate(self, t, lam, norm):
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (1.0 - (lam / (t + lam)) ** 2) / t
        return np.where(t > 0, out, 2.0 / lam)  # right limit at 0, wrong just above it


class Overshoot(Filter):
    """2/(t+λ): t·g reaches 2 (γ₀ > 1)."""

    name = "overshoot"

    def evaluate(self, t, lam, norm):
        return 2.0 / (t + lam)


class NotARegularization(Filter):
    """1/(t+1): never tends to 1/t."""

    name = "not-a-regularization"

    def evaluate(self, t, lam, norm):
        return 1.0 / (t + 1.0)


class MutatesInput(Filter):
    name = "mutates"

    def evaluate(self, t, lam, norm):
        t = np.array(t)  # a copy is fine ...
        return 1.0 / (t + lam)


@pytest.mark.parametrize("broken, check", [
    (NaiveIterated, _filters.check_filter_limit_at_zero),
    (Overshoot, _filters.check_filter_residual_bounded),
    (NotARegularization, _filters.check_filter_converges_to_inverse),
    (NotARegularization, _filters.check_filter_dense_application),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_contract_check_fails_on_broken_filter(broken, check):
    with pytest.raises(AssertionError):
        check(broken(), np.random.default_rng(0))


def test_correct_plugin_filter_passes_and_is_usable():
    class Exponential(Filter):
        """A third-party filter: Showalter written independently."""

        name = "test-exponential"

        def evaluate(self, t, lam, norm):
            out = np.full(t.shape, 1.0 / lam)
            pos = t > 0
            out[pos] = -np.expm1(-t[pos] / lam) / t[pos]
            return out

    class Plugin:
        @rankcore.hookimpl
        def rankcore_register_filters(self):
            return [Exponential]

    register_plugin(Plugin(), name="test-filter-plugin")
    try:
        check_component("filter", "test-exponential")
        X = np.linspace(0, 1, 30).reshape(-1, 1)
        y = np.floor(X[:, 0] * 5)
        ours = rankcore.KernelRanker(filter="test-exponential", lam=1e-3).fit(X, y).decision_function(X)
        builtin = rankcore.KernelRanker(filter="showalter", lam=1e-3).fit(X, y).decision_function(X)
        np.testing.assert_allclose(ours, builtin, rtol=1e-10, atol=1e-12)
    finally:
        unregister_plugin("test-filter-plugin")

"""A contract check that meets a NaN or an overflow says so, instead of reporting a failed comparison."""

import numpy as np
import pytest

import rankcore
from rankcore.registry import register_plugin, unregister_plugin
from rankcore.testing import component_checks


class NaNLoss(rankcore.Loss):
    """exp(−z), but NaN beyond z < −10 (a bug a check must name)."""

    name = "test-nan-loss"

    def value(self, z):
        z = np.asarray(z, dtype=float)
        return np.where(z < -10, np.nan, np.exp(-z))

    def derivative(self, z):
        return -self.value(z)


class NaNMetric(rankcore.Metric):
    """A metric that is NaN for half of all scorings (a bug a check must name)."""

    name = "test-nan-metric"
    greater_is_better = True
    monotone = True

    def compute(self, y, scores):
        return float("nan") if int(scores.sum()) % 2 else 0.5


class _Plugin:
    @rankcore.hookimpl
    def rankcore_register_losses(self):
        return [NaNLoss]

    @rankcore.hookimpl
    def rankcore_register_metrics(self):
        return [NaNMetric]


@pytest.fixture
def plugin():
    register_plugin(_Plugin(), name="test-contract-messages", distribution="tests")
    yield
    unregister_plugin("test-contract-messages")


def _check(family, spec, name):
    return next(c for c in component_checks(family, spec) if c.func.__name__ == name)


def test_loss_check_names_the_nan_and_where(plugin):
    with pytest.raises(AssertionError, match=r"loss 'test-nan-loss': ℓ is NaN at z = -20\.0 \(\d+ of 401"):
        _check("loss", "test-nan-loss", "check_loss_shape")()


def test_metric_check_names_the_nan(plugin):
    with pytest.raises(AssertionError) as info:
        _check("metric", "test-nan-metric", "check_metric_monotone")()
    assert "is NaN" in str(info.value) and "not monotone" not in str(info.value)

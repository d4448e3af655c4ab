"""Metrics at the edges of what numbers can say.

Before: ``auc([0, 1], [10**30, 10**30 + 1])`` was 0.5 (Python integers beyond
int64 were converted to float64 first, which ties them), ``roc:1e300`` raised
"OverflowError: Python int too large to convert to C long" when used, and a
plugin metric returning NaN passed through ``evaluate`` and ``Metric.__call__``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankcore
from rankcore.metrics import Metric, auc, evaluate
from rankcore.registry import register_plugin, unregister_plugin
from rankcore.spec import SpecError


@pytest.mark.parametrize("scores, expected", [
    ([10**30, 10**30 + 1], 1.0),
    ([10**30 + 1, 10**30], 0.0),
    ([10**30, 10**30], 0.5),
    ([-(10**400), 10**400], 1.0),                  # beyond float64's range: ranked exactly
    ([2**63, 2**63 + 1], 1.0),                      # just beyond int64
])
def test_auc_orders_python_integers_exactly(scores, expected):
    assert auc([0, 1], scores) == expected


def test_order_based_metrics_agree_on_big_integers_and_their_ranks():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=50)
    small = rng.integers(0, 20, size=50)
    big = [10**40 + int(v) for v in small]
    for spec in ("auc", "prec@k:10", "pauc:0.2", "ks", "rmax"):
        assert evaluate(y, big, [spec])[spec] == evaluate(y, small, [spec])[spec]


def test_value_based_metrics_refuse_integers_float64_cannot_tell_apart():
    with pytest.raises(ValueError, match=r"scores: integer values beyond"):
        evaluate([0, 1, 0, 1], [10**30, 10**30 + 1, 10**30 + 2, 10**30 + 3], ["roc"])   # thresholds are values


def test_mixed_python_numbers_still_convert():
    assert auc([0, 1, 0, 1], [0.5, 10**30, 1, 0.75]) == 0.75


@pytest.mark.parametrize("spec", ["roc:1e300", "roc:9223372036854775808", "roc:1e19"])
def test_roc_with_a_count_beyond_int64_is_a_spec_error(spec):
    with pytest.raises(SpecError, match="max_fp"):
        metric = rankcore.get_registry().resolve("metric", spec)
        metric([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])


def test_roc_with_a_large_count_inside_int64_works():
    curve = rankcore.get_registry().resolve("metric", "roc:1e18")([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    assert curve.fp[-1] == 2


class _NaNMetric(Metric):
    name = "test-nan-metric"
    order_invariant = True

    def compute(self, y, scores):
        return math.nan


class _StringMetric(Metric):
    name = "test-string-metric"

    def compute(self, y, scores):
        return "good"


@pytest.fixture
def bad_metrics():
    class Plugin:
        @rankcore.hookimpl
        def rankcore_register_metrics(self):
            return [_NaNMetric, _StringMetric]

    plugin = Plugin()
    register_plugin(plugin, name="test-bad-metrics")
    try:
        yield
    finally:
        unregister_plugin("test-bad-metrics")


@pytest.mark.parametrize("name", ["test-nan-metric", "test-string-metric"])
def test_a_plugin_metric_returning_a_non_number_is_a_clear_error_naming_it(bad_metrics, name):
    y, s = [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match=rf"metric '{name}' returned"):
        evaluate(y, s, ["auc", name])
    with pytest.raises(ValueError, match=rf"metric '{name}' returned"):
        rankcore.get_registry().resolve("metric", name)(y, s)

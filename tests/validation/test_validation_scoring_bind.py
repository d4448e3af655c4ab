"""Early stopping's bound validation scorer (``MetricScoring.bind``) against the metric called directly."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import rankcore
from rankcore.push._scoring import MetricScoring

SPECS = ["pauc:0.1", "auc", "prec@k:0.05", "prec@k:7", "ks", "rmax"]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(20, 300), spec=st.sampled_from(SPECS))
def test_bound_scorer_is_the_metric_bit_for_bit(seed, n, spec):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int8)
    y[:2] = [0, 1]
    metric = rankcore.resolve("metric", spec)
    score = MetricScoring(metric).bind(y)
    for scores in (rng.normal(size=n), np.round(rng.normal(size=n), 1), np.zeros(n)):   # ties too
        assert score(scores) == float(metric(y, scores))
    as_list = list(rng.normal(size=n))           # not an array: the metric's own route
    assert score(as_list) == float(metric(y, as_list))


def test_bound_scorer_refuses_what_the_metric_refuses():
    y = np.array([0, 1, 0, 1, 1, 0], dtype=np.int8)
    metric = rankcore.resolve("metric", "auc")
    score = MetricScoring(metric).bind(y)
    for bad in (np.array([0.1, np.nan, 0.3, 0.2, 0.5, 0.0]), np.array([0.1, np.inf, 0.3, 0.2, 0.5, 0.0])):
        with pytest.raises(ValueError) as bound_error:
            score(bad)
        with pytest.raises(ValueError) as direct_error:
            metric(y, bad)
        assert str(bound_error.value) == str(direct_error.value)
    with pytest.raises(ValueError):
        score(np.zeros(5))                       # the wrong length: the metric's own check
    assert score(np.arange(6, dtype=np.float32)) == float(metric(y, np.arange(6, dtype=np.float32)))


def test_bind_checks_the_labels_once_up_front():
    metric = rankcore.resolve("metric", "auc")
    with pytest.raises(ValueError, match="class"):
        MetricScoring(metric).bind(np.zeros(5, dtype=np.int8))

"""Integer scores beyond 2**53 (nanosecond timestamps) keep their exact order in every metric.

float64 rounds 2**62 and 2**62 + 1 to the same value, which would tie them.
Order-based metrics rank such integers exactly; the others refuse them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import rankcore
from rankcore import metrics as rm
from rankcore.validation import check_scores

ORDER_METRICS = ["auc", "pauc:0.3", "tpauc:0.5,0.5", "ks", "prec@k:3", "rmax", "max_height", "pnorm:4", "height",
                 "misrank"]


def _exact_ranks(scores):
    """Dense ranks from Python integers (arbitrary precision): the exact order."""
    values = [int(v) for v in scores]
    rank = {v: i for i, v in enumerate(sorted(set(values)))}
    return np.array([rank[v] for v in values], dtype=np.float64)


def _same(a, b):
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


def test_auc_of_neighbouring_huge_integers_is_exact_like_scikit_learn():
    s = [2**62, 2**62 + 1]
    assert rm.auc([0, 1], s) == skm.roc_auc_score([0, 1], s) == 1.0
    assert rm.auc([1, 0], s) == 0.0
    assert rankcore.evaluate([0, 1], s, ["auc", "ks", "rmax"]) == {"auc": 1.0, "ks": 1.0, "rmax": 1}


def test_uint64_beyond_int64_keeps_its_order():
    s = np.array([2**64 - 1, 2**64 - 2, 2**63], dtype=np.uint64)
    assert rm.auc([1, 0, 0], s) == 1.0
    assert rm.auc([0, 1, 1], s) == 0.0


@settings(max_examples=60, deadline=None)
@given(
    base=st.sampled_from([2**62, -(2**62), 2**53 + 1, -(2**63) + 100]),
    offsets=st.lists(st.integers(0, 6), min_size=4, max_size=30),
    labels=st.data(),
)
def test_order_metrics_on_huge_integers_equal_the_metric_on_exact_ranks(base, offsets, labels):
    n = len(offsets)
    y = np.array(labels.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    if y.min() == y.max():
        y[0] = 1 - y[0]
    scores = np.array([base + o for o in offsets], dtype=np.int64)
    ranks = _exact_ranks(scores)
    for spec in ORDER_METRICS:
        metric = rankcore.resolve("metric", spec)
        assert _same(metric(y, scores), metric(y, ranks)), spec
    assert rm.auc(y, scores) == pytest.approx(skm.roc_auc_score(y, scores), abs=1e-15)
    got = rankcore.evaluate(y, scores, ORDER_METRICS[:-3])
    assert got == {spec: rankcore.resolve("metric", spec)(y, ranks) for spec in ORDER_METRICS[:-3]}


@pytest.mark.parametrize("spec", ["roc", "pnorm:2,0.5"])
def test_metrics_that_read_values_refuse_integers_float64_would_tie(spec):
    with pytest.raises(ValueError, match=r"2\*\*53.*" + spec.split(",")[0]):
        rankcore.resolve("metric", spec)([0, 1], [2**62, 2**62 + 1])
    with pytest.raises(ValueError, match=r"2\*\*53"):
        rankcore.evaluate([0, 1], [2**62, 2**62 + 1], ["auc", spec])


def test_huge_integers_that_float64_keeps_apart_are_plain_floats():
    s = np.array([2**60, 2**60 + 2**10, 2**60 + 2**11], dtype=np.int64)
    curve = rm.roc_curve([0, 1, 1], s)
    assert curve.thresholds[1:].tolist() == [float(v) for v in s[::-1]]
    np.testing.assert_array_equal(check_scores(s, integers="rank"), s.astype(np.float64))


def test_check_scores_integer_modes():
    s = np.array([2**62 + 1, 2**62, 7], dtype=np.int64)
    np.testing.assert_array_equal(check_scores(s, integers="rank"), [2.0, 1.0, 0.0])
    assert check_scores(s).tolist() == [2.0**62, 2.0**62, 7.0]         # the default rounds, as before
    with pytest.raises(ValueError, match="scores: integer values beyond"):
        check_scores(s, integers="refuse")


def test_refuse_large_mode_refuses_any_integer_beyond_2_53():
    check_scores(np.array([2**53, -(2**53)], dtype=np.int64), integers="refuse-large")
    with pytest.raises(ValueError, match="a chunked evaluation"):
        check_scores(np.array([2**53 + 2, 0], dtype=np.int64), integers="refuse-large",
                     what="a chunked evaluation")


@settings(max_examples=60, deadline=None)
@given(base=st.sampled_from([0, 2**53, 2**62, 2**63 + 5]), offsets=st.lists(st.integers(0, 3), min_size=3,
                                                                            max_size=12),
       scores=st.lists(st.integers(-3, 3), min_size=12, max_size=12))
def test_misrank_of_huge_integer_labels_equals_it_on_their_exact_ranks(base, offsets, scores):
    # misrank reads its graded labels' order only: 2^62 and 2^62 + 1 are two grades, not one
    labels = [base + o for o in offsets]
    if len(set(labels)) < 2:
        return
    s = np.asarray(scores[:len(labels)], dtype=np.float64)
    expected = rm.misrank(_exact_ranks(labels), s)
    assert rm.misrank(np.array(labels, dtype=object if base > 2**62 else np.int64), s) == expected
    assert rankcore.evaluate(labels, s, ["misrank", "ndcg@k:1,gain=linear"])["misrank"] == expected


def test_misrank_over_queries_and_with_an_interval_reads_its_labels_by_order():
    # misrank's labels are checked apart from the other graded metrics' (by their order): every path that reads them
    # per metric finds them there
    y, s, qid = [3, 0, 1, 0, 2, 0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0, 0, 0, 1, 1, 1]
    expected = np.nanmean(rm.per_query(y, s, "misrank", qid=qid).values)
    assert rankcore.evaluate(y, s, "misrank", qid=qid)["misrank"] == pytest.approx(expected)
    assert rankcore.evaluate(y, s, ["misrank", "ndcg@k:2"], qid=qid)["misrank"] == pytest.approx(expected)
    huge = [2**62, 2**62 + 1, 0] * 2
    both = rankcore.evaluate(huge, [1.0, 0.0, -1.0] * 2, ["misrank", "ndcg@k:2,gain=linear"], qid=qid)
    assert both["misrank"] == pytest.approx(1 / 3)
    interval = rankcore.evaluate([0, 0, 1, 1, 0, 1, 0, 1, 1, 0], np.linspace(0.1, 1.0, 10), "misrank", ci=0.9,
                                 random_state=0)["misrank"]
    assert interval.lower <= interval.estimate <= interval.upper


def test_integers_beyond_2_53_beside_floats_keep_their_exact_order():
    # NumPy reads such a list as float64, which ties 2**62 and 2**62 + 1; as Python numbers they compare exactly
    assert rm.auc([0, 1, 0], [2**62 + 1, 2**62, 0.5]) == rm.auc([0, 1, 0], [2, 1, 0.5])
    assert rm.misrank([2**62, 2**62 + 1, 0.5], [1, 0, -1]) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match=r"scores: expected finite numbers, got NaN"):
        rm.auc([0, 1, 0], [2**62 + 1, 2**62, float("nan")])

"""Property-based invariants of the metrics (hypothesis).

Scores are drawn as small integers so that ties are frequent and every
transform below is exact in floating point (a transform that merged two
scores by rounding would not be "strictly increasing" any more).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import rankcore
from rankcore import metrics as rm

SCALAR_SPECS = [
    "auc", "pauc:0.1", "pauc:0.4,mcclish", "tpauc:0.3,0.6", "tpauc:0.5,0.5,normalized", "ks",
    "prec@k:1", "prec@k:3", "prec@k:0.3", "rmax", "max_height", "pnorm:1", "pnorm:4", "pnorm:64",
    "pnorm:2,1",
]
MONOTONE_SPECS = SCALAR_SPECS  # docs/theory/metrics.md#monotone-metrics
ORDER_ONLY_SPECS = [s for s in SCALAR_SPECS if s != "pnorm:2,1"]  # a margin θ ≠ 0 depends on the scale


@st.composite
def bipartite(draw, min_size=3, max_size=40):  # n >= 3 for prec@k:3
    n = draw(st.integers(min_size, max_size))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    assume(0 < sum(y) < n)
    levels = draw(st.integers(1, 12))
    scores = draw(st.lists(st.integers(-levels, levels), min_size=n, max_size=n))
    return np.array(y, dtype=np.int8), np.array(scores, dtype=np.float64)


def _metric(spec):
    return rankcore.resolve("metric", spec)


def _values(y, s):
    return {spec: _metric(spec)(y, s) for spec in SCALAR_SPECS}


@given(bipartite())
def test_reversing_scores_maps_auc_to_one_minus_auc(data):
    y, s = data
    assert rm.auc(y, -s) == pytest.approx(1 - rm.auc(y, s), abs=1e-12)


@given(bipartite())
def test_swapping_labels_and_reversing_keeps_auc(data):
    y, s = data
    assert rm.auc(1 - y, -s) == pytest.approx(rm.auc(y, s), abs=1e-12)


@given(bipartite(), st.integers(-1000, 1000), st.sampled_from(["affine", "cube", "exp", "shift"]))
def test_strictly_increasing_map_changes_nothing(data, c, kind):
    y, s = data
    mapped = {"affine": 3.0 * s + c, "cube": s ** 3 + c, "exp": np.exp(s / 7.0) + abs(c),
              "shift": s + c}[kind]
    before, after = _values(y, s), _values(y, mapped)
    for spec in ORDER_ONLY_SPECS if kind != "shift" else SCALAR_SPECS:
        assert after[spec] == pytest.approx(before[spec], abs=1e-12), spec
    np.testing.assert_array_equal(rm.height(y, mapped), rm.height(y, s))
    np.testing.assert_array_equal(rm.roc_curve(y, mapped).tp, rm.roc_curve(y, s).tp)


@given(bipartite(), st.randoms(use_true_random=False))
def test_permuting_examples_changes_nothing(data, random):
    y, s = data
    perm = np.array(random.sample(range(y.size), y.size))
    before, after = _values(y, s), _values(y[perm], s[perm])
    for spec in SCALAR_SPECS:
        assert after[spec] == pytest.approx(before[spec], abs=1e-12), spec
    # height follows the negatives: same multiset, permuted like them
    h, h_perm = rm.height(y, s), rm.height(y[perm], s[perm])
    np.testing.assert_array_equal(np.sort(h), np.sort(h_perm))
    neg_index = np.flatnonzero(y == 0)
    order_after = perm[y[perm] == 0]
    lookup = dict(zip(neg_index, h))
    np.testing.assert_array_equal(h_perm, [lookup[i] for i in order_after])
    curve, curve_perm = rm.roc_curve(y, s), rm.roc_curve(y[perm], s[perm])
    for a, b in zip(curve, curve_perm):
        np.testing.assert_array_equal(a, b)


@given(bipartite(), st.data())
def test_monotone_metrics_never_get_worse(data, draw):
    """Raising a positive or lowering a negative never makes a monotone metric worse."""
    y, s = data
    idx = draw.draw(st.integers(0, y.size - 1))
    step = draw.draw(st.integers(0, 5))
    moved = s.copy()
    moved[idx] += step if y[idx] == 1 else -step
    for spec in MONOTONE_SPECS:
        metric = _metric(spec)
        assert metric.monotone
        before, after = metric(y, s), metric(y, moved)
        if metric.greater_is_better:
            assert after >= before - 1e-12, spec
        else:
            assert after <= before + 1e-12, spec
    # the curve and the heights move the right way pointwise too
    assert np.all(rm.height(y, moved) <= rm.height(y, s))


@given(bipartite())
def test_metric_relations(data):
    y, s = data
    n_pos = int(y.sum())
    assert rm.max_height(y, s) == n_pos - rm.rmax(y, s)
    assert rm.max_height(y, s) == rm.height(y, s).max()
    assert rm.pnorm_risk(y, s, 1) == pytest.approx(rm.height(y, s).mean() / n_pos, abs=1e-12)
    assert rm.pauc(y, s, 1.0) == pytest.approx(rm.auc(y, s), abs=1e-12)
    assert rm.tpauc(y, s, 0.0, 0.4) == pytest.approx(rm.pauc(y, s, 0.4), abs=1e-12)
    # larger p weighs the top more: R^p is non-decreasing in p, bounded by max_height / I
    r = [rm.pnorm_risk(y, s, p) for p in (1, 2, 8, 64)]
    assert all(a <= b + 1e-12 for a, b in zip(r, r[1:]))
    assert r[-1] <= rm.max_height(y, s) / n_pos + 1e-12
    # ks: the ROC's largest gap above the diagonal
    curve = rm.roc_curve(y, s)
    assert rm.ks(y, s) == pytest.approx(max(0.0, float(np.max(curve.tpr - curve.fpr))), abs=1e-12)
    # prec@k at k = n is the base rate
    assert rm.prec_at_k(y, s, y.size) == pytest.approx(n_pos / y.size, abs=1e-12)


@given(bipartite())
def test_perfect_and_reversed_rankings(data):
    y, _ = data
    perfect = y.astype(float)
    assert rm.auc(y, perfect) == 1.0
    assert rm.ks(y, perfect) == 1.0
    assert rm.rmax(y, perfect) == int(y.sum())
    assert rm.pnorm_risk(y, perfect, 8) == 0.0
    assert rm.pauc(y, perfect, 0.3, scale="mcclish") == pytest.approx(1.0)
    assert rm.tpauc(y, perfect, 0.4, 0.3, scale="normalized") == pytest.approx(1.0)
    assert rm.auc(y, -perfect) == 0.0
    assert rm.rmax(y, -perfect) == 0


@st.composite
def graded(draw):
    n = draw(st.integers(2, 40))
    y = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    assume(len(set(y)) > 1)
    s = draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n))
    return np.array(y, dtype=float), np.array(s, dtype=float)


@given(graded(), st.randoms(use_true_random=False))
def test_misrank_invariants(data, random):
    y, s = data
    value = rm.misrank(y, s)
    assert 0.0 <= value <= 1.0
    perm = np.array(random.sample(range(y.size), y.size))
    assert rm.misrank(y[perm], s[perm]) == pytest.approx(value, abs=1e-12)
    assert rm.misrank(y, 2 * s ** 3 + 5) == pytest.approx(value, abs=1e-12)
    # relabeling by any increasing map of y changes nothing either
    assert rm.misrank(np.exp(y), s) == pytest.approx(value, abs=1e-12)
    # scoring by the labels themselves misranks nothing
    assert rm.misrank(y, y) == 0.0

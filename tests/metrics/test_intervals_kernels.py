"""The interval kernels against plain NumPy references: tie-group metrics, replicate drivers, sampler, placements.

References: the metric definitions of tests/metrics/test_metrics_reference.py evaluated
on the *repeated rows* of a replicate (a row of weight w appears w times), the
O(I·K) pair kernel ψ for DeLong's placements, and scipy's binomial law for
the sampler.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rankcore
from rankcore.metrics import _bootstrap as kb
from rankcore.metrics._delong import paired_delong
from rankcore.metrics._resampling import tie_groups
from test_metrics_reference import (
    auc_ref,
    ks_ref,
    max_height_ref,
    pauc_ref,
    pnorm_ref,
    prec_at_k_ref,
    rmax_ref,
    tpauc_ref,
)

REFERENCES = {
    "auc": auc_ref,
    "pauc:0.1": lambda y, s: pauc_ref(y, s, 0.1),
    "pauc:0.3,mcclish": lambda y, s: pauc_ref(y, s, 0.3, "mcclish"),
    "pauc:1": lambda y, s: pauc_ref(y, s, 1.0),
    "tpauc:0.5,0.5": lambda y, s: tpauc_ref(y, s, 0.5, 0.5),
    "tpauc:0.2,0.3,normalized": lambda y, s: tpauc_ref(y, s, 0.2, 0.3, "normalized"),
    "ks": ks_ref,
    "prec@k:1": lambda y, s: prec_at_k_ref(y, s, 1),
    "prec@k:7": lambda y, s: prec_at_k_ref(y, s, 7),
    "prec@k:0.2": lambda y, s: prec_at_k_ref(y, s, max(1, int(np.floor(0.2 * y.shape[0] + 0.5)))),
    "rmax": rmax_ref,
    "max_height": max_height_ref,
    "pnorm:1": lambda y, s: pnorm_ref(y, s, 1.0),
    "pnorm:64": lambda y, s: pnorm_ref(y, s, 64.0),
}
SPECS = sorted(REFERENCES)


def _reference(spec, y, s):
    """The NumPy reference, NaN where the metric is undefined (a class absent)."""
    if spec.startswith("prec@k"):
        return float(REFERENCES[spec](y, s)) if y.shape[0] >= 7 or spec != "prec@k:7" else float("nan")
    if y.all() or not y.any():
        return float("nan")
    return float(REFERENCES[spec](y, s))


def _groups_of(y, s):
    from rankcore.metrics._split import split_sorted

    return tie_groups(*split_sorted(y.astype(np.int8), s.astype(np.float64)))


def _repeated(values, pos_w, neg_w):
    """The rows of a replicate from its tie-group weights."""
    p = np.asarray(pos_w, dtype=np.int64)
    q = np.asarray(neg_w, dtype=np.int64)
    y = np.r_[np.ones(p.sum(), np.int8), np.zeros(q.sum(), np.int8)]
    return y, np.r_[np.repeat(values, p), np.repeat(values, q)]


@st.composite
def tied_data(draw, min_size=4, max_size=60):
    n = draw(st.integers(min_size, max_size))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int8)
    y[:2] = (0, 1)
    levels = draw(st.integers(1, 12))
    s = np.array(draw(st.lists(st.integers(0, levels), min_size=n, max_size=n)), dtype=np.float64)
    return y, s


# ---------------------------------------------------------------------------
# tie groups, group kernels
# ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(tied_data())
def test_tie_groups_match_numpy(data):
    y, s = data
    pos_size, neg_size, values = _groups_of(y, s)
    expected = np.unique(s)[::-1]
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(pos_size, [np.count_nonzero((s == v) & (y == 1)) for v in expected])
    np.testing.assert_array_equal(neg_size, [np.count_nonzero((s == v) & (y == 0)) for v in expected])


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=40, deadline=None)
@given(data=tied_data())
def test_group_kernel_with_unit_weights_is_the_metric(spec, data):
    y, s = data
    metric = rankcore.resolve("metric", spec)
    if spec == "prec@k:7" and y.shape[0] < 7:
        return
    pos_size, neg_size, _ = _groups_of(y, s)
    got = metric.from_weighted_groups(pos_size, neg_size)
    assert got == pytest.approx(float(metric(y, s)), rel=1e-12, abs=1e-12)
    assert got == pytest.approx(_reference(spec, y, s), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=40, deadline=None)
@given(data=tied_data(), seed=st.integers(0, 2**32 - 1))
def test_group_kernel_with_integer_weights_is_the_metric_of_the_repeated_rows(spec, data, seed):
    y, s = data
    pos_size, neg_size, values = _groups_of(y, s)
    rng = np.random.default_rng(seed)
    pos_w = np.where(pos_size > 0, rng.integers(0, 4, pos_size.shape[0]), 0).astype(float)
    neg_w = np.where(neg_size > 0, rng.integers(0, 4, neg_size.shape[0]), 0).astype(float)
    y_rep, s_rep = _repeated(values, pos_w, neg_w)
    if y_rep.shape[0] == 0 or (spec == "prec@k:7" and y_rep.shape[0] < 7):
        return
    got = rankcore.resolve("metric", spec).from_weighted_groups(pos_w, neg_w)
    expected = _reference(spec, y_rep, s_rep)
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_group_kernel_evaluate_rejects_bad_weights():
    kernel = rankcore.resolve("metric", "auc").weighted_group_kernel()
    with pytest.raises(ValueError, match="pos_weight, neg_weight"):
        kernel.evaluate([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="non-negative"):
        kernel.evaluate([1.0, -1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="finite"):
        kernel.evaluate([1.0, np.nan], [1.0, 1.0])


# ---------------------------------------------------------------------------
# replicate drivers: each replicate equals the reference on its repeated rows
# ---------------------------------------------------------------------------


def _case(seed, n=120):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(np.int8)
    y[:4] = (0, 0, 1, 1)
    s = np.round(rng.normal(size=n) + y, 1)  # many ties
    return y, s


@pytest.mark.parametrize("stratified", [True, False], ids=["stratified", "pooled"])
@pytest.mark.parametrize("spec", SPECS)
def test_bootstrap_groups_replicates_match_reference(spec, stratified):
    y, s = _case(1)
    pos_size, neg_size, values = _groups_of(y, s)
    kernel = rankcore.resolve("metric", spec).weighted_group_kernel()
    got = kb.bootstrap_groups(kernel, pos_size, neg_size, 99, 40, stratified, 1)
    pos_w, neg_w = kb.bootstrap_group_weights(pos_size, neg_size, 99, 0, 40, stratified)
    for r in range(40):
        if stratified:
            assert pos_w[r].sum() == y.sum() and neg_w[r].sum() == (y == 0).sum()
        expected = _reference(spec, *_repeated(values, pos_w[r], neg_w[r]))
        if np.isnan(expected):
            assert np.isnan(got[r])
        else:
            assert got[r] == pytest.approx(expected, rel=1e-12, abs=1e-12), r


@pytest.mark.parametrize("spec", ["auc", "pauc:0.1", "prec@k:5", "ks"])
def test_bootstrap_groups_do_not_depend_on_threads_or_chunking(spec):
    y, s = _case(2, n=3000)
    pos_size, neg_size, _ = _groups_of(y, s)
    kernel = rankcore.resolve("metric", spec).weighted_group_kernel()
    one = kb.bootstrap_groups(kernel, pos_size, neg_size, 5, 300, True, 1)
    two = kb.bootstrap_groups(kernel, pos_size, neg_size, 5, 300, True, 2)
    tail = kb.bootstrap_groups(kernel, pos_size, neg_size, 5, 100, True, 2, 200)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one[200:], tail)


@pytest.mark.parametrize("stratified", [True, False], ids=["stratified", "pooled"])
def test_bootstrap_rows_replicates_match_reference(stratified):
    y, s1 = _case(3)
    s2 = np.round(s1 + np.random.default_rng(4).normal(size=y.shape[0]), 0)
    from rankcore.metrics._resampling import _order_and_ends

    parts = [_order_and_ends(s) for s in (s1, s2)]
    orders = np.ascontiguousarray(np.stack([p[0] for p in parts]))
    ends = np.ascontiguousarray(np.stack([p[1] for p in parts]))
    n_groups = np.array([p[2] for p in parts], dtype=np.int64)
    weights = kb.bootstrap_row_weights(y, 17, 0, 30, stratified)
    if stratified:
        assert (weights[:, y == 1].sum(axis=1) == y.sum()).all()
    assert (weights.sum(axis=1) == y.shape[0]).all()
    for spec in ("auc", "pauc:0.1", "prec@k:0.2", "rmax", "tpauc:0.5,0.5"):
        kernel = rankcore.resolve("metric", spec).weighted_group_kernel()
        got = kb.bootstrap_rows(kernel, y, orders, ends, n_groups, 17, 30, stratified, 2)
        for r in range(30):
            y_rep = np.repeat(y, weights[r])
            for j, s in enumerate((s1, s2)):
                expected = _reference(spec, y_rep, np.repeat(s, weights[r]))
                assert got[r, j] == pytest.approx(expected, rel=1e-12, abs=1e-12, nan_ok=True), (spec, r, j)


def test_bootstrap_rows_validates_its_arrays():
    y = np.array([0, 1, 0, 1], dtype=np.int8)
    kernel = rankcore.resolve("metric", "auc").weighted_group_kernel()
    orders = np.array([[0, 1, 2, 7]], dtype=np.int64)
    ends = np.full((1, 4), 4, dtype=np.int64)
    with pytest.raises(ValueError, match="is not a row index"):
        kb.bootstrap_rows(kernel, y, orders, ends, np.array([1]), 0, 10)
    with pytest.raises(ValueError, match="expected shapes"):
        kb.bootstrap_rows(kernel, y, orders[:, :3], ends, np.array([1]), 0, 10)


# ---------------------------------------------------------------------------
# the sampler: binomial draws and multinomial replicates
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("m, q", [(10, 0.3), (40, 0.05), (25, 0.8), (1, 0.5)])
def test_binomial_sampler_matches_the_law_chi_square(m, q):
    draws = kb.binomial_draws(m, q, 40_000, 7)
    observed = np.bincount(draws, minlength=m + 1)
    expected = stats.binom.pmf(np.arange(m + 1), m, q) * draws.shape[0]
    keep = expected >= 5
    chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum() + (
        (observed[~keep].sum() - expected[~keep].sum()) ** 2 / max(expected[~keep].sum(), 1e-9))
    assert stats.chi2.sf(chi2, keep.sum()) > 1e-4


@pytest.mark.parametrize("m, q", [(1000, 0.3), (10**6, 256 / 10**6), (10**7, 0.999), (5000, 0.5)])
def test_binomial_sampler_moments_in_the_mode_search_regime(m, q):
    draws = kb.binomial_draws(m, q, 50_000, 3).astype(float)
    mean, var = m * q, m * q * (1 - q)
    assert abs(draws.mean() - mean) < 5 * np.sqrt(var / draws.shape[0])
    assert abs(draws.var() / var - 1) < 0.05
    assert draws.min() >= 0 and draws.max() <= m


def test_replicate_weights_have_multinomial_moments():
    """Group weights of stratified replicates: mean c, variance I·(c/I)(1 − c/I), sums fixed."""
    pos_size = np.array([1, 300, 0, 2, 50, 1], dtype=np.int64)
    neg_size = np.array([0, 4, 500, 1, 0, 2], dtype=np.int64)
    pos_w, neg_w = kb.bootstrap_group_weights(pos_size, neg_size, 11, 0, 20_000, True)
    for size, w in ((pos_size, pos_w), (neg_size, neg_w)):
        total = size.sum()
        assert (w.sum(axis=1) == total).all()
        p = size / total
        assert (np.abs(w.mean(axis=0) - size) <= 5 * np.sqrt(total * p * (1 - p) / 20_000) + 1e-12).all()
        np.testing.assert_allclose(w.var(axis=0), total * p * (1 - p), rtol=0.06, atol=1e-9)
    pooled_pos, pooled_neg = kb.bootstrap_group_weights(pos_size, neg_size, 11, 0, 20_000, False)
    n, i = (pos_size.sum() + neg_size.sum()), pos_size.sum()
    totals = pooled_pos.sum(axis=1)
    assert (totals + pooled_neg.sum(axis=1) == n).all()
    assert abs(totals.mean() - i) < 5 * np.sqrt(n * (i / n) * (1 - i / n) / 20_000)
    assert totals.var() == pytest.approx(n * (i / n) * (1 - i / n), rel=0.06)


def test_row_weights_have_multinomial_moments():
    y = np.r_[np.ones(30), np.zeros(70)].astype(np.int8)
    w = kb.bootstrap_row_weights(y, 4, 0, 20_000, True).astype(float)
    np.testing.assert_allclose(w.mean(axis=0), 1.0, atol=0.05)
    np.testing.assert_allclose(w[:, :30].var(axis=0).mean(), 1 - 1 / 30, rtol=0.03)
    np.testing.assert_allclose(w[:, 30:].var(axis=0).mean(), 1 - 1 / 70, rtol=0.03)


# ---------------------------------------------------------------------------
# DeLong's placements
# ---------------------------------------------------------------------------


def _psi(pos, neg):
    return (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])


@settings(max_examples=60, deadline=None)
@given(tied_data())
def test_placements_match_the_pair_kernel(data):
    y, s = data
    pos, neg = np.sort(s[y == 1]), np.sort(s[y == 0])
    v10, v01 = kb.placements(pos, neg)
    psi = _psi(pos, neg)
    np.testing.assert_allclose(v10, psi.mean(axis=1), rtol=0, atol=1e-15)
    np.testing.assert_allclose(v01, psi.mean(axis=0), rtol=0, atol=1e-15)


def test_paired_delong_matches_the_pair_kernel_reference():
    rng = np.random.default_rng(5)
    y = (rng.random(90) < 0.4).astype(np.int8)
    scorings = [np.round(rng.normal(size=90) + y, 1), rng.integers(0, 5, 90).astype(float) + y]
    aucs, cov = paired_delong(y, scorings)
    v10 = np.stack([_psi(s[y == 1], s[y == 0]).mean(axis=1) for s in scorings])
    v01 = np.stack([_psi(s[y == 1], s[y == 0]).mean(axis=0) for s in scorings])
    expected = np.cov(v10) / v10.shape[1] + np.cov(v01) / v01.shape[1]
    np.testing.assert_allclose(cov, expected, rtol=1e-12)
    np.testing.assert_allclose(aucs, [auc_ref(y, s) for s in scorings], rtol=1e-12)


@pytest.mark.parametrize("pos, message", [
    ([0.5, 0.1], r"^pos: expected scores in ascending order \(as split_sorted gives them\), got 0\.5 before 0\.1 at "
                 r"position 0$"),
    ([np.nan], r"^pos: expected finite numbers, got NaN"),
    ([[1.0]], r"^pos: expected a 1-D array"),
])
def test_tie_groups_refuses_sides_that_are_not_sorted_scores(pos, message):
    # the groups are read off sorted sides: anything else would give wrong groups without a word
    with pytest.raises(ValueError, match=message):
        tie_groups(np.array(pos), np.array([0.1]))

"""Built-in learners: bin edges, threshold dedup, histogram kernel vs NumPy, best split vs brute force."""

import numpy as np
import pytest

from rankcore.learners import (
    FeatureRanker,
    Features,
    Stumps,
    ThresholdLayout,
    ThresholdRanker,
    Thresholds,
    bin_edges,
    check_thresholds,
    quantile_thresholds,
    sample_rows,
)
from rankcore.learners import _threshold_kernels
from rankcore.registry import resolve
from rankcore.spec import SpecError
from rankcore.testing import check_component


# --------------------------------------------------------------------------
# bin edges (the documented rule shared with distributed fits)
# --------------------------------------------------------------------------

def test_bin_edges_exact_when_few_distinct_values():
    X = np.array([[3.0], [1.0], [2.0], [2.0], [5.0]])
    (edges,) = bin_edges(X, max_bins=8)
    np.testing.assert_array_equal(edges, [1.5, 2.5, 4.0])


def test_bin_edges_separate_adjacent_floats():
    a = 1.0
    b = np.nextafter(a, 2.0)                      # the midpoint rounds to a or b
    X = np.array([[a], [b], [a]])
    (edges,) = bin_edges(X)
    assert edges.shape == (1,) and a <= edges[0] < b
    assert (X[:, 0] > edges[0]).tolist() == [False, True, False]


def test_bin_edges_quantiles_when_many_distinct_values():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 2))
    edges = bin_edges(X, max_bins=16, subsample=None)
    for j, e in enumerate(edges):
        assert 1 <= e.shape[0] <= 15 and np.all(np.diff(e) > 0)
        counts = np.histogram(X[:, j], bins=np.r_[-np.inf, e, np.inf])[0]
        assert counts.min() > 0.5 * 5000 / 16 and counts.max() < 2 * 5000 / 16   # roughly equal mass


def test_bin_edges_sample_is_reproducible_and_documented():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 3))
    e1 = bin_edges(X, max_bins=32, subsample=500, random_state=7)
    e2 = bin_edges(X, max_bins=32, subsample=500, random_state=7)
    e3 = bin_edges(X[sample_rows(3000, 500, 7)], max_bins=32, subsample=None)
    for a, b, c in zip(e1, e2, e3):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    rows = sample_rows(3000, 500, 7)
    expected = np.sort(np.random.default_rng(7).choice(np.arange(3000), size=500, replace=False))
    np.testing.assert_array_equal(rows, expected)


def test_bin_edges_ignore_zero_weight_rows():
    X = np.array([[0.0], [1.0], [2.0], [100.0]])
    (edges,) = bin_edges(X, sample_weight=[1, 1, 1, 0])
    np.testing.assert_array_equal(edges, [0.5, 1.5])


def _weighted_lower_quantiles(values, weights, fractions):
    """Plain reference: the smallest value whose weight at or below it reaches each fraction of the total."""
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order]
    cum = np.cumsum(w.astype(object))                      # exact for integer weights
    return np.array([v[next(i for i, c in enumerate(cum) if c >= f * cum[-1])] for f in fractions])


@pytest.mark.parametrize("scale", [0.1, 3.0, 1e-7, 1e50, 7e-20])
def test_weighted_quantiles_do_not_move_when_every_weight_is_scaled(scale):
    # integer weights put running sums exactly on the levels (a sum of 25 at 25.0); scaled by 0.1 the same sum
    # rounds to 2.5000000000000004 or 2.4999999999999996: the quantiles must not follow the rounding
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 3))
    w = rng.integers(1, 6, size=600).astype(np.float64)
    for max_bins in (8, 16, 50):
        for a, b in zip(bin_edges(X, max_bins=max_bins, sample_weight=w),
                        bin_edges(X, max_bins=max_bins, sample_weight=w * scale)):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(quantile_thresholds(X, 7, sample_weight=w), quantile_thresholds(X, 7, sample_weight=w * scale)):
        np.testing.assert_array_equal(a, b)
    fractions = np.arange(1, 8) / 8
    for j in range(3):
        np.testing.assert_array_equal(quantile_thresholds(X[:, [j]], 7, sample_weight=w * scale)[0],
                                      np.unique(_weighted_lower_quantiles(X[:, j], w, fractions)))


def test_unweighted_quantiles_keep_their_rule_and_equal_weights_are_none():
    # levels b/50·600 or j/100·600 that round above the count landing on them (0.07 · 600 = 42.00000000000001):
    # the unweighted rule compares counts exactly (the pinned unweighted fits); equal weights, at any scale, give
    # the unweighted edges and thresholds, not the weighted rule's (which lets the count reach such a level)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 2))
    for j in range(2):
        distinct = np.unique(X[:, j])                       # all distinct: the counts are 1, 2, ..., 600
        levels = np.arange(1, 100) / 100 * 600.0
        np.testing.assert_array_equal(quantile_thresholds(X[:, [j]], 99)[0],
                                      np.unique(distinct[np.searchsorted(np.arange(1.0, 601.0), levels)]))
    for scale in (1.0, 0.1, 3.0):
        w = np.full(600, scale)
        for max_bins in (50, 100):
            for a, b in zip(bin_edges(X, max_bins), bin_edges(X, max_bins, sample_weight=w)):
                np.testing.assert_array_equal(a, b)
        for a, b in zip(quantile_thresholds(X, 99), quantile_thresholds(X, 99, sample_weight=w)):
            np.testing.assert_array_equal(a, b)



def test_equal_weights_beside_zeros_are_none_on_the_rows_they_keep():
    # rows of weight 0 are left out first: equal weights on the others are asked of those rows alone, so they give
    # the unweighted edges and thresholds of those rows (asked of every row, 0 beside 0.1 would take the weighted
    # rule, whose slack lets a count of 600 rows reach a level that rounds above it)
    import scipy.sparse as sp

    from rankcore.learners.trees._binning import tree_edges

    rng = np.random.default_rng(0)
    X = rng.normal(size=(900, 2))
    w = np.zeros(900)
    w[rng.permutation(900)[:600]] = 0.1
    live = w > 0
    for max_bins in (50, 100):
        for a, b in zip(bin_edges(X, max_bins, sample_weight=w), bin_edges(X[live], max_bins)):
            np.testing.assert_array_equal(a, b)
        for given, kept in ((X, X[live]), (sp.csr_matrix(X), sp.csr_matrix(X[live]))):
            for a, b in zip(tree_edges(given, max_bins, w, None, 0), tree_edges(kept, max_bins, None, None, 0)):
                np.testing.assert_array_equal(a, b)
    for a, b in zip(quantile_thresholds(X, 99, sample_weight=w), quantile_thresholds(X[live], 99)):
        np.testing.assert_array_equal(a, b)

def test_stumps_model_does_not_move_when_every_weight_is_scaled():
    import rankcore

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))                          # more distinct values than bins: quantile edges
    y = (X[:, 0] + rng.normal(size=400) > 1).astype(int)
    base = rankcore.boost(learner="stumps", n_iter=10).fit(X, y, sample_weight=np.ones(400))
    for scale in (0.1, 1e50):
        model = rankcore.boost(learner="stumps", n_iter=10).fit(X, y, sample_weight=np.full(400, scale))
        assert model.rankers_ == base.rankers_
        np.testing.assert_allclose(model.decision_function(X), base.decision_function(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("max_bins", [1, 65537, 2.9, 16.5, np.float64(3.7), "16", True, float("inf"), "abc"])
def test_bin_edges_bad_max_bins(max_bins):
    with pytest.raises(ValueError, match=r"max_bins: expected an integer in \[2, 65536\]"):
        bin_edges(np.zeros((3, 1)), max_bins=max_bins)


@pytest.mark.parametrize("subsample", [0, -3, 2.5, "abc", True])
def test_bin_edges_bad_subsample(subsample):
    # each is refused by name: 0 would give no edges for any feature, -3 no array, 2.5 some other count
    with pytest.raises(ValueError, match=r"^subsample: expected a positive integer or None"):
        bin_edges(np.zeros((3, 1)), subsample=subsample)


def test_bin_edges_takes_numpy_integers():
    X = np.arange(10.0).reshape(5, 2)
    for a, b in zip(bin_edges(X, max_bins=np.int64(4), subsample=np.int64(5)), bin_edges(X, max_bins=4, subsample=5)):
        np.testing.assert_array_equal(a, b)


def test_check_thresholds_errors():
    with pytest.raises(ValueError, match=r"one array of thresholds per feature \(2\), got 1"):
        check_thresholds([[1.0]], 2)
    with pytest.raises(ValueError, match=r"thresholds\[1\]: expected finite thresholds"):
        check_thresholds([[1.0], [np.nan]], 2)
    with pytest.raises(TypeError, match="expected a list"):
        check_thresholds("1,2", 1)
    out = check_thresholds([[3.0, 1.0, 3.0], []], 2)
    np.testing.assert_array_equal(out[0], [1.0, 3.0])
    assert out[1].shape == (0,)


# --------------------------------------------------------------------------
# the histogram kernel against NumPy ([reference, fast])
# --------------------------------------------------------------------------

def _hist_reference(codes, g, n_bins):
    return np.stack([np.bincount(c, weights=g, minlength=n_bins) for c in codes.astype(np.int64)])


@pytest.mark.parametrize("n_threads", [1, 2], ids=lambda n: f"threads={n}")
@pytest.mark.parametrize("dtype, n_bins", [(np.uint8, 7), (np.uint8, 256), (np.uint16, 300), (np.uint16, 5000)],
                         ids=["u8-7", "u8-256", "u16-300", "u16-5000"])
@pytest.mark.parametrize("n", [1, 3, 5, 70_001], ids=lambda n: f"n={n}")
def test_histograms_match_bincount(n, dtype, n_bins, n_threads):
    rng = np.random.default_rng(n)
    d = 3
    codes = rng.integers(0, n_bins, size=(d, n)).astype(dtype)
    codes.setflags(write=False)
    g = rng.normal(size=n)
    hist = np.full((d, n_bins), np.nan)
    _threshold_kernels.histograms(codes, g, hist, n_threads)
    np.testing.assert_allclose(hist, _hist_reference(codes, g, n_bins), rtol=1e-12, atol=1e-12)


def test_encode_matches_searchsorted():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(1000, 4)).astype(np.float32)
    edges = bin_edges(X, max_bins=300)
    layout = ThresholdLayout(edges)
    codes = layout.encode(X)
    assert codes.dtype == np.uint16
    for j in range(4):
        np.testing.assert_array_equal(codes[j], np.searchsorted(edges[j], X[:, j].astype(np.float64), side="left"))


# --------------------------------------------------------------------------
# stumps: the best split against brute force
# --------------------------------------------------------------------------

@pytest.mark.parametrize("max_bins", [256, 8], ids=["exact", "binned"])
def test_stumps_select_the_brute_force_best_split(max_bins):
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(300, 5)), 1)       # many ties
    g = rng.normal(size=300)
    g -= g.mean()
    learner = Stumps(max_bins=max_bins)
    layout = learner.prepare(X)
    candidate = layout.select(layout.statistics(layout.encode(X), g))
    best, best_key = -1.0, None
    for j, edges in enumerate(layout.edges):
        for t in edges:
            v = abs(g @ (X[:, j] > t))
            if v > best + 1e-12:
                best, best_key = v, (j, t)
    assert (candidate.ranker.feature, candidate.ranker.threshold) == best_key
    assert abs(candidate.derivative) == pytest.approx(best, rel=1e-12)


def test_stumps_exact_candidates_are_every_split():
    X = np.array([[0.0, 5.0], [1.0, 5.0], [1.0, 6.0], [3.0, 7.0]])
    layout = Stumps().prepare(X)
    np.testing.assert_array_equal(layout.edges[0], [0.5, 2.0])
    np.testing.assert_array_equal(layout.edges[1], [5.5, 6.5])


def test_stumps_with_given_thresholds():
    X = np.arange(20.0).reshape(10, 2)
    layout = Stumps().prepare(X, thresholds=[[4.5, 10.5], [3.0]])
    np.testing.assert_array_equal(layout.edges[0], [4.5, 10.5])
    assert layout.n_candidates == 3


# --------------------------------------------------------------------------
# thresholds: the paper's fixed threshold rankers
# --------------------------------------------------------------------------

def test_thresholds_drop_equivalent_and_constant_thresholds():
    X = np.array([[1.0], [2.0], [5.0], [9.0]])
    # 2.5 and 4 split the data the same way (keep 2.5); 0 and 10 are constant.
    layout = Thresholds().prepare(X, thresholds=[[0.0, 2.5, 4.0, 5.0, 10.0]])
    np.testing.assert_array_equal(layout.edges[0], [2.5, 5.0])


def test_thresholds_quantiles():
    X = np.arange(1.0, 101.0)[:, None]
    (q,) = quantile_thresholds(X, 4)
    np.testing.assert_array_equal(q, [20.0, 40.0, 60.0, 80.0])
    layout = Thresholds(q=4).prepare(X)
    np.testing.assert_array_equal(layout.edges[0], [20.0, 40.0, 60.0, 80.0])


def test_threshold_ranker_predicts_with_strict_inequality():
    r = ThresholdRanker(1, 2.0)
    np.testing.assert_array_equal(r.predict(np.array([[0, 1.0], [0, 2.0], [0, 2.5]])), [0.0, 0.0, 1.0])
    assert r.describe(["a", "b"]) == "1[b > 2]"


# --------------------------------------------------------------------------
# features: the paper's min–max scaled features
# --------------------------------------------------------------------------

def test_features_scaling_and_extrapolation():
    X = np.array([[0.0, 3.0], [10.0, 3.0], [5.0, 3.0]])
    layout = Features().prepare(X)
    Z = layout.encode(X)
    np.testing.assert_allclose(Z[0], [0.0, 1.0, 0.5])
    np.testing.assert_array_equal(Z[1], 0.0)            # constant feature: zeros
    r = FeatureRanker(0, 0.0, 10.0)
    np.testing.assert_allclose(r.predict(np.array([[20.0, 0.0], [-5.0, 0.0]])), [2.0, -0.5])   # no clipping


def test_features_never_choose_a_constant_feature():
    X = np.column_stack([np.ones(50), np.linspace(0, 1, 50)])
    g = np.linspace(-1, 1, 50)
    layout = Features().prepare(X)
    assert layout.select(layout.statistics(layout.encode(X), g)).ranker.feature == 1
    assert Features().prepare(np.ones((5, 2))).select(np.zeros(2)) is None


def test_features_refuse_thresholds():
    with pytest.raises(ValueError, match="does not use thresholds"):
        Features().prepare(np.zeros((3, 1)), thresholds=[[0.5]])


@pytest.mark.parametrize("spec", ["features", "stumps", "stumps:max_bins=4", "stumps:max_bins=1000", "thresholds",
                                  "thresholds:q=1"])
def test_builtin_learner_contract(spec):
    check_component("learner", spec)


def test_learner_specs():
    assert resolve("learner", "stumps:max_bins=300").max_bins == 300
    with pytest.raises(SpecError, match="max_bins must be an integer >= 2"):
        resolve("learner", "stumps:max_bins=1")
    with pytest.raises(SpecError, match="unknown learner 'forest'"):
        resolve("learner", "forest")

"""Results do not depend on the number of threads.

Two levels: every parallel kernel, at sizes above its serial threshold, gives
bitwise the same output for 1, 2 and 3 threads; and every estimator that takes
``n_jobs`` refits to ``==`` weak rankers and coefficients for n_jobs 1, 2 and -1
on data full of ties (binary columns, duplicated and complementary columns, so
that several weak rankers have |Σ g h| equal or equal to rounding).
"""

import numpy as np
import pytest

from rankcore import ExactBoost, PerceptronAtK, PNormPush, PushBoost, RankBoost, SGDAtK
from rankcore.learners import _threshold_kernels
from rankcore.losses import _sorted_sums
from rankcore.objectives import _exp_kernels

THREADS = [1, 2, 3]


@pytest.fixture(autouse=True)
def _threads_as_asked(exact_threads):
    """n_jobs=k runs k threads here (-1: 8), however busy the machine: else a busy one compares one thread
    with one (``exact_threads``, conftest.py)."""
    exact_threads(2)


def _all_equal(results):
    first = results[0]
    for other in results[1:]:
        for a, b in zip(first, other):
            np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------
# Kernels (sizes above every threads_for minimum)
# ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    n = 300_000                                    # > 131072 and > 2·CHUNK: several chunks, parallel
    y = (rng.random(n) < 0.2).astype(np.int8)
    w = np.where(rng.random(n) < 0.1, 2.0, 1.0)
    f = np.round(rng.normal(size=n), 2)            # many ties
    h = (rng.random(n) < 0.5).astype(np.float64)
    return y, w, f, h


def test_exp_kernels_are_bitwise_equal_for_any_thread_count(rows):
    y, w, f, h = rows
    values = np.array([0.0, 1.0])
    results = []
    for t in THREADS:
        moments = np.empty(6)
        _exp_kernels.class_moments(y, w, f, h, 0.3, -1.0, 4.0, moments, t)
        grad = np.empty(f.shape[0])
        _exp_kernels.gradient(y, w, f, -1.0, 0.5, 0.1, 4.0, 2.0, 0.2, grad, t)
        lse = np.empty((2, 2))
        bad1 = _exp_kernels.lse_by_value(y, w, f, h, values, -1.0, 4.0, lse, t)
        sums = np.empty((2, 2))
        bad2 = _exp_kernels.group_abs_sums(y, grad, h, values, sums, t)
        results.append((moments, grad, lse, sums, np.array([bad1, bad2])))
    _all_equal(results)


def test_histogram_kernels_are_bitwise_equal_for_any_thread_count():
    rng = np.random.default_rng(1)
    n, d = 20_000, 40                              # n·d > 262144
    X = np.round(rng.normal(size=(n, d)), 1)
    edges = [np.unique(X[:, j])[:-1] + 0.05 for j in range(d)]
    offsets = np.concatenate([[0], np.cumsum([e.shape[0] for e in edges])]).astype(np.intp)
    flat = np.concatenate(edges)
    g = rng.normal(size=n)
    results = []
    for t in THREADS:
        codes = np.empty((d, n), dtype=np.uint8)
        _threshold_kernels.encode(X, flat, offsets, codes, t)
        hist = np.empty((d, 256))
        _threshold_kernels.histograms(codes, g, hist, t)
        Z = np.ascontiguousarray(X.T)
        dots = np.empty(d)
        _threshold_kernels.dots(Z, g, dots, t)
        results.append((codes, hist, dots))
    _all_equal(results)


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("n_bins", [2, 3, 100, 256])
def test_histograms_write_only_their_own_bins(n_bins, n_threads):
    """Each feature's row of hist has n_bins entries; nothing beyond them is touched.

    The rows after hist live in the same buffer, filled with -0.0: adding 0.0
    to them (what the kernel did for the bins up to 256, in the next features'
    rows and past the end) turns -0.0 into +0.0.
    """
    rng = np.random.default_rng(4)
    n, d = 40_000, 12
    codes = rng.integers(0, n_bins, size=(d, n)).astype(np.uint8)
    g = rng.normal(size=n)
    buffer = np.full((d + 300, n_bins), -0.0)
    hist = buffer[:d]
    _threshold_kernels.histograms(codes, g, hist, n_threads)
    assert np.signbit(buffer[d:]).all(), "the kernel wrote past the histogram"
    expected = np.zeros((d, n_bins))
    for j in range(d):
        np.add.at(expected[j], codes[j], g)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-9)


def test_binary_feature_histograms_do_not_race():
    """a9a-like binary features (2 bins): two threads used to lose each other's updates."""
    rng = np.random.default_rng(5)
    n, d = 30_000, 123
    codes = (rng.random((d, n)) < 0.3).astype(np.uint8)
    g = rng.normal(size=n)
    ref = np.empty((d, 2))
    _threshold_kernels.histograms(codes, g, ref, 1)
    for _ in range(30):
        hist = np.empty((d, 2))
        _threshold_kernels.histograms(codes, g, hist, 2)
        np.testing.assert_array_equal(hist, ref)


def test_histograms_check_their_shapes():
    codes = np.zeros((3, 10), dtype=np.uint8)
    with pytest.raises(ValueError, match="hist: expected 3 rows"):
        _threshold_kernels.histograms(codes, np.zeros(10), np.empty((2, 4)), 1)
    with pytest.raises(ValueError, match="g: expected 10 values"):
        _threshold_kernels.histograms(codes, np.zeros(9), np.empty((3, 4)), 1)


@pytest.mark.parametrize("degree", [1, 2])
def test_sorted_sums_are_bitwise_equal_for_any_thread_count(degree):
    rng = np.random.default_rng(2)
    I, K = 20_000, 30_000                          # K·20 > 262144
    f_pos = np.sort(np.round(rng.normal(size=I), 2))
    w_pos = np.ones(I)
    f_neg = np.round(rng.normal(size=K), 2)
    h_pos, h_neg = (rng.random(I) < 0.5) * 1.0, (rng.random(K) < 0.5) * 1.0
    c_neg = rng.random(K)
    results = []
    for t in THREADS:
        L, D = np.empty(K), np.empty(K)
        _sorted_sums.negative_sums(degree, f_pos, w_pos, f_neg, 0.25, L, D, t)
        E = np.empty(I)
        _sorted_sums.positive_sums(degree, np.sort(f_neg), c_neg, f_pos, 0.25, E, t)
        L0, L1, L2 = np.empty(K), np.empty(K), np.empty(K)
        _sorted_sums.directional_sums(degree, f_pos, w_pos, h_pos, f_neg, h_neg, 0.25, L0, L1, L2, t)
        results.append((L, D, E, L0, L1, L2))
    _all_equal(results)


# ----------------------------------------------------------------------------
# Estimators: refits with n_jobs 1, 2, -1 on tie-heavy data
# ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tied():
    rng = np.random.default_rng(3)
    n = 6000
    binary = (rng.random((n, 20)) < rng.uniform(0.05, 0.5, 20)).astype(np.float64)
    coarse = rng.integers(0, 4, size=(n, 10)).astype(np.float64)
    X = np.hstack([binary, 1.0 - binary[:, :10], binary[:, :5], coarse, coarse[:, :5]])   # 50 columns
    score = binary[:, :5].sum(axis=1) + 0.5 * coarse[:, 0] + rng.normal(0, 1, n)
    y = (score > np.quantile(score, 0.8)).astype(int)
    return X, y


BOOSTERS = {
    "RankBoost-stumps": lambda j: RankBoost(n_iter=40, n_jobs=j, random_state=0),
    "RankBoost-thresholds": lambda j: RankBoost(learner="thresholds:q=3", n_iter=40, n_jobs=j, random_state=0),
    "RankBoost-features": lambda j: RankBoost(learner="features", n_iter=40, n_jobs=j, random_state=0),
    "PNormPush-stumps": lambda j: PNormPush(p=16, n_iter=40, n_jobs=j, random_state=0),
    "PushBoost-logistic": lambda j: PushBoost(loss="logistic", price="pow:4", n_iter=6, n_jobs=j, random_state=0),
    "PushBoost-hinge": lambda j: PushBoost(loss="hinge", price="pow:2", n_iter=10, n_jobs=j, random_state=0),
}


@pytest.mark.parametrize("name", list(BOOSTERS))
def test_boosting_refits_are_identical_for_any_n_jobs(name, tied):
    X, y = tied
    fits = [BOOSTERS[name](j).fit(X, y) for j in (1, 2, -1)]
    for other in fits[1:]:
        assert other.rankers_ == fits[0].rankers_
        np.testing.assert_array_equal(other.alphas_, fits[0].alphas_)
        np.testing.assert_array_equal(other.objective_values_, fits[0].objective_values_)


def test_exactboost_refits_are_identical_for_any_n_jobs(tied):
    X, y = tied
    fits = [ExactBoost(n_runs=4, n_rounds=10, n_jobs=j, random_state=0).fit(X[:2000], y[:2000]) for j in (1, 2, -1)]
    ref = fits[0].decision_function(X)
    for other in fits[1:]:
        np.testing.assert_array_equal(other.decision_function(X), ref)


@pytest.mark.parametrize("cls", [SGDAtK, PerceptronAtK])
def test_linear_learners_refits_are_identical_for_any_n_jobs(cls, tied):
    X, y = tied
    fits = [cls(k=50, batch_size=2000, n_epochs=3, n_jobs=j, random_state=0).fit(X, y) for j in (1, 2, -1)]
    for other in fits[1:]:
        np.testing.assert_array_equal(other.coef_, fits[0].coef_)

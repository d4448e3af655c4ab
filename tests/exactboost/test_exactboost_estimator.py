"""The ExactBoost estimator: boosting for real, sane predictions, determinism, errors.

Covers the issue's items (c) a round never makes the training metric worse,
(d) determinism without subsampling, real boosting (many distinct stumps),
pure predictions, parallel runs identical to serial ones, the per-run
function, every monotone metric (built-in and third-party), the ensembler
proposition, and scikit-learn's estimator checks.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks

import rankcore
from rankcore import ExactBoost
from rankcore.exactboost._metric import is_shift_invariant, subsample_metric
from rankcore.exactboost._runs import RunSettings, fit_run, fit_runs, prepare_data, run_seeds
from rankcore.validation import check_bipartite_target

SMALL = dict(n_runs=6, n_rounds=12)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, 1 - y  # malignant on top


@pytest.fixture(scope="module")
def synthetic():
    X, y = make_classification(n_samples=400, n_features=8, n_informative=4, random_state=0)
    return X, y


def score_of_run(model, X, run):
    """A run's score recomputed from its stumps (the definition, row by row)."""
    s = np.zeros(X.shape[0])
    for feature, xi, a, b in model.run_stumps(run):
        s += np.where(X[:, int(feature)] <= xi, a, b)
    return s


# --------------------------------------------------------------------------
# scikit-learn compatibility
# --------------------------------------------------------------------------


# Checks that cannot pass by design (documented in docs/exactboost.md):
EXPECTED_FAILED_CHECKS = {
    # complex input raises TypeError (rankcore's error convention); scikit-learn wants ValueError.
    "check_complex_data": "complex X raises TypeError (rankcore convention), not ValueError",
    # 1-D X is refused with a ValueError, but not with the exact text "Reshape your data".
    "check_fit2d_predict1d": "rankcore's own message for 1-D X",
}


@parametrize_with_checks(
    [ExactBoost(n_runs=3, n_rounds=5, random_state=0)],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_exactboost_sklearn_compatible(estimator, check):
    check(estimator)


def test_exactboost_defaults_are_the_papers():
    params = ExactBoost().get_params()
    assert params["metric"] == "auc"
    assert params["margin"] == 0.05
    assert params["n_rounds"] == 50
    assert params["n_runs"] == 250
    assert params["subsample"] == 0.2
    assert params["feature_subsample"] == 0.2


def test_exactboost_clone_keeps_spec_strings():
    model = ExactBoost(metric="prec@k:10")
    assert clone(model).get_params()["metric"] == "prec@k:10"


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(metric="misrank"), "not monotone"),
        (dict(metric="roc"), "not scalar|scalar"),
        (dict(metric="no-such-metric"), "unknown metric"),
        (dict(metric="prec@k:x"), "k"),
        (dict(metric=3), "spec string"),
        (dict(n_rounds=0), r"n_rounds: expected an integer in \[1, 2147483647\], got 0"),
        (dict(n_rounds=2**31), r"n_rounds: expected an integer in \[1, 2147483647\], got 2147483648"),
        (dict(n_runs=2**64), r"n_runs: expected an integer in \[1, 2147483647\]"),
        (dict(max_thresholds=2**31), r"max_thresholds: expected an integer in \[1, 2147483647\]"),
        (dict(max_boxes=2**63), r"max_boxes: expected an integer in \[1, 9223372036854775807\]"),
        (dict(n_runs=1.5), "n_runs"),
        (dict(subsample=0.0), r"subsample: expected a fraction in \(0, 1\], got 0.0"),
        (dict(feature_subsample=1.5), "feature_subsample"),
        (dict(margin=-0.1), "margin: expected a finite number >= 0"),
        (dict(margin=float("nan")), "margin"),
        (dict(depth=0), "depth"),
        (dict(depth=40), "depth"),
        (dict(max_boxes=0), "max_boxes"),
        (dict(margin_mode="big"), "margin_mode"),
        (dict(n_jobs=0), "n_jobs"),
        (dict(random_state="seed"), "random_state"),
    ],
)
def test_exactboost_bad_parameters_are_refused_clearly(synthetic, params, message):
    X, y = synthetic
    with pytest.raises((ValueError, TypeError), match=message):
        ExactBoost(**{**SMALL, **params}).fit(X, y)


def test_exactboost_bad_data_is_refused_clearly(synthetic):
    X, y = synthetic
    model = ExactBoost(**SMALL, random_state=0)
    with pytest.raises(ValueError, match="both classes"):
        model.fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="NaN"):
        model.fit(np.where(np.eye(*X.shape) > 0, np.nan, X), y)
    with pytest.raises(ValueError, match="inconsistent lengths"):
        model.fit(X, y[:-1])
    with pytest.raises(ValueError, match="two classes"):
        model.fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match=r"k: expected a count in \[1, 400\]"):
        ExactBoost(**SMALL, metric="prec@k:1000").fit(X, y)
    model.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.decision_function(X[:, :3])
    with pytest.raises(ValueError, match="infinite"):
        model.decision_function(np.full((1, X.shape[1]), np.inf))


def test_exactboost_non_monotone_plugin_metric_is_refused(synthetic):
    class Wobbly(rankcore.Metric):
        """A metric that declares itself non-monotone."""

        name = "test-wobbly"
        monotone = False
        bounded = True

        def compute(self, y, scores):
            return 0.5

    X, y = synthetic
    with pytest.raises(ValueError, match=r"monotone.*'test-wobbly' is not monotone"):
        ExactBoost(**SMALL, metric=Wobbly()).fit(X, y)


# --------------------------------------------------------------------------
# (c) a round never makes the training metric worse; real boosting
# --------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["auc", "ks", "prec@k:0.1", "prec@k:20", "pauc:0.1", "rmax", "pnorm:8",
                                    "max_height", "tpauc:0.3,0.5"])
def test_exactboost_round_never_worsens_training_metric(cancer, metric):
    X, y = cancer
    model = ExactBoost(metric=metric, n_runs=4, n_rounds=20, random_state=1).fit(X, y)
    loss = model.train_loss_
    assert np.all(np.diff(loss, axis=1) <= 0), "a round made the training loss worse"
    # the recorded losses are the metric's loss of the run's score, recomputed from its stumps
    m = rankcore.resolve("metric", metric)
    for run in range(model.n_runs):
        assert m.loss(y, score_of_run(model, X, run)) == pytest.approx(loss[run, -1], abs=1e-12)


def test_exactboost_really_boosts(cancer):
    """Default settings: every run accepts many distinct stumps, and the training loss falls."""
    X, y = cancer
    model = ExactBoost(n_runs=8, random_state=0).fit(X, y)
    for run in range(model.n_runs):
        stumps = model.run_stumps(run)
        distinct = {tuple(row) for row in stumps}
        assert len(distinct) >= 8, f"run {run} holds only {len(distinct)} distinct stumps"
        assert len({int(f) for f in stumps[:, 0]}) >= 3, "a run should use several features"
    assert np.all(model.train_loss_[:, -1] < model.train_loss_[:, 1])  # improves after round 1
    assert model.score(X, y) > 0.99


def test_exactboost_accepts_only_when_full_training_loss_does_not_worsen(synthetic):
    """Replay every run: each stored stump keeps the full-data loss at most where it was."""
    X, y = synthetic
    model = ExactBoost(metric="ks", n_runs=3, n_rounds=15, random_state=3).fit(X, y)
    m = rankcore.resolve("metric", "ks")
    for run in range(model.n_runs):
        s = np.zeros(X.shape[0])
        previous = m.loss(y, s)
        for feature, xi, a, b in model.run_stumps(run):
            assert a != b
            s += np.where(X[:, int(feature)] <= xi, a, b)
            current = m.loss(y, s)
            assert current <= previous + 1e-12
            previous = current


# --------------------------------------------------------------------------
# (d) determinism; parallel runs; the per-run function
# --------------------------------------------------------------------------


def test_exactboost_without_subsampling_is_deterministic(synthetic):
    X, y = synthetic
    fits = [
        ExactBoost(n_runs=1, n_rounds=10, subsample=1.0, feature_subsample=1.0, random_state=seed).fit(X, y)
        for seed in (0, 1, 123)
    ]
    for other in fits[1:]:
        np.testing.assert_array_equal(fits[0].stumps_, other.stumps_)
        np.testing.assert_array_equal(fits[0].decision_function(X), other.decision_function(X))


@pytest.mark.parametrize("metric", ["auc", "prec@k:0.2"])
def test_exactboost_same_model_whatever_n_jobs(synthetic, metric, exact_threads):
    exact_threads(2)
    X, y = synthetic
    one = ExactBoost(metric=metric, n_runs=8, n_rounds=10, random_state=5, n_jobs=1).fit(X, y)
    two = ExactBoost(metric=metric, n_runs=8, n_rounds=10, random_state=5, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.stumps_, two.stumps_)
    np.testing.assert_array_equal(one.run_lengths_, two.run_lengths_)
    np.testing.assert_array_equal(one.train_loss_, two.train_loss_)


def test_exactboost_random_state_matters_and_repeats(synthetic):
    X, y = synthetic
    a = ExactBoost(**SMALL, random_state=0).fit(X, y)
    b = ExactBoost(**SMALL, random_state=0).fit(X, y)
    c = ExactBoost(**SMALL, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.stumps_, b.stumps_)
    assert a.stumps_.shape != c.stumps_.shape or not np.array_equal(a.stumps_, c.stumps_)


def test_exactboost_per_run_function_reproduces_the_estimators_runs(synthetic):
    """fit_run(data, seed, settings) is what a distributed driver ships to workers."""
    X, y = synthetic
    model = ExactBoost(n_runs=5, n_rounds=10, random_state=7, metric="ks").fit(X, y)
    y01, _ = check_bipartite_target(y)
    data = prepare_data(np.ascontiguousarray(X, dtype=np.float64), y01)
    settings = RunSettings(metric="ks", n_rounds=10, tie_break="auc")  # the estimator's "auto" for ks
    seeds = run_seeds(7, 5)
    for run in (4, 0, 2):  # any order, one at a time
        result = fit_run(data, int(seeds[run]), settings)
        kept = result.feature[0] >= 0
        rows = np.column_stack([result.feature[0][kept], result.threshold[0][kept],
                                result.a[0][kept], result.b[0][kept]])
        np.testing.assert_array_equal(rows, model.run_stumps(run))
    # and run seeds do not depend on how many runs are asked for
    np.testing.assert_array_equal(run_seeds(7, 3), seeds[:3])
    both = fit_runs(data, seeds[[1, 3]], settings, n_threads=2)
    single = fit_runs(data, seeds[[3]], settings)
    np.testing.assert_array_equal(both.feature[1], single.feature[0])
    # runs computed one by one (as on workers) and concatenated give the estimator's model
    from rankcore.exactboost import RunResult

    pieces = RunResult.concatenate([fit_run(data, int(seed), settings) for seed in seeds[::-1]][::-1])
    rebuilt = ExactBoost(n_runs=5, n_rounds=10, random_state=7, metric="ks")
    rebuilt.metric_ = rankcore.resolve("metric", "ks")
    rebuilt.classes_ = model.classes_
    rebuilt.n_features_in_ = model.n_features_in_
    rebuilt._set_runs(pieces)
    np.testing.assert_array_equal(rebuilt.decision_function(X), model.decision_function(X))


# --------------------------------------------------------------------------
# Predictions: a pure function of each row
# --------------------------------------------------------------------------


def test_exactboost_decision_function_is_pure(cancer):
    X, y = cancer
    model = ExactBoost(n_runs=10, random_state=0).fit(X, y)
    full = model.decision_function(X)
    assert np.all(np.isfinite(full))
    np.testing.assert_array_equal(full, model.decision_function(X))  # same on every call
    one_by_one = np.array([model.decision_function(X[i:i + 1])[0] for i in range(X.shape[0])])
    np.testing.assert_array_equal(full, one_by_one)  # batch size 1
    order = np.random.default_rng(0).permutation(X.shape[0])
    np.testing.assert_array_equal(full[order], model.decision_function(X[order]))  # any order
    np.testing.assert_array_equal(full[:7], model.decision_function(X[:7]))  # any batch
    # it is the average of the runs' scores, as defined by their stumps
    expected = np.mean([score_of_run(model, X, run) for run in range(model.n_runs)], axis=0)
    np.testing.assert_allclose(full, expected, rtol=0, atol=1e-12)


def test_exactboost_single_row_and_constant_feature():
    X = np.c_[np.arange(20.0), np.ones(20)]
    y = (np.arange(20) >= 10).astype(int)
    model = ExactBoost(n_runs=3, n_rounds=5, subsample=1.0, random_state=0).fit(X, y)
    assert np.isfinite(model.decision_function(X[:1])).all()
    assert model.score(X, y) == 1.0
    # labels of any two values: the greater one is ranked on top
    model2 = ExactBoost(n_runs=3, n_rounds=5, subsample=1.0, random_state=0).fit(X, np.where(y == 1, "spam", "ham"))
    assert list(model2.classes_) == ["ham", "spam"]
    np.testing.assert_array_equal(model.decision_function(X), model2.decision_function(X))


# --------------------------------------------------------------------------
# Metrics: every monotone one, built-in and third-party
# --------------------------------------------------------------------------


class PythonOnlyPrecisionAtK(rankcore.Metric):
    """A third-party-style metric without a Cython kernel (Python fallback)."""

    name = "test-python-prec@k"
    parameters = (rankcore.Parameter("k", rankcore.spec.count_or_fraction),)
    bounded = True
    requires_both_classes = False

    def compute(self, y, scores):
        from rankcore.validation import check_k

        k = check_k(self.k, y.shape[0])
        kth = np.sort(scores)[::-1][k - 1]
        above = scores > kth
        tied = scores == kth
        credit = (k - above.sum()) / tied.sum()
        return float((y[above].sum() + credit * y[tied].sum()) / k)


def test_exactboost_third_party_metric_matches_builtin(synthetic):
    """The Python fallback finds the same model as the nogil kernel of the same metric."""
    X, y = synthetic
    builtin = ExactBoost(metric="prec@k:30", n_runs=3, n_rounds=8, random_state=0).fit(X, y)
    plugin = ExactBoost(metric=PythonOnlyPrecisionAtK(k=30), n_runs=3, n_rounds=8, random_state=0).fit(X, y)
    assert not is_shift_invariant(PythonOnlyPrecisionAtK(k=30))
    # different search modes (general vs shift-invariant), same metric: both boost for real
    assert plugin.train_loss_[:, -1].max() <= plugin.train_loss_[:, 0].min()
    assert plugin.stumps_.shape[0] > 3
    assert builtin.stumps_.shape[0] > 3


def test_exactboost_third_party_metric_same_as_builtin_in_the_same_mode(synthetic):
    class DeclaredPrecisionAtK(PythonOnlyPrecisionAtK):
        name = "test-python-prec@k-si"
        shift_invariant = True

    X, y = synthetic
    for tie_break in (None, "auc"):  # "auto" gives the built-in (a cut metric) an AUC tie-break
        builtin = ExactBoost(metric="prec@k:30", n_runs=3, n_rounds=8, random_state=0, tie_break=tie_break).fit(X, y)
        plugin = ExactBoost(metric=DeclaredPrecisionAtK(k=30), n_runs=3, n_rounds=8, random_state=0, n_jobs=2,
                            tie_break=tie_break).fit(X, y)
        np.testing.assert_array_equal(builtin.stumps_, plugin.stumps_)


def test_exactboost_example_plugin_metric_if_installed(synthetic):
    from rankcore.registry import registry

    reg = registry()
    if "binary_ndcg@k" not in reg.names("metric"):
        pytest.skip("rankcore-example-plugin is not installed")
    X, y = synthetic
    model = ExactBoost(metric="binary_ndcg@k:20", n_runs=2, n_rounds=6, random_state=0).fit(X, y)
    assert np.all(np.diff(model.train_loss_, axis=1) <= 0)


def test_exactboost_subsample_metric_rescales_counts_only():
    auc = rankcore.resolve("metric", "auc")
    assert subsample_metric(auc, 500) is auc
    pak = rankcore.resolve("metric", "prec@k:10")
    scaled = subsample_metric(pak, 500)
    assert scaled.k == pytest.approx(10 / 500)
    assert subsample_metric(rankcore.resolve("metric", "prec@k:0.2"), 500).k == 0.2
    # on a subsample of 20 % the count becomes about 20 % of it
    y = np.r_[np.ones(10), np.zeros(90)].astype(np.int8)
    scores = np.r_[np.ones(10), np.zeros(90)]
    assert scaled(y, scores) == pytest.approx(1.0)


def test_exactboost_margin_modes_and_depths_all_boost(synthetic):
    X, y = synthetic
    for mode in ("normalized", "constant", "stump"):
        for depth in (1, 3, 6):
            model = ExactBoost(n_runs=2, n_rounds=10, margin_mode=mode, depth=depth, random_state=0).fit(X, y)
            assert np.all(np.diff(model.train_loss_, axis=1) <= 0)
            values = model.stumps_[:, 2:]
            assert np.all(np.abs(values) <= 1)
            # values on the grid of step 1/2**depth (re-centred (-d/2, d/2))
            np.testing.assert_array_equal(values * 2**depth, np.round(values * 2**depth))


# --------------------------------------------------------------------------
# Ensembler mode: the paper's proposition
# --------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["ks", "prec@k:0.1", "prec@k:25"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exactboost_ensembler_never_worse_than_best_base_model(metric, seed):
    """ExactBoost on base models' scores (S0 = 0, exact search on the full
    training set) is never worse on the training metric than the best base model.

    For these single-cut metrics one stump at the best model's optimal cut
    already matches it (the margin is below the grid step, so it does not move
    examples across the cut), and no later round makes it worse.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=300, n_features=10, n_informative=3, flip_y=0.1, random_state=seed)
    bases = [LogisticRegression(max_iter=500), GaussianNB(), KNeighborsClassifier(15),
             DecisionTreeClassifier(max_depth=3)]
    rng = np.random.default_rng(seed)
    Z = np.column_stack([b.fit(X, y).predict_proba(X)[:, 1] for b in bases])
    Z += rng.uniform(0, 1e-9, Z.shape)  # distinct scores (no ties at the cut)
    m = rankcore.resolve("metric", metric)
    best_base = min(m.loss(y, Z[:, j]) for j in range(Z.shape[1]))
    model = ExactBoost(metric=metric, n_runs=3, subsample=1.0, feature_subsample=1.0, max_boxes=None,
                       random_state=seed).fit(Z, y)
    assert m.loss(y, model.decision_function(Z)) <= best_base + 1e-12


# --------------------------------------------------------------------------
# First round against an exhaustive reference (thresholds, grouping, margin)
# --------------------------------------------------------------------------


def reference_first_round(X, y, metric, *, depth, theta, scaled, max_thresholds=None):
    """Best first stump (full data, every feature, S = 0) by brute force.

    Candidate cuts: between consecutive distinct values, or, with
    ``max_thresholds``, between groups of distinct values of about equal
    counts (value i goes to group floor(#examples below it * B / n), B =
    max_thresholds + 1).  d = b - a on the grid of step 2/2**depth in [-2, 2];
    margin θ, or θ(1 + |d|/2) when ``scaled`` (the "stump" and, in round
    one, the "normalized" modes).
    """
    m = rankcore.resolve("metric", metric)
    grid = 2**depth
    best = (np.inf, None)
    cuts_by_feature = {}
    for j in range(X.shape[1]):
        values, counts = np.unique(X[:, j], return_counts=True)
        last = np.arange(values.size)
        if max_thresholds is not None and values.size > max_thresholds + 1:
            before = np.r_[0, np.cumsum(counts)[:-1]]
            group = before * (max_thresholds + 1) // X.shape[0]
            last = np.flatnonzero(np.r_[group[1:] != group[:-1], True])
        cuts = [(values[i] + values[i + 1]) / 2 for i in last[:-1]]
        cuts_by_feature[j] = np.array(cuts)
        for xi in cuts:
            left = X[:, j] <= xi
            for k in range(-grid, grid + 1):
                d = 2 * k / grid
                s = np.where(left, -d / 2, d / 2) - theta * (1 + scaled * abs(d) / 2) * y
                loss = m.loss(y, s)
                if loss < best[0] - 1e-12:
                    best = (loss, (j, xi, d))
    return best, cuts_by_feature


@pytest.mark.parametrize("margin_mode, theta", [("constant", 0.05), ("constant", 0.3), ("stump", 0.3),
                                               ("normalized", 0.3)])
@pytest.mark.parametrize("max_thresholds", [None, 3, 7])
@pytest.mark.parametrize("metric", ["auc", "ks", "prec@k:0.2"])
def test_exactboost_first_round_is_the_exhaustive_optimum(metric, max_thresholds, margin_mode, theta):
    X, y = make_classification(n_samples=60, n_features=3, n_informative=2, n_redundant=0, random_state=4)
    X = np.round(X, 1)  # some ties in the features
    model = ExactBoost(metric=metric, n_runs=1, n_rounds=1, subsample=1.0, feature_subsample=1.0, max_boxes=None,
                       depth=3, max_thresholds=max_thresholds, margin=theta, margin_mode=margin_mode,
                       random_state=0).fit(X, y)
    if model.stumps_.shape[0] == 0:
        pytest.skip("the best stump did not pass the acceptance test")
    scaled = margin_mode != "constant"
    (best_loss, _), cuts = reference_first_round(X, y, metric, depth=3, theta=theta, scaled=scaled,
                                                 max_thresholds=max_thresholds)
    feature, xi, a, b = model.stumps_[0]
    assert xi in cuts[int(feature)]
    m = rankcore.resolve("metric", metric)
    found = m.loss(y, np.where(X[:, int(feature)] <= xi, a, b) - theta * (1 + scaled * abs(b - a) / 2) * y)
    assert found == pytest.approx(best_loss, abs=1e-12)

"""AutoRanker.fit(X, y, sample_weight): the weights train every fit, the selection stays unweighted.

Small synthetic data and cheap candidates (a few trees, stumps), as in
test_auto_estimator.py.
"""

import numpy as np
import pytest

import rankcore
from rankcore import AutoRanker
from rankcore.auto import Candidate, FoldBag
from rankcore.persistence import model_from_dict, model_to_dict

from _candidate_plugins import registered_candidate
from _query_data import graded_queries

WEIGHTED = ["trees:n_iter=8", "trees:n_iter=8,max_leaves=4", "stumps:n_iter=10"]


def _data(n=160, d=5, seed=0, nan=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.7 * rng.normal(size=n) > 0.6).astype(int)
    if nan:
        X[rng.random(size=X.shape) < 0.05] = np.nan
    return X, y


def _weights(n, seed=1):
    return np.random.default_rng(seed).integers(0, 4, n).astype(np.float64)


def _assert_same_search(a, b, X, order=None):
    """Two fits made the same search, choice and model, bit for bit (``b`` fitted on the rows ``order`` of ``a``'s)."""
    assert [(r.name, r.status, r.note) for r in a.leaderboard_] == [(r.name, r.status, r.note) for r in b.leaderboard_]
    for ra, rb in zip(a.leaderboard_, b.leaderboard_):
        np.testing.assert_array_equal(ra.fold_scores, rb.fold_scores)
    assert a.best_candidate_ == b.best_candidate_ and a.best_score_ == b.best_score_
    assert a.selection_reason_ == b.selection_reason_
    np.testing.assert_array_equal(a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"])
    assert a.cv_predictions_.keys() == b.cv_predictions_.keys()
    for spec in a.cv_predictions_:
        np.testing.assert_array_equal(a.cv_predictions_[spec] if order is None else a.cv_predictions_[spec][order],
                                      b.cv_predictions_[spec])
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


# ----------------------------------------------------------------------
# What the weights change, and what they do not
# ----------------------------------------------------------------------
def test_auto_without_sample_weight_is_the_search_of_before():
    """``sample_weight=None`` (given or not) is the unweighted search, candidates that take no weights included."""
    X, y = _data()
    params = dict(candidates=["trees:n_iter=8", "linear:n_epochs=2", "stumps:n_iter=10"], random_state=0, n_jobs=1)
    plain = AutoRanker(**params).fit(X, y)
    _assert_same_search(plain, AutoRanker(**params).fit(X, y, None), X)
    _assert_same_search(plain, AutoRanker(**params).fit(X, y, sample_weight=None), X)
    assert all(r.status != "skipped" for r in plain.leaderboard_)


def test_auto_weights_of_ones_give_the_unweighted_search_bit_for_bit():
    X, y = _data()
    params = dict(candidates=WEIGHTED, random_state=0, n_jobs=1)
    plain = AutoRanker(**params).fit(X, y)
    ones = AutoRanker(**params).fit(X, y, sample_weight=np.ones(X.shape[0]))
    _assert_same_search(plain, ones, X)


def test_auto_weights_change_the_models_not_the_folds():
    X, y = _data()
    params = dict(candidates=WEIGHTED, random_state=0, n_jobs=1)
    plain = AutoRanker(**params).fit(X, y)
    weighted = AutoRanker(**params).fit(X, y, _weights(X.shape[0]))
    assert plain.cv_description_ == weighted.cv_description_
    assert not np.array_equal(plain.decision_function(X), weighted.decision_function(X))
    # the validation rows are the same (each scored once): NaN where a hold-out did not score, nowhere here
    for spec, scores in weighted.cv_predictions_.items():
        assert np.isfinite(scores).all() and not np.array_equal(scores, plain.cv_predictions_[spec])


def test_auto_weighted_fold_bag_is_its_models_fitted_with_their_rows_weights():
    """By hand: every fold model is the candidate fitted with its training rows' weights, the refit with all."""
    from rankcore.auto._estimator import _base_seed
    from rankcore.auto._folds import plan_folds
    from rankcore.auto._tasks import REFIT_FOLD, fold_seed, make_context

    X, y = _data(seed=3)
    w = _weights(X.shape[0], seed=4)
    spec = "trees:n_iter=8"
    model = AutoRanker(candidates=[spec], random_state=0, n_jobs=1).fit(X, y, w)
    bag = model.best_estimator_
    assert isinstance(bag, FoldBag) and len(bag.estimators) == 6
    candidate = rankcore.resolve("candidate", spec)
    base = _base_seed(0)
    plan = plan_folds(y, "auto", base)
    refit = candidate.build(make_context("pauc:0.1", X, y, fold_seed(base, REFIT_FOLD), 1, weighted=True))
    np.testing.assert_array_equal(bag.estimators[0].decision_function(X),
                                  refit.fit(X, y, sample_weight=w).decision_function(X))
    for f in range(plan.n_splits):
        tr, _ = plan.folds[f]
        fold_model = candidate.build(make_context("pauc:0.1", X[tr], y[tr], fold_seed(base, f), 1, weighted=True))
        fold_model.fit(X[tr], y[tr], sample_weight=w[tr])
        np.testing.assert_array_equal(bag.estimators[f + 1].decision_function(X), fold_model.decision_function(X))


def test_auto_integer_weights_equal_repeated_rows_in_the_boosting_refit():
    """The stumps candidate's refit with integer weights is the push fit on the rows repeated as often."""
    X, y = _data(n=120, seed=5)
    counts = np.random.default_rng(6).integers(1, 4, X.shape[0])
    model = AutoRanker(candidates=["stumps:n_iter=10"], bag_folds=False, random_state=0, n_jobs=1)
    refit = model.fit(X, y, counts).best_estimator_
    rows = np.repeat(np.arange(X.shape[0]), counts)
    repeated = rankcore.boost(n_iter=10, random_state=0, n_jobs=1).fit(X[rows], y[rows])
    assert refit.rankers_ == repeated.rankers_
    np.testing.assert_allclose(refit.alphas_, repeated.alphas_, rtol=1e-9)
    direct = rankcore.boost(n_iter=10, random_state=0, n_jobs=1).fit(X, y, sample_weight=counts)
    np.testing.assert_array_equal(refit.decision_function(X), direct.decision_function(X))


def test_auto_weights_follow_their_rows_with_unsorted_qid():
    X, y, qid = graded_queries(seed=0, n_queries=24)
    w = np.random.default_rng(2).uniform(0.2, 3.0, size=y.shape[0])
    params = dict(candidates=["trees:n_iter=10,min_samples_leaf=5", "stumps:n_iter=10"], cv=3, random_state=0,
                  n_jobs=1)
    model = AutoRanker(**params).fit(X, y, w, qid=qid)
    shuffle = np.random.default_rng(3).permutation(y.shape[0])
    shuffled = AutoRanker(**params).fit(X[shuffle], y[shuffle], w[shuffle], qid=qid[shuffle])
    _assert_same_search(model, shuffled, X, shuffle)
    # the weights are used, and not in the rows' given order
    assert not np.array_equal(model.decision_function(X), AutoRanker(**params).fit(X, y, qid=qid).decision_function(X))
    wrong = AutoRanker(**params).fit(X[shuffle], y[shuffle], w, qid=qid[shuffle])
    assert not np.array_equal(model.decision_function(X), wrong.decision_function(X))


def test_auto_weighted_default_search_on_small_data_searches_instead_of_the_blend():
    """The small-data blend's members take no weights: a weighted default search on 100 rows chooses among trees."""
    X, y = _data(n=100, seed=7)
    model = AutoRanker(random_state=0, n_jobs=1).fit(X, y, _weights(X.shape[0]))
    notes = {r.name: r.note for r in model.leaderboard_ if r.status == "skipped"}
    assert {notes[s] for s in ("linear", "kernel", "exactboost")} == {"takes no sample_weight"}
    assert model.best_candidate_.startswith(("trees", "blend(trees"))
    assert not any("small data" in note for note in notes.values())


# ----------------------------------------------------------------------
# Candidates that take no weights
# ----------------------------------------------------------------------
class _Unweighted:
    """A plugin's estimator whose fit takes no sample_weight."""

    def fit(self, X, y):
        self.coef_ = np.ones(np.asarray(X).shape[1])
        return self

    def decision_function(self, X):
        return np.asarray(X) @ self.coef_


class _TakesWeightsByKeyword(_Unweighted):
    """``fit(X, y, **kwargs)``: the signature does not say; its candidate declares it."""

    def fit(self, X, y, **kwargs):
        self.weights_seen_ = kwargs.get("sample_weight")
        return super().fit(X, y)


class _UnweightedCandidate(Candidate):
    name = "unweighted-for-tests"
    accepts_missing = True
    relative_cost = 0.01

    def build(self, context):
        return _Unweighted()


class _KeywordCandidate(_UnweightedCandidate):
    name = "keyword-weights-for-tests"

    def takes_sample_weight(self, context):
        return True

    def build(self, context):
        return _TakesWeightsByKeyword()


def test_auto_candidates_without_sample_weight_are_skipped_with_the_reason():
    X, y = _data()
    with registered_candidate(_UnweightedCandidate, "auto-unweighted-test"), \
            registered_candidate(_KeywordCandidate, "auto-keyword-weights-test"):
        specs = ["trees:n_iter=8", "linear:n_epochs=2", "kernel", "exactboost:n_runs=2", "unweighted-for-tests",
                 "keyword-weights-for-tests"]
        model = AutoRanker(candidates=specs, bag_folds=False, random_state=0, n_jobs=1).fit(X, y, _weights(160))
        rows = {r.name: r for r in model.leaderboard_}
        for spec in specs[1:5]:
            assert rows[spec].status == "skipped" and rows[spec].note == "takes no sample_weight"
        assert rows["keyword-weights-for-tests"].status != "skipped"
        unweighted = AutoRanker(candidates=specs, random_state=0, n_jobs=1).fit(X, y)
        assert all(r.status != "skipped" for r in unweighted.leaderboard_)
        from rankcore.auto import fit_estimator

        estimator = fit_estimator(_KeywordCandidate().build(None), X, y, sample_weight=np.full(160, 2.0))
        assert estimator.weights_seen_.tolist() == [2.0] * 160


def test_auto_no_candidate_takes_weights_names_sample_weight():
    X, y = _data()
    with pytest.raises(ValueError, match=r"none applies.*linear:n_epochs=2: takes no sample_weight.*"
                                         r"sample_weight is the reason"):
        AutoRanker(candidates=["linear:n_epochs=2", "kernel"], random_state=0, n_jobs=1).fit(X, y, _weights(160))


def test_auto_weights_reach_a_candidate_behind_the_imputer_with_routing_on():
    """Stumps refuse NaN: behind the imputer the weights go to the model, also with metadata routing turned on."""
    import sklearn

    X, y = _data(nan=True, seed=8)
    w = _weights(X.shape[0])
    params = dict(candidates=["stumps:n_iter=10"], bag_folds=False, random_state=0, n_jobs=1)
    model = AutoRanker(**params).fit(X, y, w)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = AutoRanker(**params).fit(X, y, w)
    np.testing.assert_array_equal(model.decision_function(X), routed.decision_function(X))
    assert not np.array_equal(model.decision_function(X), AutoRanker(**params).fit(X, y).decision_function(X))


# ----------------------------------------------------------------------
# Bad weights
# ----------------------------------------------------------------------
@pytest.mark.parametrize("weights, message", [
    (np.ones(159), "sample_weight: expected 160 weights"),
    (np.r_[np.nan, np.ones(159)], "sample_weight"),
    (np.r_[-1.0, np.ones(159)], "sample_weight: expected non-negative weights"),
    (np.zeros(160), "sample_weight: expected a positive total weight"),
    (np.ones((160, 2)), "sample_weight: expected a 1-D array"),
    (np.ones((160, 1)), "sample_weight: expected a 1-D array"),
])
def test_auto_bad_weights_are_refused_naming_sample_weight(weights, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        AutoRanker(candidates=["trees:n_iter=4"], random_state=0, n_jobs=1).fit(X, y, weights)


def test_auto_weights_within_queries_one_per_query_is_refused_with_the_fix():
    X, y, qid = graded_queries(seed=0, n_queries=24)
    with pytest.raises(ValueError, match="sample_weight: expected .* one per row, got 24, one per query"):
        AutoRanker(candidates=["stumps:n_iter=5"], cv=3, random_state=0, n_jobs=1).fit(X, y, np.ones(24), qid=qid)


# ----------------------------------------------------------------------
# scikit-learn's metadata routing, model files
# ----------------------------------------------------------------------
def test_auto_cross_validate_routes_sample_weight_to_fit():
    import sklearn
    from sklearn.exceptions import UnsetMetadataPassedError
    from sklearn.model_selection import StratifiedKFold, cross_validate

    X, y = _data()
    w = _weights(X.shape[0])
    folds = list(StratifiedKFold(n_splits=3, shuffle=True, random_state=0).split(X, y))
    params = dict(candidates=["trees:n_iter=6", "stumps:n_iter=8"], random_state=0, n_jobs=1)
    with sklearn.config_context(enable_metadata_routing=True):
        # scikit-learn's rule: every consumer opts in or out (score counts rows once: out)
        with pytest.raises(UnsetMetadataPassedError, match=r"\[sample_weight\] .* AutoRanker.fit"):
            cross_validate(AutoRanker(**params), X, y, cv=folds, params={"sample_weight": w})
        with pytest.raises(UnsetMetadataPassedError, match=r"\[sample_weight\] .* AutoRanker.score"):
            cross_validate(AutoRanker(**params).set_fit_request(sample_weight=True), X, y, cv=folds,
                           params={"sample_weight": w})
        auto = AutoRanker(**params).set_fit_request(sample_weight=True).set_score_request(sample_weight=False)
        routed = cross_validate(auto, X, y, cv=folds, params={"sample_weight": w})
    by_hand = [AutoRanker(**params).fit(X[tr], y[tr], w[tr]).score(X[te], y[te]) for tr, te in folds]
    np.testing.assert_array_equal(routed["test_score"], by_hand)
    unweighted = [AutoRanker(**params).fit(X[tr], y[tr]).score(X[te], y[te]) for tr, te in folds]
    assert not np.array_equal(routed["test_score"], unweighted)


def test_auto_weighted_fit_saves_and_loads():
    X, y = _data()
    model = AutoRanker(candidates=WEIGHTED, random_state=0, n_jobs=1).fit(X, y, _weights(X.shape[0]))
    loaded = model_from_dict(model_to_dict(model))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert loaded.best_candidate_ == model.best_candidate_


# ----------------------------------------------------------------------
# The plugin contract check (rankcore.testing)
# ----------------------------------------------------------------------
class _OnesAreNotNone(_Unweighted):
    def fit(self, X, y, sample_weight=None):
        super().fit(X, y)
        if sample_weight is not None:
            self.coef_ = -self.coef_
        return self


class _MisusesWeights(_UnweightedCandidate):
    name = "misuses-weights-for-tests"

    def build(self, context):
        return _OnesAreNotNone()


class _SaysMaybe(_UnweightedCandidate):
    name = "says-maybe-for-tests"

    def takes_sample_weight(self, context):
        return "maybe"


def test_auto_candidate_contract_check_catches_misused_weights():
    from rankcore.testing._candidates import check_candidate_sample_weight

    for broken, message in ((_MisusesWeights, "weights of ones score unlike no weights"),
                            (_SaysMaybe, "takes_sample_weight must be a bool")):
        with pytest.raises(AssertionError, match=message):
            check_candidate_sample_weight(broken(), np.random.default_rng(0))
    check_candidate_sample_weight(_UnweightedCandidate(), np.random.default_rng(0))      # skipped: passes
    check_candidate_sample_weight(_KeywordCandidate(), np.random.default_rng(0))


def test_auto_gbdt_candidates_take_weights():
    pytest.importorskip("lightgbm")
    X, y = _data()
    w = _weights(X.shape[0])
    params = dict(candidates=["lightgbm"], bag_folds=False, random_state=0, n_jobs=1)
    weighted = AutoRanker(**params).fit(X, y, w)
    assert weighted.leaderboard_["lightgbm"].status == "chosen"
    assert not np.array_equal(weighted.decision_function(X), AutoRanker(**params).fit(X, y).decision_function(X))


@pytest.mark.parametrize("candidate", ["lightgbm", "xgboost"])
def test_auto_gbdt_candidates_take_weights_beyond_float32s_range(candidate):
    pytest.importorskip(candidate)
    from rankcore.auto._builtin import float32_weights

    X, y = _data()
    w = _weights(X.shape[0]) + 0.5
    np.testing.assert_array_equal(float32_weights(w), w)                 # in range: as given
    params = dict(candidates=[candidate], bag_folds=False, random_state=0, n_jobs=1)
    tiny, huge = (AutoRanker(**params).fit(X, y, w * scale) for scale in (1e-60, 1e60))
    for model in (tiny, huge):                                            # float32 would have made them 0 or inf
        assert model.leaderboard_[candidate].status == "chosen"
    np.testing.assert_array_equal(tiny.decision_function(X), huge.decision_function(X))

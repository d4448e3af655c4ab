"""AutoRanker: fit, choice, leaderboard, cv_results_, determinism, persistence, bad input, scikit-learn checks.

Every fit here is on small synthetic data with a reduced candidate set (a few
cheap trees, the linear ranker), so the module stays fast.
"""

import math

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import rankcore
from rankcore import AutoRanker
from rankcore.auto import Candidate, FoldBag, Leaderboard, RankAverage, SearchEvent
from rankcore.persistence import ModelFormatError, load_model, model_from_dict, model_to_dict, save_model

from _candidate_plugins import registered_candidate

FAST = ["trees:n_iter=8", "linear:n_epochs=2", "stumps:n_iter=10"]

EXPECTED_FAILED_CHECKS = {
    "check_complex_data": "complex X raises TypeError (rankcore convention), not ValueError",
    "check_fit2d_predict1d": "rankcore's own message for 1-D X",
    "check_sample_weight_equivalence_on_dense_data": "the folds are drawn over rows: a row of weight 2 is in one "
                                                     "fold, its two copies may be in two (and the trees subsample "
                                                     "rows); test_auto_weights.py checks what is exact",
    "check_sample_weight_equivalence_on_sparse_data": "as on dense data: the folds are drawn over rows",
}


@parametrize_with_checks([AutoRanker(candidates=["linear:n_epochs=2", "trees:n_iter=5"], n_jobs=1, random_state=0),
                          AutoRanker(candidates=["trees:n_iter=5"], cv=0.3, metric="prec@k:0.2", n_jobs=1,
                                     random_state=0)],
                         expected_failed_checks=lambda estimator: EXPECTED_FAILED_CHECKS)
def test_auto_ranker_is_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=160, d=5, seed=0, nan=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.7 * rng.normal(size=n) > 0.6).astype(int)
    if nan:
        X[rng.random(size=X.shape) < 0.05] = np.nan
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    return AutoRanker(candidates=FAST, random_state=0, n_jobs=1).fit(X, y), X, y


def test_auto_fit_exposes_the_choice_leaderboard_and_cv_results(fitted):
    model, X, y = fitted
    assert model.best_candidate_ in {r.name for r in model.leaderboard_}
    first = model.leaderboard_[0]
    assert first.status == "chosen" and first.name == model.best_candidate_
    names = [r.name for r in model.leaderboard_]
    assert set(FAST) <= set(names) and any(n.startswith("blend(") for n in names)
    scores = model.decision_function(X)
    assert scores.shape == (X.shape[0],) and np.isfinite(scores).all()
    results = model.cv_results_
    n = len(model.leaderboard_)
    for key in ("params", "mean_test_score", "std_test_score", "rank_test_score", "mean_fit_time",
                "split0_test_score", "split4_test_score"):
        assert len(results[key]) == n, key
    assert results["rank_test_score"][model.best_index_] == 1
    assert results["params"][model.best_index_] == {"candidate": model.best_candidate_}
    row = model.leaderboard_[model.best_candidate_]
    assert math.isclose(results["mean_test_score"][0], row.mean)
    assert model.cv_description_ == "5-fold stratified cross-validation"
    # one column per split run: the repeats a time budget would have drawn were columns of NaN
    assert sorted(k for k in results if k.startswith("split")) == [f"split{j}_test_score" for j in range(5)]
    assert set(model.cv_predictions_) <= set(FAST)


def test_auto_leaderboard_row_scores_are_the_metric_on_each_fold(fitted):
    model, X, y = fitted
    for row in model.leaderboard_:
        values = [v for v in row.fold_scores if math.isfinite(v)]
        if row.status in ("chosen", "evaluated") and not row.name.startswith("blend("):
            assert len(values) == 5
            assert math.isclose(row.mean, np.mean(values))


def test_auto_cv_predictions_score_like_the_leaderboard(fitted):
    """The first pass's out-of-fold scores reproduce each candidate's fold scores (same folds, same metric)."""
    from rankcore.auto._folds import plan_folds

    model, X, y = fitted
    metric = rankcore.resolve("metric", "pauc:0.1")
    plan = plan_folds(y, "auto", 0)
    for name, oof in model.cv_predictions_.items():
        row = model.leaderboard_[name]
        for f in range(5):
            va = plan.folds[f][1]
            assert math.isclose(metric(y[va], oof[va]), row.fold_scores[f], rel_tol=1e-12)


def test_auto_leaderboard_as_records_text_and_frame(fitted):
    model = fitted[0]
    records = model.leaderboard_.records()
    assert records[0]["status"] == "chosen" and "fold_scores" in records[0]
    text = str(model.leaderboard_)
    assert "pauc:0.1 (mean ± sd)" in text and model.best_candidate_ in text
    pd = pytest.importorskip("pandas")
    frame = model.leaderboard_.to_frame()
    assert isinstance(frame, pd.DataFrame) and list(frame["name"]) == [r.name for r in model.leaderboard_]


def test_auto_same_seed_same_search_and_model():
    X, y = _data(seed=1)
    a = AutoRanker(candidates=FAST, random_state=3, n_jobs=1).fit(X, y)
    b = AutoRanker(candidates=FAST, random_state=3, n_jobs=1).fit(X, y)
    assert [r.name for r in a.leaderboard_] == [r.name for r in b.leaderboard_]
    for ra, rb in zip(a.leaderboard_, b.leaderboard_):
        np.testing.assert_array_equal(ra.fold_scores, rb.fold_scores)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_auto_results_do_not_depend_on_the_thread_count(exact_threads):
    exact_threads(2)
    X, y = _data(seed=2)
    a = AutoRanker(candidates=FAST, random_state=0, n_jobs=1).fit(X, y)
    b = AutoRanker(candidates=FAST, random_state=0, n_jobs=2).fit(X, y)
    assert a.best_candidate_ == b.best_candidate_
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-12)


def test_auto_save_and_load_round_trip(fitted, tmp_path):
    model, X, y = fitted
    save_model(model, tmp_path / "auto.json")
    loaded = load_model(tmp_path / "auto.json")
    assert isinstance(loaded, AutoRanker) and loaded.get_params() == model.get_params()
    assert loaded.best_candidate_ == model.best_candidate_
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert [r.name for r in loaded.leaderboard_] == [r.name for r in model.leaderboard_]
    for key in ("mean_test_score", "split0_test_score", "rank_test_score"):
        np.testing.assert_array_equal(loaded.cv_results_[key], model.cv_results_[key])


def test_auto_blend_and_kernel_pipeline_round_trip(monkeypatch, tmp_path):
    """A chosen blend (forced) whose member is the standardized kernel pipeline saves and loads exactly."""
    from rankcore.auto import _estimator

    real = _estimator.select
    monkeypatch.setattr(_estimator, "select", lambda *a, **k: real(*a, **dict(k, z=-math.inf)))
    X, y = _data(seed=4)
    model = AutoRanker(candidates=["trees:n_iter=8", "kernel"], random_state=0, n_jobs=1).fit(X, y)
    assert isinstance(model.best_estimator_, RankAverage) and model.best_candidate_.startswith("blend(")
    assert model.leaderboard_[0].name == model.best_candidate_
    save_model(model, tmp_path / "blend.json")
    loaded = load_model(tmp_path / "blend.json")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    # each row is scored alone: the scores of a batch do not depend on the other rows
    np.testing.assert_allclose(model.decision_function(X[:7]), model.decision_function(X)[:7], rtol=1e-12)


def test_auto_model_file_with_a_broken_nested_model_is_refused(fitted):
    from _model_files import resign

    data = model_to_dict(fitted[0])
    best = data["state"]["best"]
    record = best["members"][1] if best["kind"] == "bag" else best        # a fold model of the bag
    record["model"]["state"]["n_features_in"] = 99
    with pytest.raises(ModelFormatError, match="best"):
        model_from_dict(resign(data))
    data = model_to_dict(fitted[0])
    data["state"]["leaderboard"][0]["status"] = "winner"
    with pytest.raises(ModelFormatError, match="status"):
        model_from_dict(resign(data))


# ----------------------------------------------------------------------
# The fold bag
# ----------------------------------------------------------------------
def _fold_models_by_hand(model, X, y, spec, seed):
    """The candidate's fold models of the first repeat, refitted here with the search's own folds and seeds."""
    from rankcore.auto._estimator import _base_seed
    from rankcore.auto._folds import plan_folds
    from rankcore.auto._tasks import fold_seed, make_context

    base = _base_seed(seed)
    plan = plan_folds(y, "auto", base)
    candidate = rankcore.resolve("candidate", spec)
    models, held_out = [], []
    for f in range(plan.n_splits):
        tr, va = plan.folds[f]
        m = candidate.build(make_context("pauc:0.1", X[tr], y[tr], fold_seed(base, f), 1)).fit(X[tr], y[tr])
        models.append(m)
        held_out.append(candidate.scores(m, X[va]))
    return models, held_out


def test_auto_fold_bag_is_the_mean_of_standardized_refit_and_fold_models(fitted):
    """The bag's score is, by hand, the mean of each model's score standardized by its held-out scores."""
    model, X, y = fitted
    bag = model.best_estimator_
    assert isinstance(bag, FoldBag) and bag.name == model.best_candidate_ and len(bag.estimators) == 6
    from rankcore.auto._estimator import _base_seed
    from rankcore.auto._tasks import REFIT_FOLD, fold_seed, make_context

    models, held_out = _fold_models_by_hand(model, X, y, model.best_candidate_, 0)
    candidate = rankcore.resolve("candidate", model.best_candidate_)
    pooled = np.concatenate(held_out)
    refit = candidate.build(make_context("pauc:0.1", X, y, fold_seed(_base_seed(0), REFIT_FOLD), 1)).fit(X, y)
    z = [(candidate.scores(refit, X) - pooled.mean()) / pooled.std()]
    z += [(candidate.scores(m, X) - h.mean()) / h.std() for m, h in zip(models, held_out)]
    np.testing.assert_allclose(model.decision_function(X), np.mean(z, axis=0), rtol=1e-10, atol=1e-12)


def test_auto_bag_folds_false_keeps_the_refit_alone():
    X, y = _data(seed=6)
    plain = AutoRanker(candidates=FAST[:1], bag_folds=False, random_state=0, n_jobs=1).fit(X, y)
    bagged = AutoRanker(candidates=FAST[:1], random_state=0, n_jobs=1).fit(X, y)
    assert not isinstance(plain.best_estimator_, FoldBag)
    assert isinstance(bagged.best_estimator_, FoldBag)
    # the bag's first model is that refit, fitted the same way
    np.testing.assert_array_equal(bagged.best_estimator_.estimators[0].decision_function(X),
                                  plain.decision_function(X))


def test_auto_bag_with_a_budget_holds_the_first_repeat_only():
    """With a budget the search repeats the folds; the bag keeps the refit and the first repeat's models."""
    X, y = _data(seed=9)
    model = AutoRanker(candidates=FAST[:2], time_budget=30, random_state=0, n_jobs=1).fit(X, y)
    assert "repeats" in model.cv_description_
    members = model.best_estimator_.estimators if isinstance(model.best_estimator_, RankAverage) \
        else [model.best_estimator_]
    assert all(isinstance(m, FoldBag) and len(m.estimators) == 6 for m in members)


def test_fold_bag_scores_each_row_alone_and_keeps_each_models_order():
    """Every model's map is increasing: a bag of one model twice ranks as that model; rows are scored alone."""
    X, y = _data(seed=10)
    model = AutoRanker(candidates=FAST[:1], random_state=0, n_jobs=1).fit(X, y)
    bag = model.best_estimator_
    twin = FoldBag(bag.name, [bag.estimators[0]] * 2, [bag.centers[0]] * 2, [bag.scales[0]] * 2)
    refit = bag.estimators[0].decision_function(X)
    np.testing.assert_allclose(twin.decision_function(X), (refit - bag.centers[0]) / bag.scales[0], rtol=1e-12)
    np.testing.assert_array_equal(bag.decision_function(X[5:9]), bag.decision_function(X)[5:9])


def test_auto_hold_out_plan_keeps_the_refit_alone():
    X, y = _data(seed=7)
    model = AutoRanker(candidates=FAST[:1], cv=0.3, random_state=0, n_jobs=1).fit(X, y)
    assert not isinstance(model.best_estimator_, FoldBag)


def test_auto_blend_members_are_bagged_and_scored_alone(monkeypatch, tmp_path):
    from rankcore.auto import _estimator

    real = _estimator.select
    monkeypatch.setattr(_estimator, "select", lambda *a, **k: real(*a, **dict(k, z=-math.inf)))
    X, y = _data(seed=8)
    model = AutoRanker(candidates=FAST[:2], random_state=0, n_jobs=1).fit(X, y)
    assert isinstance(model.best_estimator_, RankAverage)
    assert all(isinstance(m, FoldBag) for m in model.best_estimator_.estimators)
    np.testing.assert_allclose(model.decision_function(X[:9]), model.decision_function(X)[:9], rtol=1e-12)
    save_model(model, tmp_path / "blend.json")
    np.testing.assert_array_equal(load_model(tmp_path / "blend.json").decision_function(X),
                                  model.decision_function(X))


@pytest.mark.parametrize(("edit", "match"), [
    (lambda bag: bag.update(centers=bag["centers"][:-1]), "centers"),
    (lambda bag: bag["scales"].__setitem__(0, 0.0), "scales"),
    (lambda bag: bag["scales"].__setitem__(1, np.nan), "scales"),
    (lambda bag: bag.update(members=bag["members"][:1]), "at least two"),
    (lambda bag: bag["members"].__setitem__(0, {"kind": "bag", **{k: None for k in ("name", "members", "centers",
                                                                                   "scales")}}),
     "holds models only"),
    (lambda bag: bag.pop("name"), "fields"),
])
def test_auto_model_file_with_a_broken_bag_is_refused(fitted, edit, match):
    from _model_files import resign

    from rankcore.persistence import _decode, _encode

    data = model_to_dict(fitted[0])
    bag = data["state"]["best"]
    assert bag["kind"] == "bag"
    bag["centers"], bag["scales"] = _decode(bag["centers"], "centers"), _decode(bag["scales"], "scales").copy()
    edit(bag)
    bag["centers"], bag["scales"] = _encode(bag["centers"], "centers"), _encode(bag["scales"], "scales")
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(resign(data))


def test_fold_bag_checks_its_arguments():
    with pytest.raises(ValueError, match="at least two"):
        FoldBag("trees", [object()], [0.0], [1.0])
    with pytest.raises(ValueError, match="scales"):
        FoldBag("trees", [object(), object()], [0.0, 0.0], [1.0, 0.0])


def test_auto_callbacks_and_verbose_progress(capsys):
    X, y = _data(seed=5)
    events = []
    AutoRanker(candidates=FAST[:2], random_state=0, n_jobs=1, verbose=1).fit(X, y, callbacks=events.append)
    assert events and all(isinstance(e, SearchEvent) for e in events)
    assert {e.candidate for e in events} == set(FAST[:2])
    assert [e.done for e in events] == list(range(1, len(events) + 1))
    # on stdout, as every estimator's verbose output (push, trees, LightGBM, scikit-learn): one capture gets it all
    out, err = capsys.readouterr()
    assert "auto" in out and "fold 1/5" in out and "best" in out and err == ""
    with pytest.raises(TypeError, match="callbacks"):
        AutoRanker(candidates=FAST[:1]).fit(X, y, callbacks=3)


# ----------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------
@pytest.mark.parametrize(("params", "match"), [
    ({"metric": "roc"}, "metric"),
    ({"metric": "ndcg-not-registered"}, "unknown metric"),
    ({"metric": 3}, "metric"),
    ({"time_budget": -1}, "time_budget"),
    ({"time_budget": True}, "time_budget"),
    ({"cv": "loo"}, "cv"),
    ({"cv": 1}, "cv"),
    ({"cv": (5, 0)}, "cv"),
    ({"cv": 1.5}, "cv"),
    ({"candidates": []}, "candidates"),
    ({"candidates": ["no-such-candidate"]}, "unknown candidate"),
    ({"candidates": ["trees", "trees"]}, "twice"),
    ({"candidates": ["trees:max_leaves=1"]}, "max_leaves"),
    ({"blend": "yes"}, "blend"),
    ({"n_jobs": 0}, "n_jobs"),
    ({"random_state": -1}, "random_state"),
    ({"verbose": -1}, "verbose"),
])
def test_auto_invalid_parameters_are_refused_naming_them(params, match):
    X, y = _data(n=60)
    with pytest.raises((ValueError, TypeError), match=match):
        AutoRanker(**params).fit(X, y)


def _forbid_fitting(monkeypatch):
    from rankcore.auto import _executors

    def refuse(*args, **kwargs):
        raise AssertionError("a candidate was fitted")

    monkeypatch.setattr(_executors, "run_task", refuse)


def test_auto_metric_that_cannot_be_computed_on_a_fold_fails_before_any_fit(monkeypatch):
    _forbid_fitting(monkeypatch)
    X, y = _data(n=120)
    with pytest.raises(ValueError, match=r"metric 'prec@k:50'.*24 rows") as info:
        AutoRanker(metric="prec@k:50", candidates=FAST).fit(X, y)
    assert "5-fold" in str(info.value) and "prec@k:0.05" in str(info.value)


def test_auto_fold_with_one_class_fails_before_any_fit(monkeypatch):
    _forbid_fitting(monkeypatch)
    X, y = _data(n=80)
    y = np.zeros(80, dtype=int)
    y[:2] = 1
    with pytest.raises(ValueError, match="3-fold.*at least 3 rows of each class"):
        AutoRanker(cv=3, candidates=FAST).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 rows of each class"):
        AutoRanker(candidates=FAST).fit(X, np.r_[1, np.zeros(79, dtype=int)])
    with pytest.raises(ValueError, match=r"metric 'pauc:0.1' cannot be computed on the stratified hold-out of 4 "
                                         r"rows .* 0 relevant.*needs both classes"):
        AutoRanker(cv=0.05, candidates=FAST).fit(X, y)


def test_auto_budget_too_small_says_what_the_default_needs():
    X, y = _data(n=100)
    with pytest.raises(ValueError, match=r"time_budget: 1e-06 s is too small for even one candidate: the "
                                         r"default, 'trees:n_iter=8', needs about [0-9.e-]+ s on these data"):
        AutoRanker(candidates=FAST, time_budget=1e-6).fit(X, y)


class _CheapCandidate(Candidate):
    """A cheap test candidate that builds its ``estimator_type``."""

    relative_cost = 0.01
    estimator_type = None

    def build(self, context):
        return self.estimator_type()


class _BrokenEstimator:
    def fit(self, X, y):
        raise RuntimeError("this candidate always fails")


class _Broken(_CheapCandidate):
    """A candidate whose fit always raises."""

    name = "broken-for-tests"
    accepts_missing = True
    estimator_type = _BrokenEstimator


@pytest.fixture
def broken_plugin():
    with registered_candidate(_Broken, "auto-broken-test"):
        yield


def test_auto_failing_candidate_is_recorded_and_the_search_goes_on(broken_plugin):
    X, y = _data(n=100)
    model = AutoRanker(candidates=["broken-for-tests", *FAST[:2]], random_state=0, n_jobs=1).fit(X, y)
    row = model.leaderboard_["broken-for-tests"]
    assert row.status == "failed" and "always fails" in row.note
    assert model.best_candidate_ != "broken-for-tests"


def test_auto_choice_without_the_default_warns(broken_plugin):
    """The first candidate (the default every other is judged against) failed: the choice cleared no bar."""
    X, y = _data(n=100)
    with pytest.warns(UserWarning, match=r"the default candidate 'broken-for-tests' was not evaluated: it failed "
                                         r"\(fold 1: .*always fails.*\); '[^']+' was chosen without being compared"):
        model = AutoRanker(candidates=["broken-for-tests", *FAST[:2]], random_state=0, n_jobs=1).fit(X, y)
    assert "the default was not" in model.selection_reason_


def test_auto_choice_without_a_failed_default_advises_mending_it_not_a_budget(broken_plugin):
    # a default that fails is not mended by a larger time_budget (advised before, with no budget given at all)
    X, y = _data(n=100)
    with pytest.warns(UserWarning, match=r"may rank worse than it\. Mend the first candidate \(leaderboard_ notes "
                                         r"its error\)") as record:
        AutoRanker(candidates=["broken-for-tests", *FAST[:2]], random_state=0, n_jobs=1).fit(X, y)
    assert not any("time_budget" in str(w.message) for w in record if "was not evaluated" in str(w.message))


def test_auto_budget_that_stops_the_rest_after_a_failed_default_says_so(broken_plugin):
    # the default failed its first fold, so no floor was measured, and the budget left the others unstarted: the
    # error named only the default's failure
    X, y = _data(n=100)
    with pytest.raises(ValueError, match=r"no candidate could be evaluated \(broken-for-tests: fold 1: .*always fails; "
                                         r"time_budget=1e-06 s ran out before 'trees:n_iter=8', 'linear:n_epochs=2' "
                                         r"could run: give a larger time_budget, or time_budget=None\)$"):
        AutoRanker(candidates=["broken-for-tests", *FAST[:2]], time_budget=1e-6, n_jobs=1).fit(X, y)


class _WarningEstimator:
    def fit(self, X, y):
        import warnings

        warnings.warn("this candidate always warns", UserWarning)
        self.w_ = np.ones(X.shape[1])
        return self

    def decision_function(self, X):
        return np.asarray(X) @ self.w_


class _Warns(_CheapCandidate):
    """A candidate whose fit warns (as trees that cannot split a small fold do)."""

    name = "warns-for-tests"
    accepts_missing = True
    estimator_type = _WarningEstimator


def test_auto_fold_warnings_are_noted_in_the_leaderboard_not_shown():
    """A fold's warning goes to the candidate's note; only the final refit's warnings reach the user."""
    import warnings

    with registered_candidate(_Warns, "auto-warns-test"):
        X, y = _data(n=100)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = AutoRanker(candidates=[*FAST[:1], "warns-for-tests"], blend=False, random_state=0,
                               n_jobs=1).fit(X, y)
        row = model.leaderboard_["warns-for-tests"]
        assert "fold 1 warned: UserWarning: this candidate always warns" in row.note
        refits = 1 if model.best_candidate_ == "warns-for-tests" else 0
        assert sum("always warns" in str(w.message) for w in caught) == refits


def test_auto_plugin_candidate_joins_the_default_search(broken_plugin):
    from rankcore.auto import default_specs

    specs = default_specs()
    assert "broken-for-tests" in specs and specs[0] == "trees"


def test_auto_every_candidate_failing_is_an_error(broken_plugin):
    X, y = _data(n=60)
    with pytest.raises(ValueError, match="no candidate could be evaluated.*always fails"):
        AutoRanker(candidates=["broken-for-tests"], random_state=0).fit(X, y)


class _RefusesNaN(_CheapCandidate):
    """A candidate that refuses NaN and asks not to be imputed."""

    name = "refuses-nan-for-tests"
    impute_missing = False
    estimator_type = _WarningEstimator


def test_auto_missing_values_impute_for_the_candidates_that_refuse_them():
    X, y = _data(n=120, nan=True)
    model = AutoRanker(candidates=FAST, random_state=0, n_jobs=1).fit(X, y)
    assert all(row.status != "skipped" for row in model.leaderboard_)
    assert np.isfinite(model.decision_function(X)).all()
    linear = AutoRanker(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(X, y)
    refit = linear.best_estimator_.estimators[0]          # the fold bag's refit
    assert isinstance(refit.steps[0][1], rankcore.auto.MissingValueImputer)
    assert np.isfinite(linear.decision_function(X)).all()


def test_auto_missing_values_skip_a_candidate_that_asks_not_to_be_imputed():
    with registered_candidate(_RefusesNaN, "auto-refuses-nan-test"):
        X, y = _data(n=120, nan=True)
        model = AutoRanker(candidates=[FAST[0], "refuses-nan-for-tests"], random_state=0, n_jobs=1).fit(X, y)
        assert model.leaderboard_["refuses-nan-for-tests"].status == "skipped"
        assert "missing values" in model.leaderboard_["refuses-nan-for-tests"].note
        with pytest.raises(ValueError, match="none applies.*missing values"):
            AutoRanker(candidates=["refuses-nan-for-tests"]).fit(X, y)


def test_auto_large_data_use_one_holdout_scored_in_parts():
    from rankcore.auto import _folds

    X, y = _data(n=400, seed=7)
    model = AutoRanker(candidates=FAST[:2], cv=0.25, random_state=0, n_jobs=1).fit(X, y)
    assert model.cv_description_ == "stratified hold-out of 100 rows"
    assert len(model.leaderboard_[0].fold_scores) == _folds.HOLDOUT_UNITS


def test_auto_metric_direction_lower_is_better():
    X, y = _data(n=120, seed=8)
    model = AutoRanker(metric="max_height", candidates=FAST[:2], random_state=0, n_jobs=1).fit(X, y)
    rows = [r for r in model.leaderboard_ if r.status == "evaluated" and not r.name.startswith("blend(")]
    chosen = model.leaderboard_[0]
    if chosen.name == FAST[0] and rows:
        assert all(r.mean >= chosen.mean - 1e-12 or "se" in r.note for r in rows)
    assert model.score(X, y) <= 0


def test_auto_leaderboard_lookup_errors():
    board = Leaderboard([], "auc")
    with pytest.raises(KeyError, match="no candidate named"):
        board["x"]

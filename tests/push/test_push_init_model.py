"""``fit(..., init_model=...)``: continue a fitted push model with more weak rankers (LightGBM's ``init_model``,
XGBoost's ``xgb_model``); the result holds the init model's weak rankers, then the new ones."""

import copy
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sklearn.exceptions import NotFittedError

import rankcore
from _eval_set_data import split_data
from _model_files import tampered
from _query_data import graded_queries
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict

#: A fit that draws nothing per iteration: stumps on fewer rows than their subsample (no sampled bin edges).
STUMPS = dict(learner="stumps", price="pow:4", random_state=0, early_stopping=False)
#: Trees that draw nothing: every row in each tree, no noise on the split scores.
STEADY_TREES = dict(learner="trees:random_strength=0,subsample=1", random_state=0)


def _state(model):
    """Everything a model is: its file's parameters and fitted state."""
    data = model_to_dict(model)
    return data["params"], data["state"]


# ----------------------------------------------------------------------------------------------------------------
# Exactness: N iterations, then M more, is the fit of N + M
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("params", [STUMPS, dict(STUMPS, learner="trees:random_strength=0,subsample=1,max_leaves=4",
                                                 price="pow:2")],
                         ids=["stumps", "trees"])
def test_continuing_n_iterations_by_m_is_the_fit_of_n_plus_m_on_one_list(params):
    X, y, X_val, y_val, X_test, _ = split_data(0)
    first = rankcore.boost(n_iter=7, **params).fit(X, y)
    once = rankcore.boost(n_iter=12, **params).fit(X, y, eval_set=(X_val, y_val))
    more = rankcore.boost(n_iter=5, **params).fit(X, y, init_model=first, eval_set=(X_val, y_val))
    for rows in (X, X_val, X_test):
        np.testing.assert_allclose(more.decision_function(rows), once.decision_function(rows), rtol=1e-12,
                                   atol=1e-12)
    assert (more.n_iter_, more.init_iterations_, len(more.rankers_), more.alphas_.shape) == (12, 7, 12, (12,))
    np.testing.assert_allclose(more.alphas_, once.alphas_, rtol=1e-12, atol=1e-14)
    # the continuation's curves are its new iterations: the tail of the fit of N + M
    np.testing.assert_allclose(more.objective_values_, once.objective_values_[7:], rtol=1e-12)
    np.testing.assert_allclose(more.validation_scores_, once.validation_scores_[7:], rtol=1e-12)
    np.testing.assert_allclose(more.evals_result_["validation_0"]["auc"], once.evals_result_["validation_0"]["auc"][7:],
                               rtol=1e-12)
    assert more.best_iteration_ == once.best_iteration_ or once.best_iteration_ < 7
    np.testing.assert_array_equal(more.training_curve_.iterations, np.arange(7, 13))
    staged = list(more.staged_decision_function(X_test))
    assert len(staged) == 12
    np.testing.assert_allclose(staged[6], first.decision_function(X_test), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("objective", [None, "lambdarank"])
def test_continuing_within_queries_is_the_fit_of_n_plus_m(objective):
    X, y, qid = graded_queries(0)
    X_val, y_val, qid_val = graded_queries(1)
    params = dict(STEADY_TREES, objective=objective)
    first = rankcore.boost(n_iter=6, **params).fit(X, y, qid=qid)
    once = rankcore.boost(n_iter=10, **params).fit(X, y, qid=qid)
    more = rankcore.boost(n_iter=4, **params).fit(X, y, qid=qid, init_model=first,
                                                  eval_set=(X_val, y_val, qid_val))
    for rows in (X, X_val):
        np.testing.assert_allclose(more.decision_function(rows), once.decision_function(rows), rtol=1e-12,
                                   atol=1e-12)
    assert more.ranks_within_queries_ and more.n_queries_ == first.n_queries_
    # the watched set is scored by the whole model after each new iteration
    expected = [rankcore.evaluate(y_val, s, ["ndcg@k:10"], qid=qid_val)["ndcg@k:10"]
                for s in list(more.staged_decision_function(X_val))[6:]]
    np.testing.assert_allclose(more.validation_scores_, expected, rtol=1e-12)


def test_the_per_query_default_continues_itself():
    X, y, qid = graded_queries(2)
    first = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(X, y, qid=qid)
    more = rankcore.boost(learner="trees", n_iter=5, random_state=1).fit(X, y, qid=qid, init_model=first)
    assert more.n_iter_ == 10 and more.learner_spec_ == first.learner_spec_
    # the new trees learned a correction to the first model's scores (the default's trees draw their rows)
    correction = rankcore.boost(learner="trees", n_iter=5, random_state=1).fit(
        X, y, qid=qid, init_score=first.decision_function(X))
    np.testing.assert_allclose(more.decision_function(X), first.decision_function(X) + correction.decision_function(X),
                               rtol=1e-12, atol=1e-12)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 6), m=st.integers(1, 6), seed=st.integers(0, 3), price=st.sampled_from(["pow:2", "identity"]))
def test_any_split_of_the_iterations_gives_the_same_model(n, m, seed, price):
    X, y, X_val, _, _, _ = split_data(seed)
    params = dict(STUMPS, price=price)
    once = rankcore.boost(n_iter=n + m, **params).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)       # a fit that converges early adds nothing: said once
        first = rankcore.boost(n_iter=n, **params).fit(X, y)
        more = rankcore.boost(n_iter=m, **params).fit(X, y, init_model=first)
    assert more.n_iter_ == once.n_iter_ or once.stop_reason_ != "n_iter"
    np.testing.assert_allclose(more.decision_function(X_val), once.decision_function(X_val), rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# Files, paths, the init model itself
# ----------------------------------------------------------------------------------------------------------------
def test_saved_continuation_loads_as_the_model_in_memory_and_a_path_continues_as_the_object(tmp_path):
    X, y, qid = graded_queries(3)
    X_val, y_val, qid_val = graded_queries(4)
    first = rankcore.boost(n_iter=4, **STEADY_TREES).fit(X, y, qid=qid)
    rankcore.save_model(first, tmp_path / "first.json")
    before = _state(first)
    more = rankcore.boost(n_iter=3, **STEADY_TREES).fit(X, y, qid=qid, init_model=first,
                                                        eval_set=(X_val, y_val, qid_val))
    assert _state(first) == before                                  # the init model is read, never changed
    for path in (tmp_path / "first.json", str(tmp_path / "first.json")):
        from_file = rankcore.boost(n_iter=3, **STEADY_TREES).fit(X, y, qid=qid, init_model=path,
                                                                 eval_set=(X_val, y_val, qid_val))
        np.testing.assert_array_equal(from_file.decision_function(X_val), more.decision_function(X_val))
    loaded_first = rankcore.load_model(tmp_path / "first.json")
    again = rankcore.boost(n_iter=3, **STEADY_TREES).fit(X, y, qid=qid, init_model=loaded_first)
    np.testing.assert_array_equal(again.decision_function(X_val), more.decision_function(X_val))
    rankcore.save_model(more, tmp_path / "more.json")
    back = rankcore.load_model(tmp_path / "more.json")
    for name in ("n_iter_", "init_iterations_", "best_iteration_", "stop_reason_"):
        assert getattr(back, name) == getattr(more, name), name
    for method in ("decision_function", "apply", "feature_contributions"):
        np.testing.assert_array_equal(getattr(back, method)(X_val), getattr(more, method)(X_val))
    np.testing.assert_array_equal(back.feature_importances_, more.feature_importances_)
    np.testing.assert_array_equal(back.evals_result_["validation_0"]["ndcg@k:10"],
                                  more.evals_result_["validation_0"]["ndcg@k:10"])
    # a continuation of a continuation: the counts add up
    third = rankcore.boost(n_iter=2, **STEADY_TREES).fit(X, y, qid=qid, init_model=tmp_path / "more.json")
    assert (third.n_iter_, third.init_iterations_) == (9, 7)


def test_the_whole_ensemble_answers_apply_contributions_and_importances():
    X, y, X_val, _, _, _ = split_data(1)
    first = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y)
    more = rankcore.boost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(X, y, init_model=first)
    leaves = more.apply(X_val)
    assert leaves.shape == (X_val.shape[0], 5)
    np.testing.assert_array_equal(leaves[:, :3], first.apply(X_val))
    contributions = more.feature_contributions(X_val)
    np.testing.assert_allclose(contributions.sum(axis=1), more.decision_function(X_val), rtol=1e-10, atol=1e-10)
    assert more.feature_importances_.shape == (X.shape[1],) and more.feature_importances_.sum() == pytest.approx(1)


def test_continuing_in_place_reads_the_model_before_replacing_it():
    X, y, X_val, _, _, _ = split_data(2)
    model = rankcore.boost(n_iter=4, **STUMPS).fit(X, y)
    first = copy.deepcopy(model)
    model.fit(X, y, init_model=model)
    assert (model.n_iter_, model.init_iterations_) == (8, 4)
    once = rankcore.boost(n_iter=8, **STUMPS).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X_val), once.decision_function(X_val), rtol=1e-12, atol=1e-12)
    assert first.n_iter_ == 4


@pytest.mark.filterwarnings("ignore:.*adds nothing to init_model")
def test_early_stopping_counts_best_iteration_from_the_init_models_first():
    X, y, X_val, y_val, _, _ = split_data(3)
    first = rankcore.boost(n_iter=5, **STUMPS).fit(X, y)
    more = rankcore.boost(**dict(STUMPS, early_stopping=True, n_iter_no_change=3), n_iter=60).fit(
        X, y, init_model=first, eval_set=(X_val, y_val))
    assert more.init_iterations_ == 5
    assert more.best_iteration_ == more.n_iter_ == 5 + more.validation_scores_.shape[0]
    # the kept prefix is the one whose watched score is the best, the init model's own (iteration 5) included
    start = rankcore.evaluate(y_val, first.decision_function(X_val), ["auc"])["auc"]
    assert more.validation_scores_.shape[0] == 0 or more.validation_scores_[-1] >= start
    # held-out rows (no eval_set) start from the init model's scores too: the selection runs, the model continues
    held = rankcore.boost(**dict(STUMPS, early_stopping=True), n_iter=20).fit(X, y, init_model=first)
    assert held.init_iterations_ == 5 and held.best_iteration_ >= 5
    np.testing.assert_array_equal(held.alphas_[:5], first.alphas_)


# ----------------------------------------------------------------------------------------------------------------
# What may differ
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("first_params, more_params", [
    (dict(learner="stumps", price="pow:4"), dict(learner="stumps", loss="logistic", price="identity")),
    (dict(learner="stumps"), dict(learner="thresholds", price="pow:16")),
    (dict(learner="trees:max_leaves=4"), dict(learner="trees:max_leaves=8,learning_rate=0.05", objective="mp-squared")),
], ids=["loss-price", "thresholds", "objective-tree-shape"])
def test_objective_loss_price_and_learner_settings_may_change(first_params, more_params):
    X, y, X_val, _, _, _ = split_data(4)
    first = rankcore.boost(n_iter=4, random_state=0, **first_params).fit(X, y)
    more = rankcore.boost(n_iter=3, random_state=0, **more_params).fit(X, y, init_model=first)
    # the new weak rankers are the correction that objective learns on top of the first model's scores
    correction = rankcore.boost(n_iter=3, random_state=0, **more_params).fit(X, y,
                                                                           init_score=first.decision_function(X))
    np.testing.assert_allclose(more.decision_function(X_val),
                               first.decision_function(X_val) + correction.decision_function(X_val), rtol=1e-12,
                               atol=1e-12)
    assert more.objective_spec_ == correction.objective_spec_ and not hasattr(more, "from_init_score_")


def test_rankboost_and_pnormpush_continue_each_other():
    X, y, X_val, _, _, _ = split_data(5)
    first = rankcore.RankBoost(n_iter=5, random_state=0).fit(X, y)
    more = rankcore.PNormPush(p=4, n_iter=5, random_state=0).fit(X, y, init_model=first)
    assert isinstance(more, rankcore.PNormPush) and more.n_iter_ == 10
    new = sum(alpha * ranker.predict(X_val) for alpha, ranker in zip(more.alphas_[5:], more.rankers_[5:]))
    np.testing.assert_allclose(more.decision_function(X_val), first.decision_function(X_val) + new, rtol=1e-12,
                               atol=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# init_score with init_model
# ----------------------------------------------------------------------------------------------------------------
def test_a_model_fitted_from_init_score_continues_from_init_score_and_stays_a_correction():
    X, y, qid = graded_queries(5)
    X_val, y_val, qid_val = graded_queries(6)
    prior, prior_val = 0.3 * X[:, 0], 0.3 * X_val[:, 0]
    first = rankcore.boost(n_iter=5, **STEADY_TREES).fit(X, y, qid=qid, init_score=prior)
    once = rankcore.boost(n_iter=9, **STEADY_TREES).fit(X, y, qid=qid, init_score=prior,
                                                        eval_set=(X_val, y_val, qid_val), eval_init_score=prior_val)
    more = rankcore.boost(n_iter=4, **STEADY_TREES).fit(X, y, qid=qid, init_score=prior, init_model=first,
                                                        eval_set=(X_val, y_val, qid_val), eval_init_score=prior_val)
    assert more.from_init_score_ is True
    np.testing.assert_allclose(more.decision_function(X_val), once.decision_function(X_val), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(more.validation_scores_, once.validation_scores_[5:], rtol=1e-12)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted from init_score \(from_init_score_\), "
                                         r"so its scores are a correction .* pass the training rows' init_score"):
        rankcore.boost(n_iter=4, **STEADY_TREES).fit(X, y, qid=qid, init_model=first)


def test_a_model_fitted_without_init_score_refuses_it():
    X, y, _, _, _, _ = split_data(6)
    first = rankcore.boost(n_iter=3, **STUMPS).fit(X, y)
    with pytest.raises(ValueError, match=r"^init_model: init_score is refused: the model was fitted without initial "
                                         r"scores, so a continuation from them would need the rows' initial scores at "
                                         r"prediction time"):
        rankcore.boost(n_iter=3, **STUMPS).fit(X, y, init_model=first, init_score=X[:, 0])


def test_a_continuation_that_adds_nothing_says_the_model_is_the_init_models():
    X, y, _, _, _, _ = split_data(7)
    first = rankcore.boost(n_iter=3, **STUMPS).fit(X, y)
    with pytest.warns(UserWarning, match="the continuation adds nothing to init_model"):
        more = rankcore.boost(n_iter=3, **dict(STUMPS, tol=1e9)).fit(X, y, init_model=first)
    assert (more.n_iter_, more.init_iterations_) == (3, 3)
    np.testing.assert_array_equal(more.decision_function(X), first.decision_function(X))
    # a constant init model (no weak ranker) starts the fit at 0: the fit without it
    with pytest.warns(UserWarning, match="the model is constant"):
        constant = rankcore.boost(n_iter=3, **dict(STUMPS, tol=1e9)).fit(X, y)
    plain = rankcore.boost(n_iter=3, **STUMPS).fit(X, y, init_model=constant)
    assert (plain.n_iter_, plain.init_iterations_) == (3, 0)      # fitted with init_model: 0 of its weak rankers
    np.testing.assert_array_equal(plain.decision_function(X), first.decision_function(X))
    back = model_from_dict(model_to_dict(plain))
    assert (back.n_iter_, back.init_iterations_) == (3, 0)


def test_a_refit_without_init_model_forgets_the_continuation():
    X, y, _, _, _, _ = split_data(7)
    model = rankcore.boost(n_iter=3, **STUMPS)
    model.fit(X, y, init_model=rankcore.boost(n_iter=2, **STUMPS).fit(X, y))
    assert model.init_iterations_ == 2
    model.fit(X, y)
    assert model.n_iter_ == 3 and not hasattr(model, "init_iterations_")


# ----------------------------------------------------------------------------------------------------------------
# What may not differ
# ----------------------------------------------------------------------------------------------------------------
def test_init_model_must_be_a_fitted_model_of_the_family_or_its_file(tmp_path):
    X, y, _, _, _, _ = split_data(8)
    with pytest.raises(NotFittedError, match=r"^init_model: this PushBoost is not fitted; fit it first"):
        rankcore.boost().fit(X, y, init_model=rankcore.boost())
    exact = rankcore.ExactBoost(n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match=r"^init_model: expected a fitted PushBoost, PNormPush or RankBoost \(or the "
                                        r"path of its saved model file\), got an ExactBoost$"):
        rankcore.boost().fit(X, y, init_model=exact)
    with pytest.raises(TypeError, match=r"got the class PushBoost$"):
        rankcore.boost().fit(X, y, init_model=rankcore.PushBoost)
    with pytest.raises(TypeError, match=r"got an ndarray$"):
        rankcore.boost().fit(X, y, init_model=X)
    with pytest.raises(ValueError, match=r"^init_model: cannot read the model file '.*nosuch\.json': "):
        rankcore.boost().fit(X, y, init_model=tmp_path / "nosuch.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"^init_model: cannot read the model file '.*bad\.json': .*JSON"):
        rankcore.boost().fit(X, y, init_model=str(tmp_path / "bad.json"))
    rankcore.save_model(exact, tmp_path / "exact.json")
    with pytest.raises(TypeError, match=r"^init_model \(.*exact\.json\): expected a fitted PushBoost"):
        rankcore.boost().fit(X, y, init_model=tmp_path / "exact.json")


def test_features_must_be_the_models():
    pd = pytest.importorskip("pandas")
    X, y, _, _, _, _ = split_data(9)
    first = rankcore.boost(n_iter=2, **STUMPS).fit(X, y)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted on 5 features, X has 4; continue it on "
                                         r"rows of the same features$"):
        rankcore.boost(n_iter=2, **STUMPS).fit(X[:, :4], y, init_model=first)
    frame = pd.DataFrame(X, columns=list("abcde"))
    named = rankcore.boost(n_iter=2, **STUMPS).fit(frame, y)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted on the features \['a', 'b', 'c', 'd', "
                                         r"'e'\], X has \['b', 'a', 'c', 'd', 'e'\]; continue it on the same columns"):
        rankcore.boost(n_iter=2, **STUMPS).fit(frame[list("bacde")], y, init_model=named)
    # the same columns continue, and a model fitted on an array continues on a frame of the same features
    rankcore.boost(n_iter=2, **STUMPS).fit(frame, y, init_model=named)
    rankcore.boost(n_iter=2, **STUMPS).fit(frame, y, init_model=first)


def test_categorical_columns_and_categories_must_be_the_models():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 300
    colour = rng.choice(["red", "green", "blue"], size=n)
    X = pd.DataFrame({"x": rng.normal(size=n), "colour": pd.Categorical(colour, categories=["blue", "green", "red"])})
    y = ((X["x"] + (colour == "red")) > 0.5).astype(int).to_numpy()
    params = dict(learner="trees:max_leaves=4", random_state=0)
    first = rankcore.boost(n_iter=3, **params).fit(X, y)
    more = rankcore.boost(n_iter=2, **params).fit(X, y, init_model=first)
    assert more.n_iter_ == 5
    # a frame listing other categories is read by the model's (see test_push_init_model_categories.py)
    other = X.assign(colour=X["colour"].cat.set_categories(["blue", "green", "red", "white"]))
    assert list(rankcore.boost(n_iter=2, **params).fit(other, y, init_model=first).categories_[1]) == \
        ["blue", "green", "red"]
    codes = np.column_stack([X["x"].to_numpy(), X["colour"].cat.codes.to_numpy().astype(float)])
    by_index = rankcore.boost(n_iter=2, categorical_features=[1], **params).fit(codes, y)
    with pytest.raises(ValueError, match=r"^init_model: the model splits the columns \[1\] by category groups, this "
                                         r"fit \[\]; give the same categorical_features"):
        rankcore.boost(n_iter=2, **params).fit(codes, y, init_model=by_index)


@pytest.mark.parametrize("first_learner, more_learner, theirs, ours, advice", [
    ("stumps", "trees", "stumps", "leafwise trees", "stumps"),
    ("trees", "stumps", "leafwise trees", "stumps", "trees:growth=leafwise"),
    ("features", "stumps", r"single features \(linear\)", "stumps", "features"),
])
def test_weak_rankers_that_cannot_live_in_one_model_are_refused(first_learner, more_learner, theirs, ours, advice):
    # in plain words: no canonical spec of the model's learner, no weak ranker's record
    X, y, _, _, _, _ = split_data(10)
    first = rankcore.boost(learner=first_learner, n_iter=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=rf"^init_model: the model's weak rankers are {theirs}, this fit grows "
                                         rf"{ours}, and weak rankers of another kind cannot live in one model; "
                                         rf"continue it with learner '{advice}'$"):
        rankcore.boost(learner=more_learner, n_iter=2, random_state=0).fit(X, y, init_model=first)


def test_one_list_and_queries_do_not_continue_each_other():
    X, y, qid = graded_queries(7)
    within = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted within queries \(qid\), so its scores "
                                         r"order the rows of each query"):
        rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, (y > 1).astype(int), init_model=within)
    one_list = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, (y > 1).astype(int))
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted on one list \(without qid\), so its "
                                         r"scores rank every row against every other by its classes_"):
        rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, y, qid=qid, init_model=one_list)


def test_labels_must_be_the_models_classes():
    X, y, _, _, _, _ = split_data(11)
    first = rankcore.boost(n_iter=2, **STUMPS).fit(X, y)
    with pytest.raises(ValueError, match=r"^init_model: the model ranks 1 above 0 \(classes_ \[0, 1\]\), y has the "
                                         r"classes \[1, 2\]"):
        rankcore.boost(n_iter=2, **STUMPS).fit(X, y + 1, init_model=first)


def test_boost_names_fits_init_model_for_xgboosts_xgb_model():
    with pytest.raises(TypeError, match=r"^xgb_model: rankcore.boost takes no parameter 'xgb_model'; other libraries' "
                                        r"xgb_model is fit's argument init_model here: rankcore.boost\(\.\.\.\)\.fit\("
                                        r"X, y, init_model=\.\.\.\)$"):
        rankcore.boost(xgb_model="m.json")
    with pytest.raises(TypeError, match=r"^init_model: rankcore.boost takes no parameter 'init_model'; it is fit's"):
        rankcore.boost(init_model="m.json")


# ----------------------------------------------------------------------------------------------------------------
# Model files of continuations
# ----------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def continued():
    X, y, X_val, y_val, _, _ = split_data(13)
    first = rankcore.boost(n_iter=3, **STUMPS).fit(X, y)
    return rankcore.boost(n_iter=2, **STUMPS).fit(X, y, init_model=first, eval_set=(X_val, y_val))


def test_a_continuation_may_hold_more_weak_rankers_than_its_n_iter(continued):
    assert continued.n_iter == 2 and continued.n_iter_ == 5
    back = model_from_dict(model_to_dict(continued))
    assert (back.n_iter_, back.init_iterations_, back.best_iteration_) == (5, 3, continued.best_iteration_)


@pytest.mark.parametrize("change, message", [
    (lambda s: s.update(init_iterations=-1), "init_iterations must be an integer >= 0"),
    (lambda s: s.update(init_iterations=True), "init_iterations must be an integer >= 0"),
    (lambda s: s.update(init_iterations=6), "5 iterations stored, fewer than init_iterations=6"),
    (lambda s: s.update(init_iterations=2), "3 iterations stored past the init model's, but at most 2 for n_iter=2"),
    (lambda s: s.pop("init_iterations"), "5 iterations stored, but at most 2"),
    (lambda s: s.update(best_iteration=1), "best_iteration must count from the init model's 3 iterations, between 3 "
                                           "and 5, got 1"),
])
def test_model_files_of_continuations_are_checked(continued, change, message):
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(tampered(continued, change))


def test_the_large_data_hold_out_starts_from_the_init_models_scores():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10_500, 3))
    y = (X[:, 0] + rng.normal(size=X.shape[0]) > 1.0).astype(int)
    params = dict(learner="stumps", random_state=0, early_stopping="auto")
    first = rankcore.boost(n_iter=4, **params).fit(X, y)
    once = rankcore.boost(n_iter=8, **params).fit(X, y)
    more = rankcore.boost(n_iter=4, **params).fit(X, y, init_model=first)
    assert first.stop_reason_ == once.stop_reason_ == more.stop_reason_ == "n_iter"
    # the same hold-out, its rows starting from the init model's scores: the tail of the fit of 8
    assert more.validation_metric_ == "pauc:0.1" and more.init_iterations_ == 4
    np.testing.assert_allclose(more.validation_scores_, once.validation_scores_[4:], rtol=1e-12)
    np.testing.assert_allclose(more.decision_function(X), once.decision_function(X), rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# Display positions, constraints, growth, task, callbacks
# ----------------------------------------------------------------------------------------------------------------
def _clicks(seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(1000, 5))
    qid, places = np.repeat(np.arange(100), 10), np.tile(np.arange(10), 100)
    clicks = (rng.random(1000) < (1.0 / (places + 1)) * np.where(X[:, 0] > 0.5, 0.9, 0.1)).astype(float)
    return X, clicks, qid, places


def test_position_effects_continue_from_the_init_models():
    X, clicks, qid, places = _clicks()
    first = rankcore.boost(n_iter=6, **STEADY_TREES).fit(X, clicks, qid=qid, position=places)
    once = rankcore.boost(n_iter=10, **STEADY_TREES).fit(X, clicks, qid=qid, position=places)
    more = rankcore.boost(n_iter=4, **STEADY_TREES).fit(X, clicks, qid=qid, position=places, init_model=first)
    np.testing.assert_allclose(more.decision_function(X), once.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(more.position_ids_, once.position_ids_)
    np.testing.assert_allclose(more.position_effects_, once.position_effects_, rtol=1e-12, atol=1e-14)
    # a place the continuation's rows never show keeps the init model's effect; one new to it starts at 0
    moved = np.where(places == 9, 12, places)
    other = rankcore.boost(n_iter=2, **STEADY_TREES).fit(X, clicks, qid=qid, position=moved, init_model=first)
    np.testing.assert_array_equal(other.position_ids_, list(range(10)) + [12])
    assert other.position_effects_[9] == first.position_effects_[9]
    np.testing.assert_array_equal(model_from_dict(model_to_dict(other)).position_effects_, other.position_effects_)


@pytest.mark.parametrize("first_extra, more_extra, said", [
    ("", ",monotone=1/0/0/0", "fitted with no monotone constraints, this fit's learner has monotone=1/0/0/0"),
    (",monotone=1/0/0/0", "", "fitted with monotone=1/0/0/0, this fit's learner has no monotone constraints"),
    (",monotone=1/0/0/0", ",monotone=1/-1/0/0",
     "fitted with monotone=1/0/0/0, this fit's learner has monotone=1/-1/0/0"),
    ("", ",interactions=0/1/2/3", "fitted with no interaction constraints, this fit's learner has interactions="),
    (",interactions=0+1/2+3", ",interactions=0/1/2/3", "fitted with interactions=0+1/2+3"),
])
def test_constraints_are_the_models_own(first_extra, more_extra, said):
    X, y, qid = graded_queries(3)
    learner = "trees:random_strength=0,subsample=1,growth=depthwise"
    first = rankcore.boost(n_iter=3, learner=learner + first_extra, random_state=0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=rf"^init_model: the model was {re.escape(said)}.*learner_spec_.*continue it "
                                         rf"with"):
        rankcore.boost(n_iter=2, learner=learner + more_extra).fit(X, y, qid=qid, init_model=first)
    same = rankcore.boost(n_iter=2, learner=learner + first_extra).fit(X, y, qid=qid, init_model=first)
    assert same.n_iter_ == 5
    # all-zero signs are no constraint at all
    rankcore.boost(n_iter=2, learner=learner + (first_extra or ",monotone=0/0/0/0")).fit(X, y, qid=qid,
                                                                                         init_model=first)


def test_the_learners_categorical_columns_are_categorical_features():
    X, y, qid = graded_queries(4)
    Xc = np.column_stack([X, np.random.default_rng(0).integers(0, 4, X.shape[0])])
    learner, j = "trees:random_strength=0,subsample=1,growth=depthwise", X.shape[1]
    by_learner = rankcore.boost(n_iter=3, learner=f"{learner},categorical={j}", random_state=0).fit(Xc, y, qid=qid)
    by_param = rankcore.boost(n_iter=3, learner=learner, categorical_features=[j], random_state=0).fit(Xc, y, qid=qid)
    once = rankcore.boost(n_iter=5, learner=learner, categorical_features=[j], random_state=0).fit(Xc, y, qid=qid)
    more = rankcore.boost(n_iter=2, learner=learner, categorical_features=[j], random_state=0).fit(
        Xc, y, qid=qid, init_model=by_learner)
    np.testing.assert_allclose(more.decision_function(Xc), once.decision_function(Xc), rtol=1e-12, atol=1e-12)
    rankcore.boost(n_iter=2, learner=f"{learner},categorical={j}").fit(Xc, y, qid=qid, init_model=by_param)
    with pytest.raises(ValueError, match=rf"^init_model: the model splits the columns \[{j}\] by category groups, "
                                         r"this fit \[\]"):
        rankcore.boost(n_iter=2, learner=learner).fit(Xc, y, qid=qid, init_model=by_learner)


@pytest.mark.parametrize("more_learner, ours, unasked", [
    ("trees:growth=depthwise", "depthwise", False),
    ("trees:max_depth=4", "leafwise", True),
    ("trees:growth=leafwise", "leafwise", False),
])
def test_another_growth_is_refused_in_plain_words(more_learner, ours, unasked):
    X, y, qid = graded_queries(5)
    first = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, y, qid=qid)     # oblivious trees
    with pytest.raises(ValueError) as caught:
        rankcore.boost(learner=more_learner, n_iter=2).fit(X, y, qid=qid, init_model=first)
    text = str(caught.value)
    assert text.startswith(f"init_model: the model's trees are oblivious, this fit's learner grows {ours} trees, "
                           "and trees of another growth cannot live in one model; ")
    assert ("this fit did not ask for" in text) == unasked and "record" not in text
    assert "continue it with growth=oblivious" in text
    one_list = rankcore.boost(learner="trees:growth=oblivious,max_depth=2", n_iter=2, random_state=0).fit(X, y > 1)
    with pytest.raises(ValueError, match=r"^init_model: the model's trees are oblivious, this fit's learner grows "
                                         r"leafwise trees, .* continue it with growth=oblivious"):
        rankcore.boost(learner="trees", n_iter=2).fit(X, y > 1, init_model=one_list)


def test_one_list_keeps_its_task():
    X, y, _, _, _, _ = split_data(12)
    grades = y + (X[:, 0] > 1)
    STUMPS = dict(learner="stumps", random_state=0, early_stopping=False)
    bipartite = rankcore.boost(n_iter=2, **STUMPS).fit(X, y)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted on two labels \(task bipartite\), so its "
                                         r"scores rank its classes_ 1 above 0, and the objective 'mp-squared' ranks by "
                                         r"other grades"):
        rankcore.boost(n_iter=2, objective="mp-squared", **STUMPS).fit(X, grades, init_model=bipartite)
    graded = rankcore.boost(n_iter=2, objective="mp-squared", **STUMPS).fit(X, grades)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted on graded labels \(task graded\)"):
        rankcore.boost(n_iter=2, **STUMPS).fit(X, y, init_model=graded)
    # grades that are the model's two labels rank as its classes_ do
    assert rankcore.boost(n_iter=2, objective="mp-squared", **STUMPS).fit(X, y, init_model=bipartite).n_iter_ == 4


def test_eval_init_score_without_init_score_says_where_the_rows_start():
    X, y, X_val, y_val, _, _ = split_data(14)
    first = rankcore.boost(n_iter=2, **STUMPS).fit(X, y)
    with pytest.warns(UserWarning, match=r"^eval_init_score: given without init_score: the training rows start at "
                                         r"init_model's scores while the sets start at init_model's scores plus their "
                                         r"initial scores$"):
        rankcore.boost(n_iter=2, **STUMPS).fit(X, y, init_model=first, eval_set=(X_val, y_val),
                                               eval_init_score=np.ones(X_val.shape[0]))


def test_callbacks_count_the_iterations_from_the_init_models_first():
    X, y, X_val, y_val, _, _ = split_data(15)
    first = rankcore.boost(n_iter=3, **STUMPS).fit(X, y)
    seen = []
    more = rankcore.boost(n_iter=4, **STUMPS).fit(X, y, init_model=first, eval_set=(X_val, y_val),
                                                  callbacks=lambda info: seen.append((info.iteration, info.n_iter)))
    assert seen == [(4, 7), (5, 7), (6, 7), (7, 7)]
    np.testing.assert_array_equal(more.training_curve_.iterations[1:], [i for i, _ in seen])
    # a callback that stops keeps the iterations up to it, counted the same way
    stopped = rankcore.boost(n_iter=4, **STUMPS).fit(X, y, init_model=first,
                                                     callbacks=lambda info: info.iteration >= 5)
    assert (stopped.n_iter_, stopped.init_iterations_, stopped.stop_reason_) == (5, 3, "callback")


def test_the_per_query_defaults_oblivious_trees_keep_their_interaction_constraints():
    X, y, qid = graded_queries(6)
    first = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, y, qid=qid)     # oblivious trees
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted with no interaction constraints, this "
                                         r"fit's learner has interactions=0\+1/2\+3"):
        rankcore.boost(learner="trees:interactions=0+1/2+3", n_iter=2).fit(X, y, qid=qid, init_model=first)


@pytest.mark.parametrize("first_learner, more_learner", [
    ("trees", "trees:growth=depthwise"),
    ("trees:growth=depthwise", "trees:growth=leafwise"),
])
def test_any_growth_change_is_refused_so_learner_spec_stays_true(first_learner, more_learner):
    # the model's trees would restore, but learner_spec_ would then name one growth for all of them
    X, y, _, _, _, _ = split_data(10)
    first = rankcore.boost(learner=first_learner, n_iter=2, random_state=0).fit(X, y)
    theirs = first._learner.growth
    with pytest.raises(ValueError, match=rf"^init_model: the model's trees are {theirs}, this fit's learner grows "
                                         rf".* continue it with growth={theirs} in the learner$"):
        rankcore.boost(learner=more_learner, n_iter=2, random_state=0).fit(X, y, init_model=first)
    same = rankcore.boost(learner=f"trees:growth={theirs}", n_iter=2, random_state=0).fit(X, y, init_model=first)
    assert same.n_iter_ == 4 and same.init_iterations_ == 2



def test_the_growth_refusal_of_a_monotone_model_advises_a_learner_that_is_accepted():
    """The per-query default keeps oblivious trees with monotone constraints: the refusal says so, and its advice
    (the model's growth, shape and constraints) continues the model, as it does for a depth-wise monotone model."""
    X, y, qid = graded_queries(8)
    signs = "/".join(["1"] + ["0"] * (X.shape[1] - 1))
    oblivious = rankcore.boost(learner=f"trees:monotone={signs}", n_iter=2, random_state=0).fit(X, y, qid=qid)
    depthwise = rankcore.boost(learner=f"trees:growth=depthwise,max_depth=6,monotone={signs}", n_iter=2,
                               random_state=0).fit(X, y, qid=qid)
    for first, asked, theirs in [(oblivious, f"trees:monotone={signs},max_depth=6", "oblivious"),
                                 (depthwise, f"trees:monotone={signs}", "depthwise")]:
        advice = f"growth={theirs},max_depth=6,monotone={signs}"
        with pytest.raises(ValueError) as caught:
            rankcore.boost(learner=asked, n_iter=2).fit(X, y, qid=qid, init_model=first)
        text = str(caught.value)
        assert text.startswith(f"init_model: the model's trees are {theirs}, ")
        assert ("with qid the default trees are oblivious (monotone and interaction constraints included), but "
                "depth-wise with category columns, and leaf-wise once the learner names max_depth or max_leaves; "
                f"continue it with {advice} in the learner") in text
        assert "cannot take" not in text and "without monotone" not in text
        assert text.endswith("with the growth wanted") == (theirs == "oblivious")
        more = rankcore.boost(learner=f"trees:{advice}", n_iter=2, random_state=0).fit(X, y, qid=qid,
                                                                                    init_model=first)
        assert more.n_iter_ == 4 and {r.kind for r in more.rankers_} == {r.kind for r in first.rankers_}
        assert more._learner.max_depth == 6


def test_an_init_model_fitted_with_positive_0_on_a_0_1_file_refuses_that_files_labels(tmp_path):
    # `rankcore fit --positive 0` on a {0, 1} file: classes_ [0, 1] with 1 for the file's 0, relevant_label_ 0; the
    # file's labels in Python would be read as codes, the continuation undoing the model and claiming to rank 0 first
    from rankcore._state_fields import labels_coded

    X, y, *_ = split_data(0)
    model = rankcore.boost(n_iter=5, **STUMPS).fit(X, y)
    model.relevant_label_, model.other_label_ = 0, 1
    rankcore.save_model(model, tmp_path / "m.json")
    for init in (model, str(tmp_path / "m.json")):
        with pytest.raises(ValueError, match=r"y: init_model.* coded 1 for 0 \(relevant_label_, ranked first\)"):
            rankcore.boost(n_iter=3, **STUMPS).fit(X, 1 - y, init_model=init)
    with pytest.raises(ValueError, match=r"y: PushBoost .* coded 1 for 0"):
        model.score(X, 1 - y)
    with labels_coded():            # the command line's labels, coded by --positive as the model's were
        continued = rankcore.boost(n_iter=3, **STUMPS).fit(X, y, init_model=model)
        assert continued.relevant_label_ == 0 and model.score(X, y) > 0.5
    model.relevant_label_, model.other_label_ = 1, 0          # --positive 1: the file's labels are the codes
    rankcore.boost(n_iter=3, **STUMPS).fit(X, y, init_model=model)

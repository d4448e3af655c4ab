"""A LightGBM ranking script ported to rankcore: each LightGBM habit that rankcore does not share is refused with an
error naming rankcore's way (callbacks, predict's arguments, a fitted LGBMRanker's attributes, parameter names)."""

import inspect
import itertools

import numpy as np
import pytest

import rankcore
from rankcore import PushBoost
from rankcore.registry import SpecError


def _queries(seed=0, n_queries=12):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), rng.integers(5, 15, n_queries))
    X = rng.normal(size=(qid.size, 4))
    grade = np.clip(np.round(X[:, 0] + rng.normal(scale=0.7, size=qid.size) + 1), 0, 3)
    return X, grade, qid


def _fitted(**params):
    X, y, qid = _queries()
    settings = dict(learner="trees:max_leaves=4,min_samples_leaf=3", n_iter=6, random_state=0, n_jobs=1)
    return rankcore.boost(**{**settings, **params}).fit(X, y, qid=qid), X


@pytest.mark.parametrize("make, ours", [
    (lambda lgb: lgb.early_stopping(7, verbose=False), r"early_stopping=True, n_iter_no_change=7 "),
    (lambda lgb: lgb.log_evaluation(10), r"verbose=1 "),
    (lambda lgb: lgb.record_evaluation({}), r"evals_result_ after the fit"),
], ids=["early_stopping", "log_evaluation", "record_evaluation"])
def test_a_lightgbm_callback_is_refused_before_the_first_iteration_naming_rankcores_way(make, ours):
    # before: the fit ran an iteration, then LightGBM's callback failed on IterationInfo's missing begin_iteration
    lgb = pytest.importorskip("lightgbm")
    X, y, qid = _queries()
    seen = []
    with pytest.raises(TypeError, match=rf"^callbacks\[1\]: _\w+Callback is lightgbm's callback, which rankcore's "
                                        rf"fit cannot run; here: {ours}"):
        rankcore.boost(learner="trees", n_iter=3).fit(X, y, qid=qid, callbacks=[seen.append, make(lgb)])
    assert seen == []


def test_an_xgboost_callback_is_refused_naming_rankcores_early_stopping():
    xgb = pytest.importorskip("xgboost")
    X, y, qid = _queries()
    with pytest.raises(TypeError, match=r"^callbacks\[0\]: EarlyStopping is xgboost's callback, .*here: "
                                        r"early_stopping=True, n_iter_no_change=4 "):
        rankcore.boost(learner="trees", n_iter=3).fit(X, y, qid=qid, callbacks=[xgb.callback.EarlyStopping(rounds=4)])


def test_a_callback_written_for_lightgbms_callback_env_is_told_what_it_receives():
    X, y, qid = _queries()

    def logger(env):                       # LightGBM's CallbackEnv has evaluation_result_list; IterationInfo has not
        return env.evaluation_result_list

    with pytest.raises(AttributeError) as caught:
        rankcore.boost(learner="trees", n_iter=3).fit(X, y, qid=qid, callbacks=[logger])
    assert caught.value.__notes__[0].startswith("raised by callbacks[0]")
    assert caught.value.__notes__[1].startswith("evaluation_result_list is a field of LightGBM's CallbackEnv; "
                                                "rankcore's callbacks receive a rankcore.base.IterationInfo (")


def test_a_callback_failing_on_another_attribute_gets_no_callback_env_note():
    X, y, qid = _queries()

    def broken(info):
        return info.no_such_field

    with pytest.raises(AttributeError) as caught:
        rankcore.boost(learner="trees", n_iter=3).fit(X, y, qid=qid, callbacks=[broken])
    assert len(caught.value.__notes__) == 1


@pytest.mark.parametrize("name, ours", [
    ("num_iteration", r"the n-th array of staged_decision_function\(X\)"),
    ("iteration_range", r"the n-th array of staged_decision_function\(X\)"),
    ("raw_score", r"decision_function\(X\) alone"),
    ("output_margin", r"decision_function\(X\) alone"),
    ("pred_contrib", r"feature_contributions\(X\)"),
    ("pred_leaf", r"apply\(X\)"),
])
@pytest.mark.parametrize("method", ["decision_function", "staged_decision_function"])
def test_predicts_arguments_are_refused_naming_rankcores_way(name, ours, method):
    # before: Python's "got an unexpected keyword argument", which named neither staged scores nor contributions
    model, X = _fitted()
    with pytest.raises(TypeError, match=rf"^{name}: PushBoost\.{method} takes no argument '{name}'; other "
                                        rf"libraries' predict\(X, {name}=\.\.\.\) is here {ours}"):
        getattr(model, method)(X, **{name: 3})
    assert list(inspect.signature(getattr(PushBoost, method)).parameters) == ["self", "X"]


def test_the_recipe_for_num_iteration_gives_the_first_iterations_scores():
    model, X = _fitted(n_iter=6)
    shorter, _ = _fitted(n_iter=4)
    first_four = next(itertools.islice(model.staged_decision_function(X), 4 - 1, None))
    np.testing.assert_allclose(first_four, shorter.decision_function(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, ours", [
    ("booster_", r"the estimator itself: rankcore\.save_model\(model, path\)"),
    ("get_booster", r"the estimator itself"),
    ("best_iteration", r"best_iteration_ \(a count of iterations, as LightGBM's best_iteration_: XGBoost's "
                       r"best_iteration \+ 1\)"),
    ("feature_name_", r"feature_names_in_"),
    ("n_features_", r"n_features_in_"),
    ("objective_", r"get_params\(\)\['objective'\]"),
])
def test_a_fitted_lgbmrankers_attributes_name_rankcores(name, ours):
    model, _ = _fitted()
    with pytest.raises(AttributeError, match=rf"^PushBoost has no {name}: other libraries' {name} is {ours}"):
        getattr(model, name)
    assert not hasattr(model, name)


@pytest.mark.parametrize("name, ours", [
    ("subsample_freq", r'learner="trees:subsample=F" \(rows drawn anew for every tree'),
    ("bagging_freq", r'learner="trees:subsample=F"'),
    ("early_stopping_round", r"n_iter_no_change=N with fit\(\.\.\., eval_set=\.\.\.\)"),
    ("lambdarank_norm", r'objective="lambdarank:norm=false"'),
    ("sigmoid", r'objective="lambdarank:sigmoid=S"'),
    ("bagging_seed", r"random_state=S"),
])
def test_boost_names_ours_for_more_of_lgbmrankers_parameters(name, ours):
    # before: "takes no parameter" and the list of PushBoost's parameters, none of them named as the one to use
    with pytest.raises(TypeError, match=rf"^{name}: rankcore\.boost takes no parameter '{name}'; other libraries' "
                                        rf"{name} is {ours}"):
        rankcore.boost(learner="trees", **{name: 1})


@pytest.mark.parametrize("family, spec, ours", [
    ("learner", "trees:bagging_freq=1", "other libraries' bagging_freq is trees:subsample=F here"),
    ("objective", "lambdarank:lambdarank_norm=false", "other libraries' lambdarank_norm is lambdarank:norm=false here"),
])
def test_a_spec_names_ours_for_lightgbms_parameter(family, spec, ours):
    with pytest.raises(SpecError, match=ours):
        rankcore.resolve(family, spec)


def test_lightgbms_ndcg_metric_is_named_with_its_eval_at_cut_offs():
    # LightGBM's eval_metric="ndcg" is NDCG at each eval_at cut-off: the hint named only XGBoost's whole-list NDCG
    X, y, qid = _queries()
    with pytest.raises(SpecError, match=r'LightGBM\'s ndcg with eval_at=\[1, 5\] is eval_metric=\["ndcg@k:1,'
                                        r'convention=lightgbm", "ndcg@k:5,convention=lightgbm"\]'):
        rankcore.boost(learner="trees", n_iter=2).fit(X, y, qid=qid, eval_set=(X, y, qid), eval_metric="ndcg")


def _watched(tmp_path=None):
    X, y, qid = _queries()
    model = rankcore.boost(learner="trees:max_leaves=4,min_samples_leaf=3", n_iter=4, random_state=0, n_jobs=1)
    model.fit(X, y, qid=qid, eval_set=[(X, y, qid), (X[:60], y[:60], qid[:60])])
    if tmp_path is None:
        return model
    rankcore.save_model(model, tmp_path / "model.json")
    return rankcore.load_model(tmp_path / "model.json")


@pytest.mark.parametrize("saved", [False, True], ids=["fitted", "loaded"])
def test_lightgbms_keys_of_evals_result_name_rankcores(saved, tmp_path):
    # before: KeyError: 'valid_0' (and then 'ndcg@10'), naming neither validation_0 nor the metric's spec
    evals = _watched(tmp_path if saved else None).evals_result_
    with pytest.raises(KeyError, match=r"^'valid_0': not among evals_result_'s keys here \('training', "
                                       r"'validation_1'\)$"):
        evals["valid_0"]
    with pytest.raises(KeyError, match=r"LightGBM's valid_1 is validation_1 here \(XGBoost's set names; "
                                       r"fit\(\.\.\., eval_names=\[\.\.\.\]\) names the sets\)$"):
        evals["valid_1"]
    with pytest.raises(KeyError, match=r"^'ndcg@10': .*keyed by metric spec: ndcg@k:10 is here, with ties averaged "
                                       r"and queries without a relevant row left out; fit\(\.\.\., "
                                       r"eval_metric=\"ndcg@k:10,convention=lightgbm\"\) records LightGBM's ndcg@10$"):
        evals["validation_1"]["ndcg@10"]
    assert list(evals) == ["training", "validation_1"] and isinstance(evals, dict)
    assert evals["validation_1"]["ndcg@k:10"].shape == (4,) and "valid_0" not in evals


def test_lightgbms_metric_key_names_the_curve_of_its_convention_when_recorded():
    X, y, qid = _queries()
    model = rankcore.boost(learner="trees:max_leaves=4,min_samples_leaf=3", n_iter=3, random_state=0, n_jobs=1)
    model.fit(X, y, qid=qid, eval_set=(X[:60], y[:60], qid[:60]), eval_metric="ndcg@k:5,convention=lightgbm")
    with pytest.raises(KeyError, match=r"keyed by metric spec: ndcg@k:5,convention=lightgbm is LightGBM's ndcg@5$"):
        model.evals_result_["validation_0"]["ndcg@5"]


@pytest.mark.parametrize("method", ["decision_function", "staged_decision_function"])
def test_the_dask_estimators_name_rankcores_way_for_predicts_arguments(method):
    pytest.importorskip("dask")
    from rankcore.dask import DaskPushBoost

    # refused before anything is read: no cluster, no fitted model needed to say where num_iteration is
    with pytest.raises(TypeError, match=rf"^num_iteration: DaskPushBoost\.{method} takes no argument "
                                        r"'num_iteration'; other libraries' predict\(X, num_iteration=\.\.\.\) is here "
                                        r"the n-th array of staged_decision_function\(X\)"):
        getattr(DaskPushBoost(), method)(np.zeros((3, 2)), num_iteration=2)
    assert list(inspect.signature(getattr(DaskPushBoost, method)).parameters) == ["self", "X"]


def _other_rankers():
    from rankcore.exactboost import ExactBoost

    return {"AutoRanker": rankcore.AutoRanker, "ExactBoost": ExactBoost, "KernelRanker": rankcore.KernelRanker,
            "SGDAtK": rankcore.SGDAtK, "PerceptronAtK": rankcore.PerceptronAtK}


@pytest.mark.parametrize("cls_name", ["AutoRanker", "ExactBoost", "KernelRanker", "SGDAtK", "PerceptronAtK",
                                      "DaskAutoRanker", "DaskExactBoost"])
@pytest.mark.parametrize("name, ours", [
    ("raw_score", r"decision_function\(X\) alone"),
    ("num_iteration", r"without a counterpart in {cls} \(it has no staged_decision_function\)"),
    ("pred_leaf", r"without a counterpart in {cls} \(it has no apply\)"),
])
def test_every_rankers_decision_function_names_predicts_arguments_and_no_missing_method(cls_name, name, ours):
    # before: only the push estimators' said where predict's arguments are (the others: Python's "unexpected keyword
    # argument"), and a hint naming staged_decision_function or apply would send these to a method they lack
    if cls_name.startswith("Dask"):
        pytest.importorskip("dask")
        import rankcore.dask

        cls = getattr(rankcore.dask, cls_name)
    else:
        cls = _other_rankers()[cls_name]
    with pytest.raises(TypeError, match=rf"^{name}: {cls_name}\.decision_function takes no argument '{name}'; other "
                                        rf"libraries' predict\(X, {name}=\.\.\.\) is here {ours.format(cls=cls_name)}"):
        cls().decision_function(np.zeros((3, 2)), **{name: 3})
    assert list(inspect.signature(cls.decision_function).parameters) == ["self", "X"]


@pytest.mark.parametrize("name, needed", [("objective_", "objective"), ("best_iteration", "best_iteration_"),
                                          ("staged_predict", "staged_decision_function")])
def test_an_lgbmrankers_attribute_on_a_ranker_without_its_counterpart_says_none(name, needed):
    # before: KernelRanker().objective_ named get_params()['objective'] (a KeyError), best_iteration best_iteration_
    model = rankcore.KernelRanker()
    with pytest.raises(AttributeError, match=rf"^KernelRanker has no {name}: other libraries' {name} has no "
                                             rf"counterpart in KernelRanker \(which has no {needed}\)$"):
        getattr(model, name)


@pytest.mark.parametrize("name", ["groups", "group_id"])
def test_score_names_qid_for_other_libraries_query_ids(name):
    # before: Python's "score() got an unexpected keyword argument 'groups'" (fit's hint named qid, score's nothing)
    model, X = _fitted()
    _, y, qid = _queries()
    with pytest.raises(TypeError, match=rf"^{name}: PushBoost\.score takes no argument '{name}'; other libraries' "
                                        rf"{name} is here score\(X, y, qid=\.\.\.\) \(one query id per row"):
        model.score(X, y, **{name: qid})
    auto = rankcore.AutoRanker()
    with pytest.raises(TypeError, match=rf"^{name}: AutoRanker\.score takes no argument '{name}'; .*qid=\.\.\."):
        auto.score(X, y, **{name: qid})
    assert np.isfinite(model.score(X, y, qid=qid))
    assert "qid" in inspect.signature(PushBoost.score).parameters


def test_a_partial_of_a_lightgbm_callback_and_a_subclass_of_xgboosts_are_refused_before_the_fit():
    # before: the partial ran an iteration and failed on IterationInfo's begin_iteration; the subclass (defined in
    # the user's module) was "expected a callable", naming neither XGBoost nor rankcore's way
    import functools

    lgb = pytest.importorskip("lightgbm")
    xgb = pytest.importorskip("xgboost")
    X, y, qid = _queries()

    class Watch(xgb.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            return False

    with pytest.raises(TypeError, match=r"^callbacks\[0\]: _EarlyStoppingCallback is lightgbm's callback, .*"
                                        r"n_iter_no_change=7 "):
        rankcore.boost(learner="trees", n_iter=3).fit(
            X, y, qid=qid, callbacks=[functools.partial(lgb.early_stopping(7, verbose=False))])
    with pytest.raises(TypeError, match=r"^callbacks\[0\]: .*Watch is xgboost's callback, which rankcore's fit cannot "
                                        r"run \(rankcore's callbacks are callables taking a rankcore\.base\."):
        rankcore.boost(learner="trees", n_iter=3).fit(X, y, qid=qid, callbacks=[Watch()])


def test_a_catboost_style_callback_object_is_told_rankcore_calls_the_callback_itself():
    class Stopper:                         # CatBoost's protocol: after_iteration(info), a falsy return stops
        def after_iteration(self, info):
            return True

    X, y, qid = _queries()
    with pytest.raises(TypeError, match=r"^callbacks\[0\]: expected a callable taking an IterationInfo, got .*Stopper"
                                        r".* \(an object with after_iteration, as XGBoost's and CatBoost's callbacks, "
                                        r"is not one: rankcore calls the callback itself"):
        rankcore.boost(learner="trees", n_iter=3).fit(X, y, qid=qid, callbacks=[Stopper()])


def test_a_users_callback_from_a_module_named_like_a_library_is_not_refused():
    X, y, qid = _queries()
    seen = []

    def watch(info):
        seen.append(info.iteration)

    watch.__module__ = "lightgbm_utils"        # not lightgbm: its own module merely starts with the name
    rankcore.boost(learner="trees", n_iter=3).fit(X, y, qid=qid, callbacks=[watch])
    assert seen == [1, 2, 3]


def test_autorankers_fit_refuses_a_lightgbm_callback_before_any_task():
    # before: the first candidate's fold was fitted, then LightGBM's callback failed on SearchEvent's missing
    # iteration, with no note
    lgb = pytest.importorskip("lightgbm")
    X, y, qid = _queries()
    seen = []
    with pytest.raises(TypeError, match=r"^callbacks\[1\]: _EarlyStoppingCallback is lightgbm's callback, which "
                                        r"AutoRanker's fit cannot run \(AutoRanker's callbacks are callables taking a "
                                        r"rankcore\.auto\.SearchEvent after each task"):
        rankcore.AutoRanker(candidates=["trees:n_iter=3"], n_jobs=1).fit(
            X, y, qid=qid, callbacks=[seen.append, lgb.early_stopping(5, verbose=False)])
    assert seen == []

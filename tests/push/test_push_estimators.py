"""PushBoost, PNormPush, RankBoost and boost(): scikit-learn behaviour and practicalities."""

import inspect
import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import rankcore
from rankcore import PNormPush, PushBoost, RankBoost

# Checks that fail by design, and why (the same as the other rankcore estimators):
EXPECTED_FAILED_CHECKS = {
    # rankcore's validation raises TypeError (the wrong kind of value) for complex
    # input, by the project's error convention; scikit-learn wants ValueError.
    "check_complex_data": "complex X raises TypeError (rankcore convention), not ValueError",
    # 1-D X is refused with rankcore's message ("expected a 2-D array ...; reshape a
    # single feature with X.reshape(-1, 1)"), not scikit-learn's exact text "Reshape your data".
    "check_fit2d_predict1d": "rankcore's own message for 1-D X",
}

# An objective that refuses sample weights (the precision@k surrogates) fails the
# weight checks by design: fit takes sample_weight, the objective says no, clearly.
_NO_WEIGHTS = {name: "the objective does not support sample weights (clear ValueError)" for name in (
    "check_sample_weights_pandas_series", "check_sample_weights_not_an_array", "check_sample_weights_list",
    "check_sample_weights_shape", "check_sample_weights_not_overwritten",
    "check_sample_weight_equivalence_on_dense_data")}


def _expected_failed_checks(estimator):
    objective = getattr(estimator, "objective", None)           # PNormPush and RankBoost have none
    if isinstance(objective, str) and objective.startswith("prec@k"):
        return {**EXPECTED_FAILED_CHECKS, **_NO_WEIGHTS}
    learner = getattr(estimator, "learner", "")
    if isinstance(learner, str) and learner.startswith("trees"):
        # Newton leaves use the objective's per-row diagonal curvature, which is not additive over
        # duplicated rows (a row of weight 2 interacts with itself through the price and the log);
        # the gradient-leaf path is exactly multiplicity-invariant (tests/learners/test_learners_trees.py).
        return {**EXPECTED_FAILED_CHECKS,
                **{f"check_sample_weight_equivalence_on_{kind}_data":
                   "diagonal curvature is not additive over duplicated rows" for kind in ("dense", "sparse")}}
    return EXPECTED_FAILED_CHECKS


@parametrize_with_checks(
    [PushBoost(n_iter=8, n_jobs=1), PNormPush(p=16, n_iter=8, n_jobs=1),
     RankBoost(learner="features", n_iter=8, n_jobs=1), PushBoost(loss="hinge", price="pow:2", n_iter=5, n_jobs=1),
     PushBoost(learner="thresholds", price="exp:0.5", n_iter=5, n_jobs=1),
     # a non-smooth objective: the tie-break offset (random_state) keeps fits idempotent and deterministic
     PushBoost(objective="prec@k-avg:0.2", n_iter=8, n_jobs=1),
     # trees accept NaN (allow_nan tag) and are real-valued weak rankers
     PushBoost(learner="trees:max_leaves=7,min_samples_leaf=2", n_iter=5, n_jobs=1)],
    expected_failed_checks=_expected_failed_checks,
)
def test_push_estimators_are_sklearn_compatible(estimator, check):
    check(estimator)


def _data(seed=0, n=300, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] - X[:, 1] + rng.normal(0, 1, n) > 1.0).astype(int)
    return X, y


def test_boost_returns_an_unfitted_push_estimator():
    model = rankcore.boost(loss="exp", price="pow:16", learner="features", n_iter=200)
    assert isinstance(model, PushBoost) and not hasattr(model, "rankers_")
    assert model.get_params()["price"] == "pow:16" and model.get_params()["n_iter"] == 200
    assert clone(model).get_params() == model.get_params()
    assert rankcore.boost(objective="push:hinge,pow:2").objective == "push:hinge,pow:2"


@pytest.mark.parametrize("name, hint", [
    ("n_estimators", "n_iter=N"), ("num_leaves", 'learner="trees:max_leaves=L"'),
    ("early_stopping_rounds", "n_iter_no_change=N"), ("eval_at", 'scoring="ndcg@k:10"'),
    ("reg_lambda", 'learner="trees:l2=V"'), ("seed", "random_state=S"),
    ("label_gain", 'objective="lambdarank:gain=0/1/3/7"'),
    ("scale_pos_weight", "fit(X, y, sample_weight="), ("class_weight", "fit(X, y, sample_weight="),
    ("is_unbalance", "fit(X, y, sample_weight="),
    # XGBRanker's (before, these listed PushBoost's parameters alone)
    ("ndcg_exp_gain", 'objective="lambdarank:gain=linear" for ndcg_exp_gain=False'),
    ("lambdarank_pair_method", 'objective="lambdarank:truncation=T"'),
    ("lambdarank_num_pair_per_sample", 'objective="lambdarank:truncation=T"'),
    ("tree_method", 'learner="trees:max_bins=B"'), ("enable_categorical", "categorical_features=[...]"),
    ("feature_types", "categorical_features=[...]"), ("base_score", "fit(X, y, init_score=...)"),
    ("lambda", 'learner="trees:l2=V"'),
])
def test_boost_names_rankcores_parameter_for_a_peers_name(name, hint):
    with pytest.raises(TypeError, match=rf"^{name}: rankcore.boost takes no parameter '{name}'; other libraries' "
                                        rf"{name} is {re.escape(hint)}"):
        rankcore.boost(**{name: 3})
    with pytest.raises(TypeError, match=r"^colour: rankcore.boost takes no parameter 'colour' \(PushBoost's "
                                        r"parameters: categorical_features, early_stopping, learner"):
        rankcore.boost(colour=3)


@pytest.mark.parametrize("learner, name, spec", [
    ("trees", "interactions", "trees:interactions=..."), ("trees:max_leaves=8", "monotone",
                                                           "trees:max_leaves=8,monotone=..."),
    ("gbdt", "colsample", "gbdt:colsample=..."), ("trees", "max_depth", "trees:max_depth=..."),
    ("stumps", "max_bins", "stumps:max_bins=..."),
])
def test_boost_names_the_learner_s_spec_for_the_learner_s_parameter(learner, name, spec):
    with pytest.raises(TypeError, match=rf"^{name}: rankcore.boost takes no parameter '{name}'; it is the learner's "
                                        rf'parameter: learner="{re.escape(spec)}"$'):
        rankcore.boost(learner=learner, **{name: "0+1" if name == "interactions" else 1})
    from rankcore.learners.trees import Trees

    with pytest.raises(TypeError, match=r"; it is the learner's parameter: learner=\"trees:4,interactions=\.\.\.\"$"):
        rankcore.boost(learner=Trees(max_leaves=4), interactions="0+1")
    # another learner's parameter name, and a peer's name that points elsewhere, keep their hints
    with pytest.raises(TypeError, match=r"subsample=\.\.\.\"; other libraries' subsample is "
                                        r"learner=\"trees:subsample=F\""):
        rankcore.boost(learner="stumps", subsample=0.5)
    with pytest.raises(TypeError, match=r"^max_leaves: rankcore.boost takes no parameter 'max_leaves' \(PushBoost's"):
        rankcore.boost(learner="stumps", max_leaves=8)


def test_set_params_names_rankcores_parameter_for_a_peers_name():
    # a LightGBM search grid ({"n_estimators": ..., "num_leaves": ...}) reaches the model through set_params
    from sklearn.model_selection import GridSearchCV

    X, y = np.random.default_rng(0).normal(size=(60, 2)), np.tile([0, 1], 30)
    with pytest.raises(ValueError, match=r"^n_estimators: PushBoost has no parameter 'n_estimators'; other "
                                         r"libraries' n_estimators is n_iter=N here$"):
        rankcore.boost(learner="trees").set_params(n_estimators=3)
    with pytest.raises(ValueError, match=r"^num_leaves: .* is learner=\"trees:max_leaves=L\" here$"):
        GridSearchCV(rankcore.boost(learner="trees"), {"num_leaves": [7, 15]}, cv=2).fit(X, y)
    with pytest.raises(ValueError, match=r"Invalid parameter 'colour'"):     # other names: scikit-learn's error
        rankcore.boost().set_params(colour=3)
    assert rankcore.boost().set_params(n_iter=3).n_iter == 3


def test_every_peer_name_hint_is_a_parameter_or_a_trees_parameter():
    from rankcore.push._estimators import PEER_NAMES

    values = {"learning_rate": 0.1, "max_leaves": 8, "max_depth": 3, "min_samples_leaf": 2, "min_child_weight": 1,
              "l2": 1, "subsample": 0.5, "colsample": 0.5, "max_bins": 63, "monotone": "1/0/-1",
              "interactions": "0+1/2", "max_delta_step": 0.7, "growth": "oblivious", "leaf_newton_steps": 2,
              "bagging_unit": "query", "max_cat_threshold": 1}
    for name, hint in PEER_NAMES.items():
        assert name not in PushBoost._get_param_names()
        trees = re.match(r'learner="trees:(\w+)=', hint)
        if trees:
            rankcore.registry.resolve("learner", f"trees:{trees.group(1)}={values[trees.group(1)]}")
        elif hint.startswith("fit("):         # class weights: fit's sample_weight
            assert "sample_weight" in inspect.signature(PushBoost.fit).parameters, hint
        elif hint.startswith("model."):       # read after the fit (importance_type): a method of the model
            assert callable(getattr(PushBoost, re.match(r"model\.(\w+)\(", hint).group(1))), hint
        else:
            assert re.match(r"(\w+)=", hint).group(1) in PushBoost._get_param_names(), hint


@pytest.mark.parametrize("name, ours", [
    ("eval_group", r"other libraries' eval_group is fit's argument eval_set here: rankcore.boost\(\.\.\.\)\.fit\(X, y, "
                   r"eval_set=\.\.\.\)$"),
    ("eval_qid", r"other libraries' eval_qid is fit's argument eval_set here"),
    ("lambdarank_truncation_level", r"other libraries' lambdarank_truncation_level is "
                                    r"objective=\"lambdarank:truncation=T\" here"),
])
def test_boost_names_ours_for_the_lightgbm_ranking_names_the_guide_maps(name, ours):
    # docs/ranking_within_queries.md maps LGBMRanker's names to rankcore's and says boost names them
    with pytest.raises(TypeError, match=rf"^{name}: rankcore.boost takes no parameter '{name}'; {ours}"):
        rankcore.boost(learner="trees", **{name: [3, 4]})


def test_named_estimators_are_the_push_objective():
    X, y = _data()
    a = PNormPush(p=8, n_iter=10, n_jobs=1).fit(X, y)
    b = PushBoost(loss="exp", price="pow:8", n_iter=10, n_jobs=1).fit(X, y)
    c = RankBoost(n_iter=10, n_jobs=1).fit(X, y)
    d = PushBoost(price="identity", n_iter=10, n_jobs=1).fit(X, y)
    assert a.objective_spec_ == b.objective_spec_ == "push:exp,pow:8"
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    assert c.objective_spec_ == "push"                       # the canonical spec omits defaults (exp, identity)
    np.testing.assert_array_equal(c.alphas_, d.alphas_)


def test_fitted_attributes_and_staged_scores():
    X, y = _data(1)
    model = PushBoost(price="pow:4", n_iter=25, n_jobs=1).fit(X, y)
    assert model.n_iter_ == len(model.rankers_) == model.alphas_.shape[0] == 25
    assert model.objective_values_.shape == (26,)
    assert model.stop_reason_ == "n_iter"
    stages = list(model.staged_decision_function(X))
    assert len(stages) == 25
    np.testing.assert_allclose(stages[-1], model.decision_function(X), rtol=0, atol=0)
    manual = sum(a * r.predict(X) for a, r in zip(model.alphas_, model.rankers_))
    np.testing.assert_allclose(model.decision_function(X), manual, rtol=1e-12)
    assert model.score(X, y) > 0.8                          # training AUC


def test_any_two_labels_the_greater_is_relevant():
    X, y = _data(2)
    base = RankBoost(n_iter=10, n_jobs=1).fit(X, y)
    for labels in (np.where(y == 1, 1, -1), np.where(y == 1, "yes", "no"), y.astype(bool)):
        model = RankBoost(n_iter=10, n_jobs=1).fit(X, labels)
        np.testing.assert_array_equal(model.alphas_, base.alphas_)
        assert list(model.classes_) == sorted(set(labels.tolist()))


@pytest.mark.parametrize("kwargs, message", [
    ({"n_iter": 0}, r"n_iter: expected an integer in \[1, 2147483647\], got 0"),
    # beyond a C int: 2**63 and 10**308 ran until convergence, which may never come (the sweep's hangs)
    ({"n_iter": 2**31}, r"n_iter: expected an integer in \[1, 2147483647\], got 2147483648"),
    ({"n_iter": 10**308}, r"n_iter: expected an integer in \[1, 2147483647\], got 1000"),
    ({"tol": -1.0}, r"tol: expected a finite number >= 0, got -1.0"),
    ({"tol": float("nan")}, r"tol: expected a finite number >= 0, got nan"),
    ({"early_stopping": "yes"}, r"early_stopping: expected True, False or 'auto', got 'yes'"),
    ({"validation_fraction": 1.5}, r"validation_fraction: expected a number in \(0, 1\)"),
    ({"n_iter_no_change": 0}, r"n_iter_no_change: expected an integer >= 1"),
    ({"verbose": -1}, r"verbose: expected an integer >= 0"),
    ({"n_jobs": 0}, r"n_jobs: expected None, a positive integer"),
    ({"random_state": "seed"}, r"random_state: expected None, an integer"),
    ({"price": "pow:x"}, r"price 'pow': p must be a number >= 1 and <= 1e\+06, got 'x'"),
    ({"loss": "hing"}, r"unknown loss 'hing'"),
    ({"loss": 3}, r"loss: expected a loss spec string"),
    ({"learner": "forest"}, r"unknown learner 'forest'"),
    ({"objective": "push:hinge,pow:2", "price": "pow:8"}, r"replaces loss and price"),
    ({"objective": "nope"}, r"unknown objective 'nope'"),
    ({"learner": "features", "thresholds": [[0.0]] * 5}, r"does not use thresholds"),
    ({"thresholds": [[0.0]] * 4}, r"one array of thresholds per feature \(5\), got 4"),
    ({"early_stopping": True, "scoring": "roc"}, r"scoring: the metric 'roc' is not a scalar score"),
])
def test_bad_parameters_are_reported_at_fit(kwargs, message):
    X, y = _data(3, n=60)
    with pytest.raises((ValueError, TypeError), match=message):
        PushBoost(**{"n_iter": 3, **kwargs}).fit(X, y)


def test_pnorm_push_rejects_p_below_one():
    X, y = _data(3, n=40)
    with pytest.raises(ValueError, match=r"p: expected a number in \[1, inf\]"):
        PNormPush(p=0.5).fit(X, y)


@pytest.mark.parametrize("X, y, message", [
    (np.ones((5, 2)), [0, 0, 0, 0, 0], r"a ranking needs both classes"),
    (np.ones((3, 2)), [0, 1, 2], r"expected two classes"),
    # more than two labels without qid: the message says how grades are ranked
    (np.ones((3, 2)), [0, 1, 2],
     r"got 3: \[0, 1, 2\]; graded labels are ranked within queries: pass fit\(X, y, qid=\.\.\.\)"),
    (np.array([[np.nan, 1.0], [0.0, 1.0]]), [0, 1], r"X: expected finite numbers, got NaN"),
    (np.ones((3, 2)), [0, 1], r"inconsistent lengths"),
    (np.ones((3, 2)), None, r"requires y to be passed"),
])
def test_bad_data_is_reported(X, y, message):
    with pytest.raises(ValueError, match=message):
        PushBoost(n_iter=2).fit(X, y)


def test_zero_weight_class_is_an_error():
    X, y = _data(4, n=30)
    w = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match="needs positive total weight in both classes"):
        PushBoost(n_iter=2).fit(X, y, sample_weight=w)


def test_predict_side_errors():
    X, y = _data(4, n=60)
    with pytest.raises(NotFittedError):
        PushBoost().decision_function(X)
    model = PushBoost(n_iter=3, n_jobs=1).fit(X, y)
    with pytest.raises(ValueError, match="5 features"):
        model.decision_function(X[:, :3])


@pytest.mark.parametrize("learner", ["stumps", "features"])
def test_integer_sample_weights_equal_repeated_rows(learner):
    X, y = _data(5, n=80)
    counts = np.random.default_rng(0).integers(1, 4, 80)
    rep = np.repeat(np.arange(80), counts)
    a = PushBoost(price="pow:4", learner=learner, n_iter=10, n_jobs=1).fit(X, y, sample_weight=counts)
    b = PushBoost(price="pow:4", learner=learner, n_iter=10, n_jobs=1).fit(X[rep], y[rep])
    assert a.rankers_ == b.rankers_
    np.testing.assert_allclose(a.alphas_, b.alphas_, rtol=1e-9)


@pytest.mark.parametrize("scoring", ["rmax", "prec@k:10", "pauc:0.1", "auc"])
def test_early_stopping_by_any_registered_metric(scoring):
    # on an eval_set: one validation curve, whose last best entry is kept
    X, y = _data(6, n=600)
    model = PushBoost(price="pow:4", n_iter=300, early_stopping=True, scoring=scoring, n_iter_no_change=5,
                      random_state=0, n_jobs=1).fit(X[:420], y[:420], eval_set=(X[420:], y[420:]))
    assert model.stop_reason_ == "early_stopping"
    assert model.n_iter_ == model.best_iteration_ < 300
    scores = model.validation_scores_
    assert scores.shape == (model.n_iter_,)
    if model.n_iter_:
        metric = rankcore.resolve("metric", scoring)
        assert metric.to_loss(scores[-1]) == min(metric.to_loss(s) for s in scores)


def test_early_stopping_is_deterministic_and_uses_the_split():
    X, y = _data(7, n=400)
    kw = dict(price="pow:4", n_iter=100, early_stopping=True, n_iter_no_change=3, n_jobs=1)
    a = PushBoost(random_state=1, **kw).fit(X, y)
    b = PushBoost(random_state=1, **kw).fit(X, y)
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    np.testing.assert_array_equal(a.validation_scores_, b.validation_scores_)


def test_eval_set_records_validation_scores_without_stopping():
    X, y = _data(8, n=400)
    model = PushBoost(price="pow:4", n_iter=20, scoring="rmax", n_jobs=1).fit(X[:300], y[:300],
                                                                               eval_set=(X[300:], y[300:]))
    assert model.n_iter_ == 20 and model.validation_scores_.shape == (20,)
    staged = [rankcore.resolve("metric", "rmax")(y[300:], s) for s in model.staged_decision_function(X[300:])]
    np.testing.assert_array_equal(model.validation_scores_, staged)
    with pytest.raises(ValueError, match="eval_set y: expected labels among the training classes"):
        PushBoost(n_iter=2).fit(X, y, eval_set=(X, y + 5))


def test_progress_display(capsys):
    X, y = _data(9, n=100)
    PushBoost(n_iter=20, n_jobs=1).fit(X, y)
    assert capsys.readouterr().out == ""                      # silent by default
    PushBoost(n_iter=20, verbose=1, n_jobs=1).fit(X, y, eval_set=(X, y))
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["iter", "objective", "alpha"] and "val auc" in out[0]
    assert len(out) == 1 + 10 + 1 and out[-1].startswith("stopped (n_iter) with 20 weak rankers")
    PushBoost(n_iter=5, verbose=2, n_jobs=1).fit(X, y)
    assert len(capsys.readouterr().out.splitlines()) == 1 + 5 + 1


def test_random_state_controls_the_bin_sample():
    X, y = _data(10, n=400)
    kw = dict(learner="stumps:max_bins=8,subsample=100", n_iter=10, n_jobs=1)
    a = PushBoost(random_state=3, **kw).fit(X, y)
    b = PushBoost(random_state=3, **kw).fit(X, y)
    c = PushBoost(random_state=4, **kw).fit(X, y)
    assert a.rankers_ == b.rankers_ and a.rankers_ != c.rankers_


def test_given_bin_edges_are_used():
    X, y = _data(11, n=200)
    from rankcore.learners import bin_edges

    edges = bin_edges(X, max_bins=16, subsample=None)
    model = PushBoost(learner="stumps", thresholds=edges, n_iter=10, n_jobs=1).fit(X, y)
    assert all(r.threshold in edges[r.feature] for r in model.rankers_)


def test_float32_input():
    X, y = _data(12, n=200)
    model = PushBoost(n_iter=10, n_jobs=1).fit(X.astype(np.float32), y)
    assert model.decision_function(X.astype(np.float32)).dtype == np.float64


def test_dataframe_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = _data(13, n=100)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)])
    model = PushBoost(n_iter=5, n_jobs=1).fit(df, y)
    assert list(model.feature_names_in_) == list(df.columns)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        plain = model.decision_function(X)
    np.testing.assert_array_equal(model.decision_function(df), plain)


# ----------------------------------------------------------------------
# callbacks
# ----------------------------------------------------------------------
def test_callbacks_see_every_iteration_and_match_the_fitted_attributes():
    from rankcore.push import IterationInfo

    X, y = _data()
    seen = []
    model = PushBoost(price="pow:4", n_iter=7, n_jobs=1).fit(X, y, eval_set=(X, y), callbacks=seen.append)
    assert all(isinstance(info, IterationInfo) for info in seen)
    assert [info.iteration for info in seen] == list(range(1, model.n_iter_ + 1))
    assert np.array_equal([info.objective for info in seen], model.objective_values_[1:])
    assert np.array_equal([info.alpha for info in seen], model.alphas_)
    assert np.array_equal([info.validation_score for info in seen], model.validation_scores_)
    assert all(info.n_iter == 7 for info in seen)
    assert all(b.elapsed >= a.elapsed for a, b in zip(seen, seen[1:]))


def test_callback_stops_the_fit_with_its_reason():
    X, y = _data()
    stop_at_3 = lambda info: "budget" if info.iteration == 3 else None  # noqa: E731
    model = PushBoost(price="pow:4", n_iter=20, n_jobs=1).fit(X, y, callbacks=[stop_at_3])
    assert model.n_iter_ == 3 and model.stop_reason_ == "budget"
    full = PushBoost(price="pow:4", n_iter=3, n_jobs=1).fit(X, y)
    assert np.array_equal(model.alphas_, full.alphas_)
    model = PushBoost(price="pow:4", n_iter=20, n_jobs=1).fit(X, y, callbacks=lambda info: True)
    assert model.n_iter_ == 1 and model.stop_reason_ == "callback"


@pytest.mark.parametrize("callbacks, message", [
    ("print", r"callbacks: expected a callable or a list of callables, got str"),
    (3, r"callbacks: expected a callable or a list of callables, got int"),
    ([print, None], r"callbacks\[1\]: expected a callable"),
])
def test_bad_callbacks_are_refused(callbacks, message):
    X, y = _data()
    with pytest.raises(TypeError, match=message):
        PushBoost(n_iter=2).fit(X, y, callbacks=callbacks)


@pytest.mark.parametrize("name, ours", [
    ("base_margin_eval_set", "fit(X, y, eval_set=..., eval_init_score=[...])"),
    ("sample_weight_eval_set", "fit(X, y, eval_set=...) alone: rankcore scores"),
])
def test_fit_names_ours_for_xgbrankers_eval_set_arguments(name, ours):
    """(Before: Python's "got an unexpected keyword argument", naming nothing of rankcore's.)"""
    X, y = np.zeros((4, 1)), [0, 1, 0, 1]
    with pytest.raises(TypeError, match=rf"^{name}: PushBoost.fit takes no argument '{name}'; other libraries' "
                                        rf"{name} is here {re.escape(ours)}"):
        rankcore.boost(learner="trees").fit(X, y, qid=[0, 0, 1, 1], **{name: [None]})


def test_another_librarys_data_container_is_refused_by_name():
    """(Before: "X: expected numbers, got non-numeric values of type object" in fit, and scikit-learn's "X does not
    contain any features" in decision_function.)"""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X, y, qid = rng.normal(size=(40, 3)), np.arange(40) % 3, np.repeat(np.arange(8), 5)
    data = xgb.DMatrix(X, y, qid=qid)
    message = r"^X: got an xgboost.DMatrix, which rankcore does not read; pass the array or DataFrame it was built from"
    with pytest.raises(TypeError, match=message):
        rankcore.boost(learner="trees", n_iter=2).fit(data, y, qid=qid)
    model = rankcore.boost(learner="trees:min_samples_leaf=2", n_iter=2).fit(X, y, qid=qid)
    with pytest.raises(TypeError, match=message):
        model.decision_function(data)


def test_another_librarys_data_container_as_eval_set_x_is_refused_by_name():
    """(Before: "eval_set X: expected numbers, got non-numeric values of type object (float() argument must be a
    string or a real number, not 'DMatrix')".)"""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), np.arange(40) % 2
    message = r"^eval_set X: got an xgboost.DMatrix, which rankcore does not read"
    for model in (rankcore.boost(learner="trees", n_iter=2), rankcore.ExactBoost(), rankcore.SGDAtK()):
        with pytest.raises(TypeError, match=message):
            model.fit(X, y, eval_set=[(xgb.DMatrix(X, y), y)])
    # AutoRanker names the set's X_val (before: "X: got an xgboost.DMatrix", the training X's name)
    with pytest.raises(TypeError, match=r"^eval_set X_val: got an xgboost.DMatrix, which rankcore does not read"):
        rankcore.AutoRanker(candidates=["linear"]).fit(X, y, eval_set=[(xgb.DMatrix(X, y), y)])

"""CatBoost's names given to rankcore.boost and to fit: a TypeError that says what rankcore calls them."""

import re

import numpy as np
import pytest

import rankcore


def _queries(n_queries=40, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat([f"q{seed}-{j}" for j in range(n_queries)], rng.integers(5, 20, n_queries))
    X = rng.normal(size=(qid.size, 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.8, size=qid.size) + 1), 0, 4)
    return X, y, qid


@pytest.mark.parametrize("name, hint", [
    ("iterations", "n_iter=N"), ("depth", 'learner="trees:max_depth=D,growth=oblivious"'),
    ("use_best_model", "early_stopping=True with fit(..., eval_set=...)"),
    ("cat_features", "categorical_features=[...]"), ("od_wait", "n_iter_no_change=N"),
    ("rsm", 'learner="trees:colsample=F"'), ("thread_count", "n_jobs=N"),
    ("grow_policy", 'learner="trees:growth=oblivious"'),
    ("leaf_estimation_iterations", 'learner="trees:leaf_newton_steps=N"'),
    ("loss_function", 'objective="yetirank"'), ("pairs", "fit(X, y, qid=...)"),
])
def test_boost_names_rankcores_parameter_for_catboosts_name(name, hint):
    """(Before, each of these listed PushBoost's parameters without a word of what to use instead.)"""
    with pytest.raises(TypeError, match=rf"^{name}: rankcore.boost takes no parameter '{name}'; other libraries' "
                                        rf"{name} is {re.escape(hint)}"):
        rankcore.boost(learner="trees", **{name: 3})


@pytest.mark.parametrize("name, ours", [("group_id", "qid"), ("baseline", "init_score"),
                                        ("group_weight", "sample_weight")])
def test_boost_names_fits_argument_for_catboosts_fit_argument(name, ours):
    with pytest.raises(TypeError, match=rf"other libraries' {name} is fit's argument {ours} here: "
                                        rf"rankcore.boost\(...\).fit\(X, y, {ours}=...\)$"):
        rankcore.boost(learner="trees", **{name: 3})


def test_boost_eval_metric_names_scoring_as_catboosts_watched_metric():
    with pytest.raises(TypeError, match=r"CatBoost's eval_metric\) is scoring='ndcg@k:10'"):
        rankcore.boost(learner="trees", eval_metric="NDCG:top=10")


def test_the_early_stopping_hint_stops_a_fit_within_queries():
    """The hint for early_stopping_rounds, followed within queries, stops the fit on the eval_set.

    (The hint said n_iter_no_change=N with an eval_set, which within queries is watched, not stopped on: the
    patience was ignored and all n_iter trees kept.)
    """
    with pytest.raises(TypeError) as info:
        rankcore.boost(learner="trees", early_stopping_rounds=3)
    assert "within queries, fit(..., qid=...), also early_stopping=True" in str(info.value)
    X, y, qid = _queries()
    Xv, yv, qv = _queries(seed=1)
    params = dict(learner="trees:max_depth=2", n_iter=200, n_iter_no_change=3, random_state=0)
    watched = rankcore.boost(**params).fit(X, y, qid=qid, eval_set=(Xv, yv, qv))
    assert watched.n_iter_ == 200                                  # the patience alone: watched, not stopped on
    stopped = rankcore.boost(early_stopping=True, **params).fit(X, y, qid=qid, eval_set=(Xv, yv, qv))
    assert stopped.stop_reason_ == "early_stopping" and stopped.n_iter_ < 200
    assert stopped.best_iteration_ == stopped.n_iter_ == int(np.argmax(stopped.validation_scores_)) + 1


@pytest.mark.parametrize("name, hint", [
    ("group_id", "fit(X, y, qid=...)"), ("baseline", "fit(X, y, init_score=...)"),
    ("group_weight", "fit(X, y, sample_weight=...)"), ("eval_group", "fit(X, y, eval_set=(X_val, y_val, qid_val))"),
    ("cat_features", "a parameter of rankcore.boost(...): categorical_features=[...]"),
    ("early_stopping_rounds", "a parameter of rankcore.boost(...): n_iter_no_change=N"),
    ("use_best_model", "a parameter of rankcore.boost(...): early_stopping=True"),
    ("verbose", "a parameter of rankcore.boost(...): verbose=1"), ("pairs", "fit(X, y, qid=...) with grades"),
])
def test_fit_names_rankcores_argument_for_catboosts_fit_argument(name, hint):
    """CatBoost's ``fit(X, y, group_id=..., cat_features=..., early_stopping_rounds=...)``.

    (Before, Python's own "fit() got an unexpected keyword argument" said nothing of what to use.)
    """
    X, y, qid = _queries(5)
    with pytest.raises(TypeError, match=rf"^{name}: PushBoost.fit takes no argument '{name}'; other libraries' "
                                        rf"{name} is here {re.escape(hint)}"):
        rankcore.boost(learner="trees", n_iter=2).fit(X, y, qid=qid, **{name: qid})
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        rankcore.boost(learner="trees", n_iter=2).fit(X, y, qid=qid, colour=1)


def test_fit_keeps_its_signature_for_metadata_routing():
    import inspect

    parameters = inspect.signature(rankcore.PushBoost.fit).parameters
    assert "qid" in parameters and "group_id" not in parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


@pytest.mark.parametrize("name, hint", [
    ("get_best_iteration", "best_iteration_ (a count of iterations: CatBoost's get_best_iteration() + 1)"),
    ("get_evals_result", "evals_result_"), ("save_model", "rankcore.save_model(model, path)"),
    ("staged_predict", "staged_decision_function(X)"), ("get_feature_importance", "feature_importances_"),
])
def test_catboosts_methods_name_the_attribute_here(name, hint):
    """(Before: "'PushBoost' object has no attribute 'get_best_iteration'", with nothing of what to read.)"""
    model = rankcore.boost(learner="trees")
    with pytest.raises(AttributeError, match=rf"^PushBoost has no {name}: other libraries' {name} is "
                                             rf"{re.escape(hint)}"):
        getattr(model, name)
    assert not hasattr(model, name)


@pytest.mark.parametrize("ids", [lambda q: np.unique(q, return_inverse=True)[1],          # 0, 1, ...: a size 0
                                 lambda q: np.unique(q, return_inverse=True)[1] + 1,      # 1, 2, ...: the wrong sum
                                 lambda q: q])                                             # text
def test_group_given_query_ids_says_they_go_to_qid(ids):
    """CatBoost's group_id (one id per row) given as group, LightGBM's sizes.

    (Before, the error spoke of sizes only -- "every query size must be >= 1, got 0" -- with no word of qid.)
    """
    X, y, qid = _queries(8)
    with pytest.raises(ValueError, match=r"^group: .*; group has one entry per row: query ids \(CatBoost's "
                                         r"group_id, XGBoost's qid\) go to qid=\.\.\."):
        rankcore.boost(learner="trees", n_iter=2).fit(X, y, group=ids(qid))


def test_set_params_names_rankcores_parameter_for_catboosts_name():
    """A search grid written for CatBoostRanker (``{"depth": [4, 6], "iterations": [500]}``)."""
    with pytest.raises(ValueError, match=r"^iterations: PushBoost has no parameter 'iterations'; other libraries' "
                                         r"iterations is n_iter=N here$"):
        rankcore.boost(learner="trees").set_params(iterations=500)

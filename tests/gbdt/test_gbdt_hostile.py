"""rankcore.gbdt given what a user should not give it: the other library's adapter, multi-target labels, the values
LightGBM keeps of infinite labels, weights and init scores, a classifier's evaluation set of one class."""

import warnings

import numpy as np
import pytest

import rankcore
from rankcore.gbdt import lightgbm_metric, lightgbm_objective, xgboost_metric, xgboost_objective

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

LGB = {"verbose": -1, "num_threads": 1, "metric": "None", "deterministic": True, "num_leaves": 4,
       "min_data_in_leaf": 2}
XGB = {"max_depth": 2, "nthread": 1, "disable_default_eval_metric": 1}


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(np.float64)
    return X, y


X, Y = _data()


# ----------------------------------------------------------------------
# The other library's adapter: named, with the one to use
# ----------------------------------------------------------------------
def test_lightgbm_refuses_xgboosts_objective_and_metric_naming_its_own():
    with pytest.raises(TypeError, match=r"^objective: XGBoostObjective\('push:exp,pow:4'\) is for XGBoost, and "
                                        r"LightGBM called it .*rankcore\.gbdt\.lightgbm_objective\('push:exp,pow:4'\)"
                       ) as info:
        lgb.train({**LGB, "objective": xgboost_objective("push:exp,pow:4")}, lgb.Dataset(X, Y), 2)
    assert isinstance(info.value, rankcore.ArgumentRefusal) and info.value.parameter == "objective"
    with pytest.raises(TypeError, match=r"^metric: XGBoostMetric\('auc'\) is for XGBoost.*lightgbm_metric\('auc'\)"):
        lgb.train({**LGB, "objective": "binary"}, lgb.Dataset(X, Y), 2, valid_sets=[lgb.Dataset(X, Y)],
                  feval=xgboost_metric("auc"))


def test_xgboost_refuses_lightgbms_objective_and_metric_naming_its_own():
    with pytest.raises(TypeError, match=r"^objective: LightGBMObjective\('push:exp,pow:4'\) is for LightGBM, and "
                                        r"XGBoost called it .*rankcore\.gbdt\.xgboost_objective\('push:exp,pow:4'\)"):
        xgb.train(XGB, xgb.DMatrix(X, Y), 2, obj=lightgbm_objective("push:exp,pow:4"))
    with pytest.raises(TypeError, match=r"^metric: LightGBMMetric\('auc'\) is for LightGBM.*xgboost_metric\('auc'\)"):
        xgb.train(XGB, xgb.DMatrix(X, Y), 2, evals=[(xgb.DMatrix(X, Y), "v")],
                  custom_metric=lightgbm_metric("auc"), verbose_eval=False)


def test_a_subclass_of_the_other_library_s_data_set_is_refused_as_it_is():
    # a user's subclass lives in the user's module: its class's module names neither library
    class Mine(xgb.DMatrix):
        pass

    class Theirs(lgb.Dataset):
        pass

    with pytest.raises(TypeError, match=r"^objective: LightGBMObjective\('push:exp,pow:4'\) is for LightGBM, and "
                                        r"XGBoost called it .*xgboost_objective\('push:exp,pow:4'\)"):
        xgb.train(XGB, Mine(X, Y), 2, obj=lightgbm_objective("push:exp,pow:4"))
    with pytest.raises(TypeError, match=r"^objective: XGBoostObjective\('push:exp,pow:4'\) is for XGBoost, and "
                                        r"LightGBM called it .*lightgbm_objective\('push:exp,pow:4'\)"):
        lgb.train({**LGB, "objective": xgboost_objective("push:exp,pow:4")}, Theirs(X, Y), 2)
    # a subclass of its own library's data set trains as the data set does
    assert lgb.train({**LGB, "objective": lightgbm_objective("push:exp,pow:4")}, Theirs(X, Y), 2).num_trees() == 2
    assert xgb.train(XGB, Mine(X, Y), 2, obj=xgboost_objective("push:exp,pow:4")).num_boosted_rounds() == 2


# ----------------------------------------------------------------------
# XGBoost's multi-target labels: one label per row, said with the labels' shape
# ----------------------------------------------------------------------
def test_multi_target_labels_are_named_with_their_shape():
    labels = np.c_[Y, 1.0 - Y]
    with pytest.raises(ValueError, match=r"objective 'push:exp,pow:4': expected one label per row, got labels of "
                                         r"shape \(40, 2\)"):
        xgb.train(XGB, xgb.DMatrix(X, labels), 2, obj=xgboost_objective("push:exp,pow:4"))
    with pytest.raises(ValueError, match=r"metric 'auc': expected one label per row, got labels of shape \(40, 2\)"):
        xgboost_metric("auc")(np.zeros((40, 2)), xgb.DMatrix(X, labels))
    # a column of labels is one label a row
    grad, _ = lightgbm_objective("push:exp,pow:4")(Y[:, None], np.zeros(40))
    np.testing.assert_array_equal(grad, lightgbm_objective("push:exp,pow:4")(Y, np.zeros(40))[0])


# ----------------------------------------------------------------------
# LightGBM keeps ±inf labels and weights as ±1e38, ±inf init scores as ±1e300: refused, not trained on
# ----------------------------------------------------------------------
def _at(values, row, value):
    out = np.array(values, dtype=np.float64)
    out[row] = value
    return out


@pytest.mark.parametrize("field", ["label", "weight", "init_score"])
def test_lightgbm_native_refuses_what_it_kept_of_an_infinity(field):
    given = {"label": _at(Y, 3, np.inf), "weight": _at(np.ones(40), 3, np.inf),
             "init_score": _at(np.zeros(40), 3, -np.inf)}[field]
    data = lgb.Dataset(X, given if field == "label" else Y, **({} if field == "label" else {field: given}))
    with pytest.raises(ValueError, match=rf"objective 'push:exp,pow:4': {field} holds -?1e\+(38|300) at row 3: "
                                         rf"LightGBM keeps an infinite {field}") as info:
        lgb.train({**LGB, "objective": lightgbm_objective("push:exp,pow:4")}, data, 2)
    assert isinstance(info.value, rankcore.ArgumentRefusal)
    assert (info.value.parameter, info.value.row) == (field, 3)


def test_lightgbm_sklearn_refuses_an_infinite_init_score_and_graded_labels_alike():
    model = lgb.LGBMRanker(objective=lightgbm_objective("push:exp,pow:4"), n_estimators=2, verbose=-1,
                           min_child_samples=2, n_jobs=1)
    with pytest.raises(ValueError, match=r"init_score holds 1e\+300 at row 0"):
        model.fit(X, Y, group=[20, 20], init_score=_at(np.zeros(40), 0, np.inf))
    # a grade LightGBM kept of an infinity is no grade: the per-query push would have ranked it first
    with pytest.raises(ValueError, match=r"label holds 1e\+38 at row 5"):
        lgb.train({**LGB, "objective": lightgbm_objective("push:exp,pow:4")},
                  lgb.Dataset(X, _at(Y, 5, np.inf), group=[20, 20]), 2)


def test_lightgbm_metric_refuses_an_infinite_init_score_of_its_validation_set():
    valid = lgb.Dataset(X, Y, init_score=_at(np.zeros(40), 7, np.inf))
    with pytest.raises(ValueError, match=r"metric 'auc': init_score holds 1e\+300 at row 7"):
        # with a custom objective LightGBM passes the raw scores, which start at the init scores
        lgb.train({**LGB, "objective": lightgbm_objective("push:exp,pow:4")}, lgb.Dataset(X, Y), 2,
                  valid_sets=[valid], feval=lightgbm_metric("auc"))


def test_large_finite_inputs_still_train():
    w = _at(np.ones(40), 3, 1e30)
    booster = lgb.train({**LGB, "objective": lightgbm_objective("push:exp,pow:4")},
                        lgb.Dataset(X, Y, weight=w, init_score=np.full(40, 1e200)), 2)
    assert np.isfinite(booster.predict(X)).all()


# ----------------------------------------------------------------------
# XGBClassifier's metric errors say nothing of XGBRanker
# ----------------------------------------------------------------------
def test_xgbclassifier_metric_error_does_not_speak_of_xgbranker():
    model = xgb.XGBClassifier(n_estimators=2, n_jobs=1, eval_metric=xgboost_metric("auc"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"metric 'auc': needs labels with exactly two values") as info:
            model.fit(X, Y, eval_set=[(X[Y == 1], Y[Y == 1])], verbose=False)
    assert "XGBRanker" not in str(info.value)


# ----------------------------------------------------------------------
# Queries that each hold a single grade: refused as rankcore's own fits refuse them, not a constant model
# ----------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["lambdarank", "xendcg", "yetirank", "mp-squared"])
def test_queries_of_one_grade_each_are_refused_not_fitted_into_a_constant_model(spec):
    grades = np.repeat([0.0, 1.0, 2.0, 0.0], 10)          # each query one grade: no pair to order anywhere
    qid = np.repeat(np.arange(4), 10)
    with pytest.raises(ValueError, match=rf"objective '{spec}': ranking within queries needs a query with two "
                                         r"grades, got 4 queries.*each with a single grade") as info:
        lgb.train({**LGB, "objective": lightgbm_objective(spec)}, lgb.Dataset(X, grades, group=[10] * 4), 2)
    assert info.value.parameter == "label"
    with pytest.raises(ValueError, match=r"needs a query with two grades"):
        xgb.train(XGB, xgb.DMatrix(X, grades, qid=qid), 2, obj=xgboost_objective(spec))
    with pytest.raises(ValueError, match=r"needs a query with two grades"):
        rankcore.boost(learner="trees", objective=spec, n_iter=2).fit(X, grades, qid=qid)   # as rankcore's own
    # one query with two grades is enough
    grades[0] = 1.0
    booster = lgb.train({**LGB, "objective": lightgbm_objective(spec)}, lgb.Dataset(X, grades, group=[10] * 4), 2)
    assert np.isfinite(booster.predict(X)).all()


def test_a_nan_base_margin_is_named_with_its_row():
    margin = _at(np.zeros(40), 6, np.nan)
    with pytest.raises(ValueError, match=r"objective 'push:exp,pow:4': the library passed non-finite raw scores "
                                         r"\(nan at row 6\); they start at the data's base_margin \(XGBoost\)"):
        xgb.train(XGB, xgb.DMatrix(X, Y, base_margin=margin), 2, obj=xgboost_objective("push:exp,pow:4"))


def test_lightgbm_checks_labels_and_weights_once_a_data_set_and_the_scores_every_round(monkeypatch):
    # before: the labels and weights were read for LightGBM's stand-ins of infinities on every boosting round
    from rankcore.gbdt import _lightgbm

    read = []
    real = _lightgbm._refuse_kept_infinity
    monkeypatch.setattr(_lightgbm, "_refuse_kept_infinity",
                        lambda what, name, values, limit: (read.append(name), real(what, name, values, limit)))
    objective = lightgbm_objective("push:exp,pow:4")
    lgb.train({**LGB, "objective": objective}, lgb.Dataset(X, Y, weight=np.ones(40)), 5)
    assert read.count("label") == read.count("weight") == 1 and read.count("init_score") == 5, read
    # another data set (of the same adapter) is checked afresh, and still refused
    with pytest.raises(ValueError, match=r"objective 'push:exp,pow:4': weight holds 1e\+38 at row 3: "):
        lgb.train({**LGB, "objective": objective}, lgb.Dataset(X, Y, weight=_at(np.ones(40), 3, np.inf)), 2)
    with pytest.raises(ValueError, match=r"objective 'push:exp,pow:4': label holds 1e\+38 at row 4: "):
        objective(_at(Y, 4, 1e38), np.zeros(40))      # scikit-learn's call: (y_true, y_pred)
    # a pickled adapter carries no data set with it
    import pickle

    assert "_checked_data" not in pickle.loads(pickle.dumps(objective)).__dict__

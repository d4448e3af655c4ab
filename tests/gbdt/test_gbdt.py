"""rankcore.gbdt against the real LightGBM and XGBoost: what they receive, what they fit, what they report."""

import warnings

import numpy as np
import pytest

import rankcore
from rankcore.gbdt import (
    ObjectiveAdapter,
    lightgbm_metric,
    lightgbm_objective,
    xgboost_metric,
    xgboost_objective,
)
from rankcore.registry import resolve

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

# One thread everywhere: the libraries' OpenMP pools crawl on a loaded machine.
LGB = {"verbose": -1, "num_threads": 1, "metric": "None", "deterministic": True, "force_col_wise": True}


def planted(n, seed, noise=1.0):
    """An interaction the trees must find: y = 1[x0·x1 + x2/2 + noise > 1]; about a fifth relevant."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] * X[:, 1] + 0.5 * X[:, 2] + noise * rng.normal(size=n) > 1.0).astype(int)
    return X, y


X_TR, Y_TR = planted(1500, 0)
X_VA, Y_VA = planted(1000, 1)


def objective_value(spec, y, scores, w=None):
    objective = resolve("objective", spec)
    return objective.bind(np.asarray(y, dtype=np.int8), w).value(np.asarray(scores, dtype=np.float64))


# ----------------------------------------------------------------------
# What the libraries receive
# ----------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["push:exp,pow:4", "push:logistic,pow:2", "push:sqhinge,identity"])
def test_lightgbm_receives_n_times_rankcore_gradient_and_hessian(spec):
    rng = np.random.default_rng(0)
    n = 200
    y = (rng.uniform(size=n) < 0.3).astype(float)
    w = rng.uniform(0.5, 2.0, n).astype(np.float32).astype(np.float64)     # the libraries store float32 weights
    preds = rng.normal(size=n)
    data = lgb.Dataset(rng.normal(size=(n, 2)), y, weight=w, params={"verbose": -1}).construct()
    grad, hess = lightgbm_objective(spec)(preds, data)                 # native form
    _, g_ref, h_ref = resolve("objective", spec).bind(y.astype(np.int8), w).value_gradient_hessian(preds)
    np.testing.assert_allclose(grad, n * g_ref, rtol=1e-12)
    np.testing.assert_allclose(hess, n * h_ref, rtol=1e-12)
    g2, h2 = lightgbm_objective(spec)(y, preds, w)                      # scikit-learn form
    np.testing.assert_array_equal(g2, grad)
    np.testing.assert_array_equal(h2, hess)


def test_xgboost_receives_n_times_rankcore_gradient_and_hessian():
    rng = np.random.default_rng(1)
    n = 150
    y = (rng.uniform(size=n) < 0.3).astype(float)
    w = rng.uniform(0.5, 2.0, n).astype(np.float32).astype(np.float64)     # the libraries store float32 weights
    preds = rng.normal(size=n)
    dtrain = xgb.DMatrix(rng.normal(size=(n, 2)), y, weight=w)
    obj = xgboost_objective("push:exp,exp:0.5")
    grad, hess = obj(preds, dtrain)
    _, g_ref, h_ref = resolve("objective", "push:exp,exp:0.5").bind(y.astype(np.int8), w).value_gradient_hessian(preds)
    np.testing.assert_allclose(grad, n * g_ref, rtol=1e-12)
    np.testing.assert_allclose(hess, n * h_ref, rtol=1e-12)
    g2, h2 = obj(y, preds, sample_weight=w)
    np.testing.assert_array_equal(g2, grad)
    g3, _ = obj(y, preds)                                              # unweighted scikit-learn call
    _, g_unw, _ = resolve("objective", "push:exp,exp:0.5").bind(y.astype(np.int8)).value_gradient_hessian(preds)
    np.testing.assert_allclose(g3, n * g_unw, rtol=1e-12)


def test_constant_curvature_and_tie_break_offset_for_piecewise_linear_objectives():
    rng = np.random.default_rng(2)
    n = 120
    y = (rng.uniform(size=n) < 0.3).astype(float)
    adapter = ObjectiveAdapter("prec@k-avg:0.1", random_state=3)
    grad, hess = adapter.gradient_hessian(y, np.zeros(n))
    assert adapter.has_hessian is False
    from rankcore.push._tie_break import tie_break_offsets

    offset = tie_break_offsets(n, 0.1, 3)
    _, g_ref = resolve("objective", "prec@k-avg:0.1").bind(y.astype(np.int8)).value_and_gradient(offset)
    np.testing.assert_allclose(grad, n * g_ref, rtol=1e-12)
    np.testing.assert_array_equal(hess, np.full(n, np.abs(grad).max()))
    assert np.abs(grad).max() > 0


def test_library_leaves_are_the_newton_values_of_our_gradients():
    """One tree, learning rate 1, no L2: each leaf's value is −Σg/Σh of its rows (the sign convention)."""
    X, y = X_TR[:400], Y_TR[:400]
    obj = lightgbm_objective("push:exp,pow:4")
    grad, hess = obj(y, np.zeros(y.shape[0]), None)
    params = dict(LGB, objective=obj, num_leaves=4, learning_rate=1.0, lambda_l2=0.0, min_data_in_leaf=5,
                  min_sum_hessian_in_leaf=0.0)
    booster = lgb.train(params, lgb.Dataset(X, y), num_boost_round=1)
    leaves = booster.predict(X, pred_leaf=True)[:, 0]
    raw = booster.predict(X, raw_score=True)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert raw[rows][0] == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-5)

    xobj = xgboost_objective("push:exp,pow:4")
    booster = xgb.train({"max_depth": 2, "eta": 1.0, "reg_lambda": 0.0, "min_child_weight": 0.0, "base_score": 0.0,
                         "nthread": 1, "disable_default_eval_metric": 1}, xgb.DMatrix(X, y), 1, obj=xobj)
    d = xgb.DMatrix(X)
    leaves = booster.predict(d, pred_leaf=True).ravel()
    raw = booster.predict(d, output_margin=True)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert raw[rows][0] == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-4)


# ----------------------------------------------------------------------
# What they fit and report
# ----------------------------------------------------------------------
def test_lightgbm_sklearn_push_forest_ranks_and_reports_the_rankcore_metric():
    metric = lightgbm_metric("prec@k:100")
    model = lgb.LGBMClassifier(objective=lightgbm_objective("push:exp,pow:4"), n_estimators=40, num_leaves=15,
                               learning_rate=0.1, n_jobs=1, verbose=-1, metric="None")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                     # LightGBM 4.7 deprecates eval_set (4.0 lacks eval_X)
        model.fit(X_TR, Y_TR, eval_set=[(X_VA, Y_VA)], eval_metric=metric)
    recorded = model.evals_result_["valid_0"]["prec@k:100"]
    assert len(recorded) == 40
    for it in (1, 10, 40):
        scores = model.predict(X_VA, raw_score=True, num_iteration=it)
        assert recorded[it - 1] == rankcore.evaluate(Y_VA, scores, ["prec@k:100"])["prec@k:100"]
    final = rankcore.evaluate(Y_VA, model.predict(X_VA, raw_score=True), ["auc", "prec@k:100"])
    base_rate = Y_VA.mean()
    assert final["auc"] > 0.75 and final["prec@k:100"] > 2 * base_rate
    # the training objective decreases over the rounds (the gradient's sign is right)
    values = [objective_value("push:exp,pow:4", Y_TR, model.predict(X_TR, raw_score=True, num_iteration=it))
              for it in range(1, 41)]
    start = objective_value("push:exp,pow:4", Y_TR, np.zeros(Y_TR.shape[0]))
    assert values[-1] < values[0] < start
    assert np.mean(np.diff(values) < 0) >= 0.9


def test_lightgbm_native_early_stopping_watches_prec_at_k():
    metric = lightgbm_metric("prec@k:100")
    X, y = planted(1500, 4, noise=2.0)                                   # noisy: the validation metric peaks early
    params = dict(LGB, objective=lightgbm_objective("push:exp,pow:4"), num_leaves=31, learning_rate=0.3)
    result = {}
    booster = lgb.train(params, lgb.Dataset(X, y), num_boost_round=300, valid_sets=[lgb.Dataset(X_VA, Y_VA)],
                        feval=metric, callbacks=[lgb.early_stopping(10, verbose=False), lgb.record_evaluation(result)])
    recorded = result["valid_0"]["prec@k:100"]
    assert len(recorded) < 300                                           # it stopped...
    best = int(np.argmax(recorded)) + 1                                  # ...at the best prec@k (higher is better)
    assert booster.best_iteration == best and len(recorded) == best + 10
    assert booster.best_score["valid_0"]["prec@k:100"] == max(recorded)


def test_lightgbm_precision_at_k_objective_trains():
    params = dict(LGB, objective=lightgbm_objective("prec@k-avg:0.1"), num_leaves=15, learning_rate=0.1)
    booster = lgb.train(params, lgb.Dataset(X_TR, Y_TR), num_boost_round=30)
    values = [objective_value("prec@k-avg:0.1", Y_TR, booster.predict(X_TR, num_iteration=it)) for it in (1, 30)]
    assert values[1] < values[0]
    assert rankcore.evaluate(Y_VA, booster.predict(X_VA), ["auc"])["auc"] > 0.7


def test_xgboost_native_and_sklearn():
    metric = xgboost_metric("prec@k:100")
    assert metric.maximize is True and metric.name == "prec@k_100"
    obj = xgboost_objective("push:exp,pow:4")
    dtrain, dval = xgb.DMatrix(X_TR, Y_TR), xgb.DMatrix(X_VA, Y_VA)
    result = {}
    booster = xgb.train({"max_depth": 3, "eta": 0.2, "nthread": 1, "disable_default_eval_metric": 1}, dtrain, 30,
                        obj=obj, custom_metric=metric, evals=[(dval, "val")], evals_result=result,
                        verbose_eval=False)
    recorded = result["val"]["prec@k_100"]
    scores = booster.predict(dval, output_margin=True)
    assert recorded[-1] == pytest.approx(rankcore.evaluate(Y_VA, scores, ["prec@k:100"])["prec@k:100"], abs=1e-6)
    assert rankcore.evaluate(Y_VA, scores, ["auc"])["auc"] > 0.75
    values = [objective_value("push:exp,pow:4", Y_TR, booster.predict(dtrain, output_margin=True,
                                                                      iteration_range=(0, it))) for it in (1, 10, 30)]
    assert values[2] < values[1] < values[0]

    model = xgb.XGBClassifier(objective=xgboost_objective("push:logistic,pow:2"), n_estimators=15, max_depth=3,
                              n_jobs=1, eval_metric=xgboost_metric("pauc:0.1"))
    model.fit(X_TR[:500], Y_TR[:500], eval_set=[(X_VA, Y_VA)], verbose=False)
    margin = model.predict(X_VA, output_margin=True)
    assert model.evals_result()["validation_0"]["pauc_0.1"][-1] == pytest.approx(   # XGBoost logs 6 digits
        rankcore.evaluate(Y_VA, margin, ["pauc:0.1"])["pauc:0.1"], abs=1e-6)
    assert rankcore.evaluate(Y_VA, margin, ["auc"])["auc"] > 0.7


def test_xgboost_early_stopping_with_maximize():
    metric = xgboost_metric("prec@k:100")
    X, y = planted(1500, 4, noise=2.0)
    result = {}
    booster = xgb.train({"max_depth": 5, "eta": 0.3, "nthread": 1, "disable_default_eval_metric": 1},
                        xgb.DMatrix(X, y), 300, obj=xgboost_objective("push:exp,pow:4"), custom_metric=metric,
                        maximize=metric.maximize, evals=[(xgb.DMatrix(X_VA, Y_VA), "val")],
                        early_stopping_rounds=10, evals_result=result, verbose_eval=False)
    recorded = result["val"]["prec@k_100"]
    assert len(recorded) < 300 and booster.best_iteration == int(np.argmax(recorded))


# ----------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------
def test_bad_input_is_refused_clearly():
    obj = lightgbm_objective("push:exp,pow:4")
    with pytest.raises(ValueError, match="exactly two values"):
        obj(np.array([0.0, 1.0, 2.0]), np.zeros(3), None)
    with pytest.raises(ValueError, match="multi-class"):
        obj(np.array([0.0, 1.0, 1.0]), np.zeros((3, 2)), None)
    with pytest.raises(ValueError, match="only scalar metrics"):
        lightgbm_metric("roc")
    with pytest.raises(ValueError, match="sample_weight"):
        lightgbm_objective("prec@k-avg:1")(np.array([0.0, 1.0, 1.0]), np.zeros(3), np.ones(3))
    with pytest.warns(UserWarning, match="unweighted"):
        lightgbm_metric("auc")(np.array([0.0, 1.0, 1.0]), np.array([0.1, 0.5, 0.3]), np.array([1.0, 2.0, 1.0]))
    with pytest.raises(rankcore.UnknownComponentError):
        xgboost_objective("no-such-objective")


def test_sklearn_apis_pass_sample_weights_through():
    """A weighted scikit-learn fit's first leaves are the Newton values of the weighted objective."""
    rng = np.random.default_rng(5)
    X, y = X_TR[:300], Y_TR[:300]
    w = rng.integers(1, 4, y.shape[0]).astype(np.float64)
    grad, hess = lightgbm_objective("push:exp,pow:2")(y, np.zeros(y.shape[0]), w)
    g_unw, _ = lightgbm_objective("push:exp,pow:2")(y, np.zeros(y.shape[0]), None)
    assert not np.allclose(grad, g_unw)
    lgbm = lgb.LGBMClassifier(objective=lightgbm_objective("push:exp,pow:2"), n_estimators=1, num_leaves=4,
                              learning_rate=1.0, min_child_samples=1, min_child_weight=0.0, reg_lambda=0.0,
                              n_jobs=1, verbose=-1, metric="None").fit(X, y, sample_weight=w)
    xgbm = xgb.XGBClassifier(objective=xgboost_objective("push:exp,pow:2"), n_estimators=1, max_depth=2, n_jobs=1,
                             learning_rate=1.0, reg_lambda=0.0, min_child_weight=0.0, base_score=0.0
                             ).fit(X, y, sample_weight=w)
    for leaves, raw in ((lgbm.predict(X, pred_leaf=True)[:, 0], lgbm.predict(X, raw_score=True)),
                        (xgbm.get_booster().predict(xgb.DMatrix(X), pred_leaf=True).ravel(),
                         xgbm.predict(X, output_margin=True))):
        newton = np.empty_like(raw, dtype=np.float64)
        for leaf in np.unique(leaves):
            rows = leaves == leaf
            newton[rows] = -grad[rows].sum() / hess[rows].sum()
        # XGBClassifier reads base_score as a probability (0 → a margin of about −13.8): compare up to a constant
        assert np.ptp(raw - newton) < 1e-4 * np.abs(newton).max()

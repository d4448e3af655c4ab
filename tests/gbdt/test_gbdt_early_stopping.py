"""XGBoost's early stopping on a rankcore metric: a direction it would guess wrong from the name is refused."""

import numpy as np
import pytest

from rankcore import ArgumentRefusal
from rankcore.gbdt import xgboost_metric

xgb = pytest.importorskip("xgboost")


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(size=n) > 0.8).astype(float)
    return X, y


X_FIT, Y_FIT = _data(0)
X_VAL, Y_VAL = _data(1, 200)
PARAMS = {"max_depth": 2, "nthread": 1, "eta": 0.3, "disable_default_eval_metric": 1}


def _train(metric, **kwargs):
    return xgb.train(PARAMS, xgb.DMatrix(X_FIT, Y_FIT), 15, evals=[(xgb.DMatrix(X_VAL, Y_VAL), "val")],
                     custom_metric=metric, verbose_eval=False, **kwargs)


@pytest.mark.parametrize("spec", ["pauc:0.1", "err@k:3", "mrr", "ks", "rmax"])
def test_a_maximized_metric_xgboost_would_minimize_is_refused_naming_maximize(spec):
    # XGBoost guesses "minimize" for these names: it would keep the round where the metric is worst
    metric = xgboost_metric(spec)
    assert metric.maximize
    with pytest.raises(ArgumentRefusal, match="maximize=True to xgboost.train") as info:
        _train(metric, early_stopping_rounds=3)
    assert info.value.parameter == "maximize"
    model = xgb.XGBClassifier(n_estimators=10, max_depth=2, n_jobs=1, eval_metric=metric, early_stopping_rounds=3)
    with pytest.raises(ArgumentRefusal, match="would minimize it"):
        model.fit(X_FIT, Y_FIT, eval_set=[(X_VAL, Y_VAL)], verbose=False)


@pytest.mark.parametrize("spec", ["pauc:0.1", "mrr"])
def test_a_direction_given_keeps_the_best_round(spec):
    metric = xgboost_metric(spec)
    log = {}
    booster = _train(metric, early_stopping_rounds=3, maximize=metric.maximize, evals_result=log)
    curve = log["val"][metric.name]
    assert curve[booster.best_iteration] == max(curve)
    stop = xgb.callback.EarlyStopping(rounds=3, maximize=metric.maximize)
    model = xgb.XGBClassifier(n_estimators=10, max_depth=2, n_jobs=1, eval_metric=metric, callbacks=[stop])
    model.fit(X_FIT, Y_FIT, eval_set=[(X_VAL, Y_VAL)], verbose=False)
    assert model.best_iteration is not None


@pytest.mark.parametrize("spec", ["auc", "prec@k:10", "ndcg@k:5", "misrank", "pnorm:2"])
def test_names_xgboost_reads_right_need_no_direction(spec):
    # "auc", "prec@k_10" (a "pre" name), "ndcg@k_5" are maximized, "misrank" and "pnorm_2" minimized: as rankcore's
    metric = xgboost_metric(spec)
    log = {}
    booster = _train(metric, early_stopping_rounds=3, evals_result=log)
    curve = log["val"][metric.name]
    best = max(curve) if metric.maximize else min(curve)
    assert curve[booster.best_iteration] == best


def test_a_metric_without_early_stopping_is_not_checked():
    log = {}
    _train(xgboost_metric("pauc:0.1"), evals_result=log)
    assert len(log["val"]["pauc_0.1"]) == 15
    assert xgboost_metric("mrr")(np.array([0.3, 0.1, 0.2]), np.array([1.0, 0.0, 0.0])) == 1.0


def test_a_metric_that_is_not_the_watched_one_is_not_refused():
    # early stopping without metric_name watches the last value logged: of a function returning two metrics, the
    # second (prec@k_5, rightly guessed); a user callback's own call of a metric is not logged at all
    wrong, right = xgboost_metric("pauc:0.1"), xgboost_metric("prec@k:5")
    log = {}
    booster = _train(lambda scores, data: [wrong(scores, data), right(scores, data)], early_stopping_rounds=3,
                     evals_result=log)
    assert list(log["val"]) == [wrong.name, right.name]
    assert log["val"][right.name][booster.best_iteration] == max(log["val"][right.name])

    class Peek(xgb.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            wrong(model.predict(xgb.DMatrix(X_VAL), output_margin=True), xgb.DMatrix(X_VAL, Y_VAL))
            return False

    params = {**PARAMS, "disable_default_eval_metric": 0, "eval_metric": "auc", "objective": "binary:logistic"}
    xgb.train(params, xgb.DMatrix(X_FIT, Y_FIT), 5, evals=[(xgb.DMatrix(X_VAL, Y_VAL), "val")], verbose_eval=False,
              callbacks=[Peek(), xgb.callback.EarlyStopping(rounds=3)])
    with pytest.raises(ArgumentRefusal, match="would minimize it"):     # named, it is watched whoever logs it
        _train(lambda scores, data: [wrong(scores, data), right(scores, data)],
               callbacks=[xgb.callback.EarlyStopping(rounds=3, metric_name=wrong.name)])


def test_xgbranker_early_stopping_rounds_is_checked_although_it_scores_queries_in_threads():
    # XGBRanker's wrapper calls the metric once per query in a thread pool, off the stack of the fit's callbacks
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=400)), 0, 3)
    qid = np.repeat(np.arange(40), 10)
    metric = xgboost_metric("mrr")
    model = xgb.XGBRanker(n_estimators=6, max_depth=2, n_jobs=2, eval_metric=metric, early_stopping_rounds=2)
    with pytest.raises(ArgumentRefusal, match="would minimize it"):
        model.fit(X[:300], y[:300], qid=qid[:300], eval_set=[(X[300:], y[300:])], eval_qid=[qid[300:]],
                  verbose=False)
    stop = xgb.callback.EarlyStopping(rounds=2, maximize=True)
    model = xgb.XGBRanker(n_estimators=6, max_depth=2, n_jobs=2, eval_metric=metric, callbacks=[stop])
    model.fit(X[:300], y[:300], qid=qid[:300], eval_set=[(X[300:], y[300:])], eval_qid=[qid[300:]], verbose=False)
    curve = model.evals_result()["validation_0"][metric.name]
    assert curve[model.best_iteration] == max(curve)

"""rankcore metrics inside LightGBM and XGBoost on data with queries: the mean over queries, as rankcore.evaluate."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.gbdt import lightgbm_metric, xgboost_metric
from rankcore.metrics import evaluate

from _query_data import consecutive_queries

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

LGB = {"verbose": -1, "num_threads": 1, "deterministic": True, "force_col_wise": True, "min_child_samples": 5}
SPECS = ["ndcg@k:5", "ndcg@k:3,gain=linear,ties=first,empty=0", "map", "mrr", "err@k:4"]


X_TR, Y_TR, Q_TR, G_TR = consecutive_queries(0)
X_VA, Y_VA, Q_VA, G_VA = consecutive_queries(1, n_queries=25)


def test_lightgbm_ranker_reports_the_mean_over_queries():
    metrics = [lightgbm_metric(spec) for spec in SPECS]
    model = lgb.LGBMRanker(n_estimators=4, **LGB)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # LightGBM's own deprecation notes
        model.fit(X_TR, Y_TR, group=G_TR, eval_set=[(X_VA, Y_VA)], eval_group=[G_VA], eval_metric=metrics)
    (record,) = model.evals_result_.values()
    expected = evaluate(Y_VA, model.predict(X_VA, raw_score=True), SPECS, qid=Q_VA)
    for spec, metric in zip(SPECS, metrics):
        assert record[metric.spec][-1] == pytest.approx(expected[spec], abs=1e-12)


def test_lightgbm_native_feval_reads_the_dataset_groups():
    train = lgb.Dataset(X_TR, Y_TR, group=G_TR)
    valid = lgb.Dataset(X_VA, Y_VA, group=G_VA, reference=train)
    record = {}
    booster = lgb.train({"objective": "lambdarank", "metric": "None", **LGB}, train, num_boost_round=3,
                        valid_sets=[valid], valid_names=["valid"], feval=lightgbm_metric("ndcg@k:5"),
                        callbacks=[lgb.record_evaluation(record)])
    scores = booster.predict(X_VA)
    assert record["valid"]["ndcg@k:5"][-1] == pytest.approx(evaluate(Y_VA, scores, "ndcg@k:5", qid=Q_VA)["ndcg@k:5"],
                                                            abs=1e-12)
    # without groups the rows are one list
    plain = lgb.Dataset(X_VA, Y_VA, reference=train).construct()
    name, value, higher = lightgbm_metric("ndcg@k:5")(scores, plain)
    assert (name, higher) == ("ndcg@k:5", True)
    assert value == pytest.approx(evaluate(Y_VA, scores, "ndcg@k:5")["ndcg@k:5"], abs=1e-12)


def test_xgboost_native_metric_reads_the_dmatrix_queries():
    train = xgb.DMatrix(X_TR, Y_TR, qid=Q_TR)
    valid = xgb.DMatrix(X_VA, Y_VA, group=G_VA)
    metric = xgboost_metric("ndcg@k:5,empty=0")
    record = {}
    booster = xgb.train({"objective": "rank:ndcg", "nthread": 1, "disable_default_eval_metric": 1}, train,
                        num_boost_round=3, evals=[(valid, "valid")], custom_metric=metric, maximize=metric.maximize,
                        evals_result=record, verbose_eval=False)
    scores = booster.predict(valid, output_margin=True)
    expected = evaluate(Y_VA, scores, "ndcg@k:5,empty=0", qid=Q_VA)["ndcg@k:5,empty=0"]
    assert record["valid"][metric.name][-1] == pytest.approx(expected, abs=1e-6)   # XGBoost's log keeps 6 digits
    assert metric(scores, valid) == (metric.name, pytest.approx(expected, abs=1e-12))


def test_xgboost_ranker_scores_per_query_through_the_native_call():
    model = xgb.XGBRanker(n_estimators=3, n_jobs=1)
    model.fit(X_TR, Y_TR, qid=Q_TR)
    scores = model.predict(X_VA, output_margin=True)
    dmatrix = xgb.DMatrix(X_VA, Y_VA, qid=Q_VA)
    for spec in SPECS:
        metric = xgboost_metric(spec)
        expected = evaluate(Y_VA, scores, spec, qid=Q_VA)[spec]
        assert metric(scores, dmatrix)[1] == pytest.approx(expected, abs=1e-12)
        logged = model.get_booster().eval_set([(dmatrix, "v")], feval=metric).rpartition(f"v-{metric.name}:")[2]
        assert float(logged) == pytest.approx(expected, abs=1e-6)        # XGBoost's log keeps 6 digits


def test_xgboost_ranker_wrapper_calls_each_query_alone_and_says_so():
    model = xgb.XGBRanker(n_estimators=2, n_jobs=1, eval_metric=xgboost_metric("ndcg@k:5"))
    with pytest.raises(ValueError, match=r"metric 'ndcg@k:5'.*XGBRanker\(eval_metric=\.\.\.\) calls a "
                                         r"custom metric on each query's rows alone.*custom_metric=metric"):
        model.fit(X_TR, Y_TR, qid=Q_TR, eval_set=[(X_VA, Y_VA)], eval_qid=[Q_VA])


def test_xgboost_query_weights_are_ignored_with_a_warning():
    valid = xgb.DMatrix(X_VA, Y_VA, qid=Q_VA)
    valid.set_weight(np.arange(1.0, G_VA.size + 1))          # ranking weights are one per query
    scores = np.asarray(X_VA[:, 0], dtype=np.float64)
    with pytest.warns(UserWarning, match="evaluation sample weights are ignored"):
        _, value = xgboost_metric("map")(scores, valid)
    assert value == pytest.approx(evaluate(Y_VA, scores, "map", qid=Q_VA)["map"], abs=1e-12)


def test_groups_that_do_not_fit_the_rows_are_named():
    metric = lightgbm_metric("ndcg@k:5")
    with pytest.raises(ValueError, match=r"metric 'ndcg@k:5': the library's query groups do not fit the "
                                         r"\d+ rows \(expected sizes of consecutive queries"):
        metric(Y_VA, X_VA[:, 0], None, G_VA[:-1])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=2, max_size=12), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(["ndcg@k:3,empty=0", "ndcg@k:2,ties=first,empty=1", "map:empty=0", "mrr:empty=1", "err@k:1"]))
def test_both_adapters_equal_evaluate_on_any_groups(sizes, seed, spec):
    rng = np.random.default_rng(seed)
    sizes = [3] + sizes                                      # a query reaches every cut-off k
    n = sum(sizes)
    y = rng.integers(0, 3, n).astype(float)
    y[0] = 1.0                                               # some query has a relevant row
    scores = rng.integers(0, 4, n).astype(float)             # many ties
    expected = evaluate(y, scores, spec, qid=np.repeat(np.arange(len(sizes)), sizes))[spec]
    assert lightgbm_metric(spec)(y, scores, None, np.asarray(sizes))[1] == pytest.approx(expected, abs=1e-12)
    assert xgboost_metric(spec).evaluate(y, scores, None, np.asarray(sizes)) == pytest.approx(expected, abs=1e-12)


def test_grades_above_30_train_in_lgbm_ranker_with_a_rankcore_metric_in_place_of_lightgbms():
    # docs/gbdt.md: LightGBM's own NDCG (LGBMRanker's default metric) refuses grades above 30; rankcore's takes them
    from rankcore.gbdt import lightgbm_objective

    y_tr, y_va = Y_TR * 20, Y_VA * 20
    assert y_tr.max() > 30
    kwargs = {"objective": lightgbm_objective("lambdarank"), "n_estimators": 3, **LGB}
    with pytest.raises(lgb.basic.LightGBMError, match="label mappings"):
        lgb.LGBMRanker(**kwargs).fit(X_TR, y_tr, group=G_TR)
    ranker = lgb.LGBMRanker(**kwargs, metric="None")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                    # LightGBM >= 4.7 renames eval_set
        ranker.fit(X_TR, y_tr, group=G_TR, eval_set=[(X_VA, y_va)], eval_group=[G_VA],
                   eval_metric=lightgbm_metric("ndcg@k:5"))
    logged = ranker.evals_result_["valid_0"]["ndcg@k:5"][-1]
    assert logged == evaluate(y_va, ranker.predict(X_VA, raw_score=True), "ndcg@k:5", qid=Q_VA)["ndcg@k:5"]

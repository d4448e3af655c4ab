"""``map@k`` wherever a list metric goes: specs, errors, per_query, intervals, estimators' scoring, AutoRanker.

Its values are checked against the tie enumeration in test_metrics_query_reference.py and against LightGBM,
XGBoost and trec_eval in test_metrics_query_libraries.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from _query_data import graded_queries

import rankcore
from rankcore.metrics import confidence_interval, make_query_scorer, per_query
from rankcore.registry import resolve
from rankcore.spec import SpecError


def test_map_at_k_spec_forms():
    assert resolve("metric", "map@5").spec == "map@k:5"
    assert resolve("metric", "map@5:convention=lightgbm").spec == "map@k:5,convention=lightgbm"
    metric = resolve("metric", "map@k:3,convention=xgboost,empty=0")
    assert (metric.ties_rule, metric.empty_rule, metric.denominator_rule) == ("first", "0", "min")
    assert metric.greater_is_better and metric.task == "graded"
    with pytest.raises(SpecError, match="denominator"):
        resolve("metric", "map@k:3,denominator=hits")
    with pytest.raises(SpecError, match="convention"):
        resolve("metric", "map@k:3,convention=sklearn")


def test_map_at_k_errors_name_the_argument():
    y, s = np.array([1.0, 0.0, 2.0]), np.array([0.3, 0.2, 0.1])
    with pytest.raises(ValueError, match=r"metric 'map@k:4': k = 4 is larger than the input"):
        rankcore.evaluate(y, s, "map@k:4")
    with pytest.raises(ValueError, match=r"y: metric 'map@k:2' takes relevance grades >= 0, got -1.0 at row 1"):
        rankcore.evaluate([1.0, -1.0, 0.0], s, "map@k:2")
    with pytest.raises(ValueError, match=r"y: metric 'map@k:2' is undefined without a relevant row"):
        rankcore.evaluate([0, 0, 0], s, "map@k:2")
    assert rankcore.evaluate([0, 0, 0], s, "map@k:2,empty=1")["map@k:2,empty=1"] == 1.0


def test_map_at_k_reads_only_the_first_k_places():
    # relevant at places 1 and 3 of 4: AP@1 = 1/min(2, 1), AP@2 = 1/2, AP@3 = (1 + 2/3)/2; by R: AP@1 = 1/2
    y, s = [1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]
    values = rankcore.evaluate(y, s, ["map@1", "map@k:2", "map@3", "map"])            # keyed as given
    assert values == pytest.approx({"map@1": 1.0, "map@k:2": 0.5, "map@3": 5 / 6, "map": 5 / 6})
    assert rankcore.evaluate(y, s, "map@1:denominator=relevant")["map@1:denominator=relevant"] == 0.5


def test_map_at_k_per_query_and_intervals_resample_queries():
    X, y, qid = graded_queries(1, n_queries=40)
    s = X[:, 0] + X[:, 1]
    got = per_query(y, s, "map@k:5", qid=qid)
    assert got.n_left_out == 1 and got.n_counted == 39           # the query without a relevant row
    ci = confidence_interval(y, s, "map@k:5", qid=qid, n_boot=300, random_state=0)
    assert ci.method == "bootstrap over queries" and ci.lower <= got.mean <= ci.upper
    assert ci.estimate == pytest.approx(got.mean, abs=1e-12)


def test_map_at_k_scores_and_stops_an_estimator():
    X, y, qid = graded_queries(3)
    X_val, y_val, qid_val = graded_queries(4)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=8, n_iter_no_change=3, random_state=0,
                           scoring="map@k:5,convention=lightgbm")
    model.fit(X, y, qid=qid, eval_set=(X_val, y_val, qid_val))
    assert model.validation_metric_ == "map@k:5,convention=lightgbm"
    staged = list(model.staged_decision_function(X_val))
    expected = [per_query(y_val, s, "map@5:convention=lightgbm", qid=qid_val).mean for s in staged]
    np.testing.assert_allclose(model.validation_scores_[:len(staged)], expected, rtol=0, atol=1e-12)
    assert model.score(X_val, y_val, qid=qid_val) == pytest.approx(expected[-1], abs=1e-12)
    held_out = rankcore.boost(learner="trees:max_leaves=4", n_iter=6, early_stopping=True, random_state=0,
                              scoring="map@k:3").fit(X, y, qid=qid)
    assert held_out.validation_metric_ == "map@k:3" and held_out.validation_scores_.shape[0] >= 1


def test_map_at_k_query_scorer():
    X, y, qid = graded_queries(5)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=4, random_state=0).fit(X, y, qid=qid)
    with sklearn.config_context(enable_metadata_routing=True):
        value = make_query_scorer("map@k:4")(model, X, y, qid=qid)
    assert value == pytest.approx(
        per_query(y, model.decision_function(X), "map@k:4", qid=qid).mean, abs=1e-12)


def test_map_at_k_chooses_an_auto_ranker():
    X, y, qid = graded_queries(0, n_queries=30)
    auto = rankcore.AutoRanker(candidates=["stumps:n_iter=10"], metric="map@k:5", cv=3, random_state=0,
                               n_jobs=1, bag_folds=False).fit(X, y, qid=qid)
    assert auto.metric_ == "map@k:5"
    assert auto.score(X, y, qid=qid) == pytest.approx(
        per_query(y, auto.decision_function(X), "map@k:5", qid=qid).mean, abs=1e-12)


def test_map_at_k_trec_eval_convention_is_map_cut():
    # trec_eval's map_cut.K: Σ precision at the relevant rows of the first K places, / R (all relevant rows); a
    # query without a relevant row is 0 and a query shorter than K is read whole.  By hand: query 0 ranks
    # relevant, not, relevant (R = 2): map_cut.1 = 1/2, map_cut.2 = 1/2, map_cut.3 = map_cut.5 = (1 + 2/3)/2;
    # query 1 (two rows, none relevant) is 0.  The tie of rows 3 and 4 goes by row order (trec_eval: by docno).
    y = np.array([1, 0, 1, 0, 0])
    s = np.array([0.9, 0.8, 0.7, 0.5, 0.5])
    qid = np.array([0, 0, 0, 1, 1])
    for k, want in ((1, 0.5), (2, 0.5), (3, 5 / 6), (5, 5 / 6), (1000, 5 / 6)):
        spec = f"map@k:{k},convention=trec_eval"
        assert rankcore.evaluate(y, s, spec, qid=qid)[spec] == pytest.approx(want / 2, abs=1e-15), k
    metric = resolve("metric", "map@k:5,convention=trec_eval")
    assert (metric.ties_rule, metric.empty_rule, metric.denominator_rule) == ("first", "0", "relevant")
    # an explicit denominator still overrides the convention's: min(R, k) = 1 at k = 1
    assert rankcore.evaluate(y[:3], s[:3], "map@k:1,convention=trec_eval,denominator=min")[
        "map@k:1,convention=trec_eval,denominator=min"] == 1.0

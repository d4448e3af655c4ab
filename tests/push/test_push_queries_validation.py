"""Early stopping and eval_set within queries: hold-outs of whole queries, ndcg@k:10 per query by default."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from rankcore.metrics import check_qid
from rankcore.push._queries import query_rows
from rankcore.push._validation import plan_query_validation


def _whole(qid, train, test):
    return not set(qid[train]) & set(qid[test])


@pytest.mark.parametrize("min_rows, kind", [(50, "holdout"), (1000, "cv")])
def test_push_queries_validation_plans_keep_queries_whole(min_rows, kind):
    _, _, qid = graded_queries(0, n_queries=40)
    rows = query_rows(qid, None, qid.shape[0])
    sorted_qid = rows.take(qid)
    plan = plan_query_validation(rows.queries, 0.2, 7, min_rows=min_rows)
    assert plan.kind == kind
    covered = np.concatenate([va for _, va in plan.folds])
    for train, test in plan.folds:
        assert _whole(sorted_qid, train, test) and train.shape[0] + test.shape[0] == qid.shape[0]
    if kind == "cv":
        assert np.array_equal(np.sort(covered), np.arange(qid.shape[0]))
    else:
        (_, test), = plan.folds
        assert test.shape[0] >= 0.2 * qid.shape[0]


def test_push_queries_hold_out_is_drawn_from_the_sorted_query_ids():
    """The same queries are held out whatever the order of the rows."""
    _, _, qid = graded_queries(1, n_queries=30)
    held = []
    for seed in range(3):
        shuffled = qid[np.random.default_rng(seed).permutation(qid.shape[0])]
        rows = query_rows(shuffled, None, qid.shape[0])
        (_, test), = plan_query_validation(rows.queries, 0.25, 3).folds
        held.append(set(rows.take(shuffled)[test]))
    assert held[0] == held[1] == held[2]


def test_push_queries_plans_need_two_queries():
    with pytest.raises(ValueError, match="early_stopping: at least 2 queries are needed"):
        plan_query_validation(check_qid(np.zeros(100), 100), 0.2, 0)


def test_push_queries_early_stopping_validates_per_query_by_ndcg_at_10():
    X, y, qid = graded_queries(2, n_queries=30)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=15, early_stopping=True, random_state=0)
    model.fit(X, y, qid=qid)
    assert model.validation_metric_ == "ndcg@k:10" and model.validation_scores_.shape == (15,)
    assert 0 < model.best_iteration_ <= 15 and model.n_iter_ == model.best_iteration_


def test_push_queries_eval_set_is_scored_per_query():
    X, y, qid = graded_queries(3)
    X_val, y_val, qid_val = graded_queries(4)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=6, random_state=0, scoring="map")
    model.fit(X, y, qid=qid, eval_set=(X_val, y_val, qid_val))
    staged = list(model.staged_decision_function(X_val))
    expected = [rankcore.evaluate(y_val, s, "map", qid=qid_val)["map"] for s in staged]
    np.testing.assert_allclose(model.validation_scores_, expected, rtol=0, atol=1e-12)
    assert model.score(X_val, y_val, qid=qid_val) == pytest.approx(expected[-1], abs=1e-12)


def test_push_queries_eval_set_without_a_relevant_row_names_the_eval_set():
    X, y, qid = graded_queries(3)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0)
    with pytest.raises(ValueError, match=r"^eval_set y: metric 'ndcg@k:10' counts none of the"):
        model.fit(X, y, qid=qid, eval_set=(X, np.zeros_like(y), qid))     # the training labels are not at fault


@pytest.mark.parametrize("scoring", [None, "map"])
def test_push_queries_holdout_without_a_relevant_row_names_early_stopping(scoring):
    # sparse relevance: 10 of 1,000 queries hold a relevant row, and the held-out queries may hold none; the user
    # chose neither those queries nor their labels, so the refusal is early stopping's, with what to do
    rng = np.random.default_rng(0)
    X, qid = rng.normal(size=(4000, 3)), np.repeat(np.arange(1000), 4)
    y = np.zeros(4000)
    y[::397] = 1
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0, early_stopping=True,
                           validation_fraction=0.1, scoring=scoring)
    with pytest.raises(rankcore.MetricRefusal, match=r"^early_stopping: metric '\w+(@k:\d+)?' counts none of the "
                       r"\d+ queries early stopping held out .*eval_set=\(X_val, y_val, qid_val\)") as caught:
        model.fit(X, y, qid=qid)
    assert caught.value.reason == "no_query" and caught.value.n_queries > 0


def test_push_queries_auto_early_stopping_never_stops_and_watches_an_eval_set():
    """Above 10,000 rows "auto" within queries holds out no training query, and an eval_set is watched only.

    (It stopped on the eval_set, with the large-data learner settings: a LightGBM user's eval_set of 100 queries,
    passed to watch NDCG, cut the per-query default from 200 trees to 22.)
    """
    rng = np.random.default_rng(0)
    n_queries, size = 401, 25                 # 10,025 rows: "auto" switches on
    qid = np.repeat(np.arange(n_queries), size)
    X = rng.normal(size=(qid.shape[0], 2))
    y = np.clip(np.round(X[:, 0] + 1 + rng.normal(scale=0.5, size=qid.shape[0])), 0, 3)
    model = rankcore.boost(learner="stumps", n_iter=4, random_state=0).fit(X, y, qid=qid)
    off = rankcore.boost(learner="stumps", n_iter=4, random_state=0, early_stopping=False).fit(X, y, qid=qid)
    assert model.stop_reason_ == "n_iter" and not hasattr(model, "validation_scores_")
    np.testing.assert_array_equal(model.decision_function(X), off.decision_function(X))   # every row trained on
    seen = []
    held = qid >= 350
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=30, n_iter_no_change=2, random_state=0)
    model.fit(X, y, qid=qid, eval_set=(X[held], y[held], qid[held]),
              callbacks=lambda info: seen.append(info.validation_score))
    assert model.validation_metric_ == "ndcg@k:10" and len(seen) == 30 and all(0 < s <= 1 for s in seen)
    assert model.stop_reason_ == "n_iter" and model.n_iter_ == 30 and model.validation_scores_.shape == (30,)
    plain = rankcore.boost(learner="trees:max_leaves=4", n_iter=30, n_iter_no_change=2, random_state=0)
    np.testing.assert_array_equal(model.decision_function(X), plain.fit(X, y, qid=qid).decision_function(X))
    stopped = rankcore.boost(learner="trees:max_leaves=4", n_iter=30, n_iter_no_change=2, random_state=0,
                             early_stopping=True).fit(X, y, qid=qid, eval_set=(X[held], y[held], qid[held]))
    assert stopped.stop_reason_ == "early_stopping" and stopped.n_iter_ < 30        # asked for: it stops


def test_push_queries_short_queries_validate_on_whole_queries():
    """ndcg@k:10 by default on queries of fewer than 10 rows reads each whole query, rather than refusing."""
    X, y, qid = graded_queries(5, rows=(3, 7))
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=4, random_state=0, early_stopping=True)
    model.fit(X, y, qid=qid)
    assert model.validation_metric_ == "ndcg@k:10"
    full = rankcore.evaluate(y, model.decision_function(X), "ndcg@k:6", qid=qid)["ndcg@k:6"]
    assert model.score(X, y, qid=qid) == pytest.approx(full, abs=1e-12)


def test_push_queries_large_data_keeps_the_per_query_defaults():
    """``early_stopping="auto"`` on large data: every row per tree, but the per-query rate, steps and cap hold."""
    from rankcore.push._query_defaults import QUERY_LEARNER_PARAMS, QUERY_N_ITER

    estimator = rankcore.boost(learner="trees")
    large = estimator._query_setup(estimator._setup_record()).for_large_data()
    assert large.learner.subsample == 1.0
    for name, value in QUERY_LEARNER_PARAMS["trees"].items():
        assert getattr(large.learner, name) == value
    assert large.n_iter == QUERY_N_ITER
    # one list: the trees' own large-data recipe
    single = estimator._setup_record().for_large_data()
    assert single.learner.learning_rate == 0.2 and single.learner.line_search and single.n_iter == 150
    # what the user sets is kept
    mine = rankcore.boost(learner="trees:learning_rate=0.3", n_iter=40)
    large = mine._query_setup(mine._setup_record()).for_large_data()
    assert large.learner.learning_rate == 0.3 and large.n_iter == 40


def test_push_queries_shape_defaults_yield_to_a_shape_the_user_names():
    """A learner spec naming any shape parameter keeps the user's shape: no per-query growth, depth or leaves."""
    from rankcore.push._query_defaults import QUERY_LEARNER_PARAMS, QUERY_SHAPE_PARAMS

    defaults = QUERY_LEARNER_PARAMS["trees"]
    shape = set(QUERY_SHAPE_PARAMS["trees"])
    plain = rankcore.boost(learner="trees")
    fitted = plain._query_setup(plain._setup_record()).learner
    for name, value in defaults.items():
        assert getattr(fitted, name) == value
    for spec in ["trees:max_leaves=31", "trees:growth=depthwise", "trees:max_depth=4", "trees:31"]:
        estimator = rankcore.boost(learner=spec)
        got = estimator._query_setup(estimator._setup_record()).learner
        user = rankcore.resolve("learner", spec)
        for name in shape:
            assert getattr(got, name) == getattr(user, name), (spec, name)
        for name, value in defaults.items():        # the other per-query settings still hold
            if name not in shape:
                assert getattr(got, name) == value, (spec, name)


def test_push_queries_eval_set_as_a_list_of_one_triple_is_that_triple():
    # LightGBM's and XGBoost's form: a list of (X, y, ...) tuples, here one
    X, y, qid = graded_queries(3)
    X_val, y_val, qid_val = graded_queries(4)
    fits = [rankcore.boost(learner="trees:max_leaves=4", n_iter=6, random_state=0).fit(X, y, qid=qid, eval_set=e)
            for e in ((X_val, y_val, qid_val), [(X_val, y_val, qid_val)])]
    np.testing.assert_array_equal(fits[0].validation_scores_, fits[1].validation_scores_)
    np.testing.assert_array_equal(fits[0].decision_function(X_val), fits[1].decision_function(X_val))


def test_eval_set_as_a_list_of_one_pair_is_that_pair_on_one_list():
    X, y, _ = graded_queries(3)
    X_val, y_val, _ = graded_queries(4)
    yb, yb_val = (y > 0).astype(int), (y_val > 0).astype(int)
    fits = [rankcore.boost(learner="trees:max_leaves=4", n_iter=6, random_state=0).fit(X, yb, eval_set=e)
            for e in ((X_val, yb_val), [(X_val, yb_val)])]
    np.testing.assert_array_equal(fits[0].validation_scores_, fits[1].validation_scores_)


def test_the_per_query_scorer_refuses_scores_that_are_not_finite():
    # a NaN score has no place in a ranking: the scorer refuses it as evaluate(..., qid=) does
    from rankcore.push._scoring import MetricScoring
    from rankcore.registry import resolve

    rng = np.random.default_rng(0)
    y, qid = rng.integers(0, 3, 40).astype(float), np.repeat(np.arange(8), 5)
    score = MetricScoring(resolve("metric", "ndcg@k:5")).bind(y, queries=check_qid(qid, 40))
    s = rng.normal(size=40)
    assert score(s) == rankcore.evaluate(y, s, "ndcg@k:5", qid=qid)["ndcg@k:5"]
    for bad, what in ((np.nan, "NaN"), (np.inf, "infinite values")):
        s[13] = bad
        with pytest.raises(ValueError, match=rf"^scores: expected finite numbers, got {what} at position 13"):
            score(s)
    with pytest.raises(ValueError, match=r"scores"):
        score(np.zeros(39))

"""Early stopping within queries by a named ``scoring="ndcg@k:10"``: the held-out queries are a part of the training
data, so a hold-out (or a fold) whose queries are all shorter than k reads them whole, as the default scoring does;
a k beyond every training query, or every query of an ``eval_set`` (judged on its own), is still refused."""

import numpy as np
import pytest

import rankcore
from rankcore.push._queries import query_rows
from rankcore.push._validation import MIN_HOLDOUT_ROWS, plan_query_validation
from _query_data import short_queries

LEARNER = "trees:max_leaves=4,min_samples_leaf=3"


def _short_held_out(qid, fraction, seed):
    """Whether the plan early stopping draws holds out some part whose queries are all shorter than 10."""
    queries = query_rows(qid, None, qid.shape[0]).queries
    plan = plan_query_validation(queries, fraction, seed, min_rows=MIN_HOLDOUT_ROWS)
    return plan.kind, [int(np.bincount(queries.codes[va]).max()) < 10 for _, va in plan.folds]


@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
def test_folds_of_short_queries_score_the_named_k_as_the_default(growth):
    X, y, qid = short_queries(0, 60, n_features=4)
    kind, short = _short_held_out(qid, 0.1, 0)
    assert kind == "cv" and any(short) and not all(short)          # four folds of 2..5-row queries
    params = dict(learner=f"{LEARNER},growth={growth}", n_iter=12, early_stopping=True, random_state=0)
    named = rankcore.boost(scoring="ndcg@k:10", **params).fit(X, y, qid=qid)
    default = rankcore.boost(**params).fit(X, y, qid=qid)
    np.testing.assert_array_equal(named.validation_scores_, default.validation_scores_)
    assert named.n_iter_ == default.n_iter_ and named.stop_reason_ == default.stop_reason_
    np.testing.assert_array_equal(named.decision_function(X), default.decision_function(X))


def test_a_hold_out_of_short_queries_scores_the_named_k_as_the_default():
    X, y, qid = short_queries(0, 700, n_features=4)  # ~2,450 rows: half of them a hold-out of 1,000 rows or more
    seed = next(s for s in range(20) if _short_held_out(qid, 0.5, s) == ("holdout", [True]))
    params = dict(learner=LEARNER, n_iter=10, early_stopping=True, validation_fraction=0.5, random_state=seed)
    named = rankcore.boost(scoring="ndcg@k:10", **params).fit(X, y, qid=qid)
    default = rankcore.boost(**params).fit(X, y, qid=qid)
    assert named.validation_scores_.shape[0] > 0
    np.testing.assert_array_equal(named.validation_scores_, default.validation_scores_)
    np.testing.assert_array_equal(named.decision_function(X), default.decision_function(X))
    # prec@k keeps k as its denominator on the short hold-out: every row read, whatever the ranking, so each
    # iteration scores the mean over the held-out queries of their relevant rows over 10
    rows = query_rows(qid, None, qid.shape[0])
    (_, held), = plan_query_validation(rows.queries, 0.5, seed, min_rows=MIN_HOLDOUT_ROWS).folds
    relevant = np.bincount(rows.queries.codes[held], weights=rows.take(y)[held].astype(float))
    expected = np.mean(relevant[np.unique(rows.queries.codes[held])] / 10)
    scores = rankcore.boost(scoring="prec@k:10", **params).fit(X, y, qid=qid).validation_scores_
    np.testing.assert_allclose(scores, expected, rtol=1e-12)


@pytest.mark.parametrize("spec", ["ndcg@k:13", "prec@k:13"])
def test_a_k_beyond_every_training_query_is_refused(spec):
    X, y, qid = short_queries(0, 60, n_features=4)
    with pytest.raises(ValueError, match=rf"^scoring='{spec}': k = 13 is larger than every query \(the largest has 12 "
                                         r"rows\), so no query is cut at k; choose k <= 12"):
        rankcore.boost(learner=LEARNER, scoring=spec, n_iter=5, early_stopping=True, random_state=0).fit(X, y, qid=qid)


def test_an_eval_set_is_judged_on_its_own():
    X, y, qid = short_queries(0, 60, n_features=4)
    X_short, y_short, q_short = short_queries(1, 20, 0, n_features=4)
    model = rankcore.boost(learner=LEARNER, scoring="ndcg@k:10", n_iter=5, early_stopping=True, random_state=0)
    with pytest.raises(ValueError, match=r"^scoring='ndcg@k:10' on eval_set: k = 10 is larger than every query \(the "
                                         r"largest has 5 rows\)"):
        model.fit(X, y, qid=qid, eval_set=(X_short, y_short, q_short))
    X_long, y_long, q_long = short_queries(2, 20, 11, n_features=4)
    assert model.fit(X, y, qid=qid, eval_set=(X_long, y_long, q_long)).validation_scores_.shape[0] > 0


def test_a_named_scoring_that_cannot_score_the_labels_is_named_with_the_set():
    """The refusal arises in the fit's checks, away from the parameter: it names ``scoring`` and which set."""
    X, y, qid = short_queries(0, 60, n_features=4)
    model = rankcore.boost(learner=LEARNER, scoring="ndcg@k:3", n_iter=5, random_state=0)
    nothing = (X[:40], np.zeros(40), qid[:40])                     # no relevant row in any query
    with pytest.raises(ValueError, match=r"^scoring='ndcg@k:3' on eval_set: counts none of the \d+ queries"):
        model.fit(X, y, qid=qid, eval_set=nothing)
    with pytest.raises(ValueError, match=r"^scoring='ndcg@k:3' on eval_set\[1\]: counts none of the \d+ queries"):
        model.fit(X, y, qid=qid, eval_set=[(X, y, qid), nothing])
    graded = np.where(y > 0, 2, 0)
    with pytest.raises(ValueError, match=r"^scoring='prec@k:3': expected binary labels"):
        rankcore.boost(learner=LEARNER, scoring="prec@k:3", n_iter=5, early_stopping=True,
                       random_state=0).fit(X, graded, qid=qid)
    # the default scoring keeps the metric's own words (the user named no parameter)
    with pytest.raises(ValueError, match=r"^eval_set y: metric 'ndcg@k:10' counts none of the"):
        rankcore.boost(learner=LEARNER, n_iter=5, random_state=0).fit(X, y, qid=qid, eval_set=nothing)


def test_an_eval_metric_that_cannot_score_an_eval_set_names_the_metric_once():
    """``eval_metric``'s refusal names its metric and the set in its own words, without the check's
    ``metric 'ndcg@k:40':`` after them (and without ``scoring=``, which names the other metric)."""
    from rankcore import AutoRanker

    X, y, qid = short_queries(0, 60, n_features=4)
    X_short, y_short, q_short = short_queries(1, 20, 0, n_features=4)
    expected = (r"^eval_metric: the metric 'ndcg@k:40' cannot score eval_set( y)?: k = 40 is larger than every query "
                r"\(the largest has 5 rows\)")
    for scoring in (None, "ndcg@k:3"):
        with pytest.raises(ValueError, match=expected) as caught:
            rankcore.boost(learner=LEARNER, scoring=scoring, n_iter=3, random_state=0).fit(
                X, y, qid=qid, eval_set=(X_short, y_short, q_short), eval_metric="ndcg@k:40")
        said = str(caught.value).split(", or pass ")[0]        # the advice names the spec to pass
        assert said.count("ndcg@k:40") == 1 and "scoring" not in str(caught.value)
    with pytest.raises(ValueError, match=expected) as caught:
        AutoRanker(candidates=["trees:n_iter=3"], random_state=0).fit(
            X, y, qid=qid, eval_set=(X_short, y_short, q_short), eval_metric="ndcg@k:40")
    assert str(caught.value).split(", or pass ")[0].count("ndcg@k:40") == 1

"""AutoRanker within queries: bad input is a clear ValueError naming the argument, raised before any fit."""

import numpy as np
import pytest
from _query_data import graded_queries

from rankcore.auto import AutoRanker

X, Y, QID = graded_queries(seed=0, n_queries=6)
ROW = np.arange(Y.shape[0])


def _auto(**params):
    return AutoRanker(**{"candidates": ["stumps:n_iter=3"], "random_state": 0, "n_jobs": 1, **params})


BAD = {
    "qid of the wrong length": ({"qid": QID[:-1]}, {}, r"^qid: expected one query id per row \(60 rows\), got 59$"),
    "NaN in qid": ({"qid": np.where(ROW == 3, np.nan, 1.0)}, {}, r"^qid: query ids must not be NaN, got NaN at row 3"),
    "None in qid": ({"qid": [None if i == 2 else "a" for i in ROW]}, {},
                    r"^qid: query ids must not be None or NaN, got None at row 2"),
    "a negative grade": ({"qid": QID, "y": np.where(ROW == 4, -1.0, Y)}, {},
                         r"^y: relevance grades must be finite numbers >= 0 \(fitting within queries\), "
                         r"got -1.0 at row 4$"),
    "a NaN grade": ({"qid": QID, "y": np.where(ROW == 4, np.nan, Y)}, {},
                    r"^y: relevance grades must be finite numbers >= 0 \(fitting within queries\), got nan at row 4$"),
    "qid and group": ({"qid": QID, "group": [Y.shape[0]]}, {}, r"^qid, group: give one of them"),
    "group sizes not summing to the rows": ({"group": [30, 20]}, {},
                                            r"^group: the query sizes sum to 50, but y has 60 rows"),
    "k larger than every query": ({"qid": QID}, {"metric": "ndcg@k:50"},
                                  r"^metric 'ndcg@k:50': k = 50 is larger than every query "
                                  r"\(the largest has 14 rows\)"),
    "fewer queries than folds": ({"qid": QID}, {"cv": 7},
                                 r"^cv: 7-fold cross-validation over whole queries needs at least 7 queries the "
                                 r"metric 'ndcg@k:10' counts .*got 5 of 6 queries; use fewer folds"),
    # one counted query, which holds two grades (a single grade everywhere is refused first, as above)
    "a hold-out without two counted queries": ({"qid": QID, "y": np.where(QID == "q02", ROW % 2, 0.0)}, {"cv": 0.3},
                                               r"^cv: a hold-out of whole queries needs at least 2 queries"),
    "one query": ({"qid": np.zeros(Y.shape[0])}, {},
                  r"^qid: cross-validation over whole queries needs at least 2 queries .*got 1 of 1 queries"),
    # (before: refused only after every candidate's first fold failed, counting the fold's queries: "candidates:
    # 'stumps:n_iter=3': y, qid: ... got 48 queries")
    "one row per query": ({"qid": ROW}, {}, r"^y, qid: ranking within queries needs a query with two grades, "
                                           r"got 60 queries, each with a single grade: no pair to order$"),
    "one grade within every query": ({"qid": QID, "y": (np.unique(QID, return_inverse=True)[1] % 3).astype(float)},
                                     {}, r"^y, qid: ranking within queries needs a query with two grades, got 6 "
                                         r"queries, each with a single grade"),
    "grades with a metric of two classes": ({"qid": QID}, {"metric": "pauc:0.1"},
                                            r"^metric: 'pauc:0.1' takes two classes \(grades 0 and 1\) in each query, "
                                            r"but y holds the grades \[2.0, 3.0\]"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_auto_queries_bad_input(case):
    fit_args, params, message = BAD[case]
    fit_args = dict(fit_args)
    y = fit_args.pop("y", Y)
    events = []
    with pytest.raises(ValueError, match=message):
        _auto(**params).fit(X, y, callbacks=events.append, **fit_args)
    assert events == []                      # refused before any candidate was fitted


def test_auto_queries_k_larger_than_every_query_of_a_fold_reads_them_whole():
    # one query of 20 rows, the others of 4: a fold without the long query is AutoRanker's cut, not the user's k
    sizes = [20] + [4] * 9
    qid = np.repeat(np.arange(10), sizes)
    rng = np.random.default_rng(0)
    X_, y = rng.normal(size=(qid.shape[0], 2)), rng.integers(0, 3, qid.shape[0]).astype(float)
    y[::4] = 2.0
    named = _auto(metric="ndcg@k:10", cv=3).fit(X_, y, qid=qid)
    default = _auto(cv=3).fit(X_, y, qid=qid)        # left at its default, ndcg@k:10 reads such queries whole
    assert named.metric_ == default.metric_ == "ndcg@k:10"
    assert [r.fold_scores for r in named.leaderboard_.rows] == [r.fold_scores for r in default.leaderboard_.rows]
    # a k that no query of the data reaches is still the user's mistake
    with pytest.raises(ValueError, match=r"^metric 'ndcg@k:21': k = 21 is larger than every query \(the largest has "
                                         r"20 rows\)"):
        _auto(metric="ndcg@k:21", cv=3).fit(X_, y, qid=qid)


def test_auto_queries_single_row_and_single_grade_queries_are_counted():
    qid = QID.copy()
    y = Y.copy()
    qid[0] = "lonely"                       # a query of one row
    auto = _auto(cv=3).fit(X, y, qid=qid)
    assert auto.n_queries_ == 7
    assert auto.n_queries_without_pairs_ == 3      # the lonely row, q00 (one grade), q01 (all 0)
    assert "7 queries, 3 with a single grade" in auto.cv_description_


def test_auto_queries_score_needs_grades():
    auto = _auto(cv=3).fit(X, Y, qid=QID)
    with pytest.raises(ValueError, match=r"^y: relevance grades must be finite numbers >= 0"):
        auto.score(X, -Y, qid=QID)
    with pytest.raises(ValueError, match=r"^qid: expected one query id per row"):
        auto.score(X, Y, qid=QID[:3])


def test_auto_queries_grades_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"^y: expected one grade per row of X \(60\), got 59$"):
        _auto().fit(X, Y[:-1], qid=QID)

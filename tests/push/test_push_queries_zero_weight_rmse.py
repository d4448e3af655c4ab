"""Queries whose rows all weigh 0 are dropped queries: they do not count toward the per-query default's switch to
``query_rmse=1`` (above 800 queries with two grades).

Before, the count ran over every query given to ``fit``, weights or not: 500 weighted queries beside 400 of
weight 0 fitted ``query_rmse=1``, as 900 queries would, where the 500 alone fit ``query_rmse=2``.
"""

import numpy as np

import rankcore
from rankcore.persistence import model_from_dict, model_to_dict


def _queries(n_queries=900, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), 4)
    X = rng.normal(size=(qid.size, 3))
    y = np.tile([0.0, 1.0, 0.0, 2.0], n_queries)
    return X, y, qid


def _fit(X, y, qid, **kwargs):
    return rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, y, qid=qid, **kwargs)


def test_zero_weight_queries_do_not_count_toward_the_switch():
    X, y, qid = _queries()
    w = np.where(qid < 500, 1.0, 0.0)                  # 400 queries of weight 0: 500 ranked queries remain
    model = _fit(X, y, qid, sample_weight=w)
    assert model.objective_spec_.endswith(",2")       # (before: ",1", as for 900 queries)
    assert (model.n_queries_, model.n_queries_without_pairs_) == (900, 400)
    assert _fit(X[qid < 500], y[qid < 500], qid[qid < 500]).objective_spec_.endswith(",2")
    loaded = model_from_dict(model_to_dict(model))     # the file's counts give the load the fit's weight
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_a_query_whose_weighted_rows_share_one_grade_has_no_pair():
    X, y, qid = _queries(n_queries=10)
    w = np.ones(qid.size)
    w[(qid < 3) & (y > 0)] = 0.0                       # three queries keep only their grade-0 rows
    model = _fit(X, y, qid, sample_weight=w)
    assert model.n_queries_without_pairs_ == 3


def test_many_weighted_queries_still_switch():
    X, y, qid = _queries()
    w = np.where(qid < 850, 2.0, 0.0)
    assert _fit(X, y, qid, sample_weight=w).objective_spec_.endswith(",1")
    assert _fit(X, y, qid).objective_spec_.endswith(",1")



def test_weights_that_leave_no_pair_to_an_objective_that_takes_them_save_and_load():
    # lambdarank fits such weights (no pair: no gradient); every query is then one without pairs, and the file loads
    X, y, qid = _queries(n_queries=3)
    w = np.where(y > 0, 0.0, 1.0)
    model = rankcore.boost(learner="trees", objective="lambdarank", n_iter=1, random_state=0).fit(
        X, y, qid=qid, sample_weight=w)
    assert (model.n_queries_, model.n_queries_without_pairs_) == (3, 3)
    np.testing.assert_array_equal(model_from_dict(model_to_dict(model)).decision_function(X),
                                  model.decision_function(X))

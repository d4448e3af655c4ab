"""scikit-learn tooling within queries: metadata routing of qid to fit, score and the query splitter."""

import inspect

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, cross_val_score

import rankcore
from _query_data import graded_queries
from rankcore import QueryKFold
from rankcore.metrics import make_query_scorer
from rankcore.push._boost_base import _BaseBoost


@pytest.fixture
def fitted_queries(monkeypatch):
    """(labels, sizes) of the queries of every fit, recorded as each fit describes them."""
    seen = []
    describe = _BaseBoost._describe_queries

    def record(self, setup, queries, n_single):
        seen.append((queries.labels.tolist(), queries.sizes.tolist()))
        return describe(self, setup, queries, n_single)

    monkeypatch.setattr(_BaseBoost, "_describe_queries", record)
    return seen


def test_push_queries_grid_search_never_splits_a_query(fitted_queries):
    X, y, qid = graded_queries(0, n_queries=18)
    sizes = dict(zip(*np.unique(qid, return_counts=True)))
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0),
                              {"price": ["pow:2", "pow:8"]}, cv=QueryKFold(3),
                              scoring=make_query_scorer("ndcg@k:5"))
        search.fit(X, y, qid=qid)
    assert len(fitted_queries) == 2 * 3 + 1                     # every fold of each candidate, then the refit
    for labels, counts in fitted_queries:
        assert [sizes[q] for q in labels] == counts              # each query whole, or absent
    assert len(fitted_queries[-1][0]) == 18
    assert search.best_estimator_.ranks_within_queries_
    assert 0 < search.best_score_ <= 1


def test_push_queries_score_receives_qid_through_routing(fitted_queries):
    X, y, qid = graded_queries(1, n_queries=12)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(model, X, y, cv=QueryKFold(3), params={"qid": qid})
    assert len(fitted_queries) == 3 and np.all((0 < scores) & (scores <= 1))
    folds = list(QueryKFold(3).split(X, y, qid=qid))
    train, test = folds[0]
    fitted = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X[train], y[train],
                                                                                         qid=qid[train])
    assert scores[0] == pytest.approx(fitted.score(X[test], y[test], qid=qid[test]), abs=1e-12)


def test_push_queries_score_without_qid_is_refused_not_pooled():
    # scikit-learn's model selection with routing off passes qid to fit but calls score(X, y): a pooled NDCG there
    # chose hyper-parameters on a number that means nothing, silently
    X, y, qid = graded_queries(2, n_queries=12)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"qid: this PushBoost was fitted within queries.*metadata routing"):
        model.score(X, y)
    one = model.score(X, y, qid=np.zeros(len(y)))                  # one query, said so
    assert one == pytest.approx(rankcore.metrics.per_query(y, model.decision_function(X), "ndcg@k:10",
                                                           qid=np.zeros(len(y))).mean, abs=1e-12)
    search = GridSearchCV(rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0),
                          {"price": ["pow:2", "pow:8"]}, cv=3, error_score="raise")
    with pytest.raises(ValueError, match="qid: this PushBoost was fitted within queries"):
        search.fit(X, y, qid=qid)
    one_list = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, (y > 0).astype(int))
    assert 0 <= one_list.score(X, (y > 0).astype(int)) <= 1       # a model of one list scores without qid


def test_push_queries_score_refusal_points_sklearn_permutation_importance_to_ours():
    # scikit-learn's permutation_importance calls score(X, y) and has no way to pass qid: the refusal used to say
    # "turn on metadata routing", which changes nothing there
    from sklearn.inspection import permutation_importance

    X, y, qid = graded_queries(3, n_queries=10)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"qid: .*never passes qid: use rankcore\.permutation_importance"):
        permutation_importance(model, X, y, n_repeats=1, random_state=0)


def test_push_queries_score_refusal_with_routing_on_names_what_helps():
    # with routing on, a FrozenEstimator routes no qid to score: the advice to turn routing on was wrong there, and
    # a query scorer (which requests qid itself) scores the frozen model fold by fold
    from sklearn.frozen import FrozenEstimator

    X, y, qid = graded_queries(4, n_queries=12)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y, qid=qid)
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match=r"routing is on, yet no qid reached score.*make_query_scorer"):
            cross_val_score(FrozenEstimator(model), X, y, cv=QueryKFold(3), params={"qid": qid}, error_score="raise")
        scores = cross_val_score(FrozenEstimator(model), X, y, cv=QueryKFold(3), params={"qid": qid},
                                 scoring=make_query_scorer("ndcg@k:10"))
    expected = [model.score(X[test], y[test], qid=qid[test]) for _, test in QueryKFold(3).split(X, qid=qid)]
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-12)


def test_push_score_takes_sample_weight_third_not_qid():
    # scikit-learn's score(X, y, sample_weight): a weight array passed by position was read as query ids, so a model
    # of one list was scored per group of equal weights, silently
    from rankcore.auto import AutoRanker

    classes = [rankcore.PushBoost, AutoRanker]
    try:                                                   # the Dask extra may not be installed
        from rankcore.dask import DaskPushBoost
    except ImportError:
        pass
    else:
        classes.append(DaskPushBoost)
    for cls in classes:
        params = list(inspect.signature(cls.score).parameters.values())
        assert [p.name for p in params[1:4]] == ["X", "y", "sample_weight"], cls.__name__
        assert params[4].name == "qid" and params[4].kind is inspect.Parameter.KEYWORD_ONLY, cls.__name__
    X, y, qid = graded_queries(5, n_queries=12)
    labels = (y > 0).astype(int)
    weights = np.random.default_rng(0).choice([0.5, 1.0, 2.0], size=labels.size)
    one_list = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, labels)
    with pytest.warns(UserWarning, match="sample_weight: PushBoost.score counts every row once"):
        assert one_list.score(X, labels, weights) == one_list.score(X, labels)
    within = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y, qid=qid)
    with pytest.warns(UserWarning, match="sample_weight"), pytest.raises(ValueError, match="qid: this PushBoost"):
        within.score(X, y, qid)                            # ids by position are weights, not queries

"""scikit-learn tooling within queries: metadata routing of qid to fit, score and the query splitter."""

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

"""``objective="lambdarank"`` on trees: Newton leaves −Σg/Σh of LightGBM's λ-gradients, steps of the learning rate."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from _query_objective_reference import lambdarank_reference
from rankcore.push._query_defaults import QUERY_LEARNER_PARAMS


def _leaf_values_are_newton_steps(ranker, X, grad, hess):
    values = ranker.predict(X)
    for v in np.unique(values):
        rows = values == v
        assert v == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-9, abs=1e-12)
    return values


@pytest.mark.parametrize("learner", ["trees:max_leaves=4,min_samples_leaf=5,subsample=1",
                                     "trees:growth=oblivious,max_depth=2,min_samples_leaf=5,subsample=1"])
def test_push_queries_lambdarank_leaves_are_newton_steps(learner):
    X, y, qid = graded_queries(0)
    model = rankcore.boost(objective="lambdarank:10", learner=learner, n_iter=3, random_state=0).fit(X, y, qid=qid)
    assert model.n_iter_ == 3 and np.isnan(model.objective_values_).all()
    rate = QUERY_LEARNER_PARAMS["trees"]["learning_rate"]
    np.testing.assert_array_equal(model.alphas_, rate)         # α = 1, times the per-query learning rate
    # the fit works in query order, each query's rows in their given order (lambdarank breaks score ties by it)
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    scores = np.zeros(y.shape[0])
    for ranker, alpha in zip(model.rankers_, model.alphas_):
        grad, hess = lambdarank_reference(y, qid, scores, truncation=10)
        scores = scores + alpha * _leaf_values_are_newton_steps(ranker, X, grad, hess)
    np.testing.assert_allclose(model.decision_function(X), scores, rtol=0, atol=1e-12)


def test_push_queries_lambdarank_ranks_new_queries():
    X, y, qid = graded_queries(1)
    X_test, y_test, qid_test = graded_queries(2)
    model = rankcore.boost(objective="lambdarank", learner="trees:max_leaves=4", n_iter=20, random_state=0)
    model.fit(X, y, qid=qid)
    rng = np.random.default_rng(0)
    random = np.mean([rankcore.evaluate(y_test, rng.normal(size=y_test.shape[0]), "ndcg@k:10", qid=qid_test)[
        "ndcg@k:10"] for _ in range(10)])
    assert model.score(X_test, y_test, qid=qid_test) > random + 0.1


@pytest.mark.parametrize("truncation", [1, 2])
def test_min_samples_leaf_counts_rows_where_lambdarank_curvature_sits_on_few_rows(truncation):
    # From tied scores at truncation 1 or 2 a query's first rows carry its curvature and the rows graded like all of
    # them get none. min_samples_leaf counts rows, not rows estimated from the curvature as LightGBM's
    # min_data_in_leaf does, so every leaf holds 5 rows or more (LightGBM's tree on these rows holds a leaf of 3 at
    # both truncations; docs/query_objectives.md).
    X, y, qid = graded_queries(0)
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    grad, hess = lambdarank_reference(y, qid, np.zeros(y.shape[0]), truncation=truncation)
    assert np.mean(hess == 0) > 0.1
    model = rankcore.boost(objective=f"lambdarank:{truncation}", n_iter=1, random_state=0,
                           learner="trees:max_leaves=7,min_samples_leaf=5,subsample=1,random_strength=0")
    model.fit(X, y, qid=qid)
    values = _leaf_values_are_newton_steps(model.rankers_[0], X, grad, hess)
    leaf_values, rows = np.unique(values, return_counts=True)
    assert leaf_values.size == model.rankers_[0].n_leaves > 2
    assert rows.min() >= 5

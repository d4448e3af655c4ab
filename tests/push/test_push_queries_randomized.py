"""The randomized objectives within queries (``yetirank``, ``xendcg``) on trees: each tree is the Newton step on the
noise of its iteration, drawn from ``random_state``; a seed repeats a fit, another seed draws another."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from rankcore.metrics._queries import check_qid
from rankcore.objectives._xendcg import PreparedXENDCG
from rankcore.objectives._yetirank import YetiRank
from rankcore.push._query_defaults import QUERY_LEARNER_PARAMS

X, Y, QID = graded_queries(0)


def _yetirank_gradients(y, queries):
    return lambda scores, t: YetiRank(3).gradient_hessian(y, scores, queries, seed=4, evaluation=t)


def _xendcg_gradients(y, queries):
    prepared = PreparedXENDCG(y, queries)
    return lambda scores, t: prepared.gradient_hessian(scores, seed=4, evaluation=t)


@pytest.mark.parametrize("spec, gradients", [("yetirank:3", _yetirank_gradients), ("xendcg", _xendcg_gradients)])
def test_leaves_are_newton_steps_on_each_iterations_noise(spec, gradients):
    learner = "trees:growth=oblivious,max_depth=2,min_samples_leaf=5,subsample=1"
    model = rankcore.boost(objective=spec, learner=learner, n_iter=3, random_state=4).fit(X, Y, qid=QID)
    assert model.n_iter_ == 3 and np.isnan(model.objective_values_).all()
    np.testing.assert_array_equal(model.alphas_, QUERY_LEARNER_PARAMS["trees"]["learning_rate"])
    # the fit works in query order; iteration t draws the noise of evaluation t − 1 from the fit's seed
    order = np.argsort(QID, kind="stable")
    X_q, y_q = X[order], Y[order]
    gradient_hessian = gradients(y_q, check_qid(QID[order], Y.shape[0]))
    scores = np.zeros(Y.shape[0])
    for t, (ranker, alpha) in enumerate(zip(model.rankers_, model.alphas_)):
        grad, hess = gradient_hessian(scores, t)
        values = ranker.predict(X_q)
        for v in np.unique(values):
            rows = values == v
            assert v == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-9, abs=1e-12)
        scores = scores + alpha * values
    np.testing.assert_allclose(model.decision_function(X_q), scores, rtol=0, atol=1e-12)


@pytest.mark.parametrize("spec", ["yetirank", "xendcg"])
def test_a_seed_repeats_a_fit_and_ranks_new_queries(spec):
    X_test, y_test, qid_test = graded_queries(2)
    fit = [rankcore.boost(objective=spec, learner="trees", n_iter=15, random_state=s).fit(X, Y, qid=QID)
           for s in (0, 0, 1)]
    np.testing.assert_array_equal(fit[0].decision_function(X_test), fit[1].decision_function(X_test))
    assert not np.array_equal(fit[0].decision_function(X_test), fit[2].decision_function(X_test))
    rng = np.random.default_rng(0)
    random = np.mean([rankcore.evaluate(y_test, rng.normal(size=y_test.shape[0]), "ndcg@k:10", qid=qid_test)[
        "ndcg@k:10"] for _ in range(10)])
    assert fit[0].score(X_test, y_test, qid=qid_test) > random + 0.1

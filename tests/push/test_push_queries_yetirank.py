"""``objective="yetirank"`` on trees: each tree's Newton step on the noise of its iteration, seeded by random_state."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from rankcore.metrics._queries import check_qid
from rankcore.objectives._yetirank import YetiRank
from rankcore.push._query_defaults import QUERY_LEARNER_PARAMS

X, Y, QID = graded_queries(0)


def test_push_queries_yetirank_leaves_are_newton_steps_on_each_iterations_noise():
    learner = "trees:growth=oblivious,max_depth=2,min_samples_leaf=5,subsample=1"
    model = rankcore.boost(objective="yetirank:3", learner=learner, n_iter=3, random_state=4).fit(X, Y, qid=QID)
    assert model.n_iter_ == 3 and np.isnan(model.objective_values_).all()
    np.testing.assert_array_equal(model.alphas_, QUERY_LEARNER_PARAMS["trees"]["learning_rate"])
    # the fit works in query order; iteration t draws the noise of evaluation t − 1 from the fit's seed
    order = np.argsort(QID, kind="stable")
    X_q, y_q, q = X[order], Y[order], check_qid(QID[order], Y.shape[0])
    scores = np.zeros(Y.shape[0])
    for t, (ranker, alpha) in enumerate(zip(model.rankers_, model.alphas_)):
        grad, hess = YetiRank(3).gradient_hessian(y_q, scores, q, seed=4, evaluation=t)
        values = ranker.predict(X_q)
        for v in np.unique(values):
            rows = values == v
            assert v == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-9, abs=1e-12)
        scores = scores + alpha * values
    np.testing.assert_allclose(model.decision_function(X_q), scores, rtol=0, atol=1e-12)


def test_push_queries_yetirank_repeats_for_a_seed_and_ranks_new_queries():
    X_test, y_test, qid_test = graded_queries(2)
    fit = [rankcore.boost(objective="yetirank", learner="trees", n_iter=15, random_state=s).fit(X, Y, qid=QID)
           for s in (0, 0, 1)]
    np.testing.assert_array_equal(fit[0].decision_function(X_test), fit[1].decision_function(X_test))
    assert not np.array_equal(fit[0].decision_function(X_test), fit[2].decision_function(X_test))
    rng = np.random.default_rng(0)
    random = np.mean([rankcore.evaluate(y_test, rng.normal(size=y_test.shape[0]), "ndcg@k:10", qid=qid_test)[
        "ndcg@k:10"] for _ in range(10)])
    assert fit[0].score(X_test, y_test, qid=qid_test) > random + 0.1


def test_push_queries_yetirank_errors():
    with pytest.raises(ValueError, match=r"qid: the objective 'yetirank' ranks within queries; pass fit\(X, y, qid"):
        rankcore.boost(objective="yetirank", learner="trees", n_iter=2).fit(X, Y)
    with pytest.raises(ValueError, match="objective 'yetirank' gives gradients and curvature but no value.*"
                                         "the learner 'stumps' has no Newton leaves"):
        rankcore.boost(objective="yetirank", learner="stumps", n_iter=2).fit(X, Y, qid=QID)
    for spec, message in [("yetirank:0", "permutations"), ("yetirank:decay=0", "decay"),
                          ("yetirank:decay=1.5", "decay"), ("yetirank:newton=maybe", "newton")]:
        with pytest.raises(ValueError, match=message):
            rankcore.boost(objective=spec, learner="trees", n_iter=2).fit(X, Y, qid=QID)

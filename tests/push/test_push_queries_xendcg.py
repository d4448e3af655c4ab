"""``objective="xendcg"`` on trees: each tree's Newton step on the noise of its iteration, seeded by random_state.

Its model files, display positions and Dask fits are tested with the other objectives within queries
(test_push_queries_persistence.py, test_push_queries_positions.py, tests/dask/test_dask_queries.py)."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from rankcore.metrics._queries import check_qid
from rankcore.objectives._xendcg import PreparedXENDCG
from rankcore.push._query_defaults import QUERY_LEARNER_PARAMS

X, Y, QID = graded_queries(0)


def test_push_queries_xendcg_leaves_are_newton_steps_on_each_iterations_noise():
    learner = "trees:growth=oblivious,max_depth=2,min_samples_leaf=5,subsample=1"
    model = rankcore.boost(objective="xendcg", learner=learner, n_iter=3, random_state=4).fit(X, Y, qid=QID)
    assert model.n_iter_ == 3 and np.isnan(model.objective_values_).all()
    np.testing.assert_array_equal(model.alphas_, QUERY_LEARNER_PARAMS["trees"]["learning_rate"])
    # the fit works in query order; iteration t draws the noise of evaluation t − 1 from the fit's seed
    order = np.argsort(QID, kind="stable")
    X_q, y_q = X[order], Y[order]
    prepared = PreparedXENDCG(y_q, check_qid(QID[order], Y.shape[0]))
    scores = np.zeros(Y.shape[0])
    for t, (ranker, alpha) in enumerate(zip(model.rankers_, model.alphas_)):
        grad, hess = prepared.gradient_hessian(scores, seed=4, evaluation=t)
        values = ranker.predict(X_q)
        for v in np.unique(values):
            rows = values == v
            assert v == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-9, abs=1e-12)
        scores = scores + alpha * values
    np.testing.assert_allclose(model.decision_function(X_q), scores, rtol=0, atol=1e-12)


def test_push_queries_xendcg_repeats_for_a_seed_and_ranks_new_queries():
    X_test, y_test, qid_test = graded_queries(2)
    fit = [rankcore.boost(objective="xendcg", learner="trees", n_iter=15, random_state=s).fit(X, Y, qid=QID)
           for s in (0, 0, 1)]
    np.testing.assert_array_equal(fit[0].decision_function(X_test), fit[1].decision_function(X_test))
    assert not np.array_equal(fit[0].decision_function(X_test), fit[2].decision_function(X_test))
    rng = np.random.default_rng(0)
    random = np.mean([rankcore.evaluate(y_test, rng.normal(size=y_test.shape[0]), "ndcg@k:10", qid=qid_test)[
        "ndcg@k:10"] for _ in range(10)])
    assert fit[0].score(X_test, y_test, qid=qid_test) > random + 0.1
    alias = rankcore.boost(objective="rank_xendcg", learner="trees", n_iter=15, random_state=0).fit(X, Y, qid=QID)
    np.testing.assert_array_equal(alias.decision_function(X_test), fit[0].decision_function(X_test))


def test_push_queries_xendcg_errors():
    with pytest.raises(ValueError, match=r"qid: the objective 'xendcg' ranks within queries; pass fit\(X, y, qid"):
        rankcore.boost(objective="xendcg", learner="trees", n_iter=2).fit(X, Y)
    with pytest.raises(ValueError, match="objective 'xendcg' gives gradients and curvature but no value.*"
                                         "the learner 'stumps' has no Newton leaves"):
        rankcore.boost(objective="xendcg", learner="stumps", n_iter=2).fit(X, Y, qid=QID)
    bad = Y.copy()
    bad[5] = -1.0
    with pytest.raises(ValueError, match=r"y: relevance grades must be finite numbers >= 0.*got -1.0 at row 5"):
        rankcore.boost(objective="xendcg", learner="trees", n_iter=2).fit(X, bad, qid=QID)
    bad[5] = np.nan
    with pytest.raises(ValueError, match=r"y: relevance grades must be finite numbers >= 0.*got nan at row 5"):
        rankcore.boost(objective="xendcg", learner="trees", n_iter=2).fit(X, bad, qid=QID)
    bad[5] = 1024.0
    with pytest.raises(ValueError, match=r"y: the objective 'xendcg' weighs rows by the gain 2\^grade, so grades "
                                         r"must be <= 1023, got 1024.0 at row 5"):
        rankcore.boost(objective="xendcg", learner="trees", n_iter=2).fit(X, bad, qid=QID)
    with pytest.raises(ValueError, match="xendcg"):
        rankcore.boost(objective="xendcg:3", learner="trees", n_iter=2).fit(X, Y, qid=QID)


def test_push_queries_xendcg_reads_sample_weights():
    w = np.where(np.char.endswith(QID, "3"), 3.0, 1.0)
    plain = rankcore.boost(objective="xendcg", learner="trees", n_iter=5, random_state=0).fit(X, Y, qid=QID)
    weighted = rankcore.boost(objective="xendcg", learner="trees", n_iter=5, random_state=0).fit(X, Y, w, qid=QID)
    assert not np.array_equal(plain.decision_function(X), weighted.decision_function(X))

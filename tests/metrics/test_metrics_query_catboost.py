"""``ndcg@k:k,convention=catboost`` and ``ties=worst``: CatBoost's NDCG, whose defaults differ from rankcore's.

CatBoost's ``NDCG:top=k`` (its default ``type=Base``) takes the grade itself as the gain, orders a tie of scores
by grade, lowest first, and gives a query without a relevant row 1.  A plain NumPy reference, and CatBoost itself
when it is installed (the test skips otherwise).
"""

from __future__ import annotations

import numpy as np
import pytest

import rankcore
from rankcore.metrics import per_query


def grouped(seed, *, n_queries=40, max_size=25):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), rng.integers(1, max_size + 1, size=n_queries))
    y = rng.integers(0, 5, size=qid.shape[0]) * (rng.random(qid.shape[0]) < 0.5)
    for q in rng.choice(n_queries, size=5, replace=False):         # queries without a relevant row
        y[qid == q] = 0
    scores = rng.integers(0, 6, size=qid.shape[0]).astype(np.float64)   # many ties
    perm = rng.permutation(qid.shape[0])                              # the queries' rows interleaved
    return y[perm].astype(np.float64), scores[perm], qid[perm]


def reference(y, scores, qid, k, gain):
    """Per query: the rows by score descending, a tie by grade ascending; DCG@k over the best DCG@k, 1 if 0."""
    values = []
    for q in np.unique(qid):
        g, s = gain(y[qid == q]), scores[qid == q]
        ranked = g[np.lexsort((g, -s))][:k]
        best = np.sort(g)[::-1][:k]
        discount = 1.0 / np.log2(np.arange(2, ranked.shape[0] + 2))
        values.append(1.0 if best.sum() == 0 else float(ranked @ discount / (best @ discount)))
    return np.array(values)


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_catboost_convention_equals_the_reference(seed, k):
    """(Before, ``convention=catboost`` and ``ties=worst`` were refused: no spec gave CatBoost's number on ties.)"""
    y, scores, qid = grouped(seed)
    got = per_query(y, scores, f"ndcg@k:{k},convention=catboost", qid=qid)
    np.testing.assert_allclose(got.values, reference(y, scores, qid, k, lambda g: g), rtol=0, atol=1e-12)
    assert got.n_left_out == 0
    exp = per_query(y, scores, f"ndcg@k:{k},convention=catboost,gain=exp", qid=qid)
    np.testing.assert_allclose(exp.values, reference(y, scores, qid, k, lambda g: 2.0 ** g - 1), rtol=0, atol=1e-12)


def test_worst_ties_read_no_row_order_and_bound_every_order():
    y, scores, qid = grouped(2)
    spec = "ndcg@k:5,ties=worst"
    value = rankcore.evaluate(y, scores, spec, qid=qid)[spec]
    perm = np.random.default_rng(0).permutation(y.shape[0])
    assert rankcore.evaluate(y[perm], scores[perm], spec, qid=qid[perm])[spec] == pytest.approx(value, abs=1e-15)
    for ties in ("first", "average"):
        assert value <= rankcore.evaluate(y, scores, f"ndcg@k:5,ties={ties}", qid=qid)[f"ndcg@k:5,ties={ties}"]
    distinct = np.arange(y.shape[0], dtype=np.float64)                 # without ties the three rules agree
    assert (rankcore.evaluate(y, distinct, spec, qid=qid)[spec]
            == rankcore.evaluate(y, distinct, "ndcg@k:5,ties=first", qid=qid)["ndcg@k:5,ties=first"])


@pytest.mark.parametrize("catboost_spec, spec", [("NDCG:top=5", "ndcg@k:5,convention=catboost"),
                                                 ("NDCG:top=10;type=Exp", "ndcg@k:10,convention=catboost,gain=exp")])
def test_catboost_convention_equals_catboosts_own(catboost_spec, spec):
    utils = pytest.importorskip("catboost.utils")
    y, scores, qid = grouped(3)
    order = np.argsort(qid, kind="stable")                  # CatBoost wants each query's rows together
    theirs = utils.eval_metric(y[order], scores[order], catboost_spec, group_id=qid[order])[0]
    # CatBoost sums in single precision
    assert rankcore.evaluate(y, scores, spec, qid=qid)[spec] == pytest.approx(theirs, abs=1e-6)


def test_a_fit_watches_catboosts_ndcg():
    y, _, qid = grouped(4)
    X = np.column_stack([y + np.random.default_rng(0).normal(size=y.shape[0]), np.arange(y.shape[0]) % 3])
    model = rankcore.boost(learner="trees:max_depth=2", n_iter=5, scoring="ndcg@k:5,convention=catboost",
                           random_state=0).fit(X, y, qid=qid, eval_set=(X, y, qid))
    want = rankcore.evaluate(y, model.decision_function(X), "ndcg@k:5,convention=catboost", qid=qid)
    assert model.validation_scores_[-1] == pytest.approx(want["ndcg@k:5,convention=catboost"], abs=1e-12)


def test_catboosts_metric_name_says_the_convention():
    """CatBoost's ``NDCG:top=10`` names ``convention=catboost``.

    (Before: "did you mean 'ndcg@k'?", which took the user to the default, 2^grade - 1, and another number.)
    """
    y, scores, qid = grouped(5)
    with pytest.raises(rankcore.registry.UnknownComponentError,
                       match=r"unknown metric 'NDCG'; other libraries' NDCG is ndcg@k:K,convention=catboost "
                             r"\(CatBoost's NDCG:top=K takes the grade as the gain"):
        rankcore.evaluate(y, scores, "NDCG:top=10", qid=qid)


@pytest.mark.parametrize("name, ours", [("YetiRank", "'yetirank'"), ("QueryRMSE", "'mp-squared' with fit")])
def test_catboosts_loss_names_name_the_objective(name, ours):
    with pytest.raises(ValueError, match=rf"unknown objective '{name}'; other libraries' {name} is {ours}"):
        rankcore.boost(learner="trees", objective=name).fit(np.zeros((4, 1)), [0, 1, 0, 1], qid=[0, 0, 1, 1])

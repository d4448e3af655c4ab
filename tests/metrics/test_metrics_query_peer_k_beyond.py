"""``convention=sklearn``, ``catboost`` and ``trec_eval`` read each query whole where a count k exceeds every query.

scikit-learn's ``ndcg_score(k=K)``, CatBoost's ``NDCG:top=K`` and trec_eval's ``ndcg_cut.K`` score a query shorter
than K over its rows, as XGBoost and LightGBM do.  (Before, these three conventions refused such a k with
``k_beyond``, so the convention meant to reproduce the library gave no number where the library gives one.)
"""

from __future__ import annotations

import numpy as np
import pytest

import rankcore
from rankcore.metrics import per_query


def short_queries(seed, *, n_queries=25, min_size=1, max_size=6):
    """Queries of ``min_size``..``max_size`` rows, grades 0..3 (some queries all 0), scores with ties."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), rng.integers(min_size, max_size + 1, size=n_queries))
    y = rng.integers(0, 4, size=qid.shape[0]).astype(np.float64)
    y[qid < 3] = 0.0
    scores = rng.integers(0, 3, size=qid.shape[0]).astype(np.float64)
    return y, scores, qid


@pytest.mark.parametrize("seed", [0, 1])
def test_sklearn_convention_equals_ndcg_score_beyond_every_query(seed):
    from sklearn.metrics import ndcg_score
    y, scores, qid = short_queries(seed, min_size=2)        # ndcg_score refuses a one-row query
    got = per_query(y, scores, "ndcg@k:50,convention=sklearn", qid=qid)
    expected = [ndcg_score(y[qid == q][None], scores[qid == q][None], k=50) for q in got.queries]
    np.testing.assert_allclose(got.values, expected, rtol=0, atol=1e-12)
    spec = "ndcg@k:50,convention=sklearn"
    assert rankcore.evaluate(y, scores, spec, qid=qid)[spec] == pytest.approx(np.mean(expected), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_catboost_convention_equals_catboost_beyond_every_query(seed):
    utils = pytest.importorskip("catboost.utils")
    y, scores, qid = short_queries(seed)
    for k in (50, 3):
        expected = utils.eval_metric(y, scores, f"NDCG:top={k}", group_id=qid)[0]
        spec = f"ndcg@k:{k},convention=catboost"
        # CatBoost computes in single precision
        assert rankcore.evaluate(y, scores, spec, qid=qid)[spec] == pytest.approx(expected, abs=1e-6), k


def test_trec_eval_convention_reads_a_short_query_over_its_rows():
    """By hand: ndcg_cut.10 of a 3-row query (linear gain, ties by row order) is its NDCG over the 3 rows."""
    y = np.array([1.0, 0.0, 2.0, 0.0, 0.0])
    scores = np.array([0.9, 0.5, 0.1, 0.3, 0.3])
    qid = np.array([0, 0, 0, 1, 1])                        # query 1 has no relevant row: 0 under trec_eval
    dcg = 1.0 + 0.0 / np.log2(3) + 2.0 / np.log2(4)
    best = 2.0 + 1.0 / np.log2(3)
    spec = "ndcg@k:10,convention=trec_eval"
    assert rankcore.evaluate(y, scores, spec, qid=qid)[spec] == pytest.approx((dcg / best + 0.0) / 2, abs=1e-15)


def test_rankcore_convention_still_refuses():
    y, scores, qid = short_queries(0)
    with pytest.raises(rankcore.MetricRefusal, match="k = 50 is larger than every query") as caught:
        rankcore.evaluate(y, scores, "ndcg@k:50", qid=qid)
    assert caught.value.reason == "k_beyond"


@pytest.mark.parametrize("spec, suggested", [("ndcg@k:10", "ndcg@k:10,convention=lightgbm"),
                                             ("ndcg@k:10,gain=linear", "ndcg@k:10,linear,convention=lightgbm"),
                                             ("ndcg@k:10,convention=rankcore", "ndcg@k:10,convention=lightgbm"),
                                             ("map@k:10", "map@k:10,convention=lightgbm")])
def test_a_k_beyond_every_query_says_the_spec_that_reads_them_whole(spec, suggested):
    # the refusal said "choose k <= 4" alone: a user comparing with LightGBM's ndcg@10 was not told that a
    # convention gives its number; the spec it names is accepted and scores
    y, scores, qid = short_queries(0, min_size=2, max_size=4)
    with pytest.raises(ValueError) as caught:
        rankcore.evaluate(y, scores, spec, qid=qid)
    assert f"choose k <= 4, or pass {suggested!r} to read each shorter query whole as lightgbm does" in str(
        caught.value)
    assert np.isfinite(rankcore.evaluate(y, scores, suggested, qid=qid)[suggested])
    with pytest.raises(ValueError, match=r"choose k <= 4$"):           # prec@k keeps k: no convention to give
        rankcore.evaluate((y > 1).astype(float), scores, "prec@k:10", qid=qid)
    X = np.c_[scores, y + np.random.default_rng(0).normal(size=y.size)]
    with pytest.raises(ValueError, match=rf"eval_metric: .*or pass '{suggested}'"):   # fit's eval_metric alike
        rankcore.boost(n_iter=2, scoring="mrr").fit(X, y, qid=qid, eval_set=[(X, y, qid)], eval_metric=spec)

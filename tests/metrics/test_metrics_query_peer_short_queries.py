"""A peer's convention (``lightgbm``, ``xgboost``) gives the peer's number where a count k exceeds every query.

XGBoost's ``ndcg@100`` and ``map@100`` and LightGBM's ``ndcg``/``map`` at ``eval_at=100`` read each query of
fewer rows whole; rankcore's own convention refuses such a k (it cuts no query).  (Before, every convention
refused it, so the convention meant to reproduce XGBoost gave no number where XGBoost gives one.)
"""

from __future__ import annotations

import numpy as np
import pytest
from _query_data import xgboost_evals

import rankcore


def short_queries(seed, *, n_queries=30, max_size=7):
    """Queries of 1 to ``max_size`` rows (three of one row), graded and 0/1 labels, scores with ties."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, size=n_queries)
    sizes[:3] = 1
    qid = np.repeat(np.arange(n_queries), sizes)
    grades = rng.integers(0, 3, size=qid.shape[0]).astype(np.float64)
    relevant = (rng.random(qid.shape[0]) < 0.3).astype(np.float64)
    scores = rng.integers(0, 4, size=qid.shape[0]).astype(np.float64)
    return grades, relevant, scores, qid


def reference_ndcg(y, scores, qid, k, empty):
    """Plain NDCG@k, exp gain, ties by row, each query cut at min(k, its rows)."""
    values = []
    for q in np.unique(qid):
        g, s = np.exp2(y[qid == q]) - 1, scores[qid == q]
        order, best = np.argsort(-s, kind="stable"), np.sort(g)[::-1]
        cut = min(k, g.shape[0])
        disc = 1 / np.log2(np.arange(cut) + 2)
        ideal = float(best[:cut] @ disc)
        values.append(float(g[order][:cut] @ disc) / ideal if ideal > 0 else empty)
    return float(np.mean(values))


@pytest.mark.parametrize("convention", ["xgboost", "lightgbm"])
@pytest.mark.parametrize("seed", [0, 1])
def test_peer_conventions_read_queries_shorter_than_k_whole(convention, seed):
    grades, relevant, scores, qid = short_queries(seed)
    for k in (100, 8):
        spec = f"ndcg@k:{k},convention={convention}"
        got = rankcore.evaluate(grades, scores, spec, qid=qid)[spec]
        assert got == pytest.approx(reference_ndcg(grades, scores, qid, k, 1.0), abs=1e-12)
        whole = f"ndcg@k:7,convention={convention}"
        assert got == rankcore.evaluate(grades, scores, whole, qid=qid)[whole]
        spec, whole = f"map@k:{k},convention={convention}", f"map@k:7,convention={convention}"
        assert rankcore.evaluate(relevant, scores, spec, qid=qid)[spec] == \
            rankcore.evaluate(relevant, scores, whole, qid=qid)[whole]


def test_one_row_queries_under_the_xgboost_convention():
    qid, scores = np.arange(5), np.zeros(5)
    y = np.array([1.0, 2.0, 0.0, 1.0, 3.0])
    assert rankcore.evaluate(y, scores, "ndcg@k:3,convention=xgboost", qid=qid) == {
        "ndcg@k:3,convention=xgboost": 1.0}
    assert rankcore.evaluate(y, scores, "ndcg@k:3,convention=xgboost,empty=0", qid=qid) == {
        "ndcg@k:3,convention=xgboost,empty=0": 0.8}


@pytest.mark.parametrize("spec", ["ndcg@k:100", "map@k:100", "ndcg@k:100,convention=rankcore", "err@k:100"])
def test_rankcores_own_convention_still_refuses_k_beyond_every_query(spec):
    grades, relevant, scores, qid = short_queries(0)
    with pytest.raises(rankcore.MetricRefusal, match="k = 100 is larger than every query") as caught:
        rankcore.evaluate(relevant if spec.startswith("map") else grades, scores, spec, qid=qid)
    assert caught.value.reason == "k_beyond"


@pytest.mark.parametrize("seed", [0, 1])
def test_xgboost_convention_equals_xgboost_beyond_every_query(seed):
    grades, relevant, scores, qid = short_queries(seed)
    got = xgboost_evals(grades, scores, qid, ["ndcg@100", "ndcg@100-", "ndcg@3"])
    for name, spec in [("ndcg@100", "ndcg@k:100,convention=xgboost"),
                       ("ndcg@100-", "ndcg@k:100,convention=xgboost,empty=0"),
                       ("ndcg@3", "ndcg@k:3,convention=xgboost")]:
        assert rankcore.evaluate(grades, scores, spec, qid=qid)[spec] == pytest.approx(got[name], abs=1e-9), spec
    got = xgboost_evals(relevant, scores, qid, ["map@100", "map@100-"])
    for name, spec in [("map@100", "map@k:100,convention=xgboost"),
                       ("map@100-", "map@k:100,convention=xgboost,empty=0")]:
        assert rankcore.evaluate(relevant, scores, spec, qid=qid)[spec] == pytest.approx(got[name], abs=1e-9), spec


def test_prec_at_k_convention_is_refused_with_the_reason_and_the_recipe():
    """prec@k takes no convention (its compiled, weighted and Dask paths share a tie at place K; XGBoost's pre@K
    orders it by row).  (Before: "unknown parameter(s) convention; expected k", saying neither.)"""
    grades, relevant, scores, qid = short_queries(0)
    with pytest.raises(rankcore.registry.SpecError, match=r"unknown parameter\(s\) convention; prec@k has no "
                                                          r"convention \(XGBoost's pre@K orders a tie by row.*"
                                                          r"k = min\(K, the longest query's rows\).*"
                                                          r"k / min\(k, sizes\).*; expected k$"):
        rankcore.evaluate(relevant, scores, "prec@k:3,convention=xgboost", qid=qid)
    # the recipe the refusal gives is XGBoost's pre@K on untied scores, short and all-zero queries included
    untied = scores + np.arange(scores.shape[0])[::-1] * 1e-6            # row order breaks the ties, as XGBoost
    got = xgboost_evals(relevant, untied, qid, ["pre@3", "pre@5", "pre@100"])
    longest = int(np.bincount(qid).max())
    for K in (3, 5, 100):
        # (before, the recipe said K itself, which prec@k refuses when K passes every query: pre@100 here)
        k = min(K, longest)
        values = rankcore.metrics.per_query(relevant, untied, f"prec@k:{k}", qid=qid)
        assert np.mean(values.values * k / np.minimum(k, values.sizes)) == pytest.approx(got[f"pre@{K}"], abs=1e-9)

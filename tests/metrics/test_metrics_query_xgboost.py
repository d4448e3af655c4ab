"""XGBoost's ranking metrics (``ndcg@k``, ``ndcg@k-``, ``map``, ``map@k``, ``pre@k``) and the specs that give them.

XGBoost's ``ndcg`` and ``map`` order a tie by row and score a query without a
relevant row 1 (0 with the ``-`` suffix); ``ndcg_exp_gain=False`` takes the
grade as the gain; its ``pre@k`` divides by min(k, the query's rows).  Each
number is XGBoost's own, from a booster that adds nothing to the margins.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from _query_data import xgboost_evals

import rankcore
from rankcore.metrics import per_query


def grouped(seed, *, n_queries=40, max_size=25, grades=5):
    """Queries of 1 to ``max_size`` rows, sorted by id as XGBoost wants, with ties and queries without a relevant
    row."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, grades, size=qid.shape[0]).astype(np.float64)
    y[rng.random(qid.shape[0]) < 0.5] = 0
    for q in rng.choice(n_queries, size=5, replace=False):
        y[qid == q] = 0
    scores = rng.integers(0, 6, size=qid.shape[0]).astype(np.float64)   # many ties
    return y, scores, qid


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("exp_gain, gain", [(True, ""), (False, ",gain=linear")])
def test_ndcg_xgboost_convention_equals_xgboost(seed, exp_gain, gain):
    """(Before, ``convention=xgboost`` was refused by ``ndcg@k``, though ``map@k`` took it.)"""
    y, scores, qid = grouped(seed)
    longest = int(np.bincount(qid).max())
    names = ["ndcg@3", "ndcg@3-", "ndcg@10", "ndcg@10-", "ndcg", "ndcg-"]
    got = xgboost_evals(y, scores, qid, names, ndcg_exp_gain=exp_gain)
    for name in names:
        k = name.split("@")[1].rstrip("-") if "@" in name else longest
        spec = f"ndcg@k:{k},convention=xgboost{gain}{',empty=0' if name.endswith('-') else ''}"
        assert rankcore.evaluate(y, scores, spec, qid=qid)[spec] == pytest.approx(got[name], abs=1e-9), spec
    # the default ndcg@k:10 is another number on these ties and empty queries
    assert rankcore.evaluate(y, scores, "ndcg@10", qid=qid)["ndcg@10"] != pytest.approx(got["ndcg@10"], abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_map_xgboost_convention_equals_xgboost(seed):
    """(Before, ``map`` took no ``convention``: XGBoost's ``map`` was ``map:ties=first,empty=1``, said nowhere.)"""
    y, scores, qid = grouped(seed)
    relevant = (y > 0).astype(np.float64)                        # XGBoost's map takes 0/1 labels only
    got = xgboost_evals(relevant, scores, qid, ["map", "map-"])
    for name, spec in [("map", "map:convention=xgboost"), ("map-", "map:convention=xgboost,empty=0")]:
        assert rankcore.evaluate(relevant, scores, spec, qid=qid)[spec] == pytest.approx(got[name], abs=1e-9)
    assert rankcore.evaluate(relevant, scores, "map:convention=xgboost,ties=average", qid=qid) != pytest.approx(
        got["map"], abs=1e-6)                                    # an explicit rule still wins


def test_xgboost_pre_at_k_from_per_query_values():
    """XGBoost's ``pre@k`` divides by min(k, the query's rows): prec@k's values times k / min(k, rows), untied."""
    y, scores, qid = grouped(2)
    relevant = (y > 0).astype(np.float64)
    untied = scores + np.random.default_rng(2).permutation(y.shape[0]) * 1e-6
    got = xgboost_evals(relevant, untied, qid, ["pre@5", "pre@10"])
    for k in (5, 10):
        values = per_query(relevant, untied, f"prec@k:{k}", qid=qid)
        assert np.mean(values.values * k / np.minimum(k, values.sizes)) == pytest.approx(got[f"pre@{k}"], abs=1e-9)
        assert rankcore.evaluate(relevant, untied, f"prec@k:{k}", qid=qid)[f"prec@k:{k}"] < got[f"pre@{k}"] - 0.01


@pytest.mark.parametrize("name, ours", [
    ("ndcg@10-", "ndcg@k:10,convention=xgboost,empty=0"),
    ("ndcg", "ndcg@k:K,convention=xgboost with K the longest query's rows"),
    ("ndcg-", "ndcg@k:K,convention=xgboost,empty=0 with K"),
    ("map@5-", "map@k:5,convention=xgboost,empty=0"),
    ("map-", "map:convention=xgboost,empty=0"),
    ("pre@10", "prec@k:10, with another divisor: XGBoost's pre@K divides a query's hits by min(K, its rows)"),
    ("pre@10-", "prec@k:10, with another divisor"),
    ("pre", "prec@k:K with K the longest query's rows"),
])
def test_xgboosts_metric_names_name_the_spec(name, ours):
    """XGBoost's names that rankcore does not read name the spec giving XGBoost's number.

    (Before: "did you mean 'prec@k'?" or "'ndcg@k'?", whose defaults give other numbers.)
    """
    y, scores, qid = grouped(3)
    with pytest.raises(rankcore.registry.UnknownComponentError,
                       match=re.escape(f"unknown metric '{name}'; other libraries' {name} is {ours}")):
        rankcore.evaluate(y, scores, name, qid=qid)
    spec = ours.split(" ")[0].rstrip(",").replace(":K", ":3")
    labels = (y > 0).astype(np.float64) if spec.startswith("prec") else y
    assert spec in rankcore.evaluate(labels, scores, spec, qid=qid)      # the named spec is one that resolves


@pytest.mark.parametrize("name", ["rank:ndcg", "rank:pairwise", "rank:map"])
def test_xgboosts_ranking_objectives_name_ours(name):
    with pytest.raises(ValueError, match=r"unknown objective 'rank'; other libraries' rank is 'lambdarank' for "
                                         r"rank:ndcg .*'push:logistic,identity' for rank:pairwise"):
        rankcore.boost(learner="trees", objective=name).fit(np.zeros((4, 1)), [0, 1, 0, 1], qid=[0, 0, 1, 1])
    rankcore.resolve("objective", "push:logistic,identity")               # the objective named resolves

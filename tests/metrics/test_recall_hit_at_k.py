"""``recall@k`` and ``hit@k`` per query, against a plain reference that enumerates every order of the ties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import rankcore
from rankcore.metrics import per_query
from rankcore.registry import resolve
from rankcore.spec import SpecError


def _orders(scores, ties):
    """Every order of the rows by descending score (all orders of each tie, or row order alone)."""
    rows = sorted(range(len(scores)), key=lambda i: -scores[i])
    if ties == "first":
        return [rows]
    groups = [list(g) for _, g in itertools.groupby(rows, key=lambda i: scores[i])]
    every = itertools.product(*[list(itertools.permutations(g)) for g in groups])
    return [[i for part in parts for i in part] for parts in every]


def _reference(y, scores, k, ties, denominator="relevant", hit=False):
    """One query's recall@k (or hit@k): the mean over the orders of its ties; None without a relevant row."""
    n_relevant = sum(1 for v in y if v > 0)
    if n_relevant == 0:
        return None
    k = min(k, len(y))
    divisor = n_relevant if denominator == "relevant" else min(n_relevant, k)
    values = []
    for order in _orders(scores, ties):
        found = sum(1 for i in order[:k] if y[i] > 0)
        values.append(float(found > 0) if hit else found / divisor)
    return sum(values) / len(values)


def _random_queries(seed, n_queries=12):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, n_queries)
    qid = np.repeat([f"user-{j}" for j in range(n_queries)], sizes)
    y = rng.choice([0, 0, 0, 1, 2], size=qid.size).astype(float)
    y[qid == "user-0"] = 0.0                                   # a user without a positive
    y[qid == "user-1"] = 1.0                                   # a user who clicked everything
    scores = rng.integers(0, 3, qid.size).astype(float)        # many ties
    order = rng.permutation(qid.size)
    return y[order], scores[order], qid[order]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_recall_and_hit_match_the_enumerated_reference(seed, ties, k):
    y, s, qid = _random_queries(seed)
    for spec, options in [(f"recall@k:{k},ties={ties}", {}), (f"recall@k:{k},ties={ties},denominator=min",
                                                              {"denominator": "min"}),
                          (f"hit@k:{k},ties={ties}", {"hit": True})]:
        got = per_query(y, s, spec, qid=qid)
        for query, value in zip(got.queries, got.values):
            rows = np.flatnonzero(qid == query)
            expected = _reference(list(y[rows]), list(s[rows]), k, ties, **options)
            if expected is None:
                assert np.isnan(value), (spec, query)
            else:
                assert value == pytest.approx(expected, abs=1e-12), (spec, query)
        empty = [q for q in got.queries if not (y[qid == q] > 0).any()]
        assert "user-0" in empty and got.n_left_out == len(empty)      # left out of the mean
        assert got.mean == pytest.approx(np.nanmean(got.values), abs=1e-12)


def test_recall_conventions_on_a_small_example():
    # user a: relevant at places 1 and 3 of 4; user b: no positive; user c: every one of 3 items positive
    y = [1, 0, 2, 0, 0, 0, 1, 1, 1]
    s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    qid = ["a"] * 4 + ["b"] * 2 + ["c"] * 3
    got = rankcore.evaluate(y, s, ["recall@2", "recall@k:2,denominator=min", "hit@1", "recall@2:empty=0"], qid=qid)
    assert got["recall@2"] == pytest.approx((1 / 2 + 2 / 3) / 2)       # b left out; c finds 2 of its 3
    assert got["recall@k:2,denominator=min"] == pytest.approx((1 / 2 + 1) / 2)
    assert got["hit@1"] == 1.0
    assert got["recall@2:empty=0"] == pytest.approx((1 / 2 + 0 + 2 / 3) / 3)
    # a tie of 4 at the top holding 1 relevant row, 2 places read: found with probability 1/2
    assert rankcore.evaluate([1, 0, 0, 0], [1, 1, 1, 1], "hit@2")["hit@2"] == pytest.approx(0.5)
    assert rankcore.evaluate([1, 0, 0, 0], [1, 1, 1, 1], "recall@2")["recall@2"] == pytest.approx(0.5)


def test_recall_and_hit_specs_and_refusals():
    assert resolve("metric", "recall@10").spec == "recall@k:10"
    assert resolve("metric", "hit@10").spec == "hit@k:10"
    assert resolve("metric", "recall@k:3").greater_is_better
    with pytest.raises(SpecError, match="denominator"):
        resolve("metric", "recall@k:3,denominator=k")
    s = np.array([0.3, 0.2, 0.1])
    with pytest.raises(ValueError, match=r"metric 'recall@k:4': k = 4 is larger than the input"):
        rankcore.evaluate([1, 0, 0], s, "recall@k:4")
    with pytest.raises(ValueError, match=r"y: metric 'hit@k:2' is undefined without a relevant row"):
        rankcore.evaluate([0, 0, 0], s, "hit@k:2")
    with pytest.raises(ValueError, match=r"y: metric 'recall@k:2' takes relevance grades >= 0"):
        rankcore.evaluate([1, -1, 0], s, "recall@k:2")


def test_hit_of_a_long_tie_is_finite():
    # C(m - r, t) / C(m, t) for a tie of 5000 rows: computed in logs, no overflow
    y = np.zeros(5000)
    y[:3] = 1
    value = rankcore.evaluate(y, np.zeros(5000), "hit@k:10")["hit@k:10"]
    expected = 1 - np.prod([(4997 - j) / (5000 - j) for j in range(10)])
    assert value == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("ties", ["average", "first"])
def test_recall_counts_whole_rows_exactly(ties):
    # the count was precision@k times k: 15 / 22 * 22 is 1 ulp below 15, so a ranking that finds all 15 relevant
    # rows in its first 22 places scored 0.9999999999999999, and 15 of 16 gave 0.9374999999999999
    for k in range(2, 40):
        for c in range(1, k + 1):
            s = -np.arange(k + 3, dtype=float)
            y = np.zeros(k + 3)
            y[:c] = 1
            spec = f"recall@k:{k},ties={ties}"
            assert rankcore.evaluate(y, s, spec)[spec] == 1.0, (k, c)
            y[-1] = 1                                                # one relevant row past place k
            assert rankcore.evaluate(y, s, spec)[spec] == c / (c + 1), (k, c)

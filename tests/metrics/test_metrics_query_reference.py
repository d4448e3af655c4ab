"""Per-query list metrics (ndcg@k, err@k, map, map@k, mrr, prec@k with qid) against plain Python references.

The reference of a tie convention "average" enumerates every order of every
tie group of a tiny query (itertools) and averages the metric of the strict
orders; "first" sorts stably by score.  Queries are tiny, with many ties,
empty queries (every grade 0) and single rows.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.metrics import per_query


# --------------------------------------------------------------------------
# references on one strict order (grades listed from the top place down)
# --------------------------------------------------------------------------


def _gain(grade, rule):
    if rule == "exp":
        return 2.0 ** grade - 1.0
    if rule == "linear":
        return float(grade)
    return float(rule[int(grade)])


def ndcg_strict(grades, k, gain, all_grades):
    cut = min(k, len(grades))
    got = sum(_gain(g, gain) / math.log2(i + 2) for i, g in enumerate(grades[:cut]))
    best = sorted(all_grades, reverse=True)
    ideal = sum(_gain(g, gain) / math.log2(i + 2) for i, g in enumerate(best[:cut]))
    return got / ideal if ideal > 0 else 0.0


def err_strict(grades, k, top):
    value, keep_going = 0.0, 1.0
    for i, g in enumerate(grades[:k]):
        stop = (2.0 ** g - 1.0) / 2.0 ** top
        value += keep_going * stop / (i + 1)
        keep_going *= 1.0 - stop
    return value


def ap_strict(grades):
    hits, total = 0, 0.0
    for i, g in enumerate(grades):
        if g > 0:
            hits += 1
            total += hits / (i + 1)
    n_relevant = sum(g > 0 for g in grades)
    return total / n_relevant if n_relevant else 0.0


def ap_at_k_strict(grades, k, denominator):
    """AP@k of one strict order: the precision at each relevant row of the first k places, over min(R, k) or R."""
    hits, total = 0, 0.0
    for i, g in enumerate(grades[:k]):
        if g > 0:
            hits += 1
            total += hits / (i + 1)
    n_relevant = sum(g > 0 for g in grades)
    divisor = min(n_relevant, k) if denominator == "min" else n_relevant
    return total / divisor if divisor else 0.0


def rr_strict(grades):
    for i, g in enumerate(grades):
        if g > 0:
            return 1.0 / (i + 1)
    return 0.0


def prec_strict(grades, k):
    return sum(g > 0 for g in grades[:k]) / k


def _orders(grades, scores, ties):
    """Every strict order of the query (grades top first): all tie orders, or the stable one."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])          # stable: row order in a tie
    if ties == "first":
        return [[grades[i] for i in order]]
    blocks = [list(group) for _, group in itertools.groupby(order, key=lambda i: scores[i])]
    return [[grades[i] for block in combo for i in block]
            for combo in itertools.product(*(itertools.permutations(b) for b in blocks))]


def reference(metric, grades, scores, *, k=None, ties="average", empty="skip", gain="exp", top=None,
              denominator="min"):
    """The metric's value on one query: the mean over the strict orders of the tie convention."""
    if k is not None and k < 1:                                    # a fraction of the query's rows
        k = max(1, math.floor(k * len(grades) + 0.5))
    if not any(g > 0 for g in grades) and metric != "prec":
        return {"skip": math.nan, "0": 0.0, "1": 1.0}[empty]
    one = {
        "ndcg": lambda order: ndcg_strict(order, k, gain, grades),
        "err": lambda order: err_strict(order, k, top),
        "map": ap_strict,
        "map@k": lambda order: ap_at_k_strict(order, k, denominator),
        "mrr": rr_strict,
        "prec": lambda order: prec_strict(order, k),
    }[metric]
    orders = _orders(list(grades), list(scores), ties)
    return sum(one(o) for o in orders) / len(orders)


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------


def tiny_queries(seed, *, n_queries=12, max_size=6, grades=4, float_grades=False):
    """Rows of tiny queries in shuffled order: many ties, some all-zero queries, some single rows."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, sizes)           # ids neither 0..Q-1 nor sorted by first row
    y = rng.integers(0, grades, size=qid.shape[0]).astype(np.float64)
    if float_grades:
        y = y * 0.75
    y[qid == qid[0]] = 0.0                                         # one query without a relevant row
    scores = rng.integers(0, 3, size=qid.shape[0]).astype(np.float64)
    perm = rng.permutation(qid.shape[0])
    return y[perm], scores[perm], qid[perm]


def _by_query(y, scores, qid):
    """Each query's (grades, scores) in row order, queries by sorted id."""
    return [(y[qid == q].tolist(), scores[qid == q].tolist()) for q in np.unique(qid)]


CASES = [
    ("ndcg@k:3", "ndcg", dict(k=3)),
    ("ndcg@k:6", "ndcg", dict(k=6)),
    ("ndcg@k:0.5", "ndcg", dict(k=0.5)),
    ("ndcg@k:2,linear,first,0", "ndcg", dict(k=2, gain="linear", ties="first", empty="0")),
    ("ndcg@k:4,gain=0/1/5/6,empty=1", "ndcg", dict(k=4, gain=[0, 1, 5, 6], empty="1")),
    ("ndcg@k:3,convention=lightgbm", "ndcg", dict(k=3, ties="first", empty="1")),
    ("ndcg@k:3,convention=sklearn", "ndcg", dict(k=3, gain="linear", empty="0")),
    ("err@k:3", "err", dict(k=3, top=3)),
    ("err@k:6,ties=first,max_grade=5", "err", dict(k=6, ties="first", top=5)),
    ("map", "map", {}),
    ("map:first,0", "map", dict(ties="first", empty="0")),
    ("mrr", "mrr", {}),
    ("mrr:ties=first,empty=1", "mrr", dict(ties="first", empty="1")),
    ("map@k:1", "map@k", dict(k=1)),
    ("map@k:3", "map@k", dict(k=3)),
    ("map@k:6,denominator=relevant", "map@k", dict(k=6, denominator="relevant")),
    ("map@k:0.5,empty=0", "map@k", dict(k=0.5, empty="0")),
    ("map@k:2,first,1,relevant", "map@k", dict(k=2, ties="first", empty="1", denominator="relevant")),
    ("map@3:convention=lightgbm", "map@k", dict(k=3, ties="first", empty="1")),
    ("map@k:4,convention=xgboost,empty=0", "map@k", dict(k=4, ties="first", empty="0")),
]


@pytest.mark.parametrize("spec,metric,options", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_query_metrics_equal_the_tie_enumeration(spec, metric, options, seed):
    y, scores, qid = tiny_queries(seed)
    got = per_query(y, scores, spec, qid=qid)
    expected = [reference(metric, g, s, **options) for g, s in _by_query(y, scores, qid)]
    np.testing.assert_allclose(got.values, expected, rtol=0, atol=1e-12, equal_nan=True)
    counted = ~np.isnan(np.asarray(expected))
    assert got.n_counted == int(counted.sum()) and got.n_left_out == int((~counted).sum())
    assert rankcore.evaluate(y, scores, spec, qid=qid)[spec] == pytest.approx(np.nanmean(expected), abs=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_query_metrics_take_float_grades_without_a_cap(seed):
    y, scores, qid = tiny_queries(seed, grades=40, float_grades=True)   # grades up to 29.25, not integers
    for spec, metric, options in [("ndcg@k:3", "ndcg", dict(k=3)), ("err@k:4", "err", dict(k=4, top=y.max())),
                                  ("map", "map", {}), ("mrr", "mrr", {}), ("map@k:3", "map@k", dict(k=3))]:
        expected = [reference(metric, g, s, **options) for g, s in _by_query(y, scores, qid)]
        np.testing.assert_allclose(per_query(y, scores, spec, qid=qid).values, expected, rtol=1e-12, atol=1e-12,
                                   equal_nan=True)


@pytest.mark.parametrize("spec,k", [("prec@k:3", 3), ("prec@k:6", 6)])
def test_prec_at_k_per_query_keeps_k_as_the_denominator(spec, k):
    y, scores, qid = tiny_queries(5)
    labels = (y > 0).astype(int)
    expected = [reference("prec", g, s, k=k) for g, s in _by_query(labels, scores, qid)]
    np.testing.assert_allclose(per_query(labels, scores, spec, qid=qid).values, expected, atol=1e-12)


def test_single_list_metrics_are_averaged_over_the_queries_they_are_defined_on():
    y, scores, qid = tiny_queries(6)
    labels = (y > 1).astype(int)
    got = per_query(labels, scores, "auc", qid=qid)
    for q, value in zip(got.queries, got.values):
        rows = qid == q
        if labels[rows].min() == labels[rows].max():
            assert math.isnan(value)                               # one class: left out, counted
        else:
            assert value == rankcore.metrics.auc(labels[rows], scores[rows])
    assert got.n_left_out > 0
    assert rankcore.evaluate(labels, scores, ["auc"], qid=qid)["auc"] == np.nanmean(got.values)


def test_large_ties_are_exact_against_a_closed_form():
    # one tie of 200 rows: every order equally likely, so ERR@k and RR have closed forms
    y = np.r_[np.ones(3), np.zeros(197)]
    scores = np.zeros(200)
    rr = rankcore.evaluate(y, scores, "mrr")["mrr"]
    expected = sum(math.comb(200 - j, 2) / math.comb(200, 3) / j for j in range(1, 199))
    assert rr == pytest.approx(expected, rel=1e-12)
    err = rankcore.evaluate(y, scores, "err@k:10")["err@k:10"]      # R = 1/2 for the three relevant rows
    stop = [0.5, 0.5, 0.5]
    value = 0.0
    for t in range(10):        # P(a relevant row at place t+1 after j relevant above) over the random order
        for j in range(min(t, 2) + 1):
            above = math.comb(3, j) * math.comb(197, t - j) / math.comb(200, t)
            here = (3 - j) / (200 - t)
            value += above * here * stop[0] * 0.5 ** j / (t + 1)
    assert err == pytest.approx(value, rel=1e-12)


def test_map_at_k_of_a_large_tie_equals_its_expectation():
    # one tie of 200 rows, 3 relevant: P(place i relevant) = 3/200 and, given it, E[relevant above] = (i-1)·2/199
    y = np.r_[np.ones(3), np.zeros(197)]
    value = rankcore.evaluate(y, np.zeros(200), "map@k:10")["map@k:10"]
    expected = sum(3 / 200 * (1 + (i - 1) * 2 / 199) / i for i in range(1, 11)) / 3
    assert value == pytest.approx(expected, rel=1e-12)
    assert rankcore.evaluate(y, np.zeros(200), "map@k:200")["map@k:200"] == pytest.approx(
        rankcore.evaluate(y, np.zeros(200), "map")["map"], rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=14),
       k=st.integers(1, 4))
def test_query_metrics_equal_the_tie_enumeration_on_any_tiny_data(data, k):
    """(grade, score, query) rows of up to three tiny queries: every metric equals the enumeration of tie orders."""
    y = np.array([row[0] for row in data], dtype=np.float64)
    scores = np.array([row[1] for row in data], dtype=np.float64)
    qid = np.array([row[2] for row in data])
    if max(np.bincount(qid)) < k or not (y > 0).any():
        return                                                     # k > every query, no counted query: errors
    queries = _by_query(y, scores, qid)
    top = float(y.max())
    for spec, metric, options in [(f"ndcg@k:{k}", "ndcg", dict(k=k)), (f"err@k:{k}", "err", dict(k=k, top=top)),
                                  ("map", "map", {}), ("mrr", "mrr", {}), (f"map@k:{k}", "map@k", dict(k=k)),
                                  (f"map@k:{k},denominator=relevant", "map@k", dict(k=k, denominator="relevant"))]:
        expected = [reference(metric, g, s, **options) for g, s in queries]
        np.testing.assert_allclose(per_query(y, scores, spec, qid=qid).values, expected, rtol=0, atol=1e-12,
                                   equal_nan=True, err_msg=spec)


def ndcg_big_grades(grades, scores, k, ties):
    """NDCG@k of one query with 2^g − 1 held exactly (Python integers), each divided by the query's largest as a
    Fraction before it meets the float discounts: no sum can overflow."""
    from fractions import Fraction

    top = max(2 ** int(g) - 1 for g in grades)
    if top == 0:
        return math.nan

    def dcg(order):
        return sum(float(Fraction(2 ** int(g) - 1, top)) / math.log2(i + 2) for i, g in enumerate(order[:k]))

    orders = _orders(list(grades), list(scores), ties)
    return sum(dcg(o) for o in orders) / len(orders) / dcg(sorted(grades, reverse=True))


@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ndcg_of_grades_near_1023_is_finite_and_exact(ties, seed):
    # 2^g - 1 for g near 1023 is finite, but a sum of a few such gains is not: the sums must be of scaled gains
    rng = np.random.default_rng(seed)
    y, scores, qid = tiny_queries(seed, n_queries=15, max_size=6)
    y = np.where(rng.random(y.shape[0]) < 0.6, rng.integers(1015, 1024, y.shape[0]), y)
    for k in (1, 3, 6):
        spec = f"ndcg@k:{k},ties={ties}"
        got = per_query(y, scores, spec, qid=qid)
        expected = [ndcg_big_grades(g, s, k, ties) for g, s in _by_query(y, scores, qid)]
        np.testing.assert_allclose(got.values, expected, rtol=1e-12, atol=1e-15, equal_nan=True)
        assert np.all((got.values[~np.isnan(got.values)] >= 0) & (got.values[~np.isnan(got.values)] <= 1))


@pytest.mark.parametrize("y, scores, spec, value", [
    ([1023, 1023, 1023, 0], [1, 2, 3, 4], "ndcg@4", 0.7328286204777911),
    ([1022] * 5, [1] * 5, "ndcg@1", 1.0),
    ([1.7e308, 1.7e308, 0], [3, 2, 1], "ndcg@3:gain=linear", 1.0),
])
def test_ndcg_of_huge_gains_on_one_list(y, scores, spec, value):
    assert rankcore.evaluate(y, scores, spec)[spec] == pytest.approx(value, rel=1e-12)

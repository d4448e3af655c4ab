"""The list metrics bound to their labels (validation after every iteration) and the sorts inside query blocks.

* ``rank_queries`` (a compiled sort inside each query's block, NumPy's stable sort for long queries) gives, field
  by field, the :class:`Ranking` of the global stable sort by (query, score descending) it replaces -- so every
  metric reading it is unchanged to the bit -- whatever the ties, signed zeros, query lengths and threads.
* A bound scorer (``QueryMetric.bind_queries``, ``query_scorer``) gives ``rankcore.evaluate(..., qid=)``'s
  value bit for bit, for every metric and convention, called again and again on new scores.
* ``running_sums_within`` against a plain loop; ``err@k`` of every query against an exact product per query
  on a million rows, whatever the rows before it (it once drifted with them).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.metrics import Queries, check_qid, per_query
from rankcore.metrics._query_blocks import running_sums_within
from rankcore.metrics._query_kernels import QueryBlocks, Ranking, ideal_dcg, rank_queries
from rankcore.push._scoring import MetricScoring, query_scorer
from rankcore.registry import resolve

#: Every list metric and convention (with qid), and prec@k, which shares the ranking.
SPECS = ["ndcg@k:10", "ndcg@k:3,ties=first", "ndcg@k:5,empty=0", "ndcg@k:5,empty=1", "ndcg@k:0.5,convention=lightgbm",
         "ndcg@k:2,convention=sklearn", "ndcg@k:4,convention=trec_eval", "ndcg@k:3,gain=0/1/3/7/15",
         "ndcg@k:1,gain=linear", "err@k:10", "err@k:3,ties=first", "err@k:5,max_grade=4,empty=0", "err@k:0.3",
         "map", "map:ties=first,empty=0", "map:empty=1", "map@k:3", "map@k:5,convention=lightgbm",
         "map@k:0.5,ties=first,empty=0,denominator=relevant", "map@k:2,convention=xgboost", "mrr",
         "mrr:ties=first,empty=0", "mrr:empty=1"]


def _global_ranking(scores: np.ndarray, queries: Queries) -> Ranking:
    """The ranking as one global stable sort by (query, score descending) builds it (the form replaced)."""
    order = np.lexsort((-scores, queries.codes))
    query = queries.codes[order]
    position = np.arange(order.shape[0], dtype=np.int64) - queries.starts[query]
    ranked = scores[order]
    new_group = np.ones(order.shape[0], dtype=bool)
    new_group[1:] = (ranked[1:] != ranked[:-1]) | (query[1:] != query[:-1])
    group_first = np.flatnonzero(new_group)
    group_size = np.diff(np.append(group_first, order.shape[0]))
    return Ranking(order, query, position, np.cumsum(new_group) - 1, group_first, group_size, query[group_first],
                   position[group_first], queries.n_queries)


def _scores(rng, n: int, kind: int) -> np.ndarray:
    if kind == 0:
        return rng.normal(size=n)
    if kind == 1:
        return rng.integers(0, 3, n).astype(float)          # many ties
    if kind == 2:
        s = np.round(rng.normal(size=n), 1)
        s[rng.random(n) < 0.3] = 0.0
        s[rng.random(n) < 0.3] = -0.0                       # equal to 0.0: one tie group
        return s
    return np.zeros(n)


def _case(seed: int):
    """(y, scores, qid): up to 40 interleaved queries of 1-24 rows (some of 1-199), ties, queries of grade 0."""
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 40))
    sizes = rng.integers(1, 200 if seed % 7 == 0 else 25, n_queries)
    sizes[rng.integers(0, n_queries)] = max(int(sizes.max()), 5)
    qid = np.repeat(np.arange(n_queries) * 7 % 101, sizes)
    if seed % 3:
        qid = qid[rng.permutation(qid.shape[0])]
    y = rng.integers(0, int(rng.integers(1, 6)) + 1, qid.shape[0]).astype(float)
    if seed % 4 == 0:
        y = y * rng.random(qid.shape[0])                    # float grades
    for q in rng.choice(np.unique(qid), size=min(3, n_queries), replace=False):
        if rng.random() < 0.5:
            y[qid == q] = 0.0                               # a query without a relevant row
    return y, _scores(rng, qid.shape[0], seed % 4), qid


def _same_ranking(got: Ranking, expected: Ranking) -> None:
    for field in ("order", "query", "position", "group", "group_first", "group_size", "group_query",
                  "group_place"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field), err_msg=field)
    assert got.n_queries == expected.n_queries


@pytest.mark.parametrize("seed", range(40))
def test_ranking_within_blocks_is_the_global_sorts(seed):
    y, s, qid = _case(seed)
    queries = check_qid(qid, qid.shape[0])
    expected = _global_ranking(s, queries)
    _same_ranking(rank_queries(s, queries), expected)
    _same_ranking(rank_queries(s, queries, blocks=QueryBlocks.of(queries), n_threads=2), expected)


def test_long_queries_and_many_rows_sort_as_the_global_sort():
    """Queries past the compiled sort's length (NumPy's there), beside short ones, over the threads' threshold."""
    rng = np.random.default_rng(3)
    sizes = np.concatenate([[9000, 4097, 4096], rng.integers(1, 30, 6000)])
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)[rng.permutation(int(sizes.sum()))]
    queries = check_qid(qid, qid.shape[0])
    for kind in range(4):
        s = _scores(rng, qid.shape[0], kind)
        expected = _global_ranking(s, queries)
        for threads in (1, 2):
            _same_ranking(rank_queries(s, queries, n_threads=threads), expected)


def test_nan_scores_keep_numpys_order():
    queries = check_qid(np.array([0, 1, 0, 1, 0]), 5)
    s = np.array([0.5, np.nan, np.nan, 1.0, 0.5])
    _same_ranking(rank_queries(s, queries), _global_ranking(s, queries))


def test_ideal_dcg_by_blocks():
    rng = np.random.default_rng(1)
    for seed in range(20):
        y, _, qid = _case(seed)
        queries = check_qid(qid, qid.shape[0])
        gains = np.expm1(y * np.log(2.0))
        k = np.minimum(int(rng.integers(1, 12)), queries.sizes)
        order = np.lexsort((-gains, queries.codes))
        place = np.arange(order.shape[0]) - queries.starts[queries.codes[order]]
        read = place < k[queries.codes[order]]
        weights = np.where(read, gains[order] * (1.0 / np.log2(place + 2.0)), 0.0)
        expected = np.bincount(queries.codes[order], weights=weights, minlength=queries.n_queries)
        np.testing.assert_array_equal(ideal_dcg(gains, queries, k), expected)
        np.testing.assert_array_equal(ideal_dcg(gains, queries, k, QueryBlocks.of(queries)), expected)


@pytest.mark.parametrize("spec", SPECS)
def test_bound_scorer_is_evaluate_bit_for_bit(spec):
    metric = resolve("metric", spec)
    for seed in range(30):
        y, s, qid = _case(seed)
        queries = check_qid(qid, qid.shape[0])
        try:
            expected = rankcore.evaluate(y, s, [spec], qid=qid)[spec]
        except ValueError as exc:          # k above every query, no query counted: the scorer says the same
            with pytest.raises(ValueError, match=str(exc).split(":")[0]):
                query_scorer(metric, y, queries)(s)
            continue
        score = query_scorer(metric, y, queries, n_threads=2)
        values = metric.bind_queries(y, queries)
        rng = np.random.default_rng(seed)
        assert score(s) == expected
        np.testing.assert_array_equal(values(s), per_query(y, s, spec, qid=qid).values)
        for kind in range(4):               # called again on other scores: nothing of the last call is kept
            other = _scores(rng, s.shape[0], kind)
            assert score(other) == rankcore.evaluate(y, other, [spec], qid=qid)[spec]


def test_validation_scoring_binds_the_list_metrics():
    """What a fit's eval_set scores by: the default ndcg@k:10 (lowered to the largest query) and a named metric."""
    y, s, qid = _case(5)
    queries = check_qid(qid, qid.shape[0])
    largest = int(queries.sizes.max())
    spec = f"ndcg@k:{min(10, largest)}"
    default = MetricScoring(resolve("metric", "ndcg@k:10"), default=True).bind(y, queries=queries, n_threads=2)
    assert default(s) == rankcore.evaluate(y, s, [spec], qid=qid)[spec]
    named = MetricScoring(resolve("metric", "map@k:3")).bind(y, queries=queries)
    assert named(s) == rankcore.evaluate(y, s, ["map@k:3"], qid=qid)["map@k:3"]


def _running_sums(values: np.ndarray, run: np.ndarray) -> np.ndarray:
    out, total = np.empty(values.shape[0]), 0.0
    for i in range(values.shape[0]):
        if i and run[i] != run[i - 1]:
            total = 0.0
        out[i] = total
        total += values[i]
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.floats(-1e6, 1e6, allow_nan=False)), max_size=40))
def test_running_sums_within_runs(items):
    run = np.cumsum([1] + [label for label, _ in items[1:]]).astype(np.int64) if items else np.zeros(0, np.int64)
    values = np.array([v for _, v in items], dtype=np.float64)
    out = np.empty(values.shape[0])
    running_sums_within(values, run, out)
    np.testing.assert_array_equal(out, _running_sums(values, run))


def _err_by_products(y: np.ndarray, s: np.ndarray, sizes: np.ndarray, k: int) -> np.ndarray:
    """ERR@k of contiguous queries (ties by row), each a plain product of its own rows' continue probabilities."""
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    codes = np.repeat(np.arange(sizes.shape[0]), sizes)
    order = np.lexsort((-s, codes))
    stop = (np.exp2(y) - 1.0) / np.exp2(y.max())
    value, keep_going = np.zeros(sizes.shape[0]), np.ones(sizes.shape[0])
    for place in range(min(k, int(sizes.max()))):
        there = sizes > place
        rows = order[starts[there] + place]
        value[there] += keep_going[there] * stop[rows] / (place + 1)
        keep_going[there] *= 1.0 - stop[rows]
    return value


@pytest.mark.slow
def test_err_of_a_query_does_not_drift_with_the_rows_before_it():
    """A million rows in 180,000 queries: every query's err@k at 1e-12 of its own product, the last as the first."""
    rng = np.random.default_rng(0)
    sizes = rng.integers(2, 11, 180_000)
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    y = np.round(rng.uniform(0, 4, qid.shape[0]))
    s = rng.normal(size=qid.shape[0])
    got = per_query(y, s, "err@k:10,ties=first", qid=qid).values
    expected = _err_by_products(y, s, sizes, 10)
    counted = expected > 0
    error = np.abs(got[counted] - expected[counted]) / expected[counted]
    assert error.max() < 1e-12

"""``misrank`` per query (``qid``): the compiled counts against a pair-by-pair reference and the per-query loop.

``Misrank.query_values`` counts every query's misranked pairs in one compiled
pass (``rankcore.metrics._misrank.misranked_pairs_by_query``).  Here it is
compared with a plain O(n_q²) count of the pairs of each query and with
``Metric.query_values`` (the metric called on each query's rows): equal, NaN
where a query has one grade; ties in grades and scores, one-row queries,
shuffled ids, and 1 against 2 threads.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.metrics import Metric, check_qid, per_query
from rankcore.metrics._graded import misrank_counts_by_query
from rankcore.metrics._misrank import misranked_pairs_by_query


def pair_by_pair(y, scores, qid):
    """(misranked, pairs) of each query in sorted id order, by visiting every pair."""
    mis, pairs = [], []
    # each query's rows, found once by a stable sort of the ids (not by comparing every id with each query's)
    ids, codes = np.unique(qid, return_inverse=True)
    by_query = np.split(np.argsort(codes, kind="stable"), np.cumsum(np.bincount(codes, minlength=ids.size))[:-1])
    for rows in by_query:
        yq, sq = y[rows], scores[rows]
        above = yq[:, None] > yq[None, :]
        pairs.append(int(above.sum()))
        mis.append(int((above & (sq[:, None] <= sq[None, :])).sum()))
    return np.array(mis), np.array(pairs)


def _data(rng, n_queries, max_size, grades=3, score_levels=5):
    qid = np.repeat(np.arange(n_queries), rng.integers(1, max_size + 1, n_queries))
    qid = rng.permutation(qid).astype(str)               # shuffled, not contiguous, string ids
    y = rng.integers(0, grades, qid.size).astype(np.float64)
    scores = rng.integers(0, score_levels, qid.size).astype(np.float64)
    return y, scores, qid


@pytest.mark.parametrize("seed", range(6))
def test_misrank_counts_per_query_equal_the_pairs(seed):
    rng = np.random.default_rng(seed)
    y, scores, qid = _data(rng, 40, 15 if seed % 2 else 60)
    mis, pairs = misrank_counts_by_query(y, scores, check_qid(qid, qid.size))
    ref_mis, ref_pairs = pair_by_pair(y, scores, qid)
    np.testing.assert_array_equal(mis, ref_mis)
    np.testing.assert_array_equal(pairs, ref_pairs)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_misrank_per_query_is_the_metric_on_each_query(data):
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y, scores, qid = _data(rng, data.draw(st.integers(1, 12)), data.draw(st.integers(1, 9)),
                           grades=data.draw(st.integers(1, 4)), score_levels=data.draw(st.integers(1, 6)))
    queries = check_qid(qid, qid.size)
    metric = rankcore.resolve("metric", "misrank")
    compiled = metric.query_values(y, scores, queries)
    np.testing.assert_array_equal(compiled, Metric.query_values(metric, y, scores, queries))
    one_grade = np.array([np.unique(y[qid == q]).size == 1 for q in queries.labels])
    np.testing.assert_array_equal(np.isnan(compiled), one_grade)


def test_misrank_with_qid_in_evaluate_and_the_signed_zero_and_float_grades():
    y = np.array([0.5, 2.25, 2.25, 0.0, 1.0, 1.0])
    scores = np.array([0.0, -0.0, 1.0, 3.0, 2.0, 2.0])
    qid = np.array([1, 1, 1, 2, 2, 2])
    # query 1: pairs (2.25 > 0.5) twice, the tie -0.0 <= 0.0 misranked once; query 2: 1.0 > 0.0 twice, both misranked
    values = per_query(y, scores, "misrank", qid=qid).values
    np.testing.assert_array_equal(values, [0.5, 1.0])
    assert rankcore.evaluate(y, scores, metrics=["misrank"], qid=qid)["misrank"] == 0.75


def test_misrank_counts_do_not_depend_on_the_threads():
    rng = np.random.default_rng(9)
    y, scores, qid = _data(rng, 3000, 40)
    queries = check_qid(qid, qid.size)
    order = np.lexsort((y, queries.codes))               # each query's rows, grades ascending
    rank = np.empty(qid.size, dtype=np.int64)
    by_query = np.split(np.argsort(queries.codes, kind="stable"), np.cumsum(queries.sizes)[:-1])
    for rows in by_query:                                 # each row's dense score rank within its query
        rank[rows] = np.unique(scores[rows], return_inverse=True)[1].reshape(-1)
    starts = np.concatenate([[0], np.cumsum(queries.sizes)[:-1]]).astype(np.int64)
    results = []
    for threads in (1, 2):
        mis, pairs = np.zeros(queries.n_queries, np.int64), np.zeros(queries.n_queries, np.int64)
        misranked_pairs_by_query(y[order], np.ascontiguousarray(rank[order], dtype=np.int64), starts,
                                 queries.sizes.astype(np.int64), mis, pairs, threads)
        results.append((mis, pairs))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    ref_mis, ref_pairs = pair_by_pair(y, scores, qid)
    np.testing.assert_array_equal(results[0][0], ref_mis)
    np.testing.assert_array_equal(results[0][1], ref_pairs)


@pytest.mark.parametrize("change, message", [
    (lambda a: a.update(rank=np.array([0, 3], dtype=np.int64)), r"rank 3 outside \[0, 2\) in query 0"),
    (lambda a: a.update(rank=np.array([0, -1], dtype=np.int64)), r"rank -1 outside"),
    (lambda a: a.update(sizes=np.array([3], dtype=np.int64)), "query 0 runs outside the 2 rows"),
    (lambda a: a.update(pairs=np.zeros(2, dtype=np.int64)), "inconsistent shapes"),
])
def test_misranked_pairs_by_query_refuses_inconsistent_input(change, message):
    args = dict(y_sorted=np.array([0.0, 1.0]), rank=np.array([1, 0], dtype=np.int64),
                starts=np.array([0], dtype=np.int64), sizes=np.array([2], dtype=np.int64),
                misranked=np.zeros(1, dtype=np.int64), pairs=np.zeros(1, dtype=np.int64))
    change(args)
    with pytest.raises(ValueError, match=message):
        misranked_pairs_by_query(args["y_sorted"], args["rank"], args["starts"], args["sizes"], args["misranked"],
                                 args["pairs"])

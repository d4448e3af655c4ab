"""Intervals over queries at their edges: one counted query, queries of one value."""

import numpy as np
import pytest

from rankcore.metrics import compare, confidence_interval


def test_one_counted_query_is_no_interval():
    # its replicates all repeat it: a zero-width interval and p = 0 from compare
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 12).astype(float)
    s = rng.normal(size=12)
    with pytest.raises(ValueError, match="needs at least two counted queries, got 1 of 1"):
        confidence_interval(y, s, "ndcg@k:3", qid=np.zeros(12))
    with pytest.raises(ValueError, match="needs at least two counted queries, got 1 of 3"):
        qid = np.repeat([0, 1, 2], 4)
        compare(np.where(qid == 0, y, 0.0), s, -s, "ndcg@k:3", qid=qid)


@pytest.mark.parametrize("metric", ["ndcg@k:3", "prec@k:3", "ks", "map"])
def test_queries_of_one_value_give_an_interval_at_the_estimate(metric):
    # the replicates, (w @ values) / w.sum(), rounded off np.mean's estimate: the interval missed it
    one = (np.array([1.0, 0.0, 2.0, 0.0, 1.0]), np.array([0.3, 0.9, 0.1, 0.5, 0.2]))
    y, s = np.tile(one[0], 30), np.tile(one[1], 30)
    qid = np.repeat(np.arange(30), 5)
    if metric in ("prec@k:3", "ks"):
        y = (y > 0).astype(float)
    ci = confidence_interval(y, s, metric, qid=qid, n_boot=200, random_state=0)
    assert ci.lower == ci.estimate == ci.upper

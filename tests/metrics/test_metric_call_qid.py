"""A metric object called with ``qid=`` (or ``group=``) is the mean over the queries, as ``rankcore.evaluate``'s:
``NDCG(k=10)(y, s, qid=qid)`` is how an evaluator calls it first, and it was Python's unknown-keyword TypeError."""

import numpy as np
import pytest

import rankcore
from rankcore.metrics import AUC, NDCG, MeanReciprocalRank


Y = np.array([2, 0, 1, 0, 1, 0, 3])
S = np.array([0.3, 0.2, 0.5, 0.5, 0.1, 0.4, 0.4])
QID = np.array(["b", "b", "c", "c", "c", "a", "a"])     # not sorted


def test_ndcg_with_qid_is_the_mean_over_queries():
    # by hand, ties averaged: a = [3, 0] tied -> (7 + 7 / log2 3) / 2 / 7; b = [2 first] -> 1;
    # c = [1, 0] tied at places 1 and 2, the other 1 at place 3, past k -> half the best DCG@2
    log3 = np.log2(3)
    a = (1 + 1 / log3) / 2
    c = 0.5
    assert NDCG(k=2)(Y, S, qid=QID) == pytest.approx((a + 1 + c) / 3, abs=1e-12)
    assert NDCG(k=2)(Y, S, qid=QID) == pytest.approx(rankcore.evaluate(Y, S, "ndcg@k:2", qid=QID)["ndcg@k:2"])


def test_mrr_with_group_sizes():
    group = [2, 3, 2]
    expected = rankcore.evaluate(Y, S, "mrr", group=group)["mrr"]
    assert MeanReciprocalRank()(Y, S, group=group) == pytest.approx(expected)


def test_bipartite_metric_with_qid_leaves_out_one_class_queries():
    y01 = (Y > 0).astype(int)
    assert AUC()(y01, S, qid=QID) == pytest.approx(rankcore.evaluate(y01, S, "auc", qid=QID)["auc"])


def test_without_qid_the_rows_are_one_list():
    assert NDCG(k=2)(Y, S) == pytest.approx(rankcore.evaluate(Y, S, "ndcg@k:2")["ndcg@k:2"])


def test_a_non_scalar_metric_with_qid_is_refused():
    with pytest.raises(ValueError, match="qid"):
        rankcore.resolve("metric", "roc")((Y > 0).astype(int), S, qid=QID)

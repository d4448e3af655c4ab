"""``ndcg@k`` with a gain table that gives a grade > 0 no gain: a query whose rows all have gain 0.

No order of such a query gains anything (its best DCG is 0, so NDCG is 0/0):
it follows the ``empty`` rule as a query without a relevant row does, as
LightGBM's ``label_gain`` does (a query of best DCG 0 scores 1 there).
"""

from __future__ import annotations

import numpy as np
import pytest

import rankcore
from rankcore.metrics import check_queries, per_query

# query 0: grades 1, 1, 0 -- gain 0 everywhere under 0/0/3; query 1: a grade 2 placed second of 2 read
Y = np.array([1.0, 1.0, 0.0, 2.0, 0.0, 1.0])
S = np.array([3.0, 2.0, 1.0, 1.0, 2.0, 0.0])
QID = np.repeat([0, 1], 3)
SECOND = 3.0 / np.log2(3.0) / 3.0           # query 1: gain 3 at place 2 over gain 3 at place 1


@pytest.mark.parametrize("empty, expected", [("", [np.nan, SECOND]), ("0", [0.0, SECOND]), ("1", [1.0, SECOND])])
def test_a_query_of_zero_gains_follows_the_empty_rule(empty, expected):
    spec = "ndcg@k:2,gain=0/0/3" + (f",empty={empty}" if empty else "")
    got = per_query(Y, S, spec, qid=QID)
    np.testing.assert_allclose(got.values, expected, rtol=0, atol=1e-15)
    assert got.n_left_out == (1 if not empty else 0)
    # the bound scorer of a fit's validation set gives the same values
    metric = rankcore.resolve("metric", spec)
    bound = metric.bind_queries(Y, check_queries(QID, None, Y.shape[0]))
    np.testing.assert_allclose(bound(S), expected, rtol=0, atol=1e-15)


def test_a_single_list_of_zero_gains_is_refused_as_one_without_a_relevant_row():
    with pytest.raises(rankcore.MetricRefusal) as info:
        rankcore.evaluate([1.0, 1.0, 0.0], [3.0, 2.0, 1.0], "ndcg@k:2,gain=0/0/3")
    assert info.value.reason == "no_query"
    # the grades are 1, 1, 0: the message said "every grade is 0", sending the user to look at the labels
    assert "every grade is 0" not in str(info.value) and "gain > 0 in its gain table" in str(info.value)
    with pytest.raises(rankcore.MetricRefusal, match=r"every grade is 0"):
        rankcore.evaluate([0.0, 0.0], [1.0, 2.0], "ndcg@k:2,gain=0/0/3")
    assert rankcore.evaluate([1.0, 1.0, 0.0], [3.0, 2.0, 1.0], "ndcg@k:2,gain=0/0/3,empty=1") == {
        "ndcg@k:2,gain=0/0/3,empty=1": 1.0}


def test_lightgbm_convention_with_a_gain_table_equals_lightgbm_label_gain():
    lgb = pytest.importorskip("lightgbm")
    X = np.zeros((Y.shape[0], 1))
    train = lgb.Dataset(X, label=Y, group=[3, 3], init_score=S)
    valid = lgb.Dataset(X, label=Y, group=[3, 3], init_score=S, reference=train)
    record: dict = {}
    lgb.train({"objective": "lambdarank", "metric": "ndcg", "eval_at": [2], "label_gain": [0, 0, 3],
               "min_data_in_leaf": Y.shape[0] + 1, "verbosity": -1, "num_threads": 1},
              train, num_boost_round=1, valid_sets=[valid], valid_names=["v"],
              callbacks=[lgb.record_evaluation(record)])
    spec = "ndcg@k:2,gain=0/0/3,convention=lightgbm"
    assert rankcore.evaluate(Y, S, spec, qid=QID)[spec] == pytest.approx(record["v"]["ndcg@2"][0], abs=1e-12)

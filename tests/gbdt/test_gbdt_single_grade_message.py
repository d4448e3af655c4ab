"""Queries that each hold one grade: rankcore.gbdt and rankcore's own fits refuse them with one helper's words."""

import numpy as np
import pytest

import rankcore
from rankcore.gbdt import lightgbm_objective

lgb = pytest.importorskip("lightgbm")


def test_the_same_refusal_as_rankcores_own_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    grades = np.repeat([0.0, 1.0, 2.0, 0.0], 10)       # each query one grade: no pair to order
    qid = np.repeat(np.arange(4), 10)
    with pytest.raises(rankcore.ArgumentRefusal) as own:
        rankcore.boost(learner="trees", objective="lambdarank", n_iter=2).fit(X, grades, qid=qid)
    with pytest.raises(rankcore.ArgumentRefusal) as inside:
        lgb.train({"objective": lightgbm_objective("lambdarank"), "verbose": -1, "min_data_in_leaf": 1},
                  lgb.Dataset(X, grades, group=[10] * 4), 2)
    assert own.value.detail == inside.value.detail == (
        "ranking within queries needs a query with two grades, got 4 queries, each with a single grade: "
        "no pair to order")
    assert str(own.value) == "y, qid: " + own.value.detail and own.value.parameter == "y"
    assert str(inside.value) == "objective 'lambdarank': " + inside.value.detail and inside.value.parameter == "label"

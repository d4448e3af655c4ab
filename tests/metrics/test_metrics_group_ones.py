"""group = n ones for n rows: valid both as LightGBM's sizes (n one-row queries) and as one query id per row (one
query), so refused with both readings named, wherever ``group`` is read (metrics, fit, score)."""

import numpy as np
import pytest

import rankcore
from rankcore.metrics import check_queries, evaluate

_BOTH_READINGS = r"^group: 30 sizes of 1 for 30 rows are 30 queries of one row each \(LightGBM's sizes\).*qid=\.\.\."


def _rows(n=30, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)), rng.integers(0, 3, n)


@pytest.mark.parametrize("group", [[1] * 30, np.ones(30), np.ones(30, dtype=np.int8)])
def test_check_queries_refuses_group_of_ones_per_row(group):
    """(Before: read as 30 one-row queries without a word.)"""
    with pytest.raises(ValueError, match=_BOTH_READINGS):
        check_queries(None, group, 30)


def test_evaluate_refuses_group_of_ones_per_row():
    """(Before: a refusal about k and one-row queries that never said group was read as sizes.)"""
    _, y = _rows()
    with pytest.raises(ValueError, match=_BOTH_READINGS):
        evaluate(y, np.arange(30.0), "ndcg@k:5", group=[1] * 30)


@pytest.mark.parametrize("make", [lambda: rankcore.boost(learner="trees", n_iter=2),
                                  lambda: rankcore.AutoRanker(time_budget=1)])
def test_fit_refuses_group_of_ones_per_row(make):
    """(Before: "needs a query with two grades, got 30 queries, each with a single grade".)"""
    X, y = _rows()
    with pytest.raises(ValueError, match=_BOTH_READINGS):
        make().fit(X, y, group=[1] * 30)


def test_unambiguous_groups_are_read_as_before():
    """Sizes that cannot be ids (fewer than the rows) are sizes; the same rows as one query are group=[n]; one row
    alone is one query of one row."""
    assert check_queries(None, [10, 20], 30).sizes.tolist() == [10, 20]
    assert check_queries(None, [1, 29], 30).sizes.tolist() == [1, 29]
    assert check_queries(None, [30], 30).sizes.tolist() == [30]
    assert check_queries(None, [1], 1).sizes.tolist() == [1]
    whole = check_queries([1] * 30, None, 30)
    assert whole.sizes.tolist() == [30]
    # ones of another length do not sum to the rows: the sizes' own refusal
    with pytest.raises(ValueError, match="the query sizes sum to 29, but y has 30 rows"):
        check_queries(None, [1] * 29, 30)

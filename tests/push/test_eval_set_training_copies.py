"""An ``eval_set`` that holds the training rows without being the very X and y given to ``fit`` -- a copy, in the
same order or shuffled -- is warned of, as the command line's ``--validation`` of the training rows is; a set that
shares only some of the rows, or cuts them into other queries, is a validation set without a word."""

import warnings

import numpy as np
import pytest

import rankcore

COPY = "holds the training data (the same rows and labels"


def _data(n=120):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + rng.normal(size=n) > 0).astype(int), np.repeat(np.arange(n // 10), 10), rng.permutation(n)


def _said(**fit):
    X, y = fit.pop("X"), fit.pop("y")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rankcore.PushBoost(n_iter=3).fit(X, y, **fit)
    return [str(w.message) for w in caught if COPY in str(w.message)]


@pytest.mark.parametrize("shuffled, how", [(False, "the same rows and labels), though"),
                                           (True, "the same rows and labels, in another order), though")])
def test_a_copy_of_the_training_rows_is_warned_in_any_order(shuffled, how):
    """Before: no warning for either (only the very X and y objects were recognized)."""
    X, y, _, order = _data()
    rows = order if shuffled else np.arange(len(y))
    (said,) = _said(X=X, y=y, eval_set=(X[rows].copy(), y[rows].copy()))
    assert said.startswith("eval_set " + COPY) and how in said and "not a hold-out" in said


def test_within_queries_the_shuffled_copy_in_the_same_queries_is_warned_other_queries_are_not():
    X, y, qid, order = _data()
    (said,) = _said(X=X, y=y, qid=qid, eval_set=[(X[order], y[order], qid[order] + 100), (X[:60], y[:60], qid[:60])])
    assert said.startswith("eval_set[0] " + COPY) and "in the same queries" in said
    other = np.arange(len(y)) % 12                 # the same rows cut into other queries: another ranking problem
    assert _said(X=X, y=y, qid=qid, eval_set=(X[order], y[order], other[order])) == []


def test_the_very_training_objects_and_a_partial_overlap_are_not_warned_as_copies():
    X, y, _, order = _data()
    half = np.r_[X[:60], X[:60] + 1.0]
    assert _said(X=X, y=y, eval_set=[(X, y), (half, y)]) == []
    assert _said(X=X, y=y, eval_set=(X[order], y)) == []           # the rows with other labels: not a copy

"""QueryTimeSeriesSplit: scikit-learn's TimeSeriesSplit taken over whole queries, in the order of their ids."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings, strategies as st
from sklearn.linear_model import Ridge
from sklearn.model_selection import TimeSeriesSplit, cross_val_score

from rankcore import QueryTimeSeriesSplit
from rankcore.metrics import make_query_scorer


def _rows_of(day, shuffled_ids):
    """Rows of a few days each, in a random order of rows."""
    rng = np.random.default_rng(len(shuffled_ids))
    qid = np.repeat(shuffled_ids, rng.integers(1, 5, size=len(shuffled_ids)))
    return qid[rng.permutation(qid.size)]


@settings(max_examples=60, deadline=None)
@given(n_queries=st.integers(3, 30), n_splits=st.integers(2, 6), test_queries=st.one_of(st.none(), st.integers(1, 4)),
       gap=st.integers(0, 3), max_train=st.one_of(st.none(), st.integers(1, 6)))
def test_the_folds_are_time_series_splits_of_the_sorted_queries(n_queries, n_splits, test_queries, gap, max_train):
    days = np.arange(100, 100 + n_queries) * 7                       # ids sorted = the time line
    qid = _rows_of(None, np.random.default_rng(n_queries).permutation(days))
    ours = QueryTimeSeriesSplit(n_splits, test_queries=test_queries, gap=gap, max_train_queries=max_train)
    theirs = TimeSeriesSplit(n_splits, test_size=test_queries, gap=gap, max_train_size=max_train)
    try:
        expected = [(days[a], days[b]) for a, b in theirs.split(days)]
    except ValueError:
        with pytest.raises(ValueError, match="n_splits: .* need at least"):
            list(ours.split(np.zeros((qid.size, 1)), qid=qid))
        return
    got = list(ours.split(np.zeros((qid.size, 1)), qid=qid))
    assert len(got) == len(expected) == ours.get_n_splits()
    for (train, test), (train_days, test_days) in zip(got, expected):
        np.testing.assert_array_equal(train, np.flatnonzero(np.isin(qid, train_days)))
        np.testing.assert_array_equal(test, np.flatnonzero(np.isin(qid, test_days)))
        assert qid[train].max() + gap * 7 < qid[test].min()          # every training day before the test days


def test_dates_and_iso_text_are_time_lines():
    dates = np.array(["2024-03-02", "2024-02-28", "2024-03-01", "2024-02-29", "2024-03-03"])
    qid = np.repeat(dates, 3)
    folds = [(sorted(set(qid[a])), sorted(set(qid[b]))) for a, b in
             QueryTimeSeriesSplit(2, test_queries=1).split(np.zeros((15, 1)), qid=qid)]
    assert folds == [(["2024-02-28", "2024-02-29", "2024-03-01"], ["2024-03-02"]),
                     (["2024-02-28", "2024-02-29", "2024-03-01", "2024-03-02"], ["2024-03-03"])]
    stamps = np.repeat(dates.astype("datetime64[D]"), 2)
    split = QueryTimeSeriesSplit(2, test_queries=1).split(np.zeros((10, 1)), groups=stamps)
    assert [stamps[b][0] for _, b in split] == [np.datetime64("2024-03-02"), np.datetime64("2024-03-03")]


def test_cross_validation_routes_the_days():
    rng = np.random.default_rng(0)
    X, day = rng.normal(size=(400, 3)), np.repeat(np.arange(40), 10)
    y = (X[:, 0] + rng.normal(scale=0.5, size=400) > 1).astype(float)
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(Ridge(), X, y, cv=QueryTimeSeriesSplit(4), scoring=make_query_scorer("prec@k:3"),
                                 params={"qid": day})
    assert scores.shape == (4,) and np.isfinite(scores).all()


@pytest.mark.parametrize("params, match", [
    ({"n_splits": 1}, "n_splits: expected an integer >= 2"),
    ({"test_queries": 0}, "test_queries: expected an integer >= 1 or None"),
    ({"gap": -1}, "gap: expected an integer >= 0"),
    ({"gap": 1.5}, "gap: expected an integer >= 0"),
    ({"max_train_queries": 0}, "max_train_queries: expected an integer >= 1 or None"),
    ({"n_splits": 5}, r"5 test folds of 1 queries after a gap of 0 need at least 6 queries, got 4"),
    ({"n_splits": 2, "gap": 2}, r"need at least 5 queries, got 4"),
])
def test_bad_parameters_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        list(QueryTimeSeriesSplit(**params).split(np.zeros((8, 1)), qid=np.repeat([1, 2, 3, 4], 2)))


def test_ids_that_do_not_compare_are_no_time_line():
    qid = np.empty(4, dtype=object)
    qid[:] = [(1, "a"), (1, "a"), (1, 2), (2, 2)]
    with pytest.raises(ValueError, match="QueryTimeSeriesSplit orders the queries by their ids, which must compare"):
        list(QueryTimeSeriesSplit(2, test_queries=1).split(np.zeros((4, 1)), qid=qid))


def test_the_query_of_each_row_is_given_once():
    X = np.zeros((4, 1))
    with pytest.raises(ValueError, match="qid: QueryTimeSeriesSplit needs the query of each row"):
        list(QueryTimeSeriesSplit(2).split(X))
    with pytest.raises(ValueError, match="give the query of each row once"):
        list(QueryTimeSeriesSplit(2).split(X, qid=[1, 1, 2, 2], groups=[1, 1, 2, 2]))


@pytest.mark.parametrize("wrap", [pd.Series, pd.Categorical, pd.CategoricalIndex],
                         ids=["series", "categorical", "index"])
def test_an_ordered_categorical_is_split_in_its_order(wrap):
    # its categories sorted by value (Fri < Mon < Thu < Tue < Wed) made Tue and Wed the test folds, trained on Fri
    # and Thu, the days after them: a time line backwards, silently
    days = ["Mon", "Tue", "Wed", "Thu", "Fri"]
    qid = wrap(pd.Categorical(np.repeat(days, 2), categories=days, ordered=True))
    folds = [(sorted(set(np.asarray(qid)[train].tolist())), sorted(set(np.asarray(qid)[test].tolist())))
             for train, test in QueryTimeSeriesSplit(2, test_queries=1).split(np.zeros((10, 1)), groups=qid)]
    assert folds == [(["Mon", "Tue", "Wed"], ["Thu"]), (["Mon", "Thu", "Tue", "Wed"], ["Fri"])]
    # an unordered one is read by its values; a missing id is refused as any other
    plain = pd.Series(pd.Categorical(np.repeat(days, 2), categories=days))
    assert [sorted(set(plain[test].tolist())) for _, test in QueryTimeSeriesSplit(2, test_queries=1).split(
        np.zeros((10, 1)), qid=plain)] == [["Tue"], ["Wed"]]
    with pytest.raises(ValueError, match="must not be None or NaN"):
        list(QueryTimeSeriesSplit(2, test_queries=1).split(np.zeros((10, 1)), qid=pd.Series(pd.Categorical(
            ["Mon", None] * 5, categories=days, ordered=True))))

"""Folds and scoring parts of whole queries: invariants on random query layouts (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.auto._queries import canonical_order, plan_query_folds, plan_query_units
from rankcore.metrics import Queries


def _queries(sizes):
    sizes = np.asarray(sizes, dtype=np.int64)
    return Queries(np.arange(sizes.shape[0]), np.repeat(np.arange(sizes.shape[0]), sizes), sizes)


layouts = st.integers(2, 6).flatmap(lambda k: st.tuples(
    st.just(k),
    st.lists(st.integers(1, 9), min_size=k, max_size=30),
    st.integers(0, 2**31 - 1),
    st.integers(1, 3),
))


@settings(max_examples=60, deadline=None)
@given(layouts, st.data())
def test_auto_queries_folds_partition_whole_queries(layout, data):
    n_splits, sizes, seed, n_repeats = layout
    counted = np.array(data.draw(st.lists(st.booleans(), min_size=len(sizes), max_size=len(sizes))))
    counted[:n_splits] = True                                  # enough counted queries for the folds
    queries = _queries(sizes)
    plan = plan_query_folds(queries, counted, (n_splits, n_repeats), seed, "ndcg@k:10")
    n = int(queries.codes.shape[0])
    for r in range(n_repeats):
        seen = np.zeros(n, dtype=np.int64)
        for train, validation in plan.folds[r * n_splits:(r + 1) * n_splits]:
            assert not np.intersect1d(queries.codes[train], queries.codes[validation]).size   # no query split
            assert train.shape[0] + validation.shape[0] == n
            assert counted[np.unique(queries.codes[validation])].any()       # a query the metric counts
            seen[validation] += 1
        assert (seen == 1).all()                                   # each row validated once per repeat
    units = plan_query_units(plan, queries, counted, seed)
    assert len(units) == plan.n_folds


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=3, max_size=30), st.integers(0, 2**31 - 1), st.floats(0.1, 0.6))
def test_auto_queries_holdout_parts_of_whole_queries(sizes, seed, fraction):
    queries = _queries(sizes)
    counted = np.ones(len(sizes), dtype=bool)
    plan = plan_query_folds(queries, counted, fraction, seed, "ndcg@k:10")
    (train, validation), = plan.folds
    assert not np.intersect1d(queries.codes[train], queries.codes[validation]).size
    assert train.shape[0] and validation.shape[0]
    units = plan_query_units(plan, queries, counted, seed)
    parts = np.concatenate(units.rows)
    np.testing.assert_array_equal(np.sort(parts), validation)          # the parts cut the hold-out
    for a in range(len(units)):
        for b in range(a):
            assert not np.intersect1d(queries.codes[units.rows[a]], queries.codes[units.rows[b]]).size


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(0, 3), st.integers(0, 2**31 - 1))
def test_auto_queries_canonical_order_ignores_the_input_order(n, n_features, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, n_features)).astype(float)         # repeated rows and ties
    X[rng.random(X.shape) < 0.1] = np.nan
    grades = rng.integers(0, 3, n).astype(float)
    codes = rng.integers(0, 4, n)
    shuffle = rng.permutation(n)
    first = canonical_order(X, grades, codes)
    second = shuffle[canonical_order(X[shuffle], grades[shuffle], codes[shuffle])]
    for values in (codes, grades):
        np.testing.assert_array_equal(values[first], values[second])
    np.testing.assert_array_equal(X[first], X[second])

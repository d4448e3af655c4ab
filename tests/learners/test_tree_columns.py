"""The trees' one-pass column summaries (``_columns``) and the encoder's binary search, against NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _tree_references import greedy_bundles
from rankcore.learners.trees import _columns, _histogram
from rankcore.learners._binning import _feature_edges, sample_rows
from rankcore.learners.trees._binning import MIN_COLUMN_SAVING, tree_bundles, tree_edges
from rankcore.learners.trees._bundles import (MIN_DEFAULT_FRACTION, MIN_JOIN_FRACTION, default_bins, default_interval,
                                            exclusive_bundles, nondefault_rows)
from rankcore.learners.trees._columns import few_distinct, outside_counts, outside_rows
from rankcore.learners.trees._block import slot_layout


def _random_columns(rng, n, d, dtype):
    """Columns of 1 to 12 distinct values drawn with ties, continuous ones, ±0 and NaN."""
    X = np.empty((n, d))
    for j in range(d):
        kind = rng.integers(4)
        if kind == 0:                                   # few distinct values, repeated
            X[:, j] = rng.choice(rng.normal(size=rng.integers(1, 13)).round(1), size=n)
        elif kind == 1:                                 # one-hot like, with -0.0 among the zeros
            X[:, j] = np.where(rng.random(n) < 0.3, 1.0, np.where(rng.random(n) < 0.5, -0.0, 0.0))
        elif kind == 2:
            X[:, j] = rng.normal(size=n)
        else:
            X[:, j] = rng.integers(-3, 4, size=n)
        X[rng.random(n) < 0.1, j] = np.nan
    return np.ascontiguousarray(X.astype(dtype))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 120), st.integers(1, 9), st.integers(1, 14),
       st.sampled_from([np.float64, np.float32]), st.booleans(), st.integers(1, 3))
def test_few_distinct_matches_numpy_unique(seed, n, d, k, dtype, subset, n_threads):
    rng = np.random.default_rng(seed)
    X = _random_columns(rng, n, d, dtype)
    rows = np.sort(rng.choice(n, size=rng.integers(0, n + 1), replace=False)) if subset and n else None
    values, counts = few_distinct(X, k, rows, n_threads)
    assert values.shape == (d, k) and counts.shape == (d,)
    picked = X if rows is None else X[rows]
    for j in range(d):
        col = picked[:, j].astype(np.float64)
        expected = np.unique(col[~np.isnan(col)])
        if expected.shape[0] > k:
            assert counts[j] == -1
        else:
            assert counts[j] == expected.shape[0]
            np.testing.assert_array_equal(values[j, : counts[j]], expected)


def test_few_distinct_refuses_bad_arguments():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="k"):
        few_distinct(X, 0)
    with pytest.raises(ValueError, match="rows"):
        few_distinct(X, 4, np.array([0, 3]))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 150), st.integers(1, 8), st.sampled_from([np.float64, np.float32]),
       st.integers(1, 3))
def test_outside_counts_and_rows_match_numpy(seed, n, d, dtype, n_threads):
    rng = np.random.default_rng(seed)
    X = _random_columns(rng, n, d, dtype)
    # bounds on the values themselves (ties at lo and hi), and infinite ones
    lo = np.array([-np.inf if rng.random() < 0.3 else rng.choice([-0.5, 0.0, -1.0]) for _ in range(d)])
    hi = np.array([np.inf if rng.random() < 0.3 else rng.choice([0.0, 0.5, 1.0]) for _ in range(d)])
    Xd = X.astype(np.float64)
    outside = ~((Xd > lo) & (Xd <= hi))
    counts = outside_counts(X, lo, hi, n_threads)
    np.testing.assert_array_equal(counts, outside.sum(axis=0))
    columns = np.sort(rng.choice(d, size=rng.integers(0, d + 1), replace=False)).astype(np.intp)
    indptr = np.r_[0, np.cumsum(counts[columns])].astype(np.int64)
    rows = outside_rows(X, columns, lo[columns], hi[columns], indptr)
    for q, j in enumerate(columns):
        np.testing.assert_array_equal(rows[indptr[q]:indptr[q + 1]], np.flatnonzero(outside[:, j]))
    if columns.shape[0]:
        for shift in (1, -1):                           # one row too many or too few listed for the last column
            bad = indptr.copy()
            bad[-1] += shift
            if bad[-1] >= bad[-2]:
                with pytest.raises(ValueError, match="indptr"):
                    outside_rows(X, columns, lo[columns], hi[columns], bad)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 300), st.sampled_from([None, "weights"]))
def test_tree_edges_equal_the_sort_of_every_column(seed, n, weighted):
    """The one-pass route gives the edges of ``_feature_edges`` on each column's sampled values."""
    rng = np.random.default_rng(seed)
    X = _random_columns(rng, n, 6, np.float64)
    X[:, 0] = rng.normal(size=n)                        # more distinct values than max_bins = 8
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    edges = tree_edges(X, 8, w, 50, 0)
    rows = sample_rows(n, 50, 0, None if w is None else np.flatnonzero(w > 0))
    for j in range(X.shape[1]):
        col = X[rows, j]
        keep = ~np.isnan(col)
        expected = _feature_edges(col[keep], None if w is None else w[rows][keep], 8)
        np.testing.assert_array_equal(edges[j], expected)


@pytest.mark.parametrize("columns_per_block", [1, 2, 4, 7])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_tree_edges_of_columns_sorted_block_by_block(monkeypatch, columns_per_block, weighted, n_threads):
    """Columns copied a block at a time (a block narrower than X, ending mid-way), blocks sorted on one thread
    or two, between columns of few values (not sorted): each column's own edges, in X's order."""
    from rankcore.learners.trees import _binning

    rng = np.random.default_rng(columns_per_block)
    n = 120
    X = rng.normal(size=(n, 9))
    X[::4, 3] = np.nan
    X[:, 5] = np.round(X[:, 5], 1)                       # ties
    X[:, 1] = rng.integers(0, 3, n)                      # few distinct values: collected, not sorted
    X[:, 6] = rng.integers(0, 5, n)
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    rows = sample_rows(n, 80, 0, None if w is None else np.flatnonzero(w > 0))
    monkeypatch.setattr(_binning, "_TRANSPOSE_VALUES", columns_per_block * rows.shape[0])
    monkeypatch.setattr(_binning, "_PARALLEL_SORT_VALUES", 0)     # the blocks on two threads however few values
    edges = tree_edges(X, 8, w, 80, 0, n_threads)
    assert len(edges) == X.shape[1]
    for j in range(X.shape[1]):
        col = X[rows, j]
        keep = ~np.isnan(col)
        expected = _feature_edges(col[keep], None if w is None else w[rows][keep], 8)
        np.testing.assert_array_equal(edges[j], expected)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 400), st.sampled_from([None, "weights"]), st.integers(2, 40))
def test_float32_edges_equal_the_float64_edges_of_the_same_values(seed, n, weighted, max_bins):
    """A float32 X is sorted as float32: the edges are those of its exact float64 copy, bit for bit."""
    rng = np.random.default_rng(seed)
    X = _random_columns(rng, n, 5, np.float32)
    X[:, 0] = rng.normal(size=n)                          # many distinct values
    X[:, 1] = np.round(rng.normal(size=n), 1)             # ties
    X[::3, 2] = np.float32(1e-30)                          # values whose float64 midpoints are not float32
    X[1::3, 2] = np.nextafter(np.float32(1e-30), np.float32(1))
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    got = tree_edges(X, max_bins, w, 300, 1)
    want = tree_edges(X.astype(np.float64), max_bins, w, 300, 1)
    for a, b in zip(got, want):
        assert a.dtype == np.float64
        np.testing.assert_array_equal(a, b)
    for j in range(X.shape[1]):                           # the reference: every column's float64 values
        values = X[:, j].astype(np.float64)
        keep = ~np.isnan(values)
        rows = sample_rows(n, 300, 1, None if w is None else np.flatnonzero(w > 0))
        keep = keep[rows]
        np.testing.assert_array_equal(
            got[j], _feature_edges(values[rows][keep], None if w is None else w[rows][keep], max_bins))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 200))
def test_dense_bundles_equal_the_per_column_reference(seed, n):
    """Exact non-default rows (dense kernels) = ``nondefault_rows`` on each column, for candidates and joiners."""
    rng = np.random.default_rng(seed)
    levels = rng.integers(2, 6, size=3)
    blocks = []
    for k in levels:                                    # skewed levels: the first is often a joiner
        p = np.r_[3.0, np.ones(k - 1)]
        blocks.append(np.eye(k)[rng.choice(k, size=n, p=p / p.sum())])
    X = np.hstack(blocks + [_random_columns(rng, n, 3, np.float64)])
    edges = tree_edges(X, 255, None, None, 0)
    z = default_bins(edges)
    every = nondefault_rows(X, edges, z, np.arange(X.shape[1]))
    rows = {j: r for j, r in every.items() if r.shape[0] <= (1 - MIN_DEFAULT_FRACTION) * n}
    joiners = {j: r.shape[0] for j, r in every.items()
               if (1 - MIN_DEFAULT_FRACTION) * n < r.shape[0] <= (1 - MIN_JOIN_FRACTION) * n}
    n_edges = np.array([e.shape[0] for e in edges])
    expected = exclusive_bundles(rows, n_edges, n, joiners, lambda js: {j: every[j] for j in js})
    if sum(len(b) - 1 for b in expected) < MIN_COLUMN_SAVING * X.shape[1]:
        expected = []
    assert tree_bundles(X, edges, 2) == expected
    for j, e in enumerate(edges):                       # the default interval holds the value 0
        lo, hi = default_interval(e, int(z[j]))
        assert lo < 0.0 <= hi


def _plain_joining(rows, joiner_rows, n_edges, n_rows, max_codes=256):
    """The greedy rule then the joiners, written plainly with sets (groups of one included)."""
    groups = greedy_bundles(joiner_rows, n_edges, max_codes, greedy_bundles(rows, n_edges, max_codes), open_new=False)
    return [sorted(g["members"]) for g in groups if len(g["members"]) > 1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 20), st.integers(4, 60))
def test_joiners_take_the_first_group_they_do_not_meet(seed, d, n):
    rng = np.random.default_rng(seed)
    every = {j: np.sort(rng.choice(n, size=rng.integers(0, n + 1), replace=False)) for j in range(d)}
    rows = {j: r for j, r in every.items() if r.shape[0] <= n // 2}
    joiner_rows = {j: r for j, r in every.items() if r.shape[0] > n // 2}
    n_edges = rng.integers(0, 90, d)
    asked = []

    def listed(js):
        asked.extend(js)
        return {j: joiner_rows[j] for j in js}

    got = exclusive_bundles(rows, n_edges, n, {j: r.shape[0] for j, r in joiner_rows.items()}, listed)
    assert got == _plain_joining(rows, joiner_rows, n_edges, n)
    assert len(asked) == len(set(asked)) and set(asked) <= set(joiner_rows)


def test_the_most_frequent_level_joins_its_variables_bundle():
    """One-hot columns of a variable whose first level holds 70 % of the rows: one bundle, no column left alone."""
    rng = np.random.default_rng(0)
    n = 2000
    codes = rng.choice(4, size=n, p=[0.7, 0.1, 0.1, 0.1])
    X = np.hstack([np.eye(4)[codes], np.eye(3)[rng.integers(0, 3, n)], rng.normal(size=(n, 1))])
    edges = tree_edges(X, 255, None, None, 0)
    assert sorted(tree_bundles(X, edges)) == [[0, 1, 2, 3], [4, 5, 6]]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([0, 1, 2, 3, 4, 7, 8, 31, 254]), st.integers(1, 200))
def test_encode_bins_equal_searchsorted_at_ties(seed, n_edges, n):
    """The encoder's branch-free binary search: #{edges < x}, values on the edges included."""
    rng = np.random.default_rng(seed)
    e = np.sort(rng.choice(np.arange(-300, 300) / 4.0, size=n_edges, replace=False))
    pool = np.r_[e, e + 0.125, e - 0.125, -1e300, 1e300, np.inf, -np.inf, np.nan, 0.0]
    X = np.ascontiguousarray(rng.choice(pool, size=(n, 1)))
    slots = slot_layout(np.array([n_edges]))
    codes = np.zeros((n, 1), dtype=np.uint8)
    _histogram.encode(X, np.ascontiguousarray(e, dtype=np.float64), np.array([0, n_edges], dtype=np.intp), slots,
                         codes)
    x = X[:, 0]
    expected = np.where(np.isnan(x), n_edges + 1, np.searchsorted(e, x, side="left"))
    np.testing.assert_array_equal(codes[:, 0], expected)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), b=st.integers(0, 12), n=st.integers(1, 300), density=st.floats(0.0, 0.5),
       m=st.integers(0, 40))
def test_first_free_bundle_matches_a_numpy_reference(seed, b, n, density, m):
    rng = np.random.default_rng(seed)
    used = (rng.random((b, n)) < density).astype(np.uint8)
    eligible = (rng.random(b) < 0.8).astype(np.uint8)
    rows = np.sort(rng.choice(n, min(m, n), replace=False)).astype(np.intp)
    free = [k for k in range(b) if eligible[k] and not used[k, rows].any()]
    assert _columns.first_free_bundle(used, eligible, rows) == (free[0] if free else -1)


def test_first_free_bundle_refuses_bad_shapes():
    used = np.zeros((2, 5), dtype=np.uint8)
    with pytest.raises(ValueError, match="eligible must have one entry per bundle"):
        _columns.first_free_bundle(used, np.ones(3, dtype=np.uint8), np.array([0], dtype=np.intp))
    with pytest.raises(ValueError, match="row 5 is not one of the 5 rows"):
        _columns.first_free_bundle(used, np.ones(2, dtype=np.uint8), np.array([5], dtype=np.intp))

"""The trees' one-pass column summaries (``_tree_columns``) and the encoder's binary search, against NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.learners import _tree_kernels
from rankcore.learners._binning import _feature_edges, sample_rows
from rankcore.learners._tree_binning import tree_bundles, tree_edges
from rankcore.learners._tree_bundles import default_bins, default_interval, exclusive_bundles, nondefault_rows
from rankcore.learners._tree_columns import few_distinct, outside_counts, outside_rows
from rankcore.learners._tree_layout import slot_layout


def _columns(rng, n, d, dtype):
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
    X = _columns(rng, n, d, dtype)
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
    X = _columns(rng, n, d, dtype)
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
    X = _columns(rng, n, 6, np.float64)
    X[:, 0] = rng.normal(size=n)                        # more distinct values than max_bins = 8
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    edges = tree_edges(X, 8, w, 50, 0)
    rows = sample_rows(n, 50, 0, None if w is None else np.flatnonzero(w > 0))
    for j in range(X.shape[1]):
        col = X[rows, j]
        keep = ~np.isnan(col)
        expected = _feature_edges(col[keep], None if w is None else w[rows][keep], 8)
        np.testing.assert_array_equal(edges[j], expected)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 200))
def test_dense_bundles_equal_the_per_column_reference(seed, n):
    """Exact non-default rows of every candidate (dense kernels) = ``nondefault_rows`` on each column."""
    rng = np.random.default_rng(seed)
    levels = rng.integers(2, 6, size=3)
    X = np.hstack([np.eye(k)[rng.integers(0, k, n)] for k in levels] + [_columns(rng, n, 3, np.float64)])
    edges = tree_edges(X, 255, None, None, 0)
    z = default_bins(edges)
    rows = nondefault_rows(X, edges, z, np.arange(X.shape[1]))
    rows = {j: r for j, r in rows.items() if r.shape[0] <= 0.5 * n}
    expected = exclusive_bundles(rows, np.array([e.shape[0] for e in edges]), n) if len(rows) >= 2 else []
    if sum(len(b) - 1 for b in expected) < 0.2 * X.shape[1]:
        expected = []
    assert tree_bundles(X, edges, 2) == expected
    for j, e in enumerate(edges):                       # the default interval holds the value 0
        lo, hi = default_interval(e, int(z[j]))
        assert lo < 0.0 <= hi


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
    _tree_kernels.encode(X, np.ascontiguousarray(e, dtype=np.float64), np.array([0, n_edges], dtype=np.intp), slots,
                         codes)
    x = X[:, 0]
    expected = np.where(np.isnan(x), n_edges + 1, np.searchsorted(e, x, side="left"))
    np.testing.assert_array_equal(codes[:, 0], expected)

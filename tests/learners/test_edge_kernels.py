"""The bin edges' radix-sort kernel (``_edge_kernels.edge_pairs``) against the NumPy rule it replaces.

The reference below is the unweighted rule written with ``numpy.sort``: the
sorted distinct values (``numpy.not_equal`` runs), their counts, the first
value whose cumulative count reaches each level b / max_bins of the total, and
the midpoints after those values.  Values with ties, NaN (left out), -0.0 and
0.0 together, ±inf, values near ±float max, subnormals, float32 and float64.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.learners import bin_edges
from rankcore.learners._binning import unweighted_edges
from rankcore.learners._edge_kernels import edge_pairs
from rankcore.learners.trees._binning import tree_edges


def reference_edges(values: np.ndarray, max_bins: int) -> np.ndarray:
    """The unweighted bin edges of ``values`` (NaN left out) by comparison sort, in plain NumPy."""
    v = np.sort(values[~np.isnan(values)])
    if v.shape[0] == 0:
        return np.empty(0)
    first = np.r_[True, v[1:] != v[:-1]]
    distinct = v[first].astype(np.float64)
    if distinct.shape[0] <= 1:
        return np.empty(0)
    if distinct.shape[0] <= max_bins:
        lo, hi = distinct[:-1], distinct[1:]
    else:
        counts = np.diff(np.r_[np.flatnonzero(first), v.shape[0]]).astype(np.float64)
        cumulative = np.cumsum(counts)
        levels = np.arange(1, max_bins) / max_bins * cumulative[-1]
        idx = np.unique(np.minimum(np.searchsorted(cumulative, levels, side="left"), distinct.shape[0] - 2))
        lo, hi = distinct[idx], distinct[idx + 1]
    with np.errstate(over="ignore", invalid="ignore"):
        mid = lo + 0.5 * (hi - lo)
    mid = np.where(np.isfinite(mid), mid, 0.5 * lo + 0.5 * hi)
    return np.where(mid < hi, mid, lo)


POOL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.25, 1e-310, -1e-310, 5e-324, 3.4e38, -3.4e38, 1e300, -1e300,
                 np.inf, -np.inf, np.nan, 7.0, 7.0, 7.0])


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(0, 700), spread=st.sampled_from([3, 40, 10**6]),
       special=st.floats(0.0, 0.5), dtype=st.sampled_from([np.float32, np.float64]),
       max_bins=st.sampled_from([2, 3, 7, 16, 64, 255, 256, 1000]))
def test_edges_equal_the_numpy_rule(seed, n, spread, special, dtype, max_bins):
    rng = np.random.default_rng(seed)
    values = rng.integers(-spread, spread, size=n) / 8.0
    pick = rng.random(n) < special
    values[pick] = rng.choice(POOL, size=int(pick.sum()))
    with np.errstate(over="ignore"):
        values = values.astype(dtype)
    got = unweighted_edges(values, max_bins)
    want = reference_edges(values, max_bins)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1000, 100_000])
def test_continuous_values_many_distinct(dtype, n):
    values = np.random.default_rng(n).standard_normal(n).astype(dtype)
    values[::97] = np.nan
    np.testing.assert_array_equal(unweighted_edges(values, 256), reference_edges(values, 256))


def test_signed_zeros_are_one_value():
    lo, hi = edge_pairs(np.array([-0.0, 0.0, 0.0, -0.0, 1.0]), 256)
    assert lo.shape == (1,) and lo[0] == 0.0 and hi[0] == 1.0
    assert unweighted_edges(np.array([-0.0, 0.0], dtype=np.float32), 256).shape == (0,)


def test_degenerate_inputs():
    for values in (np.empty(0), np.array([np.nan, np.nan]), np.full(5, 3.0), np.array([np.inf])):
        lo, hi = edge_pairs(values, 256)
        assert lo.shape == hi.shape == (0,)
    with pytest.raises(ValueError, match="max_bins"):
        edge_pairs(np.arange(5.0), 1)


def test_the_public_rules_use_it():
    """``bin_edges`` (stumps) and the trees' ``tree_edges`` give the reference edges of every column (2,000 rows,
    400 and 4 distinct values: the sorted columns and the collected ones)."""
    rng = np.random.default_rng(3)
    X = np.c_[rng.standard_normal(2000), rng.integers(0, 400, 2000), rng.integers(0, 4, 2000)].astype(np.float32)
    for edges in (bin_edges(X, 256, subsample=None), tree_edges(X, 256, None, None, 0)):
        for j in range(X.shape[1]):
            np.testing.assert_array_equal(edges[j], reference_edges(X[:, j].astype(np.float64), 256))
    X[rng.random(2000) < 0.1, 0] = np.nan           # the trees take NaN as missing: left out of the edges
    np.testing.assert_array_equal(tree_edges(X, 256, None, None, 0)[0], reference_edges(X[:, 0], 256))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(0, 300), n_zero=st.integers(0, 400),
       dtype=st.sampled_from([np.float32, np.float64]), max_bins=st.sampled_from([2, 5, 16, 255]))
def test_zeros_counted_without_being_passed(seed, n, n_zero, dtype, max_bins):
    """A sparse column's edges: its stored values (explicit zeros, NaN and -0.0 among them) and ``n_zero``
    zeros not stored are the edges of the dense column."""
    from rankcore.learners.trees._binning import _edges_with_zeros

    rng = np.random.default_rng(seed)
    values = (rng.integers(-40, 40, size=n) / 4.0).astype(dtype)
    values[rng.random(n) < 0.1] = np.nan
    values[rng.random(n) < 0.05] = -0.0
    dense = np.r_[values, np.zeros(n_zero, dtype=dtype)]
    np.testing.assert_array_equal(_edges_with_zeros(values, n_zero, max_bins), reference_edges(dense, max_bins))
    with pytest.raises(ValueError, match="n_zero"):
        edge_pairs(values, max_bins, -1)

"""The one bin search (``histograms.pxd`` ``bin_code``), through every encoder that uses it, against NumPy.

A value's bin code is #{edges < x}: ``np.searchsorted(edges, x, side="left")``.
Values on the edges, between them, beyond them (±inf, ±1e300), edge counts
around the powers of two the search halves at, and no edges at all.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.learners import _threshold_kernels
from rankcore.learners.trees import _histogram
from rankcore.learners.trees._block import slot_layout

EDGE_COUNTS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 254]


def _edges_and_values(seed, n_edges, n):
    """Sorted distinct edges and n values drawn from the edges, their neighbours and the extremes."""
    rng = np.random.default_rng(seed)
    edges = np.sort(rng.choice(np.arange(-400, 400) / 4.0, size=n_edges, replace=False))
    pool = np.r_[edges, edges + 0.125, edges - 0.125, -1e300, 1e300, np.inf, -np.inf, 0.0]
    return edges, rng.choice(pool, size=n)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), n_edges=st.sampled_from(EDGE_COUNTS), n=st.integers(1, 300),
       dtype=st.sampled_from([np.float64, np.float32]), n_threads=st.sampled_from([1, 2]))
def test_threshold_encoder_equals_searchsorted(seed, n_edges, n, dtype, n_threads):
    edges, x = _edges_and_values(seed, n_edges, n)
    with np.errstate(over="ignore"):                      # ±1e300 in float32 is ±inf, one more value to place
        X = np.ascontiguousarray(np.stack([x, x[::-1]], axis=1).astype(dtype))
    flat = np.ascontiguousarray(np.r_[edges, edges], dtype=np.float64)
    offsets = np.array([0, n_edges, 2 * n_edges], dtype=np.intp)
    codes = np.zeros((2, n), dtype=np.uint8)
    _threshold_kernels.encode(X, flat, offsets, codes, n_threads)
    for j in range(2):
        np.testing.assert_array_equal(codes[j], np.searchsorted(edges, X[:, j].astype(np.float64), side="left"))


@pytest.mark.parametrize("n_edges", [255, 256, 257, 600])
def test_threshold_encoder_with_wide_codes_equals_searchsorted(n_edges):
    edges, x = _edges_and_values(n_edges, n_edges, 2000)
    codes = np.zeros((1, x.size), dtype=np.uint16)
    _threshold_kernels.encode(np.ascontiguousarray(x[:, None]), np.ascontiguousarray(edges),
                              np.array([0, n_edges], dtype=np.intp), codes, 1)
    np.testing.assert_array_equal(codes[0], np.searchsorted(edges, x, side="left"))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), n_edges=st.sampled_from(EDGE_COUNTS), n=st.integers(1, 300),
       nan_share=st.sampled_from([0.0, 0.3]))
def test_tree_encoder_equals_searchsorted_and_puts_nan_last(seed, n_edges, n, nan_share):
    edges, x = _edges_and_values(seed, n_edges, n)
    x[np.random.default_rng(seed).random(n) < nan_share] = np.nan
    codes = np.zeros((n, 1), dtype=np.uint8)
    _histogram.encode(np.ascontiguousarray(x[:, None]), np.ascontiguousarray(edges, dtype=np.float64),
                      np.array([0, n_edges], dtype=np.intp), slot_layout(np.array([n_edges])), codes)
    expected = np.where(np.isnan(x), n_edges + 1, np.searchsorted(edges, x, side="left"))
    np.testing.assert_array_equal(codes[:, 0], expected)

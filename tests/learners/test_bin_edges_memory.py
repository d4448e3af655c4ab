"""The stumps' bin edges read X one column at a time: no copy of the whole matrix (float32 X most of all)."""

import tracemalloc

import numpy as np
import pytest

from rankcore.learners._binning import _feature_edges, bin_edges, sample_rows


def _peak_bytes(function):
    """The most memory (NumPy's allocations included) that ``function()`` held at once beyond what it was given."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        function()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bin_edges_holds_no_copy_of_x(dtype):
    # a copy of the sample's rows and a float64 copy of that (3 times a float32 X) were made to read one column
    # at a time; what is left is the finiteness check's masks (a quarter of X per mask for float32)
    X = np.random.default_rng(0).normal(size=(40_000, 25)).astype(dtype)
    peak = _peak_bytes(lambda: bin_edges(X, 255, subsample=None))
    assert peak < 0.75 * X.nbytes, f"bin_edges held {peak / X.nbytes:.2f} times X's memory"


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("subsample", [None, 700])
def test_bin_edges_are_those_of_the_float64_sample(weighted, subsample):
    # read in X's own float type, column by column, the edges are those of the float64 rows of the sample
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2_000, 3)).astype(np.float32)
    X[:, 1] = np.round(X[:, 1] * 3) / 3            # ties
    X[:, 2] = rng.integers(0, 5, X.shape[0])       # few distinct values: every midpoint
    w = rng.random(X.shape[0]) * (rng.random(X.shape[0]) > 0.2) if weighted else None
    rows = sample_rows(X.shape[0], subsample, 3, None if w is None else np.flatnonzero(w > 0))
    sample = X[rows].astype(np.float64)
    expected = [_feature_edges(sample[:, j], None if w is None else w[rows], 32) for j in range(X.shape[1])]
    for X_in in (X, X.astype(np.float64), np.asfortranarray(X)):
        got = bin_edges(X_in, 32, sample_weight=w, subsample=subsample, random_state=3)
        assert all(a.dtype == np.float64 and np.array_equal(a, b) for a, b in zip(got, expected))

"""Bin codes of dense rows (``_histogram.encode``): numpy's count of the edges below each value, NaN last,
block by block of rows and feature by feature within a block, on one thread or two."""

import numpy as np
import pytest

from rankcore.learners.trees import _histogram
from rankcore.learners.trees._block import slot_layout


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 300])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_encode_matches_numpy(n, n_threads, dtype):
    rng = np.random.default_rng(n)
    d = 9
    X = np.round(rng.normal(size=(n, d + 3)), 1).astype(dtype)
    X[rng.random(X.shape) < 0.1] = np.nan
    edges = [np.unique(np.round(rng.normal(size=int(rng.integers(0, 40))), 1)) for _ in range(d)]
    offsets = np.r_[0, np.cumsum([e.shape[0] for e in edges])].astype(np.intp)
    flat = np.concatenate(edges) if offsets[-1] else np.empty(0)
    slots = slot_layout(np.array([e.shape[0] for e in edges]))
    columns = np.array([2, 0, 5, 4, 11, 3, 7, 1, 9], dtype=np.intp)   # the layout's features among X's columns
    for where in (None, columns):
        Xd = X[:, :d] if where is None else X
        codes = np.full((n, slots.n_cols), 77, dtype=np.uint8)
        codes[:] = 0
        assert _histogram.encode(np.ascontiguousarray(Xd), flat, offsets, slots, codes, n_threads, where) == 0
        for j in range(d):
            x = (Xd[:, j] if where is None else X[:, where[j]]).astype(np.float64)
            expect = np.where(np.isnan(x), edges[j].shape[0] + 1, np.searchsorted(edges[j], x, side="left"))
            np.testing.assert_array_equal(codes[:, j], expect)

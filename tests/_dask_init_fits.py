"""Rows, chunks and the model comparison shared by the Dask tests of fits that start somewhere (``init_score``,
``init_model``): the Dask fit is the in-memory one, bit for bit on one worker, to 1e-9 distributed."""

from __future__ import annotations

import numpy as np

#: Chunks of unequal sizes (500 rows), so that queries and initial scores cross chunk borders.
CHUNKS = (100, 37, 200, 163)


def float32_rows(n=500, seed=0):
    """(X, y): 5 float32 features, a quarter of the rows relevant and shifted on the first two."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    y = (rng.random(n) < 0.25).astype(int)
    X[y == 1, :2] += 0.6
    return X, y


def as_dask(*arrays, chunks=CHUNKS):
    """Each array as a Dask array of row chunks ``chunks`` (a matrix keeps its columns in one chunk)."""
    import dask.array as da

    return [da.from_array(a, chunks=(chunks, -1) if a.ndim == 2 else (chunks,)) for a in arrays]


def assert_same_model(model, local, X, *, exact):
    """``model`` (a Dask fit) is ``local`` (the in-memory one): the same iterations (and ones continued from an
    init model), trees of the same structure, and leaf values, α, objective values and scores on X bit for bit
    when ``exact``, else to 1e-9."""
    assert (model.n_iter_, len(model.rankers_)) == (local.n_iter_, len(local.rankers_))
    assert getattr(model, "init_iterations_", None) == getattr(local, "init_iterations_", None)
    close = np.testing.assert_array_equal if exact else (
        lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9))
    for a, b in zip(model.rankers_, local.rankers_):
        for field in ("feature", "threshold", "left", "right"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        close(a.value, b.value)
    close(model.alphas_, local.alphas_)
    close(model.objective_values_, local.objective_values_)
    close(model.decision_function(X), local.decision_function(X))

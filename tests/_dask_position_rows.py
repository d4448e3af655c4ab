"""Rows with grades, queries, places and clicks, their Dask chunks, and the same fit on Dask and in memory, shared by
the Dask tests of fits that climb (huge position steps, the ``"diverged"`` stop): chunks of unequal sizes, so queries
cross chunk borders."""

from __future__ import annotations

import warnings

import numpy as np

#: Chunks of the 300 rows, of unequal sizes.
CHUNKS = (90, 41, 120, 49)


def position_rows():
    """(X, grades, qid, position, clicks): 300 rows of 5 features, 30 queries of 10 places, grades 0-3 from the first
    feature plus noise, clicks falling with the place."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    grades = np.clip(np.round(X[:, 0] + rng.normal(size=300) + 1), 0, 3).astype(int)
    qid = np.repeat(np.arange(30), 10)
    position = np.tile(np.arange(10), 30)
    clicks = (np.random.default_rng(2).random(300) < 0.3 / (1 + position)).astype(int)
    return X, grades, qid, position, clicks


def chunked(a):
    """``a`` as a Dask array in :data:`CHUNKS` of rows (all columns in each chunk)."""
    import dask.array as da

    return da.from_array(a, chunks=(CHUNKS, -1) if a.ndim == 2 else (CHUNKS,))


def dask_and_memory_fits(params, X, y, weight=None, *, only=Warning, **rows):
    """[(the distributed Dask model, its warnings' messages), (the in-memory model, its)] of one fit of ``params``:
    the rows ``X``, ``y``, ``weight`` and ``rows`` (qid=, position=) chunked for Dask; warnings of category ``only``."""
    import rankcore
    from rankcore.dask import DaskPushBoost

    fits = []
    for on_dask in (True, False):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if on_dask:
                model = DaskPushBoost(placement="distributed", **params)
                model.fit(chunked(X), chunked(y), None if weight is None else chunked(weight),
                          **{k: chunked(v) for k, v in rows.items()})
            else:
                model = rankcore.PushBoost(**params).fit(X, y, weight, **rows)
        fits.append((model, [str(w.message) for w in caught if issubclass(w.category, only)]))
    return fits

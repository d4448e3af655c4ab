"""Initial scores of a Dask fit (``fit(..., init_score=...)``): checked where they are, kept with their rows.

``init_score`` (LightGBM's ``init_score``) is one finite score per training
row, at which the fit's training scores start instead of 0; the model is the
weak rankers alone, as in memory (``rankcore.push._row_inputs``).  On Dask it
is a vector with the rows' chunks: given in memory it is checked whole (the
in-memory fit's errors) and sent to the workers once; given as a Dask
collection each chunk is checked where it is computed, its rows numbered as
in ``X``.  The vector then follows its rows -- into query order
(``rankcore.dask._queries``), into the hold-out of ``early_stopping="auto"``
and the rows beside it -- and each shard's block starts its scores at its
rows' initial scores (:func:`rankcore.dask._shard.with_init`).  A fit on one
worker gathers it with the rows and passes it to the in-memory ``fit``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..push import check_init_score
from ._inputs import _as_dask_vector, is_dask_collection

__all__ = ["init_vector", "local_scores"]


def _checked_chunk(init, block_info=None) -> np.ndarray:
    """One chunk of initial scores as float64, refused (naming the row of X) unless every score is finite."""
    start = 0 if not block_info else int(block_info[0]["array-location"][0][0])
    arr = np.asarray(init, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"init_score: every initial score must be finite, row {start + int(bad[0])} has "
                         f"{arr[bad[0]]}")
    return arr


def init_vector(init_score: Any, chunk_rows: tuple, client):
    """``init_score`` as a float64 Dask vector with the row chunks ``chunk_rows`` (None for None); see the module
    docs.

    An in-memory array is checked whole (:func:`~rankcore.push.check_init_score`) and persisted on the workers
    (its graph would embed it in every pass); a Dask collection is checked chunk by chunk when it is computed.
    """
    if init_score is None:
        return None
    if not is_dask_collection(init_score):
        local = check_init_score(init_score, sum(chunk_rows))
        return client.persist(_as_dask_vector(local, tuple(chunk_rows), name="init_score"))
    vector = _as_dask_vector(init_score, tuple(chunk_rows), name="init_score")
    if (not np.issubdtype(vector.dtype, np.number) and vector.dtype != bool) or np.iscomplexobj(vector):
        raise TypeError(f"init_score: expected one number per row (the score each row starts from), got a Dask "
                        f"collection of {vector.dtype}")
    return vector.map_blocks(_checked_chunk, dtype=np.float64, meta=np.empty(0, dtype=np.float64))


def local_scores(value: Any, client) -> Any:
    """An initial-score vector of a (small) validation set or of scored rows on the client: Dask computed there."""
    if is_dask_collection(value):
        return np.asarray(client.compute(value).result())
    return value

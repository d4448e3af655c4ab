"""``rankcore.dask.bin_edges``: the ``stumps`` bin edges of distributed data, by the in-memory rule."""

from __future__ import annotations

from typing import Any

from ..learners import check_binning_options
from ._inputs import as_row_chunks, get_client
from ._prepare import stump_edges, summarize
from ._workers import worker_info

__all__ = ["bin_edges"]


def bin_edges(X: Any, max_bins: int = 256, *, sample_weight: Any = None, subsample: int | None = 200_000,
              random_state: Any = None, client: Any = None):
    """Per-feature bin edges of a distributed X: equal to ``rankcore.learners.bin_edges`` of the same rows.

    The method is :func:`rankcore.learners.bin_edges`'s: exact midpoints
    between distinct values (at most ``max_bins`` of them), else between
    weighted quantiles, computed on the rows
    :func:`rankcore.learners.sample_rows` draws among those of positive
    weight (``subsample`` of them; all with ``subsample=None``, which gathers
    every row on the client -- small data only).  Only the sampled rows are
    gathered; the positions depend on the row count and ``random_state``
    alone, so the result equals the in-memory edges of the same data.  Pass
    the edges to an estimator's ``thresholds=`` to fit in memory and on Dask
    on exactly the same candidates.

    Returns
    -------
    list of ndarray of float64, one sorted array per feature
    """
    max_bins, subsample = check_binning_options(max_bins, subsample)
    client = get_client(client)
    worker_info(client, "binning")  # no workers: said now, not a wait for one
    data = as_row_chunks(X, None, sample_weight).persist_if_local(client)
    summary = summarize(client, data, task=None)
    return stump_edges(client, data, summary, max_bins, subsample, random_state)

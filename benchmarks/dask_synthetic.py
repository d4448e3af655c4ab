"""Synthetic ranking data generated chunk by chunk on the Dask workers (for the Dask benchmarks).

Chunk i of ``synthetic(n, d, chunk_rows, seed)`` is drawn by
``numpy.random.default_rng([seed, i])`` on the worker that computes it:
X ~ N(0, 1) float32 (n × d), y = 1 with probability ``positive_rate``, and
the positives shifted by ``shift`` on the first ``informative`` features.
The graph holds only (seed, chunk index, rows); nothing is generated on the
client, and every computation regenerates the chunks it needs (so passes
over X cost a generation each, as reading from storage would).
"""

from __future__ import annotations

import numpy as np

__all__ = ["synthetic", "local_slice"]


def _chunk(rows: int, d: int, seed: int, index: int, positive_rate: float, informative: int, shift: float):
    rng = np.random.default_rng([seed, index])
    Z = np.empty((rows, d + 1), dtype=np.float32)
    Z[:, :d] = rng.standard_normal((rows, d), dtype=np.float32)
    y = rng.random(rows) < positive_rate
    Z[y, :informative] += shift
    Z[:, d] = y
    return Z


def synthetic(n: int, d: int = 50, *, chunk_rows: int = 500_000, seed: int = 0, positive_rate: float = 0.05,
              informative: int = 10, shift: float = 0.3):
    """(X, y) as lazy Dask arrays: X float32 (n, d), y float32 0/1 (n,), chunks of ``chunk_rows`` rows."""
    import dask
    import dask.array as da

    sizes = [min(chunk_rows, n - start) for start in range(0, n, chunk_rows)]
    blocks = [da.from_delayed(dask.delayed(_chunk, pure=True)(rows, d, seed, i, positive_rate, informative, shift),
                              shape=(rows, d + 1), dtype=np.float32)
              for i, rows in enumerate(sizes)]
    Z = da.concatenate(blocks, axis=0)
    return Z[:, :d], Z[:, d]


def local_slice(n_rows: int, d: int = 50, *, chunk_rows: int = 500_000, seed: int = 0, **kwargs):
    """The first ``n_rows`` rows of :func:`synthetic` as NumPy arrays, generated on the client.

    ``n_rows`` must be a multiple of ``chunk_rows`` (chunks are drawn whole).
    """
    if n_rows % chunk_rows:
        raise ValueError(f"n_rows: expected a multiple of chunk_rows={chunk_rows}, got {n_rows}")
    parts, start, i = [], 0, 0
    while start < n_rows:
        rows = min(chunk_rows, n_rows - start)
        parts.append(_chunk(rows, d, seed, i, kwargs.get("positive_rate", 0.05), kwargs.get("informative", 10),
                            kwargs.get("shift", 0.3)))
        start += rows
        i += 1
    Z = np.concatenate(parts)
    return np.ascontiguousarray(Z[:, :d]), Z[:, d].astype(np.int8)

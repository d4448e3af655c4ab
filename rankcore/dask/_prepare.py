"""Passes over the distributed training data before boosting: validation, labels, the learner's rows.

Everything here is a per-chunk function run on the workers (small results)
plus its merge on the client:

* :func:`summarize` -- one pass: validates every chunk (finite numbers,
  labels, weights) and returns the row counts, the labels present, the weight
  of each label, and each feature's range over the rows of positive weight.
* :class:`DaskRows` -- the distributed rows as a
  :class:`rankcore.learners.RowSource`: the learner prepares itself with
  :meth:`rankcore.Learner.prepare_distributed`, asking for what its own
  preparation needs, each answer computed from the chunks by the *same rule*
  as in memory:

  ``sample(subsample, random_state)``
      the rows :func:`rankcore.learners.sample_rows` draws (``subsample``
      rows of positive weight, positions depending only on their count and
      ``random_state``): the client draws the positions, each chunk returns
      its sampled rows (``stumps`` and ``trees`` bin edges: identical to the
      in-memory edges for the same ``random_state``);
  ``quantiles(q)``
      the q weighted quantiles of every feature over *all* rows, exactly, by
      key refinement (:mod:`rankcore.dask._order`: at most ⌈64/log₂ m⌉ passes
      of d·q·m counts) -- ``thresholds``;
  ``count_above(thresholds)``, ``reduce(func, ...)``
      additive per-chunk statistics, added on the workers;
  ``distinct(columns, most)``
      each chunk's distinct values of a few columns (at most ``most + 1``
      each), merged on the client -- the ``trees``' categories;
  ``ranges()``
      the per-feature min and max of the rows of positive weight (from the
      summary pass) -- ``features``;
  ``gather()``
      every row on the client: the default preparation of a learner that
      declares nothing else (correct for any learner; O(n·d) on the client).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..learners import RowSource, sample_rows
from ..validation import (ArgumentRefusal, _describe, check_bipartite_target, check_graded_labels, check_matrix,
                          check_scores, ordered_labels)
from ._order import RankSearch, float_keys, interval_counts

__all__ = ["DataSummary", "summarize", "DaskRows", "stump_edges", "check_chunk"]


# --------------------------------------------------------------------------
# Per-chunk validation
# --------------------------------------------------------------------------

def check_chunk(i: int, X, y, w, *, task: str | None):
    """Validated (X, y, w) of chunk i: X float32/float64 finite, w finite >= 0 (or None)."""
    X = np.asarray(X)
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    try:
        X = check_matrix(X, name=f"X (chunk {i})", dtype=dtype, min_rows=0)
    except ValueError:
        if X.dtype.kind == "f" and np.isnan(X).any():
            r, c = (int(v[0]) for v in np.nonzero(np.isnan(X)))
            raise ValueError(f"X (chunk {i}): missing values (NaN) are not supported on Dask, got NaN at row {r}, "
                             f"column {c}; impute them first (e.g. dask_ml.impute.SimpleImputer), or fit in "
                             f"memory, where the trees learner takes NaN") from None
        raise
    if w is not None:
        w = check_scores(w, name=f"sample_weight (chunk {i})", allow_empty=True)
        if (w < 0).any():
            raise ArgumentRefusal.said(f"sample_weight (chunk {i})",
                                       f"expected non-negative weights, got {_describe(w[w < 0])}")
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y (chunk {i}): expected a 1-D array of labels, got shape {y.shape}")
        if task == "graded":
            y = check_graded_labels(y, name=f"y (chunk {i})") if y.shape[0] else y.astype(np.float64)
        elif y.dtype.kind == "f" and y.size and not np.isfinite(y).all():
            raise ValueError(f"y (chunk {i}): expected finite labels, got NaN or infinity")
    return X, y, w


def _chunk_summary(i, X, y, w, task, positions=None):
    X, y, w = check_chunk(i, X, y, w, task=task)
    n, d = X.shape
    live = np.ones(n, dtype=bool) if w is None else w > 0
    rows = X[live] if w is not None else X
    out = {
        "n": n,
        "dtype": X.dtype.str,
        "n_live": int(live.sum()),
        "lows": rows.min(axis=0).astype(np.float64) if rows.shape[0] else None,
        "highs": rows.max(axis=0).astype(np.float64) if rows.shape[0] else None,
        "weight": float(n if w is None else w.sum()),
    }
    if positions is not None:              # the bin-edge sample's rows of this chunk (unweighted rows only)
        out["sample"] = X[positions]
    if y is None:
        return out
    if task == "bipartite":
        labels, inverse = ordered_labels(y, f"y (chunk {i})")
        if labels.shape[0] > 2:
            raise ValueError(f"y: expected two classes (bipartite ranking), got at least {labels.shape[0]} "
                             f"in chunk {i}: {_describe(labels)}")
        out["labels"] = labels
        out["label_weight"] = np.bincount(inverse.reshape(-1), weights=w, minlength=labels.shape[0]).astype(np.float64)
    return out


@dataclass
class DataSummary:
    """What the summary pass learned about the training data.

    Attributes
    ----------
    chunk_rows, chunk_live : tuple of int
        Rows, and rows of positive weight, per chunk.
    dtype : numpy dtype
        float32 when every chunk is float32 (kept for the learners), else float64.
    classes : ndarray (2,) or None
        The two labels (bipartite), sorted; ``classes[1]`` is relevant.
    class_weight : ndarray (2,) or None
        Total weight of the negatives and of the positives.
    weight : float
        Total weight.
    lows, highs : ndarray (d,)
        Per-feature range over the rows of positive weight.
    """

    chunk_rows: tuple
    chunk_live: tuple
    dtype: Any
    classes: np.ndarray | None
    class_weight: np.ndarray | None
    weight: float
    lows: np.ndarray
    highs: np.ndarray
    extra: dict = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return int(sum(self.chunk_rows))

    @property
    def n_live(self) -> int:
        return int(sum(self.chunk_live))


def _sample_positions(chunk_live, subsample: int | None, random_state: Any) -> list[np.ndarray]:
    """Per chunk, the positions among its rows of positive weight that ``sample_rows`` draws over all chunks."""
    live = np.asarray(chunk_live, dtype=np.int64)
    positions = sample_rows(int(live.sum()), subsample, random_state)
    offsets = np.r_[0, np.cumsum(live)]
    return [positions[(positions >= offsets[c]) & (positions < offsets[c + 1])] - offsets[c]
            for c in range(live.shape[0])]


def summarize(client, data, *, task: str | None, sample: tuple | None = None) -> DataSummary:
    """One validating pass over (X, y, sample_weight); see the module docs.

    ``sample``: ``(subsample, random_state)`` of the bin-edge sample the
    learner will ask (:meth:`rankcore.Learner.distributed_sample`).  Without
    weights every row is live and the chunk sizes are known before the pass,
    so the sample's positions are drawn now and each chunk returns its sampled
    rows with its summary: :meth:`DaskRows.sample` then serves that request
    without a pass of its own (one round trip and one read of X fewer).
    Ignored with weights (the live rows are known only after this pass).
    """
    per_chunk = None
    if sample is not None and data.weight is None:
        per_chunk = _sample_positions(data.chunk_rows, *sample)
    if per_chunk is None:
        parts = data.map(client, _chunk_summary, task)
    else:
        parts = client.gather(client.compute(_summary_tasks(data, task, per_chunk)))
    lows = [p["lows"] for p in parts if p["lows"] is not None]
    highs = [p["highs"] for p in parts if p["highs"] is not None]
    if not lows:
        raise ArgumentRefusal.said("sample_weight", "expected a positive total weight, got all zeros")
    dtype = np.float32 if all(p["dtype"] == np.dtype(np.float32).str for p in parts) else np.float64
    weight = float(sum(p["weight"] for p in parts))
    if data.weight is not None and not weight > 0:
        raise ArgumentRefusal.said("sample_weight", "expected a positive total weight, got all zeros")
    classes = class_weight = None
    if task == "bipartite" and data.y is not None:
        union = np.concatenate([p["labels"] for p in parts])
        _, classes = check_bipartite_target(np.unique(union), name="y")
        class_weight = np.zeros(2)
        for p in parts:
            for label, mass in zip(p["labels"], p["label_weight"]):
                class_weight[int(label == classes[1])] += mass
    extra = {}
    if per_chunk is not None:
        Xs = np.concatenate([p["sample"] for p in parts]).astype(dtype, copy=False)
        extra["sample"] = (tuple(sample), Xs)
    return DataSummary(
        chunk_rows=tuple(p["n"] for p in parts),
        chunk_live=tuple(p["n_live"] for p in parts),
        dtype=dtype,
        classes=classes,
        class_weight=class_weight,
        weight=weight,
        lows=np.minimum.reduce(lows),
        highs=np.maximum.reduce(highs),
        extra=extra,
    )


def _summary_tasks(data, task, per_chunk):
    """The summary pass's tasks, each chunk's sample positions embedded in its task."""
    import dask

    call = dask.delayed(_chunk_summary, pure=False)
    return [call(i, x, y, w, task, per_chunk[i]) for i, (x, y, w) in enumerate(data.delayed_chunks())]


# --------------------------------------------------------------------------
# stumps: exact quantiles of the stated sample
# --------------------------------------------------------------------------

def _chunk_sample(i, X, y, w, positions):
    X, _, w = check_chunk(i, X, None, w, task=None)
    rows = positions if w is None else np.flatnonzero(w > 0)[positions]
    return X[rows], (None if w is None else w[rows])


def sample(client, data, summary: DataSummary, subsample: int | None, random_state: Any):
    """The rows :func:`rankcore.learners.sample_rows` draws, gathered on the client.

    The draw is over the rows of positive weight (all rows without weights),
    so positions are drawn in that index space and mapped to chunks by their
    per-chunk counts: the same rows the in-memory learner uses.
    """
    per_chunk = _sample_positions(summary.chunk_live, subsample, random_state)
    import dask

    call = dask.delayed(_chunk_sample, pure=False)
    tasks = [call(i, x, None, w, per_chunk[i]) for i, (x, _, w) in enumerate(data.delayed_chunks())
             if per_chunk[i].size]
    parts = client.gather(client.compute(tasks))
    Xs = np.concatenate([p[0] for p in parts]).astype(summary.dtype, copy=False)
    ws = None if data.weight is None else np.concatenate([p[1] for p in parts])
    return Xs, ws


def stump_edges(client, data, summary: DataSummary, max_bins: int, subsample: int | None,
                random_state: Any) -> list[np.ndarray]:
    """``bin_edges`` of the sampled rows: the in-memory ``stumps`` edges for the same ``random_state``."""
    from ..learners import bin_edges

    Xs, ws = sample(client, data, summary, subsample, random_state)
    return bin_edges(Xs, max_bins, sample_weight=ws, subsample=None)


# --------------------------------------------------------------------------
# thresholds: exact weighted quantiles of all rows, equivalent thresholds dropped
# --------------------------------------------------------------------------

def _chunk_interval_counts(i, X, y, w, request, counts: bool = False):
    """``interval_counts`` of chunk i's rows of positive weight; ``counts``: their counts, not their weights."""
    X, _, w = check_chunk(i, X, None, w, task=None)
    if w is not None:
        live = w > 0
        X, w = X[live], None if counts else w[live]
    return interval_counts(X, w, *request)


def _equal_weights(client, data) -> bool:
    """Whether the positive weights are all equal (ones, 0.1 everywhere): in memory their quantiles are the
    counts' (``rankcore.learners.quantile_thresholds``).  One pass over the weights."""
    import dask.array as da

    low, high = client.gather(client.compute([da.where(data.weight > 0, data.weight, np.inf).min(),
                                              data.weight.max()]))
    return bool(low == high)


def exact_quantiles(client, data, summary: DataSummary, q: int, *, bins: int = 1024) -> list[np.ndarray]:
    """``quantile_thresholds(X, q, sample_weight, subsample=None)`` of the distributed rows, exactly.

    Per feature the values at the weighted quantile levels j/(q+1) (the
    smallest value whose cumulative weight reaches the level), found by key
    refinement; duplicates dropped.
    """
    d = len(summary.lows)
    weighted = data.weight is not None and not _equal_weights(client, data)
    total = summary.weight if weighted else float(summary.n_live)
    # weighted: a running sum within its rounding below a level reaches it, as in memory (the slack of
    # ``rankcore.learners``' weighted quantiles, for at most n_live terms); counts are compared exactly
    slack = (summary.n_live + 1) * np.finfo(np.float64).eps * total if weighted else 0.0
    levels = np.arange(1, q + 1) / (q + 1) * total - slack
    columns = np.repeat(np.arange(d), q)
    search = RankSearch(columns, np.tile(levels, d), float_keys(summary.lows)[columns],
                        float_keys(summary.highs)[columns], bins=bins)
    while not search.done:
        request = search.request()
        search.update(data.reduce(client, _chunk_interval_counts, request, counts=not weighted))
    values = search.values().reshape(d, q)
    return [np.unique(values[j]) for j in range(d)]


def _chunk_reduce(i, X, y, w, func, args):
    X, _, w = check_chunk(i, X, None, w, task=None)
    return func(X, w, *args)


def _chunk_distinct(i, X, y, w, columns, most):
    """Per listed column, chunk i's ``most + 1`` smallest distinct non-missing values (float64, ascending)."""
    X, _, _ = check_chunk(i, X, None, None, task=None)
    out = []
    for j in columns:
        values = np.asarray(X[:, j], dtype=np.float64)
        out.append(np.unique(values[~np.isnan(values)])[: most + 1])
    return out


def _chunk_rows(i, X, y, w):
    X, _, w = check_chunk(i, X, None, w, task=None)
    return X, w


def _same_request(a: tuple, b: tuple) -> bool:
    """Two ``(subsample, random_state)`` requests draw the same rows: equal integers (None or a Generator never)."""
    def plain(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
    return all(plain(x) and plain(y) for x, y in zip(a, b)) and tuple(a) == tuple(b)


class DaskRows(RowSource):
    """The distributed training rows as a :class:`rankcore.learners.RowSource` (see the module docs)."""

    def __init__(self, client, data, summary: DataSummary):
        self.client = client
        self.data = data
        self.summary = summary
        self.n_rows = summary.n_rows
        self.n_live = summary.n_live
        self.n_features = len(summary.lows)
        self.dtype = np.dtype(summary.dtype)
        self.weighted = data.weight is not None

    def ranges(self):
        return self.summary.lows.copy(), self.summary.highs.copy()

    def sample(self, subsample, random_state=None):
        fetched = self.summary.extra.get("sample")
        if fetched is not None and _same_request(fetched[0], (subsample, random_state)):
            return fetched[1], None               # drawn with the summary pass (unweighted rows)
        return sample(self.client, self.data, self.summary, subsample, random_state)

    def quantiles(self, q):
        return exact_quantiles(self.client, self.data, self.summary, int(q))

    def reduce(self, func: Callable, *args: Any):
        return self.data.reduce(self.client, _chunk_reduce, func, args)

    def distinct(self, columns, most):
        """Each chunk's distinct values of the columns (at most ``most + 1`` a column), merged on the client: a
        category occurring in any row is found, whatever the weights and the bin-edge sample."""
        columns, most = [int(j) for j in columns], int(most)
        if not columns:
            return []
        parts = self.data.map(self.client, _chunk_distinct, columns, most)
        return [np.unique(np.concatenate([p[q] for p in parts]))[: most + 1] for q in range(len(columns))]

    def gather(self):
        parts = self.data.map(self.client, _chunk_rows)
        X = np.concatenate([p[0] for p in parts]).astype(self.dtype, copy=False)
        w = None if not self.weighted else np.concatenate([p[1] for p in parts])
        return X, w

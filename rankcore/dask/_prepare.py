"""Passes over the distributed training data before boosting: validation, labels, binning.

Everything here is a per-chunk function run on the workers (small results)
plus its merge on the client:

* :func:`summarize` -- one pass: validates every chunk (finite numbers,
  labels, weights) and returns the row counts, the labels present, the weight
  of each label, and each feature's range over the rows of positive weight.
* :func:`prepare_layout` -- the learner's data-dependent part, computed from
  the distributed rows by the *same rule* as the in-memory learner:

  ``stumps``
      bin edges by :func:`rankcore.learners.bin_edges` applied to the rows
      :func:`rankcore.learners.sample_rows` draws (``subsample`` rows of
      positive weight, positions depending only on their count and
      ``random_state``).  The client draws the positions, each chunk returns
      its sampled rows (``subsample`` × d numbers in all), and the edges are
      exact quantiles of that stated sample -- identical to the in-memory
      edges for the same ``random_state``.
  ``thresholds``
      the q weighted quantiles of every feature over *all* rows, exactly, by
      key refinement (:mod:`rankcore.dask._order`: at most ⌈64/log₂ m⌉ passes
      of d·q·m counts), then thresholds that split the rows identically are
      dropped (one pass counting the rows above each threshold).
  ``features``
      the per-feature min and max of the rows of positive weight (from the
      summary pass).

  Given ``thresholds=`` (e.g. edges shared with an in-memory fit), threshold
  learners use them as they are, as in memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..learners._binning import bin_edges, check_thresholds, sample_rows
from ..learners._features import FeatureLayout, Features
from ..learners._threshold import Stumps, ThresholdLayout, Thresholds
from ..learners._trees import Trees, _tree_edges
from ..validation import _describe, check_bipartite_target, check_graded_labels, check_matrix, check_scores
from ._order import RankSearch, float_keys, interval_counts

__all__ = ["DataSummary", "summarize", "prepare_layout", "check_learner", "SUPPORTED_LEARNERS", "check_chunk"]

#: Learners whose preparation has a distributed form (exact class match: a subclass may prepare differently).
SUPPORTED_LEARNERS = (Stumps, Thresholds, Features, Trees)


# --------------------------------------------------------------------------
# Per-chunk validation
# --------------------------------------------------------------------------

def check_chunk(i: int, X, y, w, *, task: str | None):
    """Validated (X, y, w) of chunk i: X float32/float64 finite, w finite >= 0 (or None)."""
    X = np.asarray(X)
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    X = check_matrix(X, name=f"X (chunk {i})", dtype=dtype, min_rows=0)
    if w is not None:
        w = check_scores(w, name=f"sample_weight (chunk {i})", allow_empty=True)
        if (w < 0).any():
            raise ValueError(f"sample_weight (chunk {i}): expected non-negative weights, got {_describe(w[w < 0])}")
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y (chunk {i}): expected a 1-D array of labels, got shape {y.shape}")
        if task == "graded":
            y = check_graded_labels(y, name=f"y (chunk {i})") if y.shape[0] else y.astype(np.float64)
        elif y.dtype.kind == "f" and y.size and not np.isfinite(y).all():
            raise ValueError(f"y (chunk {i}): expected finite labels, got NaN or infinity")
    return X, y, w


def _chunk_summary(i, X, y, w, task):
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
    if y is None:
        return out
    if task == "bipartite":
        if y.dtype == object:
            try:
                labels, inverse = np.unique(y, return_inverse=True)
            except TypeError:
                raise TypeError(f"y (chunk {i}): labels of mixed types cannot be ordered") from None
        else:
            labels, inverse = np.unique(y, return_inverse=True)
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


def summarize(client, data, *, task: str | None) -> DataSummary:
    """One validating pass over (X, y, sample_weight); see the module docs."""
    parts = data.map(client, _chunk_summary, task)
    lows = [p["lows"] for p in parts if p["lows"] is not None]
    highs = [p["highs"] for p in parts if p["highs"] is not None]
    if not lows:
        raise ValueError("sample_weight: expected a positive total weight, got all zeros")
    dtype = np.float32 if all(p["dtype"] == np.dtype(np.float32).str for p in parts) else np.float64
    weight = float(sum(p["weight"] for p in parts))
    if data.weight is not None and not weight > 0:
        raise ValueError("sample_weight: expected a positive total weight, got all zeros")
    classes = class_weight = None
    if task == "bipartite" and data.y is not None:
        union = np.concatenate([p["labels"] for p in parts])
        _, classes = check_bipartite_target(np.unique(union), name="y")
        class_weight = np.zeros(2)
        for p in parts:
            for label, mass in zip(p["labels"], p["label_weight"]):
                class_weight[int(label == classes[1])] += mass
    return DataSummary(
        chunk_rows=tuple(p["n"] for p in parts),
        chunk_live=tuple(p["n_live"] for p in parts),
        dtype=dtype,
        classes=classes,
        class_weight=class_weight,
        weight=weight,
        lows=np.minimum.reduce(lows),
        highs=np.maximum.reduce(highs),
    )


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
    live = np.asarray(summary.chunk_live, dtype=np.int64)
    total = int(live.sum())
    positions = sample_rows(total, subsample, random_state)
    offsets = np.r_[0, np.cumsum(live)]
    per_chunk = [positions[(positions >= offsets[c]) & (positions < offsets[c + 1])] - offsets[c]
                 for c in range(live.shape[0])]
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
    Xs, ws = sample(client, data, summary, subsample, random_state)
    return bin_edges(Xs, max_bins, sample_weight=ws, subsample=None)


# --------------------------------------------------------------------------
# thresholds: exact weighted quantiles of all rows, equivalent thresholds dropped
# --------------------------------------------------------------------------

def _chunk_interval_counts(i, X, y, w, request):
    X, _, w = check_chunk(i, X, None, w, task=None)
    if w is not None:
        live = w > 0
        X, w = X[live], w[live]
    return interval_counts(X, w, *request)


def exact_quantiles(client, data, summary: DataSummary, q: int, *, bins: int = 1024) -> list[np.ndarray]:
    """``quantile_thresholds(X, q, sample_weight, subsample=None)`` of the distributed rows, exactly.

    Per feature the values at the weighted quantile levels j/(q+1) (the
    smallest value whose cumulative weight reaches the level), found by key
    refinement; duplicates dropped.
    """
    d = len(summary.lows)
    total = summary.weight if data.weight is not None else float(summary.n_live)
    levels = np.arange(1, q + 1) / (q + 1) * total
    columns = np.repeat(np.arange(d), q)
    search = RankSearch(columns, np.tile(levels, d), float_keys(summary.lows)[columns],
                        float_keys(summary.highs)[columns], bins=bins)
    while not search.done:
        request = search.request()
        search.update(data.reduce(client, _chunk_interval_counts, request))
    values = search.values().reshape(d, q)
    return [np.unique(values[j]) for j in range(d)]


def _chunk_above(i, X, y, w, thresholds):
    X, _, w = check_chunk(i, X, None, w, task=None)
    if w is not None:
        X = X[w > 0]
    out = []
    for j, t in enumerate(thresholds):
        values = np.sort(X[:, j].astype(np.float64))
        out.append(values.shape[0] - np.searchsorted(values, t, side="right"))
    return out


def drop_equivalent(client, data, summary: DataSummary, thresholds: list[np.ndarray]) -> list[np.ndarray]:
    """The ``thresholds`` learner's rule: per class of thresholds splitting the rows alike, the smallest.

    Counts #{x > t} over the rows of positive weight, added over chunks.
    """
    counts = data.reduce(client, _chunk_above, thresholds)
    n = summary.n_live
    out = []
    for j, t in enumerate(thresholds):
        if t.size == 0:
            out.append(t)
            continue
        above = counts[j]
        keep = (above > 0) & (above < n)
        keep[1:] &= above[1:] != above[:-1]
        out.append(t[keep])
    return out


# --------------------------------------------------------------------------

def check_learner(learner) -> None:
    """Raise ValueError for a learner without a distributed preparation."""
    if type(learner) in SUPPORTED_LEARNERS:
        return
    names = ", ".join(repr(c.name) for c in SUPPORTED_LEARNERS)
    raise ValueError(
        f"learner {learner.spec!r}: rankcore.dask cannot prepare it on distributed data -- a learner's "
        f"prepare() reads the whole training matrix in memory, and only {names} have a distributed "
        f"preparation (their statistics are then summed over chunks like any learner's)"
    )


def prepare_layout(client, data, summary: DataSummary, learner, *, thresholds: Any = None,
                   random_state: Any = None, n_threads: int = 1):
    """The learner's layout from the distributed rows (see the module docs).

    Raises
    ------
    ValueError
        For a learner without a distributed preparation (a third-party
        learner's ``prepare`` reads the whole matrix in memory).
    """
    kind = type(learner)
    d = len(summary.lows)
    if kind is Stumps:
        if thresholds is not None:
            edges = check_thresholds(thresholds, d)
        else:
            edges = stump_edges(client, data, summary, learner.max_bins, learner.subsample, random_state)
        return ThresholdLayout(edges, n_threads=n_threads)
    if kind is Thresholds:
        if thresholds is not None:
            candidates = check_thresholds(thresholds, d)
        else:
            candidates = exact_quantiles(client, data, summary, learner.q)
        return ThresholdLayout(drop_equivalent(client, data, summary, candidates), n_threads=n_threads)
    if kind is Features:
        if thresholds is not None:
            raise ValueError(f"learner {learner.spec!r} does not use thresholds; leave thresholds=None")
        return FeatureLayout(summary.lows, summary.highs, n_threads=n_threads)
    if kind is Trees:
        if thresholds is not None:
            raise ValueError(f"learner {learner.spec!r} does not use thresholds; leave thresholds=None")
        if learner.categorical:
            raise ValueError(f"learner {learner.spec!r}: categorical columns are not supported on Dask yet "
                             f"(fit in memory, or leave categorical unset to split their codes as numbers)")
        # the in-memory rule on the same sample of rows (sample_rows with the same random_state)
        Xs, ws = sample(client, data, summary, learner.bin_subsample, random_state)
        edges = _tree_edges(Xs, learner.max_bins, ws, None, None)
        return learner.layout_from_edges(edges, random_state=random_state, n_threads=n_threads)
    check_learner(learner)
    raise AssertionError(f"unreachable: {learner!r}")  # pragma: no cover

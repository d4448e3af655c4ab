"""Bootstrap replicates of a metric: one sort, then each replicate as weights over it.

Three paths, chosen by what the metric declares (``Metric.weighted_groups``):

* a Cython ``GroupMetric`` kernel (every scalar bipartite built-in): the
  replicates are drawn and evaluated in :mod:`rankcore.metrics._bootstrap`,
  without the GIL, on every core, in O(rows the metric reads) each;
* a Python ``from_weighted_groups`` (a plugin's resampling form): the same
  replicates' tie-group weights are drawn in Cython, the metric is called
  once per replicate in Python;
* no resampling form: each replicate's rows are rebuilt (the sorted rows
  repeated by their multiplicities) and the metric's ``compute`` runs on
  them -- correct for any metric, as slow as one evaluation per replicate.

All three draw the same replicates from the same seed (a bipartite metric
gives the same interval on either path), so the path is a matter of speed
only.  Graded metrics (real-valued labels) take the third path with row
multiplicities drawn by NumPy, stratified by label value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import Metric
from ._bootstrap import (
    bootstrap_group_weights,
    bootstrap_groups,
    bootstrap_row_weights,
    bootstrap_rows,
)
from ..validation import check_scores, global_random_state
from ._roc import roc_points
from ._split import split_sorted

__all__ = ["SortedData", "tie_groups", "replicate_values", "paired_replicate_values", "seed_of"]

#: At most this many weights (replicates x groups or rows) are drawn at once on the slower paths.
_CHUNK_CELLS = 1 << 22


def seed_of(random_state: Any) -> int:
    """A 64-bit key for the replicate streams from ``random_state`` (None: two draws from NumPy's global
    ``RandomState``, as the estimators' None, so that ``np.random.seed`` makes an interval repeat)."""
    if random_state is None:
        random_state = global_random_state()
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**64, dtype=np.uint64))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63, dtype=np.int64)) * 2 + int(random_state.randint(0, 2))
    sequence = np.random.SeedSequence(random_state)
    return int(sequence.generate_state(1, dtype=np.uint64)[0])


def tie_groups(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(positives, negatives, score) of each tie group of ascending-sorted sides, highest score first.

    The steps of the ROC curve (:func:`rankcore.metrics._roc.roc_points`): O(I + K).


    Parameters
    ----------
    pos, neg : ndarray
        The scores of the relevant and of the other rows, each sorted ascending.

    Returns
    -------
    tuple of ndarray
        The positives, the negatives and the score of each tie group, highest score first.

    Raises
    ------
    ValueError
        A side that is not a 1-D array of finite scores in ascending order
        (:func:`rankcore.metrics.split_sorted` gives them so).
    """
    sides = []
    for name, side in (("pos", pos), ("neg", neg)):
        arr = check_scores(side, name=name, allow_empty=True)
        if arr.shape[0] > 1 and not bool(np.all(arr[1:] >= arr[:-1])):
            first = int(np.flatnonzero(arr[1:] < arr[:-1])[0])
            raise ValueError(f"{name}: expected scores in ascending order (as split_sorted gives them), got "
                             f"{float(arr[first])!r} before {float(arr[first + 1])!r} at position {first}")
        sides.append(arr)
    return _tie_groups(*sides)


def _tie_groups(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`tie_groups` of checked sides."""
    fp, tp, thresholds = roc_points(pos, neg)
    return np.diff(tp), np.diff(fp), thresholds[1:]


class SortedData:
    """One validated scoring, sorted once; the tie groups are computed when first asked for."""

    def __init__(self, y: np.ndarray, scores: np.ndarray, *, n_threads: int | None = None):
        self.y = y
        self.scores = scores
        self.n_threads = n_threads
        self._sides: tuple[np.ndarray, np.ndarray] | None = None
        self._groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def sides(self) -> tuple[np.ndarray, np.ndarray]:
        """Ascending-sorted positive and negative scores."""
        if self._sides is None:
            self._sides = split_sorted(self.y, self.scores, n_threads=self.n_threads)
        return self._sides

    @property
    def groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positives, negatives, score) of each tie group, highest score first."""
        if self._groups is None:
            self._groups = _tie_groups(*self.sides)
        return self._groups


def _call(func, *args) -> float:
    """A replicate's value; a metric that refuses the replicate (ValueError) gives NaN (dropped, counted)."""
    try:
        value = float(func(*args))
    except (ValueError, ZeroDivisionError, FloatingPointError):
        return float("nan")
    return value


def _chunks(n_boot: int, width: int):
    step = max(1, _CHUNK_CELLS // max(1, width))
    for start in range(0, n_boot, step):
        yield start, min(step, n_boot - start)


def replicate_values(metric: Metric, data: SortedData, seed: int, n_boot: int, *, stratified: bool,
                     n_threads: int) -> tuple[np.ndarray, str]:
    """The metric on ``n_boot`` bootstrap replicates of ``data``; NaN where undefined.

    Returns the values and the path taken (``"kernel"``, ``"groups"`` or ``"rows"``).
    """
    if metric.task == "graded":
        return _graded_values(metric.compute, data.y, [data.scores], seed, n_boot, stratified)[:, 0], "rows"
    pos_size, neg_size, values = data.groups
    if metric.weighted_groups:
        kernel = metric.weighted_group_kernel()
        if kernel is not None:
            return bootstrap_groups(kernel, pos_size, neg_size, seed, n_boot, stratified, n_threads), "kernel"
    out = np.empty(n_boot, dtype=np.float64)
    for start, count in _chunks(n_boot, pos_size.shape[0]):
        pos_w, neg_w = bootstrap_group_weights(pos_size, neg_size, seed, start, count, stratified)
        for r in range(count):
            if metric.weighted_groups:
                out[start + r] = _call(metric.from_weighted_groups, pos_w[r], neg_w[r])
            else:
                p = pos_w[r].astype(np.int64)
                q = neg_w[r].astype(np.int64)
                y_rep = np.repeat(np.array([1, 0], dtype=np.int8), [int(p.sum()), int(q.sum())])
                s_rep = np.concatenate([np.repeat(values, p), np.repeat(values, q)])
                out[start + r] = _call(metric.compute, y_rep, s_rep)
    return out, ("groups" if metric.weighted_groups else "rows")


def _order_and_ends(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Rows in decreasing score order and the end of each tie group (padded to n)."""
    order = np.argsort(-scores, kind="stable").astype(np.int64, copy=False)
    ranked = scores[order]
    ends = np.flatnonzero(ranked[1:] != ranked[:-1]) + 1
    ends = np.concatenate([ends, [scores.shape[0]]]).astype(np.int64)
    padded = np.full(scores.shape[0], scores.shape[0], dtype=np.int64)
    padded[: ends.shape[0]] = ends
    return order, padded, int(ends.shape[0])


def paired_replicate_values(metric: Metric, y: np.ndarray, scorings: list[np.ndarray], seed: int, n_boot: int, *,
                            stratified: bool, n_threads: int) -> tuple[np.ndarray, str]:
    """The metric of each scoring on shared replicates (row multiplicities): shape (n_boot, len(scorings))."""
    if metric.task == "graded":
        return _graded_values(metric.compute, y, scorings, seed, n_boot, stratified), "rows"
    kernel = metric.weighted_group_kernel() if metric.weighted_groups else None
    if kernel is not None:
        parts = [_order_and_ends(s) for s in scorings]
        orders = np.ascontiguousarray(np.stack([p[0] for p in parts]))
        ends = np.ascontiguousarray(np.stack([p[1] for p in parts]))
        n_groups = np.array([p[2] for p in parts], dtype=np.int64)
        return bootstrap_rows(kernel, y, orders, ends, n_groups, seed, n_boot, stratified, n_threads), "kernel"
    out = np.empty((n_boot, len(scorings)), dtype=np.float64)
    for start, count in _chunks(n_boot, y.shape[0]):
        weights = bootstrap_row_weights(y, seed, start, count, stratified)
        for r in range(count):
            y_rep = np.repeat(y, weights[r])
            for j, s in enumerate(scorings):
                out[start + r, j] = _call(metric.compute, y_rep, np.repeat(s, weights[r]))
    return out, "rows"


def _graded_values(compute, y: np.ndarray, scorings: list[np.ndarray], seed: int, n_boot: int,
                   stratified: bool) -> np.ndarray:
    """Replicates of a graded metric: multinomial row counts per label value (stratified) or overall.

    Replicate b draws from ``numpy.random.Generator(PCG64(SeedSequence([seed, b])))``,
    so it does not depend on the order of evaluation.
    """
    if stratified:
        _, strata = np.unique(y, return_inverse=True)
        members = [np.flatnonzero(strata.reshape(-1) == k) for k in range(int(strata.max()) + 1)]
    else:
        members = [np.arange(y.shape[0])]
    out = np.empty((n_boot, len(scorings)), dtype=np.float64)
    for b in range(n_boot):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, b])))
        counts = np.zeros(y.shape[0], dtype=np.int64)
        for rows in members:
            counts[rows] = rng.multinomial(rows.shape[0], np.full(rows.shape[0], 1.0 / rows.shape[0]))
        y_rep = np.repeat(y, counts)
        for j, s in enumerate(scorings):
            out[b, j] = _call(compute, y_rep, np.repeat(s, counts))
    return out

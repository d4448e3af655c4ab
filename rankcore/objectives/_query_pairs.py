"""Which levels of the per-query push's pairwise form are summed by which kernel.

With a loss other than ℓ(z) = e^{−rz}, each level below its query's top needs the loss's sums between
its rows and the rows above it (``_query_push.BoundQueryPush._pairwise``).  Three routes:

* the hinge losses' queries of more than a few levels (float grades: a level a row) are swept whole
  by ``_query_sweep_kernels``, O(n_q log n_q) whatever their number of levels, where level by level
  they cost O(levels · n_q log n_q);
* a level of few pairs goes to ``_query_pair_kernels`` with every other such level, one call for all
  (a loss without a compiled evaluator: to ``_query_pair_numpy``, NumPy over chunks of their pairs);
* a level of many pairs keeps the loss's own sums, which may beat visiting its pairs (the hinge
  losses sort: O(n log n)).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SMALL_LEVEL_PAIRS", "SWEEP_MIN_ROWS", "SWEEP_MANY_LEVELS", "SWEEP_MAX_LEVEL_ROWS", "LevelRoutes",
           "swept_queries"]

#: The most pairs (|level| · |rows above it|) of a level summed by the one-call kernel.  Asking the loss for
#: one level's sums costs 20-50 µs of Python calls whatever the level's size; the kernel spends about 7 ns a
#: pair (hinge: two passes) to 40 ns (logistic: an exp and a log1p per pair and pass), where the logistic's
#: own factored sums spend some 2 ns.  So the logistic sets the bound: measured per level (one level of
#: 1-128 rows below 4-4,096 rows, many such queries), its value and gradient by the kernel took 0.6-0.85 of
#: the per-level time at 512 pairs and were even at about 768 (with curvature, 0.35-0.45 at 512); the
#: hinge's broke even near 4,096.  At 512 every level routed here is at least as fast as on the loss's own
#: sums, for every built-in loss (``benchmarks/bench_query_objective.py``, levels at the threshold).
SMALL_LEVEL_PAIRS = 512

#: The sweep's bounds.  A query of at least SWEEP_MIN_ROWS rows in two levels or more is swept with the squared
#: hinge, and with the hinge when it has SWEEP_MANY_LEVELS levels or more or at most SWEEP_MAX_LEVEL_ROWS rows a
#: level on average.  Measured on one query (value and gradient for the hinge, with curvature for the squared
#: hinge, gain-weighted, pow:2, one thread), the sweep's time over the other routes': squared hinge 0.13-0.61 from
#: 5 levels on at 1,000-20,000 rows and 0.52-0.91 at 3 levels; hinge 0.25-0.98 from 8 levels on, 0.72 at 1,000
#: rows in 5 levels, but 1.07-2.16 at 3 levels and 1.27-1.33 at 5,000-20,000 rows in 5 levels, where the loss's
#: own sorted sums per level win.  On queries of 2-10 rows the one-call kernel of small levels was 1.3 times as
#: fast as the sweep (``benchmarks/bench_query_objective.py``).
SWEEP_MIN_ROWS = 16
SWEEP_MANY_LEVELS = 8
SWEEP_MAX_LEVEL_ROWS = 256


def swept_queries(loss, level_starts: np.ndarray, bounds: np.ndarray, n_rows: int) -> np.ndarray:
    """The queries the sweep takes whole: int64 indices (none unless ``loss`` is exactly Hinge or SquaredHinge).

    A subclass may change the loss, so only the two built-in types are swept.  O(queries).
    """
    from ..losses import Hinge, SquaredHinge

    if type(loss) not in (Hinge, SquaredHinge):
        return np.zeros(0, dtype=np.int64)
    edges = np.append(level_starts, n_rows)
    levels = np.diff(bounds)
    rows = np.diff(edges[bounds])
    chosen = (levels >= 2) & (rows >= SWEEP_MIN_ROWS)
    if type(loss) is Hinge:
        chosen &= (levels >= SWEEP_MANY_LEVELS) | (rows <= SWEEP_MAX_LEVEL_ROWS * levels)
    return np.flatnonzero(chosen).astype(np.int64)


class LevelRoutes:
    """The levels below their query's top, split by pair count, in the forms the two paths take.

    Parameters
    ----------
    level_starts, level_ends : ndarray of int, shape (n_levels,)
        Each level's rows (sorted by (query, grade)).
    bounds : ndarray of int64, shape (n_queries + 1,)
        Query q owns the levels ``bounds[q]:bounds[q + 1]``.
    top_level : ndarray of bool, shape (n_levels,)
        Whether a level is its query's top (it prices nothing).
    level : ndarray of int, shape (n_rows,)
        Each row's level.
    max_pairs : int
        The most pairs of a level summed with the others at once (-1: none, every level by the loss).
    swept : ndarray of int64, optional
        The queries the sweep takes whole (``swept_queries``): none of their levels is routed here.

    Attributes
    ----------
    starts, ends, stops : ndarray of int64, shape (m,)
        The small levels' first row, end row, and their query's end row.
    groups : ndarray of int64, shape (n_groups + 1,)
        Group g (one query's small levels) is ``starts[groups[g]:groups[g + 1]]``.
    rows : ndarray of bool, shape (n_rows,)
        The small levels' rows.
    swept : ndarray of int64
        The queries the sweep takes whole.
    swept_rows : ndarray of bool, shape (n_rows,)
        Their rows.
    large : list of (int, int, int, int)
        (level, first row, end row, query's end row) of every other level below a top, in order.
    """

    def __init__(self, level_starts, level_ends, bounds, top_level, level, max_pairs: int, swept=None):
        self.max_pairs = int(max_pairs)
        self.swept = np.zeros(0, dtype=np.int64) if swept is None else np.asarray(swept, dtype=np.int64)
        marks = np.zeros(top_level.shape[0] + 1, dtype=np.int64)      # +1 from a swept query's first level to its end
        np.add.at(marks, bounds[self.swept], 1)
        np.add.at(marks, bounds[self.swept + 1], -1)
        by_sweep = np.cumsum(marks[:-1]) > 0
        self.swept_rows = by_sweep[level]
        levels = np.flatnonzero(~top_level & ~by_sweep)
        query = np.searchsorted(bounds, levels, side="right") - 1
        lo, hi = level_starts[levels], level_ends[levels]
        stops = level_ends[bounds[query + 1] - 1]
        small = (hi - lo) * (stops - hi) <= self.max_pairs
        self.starts = np.ascontiguousarray(lo[small], dtype=np.int64)
        self.ends = np.ascontiguousarray(hi[small], dtype=np.int64)
        self.stops = np.ascontiguousarray(stops[small], dtype=np.int64)
        q = query[small]
        first = np.flatnonzero(np.append(True, q[1:] != q[:-1])) if q.size else np.zeros(0, dtype=np.int64)
        self.groups = np.append(first, q.size).astype(np.int64)
        small_level = np.zeros(top_level.shape[0], dtype=bool)
        small_level[levels[small]] = True
        self.rows = small_level[level]
        big = ~small
        self.large = list(zip(levels[big].tolist(), lo[big].tolist(), hi[big].tolist(), stops[big].tolist()))

    @property
    def n_small(self) -> int:
        """How many levels the one-call kernel sums."""
        return int(self.starts.shape[0])

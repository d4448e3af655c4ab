"""A partially refined ROC curve: cells of the score axis with their counts per class.

A distributed evaluation (``rankcore.dask.evaluate``) never holds the scores
together.  It cuts the score axis into *cells* -- ranges of order-preserving
uint64 keys of the scores -- and counts the positives and negatives in each;
passes over the chunks split the cells that matter into sub-cells.  The ROC
curve is then known up to the order inside each *uncertain* cell (one that
holds both classes and several distinct scores): inside it the curve is some
monotone staircase between the cell's corners.  A metric that depends on the
scores only through the ROC curve declares how to bound itself from the
cells (:meth:`rankcore.Metric.roc_bounds`) and which cells widen its bound
(:meth:`rankcore.Metric.roc_priority`), using the geometry here: the curve
with the uncertain cells as ties, and the lowest (negatives first) and
highest (positives first) staircases.  See ``docs/theory/metrics.md``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RocCells", "SPLIT_MAX"]

#: At most this many sub-cells per split cell in one pass.
SPLIT_MAX = 1024
_SPLIT = SPLIT_MAX


class RocCells:
    """Cells of the score axis with their counts per class (see the module docs).

    Ascending arrays: ``lo``, ``hi`` (inclusive uint64 keys), ``pos``, ``neg``;
    ``I`` and ``K`` the numbers of positives and negatives.  A cell is
    *uncertain* when it holds both classes and more than one key.  Every
    operation is vectorized: a million cells cost milliseconds.

    Geometry for the metrics' bounds: :meth:`area` (partial areas of the
    ``"tie"``, ``"low"`` or ``"high"`` curve), :meth:`auc_bounds`,
    :meth:`ks_bounds`; what makes a cell matter: :meth:`pair_share`,
    :meth:`fpr_reach_share`, :meth:`ks_excess`.  Refinement (the evaluator's
    side): :meth:`request` and :meth:`update`.
    """

    def __init__(self, key_min: int, key_max: int, n_pos: int, n_neg: int):
        self.lo = np.array([key_min], dtype=np.uint64)
        self.hi = np.array([key_max], dtype=np.uint64)
        self.pos = np.array([n_pos], dtype=np.int64)
        self.neg = np.array([n_neg], dtype=np.int64)
        self.I, self.K = int(n_pos), int(n_neg)

    @property
    def uncertain(self) -> np.ndarray:
        return (self.pos > 0) & (self.neg > 0) & (self.lo != self.hi)

    # -- the ROC curve, walked from the top ----------------------------
    def _descending(self):
        p = self.pos[::-1].astype(np.float64)
        n = self.neg[::-1].astype(np.float64)
        u = self.uncertain[::-1]
        tp0 = np.cumsum(p) - p
        fp0 = np.cumsum(n) - n
        return p, n, u, tp0, fp0

    def _polyline(self, mode: str):
        """Segments (x0, y0, x1, y1) of the ROC curve: 'tie' (diagonals), 'low' or 'high' staircases."""
        p, n, u, tp0, fp0 = self._descending()
        x0, y0, x1, y1 = fp0, tp0, fp0 + n, tp0 + p
        if mode == "tie" or not u.any():
            return x0, y0, x1, y1
        if mode == "low":     # negatives first: right, then up
            cx, cy = np.where(u, x1, x0), y0
        else:                 # positives first: up, then right
            cx, cy = np.where(u, x0, x1), y1
        # each cell: (x0, y0) -> corner -> (x1, y1); for certain cells the corner is an endpoint
        X0 = np.ravel(np.column_stack([x0, cx]))
        Y0 = np.ravel(np.column_stack([y0, cy]))
        X1 = np.ravel(np.column_stack([cx, x1]))
        Y1 = np.ravel(np.column_stack([cy, y1]))
        return X0, Y0, X1, Y1

    def area(self, mode: str, max_fpr: float, min_tpr: float) -> float:
        """∫_0^α max(0, ROC(u) − β) du in count units (x in [0, K], y in [0, I])."""
        x0, y0, x1, y1 = self._polyline(mode)
        limit = max_fpr * self.K
        b = min_tpr * self.I
        keep = x0 < limit
        x0, y0, x1, y1 = x0[keep], y0[keep], x1[keep], y1[keep]
        cut = x1 > limit
        with np.errstate(invalid="ignore", divide="ignore"):
            y1 = np.where(cut, y0 + (y1 - y0) * ((limit - x0) / np.where(x1 > x0, x1 - x0, 1.0)), y1)
        x1 = np.where(cut, limit, x1)
        dx = x1 - x0
        full = y0 >= b
        with np.errstate(invalid="ignore", divide="ignore"):
            partial = np.where(y1 > y0, dx * ((y1 - b) / np.where(y1 > y0, y1 - y0, 1.0)) * (y1 - b) * 0.5, 0.0)
        area = np.where(y1 <= b, 0.0, np.where(full, dx * ((y0 - b) + (y1 - b)) * 0.5, partial))
        area = np.where(dx > 0, area, 0.0)
        return float(area.sum())

    def auc_bounds(self):
        """(value with the uncertain cells as ties, low, high) of the AUC."""
        p, n, u, tp0, _ = self._descending()
        twice = float(np.sum(n * (2.0 * tp0 + p)))            # diagonal tie segments
        slack = float(np.sum((n * p)[u]))                       # Σ n₊ n₋ over uncertain cells
        IK = float(self.I) * float(self.K)
        return twice / (2 * IK), (twice - slack) / (2 * IK), (twice + slack) / (2 * IK)

    def _ks_terms(self):
        pos_after = np.cumsum(self.pos).astype(np.float64)
        neg_after = np.cumsum(self.neg).astype(np.float64)
        I, K = float(self.I), float(self.K)
        ends = neg_after * I - pos_after * K                    # F₋ − F₊ after each cell, × I·K
        inside = neg_after * I - (pos_after - self.pos) * K     # a cell's negatives all before its positives
        return ends, inside

    def ks_bounds(self):
        """(value with the uncertain cells as ties, low, high) of the KS statistic."""
        ends, inside = self._ks_terms()
        IK = float(self.I) * float(self.K)
        low = max(0.0, float(ends.max()))
        u = self.uncertain
        high = max(low, float(inside[u].max())) if u.any() else low
        return low / IK, low / IK, high / IK

    # -- what makes a cell matter (for Metric.roc_priority) ----------
    def pair_share(self) -> np.ndarray:
        """Per cell n₊·n₋ / (I·K): the AUC bound's width it causes (uncertain cells)."""
        IK = float(self.I) * float(self.K)
        return (self.pos * self.neg).astype(np.float64) / IK

    def fpr_reach_share(self, max_fpr: float) -> np.ndarray:
        """Per cell n₊·(its negatives within FPR ≤ max_fpr) / (I·K): a partial area's width it causes."""
        IK = float(self.I) * float(self.K)
        fp_above = (np.cumsum(self.neg[::-1]) - self.neg[::-1])[::-1].astype(np.float64)   # FP above each cell
        reach = np.clip(max_fpr * self.K - fp_above, 0.0, self.neg)
        return self.pos * reach / IK

    def ks_excess(self) -> np.ndarray:
        """Per cell, by how much its negatives-first corner exceeds the KS lower bound, / (I·K)."""
        ends, inside = self._ks_terms()
        low = max(0.0, float(ends.max()))
        return np.maximum(inside - low, 0.0) / (float(self.I) * float(self.K))

    # -- refinement ----------------------------------------------------
    def priorities(self, metrics) -> np.ndarray:
        """Per cell: by how much it widens the widest bound (0 for certain cells).

        The maximum over ``metrics`` of each metric's :meth:`~rankcore.Metric.roc_priority`.
        """
        u = self.uncertain
        prio = np.zeros(self.lo.shape[0])
        if not u.any():
            return prio
        for metric in metrics:
            prio = np.maximum(prio, np.asarray(metric.roc_priority(self), dtype=np.float64))
        return np.where(u, prio, 0.0)

    def request(self, metrics, bins: int):
        """Split the cells that matter into sub-bins: (lo, hi, step, offset, total) for :func:`_cell_counts`.

        The budget of ``bins`` sub-bins is shared among the uncertain cells in
        proportion to their priority (at least 2 and at most 1024 each, most
        important first), so every cell that matters narrows in every pass.
        """
        prio = self.priorities(metrics)
        live = np.flatnonzero(prio > 0)
        if live.size == 0:
            return None
        live = live[np.argsort(-prio[live], kind="stable")]
        share = np.floor(bins * prio[live] / prio[live].sum())
        width = self.hi[live] - self.lo[live]                               # keys in the cell − 1 (uint64)
        room = np.minimum(width, np.uint64(_SPLIT - 1)).astype(np.int64) + 1
        m = np.clip(share, 2, _SPLIT).astype(np.int64)
        m = np.minimum(m, room)
        keep = np.cumsum(m) <= bins
        keep[0] = True
        live, m, width = live[keep], m[keep], width[keep]
        step = width // m.astype(np.uint64) + np.uint64(1)
        n_sub = (width // step).astype(np.int64) + 1
        order = np.argsort(self.lo[live], kind="stable")
        live, step, n_sub = live[order], step[order], n_sub[order]
        offset = np.r_[0, np.cumsum(n_sub)[:-1]].astype(np.int64)
        self._pending = (live, step, n_sub, offset)
        return self.lo[live], self.hi[live], step, offset, int(n_sub.sum())

    def update(self, counts: np.ndarray) -> None:
        """Replace every split cell by its non-empty sub-cells (vectorized)."""
        live, step, n_sub, offset = self._pending
        total = int(n_sub.sum())
        owner = np.repeat(np.arange(live.shape[0]), n_sub)                   # which split cell each sub-bin is in
        index = np.arange(total) - np.repeat(offset, n_sub)                  # sub-bin number within its cell
        sub_lo = self.lo[live][owner] + index.astype(np.uint64) * step[owner]
        # sub_lo + step − 1 <= cell hi + 1024 (step = ⌊width/m⌋ + 1): no uint64 wrap, finite keys end at 0xFFEF…
        sub_hi = np.minimum(self.hi[live][owner], sub_lo + (step[owner] - np.uint64(1)))
        nonempty = counts[:total].sum(axis=1) > 0
        untouched = np.ones(self.lo.shape[0], dtype=bool)
        untouched[live] = False
        lo = np.concatenate([self.lo[untouched], sub_lo[nonempty]])
        hi = np.concatenate([self.hi[untouched], sub_hi[nonempty]])
        pos = np.concatenate([self.pos[untouched], counts[:total, 1][nonempty].astype(np.int64)])
        neg = np.concatenate([self.neg[untouched], counts[:total, 0][nonempty].astype(np.int64)])
        order = np.argsort(lo, kind="stable")
        self.lo, self.hi, self.pos, self.neg = lo[order], hi[order], pos[order], neg[order]
        self._compress()

    def _compress(self) -> None:
        """Merge runs of adjacent cells holding one and the same class (their ROC segments are collinear)."""
        kind = np.where(self.pos == 0, 1, np.where(self.neg == 0, 2, 0))
        start = np.r_[True, (kind[1:] != kind[:-1]) | (kind[1:] == 0)]
        if start.all():
            return
        first = np.flatnonzero(start)
        last = np.r_[first[1:] - 1, kind.shape[0] - 1]
        self.pos = np.add.reduceat(self.pos, first)
        self.neg = np.add.reduceat(self.neg, first)
        self.hi = self.hi[last]
        self.lo = self.lo[first]

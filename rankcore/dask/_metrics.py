"""``rankcore.dask.evaluate``: ranking metrics of distributed scores, without collecting them.

Every metric below is computed from per-chunk reductions of O(k) or
O(bins) numbers; the scores and labels stay on the workers (persisted for
the duration of the call, then released).

Exact:

``prec@k``
    The k-th largest score t: for k <= 131072 from each chunk's k largest
    scores merged on the client, beyond that by key refinement
    (:mod:`rankcore.dask._order`); then one pass counts, per class, the
    scores above t and equal to t, which gives the exact value with the
    in-memory tie rule (the tie group at rank k shares the remaining places).
``rmax``, ``max_height``
    The highest negative score M (per-chunk maxima merged), then one pass
    counting the positives above M.

Provably bounded, exact when the refinement completes (``auc``,
``pauc``, ``tpauc``, ``ks``):
    These depend on the scores only through the ROC curve, i.e. through the
    sequence of tie groups with their counts of positives and negatives.  The
    score axis is cut into *cells* (key intervals, see ``_order.py``) with
    their counts per class, found by passes that split the cells that matter
    into sub-bins.  A cell that holds one class only, or a single distinct
    score, contributes exactly what the full data would (a pure cell's ROC
    segment is straight; a single-score cell is a tie group).  A cell with
    both classes and several scores is uncertain: inside it the ROC curve is
    some monotone staircase between the cell's corners, so every metric lies
    between its value on the lowest staircase (negatives first) and on the
    highest (positives first).  Summed over the uncertain cells this is a
    guaranteed interval [low, high] containing the exact value:

    * auc: high − low = Σ_uncertain n₊·n₋ / (I·K);
    * pauc, tpauc: the areas under the lowest and highest curves, restricted
      to FPR <= α (and above TPR β);
    * ks: low = the maximum over cell boundaries; high also allows, inside an
      uncertain cell, all of its negatives before its positives.

    The reported value treats each uncertain cell as one tie group (the
    in-memory tie rule), so it lies in [low, high] and equals the in-memory
    value once no cell is uncertain.  Passes continue until every bounded
    metric has high − low <= ``tol`` (``tol=0``: exact) or ``max_passes`` is
    reached (then a warning gives the bound achieved).  Each pass splits the
    uncertain cells that contribute most to the widths into up to 1024
    sub-bins of equal key width, at most ``bins`` sub-bins in all; a single
    cell becomes one distinct score after at most ⌈64/10⌉ = 7 splits.
    Traffic per pass: 2 × bins integers per chunk.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable

import numpy as np

from ..metrics._base import Metric
from ..metrics._scalar import AUC, KS, MaxHeight, PartialAUC, PrecisionAtK, RMax, TwoWayPartialAUC
from ..registry import resolve
from ..spec import Component
from ..validation import check_binary_labels, check_k, check_scores
from ._inputs import get_client, is_dask_collection, tree_sum
from ._order import RankSearch, float_keys, interval_counts

__all__ = ["evaluate", "DistributedEvaluation", "SUPPORTED_METRICS", "as_dask_vector"]

#: Metric classes with a distributed form (exact class match).
SUPPORTED_METRICS = (AUC, PartialAUC, TwoWayPartialAUC, KS, PrecisionAtK, RMax, MaxHeight)
_BOUNDED = (AUC, PartialAUC, TwoWayPartialAUC, KS)

#: Largest k for which prec@k merges each chunk's k top scores (beyond: key refinement).
TOPK_MERGE_MAX = 1 << 17
_SPLIT = 1024


class DistributedEvaluation(dict):
    """The metric values (a dict, as :func:`rankcore.evaluate` returns), with their guarantees.

    Attributes
    ----------
    bounds : dict
        spec -> (low, high), an interval guaranteed to contain the exact
        value (low == high for exact values).
    exact : dict
        spec -> bool.
    passes : int
        Passes over the scores.
    """

    def __init__(self, values, bounds, passes):
        super().__init__(values)
        self.bounds = dict(bounds)
        self.exact = {key: bool(lo == hi) for key, (lo, hi) in self.bounds.items()}
        self.passes = int(passes)


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

def as_dask_vector(v: Any, *, name: str):
    """A 1-D Dask array from a Dask array / Series or an in-memory array."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(v, dd.Series):
        return v.to_dask_array(lengths=True)
    if isinstance(v, dd.DataFrame):
        if len(v.columns) != 1:
            raise ValueError(f"{name}: expected a 1-D collection, got a DataFrame with {len(v.columns)} columns")
        return v[v.columns[0]].to_dask_array(lengths=True)
    if isinstance(v, da.Array):
        if v.ndim != 1:
            raise ValueError(f"{name}: expected a 1-D array, got shape {v.shape}")
        return v
    if is_dask_collection(v):
        raise TypeError(f"{name}: expected a dask.array or dask.dataframe collection, got {type(v).__name__}")
    local = np.asarray(v)
    if local.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {local.shape}")
    return da.from_array(local, chunks=max(1, -(-local.shape[0] // 4)))


def _aligned(client, y, scores):
    """(y, scores) persisted on the workers, with known chunk sizes, y chunked as the scores."""
    scores = as_dask_vector(scores, name="scores")
    y = as_dask_vector(y, name="y")
    y, scores = client.persist([y, scores])
    if any(np.isnan(c) for c in scores.chunks[0]):
        scores = scores.compute_chunk_sizes()
    if any(np.isnan(c) for c in y.chunks[0]):
        y = y.compute_chunk_sizes()
    if y.shape[0] != scores.shape[0]:
        raise ValueError(f"inconsistent lengths: y has {y.shape[0]}, scores has {scores.shape[0]}; "
                         "expected one value per example")
    if y.shape[0] == 0:
        raise ValueError("scores: expected at least one score, got an empty array")
    if y.chunks != scores.chunks:
        y = client.persist(y.rechunk(scores.chunks))
    return y, scores


def _chunk(i, y, s):
    return (check_binary_labels(y, name=f"y (chunk {i})") if len(y) else np.zeros(0, np.int8),
            check_scores(s, name=f"scores (chunk {i})", allow_empty=True, integers="refuse-large",
                         what="a chunked evaluation (chunks cannot be ranked together)"))


# --------------------------------------------------------------------------
# Per-chunk passes (worker side)
# --------------------------------------------------------------------------

def _basics(i, y, s, top_ks):
    y, s = _chunk(i, y, s)
    pos = y == 1
    keys = float_keys(s)
    out = {
        "n": int(s.shape[0]),
        "n_pos": int(pos.sum()),
        "key_min": int(keys.min()) if keys.size else None,
        "key_max": int(keys.max()) if keys.size else None,
        "max_neg": float(s[~pos].max()) if (~pos).any() else -math.inf,
        "top": {},
    }
    for k in top_ks:
        m = min(k, s.shape[0])
        out["top"][k] = np.partition(s, s.shape[0] - m)[s.shape[0] - m:] if m else np.empty(0)
    return out


def _counts_at(i, y, s, thresholds, max_neg):
    """Per class, #scores > t and == t for each t; and #positives > max_neg."""
    y, s = _chunk(i, y, s)
    pos = s[y == 1]
    neg = s[y == 0]
    out = np.array([[np.count_nonzero(pos > t), np.count_nonzero(neg > t),
                     np.count_nonzero(pos == t), np.count_nonzero(neg == t)] for t in thresholds],
                   dtype=np.int64).reshape(-1, 4)
    return out, int(np.count_nonzero(pos > max_neg))


def _select_counts(i, y, s, request):
    _, s = _chunk(i, y, s)
    return interval_counts(s[:, None], None, *request)


def _cell_counts(i, y, s, lo, hi, step, offset, total):
    """(total, 2) counts of negatives / positives in every sub-bin of the cells being split."""
    y, s = _chunk(i, y, s)
    keys = float_keys(s)
    idx = np.searchsorted(lo, keys, side="right") - 1
    ok = idx >= 0
    idx[~ok] = 0
    ok &= keys <= hi[idx]
    k, j = keys[ok], idx[ok]
    flat = offset[j] + ((k - lo[j]) // step[j]).astype(np.int64)
    return np.bincount(flat * 2 + y[ok], minlength=2 * total).reshape(total, 2)


# --------------------------------------------------------------------------
# ROC cells (client side)
# --------------------------------------------------------------------------

class RocCells:
    """Cells of the score axis with their counts per class (see the module docs).

    Ascending arrays: ``lo``, ``hi`` (inclusive uint64 keys), ``pos``, ``neg``.
    A cell is *uncertain* when it holds both classes and more than one key.
    Every operation is vectorized: a million cells cost milliseconds.
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
        ends, inside = self._ks_terms()
        IK = float(self.I) * float(self.K)
        low = max(0.0, float(ends.max()))
        u = self.uncertain
        high = max(low, float(inside[u].max())) if u.any() else low
        return low / IK, low / IK, high / IK

    # -- refinement ----------------------------------------------------
    def priorities(self, metrics) -> np.ndarray:
        """Per cell: by how much it widens the widest bound (0 for certain cells)."""
        u = self.uncertain
        prio = np.zeros(self.lo.shape[0])
        if not u.any():
            return prio
        IK = float(self.I) * float(self.K)
        pn = (self.pos * self.neg).astype(np.float64) / IK
        fp_above = (np.cumsum(self.neg[::-1]) - self.neg[::-1])[::-1].astype(np.float64)   # FP above each cell
        for metric in metrics:
            if type(metric) is AUC:
                prio = np.maximum(prio, pn)
            elif type(metric) in (PartialAUC, TwoWayPartialAUC):
                reach = np.clip(metric.max_fpr * self.K - fp_above, 0.0, self.neg)
                prio = np.maximum(prio, self.pos * reach / IK)
            elif type(metric) is KS:
                ends, inside = self._ks_terms()
                low = max(0.0, float(ends.max()))
                prio = np.maximum(prio, np.maximum(inside - low, 0.0) / IK)
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


# --------------------------------------------------------------------------
# evaluate
# --------------------------------------------------------------------------

def _resolve_metrics(metrics):
    if isinstance(metrics, (str, Component)):
        metrics = [metrics]
    try:
        items = list(metrics)
    except TypeError:
        raise TypeError(
            f"metrics: expected a spec string such as 'auc' or a list of them, got {type(metrics).__name__}"
        ) from None
    if not items:
        raise ValueError("metrics: expected at least one metric spec such as 'auc', got an empty list")
    resolved = []
    for item in items:
        metric = resolve("metric", item)
        key = item if isinstance(item, str) else getattr(item, "spec", repr(item))
        if type(metric) not in SUPPORTED_METRICS:
            names = ", ".join(sorted(c.name for c in SUPPORTED_METRICS))
            raise ValueError(
                f"metric {metric.spec!r} is not available on distributed scores (rankcore.dask.evaluate "
                f"computes {names}); evaluate a local copy with rankcore.evaluate(y.compute(), scores.compute(), ...)"
            )
        resolved.append((key, metric))
    return resolved


def _tasks(y, s, func, *args):
    import dask

    call = dask.delayed(func, pure=False)
    return [call(i, yc, sc, *args) for i, (yc, sc) in
            enumerate(zip(y.to_delayed().ravel().tolist(), s.to_delayed().ravel().tolist()))]


def _map(client, y, s, func, *args):
    """Per-chunk results, gathered in chunk order."""
    return client.gather(client.compute(_tasks(y, s, func, *args)))


def _reduce(client, y, s, func, *args):
    """Σ of the per-chunk results, added on the workers."""
    return tree_sum(client, _tasks(y, s, func, *args))


def evaluate(y: Any, scores: Any, metrics: str | Metric | Iterable[str | Metric], *, client: Any = None,
             tol: float = 1e-6, bins: int = 1 << 18, max_passes: int = 64) -> DistributedEvaluation:
    """Evaluate ranking metrics on distributed scores (see the module docs for the methods).

    Parameters
    ----------
    y : dask array / Series or array-like (n,)
        0/1 labels (1 = relevant), aligned with ``scores`` (re-chunked to it).
    scores : dask array / Series or array-like (n,)
        Finite scores, e.g. ``DaskPushBoost.decision_function(X)``.
    metrics : str, Metric or iterable of them
        ``auc``, ``pauc:α[,scale]``, ``tpauc:β,α[,scale]``, ``ks``, ``prec@k:k``,
        ``rmax``, ``max_height``.  Others raise ``ValueError``.
    client : distributed.Client, optional
        Default: the current client.
    tol : float, default 1e-6
        Largest accepted width high − low of the guaranteed interval of each
        bounded metric (auc, pauc, tpauc, ks), hence of its error; 0 asks for
        the exact values (cheap on small or coarse data, but on millions of
        continuous scores exactness needs a cell per alternation of the
        labels along the sorted scores).
    bins : int, default 262144
        Sub-bins per refinement pass, shared by the cells that matter (the
        per-chunk counts, 2 × bins integers, are added on the workers).
    max_passes : int, default 64
        Refinement passes at most; if a bound is still wider than ``tol``
        after them a ``RuntimeWarning`` says so.

    Returns
    -------
    DistributedEvaluation
        A dict spec -> value (floats; ints for rmax and max_height), with
        ``.bounds`` (guaranteed intervals), ``.exact`` and ``.passes``.
    """
    resolved = _resolve_metrics(metrics)
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) or tol < 0:
        raise ValueError(f"tol: expected a number >= 0, got {tol!r}")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
        raise ValueError(f"bins: expected an integer >= 2, got {bins!r}")
    if isinstance(max_passes, bool) or not isinstance(max_passes, (int, np.integer)) or max_passes < 0:
        raise ValueError(f"max_passes: expected an integer >= 0, got {max_passes!r}")
    client = get_client(client)
    y, scores = _aligned(client, y, scores)
    n = int(scores.shape[0])
    ks_needed = {}
    for key, metric in resolved:
        if type(metric) is PrecisionAtK:
            ks_needed[key] = check_k(metric.k, n, name=f"metric {metric.spec!r}: k")
    try:
        return _evaluate(client, y, scores, n, resolved, ks_needed, float(tol), int(bins), int(max_passes))
    finally:
        del y, scores


def _evaluate(client, y, s, n, resolved, ks_needed, tol, bins, max_passes):
    small = sorted({k for k in ks_needed.values() if k <= TOPK_MERGE_MAX})
    parts = _map(client, y, s, _basics, small)
    passes = 1
    I = sum(p["n_pos"] for p in parts)
    K = n - I
    for key, metric in resolved:
        if metric.requires_both_classes and (I == 0 or K == 0):
            present = "only negatives (0)" if I == 0 else "only positives (1)"
            raise ValueError(f"y: metric {metric.spec!r} needs both classes, got {present} in {n} labels")
    key_min = min(p["key_min"] for p in parts if p["key_min"] is not None)
    key_max = max(p["key_max"] for p in parts if p["key_max"] is not None)
    max_neg = max(p["max_neg"] for p in parts)

    # k-th largest scores for prec@k
    thresholds = {}
    for k in small:
        top = np.concatenate([p["top"][k] for p in parts])
        thresholds[k] = float(np.partition(top, top.shape[0] - k)[top.shape[0] - k])
    large = sorted({k for k in ks_needed.values() if k > TOPK_MERGE_MAX})
    if large:
        search = RankSearch(np.zeros(len(large), dtype=np.intp), [n - k + 1 for k in large],
                            np.full(len(large), key_min, dtype=np.uint64),
                            np.full(len(large), key_max, dtype=np.uint64), bins=_SPLIT)
        while not search.done:
            request = search.request()
            search.update(_reduce(client, y, s, _select_counts, request))
            passes += 1
        thresholds.update(zip(large, search.values().tolist()))

    values, bounds = {}, {}
    exact_needed = any(type(m) in (PrecisionAtK, RMax, MaxHeight) for _, m in resolved)
    if exact_needed:
        ts = sorted(thresholds)
        table, above_max_neg = _reduce(client, y, s, _counts_at, [thresholds[k] for k in ts], max_neg)
        passes += 1
        above_max_neg = int(above_max_neg)
        prec = {}
        for row, k in enumerate(ts):
            pos_above, neg_above, pos_eq, neg_eq = (int(v) for v in table[row])
            above = pos_above + neg_above
            prec[k] = (pos_above + (k - above) * (pos_eq / (pos_eq + neg_eq))) / k
        rmax = I if K == 0 else above_max_neg
        for key, metric in resolved:
            if type(metric) is PrecisionAtK:
                values[key] = prec[ks_needed[key]]
            elif type(metric) is RMax:
                values[key] = int(rmax)
            elif type(metric) is MaxHeight:
                values[key] = 0 if K == 0 else int(I - rmax)
            else:
                continue
            bounds[key] = (values[key], values[key])

    bounded = [(key, m) for key, m in resolved if type(m) in _BOUNDED]
    if bounded:
        cells = RocCells(key_min, key_max, I, K)
        refinements = 0
        while True:
            current = {key: _bounded_value(cells, m) for key, m in bounded}
            widths = [hi - lo for _, lo, hi in current.values()]
            if max(widths) <= tol or not cells.uncertain.any():
                break
            if refinements >= max_passes:
                worst = max(current, key=lambda k: current[k][2] - current[k][1])
                warnings.warn(
                    f"rankcore.dask.evaluate: after {max_passes} refinement passes the bound of {worst!r} is "
                    f"{current[worst][2] - current[worst][1]:.3g} wide (tol={tol:g}); raise max_passes or bins, "
                    "or accept the interval in .bounds", RuntimeWarning, stacklevel=3)
                break
            request = cells.request([m for _, m in bounded], bins)
            if request is None:
                break
            lo, hi, step, offset, total = request
            counts = _reduce(client, y, s, _cell_counts, lo, hi, step, offset, total)
            cells.update(counts)
            refinements += 1
            passes += 1
        for key, (value, lo, hi) in current.items():
            values[key] = value
            bounds[key] = (lo, hi)
    ordered = {key: values[key] for key, _ in resolved}
    return DistributedEvaluation(ordered, {key: bounds[key] for key, _ in resolved}, passes)


def _bounded_value(cells: RocCells, metric) -> tuple[float, float, float]:
    """(value with uncertain cells as ties, low, high) in the metric's own scale."""
    kind = type(metric)
    if kind is AUC:
        return cells.auc_bounds()
    if kind is KS:
        return cells.ks_bounds()
    IK = float(cells.I) * float(cells.K)
    if kind is PartialAUC:
        alpha = metric.max_fpr
        raw = [cells.area(mode, alpha, 0.0) / IK for mode in ("tie", "low", "high")]
        if metric.scale == "mcclish":
            raw = [0.5 * (1.0 + (r - 0.5 * alpha * alpha) / (alpha - 0.5 * alpha * alpha)) for r in raw]
        return tuple(raw)
    alpha, beta = metric.max_fpr, metric.min_tpr
    raw = [cells.area(mode, alpha, beta) / IK for mode in ("tie", "low", "high")]
    if metric.scale == "normalized":
        raw = [r / ((1.0 - beta) * alpha) for r in raw]
    return tuple(raw)

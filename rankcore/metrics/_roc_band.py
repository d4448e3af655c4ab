"""A pointwise bootstrap band of the ROC curve's leftmost portion, in counts (the figures' shaded bands)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_labels_and_scores
from ._bootstrap import bootstrap_group_weights
from ._curves import count_or_all
from ._interval_results import _check_level, _check_n_boot, _seed, check_two_of_each_class
from ._resampling import SortedData, _chunks

__all__ = ["roc_band"]


def roc_band(y: Any, scores: Any, *, max_fp: int, level: float = 0.95, n_boot: int = 500,
             random_state: Any = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pointwise bootstrap band of the ROC curve's leftmost portion, in counts.

    Each stratified replicate (I and K fixed, so false positives stay counts
    of the same scale) is the sorted data with multinomial weights
    (:func:`confidence_interval`'s replicates); its curve
    is read at every false-positive count 0..``max_fp`` (the top of a
    vertical step, tie groups diagonal), and the band is the
    ``(1 - level)/2`` and ``(1 + level)/2`` quantiles at each count.

    Parameters
    ----------
    y, scores : array-like of shape (n,)
        0/1 labels (two of each class at least) and scores; only the scores'
        order is read (integers beyond 2^53 keep theirs).
    max_fp : int >= 0
        The last false-positive count of the grid; above the number of
        negatives K the grid stops at K, where the curve ends.
    level : float in (0, 1), default 0.95
        The band's coverage at each count.
    n_boot : int in [100, 1,000,000], default 500
        Replicates (fewer than :func:`confidence_interval`'s 2000: a figure's
        band needs no more).
    random_state : int or None, default 0
        Seeds the replicates; the default 0 makes a figure's band the same at
        every run (None: another band each time).

    Returns
    -------
    fp : ndarray of float64, shape (min(max_fp, K) + 1,)
    lower, upper : ndarray of float64
        True positives at each count.

    O(n log n) for the one sort, then O(n_boot · n) time and O(n) memory
    per chunk of replicates.
    """
    # the band reads the scores' order only: integers beyond 2^53 are ranked exactly, not rounded into ties
    y01, s = check_labels_and_scores(y, scores, integers="rank")
    count = _check_max_fp(max_fp)
    level, n_boot = _check_level(level), _check_n_boot(n_boot)
    check_two_of_each_class(y01)
    pos_size, neg_size, _ = SortedData(y01, s).groups
    # past the K negatives the curve is done: the grid stops there (a count of 10^12 must not allocate 10^12 cells)
    grid = np.arange(min(count, int(y01.shape[0] - np.count_nonzero(y01))) + 1, dtype=np.float64)
    curves = np.empty((n_boot, grid.shape[0]))
    seed = _seed(random_state)
    for start, count in _chunks(n_boot, pos_size.shape[0]):
        pos_w, neg_w = bootstrap_group_weights(pos_size, neg_size, seed, start, count, True)
        for r in range(count):
            curves[start + r] = _tp_at(np.cumsum(neg_w[r]), np.cumsum(pos_w[r]), grid)
    tail = (1.0 - level) / 2.0
    lower, upper = np.quantile(curves, [tail, 1.0 - tail], axis=0)
    return grid, lower, upper


def _check_max_fp(max_fp: Any) -> int:
    """``max_fp`` as a count >= 0, or a ValueError/TypeError naming it."""
    if max_fp is None or isinstance(max_fp, (str, bytes)):
        raise TypeError(f"max_fp: expected a whole count of false positives >= 0, got {max_fp!r}")
    try:
        count = count_or_all(max_fp)
    except (TypeError, ValueError) as exc:
        reason = str(exc).replace(" or 'all'", "")
        raise ValueError(f"max_fp: {reason}") from None
    return count


def _tp_at(fp: np.ndarray, tp: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """True positives of the ROC polyline (0, 0), (fp[g], tp[g])... at each fp in ``grid`` (top of vertical steps)."""
    fp = np.r_[0.0, fp]
    tp = np.r_[0.0, tp]
    at = np.searchsorted(fp, grid, side="right") - 1          # last point with fp <= x
    nxt = np.minimum(at + 1, fp.shape[0] - 1)
    span = fp[nxt] - fp[at]
    slope = np.divide(tp[nxt] - tp[at], span, out=np.zeros_like(span), where=span > 0)
    return tp[at] + slope * (grid - fp[at])

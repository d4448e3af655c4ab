"""The non-scalar bipartite metrics: the ROC curve and the per-negative heights."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..spec import Parameter, read_int
from ._base import Metric, OrderMetric
from ._roc import height_counts, roc_points

__all__ = ["RocCurve", "ROC", "Height", "roc_from_sorted", "heights"]


class RocCurve(NamedTuple):
    """The ROC curve as counts and rates, one point per distinct score.

    Attributes
    ----------
    fp, tp : ndarray of int64
        Negatives and positives scored at or above each threshold.
    fpr, tpr : ndarray of float64
        ``fp / K`` and ``tp / I``.
    thresholds : ndarray of float64
        ``+inf`` (the point (0, 0)), then the distinct scores, decreasing.
    """

    fp: np.ndarray
    tp: np.ndarray
    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray


#: Largest count a curve parameter takes (the kernels' C long).
MAX_COUNT = 2**63 - 1


def count_or_all(value: Any) -> int | None:
    """Parameter kind: a count >= 0, or None / "all" for no limit."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("all", "none")):
        return None
    if isinstance(value, bool):
        raise ValueError("expected a count, got a boolean")
    if isinstance(value, str):
        value = read_int(value)                    # a spec's number: ASCII digits (read_int says why not)
    try:
        number = float(value)
    except OverflowError:                          # an int beyond the doubles
        raise ValueError(f"expected a whole count in [0, {MAX_COUNT}] or 'all', got an integer of "
                         f"{len(str(abs(int(value))))} digits") from None
    if not math.isfinite(number) or not number.is_integer() or number < 0:
        raise ValueError(f"expected a whole count >= 0 or 'all', got {value!r}")
    count = int(value) if isinstance(value, int) else int(number)
    if count > MAX_COUNT:                          # the curve kernels count in C long
        raise ValueError(f"expected a whole count in [0, {MAX_COUNT}] or 'all', got {value!r}")
    return count


def roc_from_sorted(pos: np.ndarray, neg: np.ndarray, max_fp: int | None = None) -> RocCurve:
    """The ROC curve from ascending-sorted positive and negative scores (both non-empty)."""
    fp, tp, thresholds = roc_points(pos, neg, -1 if max_fp is None else int(max_fp))
    return RocCurve(fp, tp, fp / neg.shape[0], tp / pos.shape[0], thresholds)


def heights(pos_sorted: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Height(k) = #{i : f_i <= f_k} for each negative, in the order of ``neg``.

    O(K log K) for the argsort of the negatives, then O(I + K).
    """
    neg = np.ascontiguousarray(neg, dtype=np.float64)
    out = np.empty(neg.shape[0], dtype=np.int64)
    order = np.argsort(neg).astype(np.int64, copy=False)
    height_counts(np.ascontiguousarray(pos_sorted, dtype=np.float64), neg, order, out)
    return out


class ROC(Metric):
    """The ROC curve as counts and rates with thresholds, optionally its leftmost portion."""

    shift_invariant = True  # only differences of scores matter

    name = "roc"
    aliases = ("roc_curve",)
    parameters = (
        Parameter("max_fp", count_or_all, default=None,
                  doc="keep the points with at most this many false positives ('all': every point)"),
    )
    greater_is_better = None
    scalar = False
    examples = ("roc", "roc:0", "roc:5")

    def from_sorted(self, pos: np.ndarray, neg: np.ndarray) -> RocCurve:
        if pos.shape[0] == 0 or neg.shape[0] == 0:
            raise ValueError(f"metric {self.spec!r}: the ROC curve needs both classes "
                             f"(got {pos.shape[0]} positives, {neg.shape[0]} negatives)")
        return roc_from_sorted(pos, neg, self.max_fp)


class Height(OrderMetric):
    """Per-negative height #{positives scored at or below it}, in input order (lower is better)."""

    name = "height"
    greater_is_better = None
    scalar = False
    examples = ("height",)

    def compute(self, y: np.ndarray, scores: np.ndarray) -> np.ndarray:
        pos = np.sort(scores[y == 1])
        return heights(pos, np.ascontiguousarray(scores[y == 0]))

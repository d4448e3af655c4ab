"""Threshold rankers h(x) = 1[x_j > t]: the ``stumps`` and ``thresholds`` learners.

Both search the same way -- histograms of the gradient over bin codes, one
pass over the rows per iteration (see ``_threshold_kernels.pyx``); they differ in the
candidate thresholds:

* ``stumps``: every split of the training data when a feature has at most
  ``max_bins`` distinct values, else ``max_bins − 1`` quantile splits
  (:func:`rankcore.learners.bin_edges`); or thresholds given by the estimator;
* ``thresholds``: a few fixed thresholds per feature -- ``q`` quantiles, or
  given (the paper's pima setting: 4 per feature) -- with thresholds that are
  equivalent on the training data removed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np

from ..spec import Parameter
from . import _threshold_kernels
from ._base import Candidate, Learner, LearnerLayout, WeakRanker
from ._binning import MAX_BINS, bin_edges, check_thresholds, quantile_thresholds

__all__ = ["ThresholdRanker", "ThresholdLayout", "Stumps", "Thresholds"]


@dataclass(frozen=True)
class ThresholdRanker(WeakRanker):
    """h(x) = 1[x_feature > threshold]."""

    feature: int
    threshold: float

    kind = "threshold"
    values = (0.0, 1.0)

    @property
    def features(self):
        return (self.feature,)

    def predict(self, X):
        # compared in float64, as the fit bins the values: float32 X widened, never the threshold narrowed
        return (np.asarray(X)[:, self.feature] > np.float64(self.threshold)).astype(np.float64)

    def to_state(self):
        return {"kind": self.kind, "feature": int(self.feature), "threshold": float(self.threshold)}

    def split_counts(self, n_features: int) -> np.ndarray:
        """One split, on ``feature`` (length ``n_features``, int64): a stump is a tree of one node."""
        counts = np.zeros(n_features, dtype=np.int64)
        counts[self.feature] = 1
        return counts

    def describe(self, feature_names=None):
        name = feature_names[self.feature] if feature_names is not None else f"x{self.feature}"
        return f"1[{name} > {self.threshold:.6g}]"


def threshold_ranker_from_state(state: dict) -> ThresholdRanker:
    if state.get("kind") != ThresholdRanker.kind or set(state) != {"kind", "feature", "threshold"}:
        raise ValueError(f"expected a threshold ranker record {{kind, feature, threshold}}, got {sorted(state)}")
    feature, threshold = state["feature"], state["threshold"]
    if isinstance(feature, bool) or not isinstance(feature, int) or feature < 0:
        raise ValueError(f"threshold ranker: feature must be a non-negative integer, got {feature!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise ValueError(f"threshold ranker: threshold must be a finite number, got {threshold!r}")
    return ThresholdRanker(int(feature), float(threshold))


class ThresholdLayout(LearnerLayout):
    """Threshold rankers over fixed per-feature candidate thresholds (bin edges).

    Encoding: (d, n) bin codes, uint8 up to 256 bins, uint16 beyond.
    Statistics: (d, B) histogram of the gradient per feature and code.
    Candidates in the order (feature, threshold ascending); ties go to the first.
    """

    threshold_histograms = True

    def __init__(self, edges: list[np.ndarray], *, n_threads: int = 1):
        self.edges = [np.ascontiguousarray(e, dtype=np.float64) for e in edges]
        self.n_features = len(self.edges)
        self.n_edges = np.array([e.shape[0] for e in self.edges], dtype=np.intp)
        self.offsets = np.ascontiguousarray(np.r_[0, np.cumsum(self.n_edges)], dtype=np.intp)
        self.flat_edges = np.ascontiguousarray(np.concatenate(self.edges) if self.edges else np.empty(0))
        self.n_bins = int(self.n_edges.max(initial=0)) + 1
        if self.n_bins > MAX_BINS:
            raise ValueError(f"thresholds: at most {MAX_BINS - 1} per feature, got {self.n_bins - 1}")
        self.code_dtype = np.uint8 if self.n_bins <= 256 else np.uint16
        self.n_threads = int(n_threads)
        # candidate (j, b) is real iff b < n_edges[j]
        self._valid = np.arange(self.n_bins - 1)[None, :] < self.n_edges[:, None]

    @property
    def n_candidates(self) -> int:
        return int(self.n_edges.sum())

    def encode(self, X):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)
        codes = np.empty((self.n_features, X.shape[0]), dtype=self.code_dtype)
        _threshold_kernels.encode(X, self.flat_edges, self.offsets, codes, self.n_threads)
        return codes

    def statistics(self, encoded, gradient, *, n_threads=None):
        hist = np.empty((self.n_features, self.n_bins))
        _threshold_kernels.histograms(encoded, np.ascontiguousarray(gradient, dtype=np.float64), hist,
                              self.n_threads if n_threads is None else int(n_threads))
        return hist

    def derivatives(self, statistics: np.ndarray) -> np.ndarray:
        """(d, B − 1) derivative of every candidate: Σ_{c > b} hist[j, c] (NaN where not a candidate)."""
        suffix = np.cumsum(statistics[:, ::-1], axis=1)[:, ::-1]     # suffix[:, b] = Σ_{c ≥ b}
        deriv = suffix[:, 1:]
        return np.where(self._valid, deriv, np.nan)

    def select(self, statistics):
        if self.n_candidates == 0:
            return None
        deriv = self.derivatives(statistics)
        score = np.where(np.isnan(deriv), -1.0, np.abs(deriv))
        flat = int(np.argmax(score))
        j, b = divmod(flat, deriv.shape[1])
        return Candidate(ThresholdRanker(j, float(self.edges[j][b])), float(deriv[j, b]))

    def no_candidate_reason(self) -> str | None:
        if self.n_candidates == 0:
            return "no feature has two distinct values on the training rows: no threshold separates them"
        return None

    def bin_of(self, ranker: ThresholdRanker) -> int:
        """The position of ``ranker``'s threshold among its feature's candidate edges.

        Raises
        ------
        ValueError
            The threshold is not one of this layout's candidates.
        """
        edges = self.edges[ranker.feature]
        b = int(np.searchsorted(edges, ranker.threshold))
        if b >= edges.shape[0] or edges[b] != ranker.threshold:
            raise ValueError(f"{ranker} is not a candidate of this layout")
        return b

    def evaluate(self, ranker, encoded):
        return (encoded[ranker.feature] > self.bin_of(ranker)).astype(np.float64)


def _drop_equivalent(X: np.ndarray, thresholds: list[np.ndarray], rows: np.ndarray) -> list[np.ndarray]:
    """Keep, per feature, the smallest threshold of each class of thresholds equal on the training rows.

    Thresholds that leave every training row on one side (constant rankers)
    are dropped too.
    """
    out = []
    for j, t in enumerate(thresholds):
        if t.size == 0:
            out.append(t)
            continue
        values = np.sort(X[rows, j].astype(np.float64))
        above = values.shape[0] - np.searchsorted(values, t, side="right")   # #{x > t}
        out.append(_keep_distinct(t, above, values.shape[0]))
    return out


def _keep_distinct(t: np.ndarray, above: np.ndarray, n: int) -> np.ndarray:
    """The thresholds t (ascending) that split n rows, the first of each run with equal counts above."""
    if t.size == 0:
        return t
    above = np.asarray(above)
    keep = (above > 0) & (above < n)
    keep[1:] &= above[1:] != above[:-1]
    return t[keep]


class Stumps(Learner):
    """Decision stumps 1[x_j > t] with the best threshold per feature, by one binned pass.

    Candidates: every split between consecutive training values when a
    feature has at most ``max_bins`` distinct values (exact), else
    ``max_bins − 1`` weighted-quantile splits of a sample of ``subsample``
    rows (:func:`rankcore.learners.bin_edges`), or the estimator's
    ``thresholds``.  Each iteration builds one histogram of the gradient per
    feature (O(n·d), parallel over features) and takes suffix sums.
    """

    name = "stumps"
    aliases = ("stump",)
    parameters = (
        Parameter("max_bins", int, default=256, minimum=2, maximum=MAX_BINS, doc="bins per feature (<= 65536)"),
        Parameter("subsample", int, default=200_000, minimum=1, doc="rows sampled to place the bins"),
    )
    examples = ("stumps", "stumps:4", "stumps:max_bins=300")
    uses_thresholds = True
    # Large data (early_stopping="auto" on): additive stumps keep improving past 100
    # iterations there (ijcnn1 pAUC@0.1 0.72 at 100, 0.75 at 300; docs/push.md,
    # *Early stopping*), and an iteration costs a few milliseconds.
    large_data_n_iter = 300

    def prepare(self, X, *, sample_weight=None, thresholds=None, random_state=None, n_threads=1):
        if thresholds is not None:
            edges = check_thresholds(thresholds, X.shape[1])
        else:
            edges = bin_edges(X, self.max_bins, sample_weight=sample_weight, subsample=self.subsample,
                              random_state=random_state)
        return ThresholdLayout(edges, n_threads=n_threads)

    def distributed_sample(self, *, thresholds=None):
        """``subsample``: the sample :meth:`prepare_distributed` draws without given thresholds."""
        return None if thresholds is not None or self.subsample is None else int(self.subsample)

    def prepare_distributed(self, rows, *, thresholds=None, random_state=None, n_threads=1):
        """The ``prepare`` rule on the rows ``sample_rows`` draws: ``subsample`` rows gathered, not all."""
        if thresholds is not None:
            edges = check_thresholds(thresholds, rows.n_features)
        else:
            Xs, ws = rows.sample(self.subsample, random_state)
            edges = bin_edges(Xs, self.max_bins, sample_weight=ws, subsample=None)
        return ThresholdLayout(edges, n_threads=n_threads)

    def ranker_from_state(self, state):
        return threshold_ranker_from_state(state)


class Thresholds(Learner):
    """Fixed threshold rankers 1[x_j > t]: q quantile thresholds per feature, or given ones.

    As in the paper's pima experiment (4 thresholds per feature).  With the
    estimator's ``thresholds`` the candidates are exactly those; otherwise the
    values at the quantile levels j/(q+1) of each feature.  Thresholds that
    split the training rows identically are reduced to the smallest one, and
    thresholds with every training row on one side are dropped.
    """

    name = "thresholds"
    aliases = ("threshold",)
    parameters = (Parameter("q", int, default=4, minimum=1, maximum=MAX_BINS - 1,
                            doc="quantile thresholds per feature"),)
    examples = ("thresholds", "thresholds:1", "thresholds:16")
    uses_thresholds = True

    def prepare(self, X, *, sample_weight=None, thresholds=None, random_state=None, n_threads=1):
        if thresholds is not None:
            candidates = check_thresholds(thresholds, X.shape[1])
        else:
            candidates = quantile_thresholds(X, self.q, sample_weight=sample_weight, subsample=None)
        rows = np.arange(X.shape[0]) if sample_weight is None else np.flatnonzero(np.asarray(sample_weight) > 0)
        return ThresholdLayout(_drop_equivalent(np.asarray(X), candidates, rows), n_threads=n_threads)

    def prepare_distributed(self, rows, *, thresholds=None, random_state=None, n_threads=1):
        """Exact quantiles of all rows (``rows.quantiles``), then one counting pass drops equivalent ones."""
        if thresholds is not None:
            candidates = check_thresholds(thresholds, rows.n_features)
        else:
            candidates = rows.quantiles(self.q)
        counts = rows.count_above(candidates)
        return ThresholdLayout([_keep_distinct(t, above, rows.n_live) for t, above in zip(candidates, counts)],
                               n_threads=n_threads)

    def ranker_from_state(self, state):
        return threshold_ranker_from_state(state)

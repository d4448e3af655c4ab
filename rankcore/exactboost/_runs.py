"""ExactBoost runs as plain functions: (data, run seed, settings) -> stumps.

The estimator calls :func:`fit_runs` for all its runs at once (threads in the
kernel); a distributed driver can instead ship :class:`PreparedData`,
:class:`RunSettings` and one seed per task to workers and call
:func:`fit_run` there -- a run's stumps depend only on these three, so the
result is the same wherever and in whatever order runs execute.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from ._metric import is_shift_invariant, make_evaluator, resolve_monotone_metric, subsample_metric

__all__ = [
    "MARGIN_MODES",
    "PreparedData",
    "RunSettings",
    "RunResult",
    "prepare_data",
    "run_seeds",
    "fit_run",
    "fit_runs",
]

#: How the margin theta scales inside a round (see docs/exactboost.md).
MARGIN_MODES = ("constant", "normalized", "stump")


@dataclass(frozen=True)
class PreparedData:
    """Training data in the form the kernel reads (built once per fit).

    Attributes
    ----------
    ranks : ndarray of int32, shape (d, n)
        Rank of ``X[i, j]`` among the distinct values of feature ``j``; for a
        binned feature, its bin code.
    n_values : ndarray of int32, shape (d,)
        Distinct values (binned feature: bins) of each feature.
    value_start : ndarray of int64, shape (d,)
        Offset of feature ``j``'s sorted distinct values (binned: its
        ``n_values[j] - 1`` bin edges) in ``values``.
    values : ndarray of float64
        Every feature's sorted distinct values or bin edges, concatenated.
    y : ndarray of int8, shape (n,)
        1 for the relevant class.
    binned : ndarray of uint8, shape (d,), or None
        1 where feature ``j`` is binned (more distinct values than
        ``max_bins``): code c holds the values in (edge[c - 1], edge[c]], and
        thresholds are edges.  None: no feature is binned.
    """

    ranks: np.ndarray
    n_values: np.ndarray
    value_start: np.ndarray
    values: np.ndarray
    y: np.ndarray
    binned: np.ndarray | None = None

    @property
    def n_samples(self) -> int:
        return int(self.ranks.shape[1])

    @property
    def n_features(self) -> int:
        return int(self.ranks.shape[0])

    def feature_values(self, j: int) -> np.ndarray:
        """The sorted distinct training values of feature ``j`` (a view into the shared array)."""
        start = int(self.value_start[j])
        return self.values[start:start + int(self.n_values[j])]


@dataclass(frozen=True)
class RunSettings:
    """Everything a run needs besides the data and its seed (all plain values).

    ``metric`` is a spec string (or a configured metric) of a monotone metric;
    ``tie_break`` is None or another monotone metric (already resolved: not
    ``"auto"``); the other fields are the estimator's parameters of the same
    names.
    """

    metric: Any = "auc"
    n_rounds: int = 50
    subsample: float = 0.2
    feature_subsample: float = 0.2
    margin: float = 0.05
    margin_mode: str = "constant"
    depth: int = 3
    max_boxes: int | None = 128
    max_thresholds: int | None = None
    tie_break: Any = None
    tie_break_weight: float = 0.25

    def resolved(self) -> "RunSettings":
        """These settings with ``metric`` and ``tie_break`` resolved (itself when they already are).

        The estimator resolves them once per fit (``ExactBoost._setup``); a
        driver that ships settings to other processes sends spec strings,
        which each process resolves here once for all its runs.
        """
        from ..spec import Component

        if isinstance(self.metric, Component) and (self.tie_break is None or isinstance(self.tie_break, Component)):
            return self
        tie_break = None if self.tie_break is None else resolve_monotone_metric(self.tie_break, name="tie_break")
        return replace(self, metric=resolve_monotone_metric(self.metric), tie_break=tie_break)

    def as_dict(self) -> dict:
        """The settings as plain values (metric and tie-break by their spec strings), for model files and reports."""
        out = asdict(self)
        out["metric"] = getattr(self.metric, "spec", self.metric)
        out["tie_break"] = getattr(self.tie_break, "spec", self.tie_break)
        return out


@dataclass(frozen=True)
class RunResult:
    """Stumps of runs; row ``e`` is run ``e``, column ``t`` its round ``t``.

    ``feature[e, t] == -1`` marks a round whose candidate was rejected (or
    none improved on the subsample); its threshold, a and b are 0.
    ``loss[e, t]`` is the full training loss (the metric's loss form, no
    margin) after ``t`` rounds (``loss[e, 0]``: the zero score).
    """

    feature: np.ndarray
    threshold: np.ndarray
    a: np.ndarray
    b: np.ndarray
    loss: np.ndarray
    evals: np.ndarray
    exhausted: np.ndarray

    @classmethod
    def concatenate(cls, results) -> "RunResult":
        """One result holding the runs of ``results`` in order (each field's rows stacked)."""
        results = list(results)
        return cls(**{name: np.concatenate([getattr(r, name) for r in results])
                      for name in cls.__dataclass_fields__})


def prepare_data(X: np.ndarray, y01: np.ndarray, max_bins: int | None = None) -> PreparedData:
    """Rank (or bin) every feature once per fit: O(d n log n) time, O(d n) memory.

    ``X`` is a validated float64 matrix, ``y01`` validated 0/1 labels.  With
    ``max_bins``, a feature with more distinct values than that is replaced by
    quantile bin codes: the edges are the ``stumps`` learners' rule
    (:func:`rankcore.learners.bin_edges` on all rows: midpoints after the
    values at the quantile levels b/max_bins), so its thresholds are searched
    among at most ``max_bins - 1`` edges; features with at most ``max_bins``
    distinct values keep their exact ranks.  The codes are computed here,
    once, and every run and round reuses them.
    """
    n, d = X.shape
    if max_bins is not None:
        if isinstance(max_bins, bool) or not isinstance(max_bins, (int, np.integer)) or not 2 <= max_bins <= 65536:
            raise ValueError(f"max_bins: expected None or an integer in [2, 65536], got {max_bins!r}")
    ranks = np.empty((d, n), dtype=np.int32)
    n_values = np.empty(d, dtype=np.int32)
    binned = np.zeros(d, dtype=np.uint8)
    chunks = []
    for j in range(d):
        values, inverse = np.unique(X[:, j], return_inverse=True)
        if max_bins is not None and values.shape[0] > max_bins:
            from ..learners import bin_edges

            edges = bin_edges(X[:, j:j + 1], int(max_bins), subsample=None)[0]
            # code c: edge[c - 1] < x <= edge[c]; as the edges are increasing, on
            # the distinct values (then spread to the rows through ``inverse``)
            codes = np.searchsorted(edges, values, side="left")
            ranks[j] = codes[inverse.reshape(-1)]
            n_values[j] = edges.shape[0] + 1
            binned[j] = 1
            chunks.append(np.ascontiguousarray(edges, dtype=np.float64))
            continue
        ranks[j] = inverse.reshape(-1)
        n_values[j] = values.shape[0]
        chunks.append(values)
    value_start = np.zeros(d, dtype=np.int64)
    lengths = np.array([c.shape[0] for c in chunks], dtype=np.int64)
    if d > 1:
        value_start[1:] = np.cumsum(lengths[:-1])
    values = np.ascontiguousarray(np.concatenate(chunks) if chunks else np.empty(0), dtype=np.float64)
    return PreparedData(ranks, n_values, value_start, values, np.ascontiguousarray(y01, dtype=np.int8),
                        binned if binned.any() else None)


def run_seeds(random_state: Any, n_runs: int) -> np.ndarray:
    """One 64-bit seed per run, derived from ``random_state``.

    Run ``e``'s seed depends on ``random_state`` and ``e`` only (SeedSequence
    spawning), so adding runs keeps the existing ones.
    """
    from ..validation import check_random_state_param, fit_seed

    check_random_state_param(random_state, generator=False)
    entropy = int(fit_seed(random_state))       # None: a draw from NumPy's global RandomState, as every estimator's
    children = np.random.SeedSequence(entropy).spawn(n_runs)
    return np.array([c.generate_state(1, dtype=np.uint64)[0] for c in children], dtype=np.uint64)


def _subsample_size(fraction: float, count: int) -> int:
    """ceil(fraction * count), at least 1 and at most count."""
    return int(min(count, max(1, math.ceil(fraction * count - 1e-9))))


def fit_runs(data: PreparedData, seeds: np.ndarray, settings: RunSettings, *, n_threads: int = 1,
             run_length: bool = True) -> RunResult:
    """Run one ExactBoost run per seed (``n_threads`` at a time, identical results).

    Parameters
    ----------
    data : PreparedData
    seeds : array of uint64
        One seed per run (see :func:`run_seeds`).
    settings : RunSettings
    n_threads : int
        OpenMP threads over runs; the result does not depend on it.
    run_length : bool
        Evaluate the branch and bound's boxes on run-length encoded scores
        (O(distinct scores) per box for AUC, KS and prec@k; AUC from the pair
        counts of the boxes' score groups, without merging them; two-valued
        features grouped in one pass).  False: on the
        expanded score arrays (O(subsample) per box), the reference path --
        the same stumps, slower; kept for tests and benchmarks.
    """
    from . import _bnb

    settings = settings.resolved()
    metric = settings.metric
    n = data.n_samples
    pos_idx = np.ascontiguousarray(np.flatnonzero(data.y == 1), dtype=np.int32)
    neg_idx = np.ascontiguousarray(np.flatnonzero(data.y == 0), dtype=np.int32)
    if pos_idx.size == 0 or neg_idx.size == 0:
        raise ValueError("y: ExactBoost needs both classes in the training data")
    m_pos = _subsample_size(settings.subsample, pos_idx.size)
    m_neg = _subsample_size(settings.subsample, neg_idx.size)
    n_feat = _subsample_size(settings.feature_subsample, data.n_features)
    if settings.margin_mode not in MARGIN_MODES:
        raise ValueError(f"margin_mode: expected one of {', '.join(MARGIN_MODES)}, got {settings.margin_mode!r}")
    search_metric = subsample_metric(metric, n, m_pos + m_neg) if m_pos + m_neg < n else metric
    ev_sub = make_evaluator(search_metric)
    ev_full = make_evaluator(metric)
    ev_tie = None
    if settings.tie_break is not None:
        from ._evaluators import CompositeLoss

        tie = settings.tie_break
        ev_tie = make_evaluator(tie)
        tie_sub = subsample_metric(tie, n, m_pos + m_neg) if m_pos + m_neg < n else tie
        ev_sub = CompositeLoss(ev_sub, make_evaluator(tie_sub), float(settings.tie_break_weight))
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64).reshape(-1)
    binned = (np.zeros(data.n_features, dtype=np.uint8) if data.binned is None
              else np.ascontiguousarray(data.binned, dtype=np.uint8))
    out = _bnb.fit_runs(
        data.ranks, data.n_values, data.value_start, data.values, binned, pos_idx, neg_idx, seeds,
        ev_sub, ev_full, ev_tie,
        int(settings.n_rounds), m_pos, m_neg, n_feat,
        int(settings.depth), int(settings.max_boxes or 0),
        # the kernel takes the count plus one as a C int: the largest max_thresholds (2**31 - 1) would overflow it,
        # and a cap of 2**31 - 1 candidates is as unbounded as 2**31 for any data a C int indexes
        min(int(settings.max_thresholds) + 1, 2**31 - 1) if settings.max_thresholds else 0, float(settings.margin),
        _bnb.MARGIN_MODES[settings.margin_mode], bool(is_shift_invariant(metric)), int(n_threads),
        bool(run_length),
    )
    return RunResult(**out)


def fit_run(data: PreparedData, seed: int, settings: RunSettings) -> RunResult:
    """One run (for shipping runs to workers): same stumps as inside :func:`fit_runs`."""
    return fit_runs(data, np.array([seed], dtype=np.uint64), settings, n_threads=1)

"""The fitted ExactBoost score as step functions, one per feature.

The run-averaged score of a row x is

    (1/E) Σ_runs Σ_stumps [a if x_j <= ξ else b]
      = (1/E) ( Σ b  +  Σ_j Σ_{stumps on j with ξ >= x_j} (a - b) ),

so each used feature contributes a step function of x_j: its stumps'
thresholds sorted ascending and suffix sums of (a - b).  Scoring is a binary
search per row and feature, O(n · d_used · log s) for s stumps per feature,
and each row's score depends on that row alone: the same in any batch, any
order, alone.  Stump values on ExactBoost's dyadic grid make every sum exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["GatedTable", "StepTable", "build_step_table"]


@dataclass(frozen=True)
class StepTable:
    """Per-feature step functions of a fitted ExactBoost model."""

    features: tuple[int, ...]            # used features, ascending
    thresholds: tuple[np.ndarray, ...]   # per used feature, ascending
    suffix: tuple[np.ndarray, ...]       # per used feature, len(thresholds) + 1
    base: float                          # Σ b over all stumps
    n_runs: int

    def steps(self, X: np.ndarray):
        """``(j, values)`` for each used feature j: each row's step value, Σ (a − b) over the stumps on j whose
        threshold is at or above its x_j (not yet divided by the runs).  O(n log s) per feature."""
        for j, xi, suffix in zip(self.features, self.thresholds, self.suffix):
            yield j, suffix[np.searchsorted(xi, X[:, j], side="left")]

    def decision(self, X: np.ndarray) -> np.ndarray:
        """Run-averaged scores of the validated float64 rows of ``X``."""
        total = np.full(X.shape[0], self.base, dtype=np.float64)
        for _, values in self.steps(X):
            total += values
        return total / self.n_runs

    def max_score(self) -> float:
        """The largest score any row can get (the score is a sum over features of step values)."""
        total = self.base + sum(float(suffix.max()) for suffix in self.suffix)
        return total / self.n_runs

    def min_score(self) -> float:
        """The smallest score any row can get."""
        total = self.base + sum(float(suffix.min()) for suffix in self.suffix)
        return total / self.n_runs


@dataclass(frozen=True)
class GatedTable:
    """A head ensemble on top of a tail ensemble (ExactBoost's ``head`` option).

    Rows whose head score reaches ``threshold`` are ranked first, by the head
    score; every other row below them, by the tail score.  The head rows get
    ``head - threshold + offset`` with ``offset`` above the largest tail
    score any row can reach, so the split never depends on the batch:
    each row's score is still a function of that row alone.
    """

    head: StepTable
    tail: StepTable
    threshold: float
    offset: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "offset", self.tail.max_score() + 1.0)

    def decision(self, X: np.ndarray) -> np.ndarray:
        """Gated scores of the validated float64 rows of ``X``: O(n · d_used · log s)."""
        head = self.head.decision(X)
        tail = self.tail.decision(X)
        in_head = head >= self.threshold
        # head - threshold >= 0 exactly for rows in the head, so they score above offset - 1 >= any tail score
        return np.where(in_head, (head - self.threshold) + self.offset, tail)


def build_step_table(feature: np.ndarray, threshold: np.ndarray, a: np.ndarray, b: np.ndarray,
                     n_runs: int) -> StepTable:
    """Step functions of the stumps (feature, threshold, a, b), one row per stump."""
    features, thresholds, suffixes = [], [], []
    base = float(np.sum(b)) if b.size else 0.0
    for j in np.unique(feature):
        mask = feature == j
        order = np.argsort(threshold[mask], kind="stable")
        xi = np.ascontiguousarray(threshold[mask][order])
        diff = (a[mask] - b[mask])[order]
        suffix = np.zeros(xi.shape[0] + 1, dtype=np.float64)
        suffix[:-1] = np.cumsum(diff[::-1])[::-1]
        features.append(int(j))
        thresholds.append(xi)
        suffixes.append(suffix)
    return StepTable(tuple(features), tuple(thresholds), tuple(suffixes), base, int(n_runs))

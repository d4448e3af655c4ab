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

from dataclasses import dataclass

import numpy as np

__all__ = ["StepTable", "build_step_table"]


@dataclass(frozen=True)
class StepTable:
    """Per-feature step functions of a fitted ExactBoost model."""

    features: tuple[int, ...]            # used features, ascending
    thresholds: tuple[np.ndarray, ...]   # per used feature, ascending
    suffix: tuple[np.ndarray, ...]       # per used feature, len(thresholds) + 1
    base: float                          # Σ b over all stumps
    n_runs: int

    def decision(self, X: np.ndarray) -> np.ndarray:
        """Run-averaged scores of the validated float64 rows of ``X``."""
        total = np.full(X.shape[0], self.base, dtype=np.float64)
        for j, xi, suffix in zip(self.features, self.thresholds, self.suffix):
            total += suffix[np.searchsorted(xi, X[:, j], side="left")]
        return total / self.n_runs


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

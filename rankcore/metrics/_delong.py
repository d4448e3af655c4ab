"""DeLong's variance of the AUC and of a difference of paired AUCs, from placement values.

DeLong, DeLong & Clarke-Pearson (1988) write the AUC as the mean of the
positives' *placement values* V10_i = (1/K)·Σ_k ψ(f_i, f_k), ψ = 1 above,
½ tied, 0 below; the negatives' V01_k = (1/I)·Σ_i ψ(f_i, f_k) have the same
mean.  The variance estimate is S10/I + S01/K with S10, S01 the sample
variances (ddof 1) of the two sets of placements; for two scorings of the
same rows the covariance matrix of the placements gives that of the AUCs.
Sun & Xu (2014) compute every placement from midranks, i.e. from one sort:
:func:`rankcore.metrics._bootstrap.placements` does it by one merge of the
sorted sides, so the whole estimate costs O(n log n) time and O(n) memory.
"""

from __future__ import annotations

import numpy as np

from ._bootstrap import placements
from ._resampling import SortedData

__all__ = ["delong_variance", "paired_delong"]


def delong_variance(data: SortedData) -> float:
    """DeLong's estimate of Var(AUC) for one scoring (I, K >= 2).  O(n) after the sort."""
    v10, v01 = placements(*data.sides)
    return float(np.var(v10, ddof=1) / v10.shape[0] + np.var(v01, ddof=1) / v01.shape[0])


def _row_placements(y: np.ndarray, scores: np.ndarray, pos_rows: np.ndarray,
                    neg_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Placements of every positive and negative, in the order of ``pos_rows`` / ``neg_rows``."""
    pos_scores, neg_scores = scores[pos_rows], scores[neg_rows]
    pos_order = np.argsort(pos_scores, kind="stable")
    neg_order = np.argsort(neg_scores, kind="stable")
    v10_sorted, v01_sorted = placements(np.ascontiguousarray(pos_scores[pos_order]),
                                        np.ascontiguousarray(neg_scores[neg_order]))
    v10 = np.empty_like(v10_sorted)
    v01 = np.empty_like(v01_sorted)
    v10[pos_order] = v10_sorted
    v01[neg_order] = v01_sorted
    return v10, v01


def paired_delong(y: np.ndarray, scorings: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """AUCs of several scorings of the same rows and DeLong's covariance matrix of them.

    Returns
    -------
    aucs : ndarray, shape (m,)
        The means of the placements (each the scoring's AUC).
    covariance : ndarray, shape (m, m)
        S10/I + S01/K with S10, S01 the (ddof 1) covariance matrices of the
        positives' and of the negatives' placements across scorings.

    O(m·n log n) time, O(m·n) memory.
    """
    pos_rows = np.flatnonzero(y)
    neg_rows = np.flatnonzero(y == 0)
    rows = [_row_placements(y, s, pos_rows, neg_rows) for s in scorings]
    v10 = np.stack([r[0] for r in rows])
    v01 = np.stack([r[1] for r in rows])
    covariance = np.atleast_2d(np.cov(v10, ddof=1)) / pos_rows.shape[0] + \
        np.atleast_2d(np.cov(v01, ddof=1)) / neg_rows.shape[0]
    return v10.mean(axis=1), covariance

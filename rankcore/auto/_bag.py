"""The fold bag: the choice refitted on every row, averaged with its cross-validation fold models.

The search has already fitted the chosen candidate on each fold of the first
repeat (on 80 % of the rows, each a different 80 %); throwing those models
away and keeping only the refit wastes what they know.  Averaging them with
the refit is bagging for free: it cuts the variance of the final model
(what a few hundred noisy rows make large) without one more fit.  AutoGluon
predicts with its fold models the same way (Erickson et al., *AutoGluon-Tabular:
Robust and Accurate AutoML for Structured Data*, 2020); we keep the refit too,
so the bag also holds one model that saw every row.

The models' scores are on similar but not identical scales (an ensemble of
trees fitted on fewer rows, a model stopped at another iteration), so each
is standardized before the average: a fold model by the mean and standard
deviation of its scores on its own validation rows (rows it never saw, as new
rows are), the refit by those of all the out-of-fold scores.  Each model's
map is fixed and strictly increasing, so a row is scored alone, and one
model's ties and order are kept.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._candidate import Candidate, candidate_scores

__all__ = ["FoldBag", "standardization"]


def standardization(scores: np.ndarray) -> tuple[float, float]:
    """``(center, scale)`` of a model's held-out scores: their mean and standard deviation (1 when they are
    constant)."""
    scores = np.asarray(scores, dtype=np.float64)
    scores = scores[np.isfinite(scores)]
    if scores.shape[0] == 0:
        return 0.0, 1.0
    center = float(np.mean(scores))
    scale = float(np.std(scores))
    if not (np.isfinite(scale) and scale > 0.0):
        scale = 1.0
    return center, scale


class FoldBag:
    """A fitted bag of one candidate's models: the mean of their standardized scores.

    Parameters
    ----------
    name : str
        The candidate's spec.
    estimators : list of fitted estimators
        The refit on every row first, then the fold models.
    centers, scales : sequence of float
        Each model's standardization (:func:`standardization` of its held-out scores).
    scorer : callable, optional
        ``scorer(estimator, X)``, the candidate's ranking scores (default:
        ``decision_function``, else P(relevant)).

    Notes
    -----
    Scoring m rows costs one scoring per model: time O(models · one model's
    scoring), memory O(m).
    """

    def __init__(self, name: str, estimators, centers, scales, scorer: Callable[[Any, Any], np.ndarray] | None = None):
        estimators = list(estimators)
        centers = np.asarray(centers, dtype=np.float64)
        scales = np.asarray(scales, dtype=np.float64)
        if not (len(estimators) >= 2 and centers.shape == scales.shape == (len(estimators),)):
            raise ValueError("FoldBag: expected at least two estimators, each with a center and a scale")
        if not (np.isfinite(centers).all() and np.isfinite(scales).all() and (scales > 0).all()):
            raise ValueError("FoldBag: centers must be finite and scales finite and positive")
        self.name = str(name)
        self.estimators = estimators
        self.centers = centers
        self.scales = scales
        self.scorer = scorer if scorer is not None else candidate_scores

    def decision_function(self, X) -> np.ndarray:
        """Mean over the models of ``(score - center) / scale``."""
        return self._scores(X, checked=False)

    #: ``_checked_decision_function`` takes rows with NaN, each member scoring them its own way
    _checked_passes_nan = True

    def _checked_decision_function(self, X, nan: bool = False) -> np.ndarray:
        """:meth:`decision_function` of rows AutoRanker checked (see
        :func:`~rankcore.auto._candidate.candidate_scores`); ``nan``: some rows hold NaN."""
        return self._scores(X, checked=True, nan=nan)

    def _scores(self, X, checked: bool, nan: bool = False) -> np.ndarray:
        # a candidate's own scorer (a plugin's) is called as it is; the default one may take the checked rows' path
        default = getattr(self.scorer, "__func__", self.scorer) in (Candidate.scores, candidate_scores)
        total = None
        for estimator, center, scale in zip(self.estimators, self.centers, self.scales):
            raw = candidate_scores(estimator, X, checked=checked, nan=nan) if default else self.scorer(estimator, X)
            z = (np.asarray(raw, dtype=np.float64) - center) / scale
            total = z if total is None else total + z
        return total / len(self.estimators)

    def __repr__(self) -> str:
        return f"FoldBag({self.name}: the refit + {len(self.estimators) - 1} fold models)"

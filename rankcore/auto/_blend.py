"""The rank-average blend: the mean of each member's score *quantile* on rows it never saw.

Averaging raw scores would mix scales (a tree ensemble's sums, a kernel
model's small differences); averaging ranks within the batch being scored
would make a row's score depend on the other rows of the batch.  So each
member's score s is mapped through the distribution of that member's
*out-of-fold* scores from the cross-validation -- the scores it gives rows it
was not trained on, the distribution new rows' scores follow -- to its
mid-rank quantile q(s) in (0, 1), and the blend is the mean of the q's.  A
row is scored alone, by a fixed, strictly increasing map per member.

Between reference points q is linear; beyond the smallest and largest
reference score it continues, strictly increasing and bounded, as
``c·exp(−d/w)`` and ``1 − (1 − c)·exp(−d/w)`` (w the mean gap between
reference points), so the very top rows of the list keep their order instead
of tying at 1.

In cross-validation the same blend is scored with the members' mid-ranks
within each validation part (:func:`fold_blend_scores`), which is the map
above with the part itself as reference.
"""

from __future__ import annotations

import numpy as np

from ._candidate import candidate_scores

__all__ = ["RankAverage", "quantile_reference", "quantile_position", "fold_blend_scores", "MAX_REFERENCE"]

#: Reference points kept per member (quantiles of its pooled out-of-fold scores).
MAX_REFERENCE = 4097


def quantile_reference(scores: np.ndarray) -> np.ndarray:
    """Sorted reference points of a member: its out-of-fold scores, or :data:`MAX_REFERENCE` of their quantiles."""
    scores = np.sort(np.asarray(scores, dtype=np.float64)[np.isfinite(scores)])
    if scores.shape[0] > MAX_REFERENCE:
        scores = np.quantile(scores, np.linspace(0.0, 1.0, MAX_REFERENCE))
    return np.ascontiguousarray(scores)


def quantile_position(reference: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Mid-rank quantile of each score among the sorted ``reference`` points, continued beyond its ends.

    Time O((m + L) log L) for m scores and L reference points; memory O(m + L).
    """
    scores = np.asarray(scores, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    L = ref.shape[0]
    points = np.unique(ref)
    if points.shape[0] < 2:
        return np.full(scores.shape, 0.5)
    midrank = (np.searchsorted(ref, points, side="left") + np.searchsorted(ref, points, side="right")) / (2.0 * L)
    q = np.interp(scores, points, midrank)
    width = (points[-1] - points[0]) / (points.shape[0] - 1)          # mean gap between reference points
    low, high = scores < points[0], scores > points[-1]
    q[low] = midrank[0] * np.exp(-(points[0] - scores[low]) / width)
    q[high] = 1.0 - (1.0 - midrank[-1]) * np.exp(-(scores[high] - points[-1]) / width)
    return q


def fold_blend_scores(member_scores: list[np.ndarray]) -> np.ndarray:
    """The blend of members' scores on one validation part: the mean of their within-part mid-rank quantiles."""
    from scipy.stats import rankdata

    total = np.zeros(member_scores[0].shape[0])
    for scores in member_scores:
        total += (rankdata(scores, method="average") - 0.5) / scores.shape[0]
    return total / len(member_scores)


class RankAverage:
    """A fitted rank-average blend of fitted candidate estimators (AutoRanker's ``best_estimator_`` when it wins).

    Parameters
    ----------
    names : list of str
        The members' candidate specs.
    estimators : list of fitted estimators
        Each refitted on all rows.
    references : list of ndarray
        Each member's sorted out-of-fold scores (:func:`quantile_reference`).
    """

    def __init__(self, names, estimators, references):
        if not (len(names) == len(estimators) == len(references) >= 2):
            raise ValueError("RankAverage: expected at least two members, each with a name, an estimator and a "
                             "reference")
        self.names = list(names)
        self.estimators = list(estimators)
        self.references = [np.asarray(r, dtype=np.float64) for r in references]

    def decision_function(self, X) -> np.ndarray:
        """Mean over members of the quantile of the member's score among its out-of-fold scores."""
        return self._scores(X, checked=False)

    #: ``_checked_decision_function`` takes rows with NaN, each member scoring them its own way
    _checked_passes_nan = True

    def _checked_decision_function(self, X, nan: bool = False) -> np.ndarray:
        """:meth:`decision_function` of rows AutoRanker checked (see
        :func:`~rankcore.auto._candidate.candidate_scores`); ``nan``: some rows hold NaN."""
        return self._scores(X, checked=True, nan=nan)

    def _scores(self, X, checked: bool, nan: bool = False) -> np.ndarray:
        total = None
        for estimator, reference in zip(self.estimators, self.references):
            q = quantile_position(reference, candidate_scores(estimator, X, checked=checked, nan=nan))
            total = q if total is None else total + q
        return total / len(self.estimators)

    def __repr__(self) -> str:
        return f"RankAverage({' + '.join(self.names)})"

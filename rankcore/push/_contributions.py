"""``feature_contributions`` of the push-family estimators: why each row scored what it did (TreeSHAP)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._threadsafe import reads_a_snapshot
from ..validation import effective_n_threads

__all__ = ["FeatureContributions"]


class FeatureContributions:
    """Mixin of ``_BaseBoost``: :meth:`feature_contributions` (tree learners; the learner computes them)."""

    @reads_a_snapshot
    def feature_contributions(self, X) -> np.ndarray:
        """Each feature's contribution to each row's score: exact TreeSHAP values, then the expected score.

        For the score f(x) = Σ_t α_t h_t(x), column j holds feature j's
        Shapley value

            φ_j(x) = Σ_{S ⊆ N∖{j}} |S|! (|N| − |S| − 1)! / |N|! · (v_x(S ∪ {j}) − v_x(S))

        of the path-dependent conditional expectation v_x(S) = Σ_t α_t
        E[h_t | x_S]: down each tree a split on a feature of S follows x, a
        split on another feature averages its two children weighted by their
        covers (the training rows of the tree's row sample that reached
        them).  The last column is the expected score v(∅) = Σ_t α_t
        Σ_leaves cover · value / root cover, the same for every row, so each
        row sums to ``decision_function(X)`` (up to rounding, which grows on
        paths of ~50 distinct features and more); a feature no
        tree splits on gets exactly 0.  Computed exactly in
        O(n · Σ_t L_t · D_t²) time for trees of L_t leaves and depth D_t
        (Algorithm 2 of Lundberg, Erion & Lee, "Consistent individualized
        feature attribution for tree ensembles", 2018; Lundberg et al.,
        "From local explanations to global understanding with explainable AI
        for trees", Nature Machine Intelligence 2020), in parallel over rows
        (``n_jobs``; the values do not depend on the thread count).  As
        LightGBM's ``predict(X, pred_contrib=True)`` and XGBoost's
        ``pred_contribs=True``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Checked as :meth:`decision_function` checks it (the features of
            fit, a DataFrame's columns by name, NaN routed as the trees route
            it; a sparse matrix is read as its dense form).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_features + 1)

        Raises
        ------
        TypeError
            The learner is not a tree learner (``learner="trees"``).
        ValueError
            The model was loaded from a file written without covers (refit
            it), or X does not fit the model.
        """
        check_is_fitted(self)
        contributions = getattr(self._learner, "contributions", None)
        if contributions is None:
            raise TypeError(f"feature_contributions: the learner {self.learner_spec_!r} has no TreeSHAP values "
                            f"(they need trees with covers: use learner='trees')")
        X_arr = self._check_X(X, reset=False)
        return contributions(self.rankers_, self.alphas_, X_arr, effective_n_threads(self.n_jobs))

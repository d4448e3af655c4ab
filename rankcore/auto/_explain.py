"""AutoRanker's explanations: the chosen model's SHAP values and SHAP interaction values, path-dependent or against
background rows, composed from its members' exact values (:mod:`._contributions`)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._peer_names import explains_rows_alone
from .._background import check_background, check_groups
from ..base import reads_a_snapshot
from ..validation import INTERACTION_MAX_BYTES, check_interaction_size

__all__ = ["AutoExplanations"]


class AutoExplanations:
    """``feature_contributions`` and ``feature_interactions`` of :class:`~rankcore.AutoRanker` (a mixin: it reads
    the fitted ``best_estimator_``, ``best_candidate_`` and ``n_features_in_``, and checks rows by the
    estimator's ``_prediction_rows``)."""

    @explains_rows_alone
    @reads_a_snapshot
    def feature_contributions(self, X, background=None, *, groups=None) -> np.ndarray:
        """Each feature's contribution to each row's score: exact TreeSHAP values of the chosen model.

        SHAP values are linear in the model explained, so for a chosen model
        whose score is Σ_m a_m f_m(x) + b -- one refitted candidate (a = 1,
        b = 0) or its fold bag (the mean of M models' standardized scores
        (f_m − c_m) / s_m: a_m = 1 / (M s_m), b = −Σ_m c_m / (M s_m)) -- the
        values are Σ_m a_m φ_m(x) and the expected value Σ_m a_m φ0_m + b,
        from each model's exact TreeSHAP values φ_m (``docs/tree_explanations.md``, *Why
        a row scored high*; an ``exactboost`` candidate of one ensemble: the
        exact values of its stumps,
        :meth:`rankcore.ExactBoost.feature_contributions`).  Column j is feature j's value, the last column
        the expected score, the same for every row; each row sums to
        :meth:`decision_function` (up to rounding; float32 rounding for an
        ``xgboost`` candidate).  A category column's values are those of its
        positions among ``categories_``, as the models read it.  A model
        behind the missing-value imputer is explained on the imputed columns
        it reads: a filled column's value is given to its original column,
        and so is its missing-value indicator's, so the columns are X's.
        See ``docs/auto.md``, *Why a row scored high*.  With ``background``
        rows, the interventional SHAP values instead (composed the same way;
        the expected value is the background's mean score): see
        :meth:`rankcore.PushBoost.feature_contributions`.  Behind the imputer
        a filled column and its indicator are one player, X's column, so
        these are exactly the Shapley values of X's columns.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Checked as :meth:`decision_function` checks it.
        background : array-like of shape (n_background, n_features), optional
            Reference rows of interventional values (None: path-dependent
            TreeSHAP), checked as X is; a few hundred rows, at most about
            1,000, are recommended.  Only ``trees`` candidates have them
            (a ``lightgbm`` or ``xgboost`` one: ``TypeError``).
        groups : array-like of int of shape (n_features,), optional
            With ``background`` only: each column's group, labels 0..G−1
            each used, a group's columns one player (as
            :meth:`rankcore.PushBoost.feature_contributions` takes them).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_features + 1)
            (n_samples, G + 1) with ``groups``.

        Raises
        ------
        TypeError
            The chosen model is not such a sum of models with exact
            contributions: a rank-average blend (its quantile map is not
            linear), or a candidate without tree contributions (linear,
            kernel, exactboost, stumps, a model scored by P(relevant)); the
            message names the candidate.
        ValueError
            A model was loaded from a file written without covers (refit
            it), X does not fit the model, or ``groups`` without background.
        """
        from ._contributions import score_composition

        check_is_fitted(self)
        composition = score_composition(self.best_estimator_, self.best_candidate_, getattr(self, "_candidate", None))
        labels = check_groups(groups, self.n_features_in_, background)
        X_arr = self._prediction_rows(X)
        if background is None:
            return composition.contributions(X_arr)
        return composition.contributions(X_arr, check_background(self._prediction_rows, background), labels)

    @explains_rows_alone
    @reads_a_snapshot
    def feature_interactions(self, X, background=None, *, groups=None,
                             max_bytes: int | None = INTERACTION_MAX_BYTES) -> np.ndarray:
        """Each row's SHAP interaction values of the chosen model: (n_samples, n_features + 1, n_features + 1).

        As :meth:`feature_contributions`, composed from the members' exact
        values (``PushBoost.feature_interactions``; an ``xgboost``
        candidate's ``pred_interactions``, float32): Σ_m a_m Φ_m(x), the
        expected score Σ_m a_m φ0_m + b at [-1, -1] and zeros in the rest of
        the last row and column.  Each matrix is symmetric, row j sums to
        ``feature_contributions(X)[:, j]`` (up to rounding).  A
        missing-value indicator's row and column are added to its column's.
        ``max_bytes`` (default 1 GiB; None: no limit) refuses a larger output
        with a ``ValueError``.  A ``lightgbm`` candidate has no interaction
        values (LightGBM computes none): refused with a ``TypeError``, as are
        the models :meth:`feature_contributions` refuses.  With
        ``background`` rows (checked as X is), the interventional SHAP
        interaction values of :meth:`rankcore.PushBoost.feature_interactions`,
        composed the same way (the expected score: the background's mean
        score), so row j sums to ``feature_contributions(X, background)[:,
        j]``; only ``trees`` candidates have them (an ``xgboost`` one: a
        ``TypeError``).  Behind the imputer a filled column and its indicator
        are then one player, X's column, as in :meth:`feature_contributions`;
        with ``groups`` as well (as :meth:`feature_contributions` takes them)
        (n_samples, G + 1, G + 1), the groups' values.
        """
        from ._contributions import score_composition

        check_is_fitted(self)
        composition = score_composition(self.best_estimator_, self.best_candidate_, getattr(self, "_candidate", None),
                                        method="feature_interactions")
        labels = check_groups(groups, self.n_features_in_, background)
        X_arr = self._prediction_rows(X)
        width = X_arr.shape[1] if labels is None else int(labels.max(initial=-1)) + 1
        check_interaction_size(X_arr.shape[0], width, max_bytes, "AutoRanker.feature_interactions")
        if background is None:
            return composition.interactions(X_arr, max_bytes)
        return composition.interactions(X_arr, max_bytes, check_background(self._prediction_rows, background), labels)

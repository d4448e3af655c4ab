"""``feature_contributions`` and ``feature_interactions`` of the push-family estimators: why each row scored what it
did (TreeSHAP values and SHAP interaction values)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._peer_names import explains_rows_alone
from .._background import check_background, check_groups, check_takes_groups
from .._threadsafe import reads_a_snapshot
from ..validation import INTERACTION_MAX_BYTES, effective_n_threads

__all__ = ["FeatureContributions"]


class FeatureContributions:
    """Mixin of ``_BaseBoost``: :meth:`feature_contributions` and :meth:`feature_interactions` (tree learners; the
    learner computes them)."""

    @explains_rows_alone
    @reads_a_snapshot
    def feature_contributions(self, X, background=None, *, groups=None) -> np.ndarray:
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
        row sums to ``decision_function(X)`` (up to rounding, at any path
        length: long paths are divided stably, docs/tree_explanations.md); a feature no
        tree splits on gets exactly 0.  Computed exactly in
        O(n · Σ_t L_t · D_t²) time for trees of L_t leaves and depth D_t
        (Algorithm 2 of Lundberg, Erion & Lee, "Consistent individualized
        feature attribution for tree ensembles", 2018; Lundberg et al.,
        "From local explanations to global understanding with explainable AI
        for trees", Nature Machine Intelligence 2020), in parallel over rows
        (``n_jobs``; the values do not depend on the thread count).  As
        LightGBM's ``predict(X, pred_contrib=True)`` and XGBoost's
        ``pred_contribs=True``.

        With ``background`` rows z_1..z_m, the values are instead the
        interventional SHAP values: the Shapley values of v_x(S) = (1/m)
        Σ_k f(x_S, z_k,S̄), the score of x's values on S and z_k's elsewhere,
        averaged over the background (SHAP's ``TreeExplainer(model, data,
        feature_perturbation="interventional")``; Lundberg et al. 2020,
        above).  The last column is then the background's mean score (1/m)
        Σ_k f(z_k), so each row still sums to ``decision_function(X)``.
        Exact, in O(n · m · Σ_t V_t) time, V_t at most the nodes of tree t
        (D_t + 1 for a pair of rows that share a leaf); memory O((n + m) · d),
        no n × m array; the trees need no covers.  See ``docs/tree_explanations.md``,
        *Interventional SHAP values*.

        With ``groups`` as well, the players are groups of columns that take
        x's values or z_k's together (the columns of a one-hot-encoded
        variable, say): the values are the Shapley values of v_x(S) = (1/m)
        Σ_k f(x_{cols(S)}, z_k,rest) over sets S of the G groups, one column
        per group -- exact, at the same cost, and not the sums of the
        columns' values (those of another game).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Checked as :meth:`decision_function` checks it (the features of
            fit, a DataFrame's columns by name, NaN routed as the trees route
            it; a sparse matrix is read as its dense form).
        background : array-like of shape (n_background, n_features), optional
            The reference rows of interventional values (None: path-dependent
            TreeSHAP), checked as X is.  Recommended: a few hundred rows, at
            most about 1,000 (e.g. a random sample of the training rows): the
            time grows with their number, the memory does not.
        groups : array-like of int of shape (n_features,), optional
            With ``background`` only: each column's group, labels 0..G−1,
            each used at least once (``[0, 0, 0, 1, 2]``: the first three of
            five columns are one player).  A list of lists of columns,
            column names or non-integer labels are refused (``TypeError``).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_features + 1)
            (n_samples, G + 1) with ``groups``: group g's value in column g.

        Raises
        ------
        TypeError
            The learner is not a tree learner (``learner="trees"``), or with
            ``groups`` its ``contributions`` takes no ``groups`` (a plugin's
            learner; read from its signature).
        ValueError
            The model was loaded from a file written without covers (refit
            it, or pass a background), or X or the background does not fit
            the model (the background: no rows, other columns, NaN where the
            model routes none); ``groups`` without ``background``, or not
            n_features labels 0..G−1 each used.
        """
        check_is_fitted(self)
        contributions = getattr(self._learner, "contributions", None)
        if contributions is None:
            raise TypeError(f"feature_contributions: the learner {self.learner_spec_!r} has no TreeSHAP values "
                            f"(they need trees with covers: use learner='trees')")
        labels = check_groups(groups, self.n_features_in_, background)
        X_arr = self._check_X(X, reset=False)
        n_threads = effective_n_threads(self.n_jobs)
        if background is None:
            return contributions(self.rankers_, self.alphas_, X_arr, n_threads)
        Z = check_background(lambda rows: self._check_X(rows, reset=False), background)
        options = {} if labels is None else {"groups": labels}     # a learner plugin may take no groups
        if labels is not None:
            check_takes_groups(contributions, self._learner, self.learner_spec_, "feature_contributions")
        return contributions(self.rankers_, self.alphas_, X_arr, n_threads, background=Z, **options)

    @explains_rows_alone
    @reads_a_snapshot
    def feature_interactions(self, X, background=None, *, groups=None,
                             max_bytes: int | None = INTERACTION_MAX_BYTES) -> np.ndarray:
        """Each row's SHAP interaction values: a symmetric (n_features + 1) × (n_features + 1) matrix per row.

        Off the diagonal, Φ_ij = Φ_ji is half the Shapley interaction index of
        features i and j for the value function of
        :meth:`feature_contributions` (Grabisch & Roubens, "An axiomatic
        approach to the concept of interaction among players in cooperative
        games", 1999):

            Φ_ij(x) = Σ_{S ⊆ N∖{i,j}} |S|! (|N| − |S| − 2)! / (2 (|N| − 1)!) · (v_x(S ∪ {i,j}) − v_x(S ∪ {i})
                      − v_x(S ∪ {j}) + v_x(S)),

        computed exactly as (φ_j with x_i known − φ_j with x_i unknown) / 2 by
        TreeSHAP with feature i conditioned (Lundberg et al., "From local
        explanations to global understanding with explainable AI for trees",
        Nature Machine Intelligence 2020).  The diagonal holds the main
        effects Φ_ii = φ_i − Σ_{j≠i} Φ_ij, so row i sums to
        ``feature_contributions(X)[:, i]`` and each matrix to
        ``decision_function(X)`` (up to rounding).  The last row and column
        are the bias, as XGBoost's ``pred_interactions=True`` lays it out:
        the expected score (``feature_contributions``' last column) at
        [-1, -1], zeros elsewhere.  A feature no tree splits on has a zero
        row and column.  O(n · Σ_t (1 + 2 U_t) · L_t · D_t² + n · d²) time
        for trees of L_t leaves, depth D_t and U_t distinct features, in
        parallel over rows (``n_jobs``; the values do not depend on the
        thread count).

        With ``background`` rows, the interventional SHAP interaction values
        instead: the same index of the game v_x(S) = (1/m) Σ_k f(x_S,
        z_k,S̄) of :meth:`feature_contributions` with a background, so row i
        sums to ``feature_contributions(X, background=background)[:, i]``
        and the bias at [-1, -1] is the background's mean score (the same
        layout: the two can be swapped).  Exact: each tree is a sum of leaf
        games u(S) = v·[A ⊆ S]·[B ∩ S = ∅] whose values have closed forms in
        |A| and |B|, summed on the way back up each tree, in
        O(n · m · Σ_t (V_t + P_t · D_t) + n · d²) time for m background rows,
        V_t ≤ the nodes of tree t a pair of rows reaches and P_t ≤ V_t those
        where the pair parts; no n × m array, no covers needed.  See
        ``docs/interventional_interactions.md``.  With ``groups`` as well,
        the players are the groups of columns of
        :meth:`feature_contributions`: one row and column per group, row g
        summing to ``feature_contributions(X, background, groups=groups)[:,
        g]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            As :meth:`feature_contributions` takes it.
        background : array-like of shape (n_background, n_features), optional
            The reference rows of interventional values (None: path-dependent
            TreeSHAP), checked as X is; as in :meth:`feature_contributions`,
            a few hundred rows, at most about 1,000.
        groups : array-like of int of shape (n_features,), optional
            With ``background`` only: each column's group, labels 0..G−1,
            each used at least once, as :meth:`feature_contributions` takes
            them.
        max_bytes : int or None, default 2**30 (1 GiB)
            The largest output computed: n_samples · (n_features + 1)² · 8
            bytes beyond it are refused (pass the rows in chunks, or a larger
            limit; None: no limit).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_features + 1, n_features + 1)
            (n_samples, G + 1, G + 1) with ``groups``.

        Raises
        ------
        TypeError
            The learner is not a tree learner (``learner="trees"``), or with
            ``groups`` its ``interaction_values`` takes no ``groups`` (a
            plugin's learner; read from its signature).
        ValueError
            The output would exceed ``max_bytes``; the model was loaded from
            a file written without covers (refit it, or pass a background);
            X or the background does not fit the model; ``groups`` without
            ``background``, or not n_features labels 0..G−1 each used.
        """
        check_is_fitted(self)
        interactions = getattr(self._learner, "interaction_values", None)
        if interactions is None:
            raise TypeError(f"feature_interactions: the learner {self.learner_spec_!r} has no TreeSHAP values "
                            f"(they need trees with covers: use learner='trees')")
        labels = check_groups(groups, self.n_features_in_, background)
        X_arr = self._check_X(X, reset=False)
        n_threads = effective_n_threads(self.n_jobs)
        if background is None:
            return interactions(self.rankers_, self.alphas_, X_arr, n_threads, max_bytes)
        Z = check_background(lambda rows: self._check_X(rows, reset=False), background)
        options = {} if labels is None else {"groups": labels}     # a learner plugin may take no groups
        if labels is not None:
            check_takes_groups(interactions, self._learner, self.learner_spec_, "feature_interactions")
        return interactions(self.rankers_, self.alphas_, X_arr, n_threads, max_bytes, background=Z, **options)

"""``feature_contributions`` and ``feature_interactions`` of :class:`ExactBoost`: each feature's exact share of a
row's score.

A model of one ensemble (``head_`` None) scores a row as

    f(x) = c + Σ_j g_j(x_j),

c the run-averaged sum of the stumps' right values and g_j the step function
of the stumps on feature j (:mod:`._predict`).  For any game that replaces the
features outside S by reference rows z drawn from a distribution D,
v_x(S) = E_z[f(x_S, z_S̄)] = c + Σ_{j∈S} g_j(x_j) + Σ_{j∉S} E_D[g_j], the
Shapley value of feature j is φ_j = g_j(x_j) − E_D[g_j], with no sum over
subsets: the game is additive.  Its Shapley interaction index is 0 between two
features.  Without a background D is the training rows (what path-dependent
TreeSHAP gives the stumps as trees whose covers count the training rows: a
stump splits on one feature); with a background, its rows.

A model with a head ensemble gated over a tail (``head_`` not None) is not
additive: it is refused.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._peer_names import explains_rows_alone
from .._background import check_background, check_groups
from .._threadsafe import reads_a_snapshot
from ..validation import INTERACTION_MAX_BYTES, check_interaction_size
from ._predict import StepTable

__all__ = ["StumpContributions", "contribution_rows", "interaction_rows", "feature_terms", "training_means",
           "means_outside_steps"]


def feature_terms(table: StepTable, X: np.ndarray, n_features: int) -> np.ndarray:
    """g_j(x_j) of each row and feature, shape (n, n_features): the run-averaged outputs of the stumps on feature
    j (0 for a feature no stump uses), from :meth:`StepTable.steps` as the scores are."""
    terms = np.zeros((X.shape[0], n_features), dtype=np.float64)
    for j, values in table.steps(X):
        terms[:, j] = values / table.n_runs
    return terms


def training_means(table: StepTable, X: np.ndarray, n_features: int) -> np.ndarray:
    """E[g_j] over the rows of ``X`` for each feature, shape (n_features,); one column at a time (no n × d
    array)."""
    means = np.zeros(n_features, dtype=np.float64)
    for j, values in table.steps(X):
        means[j] = float(np.mean(values)) / table.n_runs
    return means


def means_outside_steps(means: np.ndarray, table: StepTable) -> list[int]:
    """The features whose ``means[j]`` no set of rows gives: not exactly 0 for a feature no stump uses, or outside
    the range of g_j's values (a mean of g_j's values lies in it).

    A saved ``train_feature_means`` is checked so: else a feature no stump uses would get a non-zero contribution
    and the others values centred on a number no rows give.
    """
    bad = []
    used = {j: suffix for j, suffix in zip(table.features, table.suffix)}
    for j, mean in enumerate(means.tolist()):
        if j not in used:
            if mean != 0.0:
                bad.append(j)
            continue
        low, high = float(used[j].min()) / table.n_runs, float(used[j].max()) / table.n_runs
        slack = 1e-12 * (1.0 + max(abs(low), abs(high)))        # a float mean of values in [low, high]
        if not low - slack <= mean <= high + slack:
            bad.append(j)
    return bad


def _grouped(phi: np.ndarray, labels: np.ndarray | None) -> np.ndarray:
    """The columns of ``phi`` (n, d) summed by group (n, G): an additive game's group value is the sum of its
    columns' values.  ``labels`` None: ``phi`` as it is."""
    if labels is None:
        return phi
    out = np.zeros((phi.shape[0], int(labels.max()) + 1), dtype=np.float64)
    for j, g in enumerate(labels.tolist()):
        out[:, g] += phi[:, j]
    return out


def contribution_rows(X: np.ndarray, table: StepTable, means: np.ndarray, expected: float,
                      labels: np.ndarray | None) -> np.ndarray:
    """The contributions of rows of an additive ExactBoost model: a pure function of each row (a chunk's task).

    Parameters
    ----------
    X : ndarray of float64, shape (n, d)
        Rows checked as ``ExactBoost.decision_function`` checks them.
    table : StepTable
        The model's step functions (its ``_table`` of one ensemble).
    means : ndarray of shape (d,)
        E[g_j] for each feature (over the training rows or a background).
    expected : float
        The expected score, the last column.
    labels : ndarray of int or None
        Each column's group (players of several columns), or None.

    Returns
    -------
    ndarray of float64, shape (n, P + 1)
        g_j(x_j) − ``means[j]`` (summed by group with ``labels``), then ``expected``.
    """
    phi = _grouped(feature_terms(table, X, means.shape[0]) - means, labels)
    return np.column_stack([phi, np.full(X.shape[0], expected)])


def interaction_rows(X: np.ndarray, table: StepTable, means: np.ndarray, expected: float,
                     labels: np.ndarray | None) -> np.ndarray:
    """The interaction values of rows of an additive ExactBoost model.

    Parameters
    ----------
    X, table, means, expected, labels
        As :func:`contribution_rows` takes them.

    Returns
    -------
    ndarray of float64, shape (n, P + 1, P + 1)
        :func:`contribution_rows` on each matrix's diagonal, 0 elsewhere (an additive score).
    """
    phi = contribution_rows(X, table, means, expected, labels)
    out = np.zeros((phi.shape[0], phi.shape[1], phi.shape[1]), dtype=np.float64)
    diagonal = np.arange(phi.shape[1])
    out[:, diagonal, diagonal] = phi
    return out


class StumpContributions:
    """Mixin of :class:`ExactBoost`: :meth:`feature_contributions` and :meth:`feature_interactions`, exact and in
    closed form (the score is a sum of one step function per feature)."""

    def _additive_table(self, owner: str) -> StepTable:
        """The model's step table; a ``TypeError`` for a gated head/tail model, whose score is no sum over
        features."""
        check_is_fitted(self)
        table = self._table
        if not isinstance(table, StepTable):
            raise TypeError(f"{owner}: this {type(self).__name__} ranks with a head ensemble over a tail "
                            f"(head_={self.head_!r}, metric {self.metric_.spec!r}): rows enter the head by a "
                            f"threshold on its score, so the score is not a sum over features and has no exact "
                            f"per-feature contributions; fit with head=None to explain its scores")
        return table

    def _expectations(self, table: StepTable, background, owner: str) -> tuple[np.ndarray, float]:
        """(E[g_j] for each feature, the expected score): over the training rows, or the ``background`` rows
        (checked as X)."""
        d = self.n_features_in_
        if background is None:
            means = getattr(self, "train_feature_means_", None)
            if means is None:
                raise ValueError(f"{owner}: this {type(self).__name__} has no train_feature_means_ (the training "
                                 f"rows' mean of each feature's stumps: a model file written without it, or runs "
                                 f"set without the training rows): refit it, or pass background rows "
                                 f"(background=...)")
            expected = table.base / table.n_runs + float(np.sum(means))
        else:
            Z = check_background(self._checked_rows, background)
            means = training_means(table, Z, d)
            expected = float(np.mean(table.decision(Z)))
        return means, expected

    @explains_rows_alone
    @reads_a_snapshot
    def feature_contributions(self, X, background=None, *, groups=None) -> np.ndarray:
        """Each feature's contribution to each row's score, exactly, then the expected score.

        The score is f(x) = c + Σ_j g_j(x_j), g_j the run-averaged output of
        the stumps on feature j, so feature j's Shapley value is

            φ_j(x) = g_j(x_j) − E[g_j],

        the expectation over the training rows (without ``background``: what
        path-dependent TreeSHAP gives these stumps as trees whose covers
        count the training rows, as :meth:`rankcore.PushBoost.feature_contributions`
        explains trees), or over the ``background`` rows (the interventional
        SHAP values, SHAP's ``feature_perturbation="interventional"``).  The
        last column is the expected score c + Σ_j E[g_j] (with a background,
        its rows' mean score), the same for every row, so each row sums to
        ``decision_function(X)`` up to rounding.  A feature no stump uses gets
        exactly 0.  O(n · Σ_j log s_j) for s_j stumps on feature j (plus the
        background's rows, once).  See
        ``docs/exactboost_explanations.md``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Checked as :meth:`decision_function` checks it.
        background : array-like of shape (n_background, n_features), optional
            The reference rows of interventional values (None: the training
            rows' distribution), checked as X is.
        groups : array-like of int of shape (n_features,), optional
            With ``background`` only (as the push models take them): each
            column's group, labels 0..G−1, each used at least once.  The
            score being additive, a group's value is the sum of its columns'.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_features + 1)
            (n_samples, G + 1) with ``groups``.

        Raises
        ------
        TypeError
            A model with a head ensemble (``head_`` not None): its score is
            not a sum over features (fit with ``head=None``).
        ValueError
            X or the background does not fit the model; ``groups`` without
            ``background`` or not n_features labels 0..G−1 each used; no
            background for a model loaded from a file that holds no
            ``train_feature_means`` (refit it, or pass one).
        """
        table = self._additive_table("feature_contributions")
        labels = check_groups(groups, self.n_features_in_, background)
        X_arr = self._checked_rows(X)
        return contribution_rows(X_arr, table, *self._expectations(table, background, "feature_contributions"),
                                 labels)

    @explains_rows_alone
    @reads_a_snapshot
    def feature_interactions(self, X, background=None, *, groups=None,
                             max_bytes: int | None = INTERACTION_MAX_BYTES) -> np.ndarray:
        """Each row's SHAP interaction values: a symmetric (n_features + 1) × (n_features + 1) matrix per row.

        The score is a sum of one function per feature, so the Shapley
        interaction index of two features is exactly 0: each matrix is
        diagonal, Φ_jj = ``feature_contributions(X, background)[:, j]``, with
        the expected score at [-1, -1] (the layout of
        :meth:`rankcore.PushBoost.feature_interactions` and XGBoost's
        ``pred_interactions=True``), so each row i of a matrix sums to the
        contribution of feature i and each matrix to ``decision_function(X)``.

        Parameters
        ----------
        X, background, groups
            As :meth:`feature_contributions` takes them.
        max_bytes : int or None, default 2**30 (1 GiB)
            The largest output computed: n_samples · (n_features + 1)² · 8
            bytes beyond it are refused (None: no limit).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_features + 1, n_features + 1)
            (n_samples, G + 1, G + 1) with ``groups``.

        Raises
        ------
        TypeError, ValueError
            As :meth:`feature_contributions`; a ``ValueError`` for an output
            over ``max_bytes``.
        """
        table = self._additive_table("feature_interactions")
        labels = check_groups(groups, self.n_features_in_, background)
        players = self.n_features_in_ if labels is None else int(labels.max()) + 1
        X_arr = self._checked_rows(X)
        check_interaction_size(X_arr.shape[0], players, max_bytes)
        return interaction_rows(X_arr, table, *self._expectations(table, background, "feature_interactions"),
                                labels)

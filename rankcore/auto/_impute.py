"""Missing values for candidates that do not accept them: a median fill and missing-value indicators.

AutoRanker fits a candidate whose estimator does not accept NaN (the linear
ranker, kernel ranking, ExactBoost, the stumps) behind
:class:`MissingValueImputer` when the data have missing values, instead of
leaving the trees alone on such data.  The fill is the simplest that keeps
what missingness says: each column's training median, plus one 0/1 column
per column that had missing values in training, so a model can learn that
"missing" ranks high or low.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline

__all__ = ["MissingValueImputer", "with_imputer", "imputer_and_model"]


class MissingValueImputer(TransformerMixin, BaseEstimator):
    """Fill NaN with each column's training median and append missing-value indicators.

    ``fit`` learns, per column, the median of its non-missing training values
    (0 for a column with no value at all) and which columns had missing
    values.  ``transform`` returns the filled columns followed by one 0/1
    column per such column (1 where the row's value is missing), in column
    order.  A column without missing values in training is filled with its
    median at transform time, without an indicator.

    Time O(n d log n) to fit (the medians), O(n d) to transform; memory
    O(n d) for the output.

    Attributes
    ----------
    fill_values_ : ndarray of shape (n_features,)
        The training median of each column.
    indicator_features_ : ndarray of int64
        Ascending indices of the columns that had missing values in training.
    n_features_in_ : int
    """

    def fit(self, X, y=None):
        """Learn each column's median over its present values (0 for a column with none) and which columns miss any.

        Returns
        -------
        MissingValueImputer
            self.
        """
        X = self._check(X, fitting=True)
        missing = np.isnan(X)
        self.n_features_in_ = X.shape[1]
        self.indicator_features_ = np.flatnonzero(missing.any(axis=0)).astype(np.int64)
        fill = np.zeros(X.shape[1])
        for j in range(X.shape[1]):
            present = X[~missing[:, j], j]
            if present.size:
                fill[j] = np.median(present)
        self.fill_values_ = fill
        return self

    def transform(self, X):
        """X with each missing value replaced by its column's median, then a 0/1 column for each column that missed
        values in ``fit`` (in their order).

        Returns
        -------
        ndarray of shape (n, n_features_in_ + len(indicator_features_))
        """
        if not hasattr(self, "fill_values_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this MissingValueImputer is not fitted yet; call fit first")
        X = self._check(X, fitting=False)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X: expected {self.n_features_in_} features, got {X.shape[1]}")
        missing = np.isnan(X)
        filled = np.where(missing, self.fill_values_, X)
        return np.hstack([filled, missing[:, self.indicator_features_].astype(np.float64)])

    @staticmethod
    def _check(X, fitting: bool) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X: expected a 2-D array, got {X.ndim} dimension(s)")
        if fitting and X.shape[0] == 0:
            raise ValueError("X: expected at least one row, got 0")
        if np.isinf(X).any():
            raise ValueError("X: expected finite values or NaN, got inf")
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def with_imputer(estimator) -> Pipeline:
    """``estimator`` (unfitted) behind a :class:`MissingValueImputer`."""
    return Pipeline([("missingvalueimputer", MissingValueImputer()), ("model", estimator)])


def imputer_and_model(estimator):
    """``(imputer, model)`` of a :func:`with_imputer` pipeline, else None."""
    if (isinstance(estimator, Pipeline) and len(estimator.steps) == 2
            and isinstance(estimator.steps[0][1], MissingValueImputer)):
        return estimator.steps[0][1], estimator.steps[1][1]
    return None

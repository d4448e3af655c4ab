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
    O(n d) for the output.  A scipy.sparse X is read as CSR and stays sparse:
    its absent entries are zeros (present values, counted in the medians),
    only its stored NaN are filled, and ``transform`` returns a CSR matrix
    (time and memory O(nnz log nnz)).

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
        if hasattr(X, "toarray"):
            return self._fit_sparse(X)
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
        if hasattr(X, "toarray"):
            return self._transform_sparse(X)
        missing = np.isnan(X)
        filled = np.where(missing, self.fill_values_, X)
        return np.hstack([filled, missing[:, self.indicator_features_].astype(np.float64)])

    def _fit_sparse(self, X) -> "MissingValueImputer":
        """``fit`` of a CSR matrix in O(nnz log nnz): a column's absent entries are zeros, present values."""
        n, d = X.shape
        csc = X.tocsc()
        fill = np.zeros(d)
        indicated = []
        for j in range(d):
            stored = csc.data[csc.indptr[j]:csc.indptr[j + 1]]
            nan = np.isnan(stored)
            if nan.any():
                indicated.append(j)
            fill[j] = _median_with_zeros(np.sort(stored[~nan]), n - stored.shape[0])
        self.n_features_in_ = d
        self.indicator_features_ = np.asarray(indicated, dtype=np.int64)
        self.fill_values_ = fill
        return self

    def _transform_sparse(self, X):
        """``transform`` of a CSR matrix as a CSR matrix: only stored NaN is filled (absent entries stay zeros), and
        the indicators are stored where they are 1 (O(nnz), no dense copy)."""
        import scipy.sparse as sp

        filled = X.copy()
        nan = np.isnan(filled.data)
        columns = filled.indices[nan]
        filled.data[nan] = self.fill_values_[columns]
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))[nan]
        position = np.full(self.n_features_in_, -1, dtype=np.int64)
        position[self.indicator_features_] = np.arange(self.indicator_features_.shape[0])
        keep = position[columns] >= 0
        indicators = sp.csr_matrix((np.ones(int(keep.sum())), (rows[keep], position[columns[keep]])),
                                   shape=(X.shape[0], self.indicator_features_.shape[0]))
        return sp.hstack([filled, indicators], format="csr")

    @staticmethod
    def _check(X, fitting: bool) -> np.ndarray:
        if hasattr(X, "toarray"):          # CSR (AutoRanker's sparse X): kept sparse, read by its stored values
            import scipy.sparse as sp

            X = sp.csr_matrix(X, dtype=np.float64)
            values = X.data
        else:
            X = values = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X: expected a 2-D array, got {X.ndim} dimension(s)")
        if fitting and X.shape[0] == 0:
            raise ValueError("X: expected at least one row, got 0")
        if np.isinf(values).any():
            raise ValueError("X: expected finite values or NaN, got inf")
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _median_with_zeros(present: np.ndarray, n_zeros: int) -> float:
    """The median of the sorted values ``present`` and ``n_zeros`` zeros besides (0 when there is no value at all),
    as ``np.median`` of them all, without making the zeros."""
    total = present.shape[0] + n_zeros
    if total == 0:
        return 0.0
    below = int(np.searchsorted(present, 0.0, side="left"))      # the zeros sort after the negative values

    def at(k: int) -> float:
        if k < below:
            return float(present[k])
        if k < below + n_zeros:
            return 0.0
        return float(present[k - n_zeros])

    half = total // 2
    return at(half) if total % 2 else (at(half - 1) + at(half)) / 2.0


def with_imputer(estimator) -> Pipeline:
    """``estimator`` (unfitted) behind a :class:`MissingValueImputer`."""
    return Pipeline([("missingvalueimputer", MissingValueImputer()), ("model", estimator)])


def imputer_and_model(estimator):
    """``(imputer, model)`` of a :func:`with_imputer` pipeline, else None."""
    if (isinstance(estimator, Pipeline) and len(estimator.steps) == 2
            and isinstance(estimator.steps[0][1], MissingValueImputer)):
        return estimator.steps[0][1], estimator.steps[1][1]
    return None

"""``apply`` of the push-family estimators: the leaf each row reaches in each tree (tree learners)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._peer_names import explains_rows_alone
from .._threadsafe import reads_a_snapshot
from ..validation import threads_for_work
from ._predictions import SERIAL_VISITS

__all__ = ["TreeLeaves"]


class TreeLeaves:
    """Mixin of ``_BaseBoost``: :meth:`apply` (tree learners; the learner walks the trees)."""

    @explains_rows_alone
    @reads_a_snapshot
    def apply(self, X) -> np.ndarray:
        """The leaf each row reaches in each tree (LightGBM's ``predict(X, pred_leaf=True)``, numbered as
        scikit-learn's ``apply``).

        Column t holds, for tree t of ``rankers_``, the index into that
        tree's ``value`` array (saved in the model file as it is) of the
        leaf the row falls in, so that ``rankers_[t].value[leaf]`` is the
        leaf's value and

            Σ_t alphas_[t] · rankers_[t].value[apply(X)[:, t]],

        added in tree order from 0, is ``decision_function(X)`` bit for bit.
        For trees grown leaf-wise or depth-wise the index is the leaf's node
        id (as scikit-learn's ``apply``: root 0, a leaf has ``left == -1``;
        the L leaves of a tree are some L of its 2L − 1 node ids, not
        0..L − 1); for oblivious trees (``growth='oblivious'``) it is the
        cell Σ_l 2^l·[right at level l], from 0 to 2^depth − 1.  The rows
        are routed as :meth:`decision_function` routes them (NaN by each
        split's side, categorical splits by their left categories).
        One-hot encoded, the leaves are features for a linear model
        (He et al., "Practical lessons from predicting clicks on ads at
        Facebook", 2014).  Parallel passes over blocks of rows (``n_jobs``;
        Ctrl-C is delivered between blocks; the leaves depend on neither): O(n · Σ_t depth_t)
        time, O(n · T) memory.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Checked as :meth:`decision_function` checks it (the features of
            fit, a DataFrame's columns by name; a CSR matrix is read from
            its stored values, with the leaves of its dense form).

        Returns
        -------
        ndarray of int32, shape (n_samples, n_trees)
            ``n_trees = len(rankers_)`` (0 columns when no tree was grown).
            int32 holds every index: node arrays are int32, and oblivious
            trees are at most 16 levels deep.

        Raises
        ------
        TypeError
            The learner is not a tree learner (``learner="trees"``).
        sklearn.exceptions.NotFittedError
            The estimator is not fitted.
        """
        check_is_fitted(self)
        leaves = getattr(self._learner, "leaves", None)
        if leaves is None:
            raise TypeError(f"apply: the learner {self.learner_spec_!r} does not grow trees, so rows have no leaves "
                            f"(use learner='trees')")
        X_arr = self._check_X(X, reset=False)
        threads = threads_for_work(self.n_jobs, X_arr.shape[0] * len(self.rankers_), SERIAL_VISITS)
        return leaves(self.rankers_, X_arr, threads)

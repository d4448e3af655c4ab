"""Checking one ``eval_set`` set of the push estimators: its rows encoded as the training rows, its labels.

A mixin of :class:`~rankcore.push._boost_base._BaseBoost`, so that the sets are read with the fitted estimator's
features, categories and classes.
"""

from __future__ import annotations

import numpy as np

from ..validation import (ArgumentRefusal, check_eval_columns, check_graded_labels, check_learner_matrix,
                          check_same_length)
from ._queries import check_query_labels

__all__ = ["EvalSetRows"]


class EvalSetRows:
    """Mixin of ``_BaseBoost``: one validation set checked and encoded (pairs on one list, triples in queries)."""

    def _check_query_eval_set(self, given, setup, label="eval_set"):
        """(X_val, y_val, queries of the validation rows) of one set ``(X_val, y_val, qid_val)`` within queries."""
        if not (isinstance(given, (tuple, list)) and len(given) == 3):
            raise ValueError(f"{label}: expected a triple (X_val, y_val, qid_val) when fitting with qid or group "
                             "(qid_val: the validation rows' query ids)")
        X_val = self._check_eval_matrix(given[0], setup.learner, label)
        return (X_val, *check_query_labels(given[1], given[2], X_val.shape[0], setup.objective, label=label))

    def _check_eval_matrix(self, X, learner, label="eval_set"):
        check_eval_columns(X, getattr(self, "feature_names_in_", None), name=f"{label} X")
        X_val, _ = check_learner_matrix(X, learner, name=f"{label} X", categories=self._categories(),
                                        feature_names=getattr(self, "feature_names_in_", None))
        if X_val.shape[1] != self.n_features_in_:
            # a refusal of the set's X, as its check's (check_learner_matrix) are
            raise ArgumentRefusal.said(f"{label} X", f"expected {self.n_features_in_} features (as X), got "
                                                     f"{X_val.shape[1]}")
        return X_val

    def _check_eval_set(self, given, objective, classes, learner, label="eval_set"):
        """(X_val, y_val) of one set ``(X_val, y_val)`` on one list."""
        if isinstance(given, (tuple, list)) and len(given) == 3:
            raise ValueError(f"{label}: a triple (X_val, y_val, qid_val) goes with fit(..., qid=...); without qid "
                             "pass a pair (X_val, y_val)")
        if not (isinstance(given, (tuple, list)) and len(given) == 2):
            raise ValueError(f"{label}: expected a pair (X_val, y_val)")
        X_val = self._check_eval_matrix(given[0], learner, label)
        if objective.task == "graded":
            y_val = check_graded_labels(given[1], name=f"{label} y")
        else:
            y_arr = np.asarray(given[1])
            if y_arr.ndim != 1 or not np.isin(y_arr, classes).all():
                raise ArgumentRefusal.said(f"{label} y", f"expected labels among the training classes "
                                                         f"{np.asarray(classes).tolist()!r}")
            y_val = (y_arr == classes[1]).astype(np.int8)
        check_same_length(**{f"{label} X": X_val, f"{label} y": y_val})
        return X_val, y_val

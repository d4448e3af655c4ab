"""Data and a reference shared by the tests of validation sets (``eval_set``, ``eval_metric``)."""

from __future__ import annotations

import numpy as np

import rankcore


def split_data(seed=0, n=600):
    """(X, y, X_val, y_val, X_test, y_test): 0/1 labels following the first two of five features, split 300/150/150."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.8).astype(int)
    return X[:300], y[:300], X[300:450], y[300:450], X[450:], y[450:]


def staged_metric(model, X, y, metric, qid=None):
    """``metric`` of the model's scores after each iteration, as ``rankcore.evaluate`` gives it."""
    return np.array([rankcore.evaluate(y, s, metrics=[metric], qid=qid)[metric]
                     for s in model.staged_decision_function(X)])

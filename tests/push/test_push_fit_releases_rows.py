"""The in-memory fit lets go of X once the rows are encoded (``_fit_rows``), with the same model as ``fit``."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import rankcore
import rankcore.push._boost_base as estimators


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    X[:, 2] = np.round(X[:, 2], 1)                      # ties
    y = (rng.random(n) < 0.3).astype(int)
    X[y == 1, 0] += 0.8
    return X, y


@pytest.mark.parametrize("early_stopping", [False, "auto"], ids=["plain", "holdout"])
def test_fit_rows_frees_X_before_the_boosting(monkeypatch, early_stopping):
    X, y = _data(12_000)                                 # "auto" holds rows out above 10,000 rows
    params = dict(learner="trees:max_leaves=6", n_iter=4, random_state=3, early_stopping=early_stopping)
    reference = rankcore.PushBoost(**params).fit(X, y)
    rows = [X.copy(), y, None]
    ref = weakref.ref(rows[0])
    alive = []
    boosting = estimators.run_boosting

    def watched(*args, **kwargs):
        gc.collect()
        alive.append(ref() is not None)
        return boosting(*args, **kwargs)

    monkeypatch.setattr(estimators, "run_boosting", watched)
    model = rankcore.PushBoost(**params)._fit_rows(rows)
    assert rows == [] and alive == [False]
    np.testing.assert_array_equal(model.alphas_, reference.alphas_)
    np.testing.assert_array_equal(model.objective_values_, reference.objective_values_)
    np.testing.assert_array_equal(model.decision_function(X), reference.decision_function(X))


def test_fit_keeps_the_callers_X_usable():
    X, y = _data(3000)
    before = X.copy()
    model = rankcore.PushBoost(learner="trees:max_leaves=6", n_iter=3, early_stopping=False).fit(X, y)
    np.testing.assert_array_equal(X, before)
    assert np.isfinite(model.decision_function(X)).all()

"""Per-call work of scoring a NumPy array: no feature-name lookups for a model fitted without names.

scikit-learn's ``validate_data`` asks narwhals whether X is a dataframe and builds the estimator's tags on every
call; for a NumPy array and a model without ``feature_names_in_`` there is nothing for it to check but the column
count, so those lookups are skipped -- and every answer (scores, errors, warnings) stays as before.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.utils.validation as skv

import rankcore
from rankcore.exactboost import ExactBoost
from rankcore.precision_at_k import SGDAtK
from rankcore.rkhs import KernelRanker

_RNG = np.random.default_rng(3)
_X = _RNG.normal(size=(80, 3))
_Y = (_X[:, 0] + _RNG.normal(size=80) > 0.5).astype(int)


def _models():
    yield rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(_X, _Y)
    yield ExactBoost(n_runs=4, n_rounds=3, random_state=0).fit(_X, _Y)
    yield SGDAtK(random_state=0, n_epochs=2).fit(_X, _Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield KernelRanker(lam=0.1).fit(_X, _Y)


@pytest.fixture(scope="module")
def models():
    return list(_models())


def _counting(monkeypatch):
    calls = []
    real = skv._check_feature_names

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(skv, "_check_feature_names", counted)
    return calls


def test_array_scoring_skips_feature_name_checks(models, monkeypatch):
    """(Before: each decision_function on an array ran scikit-learn's feature-name check: one call each.)"""
    calls = _counting(monkeypatch)
    for model in models:
        model.decision_function(_X[:1])
    assert calls == []


def test_array_scores_unchanged_and_column_count_refused(models):
    for model in models:
        # a list is still checked by scikit-learn's validate_data: both paths give the same scores
        assert np.array_equal(model.decision_function(_X), model.decision_function(_X.tolist()))
        with pytest.raises(ValueError, match="X has 2 features, but .* is expecting 3 features"):
            model.decision_function(_X[:, :2])


def test_frame_fitted_model_still_checks_names():
    """A model fitted with feature names: an array still warns, a frame with other names is still refused."""
    frame = pd.DataFrame(_X, columns=["a", "b", "c"])
    model = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(frame, _Y)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.decision_function(_X[:2])
    with pytest.raises(ValueError, match="feature names"):
        model.decision_function(frame.rename(columns={"a": "z"}))

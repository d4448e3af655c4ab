"""AutoRanker.feature_interactions: the chosen model's SHAP interaction values, composed as its contributions are."""

import numpy as np
import pytest

import rankcore
from rankcore.auto import Candidate, FoldBag, MissingValueImputer

from _candidate_plugins import registered_candidate
from _auto_explained import fit_auto as _fit, toy_data as _data


def _assert_consistent(model, X, rtol=1e-9):
    Phi = model.feature_interactions(X)
    d = model.n_features_in_
    assert Phi.shape == (X.shape[0], d + 1, d + 1) and Phi.dtype == np.float64
    np.testing.assert_allclose(Phi, np.swapaxes(Phi, 1, 2), rtol=rtol, atol=rtol * np.abs(Phi).max())
    phi = model.feature_contributions(X)
    np.testing.assert_allclose(Phi.sum(axis=2), phi, rtol=rtol, atol=rtol * np.abs(phi).max())
    assert np.all(Phi[:, d, :d] == 0.0)
    return Phi


def test_a_fold_bag_composes_its_models_standardized():
    X, y = _data()
    model = _fit(X, y)
    bag = model.best_estimator_
    assert isinstance(bag, FoldBag)
    Phi = _assert_consistent(model, X)
    reference = np.zeros_like(Phi)
    for estimator, center, scale in zip(bag.estimators, bag.centers, bag.scales):
        values = estimator.feature_interactions(X)
        values[:, -1, -1] -= center
        reference += values / scale
    np.testing.assert_allclose(Phi, reference / len(bag.estimators), rtol=1e-12, atol=1e-12)


def test_a_single_refit_is_its_own_values():
    X, y = _data(nan=True, seed=3)
    model = _fit(X, y, bag_folds=False)
    np.testing.assert_array_equal(model.feature_interactions(X), model.best_estimator_.feature_interactions(X))
    _assert_consistent(model, X)


class _ImputedTrees(Candidate):
    """Trees that take no NaN: AutoRanker fits them behind the missing-value imputer."""

    name = "imputed-trees-for-interactions-tests"
    relative_cost = 0.01
    accepts_missing = False

    def build(self, context):
        return rankcore.PushBoost(learner="trees:min_samples_leaf=5", n_iter=5, random_state=context.random_state)


def test_an_indicators_row_and_column_go_to_its_column():
    X, y = _data(nan=True, seed=4)
    with registered_candidate(_ImputedTrees, "auto-imputed-trees-interactions-test"):
        model = _fit(X, y, candidates=["imputed-trees-for-interactions-tests"], bag_folds=False)
        Phi = _assert_consistent(model, X)
    imputer, trees = model.best_estimator_.steps[0][1], model.best_estimator_.steps[1][1]
    assert isinstance(imputer, MissingValueImputer) and imputer.indicator_features_.size == X.shape[1]
    wide = trees.feature_interactions(imputer.transform(X))
    d = X.shape[1]
    merge = np.zeros((wide.shape[1], d + 1))            # wide column -> original column
    merge[np.arange(d), np.arange(d)] = 1.0
    merge[d + np.arange(imputer.indicator_features_.size), imputer.indicator_features_] = 1.0
    merge[-1, -1] = 1.0
    np.testing.assert_allclose(Phi, merge.T @ wide @ merge, rtol=1e-12, atol=1e-12)


def test_xgboost_candidates_use_pred_interactions_and_lightgbm_is_refused():
    X, y = _data(nan=True, seed=6)
    if pytest.importorskip("xgboost"):
        _assert_consistent(_fit(X, y, candidates=["xgboost"]), X, rtol=1e-5)
    pytest.importorskip("lightgbm")
    with pytest.raises(TypeError, match=r"feature_interactions: the chosen candidate 'lightgbm'.*LightGBM computes no"
                                        r".*only tree boosters \('trees' candidates, 'xgboost'\)") as refusal:
        _fit(X, y, candidates=["lightgbm"]).feature_interactions(X)
    assert str(refusal.value).count("lightgbm") == 1          # named as the candidate, not among those that have them


def test_refusals():
    X, y = _data(n=120)
    with pytest.raises(TypeError, match=r"AutoRanker.feature_interactions: the chosen candidate 'stumps:n_iter=5' "
                                        r"\(PushBoost\) has no exact interaction values"):
        _fit(X, y, candidates=["stumps:n_iter=5"]).feature_interactions(X)
    with pytest.raises(ValueError, match="AutoRanker.feature_interactions: the output of 120 rows"):
        _fit(X, y).feature_interactions(X, max_bytes=100)

"""AutoRanker.feature_interactions(X, background=...): the members' interventional SHAP interaction values, composed
linearly as the path-dependent ones are; behind the imputer a filled column and its indicator one player, as the
interventional contributions take them."""

import numpy as np
import pytest

import rankcore
from rankcore.auto import Candidate, FoldBag, MissingValueImputer

from _candidate_plugins import registered_candidate
from _interventional_interaction_reference import model_interaction_reference
from _auto_explained import fit_auto as _fit, toy_data as _data

TOL = dict(rtol=1e-9, atol=1e-9)


def _assert_consistent(model, X, Z):
    """Symmetric, rows summing to the interventional contributions, the background's mean score at [-1, -1]."""
    Phi = model.feature_interactions(X, background=Z)
    d = model.n_features_in_
    assert Phi.shape == (X.shape[0], d + 1, d + 1)
    np.testing.assert_allclose(Phi, np.swapaxes(Phi, 1, 2), rtol=0, atol=1e-12)
    np.testing.assert_allclose(Phi.sum(axis=2), model.feature_contributions(X, background=Z), **TOL)
    np.testing.assert_allclose(Phi[:, d, d], model.decision_function(Z).mean(), **TOL)
    assert np.all(Phi[:, d, :d] == 0.0) and np.all(Phi[:, :d, d] == 0.0)
    return Phi


def test_a_single_refit_is_its_own_values_and_the_games():
    X, y = _data()
    model = _fit(X, y, bag_folds=False)
    assert isinstance(model.best_estimator_, rankcore.PushBoost)
    Phi = _assert_consistent(model, X[:30], X[100:110])
    np.testing.assert_array_equal(Phi, model.best_estimator_.feature_interactions(X[:30], background=X[100:110]))
    Phi = model.feature_interactions(X[:2], background=X[100:104])
    for i in range(2):
        np.testing.assert_allclose(Phi[i], model_interaction_reference(model.decision_function, X[i], X[100:104]),
                                   **TOL)


def test_a_fold_bag_composes_its_models_standardized():
    X, y = _data(seed=1)
    model = _fit(X, y)
    bag = model.best_estimator_
    assert isinstance(bag, FoldBag)
    Z = X[150:170]
    Phi = _assert_consistent(model, X[:30], Z)
    expected = np.zeros_like(Phi)
    for m, c, s in zip(bag.estimators, bag.centers, bag.scales):
        values = m.feature_interactions(X[:30], background=Z)
        values[:, -1, -1] -= c
        expected += values / s
    np.testing.assert_allclose(Phi, expected / len(bag.estimators), rtol=1e-12, atol=1e-12)


class _ImputedTrees(Candidate):
    """Trees that take no NaN: AutoRanker fits them behind the missing-value imputer."""

    name = "imputed-trees-for-interventional-interactions-tests"
    relative_cost = 0.01
    accepts_missing = False

    def build(self, context):
        return rankcore.PushBoost(learner="trees:min_samples_leaf=5", n_iter=5, random_state=context.random_state)


def test_behind_the_imputer_a_column_and_its_indicator_are_one_player():
    """The background is imputed as X is, a filled column and its indicator one player of the member's game: the
    values are the member's with those groups, and exactly those of AutoRanker's own game of X's columns, wherever
    x and the background rows disagree on which columns are missing."""
    X, y = _data(nan=True, seed=4)
    with registered_candidate(_ImputedTrees, "auto-imputed-trees-interventional-interactions-test"):
        model = _fit(X, y, candidates=["imputed-trees-for-interventional-interactions-tests"], bag_folds=False)
    imputer, trees = model.best_estimator_.steps[0][1], model.best_estimator_.steps[1][1]
    assert isinstance(imputer, MissingValueImputer) and imputer.indicator_features_.size > 0
    Z = X[100:115]
    assert np.isnan(Z).any()
    Phi = _assert_consistent(model, X[:20], Z)
    players = np.r_[np.arange(X.shape[1]), imputer.indicator_features_]
    np.testing.assert_array_equal(Phi, trees.feature_interactions(imputer.transform(X[:20]),
                                                                  background=imputer.transform(Z), groups=players))
    rows = [i for i in range(20) if np.isnan(X[i]).any()][:2]
    assert rows
    small = model.feature_interactions(X[rows], background=Z[:4])
    for k, i in enumerate(rows):
        np.testing.assert_allclose(small[k], model_interaction_reference(model.decision_function, X[i], Z[:4]), **TOL)


def test_groups_of_columns_are_players():
    X, y = _data(seed=2)
    model = _fit(X, y, bag_folds=False)
    groups = [0, 1, 0, 2]
    Phi = model.feature_interactions(X[:10], background=X[100:110], groups=groups)
    assert Phi.shape == (10, 4, 4)
    np.testing.assert_array_equal(Phi, model.best_estimator_.feature_interactions(X[:10], background=X[100:110],
                                                                                 groups=groups))
    np.testing.assert_allclose(Phi.sum(axis=2), model.feature_contributions(X[:10], background=X[100:110],
                                                                            groups=groups), **TOL)
    with pytest.raises(ValueError, match="groups: only with background rows"):
        model.feature_interactions(X[:3], groups=groups)


@pytest.mark.parametrize("package, says", [("xgboost", "XGBoost computes path-dependent SHAP interaction values only"),
                                           ("lightgbm", "LightGBM computes no SHAP interaction values")])
def test_lightgbm_and_xgboost_candidates_are_refused(package, says):
    pytest.importorskip(package)
    X, y = _data(seed=6)
    model = _fit(X, y, candidates=[package], bag_folds=False)
    with pytest.raises(TypeError, match=f"candidate '{package}'.*{says}.*'trees' candidates .* interventional "
                                        f"interaction values"):
        model.feature_interactions(X[:3], background=X[:5])


@pytest.mark.parametrize("bad, message", [
    (np.empty((0, 4)), "background: expected at least 1 row"),
    (np.ones((2, 3)), "background has 3 features, but AutoRanker is expecting 4"),
])
def test_bad_backgrounds_and_sizes_are_refused(bad, message):
    X, y = _data()
    model = _fit(X, y, bag_folds=False)
    with pytest.raises(ValueError, match=message):
        model.feature_interactions(X[:3], background=bad)
    with pytest.raises(ValueError, match="AutoRanker.feature_interactions: the output of 200 rows"):
        model.feature_interactions(X, background=X[:3], max_bytes=100)

"""AutoRanker.feature_contributions(X, background=...): the members' interventional values, composed linearly."""

import numpy as np
import pytest

import rankcore
from rankcore.auto import Candidate, FoldBag, MissingValueImputer

from _candidate_plugins import registered_candidate
from _grouped_brute import grouped_brute_force
from _shapley_brute import brute_force
from _auto_explained import fit_auto as _fit, toy_data as _data

TOL = dict(rtol=1e-9, atol=1e-9)


def _assert_sums(model, X, Z):
    phi = model.feature_contributions(X, background=Z)
    np.testing.assert_allclose(phi.sum(axis=1), model.decision_function(X), **TOL)
    np.testing.assert_allclose(phi[:, -1], model.decision_function(Z).mean(), **TOL)
    return phi


def test_a_single_refit_is_explained_by_its_own_values():
    X, y = _data()
    model = _fit(X, y, bag_folds=False)
    assert isinstance(model.best_estimator_, rankcore.PushBoost)
    phi = _assert_sums(model, X[:40], X[100:120])
    np.testing.assert_array_equal(phi, model.best_estimator_.feature_contributions(X[:40], background=X[100:120]))
    assert not np.allclose(phi, model.feature_contributions(X[:40]))      # not the path-dependent values


def test_a_fold_bag_composes_its_models_standardized():
    X, y = _data(seed=1)
    model = _fit(X, y)
    bag = model.best_estimator_
    assert isinstance(bag, FoldBag)
    Z = X[150:170]
    phi = _assert_sums(model, X[:30], Z)
    expected = sum((m.feature_contributions(X[:30], background=Z) - np.r_[np.zeros(4), c]) / s
                   for m, c, s in zip(bag.estimators, bag.centers, bag.scales)) / len(bag.estimators)
    np.testing.assert_allclose(phi, expected, rtol=1e-12, atol=1e-12)


class _ImputedTrees(Candidate):
    """Trees that take no NaN: AutoRanker fits them behind the missing-value imputer."""

    name = "imputed-trees-for-interventional-tests"
    relative_cost = 0.01
    accepts_missing = False

    def build(self, context):
        return rankcore.PushBoost(learner="trees:min_samples_leaf=5", n_iter=5, random_state=context.random_state)


def test_the_background_goes_through_the_imputer_as_X_does():
    X, y = _data(nan=True, seed=4)
    with registered_candidate(_ImputedTrees, "auto-imputed-trees-interventional-test"):
        model = _fit(X, y, candidates=["imputed-trees-for-interventional-tests"], bag_folds=False)
    imputer, trees = model.best_estimator_.steps[0][1], model.best_estimator_.steps[1][1]
    assert isinstance(imputer, MissingValueImputer)
    Z = X[100:115]
    assert np.isnan(Z).any()
    phi = _assert_sums(model, X[:20], Z)
    d = X.shape[1]
    assert imputer.indicator_features_.shape[0] > 0
    players = np.r_[np.arange(d), imputer.indicator_features_]      # an indicator: its column's player
    expected = trees.feature_contributions(imputer.transform(X[:20]), background=imputer.transform(Z),
                                           groups=players)
    np.testing.assert_allclose(phi, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("package", ["lightgbm", "xgboost"])
def test_lightgbm_and_xgboost_candidates_are_refused(package):
    pytest.importorskip(package)
    X, y = _data(seed=6)
    model = _fit(X, y, candidates=[package], bag_folds=False)
    model.feature_contributions(X[:3])                       # their path-dependent values: fine
    with pytest.raises(TypeError, match=f"candidate '{package}'.*path-dependent TreeSHAP values only.*'trees' "
                                        f"candidates .* interventional"):
        model.feature_contributions(X[:3], background=X[:5])


@pytest.mark.parametrize("bad, message", [
    (np.empty((0, 4)), "background: expected at least 1 row"),
    (np.ones((2, 3)), "background has 3 features, but AutoRanker is expecting 4"),
])
def test_bad_backgrounds_are_refused_by_name(bad, message):
    X, y = _data()
    model = _fit(X, y, bag_folds=False)
    with pytest.raises(ValueError, match=message):
        model.feature_contributions(X[:3], background=bad)


def test_behind_the_imputer_the_values_are_the_exact_shapley_values_of_xs_columns():
    """docs/auto.md: a filled column and its indicator are one player, X's column, so the values are the Shapley
    values of AutoRanker's own game (all subsets of X's columns) even where x and the background disagree on which
    columns are missing -- where the indicators, as players of their own, would get values of their own."""
    X, y = _data(nan=True, seed=4)
    with registered_candidate(_ImputedTrees, "auto-imputed-trees-interventional-test"):
        model = _fit(X, y, candidates=["imputed-trees-for-interventional-tests"], bag_folds=False)
    imputer, trees = model.best_estimator_.steps[0][1], model.best_estimator_.steps[1][1]
    assert isinstance(imputer, MissingValueImputer)
    rows, Z = X[:20], X[100:115]
    disagree = [i for i in range(20) if np.any(np.isnan(rows[i]) != np.isnan(Z).any(axis=0))]
    assert len(disagree) >= 3 and np.isnan(rows).any()
    phi = model.feature_contributions(rows, background=Z)
    for i in range(20):
        np.testing.assert_allclose(phi[i], brute_force(model.decision_function, rows[i], Z), **TOL)
    # the member's game with the indicators as players of their own is another game: its values differ
    wide = trees.feature_contributions(imputer.transform(rows), background=imputer.transform(Z))
    assert np.abs(wide[:, X.shape[1]:-1]).max() > 1e-3


def test_groups_behind_the_imputer_are_the_grouped_games_values():
    X, y = _data(nan=True, seed=4)
    with registered_candidate(_ImputedTrees, "auto-imputed-trees-interventional-test"):
        model = _fit(X, y, candidates=["imputed-trees-for-interventional-tests"], bag_folds=False)
    groups = np.array([1, 0, 1, 2])
    phi = model.feature_contributions(X[:6], background=X[100:110], groups=groups)
    assert phi.shape == (6, 4)
    for i in range(6):
        np.testing.assert_allclose(phi[i], grouped_brute_force(model.decision_function, X[i], X[100:110], groups),
                                   **TOL)
    alone = model.feature_contributions(X[:6], background=X[100:110], groups=np.arange(4))
    np.testing.assert_array_equal(alone, model.feature_contributions(X[:6], background=X[100:110]))


def test_a_fold_bag_composes_grouped_values():
    X, y = _data(seed=1)
    model = _fit(X, y)
    bag, Z, groups = model.best_estimator_, X[150:160], np.array([0, 0, 1, 0])
    phi = model.feature_contributions(X[:5], background=Z, groups=groups)
    expected = sum((m.feature_contributions(X[:5], background=Z, groups=groups) - np.r_[0.0, 0.0, c]) / s
                   for m, c, s in zip(bag.estimators, bag.centers, bag.scales)) / len(bag.estimators)
    np.testing.assert_allclose(phi, expected, rtol=1e-12, atol=1e-12)
    for i in range(5):
        np.testing.assert_allclose(phi[i], grouped_brute_force(model.decision_function, X[i], Z, groups), **TOL)


@pytest.mark.parametrize("groups, background, error, message", [
    (np.array([0, 0, 1, 1]), None, ValueError, "groups: only with background rows"),
    ([[0, 1], [2, 3]], "Z", TypeError, "groups: expected one integer label per column"),
    (np.array([0, 2, 1, 1, 0]), "Z", ValueError, "groups: expected 4 labels"),
])
def test_bad_groups_are_refused(groups, background, error, message):
    X, y = _data()
    model = _fit(X, y, bag_folds=False)
    with pytest.raises(error, match=message):
        model.feature_contributions(X[:3], background=X[10:14] if background else None, groups=groups)


@pytest.mark.parametrize("package", ["lightgbm", "xgboost"])
def test_lightgbm_and_xgboost_candidates_refuse_groups(package):
    pytest.importorskip(package)
    X, y = _data(seed=6)
    model = _fit(X, y, candidates=[package], bag_folds=False)
    with pytest.raises(TypeError, match="path-dependent TreeSHAP values only"):
        model.feature_contributions(X[:3], background=X[:5], groups=np.array([0, 0, 1, 2]))

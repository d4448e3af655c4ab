"""ExactBoost's ``feature_contributions`` and ``feature_interactions``: exact Shapley values of a sum of stumps.

References: the Shapley values of the game over the training rows (or the background) by enumerating every subset
of features (``_shapley_brute``, ``_grouped_brute``), the library's TreeSHAP of the same stumps written as trees with
covers counted on the training rows, and the Shapley interaction index by its definition.
"""

from __future__ import annotations

import base64
import itertools
import math

import numpy as np
import pytest

from _grouped_brute import grouped_brute_force
from _shapley_brute import brute_force
from rankcore import ExactBoost
from rankcore.learners.trees import Trees
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import _checksum, load_model, model_from_dict, model_to_dict, save_model


def _data(n=160, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)             # ties: rows equal to a threshold go left
    y = (X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] + rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    model = ExactBoost(n_runs=4, n_rounds=8, subsample=0.5, feature_subsample=0.5, random_state=0).fit(X, y)
    assert np.unique(model.stumps_[:, 0]).size >= 2          # several features: a real game
    return model, X


def test_contributions_are_the_brute_force_shapley_values_over_the_training_rows(fitted):
    model, X = fitted
    phi = model.feature_contributions(X[:6])
    assert phi.shape == (6, X.shape[1] + 1)
    for i in range(6):
        np.testing.assert_allclose(phi[i], brute_force(model.decision_function, X[i], X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(phi.sum(axis=1), model.decision_function(X[:6]), rtol=0, atol=1e-12)
    np.testing.assert_allclose(phi[:, -1], model.decision_function(X).mean(), rtol=0, atol=1e-12)


def test_unused_feature_gets_exactly_zero(fitted):
    model, X = fitted
    unused = sorted(set(range(X.shape[1])) - set(model.stumps_[:, 0].astype(int).tolist()))
    phi = model.feature_contributions(X)
    for j in unused:
        assert np.all(phi[:, j] == 0.0)


def _stump_trees(model, X):
    """The model's stumps as trees of the ``trees`` learner, covers counted on the training rows ``X``."""
    rankers = []
    for j, xi, a, b in model.stumps_.tolist():
        left = int(np.sum(X[:, int(j)] <= xi))
        rankers.append(TreeRanker(np.array([int(j), -1, -1], np.int32), np.array([xi, 0.0, 0.0]),
                                  np.zeros(3, np.uint8), np.array([1, -1, -1], np.int32),
                                  np.array([2, -1, -1], np.int32), np.array([0.0, a, b]), np.zeros(3),
                                  cover=np.array([X.shape[0], left, X.shape[0] - left], dtype=np.float64)))
    return rankers, np.full(len(rankers), 1.0 / model.n_runs)


def test_contributions_equal_treeshap_of_the_stumps_as_trees(fitted):
    model, X = fitted
    rankers, alphas = _stump_trees(model, X)
    np.testing.assert_allclose(model.feature_contributions(X[:20]), Trees.contributions(rankers, alphas, X[:20]),
                               rtol=0, atol=1e-12)
    Z = X[::7]
    np.testing.assert_allclose(model.feature_contributions(X[:20], background=Z),
                               Trees.contributions(rankers, alphas, X[:20], background=Z), rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.feature_interactions(X[:5]), Trees.interaction_values(rankers, alphas, X[:5]),
                               rtol=0, atol=1e-12)


def test_background_values_are_the_brute_force_interventional_values(fitted):
    model, X = fitted
    Z = X[100:130]
    phi = model.feature_contributions(X[:5], background=Z)
    for i in range(5):
        np.testing.assert_allclose(phi[i], brute_force(model.decision_function, X[i], Z), rtol=0, atol=1e-12)
    np.testing.assert_allclose(phi[:, -1], model.decision_function(Z).mean(), rtol=0, atol=1e-12)


def test_groups_are_the_brute_force_values_of_the_groups(fitted):
    model, X = fitted
    Z, groups = X[100:120], [1, 0, 1, 2]
    phi = model.feature_contributions(X[:4], background=Z, groups=groups)
    assert phi.shape == (4, 4)
    for i in range(4):
        np.testing.assert_allclose(phi[i], grouped_brute_force(model.decision_function, X[i], Z, groups),
                                   rtol=0, atol=1e-12)


def _interaction_index(score, x, Z):
    """Φ_ij (i ≠ j) by the definition of the Shapley interaction index, halved, of v(S) = mean_k score(x_S, z_k)."""
    d = x.shape[0]
    masks = list(itertools.product([False, True], repeat=d))
    value = {m: float(score(np.where(np.array(m)[None], x[None], Z)).mean()) for m in masks}
    out = np.zeros((d, d))
    for i, j in itertools.combinations(range(d), 2):
        for m in masks:
            if m[i] or m[j]:
                continue
            s = sum(m)
            w = math.factorial(s) * math.factorial(d - s - 2) / (2 * math.factorial(d - 1))

            def v(*on):
                return value[tuple(True if k in on else m[k] for k in range(d))]
            out[i, j] += w * (v(i, j) - v(i) - v(j) + v())
        out[j, i] = out[i, j]
    return out


def test_interactions_are_diagonal_and_sum_to_the_contributions(fitted):
    model, X = fitted
    Z = X[:40]
    for background in (None, Z):
        phi = model.feature_contributions(X[:3], background=background)
        inter = model.feature_interactions(X[:3], background=background)
        d = X.shape[1]
        assert inter.shape == (3, d + 1, d + 1)
        np.testing.assert_allclose(inter.sum(axis=2), phi, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(inter, np.transpose(inter, (0, 2, 1)))
    reference = _interaction_index(model.decision_function, X[0], Z)
    inter = model.feature_interactions(X[:1], background=Z)[0, :-1, :-1]
    np.testing.assert_allclose(inter - np.diag(np.diag(inter)), reference, rtol=0, atol=1e-12)
    grouped = model.feature_interactions(X[:2], background=Z, groups=[0, 0, 1, 1])
    np.testing.assert_allclose(grouped.sum(axis=2), model.feature_contributions(X[:2], background=Z,
                                                                                groups=[0, 0, 1, 1]), atol=1e-12)


def test_interactions_refuse_an_output_over_max_bytes(fitted):
    model, X = fitted
    with pytest.raises(ValueError, match="max_bytes"):
        model.feature_interactions(X, max_bytes=100)


def test_refusals_name_the_argument(fitted):
    model, X = fitted
    with pytest.raises(ValueError, match="^X"):
        model.feature_contributions(X[:, :2])
    with pytest.raises(ValueError, match="background"):
        model.feature_contributions(X, background=X[:, :2])
    with pytest.raises(ValueError, match="background"):
        model.feature_contributions(X, background=X[:0])
    with pytest.raises(ValueError, match="groups"):
        model.feature_contributions(X, groups=[0, 0, 1, 1])


def test_a_head_model_is_refused_with_a_type_error():
    X, y = _data()
    model = ExactBoost(metric="prec@k:20", n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    assert model.head_ is not None
    for method in (model.feature_contributions, model.feature_interactions):
        with pytest.raises(TypeError, match="head=None"):
            method(X)
    plain = ExactBoost(metric="prec@k:20", head=None, n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(plain.feature_contributions(X).sum(axis=1), plain.decision_function(X), atol=1e-12)


def test_values_survive_a_model_file(fitted, tmp_path):
    model, X = fitted
    save_model(model, tmp_path / "m.json")
    np.testing.assert_array_equal(load_model(tmp_path / "m.json").feature_contributions(X),
                                  model.feature_contributions(X))


def _edited(model, edit):
    record = model_to_dict(model)
    edit(record["state"])
    record["sha256"] = _checksum({k: v for k, v in record.items() if k != "sha256"})
    return record


def test_a_file_without_the_training_means_needs_a_background(fitted):
    model, X = fitted
    old = model_from_dict(_edited(model, lambda state: state.pop("train_feature_means")))
    with pytest.raises(ValueError, match="no train_feature_means_ .*refit it, or pass background"):
        old.feature_contributions(X)
    np.testing.assert_allclose(old.feature_contributions(X[:3], background=X),
                               model.feature_contributions(X[:3]), rtol=0, atol=1e-12)


def test_tampered_training_means_are_refused(fitted):
    model, _ = fitted
    record = _edited(model, lambda state: state.update(train_feature_means=[0.0]))
    with pytest.raises(ValueError, match="train_feature_means must be a finite float64 vector of length 4"):
        model_from_dict(record)


def test_training_means_no_rows_give_are_refused():
    # a file's means were taken as they were: a feature no stump uses then got a non-zero contribution (its "mean"
    # subtracted from 0), and a used feature's values were centred on a number outside its stumps' outputs
    X, y = _data()
    X[:, 2] = 1.0                                              # constant: no stump uses it
    model = ExactBoost(n_runs=2, n_rounds=6, random_state=0).fit(X, y)
    assert 2 not in model.stumps_[:, 0].astype(int).tolist()
    used = int(model.stumps_[0, 0])
    for j, value in ((2, 0.25), (used, 10.0)):
        def edit(state, j=j, value=value):
            means = model.train_feature_means_.copy()
            means[j] = value
            state["train_feature_means"] = {"__ndarray__": base64.b64encode(means.astype("<f8").tobytes()).decode(),
                                            "dtype": "<f8", "shape": [means.shape[0]]}
        with pytest.raises(ValueError, match=rf"train_feature_means must be each feature's mean .*features \[{j}\]"):
            model_from_dict(_edited(model, edit))
    np.testing.assert_array_equal(model_from_dict(_edited(model, lambda state: None)).feature_contributions(X),
                                  model.feature_contributions(X))

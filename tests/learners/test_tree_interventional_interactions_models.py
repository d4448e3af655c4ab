"""``feature_interactions(X, background=Z)`` of fitted estimators: the whole model's game enumerated, the layout
shared with the path-dependent values, the interventional SHAP values' rows, inputs read as X, and the refusals."""

import numpy as np
import pytest
import scipy.sparse as sp

import rankcore
from _bad_backgrounds import BAD_BACKGROUNDS
from _categorical_trees import categorical_model
from _interventional_interaction_reference import interaction_reference, model_interaction_reference
from _model_files import resign
from rankcore.persistence import model_from_dict, model_to_dict
from rankcore.push import PNormPush, PushBoost, RankBoost

TOL = dict(rtol=1e-9, atol=1e-12)


def _data(seed=0, n=300, d=5, nan=0.1):
    """Rows with ties (values on a coarse grid) and NaN; labels from the first three features."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 2) / 2
    X[rng.random(X.shape) < nan] = np.nan
    z = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    return X, (z + 0.5 * rng.normal(size=n) > 0).astype(int)


MODELS = {
    "leafwise": "trees:max_leaves=8",
    "depthwise": "trees:growth=depthwise,max_depth=3,learning_rate=0.3",
    "oblivious": "trees:growth=oblivious,max_depth=4",
    "interaction_constraints": "trees:max_leaves=6,interactions=0+1+2/3+4",
}


@pytest.mark.parametrize("learner", list(MODELS.values()), ids=list(MODELS))
def test_the_values_are_those_of_the_whole_models_game(learner):
    """v(S) = mean_k decision_function(x_S, z_k): every estimator's addition and routing is in the game."""
    X, y = _data()
    model = PushBoost(learner=learner, n_iter=5, random_state=0).fit(X, y)
    Z = np.vstack([X[200:205], X[200]])                    # NaN, ties and a duplicated row in the background
    Phi = model.feature_interactions(X[:3], background=Z)
    for i in range(3):
        np.testing.assert_allclose(Phi[i], model_interaction_reference(model.decision_function, X[i], Z), **TOL)


@pytest.mark.parametrize("learner", list(MODELS.values()), ids=list(MODELS))
def test_the_layout_and_sums_swap_with_the_path_dependent_values(learner):
    """Same shape and bias place as ``feature_interactions(X)``; rows sum to ``feature_contributions(X,
    background=Z)``, each matrix to the score; symmetric bit for bit."""
    X, y = _data(seed=1)
    model = PushBoost(learner=learner, n_iter=12, random_state=0).fit(X, y)
    Z = X[250:290]
    Phi = model.feature_interactions(X[:80], background=Z)
    path = model.feature_interactions(X[:80])
    assert Phi.shape == path.shape == (80, 6, 6) and Phi.dtype == np.float64
    np.testing.assert_array_equal(Phi, np.swapaxes(Phi, 1, 2))
    assert np.all(Phi[:, 5, :5] == 0.0) and np.all(Phi[:, :5, 5] == 0.0)
    phi = model.feature_contributions(X[:80], background=Z)
    np.testing.assert_allclose(Phi.sum(axis=2), phi, **TOL)
    np.testing.assert_array_equal(Phi[:, 5, 5], phi[:, 5])
    np.testing.assert_allclose(Phi.sum(axis=(1, 2)), model.decision_function(X[:80]), **TOL)
    assert not np.allclose(Phi, path)


def test_categorical_splits_unseen_categories_and_nan():
    est, X = categorical_model()
    assert any(r.categorical for r in est.rankers_)
    rows = np.vstack([X[:4], [[9.0, np.nan, 0.0], [np.nan, 0.3, np.nan]]])
    Z = np.vstack([X[20:25], [[7.0, 0.1, np.nan]]])
    Phi = est.feature_interactions(rows, background=Z)
    for i in range(rows.shape[0]):
        np.testing.assert_allclose(Phi[i], interaction_reference(est.rankers_, est.alphas_, rows[i], Z, 3), **TOL)


@pytest.mark.parametrize("cls", [PNormPush, RankBoost])
def test_other_boosting_estimators_and_per_query_models(cls):
    X, y = _data(seed=2)
    est = cls(learner="trees:max_leaves=6", n_iter=4, random_state=0).fit(X, y)
    Phi = est.feature_interactions(X[:2], background=X[100:104])
    for i in range(2):
        np.testing.assert_allclose(Phi[i], model_interaction_reference(est.decision_function, X[i], X[100:104]),
                                   **TOL)
    grades = np.random.default_rng(2).integers(0, 4, X.shape[0]).astype(float)
    ranker = rankcore.boost(objective="lambdarank", learner="trees", n_iter=4, random_state=0).fit(
        X, grades, qid=np.repeat(np.arange(30), 10))
    Phi = ranker.feature_interactions(X[:60], background=X[200:230])
    np.testing.assert_allclose(Phi.sum(axis=(1, 2)), ranker.decision_function(X[:60]), **TOL)
    np.testing.assert_allclose(Phi[:2], [interaction_reference(ranker.rankers_, ranker.alphas_, X[i], X[200:230], 5)
                                         for i in range(2)], **TOL)


def test_sparse_float32_and_dataframe_inputs_are_read_as_X():
    pd = pytest.importorskip("pandas")
    X, y = _data(seed=3, nan=0.0)
    X[X < 0] = 0.0
    est = PushBoost(learner="trees:max_leaves=8", n_iter=5, random_state=0).fit(X, y)
    dense = est.feature_interactions(X[:20], background=X[50:60])
    np.testing.assert_array_equal(est.feature_interactions(sp.csr_matrix(X[:20]), background=sp.csr_matrix(X[50:60])),
                                  dense)
    frame = pd.DataFrame(X, columns=list("abcde"))
    named = PushBoost(learner="trees:max_leaves=8", n_iter=5, random_state=0).fit(frame, y)
    np.testing.assert_array_equal(named.feature_interactions(frame.iloc[:20], background=frame.iloc[50:60]), dense)
    with pytest.raises(ValueError, match="^background: The feature names should match"):
        named.feature_interactions(frame.iloc[:20], background=frame.iloc[50:60][list("edcba")])


def test_a_model_file_without_covers_is_explained_against_a_background():
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=6", n_iter=5, random_state=0).fit(X, y)
    data = model_to_dict(est)
    for record in data["state"]["rankers"]:
        record.pop("cover")
    old = model_from_dict(resign(data))
    with pytest.raises(ValueError, match="no covers"):
        old.feature_interactions(X[:3])
    np.testing.assert_array_equal(old.feature_interactions(X[:30], background=X[50:60]),
                                  est.feature_interactions(X[:30], background=X[50:60]))


def test_the_thread_count_changes_nothing(exact_threads):
    exact_threads(2)
    X, y = _data(seed=4, n=400)
    est = PushBoost(learner="trees:max_leaves=12", n_iter=10, random_state=0).fit(X, y)
    one = est.set_params(n_jobs=1).feature_interactions(X[:100], background=X[300:340])
    np.testing.assert_array_equal(est.set_params(n_jobs=2).feature_interactions(X[:100], background=X[300:340]), one)


@pytest.mark.parametrize("background, error, message", BAD_BACKGROUNDS)
def test_bad_backgrounds_are_refused_by_name(background, error, message):
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=6", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(error, match=message):
        est.feature_interactions(X[:3], background=background)


def test_the_output_size_and_other_learners_are_refused():
    X, y = _data(nan=0.0)
    est = PushBoost(learner="trees:max_leaves=6", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"300 rows × 6 × 6 float64 .* max_bytes=1000"):
        est.feature_interactions(X, background=X[:5], max_bytes=1000)
    np.testing.assert_array_equal(est.feature_interactions(X[:3], background=X[:5], max_bytes=3 * 36 * 8),
                                  est.feature_interactions(X[:3], background=X[:5]))
    stumps = PushBoost(learner="stumps", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="feature_interactions: the learner 'stumps'"):
        stumps.feature_interactions(X[:3], background=X[:2])


@pytest.mark.parametrize("learner", list(MODELS.values()), ids=list(MODELS))
def test_groups_of_columns_are_players(learner):
    """``groups``: a group's columns take x's values or z's together, one row and column per group, the game of the
    groups enumerated; rows sum to ``feature_contributions(..., groups=groups)``."""
    X, y = _data(seed=5)
    model = PushBoost(learner=learner, n_iter=6, random_state=0).fit(X, y)
    groups = [1, 0, 1, 2, 0]
    Z = X[200:206]
    Phi = model.feature_interactions(X[:40], background=Z, groups=groups)
    assert Phi.shape == (40, 4, 4)
    np.testing.assert_array_equal(Phi, np.swapaxes(Phi, 1, 2))
    np.testing.assert_allclose(Phi.sum(axis=2), model.feature_contributions(X[:40], background=Z, groups=groups),
                               **TOL)
    np.testing.assert_allclose(Phi.sum(axis=(1, 2)), model.decision_function(X[:40]), **TOL)
    for i in range(3):
        np.testing.assert_allclose(Phi[i], interaction_reference(model.rankers_, model.alphas_, X[i], Z, 5,
                                                                 groups=groups), **TOL)
    ones = model.feature_interactions(X[:40], background=Z, groups=np.arange(5))
    np.testing.assert_array_equal(ones, model.feature_interactions(X[:40], background=Z))


@pytest.mark.parametrize("groups, error, message", [
    ([0, 0, 1, 1, 2], ValueError, "groups: only with background rows"),
    ([0, 0, 1], ValueError, "groups: expected 5 labels"),
    ([0, 0, 2, 2, 2], ValueError, "1 is not"),
    ([[0, 1], [2, 3, 4]], TypeError, "give the columns of one group the same label"),
])
def test_bad_groups_are_refused(groups, error, message):
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=6", n_iter=3, random_state=0).fit(X, y)
    background = None if "only with background" in message else X[:4]
    with pytest.raises(error, match=message):
        est.feature_interactions(X[:3], background=background, groups=groups)

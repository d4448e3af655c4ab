"""``apply``: each row's leaf in each tree, against a plain walk of the node arrays; the scores it adds up to."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

import rankcore
from rankcore.learners.trees._leaves import forest_leaves
from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker, predict_oblivious_forest
from rankcore.learners.trees._ranker import TreeRanker, predict_forest
from rankcore.persistence import load_model, model_to_dict, save_model
from rankcore.push import PNormPush, PushBoost, RankBoost
from _categorical_trees import categorical_model

SMALL = "max_leaves=6,min_samples_leaf=5"
GROWTHS = [f"trees:{SMALL}", f"trees:{SMALL},growth=depthwise", "trees:growth=oblivious,max_depth=3,min_samples_leaf=5",
           f"trees:{SMALL},subsample=0.7", "trees:max_depth=1"]


def _data(seed=0, n=300, d=5, nan=0.1):
    """Rows with ties (values on a coarse grid) and NaN; labels from the first three features."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 2) / 2
    X[rng.random(X.shape) < nan] = np.nan
    z = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    y = (z + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _goes_left(ranker, node, v) -> bool:
    if np.isnan(v):
        return bool(ranker.nan_left[node])
    if ranker.categories[node] is not None:
        return bool(np.any(ranker.categories[node] == v))
    return not v > ranker.threshold[node]


def walk_leaf(ranker, x) -> int:
    """The leaf of row x, by a plain walk: a tree's node id, an oblivious tree's cell Σ_l 2^l·[right at l]."""
    if ranker.kind == ObliviousTreeRanker.kind:
        cell = 0
        for level, (j, t, nan_left) in enumerate(zip(ranker.feature, ranker.threshold, ranker.nan_left)):
            right = (not nan_left) if np.isnan(x[j]) else x[j] > t
            cell += int(right) << level
        return cell
    node = 0
    while ranker.left[node] >= 0:
        node = ranker.left[node] if _goes_left(ranker, node, x[ranker.feature[node]]) else ranker.right[node]
    return int(node)


def reference_leaves(rankers, X) -> np.ndarray:
    return np.array([[walk_leaf(r, x) for r in rankers] for x in X], dtype=np.int32).reshape(len(X), len(rankers))


def value_sum(est, leaves) -> np.ndarray:
    """Σ_t α_t value_t[leaf], added in tree order from 0 (the prediction kernels' order)."""
    s = np.zeros(leaves.shape[0])
    for t, (ranker, alpha) in enumerate(zip(est.rankers_, est.alphas_)):
        s = s + alpha * ranker.value[leaves[:, t]]
    return s


def _check(est, X):
    leaves = est.apply(X)
    assert leaves.dtype == np.int32 and leaves.shape == (X.shape[0], len(est.rankers_))
    np.testing.assert_array_equal(leaves, reference_leaves(est.rankers_, np.asarray(X, dtype=np.float64)))
    for t, ranker in enumerate(est.rankers_):
        if ranker.kind == TreeRanker.kind:
            assert np.all(ranker.left[leaves[:, t]] == -1)
        else:
            assert np.all((0 <= leaves[:, t]) & (leaves[:, t] < ranker.n_leaves))
    np.testing.assert_array_equal(value_sum(est, leaves), est.decision_function(X))       # bit for bit
    return leaves


@pytest.mark.parametrize("learner", GROWTHS)
@pytest.mark.parametrize("Estimator", [PushBoost, PNormPush, RankBoost])
def test_matches_a_plain_walk_and_sums_to_the_scores(Estimator, learner):
    X, y = _data()
    est = Estimator(learner=learner, n_iter=6, random_state=0).fit(X, y)
    leaves = _check(est, X)
    assert len(np.unique(leaves[:, 0])) > 1


@pytest.mark.parametrize("learner", ["trees:max_leaves=6,min_samples_leaf=10",
                                     "trees:max_leaves=6,min_samples_leaf=10,growth=depthwise",
                                     "trees:growth=oblivious,max_depth=3"])
def test_models_fitted_within_queries(learner):
    X, _ = _data(seed=3, n=400)
    y = np.random.default_rng(3).integers(0, 4, X.shape[0]).astype(float)
    est = rankcore.boost(learner=learner, n_iter=5, random_state=0).fit(X, y, qid=np.repeat(np.arange(20), 20))
    _check(est, X)


def test_categorical_splits_unseen_categories_and_nan():
    est, X = categorical_model()
    assert any(r.categorical for r in est.rankers_)
    X_test = np.vstack([X[:50], [[9.0, np.nan, 0.0], [np.nan, 0.3, np.nan], [-1.0, 0.0, 0.0]]])
    _check(est, X_test)
    dense = est.apply(np.nan_to_num(X_test))
    np.testing.assert_array_equal(est.apply(sp.csr_matrix(np.nan_to_num(X_test))), dense)


def test_a_data_frame_with_category_columns_is_read_as_decision_function_reads_it():
    rng = np.random.default_rng(2)
    n = 400
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)), "x": rng.normal(size=n)})
    y = (frame["c"].isin(["b", "d"]).to_numpy() ^ (frame["x"].to_numpy() > 1)).astype(int)
    est = PushBoost(learner="trees:max_leaves=4,min_samples_leaf=10", n_iter=4, random_state=0).fit(frame, y)
    leaves = est.apply(frame.iloc[::-1])
    np.testing.assert_array_equal(value_sum(est, leaves), est.decision_function(frame.iloc[::-1]))
    np.testing.assert_array_equal(leaves[::-1], est.apply(frame))


@pytest.mark.parametrize("learner", GROWTHS[:3])
def test_sparse_rows_get_the_leaves_of_their_dense_form(learner):
    X, y = _data(seed=5, nan=0.05)
    X[np.random.default_rng(5).random(X.shape) < 0.5] = 0.0
    est = PushBoost(learner=learner, n_iter=6, random_state=0).fit(X, y)
    for dtype in (np.float64, np.float32):
        np.testing.assert_array_equal(est.apply(sp.csr_matrix(X.astype(dtype))), est.apply(X.astype(dtype)))
    zeros = np.zeros((7, X.shape[1]))
    np.testing.assert_array_equal(est.apply(sp.csr_matrix(zeros)), est.apply(zeros))   # nothing stored
    for empty in (sp.csr_matrix((0, X.shape[1])), np.empty((0, X.shape[1]))):     # (apply refuses 0 rows)
        assert forest_leaves(est.rankers_, empty).shape == (0, 6)


@pytest.mark.parametrize("learner", GROWTHS[:3])
def test_the_leaves_do_not_depend_on_the_thread_count(learner, exact_threads):
    exact_threads(2)
    X, y = _data(seed=6, n=3000)
    est = PushBoost(learner=learner, n_iter=20, random_state=0).fit(X, y)
    one = forest_leaves(est.rankers_, X, 1)
    for n_threads in (2, 3, 8):
        np.testing.assert_array_equal(forest_leaves(est.rankers_, X, n_threads), one)
        np.testing.assert_array_equal(forest_leaves(est.rankers_, sp.csr_matrix(np.nan_to_num(X)), n_threads),
                                      forest_leaves(est.rankers_, np.nan_to_num(X), 1))
    np.testing.assert_array_equal(est.set_params(n_jobs=2).apply(X), one)


@pytest.mark.parametrize("learner", GROWTHS[:3])
def test_a_saved_model_has_the_same_leaves_and_its_file_their_values(learner, tmp_path):
    X, y = _data(seed=7)
    est = PushBoost(learner=learner, n_iter=5, random_state=0).fit(X, y)
    save_model(est, tmp_path / "model.json")
    loaded = load_model(tmp_path / "model.json")
    leaves = loaded.apply(X)
    np.testing.assert_array_equal(leaves, est.apply(X))
    records = model_to_dict(loaded)["state"]["rankers"]
    s = np.zeros(X.shape[0])
    for t, alpha in enumerate(loaded.alphas_):
        s = s + alpha * np.asarray(records[t]["value"])[leaves[:, t]]       # looked up in the file's arrays
    np.testing.assert_array_equal(s, est.decision_function(X))


def _random_tree(rng, d, grid, categorical):
    """A random tree of up to 8 leaves: thresholds on the data's grid (ties), NaN sides, category sets."""
    feature, threshold, nan_left, left, right, categories = [], [], [], [], [], []

    def grow(depth):
        k = len(feature)
        for arr, v in ((feature, -1), (threshold, 0.0), (nan_left, 0), (left, -1), (right, -1), (categories, None)):
            arr.append(v)
        if depth < 3 and rng.random() < 0.7:
            j = int(rng.integers(d))
            feature[k], nan_left[k] = j, int(rng.integers(2))
            if j in categorical:
                categories[k] = rng.choice(grid, size=int(rng.integers(1, 4)), replace=False)
            else:
                threshold[k] = float(rng.choice(grid))
            left[k] = grow(depth + 1)
            right[k] = grow(depth + 1)
        return k

    grow(0)
    value = rng.normal(size=len(feature)) * (np.array(left) < 0)
    return TreeRanker(feature, threshold, nan_left, left, right, value, np.zeros(len(feature)),
                      categories=categories if categorical else None)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), oblivious=st.booleans())
def test_random_forests_on_rows_with_ties_nan_and_zeros(seed, oblivious):
    rng = np.random.default_rng(seed)
    d, grid = 4, np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    X = rng.choice(grid, size=(60, d))
    X[rng.random(X.shape) < 0.15] = np.nan
    if oblivious:
        rankers = []
        for _ in range(int(rng.integers(1, 6))):
            depth = int(rng.integers(0, 4))
            rankers.append(ObliviousTreeRanker(rng.integers(d, size=depth), rng.choice(grid, size=depth),
                                               rng.integers(2, size=depth), rng.normal(size=1 << depth),
                                               np.zeros(depth)))
    else:
        rankers = [_random_tree(rng, d, grid, {0, 2} if rng.random() < 0.5 else set())
                   for _ in range(int(rng.integers(1, 6)))]
    leaves = forest_leaves(rankers, X, 2)
    np.testing.assert_array_equal(leaves, reference_leaves(rankers, X))
    np.testing.assert_array_equal(forest_leaves(rankers, sp.csr_matrix(X), 1), leaves)    # NaN stored, 0 not
    alphas = rng.normal(size=len(rankers))
    s = np.zeros(X.shape[0])
    for t, (ranker, alpha) in enumerate(zip(rankers, alphas)):
        s = s + alpha * ranker.value[leaves[:, t]]
    predict = predict_oblivious_forest if oblivious else predict_forest
    np.testing.assert_array_equal(s, predict(rankers, alphas, X, 2))


def test_a_model_without_trees_has_no_columns():
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(X, y)
    est.rankers_, est.alphas_ = [], np.empty(0)
    assert est.apply(X).shape == (X.shape[0], 0) and est.apply(X).dtype == np.int32


def test_refusals():
    X, y = _data()
    with pytest.raises(NotFittedError):
        PushBoost(learner="trees").apply(X)
    stumps = PushBoost(learner="stumps", n_iter=2, random_state=0).fit(np.nan_to_num(X), y)
    with pytest.raises(TypeError, match="apply: the learner 'stumps'"):
        stumps.apply(np.nan_to_num(X))
    est = PushBoost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="expecting 5 features"):
        est.apply(X[:, :4])
    with pytest.raises(ValueError):
        est.apply(X[0])
    with pytest.raises(ValueError, match="X"):
        est.apply(np.where(np.isnan(X), np.inf, X))
    oblivious = ObliviousTreeRanker([0], [0.0], [1], [1.0, 2.0], [0.0])
    with pytest.raises(TypeError, match="one kind"):
        forest_leaves([est.rankers_[0], oblivious], X)
    with pytest.raises(ValueError, match="split feature 4, X has 2 columns"):
        forest_leaves([TreeRanker([4, -1, -1], [0.0] * 3, [0] * 3, [1, -1, -1], [2, -1, -1], [0.0] * 3, [0.0] * 3)],
                      X[:, :2])
    with pytest.raises(ValueError, match="feature 3, X has 2"):
        forest_leaves([ObliviousTreeRanker([3], [0.0], [1], [1.0, 2.0], [0.0])], X[:, :2])

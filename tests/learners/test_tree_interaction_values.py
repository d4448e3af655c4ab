"""``feature_interactions``: SHAP interaction values of the boosted trees against exact Shapley interaction
indices (coalitions enumerated), their invariants, the oblivious cells, threads, inputs and refusals."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from _categorical_trees import categorical_model
from _shap_interaction_reference import interaction_reference
from _model_files import resign
from rankcore.learners.trees._interaction_values import forest_interactions
from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import model_from_dict, model_to_dict
from rankcore.push import PNormPush, PushBoost, RankBoost

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


def _check_invariants(est, X, Phi):
    """Symmetric, rows summing to the SHAP values, matrices to the scores, the bias where XGBoost puts it."""
    d = X.shape[1]
    f = est.decision_function(X)
    atol = 1e-9 * max(1.0, float(np.abs(f).max()))
    assert Phi.shape == (X.shape[0], d + 1, d + 1) and Phi.dtype == np.float64
    np.testing.assert_array_equal(Phi, np.swapaxes(Phi, 1, 2))
    np.testing.assert_allclose(Phi.sum(axis=2), est.feature_contributions(X), rtol=1e-9, atol=atol)
    np.testing.assert_allclose(Phi.sum(axis=(1, 2)), f, rtol=1e-9, atol=atol)
    assert np.all(Phi[:, d, :d] == 0.0) and np.all(Phi[:, :d, d] == 0.0)
    np.testing.assert_array_equal(Phi[:, d, d], est.feature_contributions(X)[:, d])


@pytest.mark.parametrize("learner", GROWTHS)
def test_matches_the_exact_interaction_index(learner):
    X, y = _data()
    est = PushBoost(learner=learner, n_iter=6, random_state=0).fit(X, y)
    for rows in (X[:6], X):                # fewer rows than the oblivious cells (walks), and more (cell lookups)
        Phi = est.feature_interactions(rows)
        for i in range(6):
            np.testing.assert_allclose(Phi[i], interaction_reference(est.rankers_, est.alphas_, X[i], 5), rtol=1e-9,
                                       atol=1e-12)
    _check_invariants(est, X, Phi)


@pytest.mark.parametrize("learner", ["trees:max_leaves=6,min_samples_leaf=10", "trees:growth=oblivious,max_depth=3"])
def test_matches_the_exact_interaction_index_within_queries(learner):
    X, _ = _data(seed=3, n=400)
    y = np.random.default_rng(3).integers(0, 4, X.shape[0]).astype(float)
    est = rankcore.boost(learner=learner, n_iter=5, random_state=0).fit(X, y, qid=np.repeat(np.arange(20), 20))
    Phi = est.feature_interactions(X)
    for i in range(4):
        np.testing.assert_allclose(Phi[i], interaction_reference(est.rankers_, est.alphas_, X[i], 5), rtol=1e-9,
                                   atol=1e-12)
    _check_invariants(est, X, Phi)


def test_the_per_query_default_oblivious_trees():
    X, _ = _data(seed=4, n=600, d=6)
    y = np.random.default_rng(4).integers(0, 3, 600).astype(float)
    est = rankcore.boost(learner="trees", n_iter=40, random_state=0).fit(X, y, qid=np.repeat(np.arange(30), 20))
    assert est.rankers_[0].kind == "oblivious_tree"
    Phi = est.feature_interactions(X)
    _check_invariants(est, X, Phi)
    np.testing.assert_allclose(Phi[0], interaction_reference(est.rankers_, est.alphas_, X[0], 6), rtol=1e-8,
                               atol=1e-11)


def test_categorical_splits_and_nan_routing():
    est, X = categorical_model()
    assert any(r.categorical for r in est.rankers_)
    X_test = np.vstack([X[:8], [[9.0, np.nan, 0.0], [np.nan, 0.3, np.nan]]])   # an unseen category, NaN
    Phi = est.feature_interactions(X_test)
    for i in range(X_test.shape[0]):
        np.testing.assert_allclose(Phi[i], interaction_reference(est.rankers_, est.alphas_, X_test[i], 3),
                                   rtol=1e-9, atol=1e-12)
    _check_invariants(est, X_test, Phi)


@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
def test_a_feature_no_tree_splits_has_a_zero_row_and_column(growth):
    X, y = _data(seed=2, d=7)
    X[:, 5] = 1.0                                   # constant: no split can use it
    est = PushBoost(learner=f"trees:{SMALL},growth={growth}", n_iter=5, random_state=0).fit(X, y)
    used = {j for r in est.rankers_ for j in r.features}
    unused = [j for j in range(7) if j not in used]
    assert 5 in unused
    Phi = est.feature_interactions(X)
    assert np.all(Phi[:, unused, :] == 0.0) and np.all(Phi[:, :, unused] == 0.0)


@pytest.mark.parametrize("kind", ["tree", "oblivious_tree"])
def test_trees_that_are_one_leaf(kind):
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(X, y)
    if kind == "tree":
        leaves = [TreeRanker([-1], [0.0], [0], [-1], [-1], [v], [0.0], cover=[c]) for v, c in ((0.5, 10), (-2.0, 3))]
    else:
        leaves = [ObliviousTreeRanker([], [], [], [v], [], cover=[c]) for v, c in ((0.5, 10), (-2.0, 3))]
    est.rankers_, est.alphas_ = leaves, np.array([1.5, 0.25])
    Phi = est.feature_interactions(X)
    assert np.all(Phi[:, :-1, :] == 0.0) and np.all(Phi[:, :, :-1] == 0.0)
    np.testing.assert_allclose(Phi[:, -1, -1], 1.5 * 0.5 - 0.25 * 2.0)


def test_a_hand_built_tree_splitting_one_feature_twice():
    """x0 split at the root and again below, x1 between: the path's unwinding with a conditioned feature."""
    tree = TreeRanker([0, 1, -1, 0, -1, -1, -1], [0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0], [1, 0, 0, 0, 0, 0, 0],
                      [1, 3, -1, 5, -1, -1, -1], [2, 4, -1, 6, -1, -1, -1], [0, 0, 2.0, 0, -1.0, 3.0, 0.5],
                      [0.0] * 7, cover=[20.0, 12.0, 8.0, 7.0, 5.0, 3.0, 4.0])
    X = np.array([[-2.0, 0.0, 5.0], [-0.5, 0.0, 5.0], [0.5, 2.0, 5.0], [np.nan, 2.0, 5.0], [-0.5, np.nan, 5.0]])
    Phi = forest_interactions([tree], [0.7], X)
    for i in range(X.shape[0]):
        np.testing.assert_allclose(Phi[i], interaction_reference([tree], [0.7], X[i], 3), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(Phi.sum(axis=(1, 2)), 0.7 * tree.predict(X), rtol=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), growth=st.sampled_from(["leafwise", "depthwise", "oblivious"]),
       leaves=st.integers(2, 12), nan=st.sampled_from([0.0, 0.2]), n_iter=st.integers(1, 8))
def test_invariants(seed, growth, leaves, nan, n_iter):
    X, y = _data(seed=seed, n=120, d=4, nan=nan)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    spec = f"trees:growth={growth},max_leaves={leaves},min_samples_leaf=3"
    est = PushBoost(learner=spec, n_iter=n_iter, random_state=seed).fit(X, y)
    _check_invariants(est, X, est.feature_interactions(X))


@pytest.mark.parametrize("cls", [PushBoost, PNormPush, RankBoost])
def test_every_boosting_estimator(cls):
    X, y = _data()
    est = cls(learner=f"trees:{SMALL}", n_iter=3, random_state=0).fit(X, y)
    _check_invariants(est, X, est.feature_interactions(X))


@pytest.mark.parametrize("learner", ["trees", "trees:growth=oblivious,max_depth=4"])
def test_the_thread_count_changes_nothing(learner, exact_threads):
    exact_threads(2)
    X, y = _data(seed=6, n=2000, d=6)
    est = PushBoost(learner=learner, n_iter=15, random_state=0, n_jobs=1).fit(X, y)
    one = est.feature_interactions(X)
    np.testing.assert_array_equal(est.set_params(n_jobs=2).feature_interactions(X), one)


@pytest.mark.parametrize("learner", ["trees:growth=oblivious,max_depth=3", "trees:growth=oblivious,max_depth=5"])
def test_oblivious_cells_give_the_walks_values_bit_for_bit(learner, monkeypatch):
    from rankcore.learners.trees import _contributions

    X, y = _data(seed=3)
    est = PushBoost(learner=learner, n_iter=8, random_state=0).fit(X, y)
    together = est.feature_interactions(X)                     # 2^D <= rows: each cell walked once
    one_by_one = np.concatenate([est.feature_interactions(X[i:i + 1]) for i in range(30)])
    np.testing.assert_array_equal(together[:30], one_by_one)
    monkeypatch.setattr(_contributions, "BATCH_NODES", 1)     # one tree a batch: the same sums
    np.testing.assert_array_equal(est.feature_interactions(X), together)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_sparse_float32_and_dataframe_rows_agree():
    X, y = _data(nan=0.0)
    X[np.abs(X) < 0.6] = 0.0
    names = [f"f{j}" for j in range(X.shape[1])]
    est = PushBoost(learner=f"trees:{SMALL}", n_iter=4, random_state=0).fit(pd.DataFrame(X, columns=names), y)
    dense = est.feature_interactions(pd.DataFrame(X, columns=names))
    np.testing.assert_array_equal(est.feature_interactions(sp.csr_matrix(X)), dense)
    np.testing.assert_array_equal(est.feature_interactions(X.astype(np.float32)), dense)   # grid values: exact


def test_dataframe_category_columns():
    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame({"color": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
                          "size": np.round(rng.normal(size=n), 1), "noise": rng.normal(size=n)})
    y = ((frame["color"] == "red").to_numpy() ^ (frame["size"] > 0).to_numpy()).astype(int)
    est = PushBoost(learner="trees:max_leaves=5,min_samples_leaf=10", n_iter=5, random_state=0).fit(frame, y)
    Phi = est.feature_interactions(frame)
    np.testing.assert_allclose(Phi.sum(axis=2), est.feature_contributions(frame), rtol=1e-9, atol=1e-12)
    assert np.abs(Phi[:, 0, 1]).max() > 0              # the two features the label mixes interact


def test_the_output_size_is_bounded():
    X, y = _data()
    est = PushBoost(learner=f"trees:{SMALL}", n_iter=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"300 rows × 6 × 6 float64 .* max_bytes=1000; pass the rows in chunks of "
                                         r"at most 3"):
        est.feature_interactions(X, max_bytes=1000)
    np.testing.assert_array_equal(est.feature_interactions(X, max_bytes=None), est.feature_interactions(X))
    np.testing.assert_array_equal(est.feature_interactions(X[:3], max_bytes=3 * 36 * 8),
                                  est.feature_interactions(X[:3]))
    for bad in (-1, 1.5, "1GB", True):
        with pytest.raises(ValueError, match="max_bytes: expected an int >= 0"):
            est.feature_interactions(X, max_bytes=bad)


def test_a_row_over_max_bytes_says_what_one_row_needs_and_integral_floats_are_taken():
    X, y = _data()
    est = PushBoost(learner=f"trees:{SMALL}", n_iter=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"takes 288 bytes, over max_bytes=199; one row alone takes 288 bytes: "
                                         r"pass max_bytes >= 288") as refusal:
        est.feature_interactions(X[:1], max_bytes=199)
    assert "MiB" not in str(refusal.value) and "chunks of at most 0" not in str(refusal.value)
    np.testing.assert_array_equal(est.feature_interactions(X, max_bytes=1e9), est.feature_interactions(X))
    np.testing.assert_array_equal(est.feature_interactions(X, max_bytes=np.float64(2**30)),
                                  est.feature_interactions(X))


def test_other_learners_say_they_have_no_trees():
    X, y = _data(nan=0.0)
    est = PushBoost(learner="stumps", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="feature_interactions: the learner 'stumps'.*learner='trees'"):
        est.feature_interactions(X)


def test_a_file_without_covers_says_to_refit():
    X, y = _data()
    est = PushBoost(learner=f"trees:{SMALL}", n_iter=3, random_state=0).fit(X, y)
    data = model_to_dict(est)
    for record in data["state"]["rankers"]:
        record.pop("cover")
    with pytest.raises(ValueError, match="feature_interactions: tree 0 has no covers.*refit"):
        model_from_dict(resign(data)).feature_interactions(X)


def test_kernel_refuses_a_tree_reading_a_column_X_lacks():
    tree = TreeRanker([3, -1, -1], [0.0, 0.0, 0.0], [0, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0],
                      [1.0, 0.0, 0.0], cover=[4.0, 1.0, 3.0])
    with pytest.raises(ValueError, match="X: the trees split feature 3, X has 2 columns"):
        forest_interactions([tree], [1.0], np.zeros((2, 2)))


def _xgboost_trees(booster):
    """XGBoost's trees as rankcore trees: x < split goes left there, x > the float just below it here (float32
    rows: the same side), missing values on the default side, XGBoost's covers (hessian sums)."""
    frame = booster.trees_to_dataframe()
    trees = []
    for _, nodes in frame.groupby("Tree", sort=True):
        nodes = nodes.sort_values("Node")
        index = {name: k for k, name in enumerate(nodes["ID"])}
        leaf = (nodes["Feature"] == "Leaf").to_numpy()
        feature = np.where(leaf, -1, [int(f[1:]) if f != "Leaf" else -1 for f in nodes["Feature"]])
        split = np.nextafter(nodes["Split"].fillna(0.0).to_numpy(np.float64), -np.inf)
        left = np.array([-1 if lf else index[c] for lf, c in zip(leaf, nodes["Yes"])])
        right = np.array([-1 if lf else index[c] for lf, c in zip(leaf, nodes["No"])])
        nan_left = np.array([0 if lf else int(m == y) for lf, m, y in zip(leaf, nodes["Missing"], nodes["Yes"])])
        value = np.where(leaf, nodes["Gain"].to_numpy(np.float64), 0.0)
        trees.append(TreeRanker(feature, np.where(leaf, 0.0, split), nan_left, left, right, value,
                                np.zeros(len(nodes)), cover=nodes["Cover"].to_numpy(np.float64)))
    return trees


def test_agrees_with_xgboost_pred_interactions():
    xgboost = pytest.importorskip("xgboost")
    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 5)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) * np.nan_to_num(X[:, 1]) + np.sin(np.nan_to_num(X[:, 2])) + 0.1 * rng.normal(size=300)
    model = xgboost.XGBRegressor(n_estimators=8, max_depth=4, learning_rate=0.3, base_score=0.0, n_jobs=1,
                                 tree_method="exact").fit(X, y)
    trees = _xgboost_trees(model.get_booster())
    ours = forest_interactions(trees, np.ones(len(trees)), X[:40].astype(np.float64))
    theirs = model.get_booster().predict(xgboost.DMatrix(X[:40], missing=np.nan), pred_interactions=True)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * np.abs(theirs).max())

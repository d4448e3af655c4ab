"""``feature_contributions(X, background=...)``: interventional TreeSHAP against exact Shapley values by subsets."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from _bad_backgrounds import BAD_BACKGROUNDS
from _categorical_trees import categorical_model
from _interventional_reference import game_shapley, interventional_reference
from _model_files import resign
from _random_trees import chain_tree, node_trees
from rankcore.learners.trees._interventional import forest_interventional, subset_weights
from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import model_from_dict, model_to_dict
from rankcore.push import PushBoost

SMALL = "max_leaves=6,min_samples_leaf=5"
GROWTHS = [f"trees:{SMALL}", f"trees:{SMALL},growth=depthwise", "trees:growth=oblivious,max_depth=3,min_samples_leaf=5",
           "trees:growth=oblivious,max_depth=5,min_samples_leaf=3", "trees:max_depth=1"]
TOL = dict(rtol=1e-9, atol=1e-12)


def _data(seed=0, n=300, d=5, nan=0.1):
    """Rows with ties (values on a coarse grid) and NaN; labels from the first three features."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 2) / 2
    X[rng.random(X.shape) < nan] = np.nan
    z = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    y = (z + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _check_reference(est, X, Z, rows=5):
    phi = est.feature_contributions(X[:rows], background=Z)
    for i in range(rows):
        expected = interventional_reference(est.rankers_, est.alphas_, X[i], Z, X.shape[1])
        np.testing.assert_allclose(phi[i], expected, **TOL)
    return phi


@pytest.mark.parametrize("learner", GROWTHS)
def test_matches_exact_interventional_shapley_values(learner):
    X, y = _data()
    est = PushBoost(learner=learner, n_iter=6, random_state=0).fit(X, y)
    Z = X[100:108]                                   # ties and NaN in the background too
    assert np.isnan(Z).any()
    phi = _check_reference(est, X, Z)
    np.testing.assert_allclose(phi.sum(axis=1), est.decision_function(X[:5]), **TOL)
    np.testing.assert_allclose(phi[:, -1], est.decision_function(Z).mean(), **TOL)


def test_categorical_splits_unseen_categories_and_nan():
    est, X = categorical_model()
    assert any(r.categorical for r in est.rankers_)
    rows = np.vstack([X[:6], [[9.0, np.nan, 0.0], [np.nan, 0.3, np.nan]]])
    Z = np.vstack([X[20:26], [[7.0, 0.1, np.nan]]])
    phi = est.feature_contributions(rows, background=Z)
    for i in range(rows.shape[0]):
        np.testing.assert_allclose(phi[i], interventional_reference(est.rankers_, est.alphas_, rows[i], Z, 3), **TOL)


def test_the_per_query_default_oblivious_trees_by_cells_match_the_walk_per_row():
    """200 oblivious trees of depth 6: the cell tables give the values of the walk of each (row, background) pair
    on the trees' complete binary node form (the path taken when a forest is not all oblivious)."""
    X, _ = _data(seed=4, n=600, d=6)
    y = np.random.default_rng(4).integers(0, 3, 600).astype(float)
    est = rankcore.boost(learner="trees", random_state=0).fit(X, y, qid=np.repeat(np.arange(30), 20))
    assert est.rankers_[0].kind == "oblivious_tree" and max(r.depth for r in est.rankers_) == 6
    Z = X[500:530]
    by_cells = forest_interventional(est.rankers_, est.alphas_, X[:40], Z)
    leaf = TreeRanker([-1], [0.0], [0], [-1], [-1], [0.0], [0.0])     # a tree of one leaf: the walk per row
    walked = forest_interventional(est.rankers_ + [leaf], np.r_[est.alphas_, 1.0], X[:40], Z)
    np.testing.assert_allclose(by_cells, walked, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(by_cells.sum(axis=1), est.decision_function(X[:40]), rtol=1e-9, atol=1e-12)
    for i in range(2):                               # and the reference itself, on the first trees
        expected = interventional_reference(est.rankers_[:8], est.alphas_[:8], X[i], Z[:3], 6)
        np.testing.assert_allclose(forest_interventional(est.rankers_[:8], est.alphas_[:8], X[i:i + 1], Z[:3])[0],
                                   expected, **TOL)


@pytest.mark.parametrize("learner", [f"trees:{SMALL}", "trees:growth=oblivious,max_depth=4"])
def test_a_background_of_the_row_itself_gives_zeros(learner):
    X, y = _data(seed=1)
    est = PushBoost(learner=learner, n_iter=8, random_state=0).fit(X, y)
    for i in range(4):
        phi = est.feature_contributions(X[i:i + 1], background=X[i:i + 1])
        assert np.all(phi[0, :-1] == 0.0)
        assert phi[0, -1] == est.decision_function(X[i:i + 1])[0]


@pytest.mark.parametrize("learner", [f"trees:{SMALL}", "trees:growth=oblivious,max_depth=8,min_samples_leaf=1"])
def test_values_depend_neither_on_threads_nor_on_the_other_rows(learner, exact_threads):
    """Really 2 and 3 threads (``exact_threads``), with enough work that the kernels run them (``threads_for``'s
    4,096 steps): 120 rows × 40 background rows × 10 trees, or at depth 8 the rows' cells (37 to 65 a tree here)
    × 256 cells."""
    exact_threads(3)
    X, y = _data(seed=2, n=400)
    est = PushBoost(learner=learner, n_iter=10, random_state=0).fit(X, y)
    Z = X[300:340]
    one = est.set_params(n_jobs=1).feature_contributions(X[:120], background=Z)
    for k in (2, 3):
        np.testing.assert_array_equal(est.set_params(n_jobs=k).feature_contributions(X[:120], background=Z), one)
    alone = np.vstack([est.feature_contributions(X[i:i + 1], background=Z) for i in (0, 7, 119)])
    np.testing.assert_array_equal(alone, one[[0, 7, 119]])


@pytest.mark.parametrize("kind", ["tree", "oblivious_tree"])
def test_trees_that_are_one_leaf(kind):
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(X, y)
    if kind == "tree":
        leaves = [TreeRanker([-1], [0.0], [0], [-1], [-1], [v], [0.0]) for v in (0.5, -2.0)]
    else:
        leaves = [ObliviousTreeRanker([], [], [], [v], []) for v in (0.5, -2.0)]
    est.rankers_, est.alphas_ = leaves, np.array([1.5, 0.25])
    phi = est.feature_contributions(X[:10], background=X[10:15])
    assert np.all(phi[:, :-1] == 0.0)
    np.testing.assert_allclose(phi[:, -1], 1.5 * 0.5 - 0.25 * 2.0)


def test_features_never_split_and_features_equal_to_the_background_get_exactly_zero():
    X, y = _data(seed=3, d=6)
    X[:, 5] = 1.0                                    # constant: no split can use it
    est = PushBoost(learner=f"trees:{SMALL},subsample=1", n_iter=6, random_state=0).fit(X, y)
    Z = X[200:210].copy()
    rows = X[:20].copy()
    rows[:, 1] = 0.5
    Z[:, 1] = 0.5                                    # a feature x shares with every background row: a dummy
    phi = est.feature_contributions(rows, background=Z)
    assert 1 in {j for r in est.rankers_ for j in r.features}
    assert np.all(phi[:, 5] == 0.0) and np.all(phi[:, 1] == 0.0)


@pytest.mark.parametrize("learner", [f"trees:{SMALL}", "trees:growth=oblivious,max_depth=3"])
def test_a_model_file_without_covers_is_explained_against_a_background(learner):
    X, y = _data()
    est = PushBoost(learner=learner, n_iter=5, random_state=0).fit(X, y)
    data = model_to_dict(est)
    for record in data["state"]["rankers"]:
        record.pop("cover")
    old = model_from_dict(resign(data))
    with pytest.raises(ValueError, match="no covers"):
        old.feature_contributions(X[:3])
    np.testing.assert_array_equal(old.feature_contributions(X[:30], background=X[50:60]),
                                  est.feature_contributions(X[:30], background=X[50:60]))


def test_a_dataframe_background_is_read_by_column_name():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    frame = pd.DataFrame(X, columns=list("abcde"))
    est = PushBoost(learner=f"trees:{SMALL}", n_iter=5, random_state=0).fit(frame, y)
    on_arrays = PushBoost(learner=f"trees:{SMALL}", n_iter=5, random_state=0).fit(X, y)
    phi = est.feature_contributions(frame.iloc[:10], background=frame.iloc[20:30])
    np.testing.assert_array_equal(phi, on_arrays.feature_contributions(X[:10], background=X[20:30]))
    with pytest.raises(ValueError, match="^background: The feature names should match"):
        est.feature_contributions(frame.iloc[:10], background=frame.iloc[20:30][list("edcba")])


@pytest.mark.parametrize("background, error, message", BAD_BACKGROUNDS)
def test_bad_backgrounds_are_refused_by_name(background, error, message):
    X, y = _data()
    est = PushBoost(learner=f"trees:{SMALL}", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(error, match=message):
        est.feature_contributions(X[:3], background=background)


def test_a_learner_without_trees_is_refused_with_or_without_a_background():
    X, y = _data(nan=0.0)
    est = PushBoost(learner="stumps", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="learner 'stumps'"):
        est.feature_contributions(X[:3], background=X[:2])


def test_subset_weights_are_the_shapley_weights():
    from fractions import Fraction
    from math import factorial

    W = subset_weights(30)
    for p in range(31):
        for q in range(31 - p):
            exact = Fraction(factorial(p) * factorial(q), factorial(p + q + 1))
            assert W[p, q] == pytest.approx(float(exact), rel=1e-14)
    assert np.all(np.isfinite(subset_weights(1500)))         # deep trees: no factorial overflows


def test_a_deep_chain_of_distinct_features_adds_up():
    """A chain of 40 splits on 40 features (node k: feature k, its left child a leaf of value k): x and z part on
    every other feature; each row sums to f(x) − f(z) + f(z), the shared features get exactly 0."""
    depth = 40
    chain, x, Z = chain_tree(depth)
    phi = forest_interventional([chain], [1.0], x, Z)
    assert phi[0].sum() == pytest.approx(chain.predict(x)[0], abs=1e-12)
    assert phi[0, -1] == chain.predict(Z)[0] == 1.0
    assert np.all(phi[0, 1:depth:2] == 0.0)


# ----------------------------------------------------------------------------------------------------------------
# Random trees, drawn: the kernel against the subsets' Shapley values, and the game's invariants
# ----------------------------------------------------------------------------------------------------------------

D = 4
GRID = [-1.0, -0.5, 0.0, 0.5, 1.0, np.nan]


rows = st.lists(st.sampled_from(GRID + [0.0, 1.0, 2.0, 3.0]), min_size=D, max_size=D)


@settings(max_examples=60, deadline=None)
@given(st.lists(node_trees(D), min_size=1, max_size=3), st.lists(rows, min_size=1, max_size=3),
       st.lists(rows, min_size=1, max_size=4), st.sampled_from([1, 2]))
def test_random_trees_match_the_subsets(forest, xs, zs, n_threads):
    X, Z = np.array(xs, dtype=float), np.array(zs, dtype=float)
    alphas = np.linspace(0.5, 1.5, len(forest))
    phi = forest_interventional(forest, alphas, X, Z, n_threads)
    for i in range(X.shape[0]):
        np.testing.assert_allclose(phi[i], interventional_reference(forest, alphas, X[i], Z, D), rtol=1e-9,
                                   atol=1e-12)
    scores = sum(a * t.predict(X) for a, t in zip(alphas, forest))
    np.testing.assert_allclose(phi.sum(axis=1), scores, rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=3, max_size=3), st.sampled_from([-0.5, 0.0, 0.5]),
       st.sampled_from(GRID), st.lists(st.sampled_from(GRID), min_size=1, max_size=4), st.sampled_from(GRID))
def test_symmetric_features_get_equal_values(leaf, t, x, zs, other):
    """h depends on features 0 and 1 through a symmetric function of (x0 > t, x1 > t): with x0 = x1 and z0 = z1
    for every background row, the two features are symmetric players and get the same value."""
    v00, v01, v11 = leaf[0] / 2, leaf[1] / 2, leaf[2] / 2
    tree = TreeRanker([0, 1, -1, -1, 1, -1, -1], [t, t, 0, 0, t, 0, 0], [1, 1, 0, 0, 1, 0, 0],
                      [1, 2, -1, -1, 5, -1, -1], [4, 3, -1, -1, 6, -1, -1], [0, 0, v00, v01, 0, v01, v11], [0.0] * 7)
    X = np.array([[x, x, other, 0.0]])
    Z = np.array([[z, z, other, 1.0] for z in zs])
    phi = forest_interventional([tree], [1.0], X, Z)
    assert phi[0, 0] == pytest.approx(phi[0, 1], abs=1e-12)
    assert np.all(phi[0, 2:4] == 0.0)                 # features the tree does not split: dummies


def test_game_shapley_of_a_known_game():
    """The reference's Shapley values on the glove game: v = 1 iff {0, 1} ⊆ S or {0, 2} ⊆ S."""
    values = {frozenset(S): float(0 in S and (1 in S or 2 in S))
              for S in [(), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]}
    phi = game_shapley(values, [0, 1, 2])
    assert phi[0] == pytest.approx(2 / 3) and phi[1] == pytest.approx(1 / 6) and phi[2] == pytest.approx(1 / 6)


@pytest.mark.parametrize("cells", [[1, 1], [2, 0]], ids=["repeated", "descending"])
def test_oblivious_kernel_refuses_cells_not_distinct_and_ascending(cells):
    """Each cell's row of the table is written by the one thread that owns it: a cell listed twice would be added
    to by two threads at once."""
    from rankcore.learners.trees import _treeshap_interventional

    table = np.zeros((4, 2))
    with pytest.raises(ValueError, match="distinct and ascending"):
        _treeshap_interventional.oblivious_interventional(
            np.array([0, 1], dtype=np.int32), np.arange(4.0), 1.0, np.array(cells, dtype=np.intp), np.ones(4),
            subset_weights(2), table)

"""``feature_contributions(X, background=Z, groups=...)``: the interventional values of groups of columns as players.

The reference is ``_grouped_brute``: v(S) = mean_k f(x_{cols(S)}, z_k,rest) scored for every set S of the G
players, its Shapley values by their definition -- independent of the kernel's walk.  Random node trees (ties with
the rows, NaN sides, categorical nodes) and random oblivious trees over up to 8 columns, random groupings with
G < d; fitted models through the public API; 1 against 2 and 3 threads; the groupings of one column each against
the ungrouped values; bad ``groups``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _grouped_brute import grouped_brute_force
from _random_trees import node_trees, oblivious_trees
from rankcore.learners.trees import _treeshap_interventional
from rankcore.learners.trees._interventional import forest_interventional, subset_weights
from rankcore.push import PushBoost

TOL = dict(rtol=1e-9, atol=1e-12)
GRID = [-1.0, -0.5, 0.0, 0.5, 1.0, np.nan]
CELLS = GRID + [2.0, 3.0]                               # 0..3 are categories too


def _score(forest, alphas):
    return lambda rows: sum(a * t.predict(rows) for a, t in zip(alphas, forest))


@st.composite
def groupings(draw, d):
    """d labels 0..G−1, each used (G <= d, most often G < d), in a random order of the columns."""
    raw = draw(st.lists(st.integers(0, max(d - 2, 0)), min_size=d, max_size=d))
    return np.unique(raw, return_inverse=True)[1].astype(np.int32)


@st.composite
def problems(draw, kind):
    """(forest, alphas, X, Z, groups) over d = 2..8 columns; ``kind``: node trees, oblivious trees or both."""
    d = draw(st.integers(2, 8))
    if kind == "node":
        forest = draw(st.lists(node_trees(d), min_size=1, max_size=3))
    elif kind == "oblivious":
        forest = draw(st.lists(oblivious_trees(d), min_size=1, max_size=3))
    else:
        forest = [draw(node_trees(d)), draw(oblivious_trees(d))]
    rows = st.lists(st.sampled_from(CELLS), min_size=d, max_size=d)
    X = np.array(draw(st.lists(rows, min_size=1, max_size=3)), dtype=float)
    Z = np.array(draw(st.lists(rows, min_size=1, max_size=4)), dtype=float)
    return forest, np.linspace(0.5, 1.5, len(forest)), X, Z, draw(groupings(d))


@pytest.mark.parametrize("kind", ["node", "oblivious", "mixed"])
@settings(max_examples=70, deadline=None)
@given(data=st.data(), n_threads=st.sampled_from([1, 2]))
def test_random_forests_match_the_grouped_games_shapley_values(kind, data, n_threads):
    forest, alphas, X, Z, groups = data.draw(problems(kind))
    phi = forest_interventional(forest, alphas, X, Z, n_threads, player=groups)
    assert phi.shape == (X.shape[0], int(groups.max()) + 2)
    for i in range(X.shape[0]):
        np.testing.assert_allclose(phi[i], grouped_brute_force(_score(forest, alphas), X[i], Z, groups), **TOL)
    np.testing.assert_allclose(phi.sum(axis=1), _score(forest, alphas)(X), **TOL)        # efficiency


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_groups_of_one_column_are_the_ungrouped_values_relabelled(data):
    """Each column its own group, in any order of labels: the ungrouped values, bit for bit, moved to the labels'
    columns; the identity map is also the kernel's own default (``player=None``)."""
    forest, alphas, X, Z, _ = data.draw(problems(data.draw(st.sampled_from(["node", "oblivious", "mixed"]))))
    d = X.shape[1]
    plain = forest_interventional(forest, alphas, X, Z)
    order = np.array(data.draw(st.permutations(range(d))), dtype=np.int32)
    relabelled = forest_interventional(forest, alphas, X, Z, player=order)
    np.testing.assert_array_equal(relabelled[:, order], plain[:, :d])
    assert np.array_equal(relabelled[:, d], plain[:, d])


def test_the_kernels_default_map_is_the_identity_bit_for_bit():
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(300, 6)) * 2) / 2
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2]) > 0).astype(int)
    est = PushBoost(learner="trees:max_leaves=8", n_iter=10, random_state=0).fit(X, y)
    from rankcore.learners.trees._interventional import _categories, _walk_arguments
    from rankcore.learners.trees._contributions import batches

    (first, batch), = batches(est.rankers_)
    arguments = (X[:50], X[100:120], *_walk_arguments(est.rankers_, batch, 6), np.asarray(est.alphas_, float),
                 *_categories(est.rankers_, batch), subset_weights(8))
    default, identity = np.zeros((50, 7)), np.zeros((50, 7))
    _treeshap_interventional.interventional_shap(*arguments, default, 1)
    _treeshap_interventional.interventional_shap(*arguments, identity, 1, np.arange(6, dtype=np.int32))
    assert np.any(default != 0.0)
    np.testing.assert_array_equal(identity, default)


def _data(seed=0, n=400, d=8, nan=0.1):
    """Rows with ties and NaN over d = 8 columns, the last three a one-hot encoding of a 3-level variable."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 2) / 2
    X[rng.random(X.shape) < nan] = np.nan
    level = rng.integers(0, 3, n)
    X[:, 5:] = np.eye(3)[level]
    z = np.nan_to_num(X[:, 0]) * (level == 0) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2]) + (level == 1) \
        - 0.8 * (level == 2)
    return X, (z + 0.5 * rng.normal(size=n) > 0.5).astype(int)


ONE_HOT = np.array([0, 1, 2, 3, 4, 5, 5, 5])             # the three one-hot columns: one player
PAIRS = np.array([0, 0, 1, 2, 2, 3, 3, 3])


@pytest.mark.parametrize("learner", ["trees:max_leaves=8,min_samples_leaf=5",
                                     "trees:growth=depthwise,max_depth=4,min_samples_leaf=5",
                                     "trees:growth=oblivious,max_depth=4,min_samples_leaf=5",
                                     "trees:max_leaves=8,categorical=3"])
@pytest.mark.parametrize("groups", [ONE_HOT, PAIRS], ids=["one-hot", "pairs"])
def test_fitted_models_give_the_grouped_games_values(learner, groups):
    X, y = _data()
    if "categorical" in learner:
        X[:, 3] = np.where(np.isnan(X[:, 3]), np.nan, np.abs(X[:, 3]) * 2)
    model = PushBoost(learner=learner, n_iter=6, random_state=0).fit(X, y)
    Z = np.vstack([X[300:306], X[300]])                # NaN, ties and a duplicated row in the background
    phi = model.feature_contributions(X[:5], background=Z, groups=groups)
    assert phi.shape == (5, int(groups.max()) + 2)
    for i in range(5):
        np.testing.assert_allclose(phi[i], grouped_brute_force(model.decision_function, X[i], Z, groups), **TOL)
    np.testing.assert_allclose(phi.sum(axis=1), model.decision_function(X[:5]), **TOL)
    np.testing.assert_allclose(phi[:, -1], model.decision_function(Z).mean(), **TOL)
    ungrouped = model.feature_contributions(X[:5], background=Z)
    np.testing.assert_array_equal(model.feature_contributions(X[:5], background=Z, groups=np.arange(8)), ungrouped)


def test_a_one_hot_block_is_one_player_scored_on_real_levels_only():
    """The motivating example of docs/tree_explanations.md: as one player, a one-hot block takes x's level or z's,
    so the game scores no row with two levels or none (the score below refuses them); the block's value is not the
    sum of its three columns' values, the values of a game over such rows."""
    X, y = _data(seed=1)
    model = PushBoost(learner="trees:max_leaves=8,min_samples_leaf=5", n_iter=8, random_state=0).fit(X, y)
    rows, Z = X[:6], X[300:320]

    def levels_only(hybrids):
        assert np.all(hybrids[:, 5:].sum(axis=1) == 1.0)
        return model.decision_function(hybrids)

    grouped = model.feature_contributions(rows, background=Z, groups=ONE_HOT)
    for i in range(rows.shape[0]):
        np.testing.assert_allclose(grouped[i], grouped_brute_force(levels_only, rows[i], Z, ONE_HOT), **TOL)
    summed = model.feature_contributions(rows, background=Z)[:, 5:8].sum(axis=1)
    assert np.abs(grouped[:, 5] - summed).max() > 1e-6


@pytest.mark.parametrize("learner", ["trees:max_leaves=8,min_samples_leaf=5",
                                     "trees:growth=oblivious,max_depth=8,min_samples_leaf=1"])
def test_grouped_values_depend_neither_on_threads_nor_on_the_other_rows(learner, exact_threads):
    exact_threads(3)
    X, y = _data(seed=2)
    est = PushBoost(learner=learner, n_iter=10, random_state=0).fit(X, y)
    Z = X[300:340]
    one = est.set_params(n_jobs=1).feature_contributions(X[:120], background=Z, groups=PAIRS)
    for k in (2, 3):
        np.testing.assert_array_equal(est.set_params(n_jobs=k).feature_contributions(X[:120], background=Z,
                                                                                     groups=PAIRS), one)
    alone = np.vstack([est.feature_contributions(X[i:i + 1], background=Z, groups=PAIRS) for i in (0, 7, 119)])
    np.testing.assert_array_equal(alone, one[[0, 7, 119]])


BAD = [
    (None, [0, 0, 1, 2, 3, 4, 5, 6], ValueError, r"groups: only with background rows \(background=...\)"),
    ("Z", [[0, 1], [2, 3, 4], [5, 6, 7]], TypeError, "groups: expected one integer label per column.*list of lists"),
    ("Z", [[0, 1, 2, 3], [4, 5, 6, 7]], TypeError, "groups: expected one integer label per column.*list of lists"),
    ("Z", list("aabcdeff"), TypeError, "column names are not taken"),
    ("Z", np.array([0.0, 0, 1, 2, 3, 4, 5, 6]), TypeError, "labels of dtype float64"),
    ("Z", "a+b", TypeError, "got a str"),
    ("Z", [0, 0, 1], ValueError, "groups: expected 8 labels, one per feature, got 3"),
    ("Z", [0, 0, 1, 2, 3, 4, 5, -1], ValueError, "groups: expected labels 0..G−1, got -1"),
    ("Z", [0, 0, 1, 2, 3, 4, 5, 7], ValueError, "each used at least once; 6 is not"),
    # a huge label is refused as a label, not counted into a huge array first
    ("Z", [0, 0, 1, 2, 3, 4, 5, 10 ** 12], ValueError, r"groups: expected labels 0..G−1 with G <= 8 .*got 10+$"),
    ("Z", np.array([0, 0, 1, 2, 3, 4, 5, 2 ** 63 + 5], np.uint64), ValueError, "with G <= 8 .*got 9223372036854775813"),
    ("Z", [0, 0, 1, 2, 3, 4, 5, 2 ** 70], ValueError, f"with G <= 8 .*got {2 ** 70}"),
    # one label per column held as objects: told as labels of text, not as a list of lists
    ("Z", np.array(list("aabcdeff"), dtype=object), TypeError, "labels of dtype <U1 .*column names are not taken"),
    ("Z", [0, None, 1, 2, 3, 4, 5, 6], TypeError, "labels of dtype <U4"),
]


@pytest.mark.parametrize("background, groups, error, message", BAD)
def test_bad_groups_are_refused_by_name(background, groups, error, message):
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(error, match=message):
        est.feature_contributions(X[:3], background=None if background is None else X[10:14], groups=groups)


def test_labels_of_any_integer_kind_or_held_as_objects_are_taken():
    """int8, uint64, a tuple, a Series (of objects too) or a Categorical of integers: the same values."""
    pd = pytest.importorskip("pandas")
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y)
    labels = [0, 0, 1, 2, 3, 4, 5, 6]
    expected = est.feature_contributions(X[:3], background=X[10:14], groups=labels)
    for form in (np.array(labels, np.int8), np.array(labels, np.uint64), tuple(labels), pd.Series(labels),
                  pd.Series(labels, dtype=object), pd.Categorical(labels)):
        np.testing.assert_array_equal(est.feature_contributions(X[:3], background=X[10:14], groups=form), expected)


def test_the_learner_and_the_kernel_refuse_bad_maps():
    X, y = _data()
    est = PushBoost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="groups: only with background rows"):
        est._learner.contributions(est.rankers_, est.alphas_, X[:3], groups=np.arange(8))
    with pytest.raises(ValueError, match="groups: expected 8 integer labels|groups: expected 8 labels"):
        forest_interventional(est.rankers_, est.alphas_, X[:3], X[5:7], player=np.arange(7))
    arguments = (np.zeros((1, 2)), np.zeros((1, 2)), np.zeros(1, np.int32), np.zeros(1), np.zeros(1, np.uint8),
                 np.full(1, -1, np.int32), np.full(1, -1, np.int32), np.ones(1), np.zeros(1, np.intp), np.ones(1),
                 np.zeros(1, np.uint8), np.zeros(2, np.int64), np.zeros(0), subset_weights(1))
    with pytest.raises(ValueError, match="player must map the 2 columns of X, got 3"):
        _treeshap_interventional.interventional_shap(*arguments, np.zeros((1, 3)), 1, np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="column 1's player -1 is negative"):
        _treeshap_interventional.interventional_shap(*arguments, np.zeros((1, 3)), 1, np.array([0, -1], np.int32))
    with pytest.raises(ValueError, match=r"out must have shape \(1, >= 5\)"):
        _treeshap_interventional.interventional_shap(*arguments, np.zeros((1, 3)), 1, np.array([0, 4], np.int32))

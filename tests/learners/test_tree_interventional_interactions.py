"""Interventional SHAP interaction values of forests (``_treeshap_interventional_interactions.pyx``): the leaf
games' closed forms in exact arithmetic, the kernel against coalitions enumerated on random trees (ties, NaN,
categories, leaf-wise and oblivious, grouped players), the invariants, threads and the kernels' refusals."""

import itertools
import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _interventional_interaction_reference import interaction_reference
from _random_trees import chain_tree, node_trees, oblivious_trees
from rankcore.learners.trees import _treeshap_interventional_interactions as kernel
from rankcore.learners.trees._contributions import node_form
from rankcore.learners.trees._interventional import (_categories, _form_depth, _walk_arguments, forest_interventional,
                                                     subset_weights)
from rankcore.learners.trees._interventional_interactions import forest_interventional_interactions
from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker
from rankcore.learners.trees._ranker import TreeRanker

TOL = dict(rtol=1e-9, atol=1e-12)
D = 7
GRID = [-1.0, -0.5, 0.0, 0.5, 1.0, np.nan]


# ----------------------------------------------------------------------------------------------------------------
# The leaf game u(S) = v·[A ⊆ S]·[B ∩ S = ∅]: the module docstring's closed forms, exactly
# ----------------------------------------------------------------------------------------------------------------

def _W(p, q):
    return Fraction(math.factorial(p) * math.factorial(q), math.factorial(p + q + 1))


def _closed_form(a, b, i, j):
    """Φ_ij of the docstring for players 0..a−1 in A, a..a+b−1 in B (a leaf value of 1), exactly."""
    in_a = lambda k: k < a                                  # noqa: E731
    in_b = lambda k: a <= k < a + b                         # noqa: E731
    if i == j:
        zero = Fraction(0)
        pair_ab = _W(a - 1, b - 1) if a and b else zero
        if in_a(i):
            return _W(a - 1, b) - (a - 1) * (_W(a - 2, b) if a >= 2 else zero) / 2 + b * pair_ab / 2
        if in_b(i):
            return -_W(a, b - 1) + a * pair_ab / 2 - (b - 1) * (_W(a, b - 2) if b >= 2 else zero) / 2
        return Fraction(0)
    if in_a(i) and in_a(j):
        return _W(a - 2, b) / 2
    if in_b(i) and in_b(j):
        return _W(a, b - 2) / 2
    if (in_a(i) and in_b(j)) or (in_b(i) and in_a(j)):
        return -_W(a - 1, b - 1) / 2
    return Fraction(0)


@pytest.mark.parametrize("a, b", [(a, b) for a in range(4) for b in range(4) if a + b >= 1])
@pytest.mark.parametrize("extra", [0, 2])
def test_leaf_game_closed_forms_are_the_interaction_index(a, b, extra):
    """Every pair and diagonal entry of the leaf game's matrix, by the definition in rationals, among M = a + b +
    ``extra`` players (the extra ones dummies: they change nothing and get 0)."""
    M = a + b + extra
    A, B = set(range(a)), set(range(a, a + b))

    def u(S):
        return Fraction(int(A <= S and not (B & S)))

    phi = [sum((Fraction(math.factorial(s) * math.factorial(M - s - 1), math.factorial(M)) * (u(S | {i}) - u(S))
                for s in range(M) for S in map(set, itertools.combinations([k for k in range(M) if k != i], s))),
               Fraction(0)) for i in range(M)]
    Phi = [[Fraction(0)] * M for _ in range(M)]
    for i, j in itertools.permutations(range(M), 2):
        others = [k for k in range(M) if k not in (i, j)]
        Phi[i][j] = sum((Fraction(math.factorial(s) * math.factorial(M - s - 2), 2 * math.factorial(M - 1))
                         * (u(S | {i, j}) - u(S | {i}) - u(S | {j}) + u(S))
                         for s in range(M - 1) for S in map(set, itertools.combinations(others, s))), Fraction(0))
    for i in range(M):
        Phi[i][i] = phi[i] - sum(Phi[i][j] for j in range(M) if j != i)
        for j in range(M):
            assert Phi[i][j] == _closed_form(a, b, i, j), (i, j)


# ----------------------------------------------------------------------------------------------------------------
# Random trees, drawn: the kernel against coalitions enumerated
# ----------------------------------------------------------------------------------------------------------------

rows = st.lists(st.sampled_from(GRID + [2.0, 3.0]), min_size=D, max_size=D)


def _check(forest, X, Z, n_threads):
    alphas = np.linspace(0.5, 1.5, len(forest))
    Phi = forest_interventional_interactions(forest, alphas, X, Z, n_threads)
    assert Phi.shape == (X.shape[0], D + 1, D + 1)
    for i in range(X.shape[0]):
        np.testing.assert_allclose(Phi[i], interaction_reference(forest, alphas, X[i], Z, D), **TOL)
    np.testing.assert_array_equal(Phi, np.swapaxes(Phi, 1, 2))                      # symmetric bit for bit
    np.testing.assert_allclose(Phi.sum(axis=2)[:, :D], forest_interventional(forest, alphas, X, Z)[:, :D], **TOL)
    scores = sum((a * t.predict(X) for a, t in zip(alphas, forest)), np.zeros(X.shape[0]))
    np.testing.assert_allclose(Phi.sum(axis=(1, 2)), scores, **TOL)
    assert np.all(Phi[:, D, :D] == 0.0) and np.all(Phi[:, :D, D] == 0.0)
    return Phi


@settings(max_examples=50, deadline=None)
@given(st.lists(node_trees(D), min_size=1, max_size=3), st.lists(rows, min_size=1, max_size=3),
       st.lists(rows, min_size=1, max_size=3), st.sampled_from([1, 2]))
def test_random_node_trees_match_the_coalitions(forest, xs, zs, n_threads):
    _check(forest, np.array(xs, dtype=float), np.array(zs, dtype=float), n_threads)


@settings(max_examples=50, deadline=None)
@given(st.lists(oblivious_trees(D), min_size=1, max_size=3), st.lists(rows, min_size=1, max_size=4),
       st.lists(rows, min_size=1, max_size=4), st.sampled_from([1, 2]))
def test_random_oblivious_trees_by_cells_match_the_coalitions_and_the_walk(forest, xs, zs, n_threads):
    """An all-oblivious forest goes by cells; with a one-leaf node tree added it is walked row by row as node
    trees: both give the reference's values."""
    X, Z = np.array(xs, dtype=float), np.array(zs, dtype=float)
    by_cells = _check(forest, X, Z, n_threads)
    leaf = TreeRanker([-1], [0.0], [0], [-1], [-1], [0.0], [0.0])
    walked = forest_interventional_interactions(forest + [leaf], np.r_[np.linspace(0.5, 1.5, len(forest)), 1.0],
                                                X, Z, n_threads)
    np.testing.assert_allclose(walked, by_cells, **TOL)


def test_a_deep_leafwise_tree_and_a_deep_oblivious_one_on_seven_features():
    """Depth 7 on 7 features (paths that part on every feature: a + b up to 7) against the coalitions."""
    rng = np.random.default_rng(3)
    depth = 7
    oblivious = ObliviousTreeRanker(list(range(depth)), [0.0] * depth, rng.integers(0, 2, depth), rng.normal(
        size=1 << depth), [0.0] * depth)
    nodes = node_form(oblivious)
    chain = TreeRanker(nodes["feature"], nodes["threshold"], nodes["nan_left"], nodes["left"], nodes["right"],
                       nodes["value"], [0.0] * nodes["left"].shape[0])
    X = np.where(rng.random((3, depth)) < 0.5, 1.0, -1.0)
    X[0, 2] = np.nan
    Z = -X[[0, 1, 2, 0]]                                   # every feature parts for rows 0..2
    _check([oblivious], X, Z, 2)
    _check([chain], X, Z, 1)


def _group_arguments(forest, X, groups):
    nodes = [node_form(t) for t in forest]
    return (np.asarray(groups, dtype=np.int32), *_walk_arguments(forest, nodes, X.shape[1]), np.ones(len(forest)),
            *_categories(forest, nodes), subset_weights(max(map(_form_depth, nodes))))


@settings(max_examples=30, deadline=None)
@given(st.lists(node_trees(D), min_size=1, max_size=2), st.lists(rows, min_size=1, max_size=2),
       st.lists(rows, min_size=1, max_size=3), st.lists(st.integers(0, 3), min_size=D, max_size=D))
def test_the_player_map_groups_columns_into_players(forest, xs, zs, groups):
    """The kernel's player map (the Python side passes the identity today): columns of one group move together,
    the game of the G groups against the coalitions of groups."""
    X, Z = np.array(xs, dtype=float), np.array(zs, dtype=float)
    G = max(groups) + 1
    out = np.zeros((X.shape[0], G + 1, G + 1))
    kernel.interventional_interactions(X, Z, *_group_arguments(forest, X, groups), out, 2)
    block = out[:, :G, :G] / Z.shape[0]
    diagonal = np.arange(G)
    phi = block[:, diagonal, diagonal].copy()
    block[:, diagonal, diagonal] = 0.0
    block[:, diagonal, diagonal] = phi - block.sum(axis=2)
    for i in range(X.shape[0]):
        expected = interaction_reference(forest, np.ones(len(forest)), X[i], Z, D, groups=groups)
        np.testing.assert_allclose(block[i], expected[:G, :G], **TOL)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(node_trees(D), oblivious_trees(D)), min_size=1, max_size=3), st.lists(rows, min_size=1,
       max_size=3), st.lists(rows, min_size=1, max_size=3), st.lists(st.integers(0, 3), min_size=D, max_size=D),
       st.sampled_from([1, 2]))
def test_grouped_players_of_node_and_oblivious_forests(forest, xs, zs, groups, n_threads):
    """``player`` of the Python side: node forests walked, oblivious ones by cells (a level's player looked up),
    against the coalitions of groups; rows summing to the grouped interventional values."""
    X, Z = np.array(xs, dtype=float), np.array(zs, dtype=float)
    labels = np.unique(groups, return_inverse=True)[1]
    G = int(labels.max()) + 1
    alphas = np.linspace(0.5, 1.5, len(forest))
    Phi = forest_interventional_interactions(forest, alphas, X, Z, n_threads, player=labels)
    assert Phi.shape == (X.shape[0], G + 1, G + 1)
    for i in range(X.shape[0]):
        np.testing.assert_allclose(Phi[i], interaction_reference(forest, alphas, X[i], Z, D, groups=labels), **TOL)
    np.testing.assert_allclose(Phi.sum(axis=2), forest_interventional(forest, alphas, X, Z, player=labels), **TOL)


# ----------------------------------------------------------------------------------------------------------------
# Invariants and edges
# ----------------------------------------------------------------------------------------------------------------

def test_a_background_row_equal_to_the_row_gives_zeros_but_the_bias():
    rng = np.random.default_rng(0)
    forest = [TreeRanker([0, 1, -1, -1, 2, -1, -1], [0.0, 0.5, 0, 0, -0.5, 0, 0], [1, 0, 0, 0, 1, 0, 0],
                         [1, 2, -1, -1, 5, -1, -1], [4, 3, -1, -1, 6, -1, -1], [0, 0, 1.5, -2.0, 0, 0.25, 3.0],
                         [0.0] * 7),
              ObliviousTreeRanker([2, 0], [0.0, 0.5], [1, 0], [1.0, -1.0, 2.0, 0.5], [0.0, 0.0])]
    X = np.round(rng.normal(size=(20, 3)) * 2) / 2
    X[::4, 1] = np.nan
    for trees in (forest, forest[1:]):                    # a mixed forest (walked), an oblivious one (cells)
        for i in range(X.shape[0]):
            Phi = forest_interventional_interactions(trees, [1.0] * len(trees), X[i:i + 1], X[i:i + 1])
            assert np.all(Phi[0, :3, :] == 0.0) and np.all(Phi[0, :, :3] == 0.0)
            assert Phi[0, 3, 3] == sum(t.predict(X[i:i + 1])[0] for t in trees)


def test_a_deep_chain_of_distinct_features_adds_up():
    """A chain of 40 splits on 40 features (node k: feature k, its left child a leaf of value k + 1): x and z part
    on every other feature (a + b up to 20); symmetric, each row of Φ the interventional value, the total f(x), and
    the features x shares with z (dummies) a zero row and column."""
    depth = 40
    chain, x, Z = chain_tree(depth)
    Phi = forest_interventional_interactions([chain], [1.0], x, Z)
    np.testing.assert_array_equal(Phi, np.swapaxes(Phi, 1, 2))
    np.testing.assert_allclose(Phi[0].sum(axis=1)[:depth], forest_interventional([chain], [1.0], x, Z)[0, :depth],
                               rtol=1e-12, atol=1e-12)
    assert Phi[0].sum() == pytest.approx(chain.predict(x)[0], abs=1e-12)
    assert Phi[0, -1, -1] == chain.predict(Z)[0] == 1.0
    assert np.all(Phi[0, 1:depth:2, :] == 0.0) and np.all(Phi[0, :, 1:depth:2] == 0.0)
    assert np.count_nonzero(Phi[0, 0:depth:2, 0:depth:2]) == 20 * 20


@pytest.mark.parametrize("kind", ["tree", "oblivious_tree"])
def test_trees_that_are_one_leaf_and_no_trees(kind):
    X = np.arange(12.0).reshape(4, 3)
    if kind == "tree":
        leaves = [TreeRanker([-1], [0.0], [0], [-1], [-1], [v], [0.0]) for v in (0.5, -2.0)]
    else:
        leaves = [ObliviousTreeRanker([], [], [], [v], []) for v in (0.5, -2.0)]
    Phi = forest_interventional_interactions(leaves, [1.5, 0.25], X, X[:2])
    assert np.all(Phi[:, :3, :] == 0.0) and np.all(Phi[:, :, :3] == 0.0)
    np.testing.assert_allclose(Phi[:, 3, 3], 1.5 * 0.5 - 0.25 * 2.0)
    assert np.all(forest_interventional_interactions([], [], X, X[:1]) == 0.0)
    assert forest_interventional_interactions(leaves, [1.0, 1.0], X[:0], X[:1]).shape == (0, 4, 4)


@pytest.mark.parametrize("oblivious", [False, True])
def test_threads_do_not_change_a_bit(oblivious, exact_threads):
    """Really 2 and 3 threads, with work enough for the kernels to use them (rows × background × trees, cells ×
    cells over ``threads_for``'s 4,096)."""
    exact_threads(3)
    rng = np.random.default_rng(1)
    d = 6
    if oblivious:
        forest = [ObliviousTreeRanker(rng.integers(0, d, 7), rng.choice([-0.5, 0.0, 0.5], 7), rng.integers(0, 2, 7),
                                      rng.normal(size=128), [0.0] * 7) for _ in range(6)]
    else:
        forest = [TreeRanker(*_random_arrays(rng, d)) for _ in range(6)]
    X = np.round(rng.normal(size=(150, d)) * 2) / 2
    X[rng.random(X.shape) < 0.1] = np.nan
    Z = X[100:140]
    alphas = rng.uniform(0.5, 1.5, len(forest))
    one = forest_interventional_interactions(forest, alphas, X[:120], Z, 1)
    for k in (2, 3):
        np.testing.assert_array_equal(forest_interventional_interactions(forest, alphas, X[:120], Z, k), one)
    alone = np.vstack([forest_interventional_interactions(forest, alphas, X[i:i + 1], Z, 2) for i in (0, 61, 119)])
    np.testing.assert_array_equal(alone, one[[0, 61, 119]])         # nor do the other rows


def _random_arrays(rng, d, depth=6):
    """A complete node tree of ``depth`` on random features and grid thresholds (the arrays of ``TreeRanker``)."""
    n_internal = (1 << depth) - 1
    n = 2 * n_internal + 1
    left = np.full(n, -1)
    right = np.full(n, -1)
    left[:n_internal] = 2 * np.arange(n_internal) + 1
    right[:n_internal] = 2 * np.arange(n_internal) + 2
    feature = np.where(left >= 0, rng.integers(0, d, n), 0)
    threshold = np.where(left >= 0, rng.choice([-0.5, 0.0, 0.5], n), 0.0)
    value = np.where(left >= 0, 0.0, rng.normal(size=n))
    return feature, threshold, rng.integers(0, 2, n), left, right, value, np.zeros(n)


# ----------------------------------------------------------------------------------------------------------------
# Refusals
# ----------------------------------------------------------------------------------------------------------------

def test_bad_inputs_are_refused():
    tree = TreeRanker([1, -1, -1], [0.0, 0, 0], [1, 0, 0], [1, -1, -1], [2, -1, -1], [0, 1.0, 2.0], [0.0] * 3)
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="background: expected at least 1 row of the 2 columns of X"):
        forest_interventional_interactions([tree], [1.0], X, np.zeros((0, 2)))
    with pytest.raises(ValueError, match="background: expected at least 1 row of the 2 columns of X"):
        forest_interventional_interactions([tree], [1.0], X, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="X: the trees split feature 1, X has 1 columns"):
        forest_interventional_interactions([tree], [1.0], X[:, :1], X[:1, :1])
    with pytest.raises(ValueError, match="over max_bytes=10"):
        forest_interventional_interactions([tree], [1.0], X, X, max_bytes=10)
    with pytest.raises(TypeError, match="feature_interactions: weak ranker 1 is a SimpleNamespace"):
        forest_interventional_interactions([tree, SimpleNamespace(kind="stump")], [1.0, 1.0], X, X)
    oblivious = ObliviousTreeRanker([1], [0.0], [0], [1.0, 2.0], [0.0])
    with pytest.raises(ValueError, match="X: the trees split feature 1, X has 1 columns"):
        forest_interventional_interactions([oblivious], [1.0], X[:, :1], X[:1, :1])


def test_the_kernels_refuse_inconsistent_arguments():
    tree = TreeRanker([1, -1, -1], [0.0, 0, 0], [1, 0, 0], [1, -1, -1], [2, -1, -1], [0, 1.0, 2.0], [0.0] * 3)
    X = np.zeros((2, 2))
    arguments = _group_arguments([tree], X, [0, 1])
    with pytest.raises(ValueError, match="column 1's player 2 outside 0..1"):
        kernel.interventional_interactions(X, X, np.array([0, 2], dtype=np.int32), *arguments[1:],
                                           np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="Z and player must have the 2 columns of X"):
        kernel.interventional_interactions(X, np.zeros((1, 3)), *arguments, np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match=r"out must have shape \(2, G, G\)"):
        kernel.interventional_interactions(X, X, *arguments, np.zeros((2, 3, 2)))
    table = np.zeros((2, 1, 1))
    with pytest.raises(ValueError, match="distinct and ascending"):
        kernel.oblivious_interventional_interactions(np.array([0], dtype=np.int32), np.arange(2.0), 1.0,
                                                     np.array([1, 1], dtype=np.intp), np.ones(2), subset_weights(1),
                                                     table)
    with pytest.raises(ValueError, match="level 0's player 1 outside 0..0"):
        kernel.oblivious_interventional_interactions(np.array([1], dtype=np.int32), np.arange(2.0), 1.0,
                                                     np.array([0, 1], dtype=np.intp), np.ones(2), subset_weights(1),
                                                     table)

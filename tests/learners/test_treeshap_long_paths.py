"""TreeSHAP and SHAP interaction values on paths of many distinct features (chains of 60-250 splits, as one-hot
data grows them leaf-wise) against an exact reference that shares no arithmetic with Algorithm 2.

The reference is Owen's multilinear extension ("Multilinear extensions of games", 1972): a leaf's value under
the path-dependent value function is multilinear in the features' "known" indicators, with the factor
q·one + (1 − q)·zero for each feature on its path (a feature split twice: the products of its fractions), so the
Shapley value of i is Σ_leaves value · (one_i − zero_i) · ∫_0^1 Π_{e≠i} (zero_e (1 − t) + one_e t) dt and the
interaction index of i ≠ j (Grabisch, Marichal & Roubens, "Equivalent representations of set functions", 2000) the
same integral over e ∉ {i, j} times (one_i − zero_i)(one_j − zero_j).  The integrands are polynomials of degree
< path length, integrated exactly by Gauss-Legendre nodes; every term is a product of positive factors with
positive weights, so the reference is accurate to rounding at any length.
"""

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import pytest

from rankcore.learners.trees._contributions import forest_contributions, node_form
from rankcore.learners.trees._interaction_values import forest_interactions
from rankcore.learners.trees._ranker import TreeRanker, predict_forest
from rankcore.push import PushBoost


def _chain(n_splits, rng, repeats=False, skewed=False) -> TreeRanker:
    """Node 2k splits on feature k (or a random one of n_splits // 2 with ``repeats``): left a leaf, right the rest;
    leaf covers uniform in [1, 100) or, ``skewed``, 1 or 10^6."""
    n = 2 * n_splits + 1
    feature = np.full(n, -1, np.int32)
    left = np.full(n, -1, np.int32)
    right = np.full(n, -1, np.int32)
    value = np.zeros(n)
    for k in range(n_splits):
        i = 2 * k
        feature[i] = rng.integers(0, n_splits // 2) if repeats else k
        left[i], right[i] = i + 1, i + 2
    value[left < 0] = rng.normal(size=n_splits + 1)
    cover = np.zeros(n)
    for i in range(n - 1, -1, -1):
        if left[i] >= 0:
            cover[i] = cover[left[i]] + cover[right[i]]
        else:
            cover[i] = rng.choice([1.0, 1e6]) if skewed else rng.uniform(1, 100)
    return TreeRanker(feature, np.zeros(n), np.zeros(n, np.uint8), left, right, value, np.zeros(n), cover=cover)


def _leaf_paths(tree, x):
    """(value, {feature: (zero, one)}) of every leaf: the products of each feature's fractions on the way down."""
    stack = [(0, {})]
    while stack:
        k, shares = stack.pop()
        if tree.left[k] < 0:
            yield float(tree.value[k]), shares
            continue
        j = int(tree.feature[k])
        hot = int(tree.right[k]) if x[j] > tree.threshold[k] else int(tree.left[k])
        for child in (int(tree.left[k]), int(tree.right[k])):
            zero, one = shares.get(j, (1.0, 1.0))
            below = dict(shares)
            below[j] = (zero * tree.cover[child] / tree.cover[k], one * (child == hot))
            stack.append((child, below))


@lru_cache(maxsize=None)
def _gauss_legendre(n_nodes):
    """Nodes and weights on [0, 1], exact for polynomials of degree < 2 n_nodes."""
    nodes, weights = np.polynomial.legendre.leggauss(n_nodes)
    return (nodes + 1) / 2, weights / 2


def _owen_reference(tree, x, d):
    """(d + 1,) SHAP values and (d + 1, d + 1) interaction values of one tree at x (expected value last)."""
    phi, Phi = np.zeros(d + 1), np.zeros((d + 1, d + 1))
    for value, shares in _leaf_paths(tree, x):
        features = np.array(list(shares), dtype=np.int64)
        zero, one = np.array(list(shares.values())).T
        phi[d] += value * np.prod(zero)
        if features.size == 0:
            continue
        t, weights = _gauss_legendre(features.size // 2 + 2)
        factor = zero[:, None] * (1 - t) + one[:, None] * t           # (m, Q), all > 0 on (0, 1)
        product = np.exp(np.log(factor).sum(axis=0))
        ratio = (one - zero)[:, None] / factor
        phi[features] += value * ratio @ (weights * product)
        pair = value * 0.5 * (ratio * (weights * product)) @ ratio.T
        np.fill_diagonal(pair, 0.0)
        Phi[np.ix_(features, features)] += pair
    Phi[np.arange(d), np.arange(d)] = phi[:d] - Phi[:d, :d].sum(axis=1)
    Phi[d, d] = phi[d]
    return phi, Phi


def _rows(rng, d):
    """All right (the deepest leaf), a mix, and mostly right with a few left turns."""
    return np.stack([np.ones(d), np.where(rng.random(d) < 0.5, 1.0, -1.0), np.where(rng.random(d) < 0.95, 1.0, -1.0)])


CHAINS = [(60, False, False), (120, False, True), (250, False, False), (250, True, False), (250, False, True)]


@pytest.mark.parametrize("n_splits, repeats, skewed", CHAINS)
def test_long_chains_give_exact_shap_values(n_splits, repeats, skewed):
    rng = np.random.default_rng(n_splits + 2 * repeats + skewed)
    tree = _chain(n_splits, rng, repeats, skewed)
    X = _rows(rng, n_splits)
    C = forest_contributions([tree], [1.0], X)
    for r in range(X.shape[0]):
        phi, _ = _owen_reference(tree, X[r], n_splits)
        np.testing.assert_allclose(C[r], phi, rtol=0, atol=1e-12 * np.abs(phi).sum())
    np.testing.assert_allclose(C.sum(axis=1), predict_forest([tree], np.ones(1), X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_splits, repeats, skewed", [(60, False, False), (100, True, True), (120, False, False)])
def test_long_chains_give_exact_interaction_values(n_splits, repeats, skewed):
    rng = np.random.default_rng(n_splits)
    tree = _chain(n_splits, rng, repeats, skewed)
    X = _rows(rng, n_splits)
    Phi = forest_interactions([tree], [1.0], X, max_bytes=None)
    np.testing.assert_allclose(Phi.sum(axis=2), forest_contributions([tree], [1.0], X), rtol=0, atol=1e-14)
    for r in range(X.shape[0]):
        _, reference = _owen_reference(tree, X[r], n_splits)
        np.testing.assert_allclose(Phi[r], reference, rtol=0, atol=1e-12 * np.abs(reference).sum())


def test_one_hot_data_with_many_leaves_sums_to_the_scores():
    """One long-tailed categorical one-hot encoded: leaf-wise trees of 127 leaves grow chains of ~100 splits."""
    rng = np.random.default_rng(0)
    n, k = 4000, 200
    cat = rng.zipf(1.3, size=n) % k
    X = np.zeros((n, k))
    X[np.arange(n), cat] = 1.0
    y = (rng.normal(size=k)[cat] + rng.normal(size=n) * 0.5 > 0).astype(int)
    est = PushBoost(learner="trees:max_leaves=127,min_samples_leaf=1", n_iter=2, random_state=0).fit(X, y)
    assert max(int(np.unique(t.feature[t.left >= 0]).size) for t in est.rankers_) > 60
    rows = X[:3]
    score = est.decision_function(rows)
    np.testing.assert_allclose(est.feature_contributions(rows).sum(axis=1), score, rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.feature_interactions(rows).sum(axis=(1, 2)), score, rtol=0, atol=1e-12)


def test_deep_oblivious_trees_give_exact_values():
    """Oblivious trees of depth 14 (paths longer than the ones Algorithm 2's recurrence divides)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 16))
    y = (X[:, :8].sum(axis=1) + rng.normal(size=3000) > 0).astype(int)
    est = PushBoost(learner="trees:growth=oblivious,max_depth=14,min_samples_leaf=1", n_iter=1,
                    random_state=0).fit(X, y)
    tree = est.rankers_[0]
    assert tree.depth == 14 and np.unique(tree.feature).size > 12
    node = SimpleNamespace(**node_form(tree))
    rows = X[:4]
    C = est.feature_contributions(rows)
    Phi = est.feature_interactions(rows)
    for r in range(rows.shape[0]):
        phi, reference = _owen_reference(node, rows[r], 16)
        alpha = est.alphas_[0]
        np.testing.assert_allclose(C[r], alpha * phi, rtol=0, atol=1e-12 * np.abs(alpha * phi).sum())
        np.testing.assert_allclose(Phi[r], alpha * reference, rtol=0, atol=1e-12 * np.abs(alpha * reference).sum())

"""Exact Shapley values of tree ensembles by enumerating feature subsets (the reference of ``_treeshap.pyx``).

The value of a subset S is the path-dependent conditional expectation (Algorithm 1, EXPVALUE, of Lundberg,
Erion & Lee, "Consistent individualized feature attribution for tree ensembles", 2018): a split on a feature
of S follows x, a split on another feature averages its children weighted by their covers.  Exponential in
the number of features a tree splits on: for small trees only.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _goes_left(x: float, threshold: float, nan_left: bool, categories) -> bool:
    if math.isnan(x):
        return bool(nan_left)
    if categories is not None:
        return bool(np.isin(x, categories))
    return not x > threshold


def _tree_value(tree, x, S, k=0) -> float:
    """EXPVALUE of a node tree (``TreeRanker``) at node k."""
    if tree.left[k] < 0:
        return float(tree.value[k])
    a, b = int(tree.left[k]), int(tree.right[k])
    j = int(tree.feature[k])
    if j in S:
        left = _goes_left(x[j], tree.threshold[k], tree.nan_left[k], tree.categories[k])
        return _tree_value(tree, x, S, a if left else b)
    return (tree.cover[a] * _tree_value(tree, x, S, a) + tree.cover[b] * _tree_value(tree, x, S, b)) / tree.cover[k]


def _oblivious_value(tree, x, S, level=0, cell=0) -> float:
    """EXPVALUE of an oblivious tree below the node of ``level`` whose cells agree with ``cell`` on bits < level."""
    depth = tree.depth
    if level == depth:
        return float(tree.value[cell])
    j = int(tree.feature[level])
    right = cell + (1 << level)
    if j in S:
        left = _goes_left(x[j], tree.threshold[level], tree.nan_left[level], None)
        return _oblivious_value(tree, x, S, level + 1, cell if left else right)
    step = 1 << (level + 1)
    c_left = float(np.sum(tree.cover[cell::step]))
    c_right = float(np.sum(tree.cover[right::step]))
    return ((c_left * _oblivious_value(tree, x, S, level + 1, cell)
             + c_right * _oblivious_value(tree, x, S, level + 1, right)) / (c_left + c_right))


def tree_value(tree, x, S) -> float:
    """v_x(S) of one tree."""
    return _oblivious_value(tree, x, S) if tree.kind == "oblivious_tree" else _tree_value(tree, x, S)


def _used(tree) -> list[int]:
    if tree.kind == "oblivious_tree":
        return sorted({int(j) for j in tree.feature})
    return sorted({int(j) for j in tree.feature[tree.left >= 0]})


def shapley_reference(rankers, alphas, x, n_features: int) -> np.ndarray:
    """(n_features + 1,): Σ_t α_t φ_t(x) by enumerating the subsets of each tree's features, then Σ_t α_t v_t(∅).
    """
    phi = np.zeros(n_features + 1)
    for tree, alpha in zip(rankers, alphas):
        used = _used(tree)
        M = len(used)
        for j in used:
            others = [i for i in used if i != j]
            for size in range(M):
                weight = math.factorial(size) * math.factorial(M - size - 1) / math.factorial(M)
                for S in itertools.combinations(others, size):
                    S = set(S)
                    phi[j] += alpha * weight * (tree_value(tree, x, S | {j}) - tree_value(tree, x, S))
        phi[n_features] += alpha * tree_value(tree, x, set())
    return phi

"""Exact SHAP interaction values of tree ensembles by enumerating feature subsets (the reference of
``_shap_interactions.pyx``).

With the path-dependent value function v_x(S) of ``_treeshap_reference.py``, the Shapley interaction index of
features i ≠ j (Grabisch & Roubens, "An axiomatic approach to the concept of interaction among players in
cooperative games", 1999) is Σ_{S ⊆ N∖{i,j}} |S|! (|N| − |S| − 2)! / (|N| − 1)! · (v(S ∪ {i,j}) − v(S ∪ {i}) −
v(S ∪ {j}) + v(S)); Φ_ij = Φ_ji is half of it, the diagonal Φ_ii = φ_i − Σ_{j≠i} Φ_ij (Lundberg et al., "From
local explanations to global understanding with explainable AI for trees", 2020), the expected value at (d, d).
Each tree is enumerated over its own features (a feature it does not split on changes none of its values).
Exponential in the number of features a tree splits on: for small trees only.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from _treeshap_reference import _used, shapley_reference, tree_value


def interaction_reference(rankers, alphas, x, n_features: int) -> np.ndarray:
    """(n_features + 1, n_features + 1): Σ_t α_t Φ_t(x) by enumerating coalitions, the expected value last."""
    out = np.zeros((n_features + 1, n_features + 1))
    for tree, alpha in zip(rankers, alphas):
        used = _used(tree)
        M = len(used)
        for i, j in itertools.combinations(used, 2):
            others = [k for k in used if k not in (i, j)]
            total = 0.0
            for size in range(M - 1):
                weight = math.factorial(size) * math.factorial(M - size - 2) / math.factorial(M - 1)
                for S in map(set, itertools.combinations(others, size)):
                    total += weight * (tree_value(tree, x, S | {i, j}) - tree_value(tree, x, S | {i})
                                       - tree_value(tree, x, S | {j}) + tree_value(tree, x, S))
            out[i, j] += alpha * total / 2
            out[j, i] += alpha * total / 2
    phi = shapley_reference(rankers, alphas, x, n_features)
    for i in range(n_features):
        out[i, i] = phi[i] - (out[i, :n_features].sum() - out[i, i])
    out[n_features, n_features] = phi[n_features]
    return out

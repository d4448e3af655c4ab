"""Exact interventional Shapley values of tree ensembles by enumerating feature subsets (the reference of
``_treeshap_interventional.pyx``).

For a row x and each background row z, the game is v(S) = h(x_S, z_S̄): the row with x's values on the
features of S and z's elsewhere, scored by the tree's own prediction.  Its Shapley values, by the subsets of the
features the tree splits on, are averaged over the background.  Exponential in those features: small trees only.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _used(tree) -> list[int]:
    if tree.kind == "oblivious_tree":
        return sorted({int(j) for j in tree.feature})
    return sorted({int(j) for j in tree.feature[tree.left >= 0]})


def game_shapley(values: dict, players: list[int]) -> dict:
    """The Shapley value of each player of the game ``values`` (frozenset of players → v), by its definition."""
    M = len(players)
    phi = {}
    for j in players:
        others = [i for i in players if i != j]
        total = 0.0
        for size in range(M):
            weight = math.factorial(size) * math.factorial(M - size - 1) / math.factorial(M)
            for S in itertools.combinations(others, size):
                total += weight * (values[frozenset(S) | {j}] - values[frozenset(S)])
        phi[j] = total
    return phi


def interventional_reference(rankers, alphas, x, background, n_features: int) -> np.ndarray:
    """(n_features + 1,): (1/m) Σ_z Σ_t α_t φ_t(x; z), then (1/m) Σ_z Σ_t α_t h_t(z)."""
    phi = np.zeros(n_features + 1)
    background = np.atleast_2d(np.asarray(background, dtype=np.float64))
    for tree, alpha in zip(rankers, alphas):
        used = _used(tree)
        subsets = [frozenset(S) for size in range(len(used) + 1) for S in itertools.combinations(used, size)]
        for z in background:
            hybrids = np.repeat(z[None, :], len(subsets), axis=0)
            for row, S in zip(hybrids, subsets):
                row[list(S)] = x[list(S)]
            scores = tree.predict(hybrids)
            values = dict(zip(subsets, scores.tolist()))
            for j, value in game_shapley(values, used).items():
                phi[j] += alpha * value / background.shape[0]
            phi[n_features] += alpha * values[frozenset()] / background.shape[0]
    return phi


def cell_values_reference(cells, tables: list, used: list, out: np.ndarray) -> None:
    """The kernel ``add_cell_values`` (``_treeshap.pyx``) in NumPy: tree by tree, each row adds its cell's row of
    the tree's (2^D, U) table to its columns ``used[t]`` -- each entry of ``out`` gets the trees' values added in
    tree order, one addition at a time, as the kernel adds them."""
    for t, (table, columns) in enumerate(zip(tables, used)):
        if columns.shape[0]:
            out[:, np.asarray(columns, dtype=np.intp)] += table[cells[t]]

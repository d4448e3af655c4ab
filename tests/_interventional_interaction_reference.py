"""Exact interventional SHAP interaction values of tree ensembles by enumerating coalitions (the reference of
``_treeshap_interventional_interactions.pyx``), and of any scoring function (the whole model's game).

For a row x and a background row z the game is v(S) = h(x_S, z_S̄), S a set of players (a player owns one or
more columns: ``groups``, each column its own player by default), scored by the tree's own prediction.  The pair
i ≠ j gets half the Shapley interaction index Σ_{S ⊆ N∖{i,j}} |S|! (M − |S| − 2)! / (M − 1)! · (v(S ∪ {i,j}) −
v(S ∪ {i}) − v(S ∪ {j}) + v(S)) (Grabisch & Roubens 1999), the diagonal φ_i − Σ_{j≠i} Φ_ij with φ the Shapley
values, the background's mean score at the last diagonal entry; everything averaged over the background.
Exponential in the players: small trees only.  Independent of the kernel: no leaf games, no closed forms.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _shapley_matrix(values: dict, players: list[int], size: int) -> np.ndarray:
    """(size, size): Φ of the game ``values`` (frozenset of players → v) on ``players``, by the definitions."""
    M = len(players)
    out = np.zeros((size, size))
    for i, j in itertools.combinations(players, 2):
        others = [k for k in players if k not in (i, j)]
        total = 0.0
        for s in range(M - 1):
            weight = math.factorial(s) * math.factorial(M - s - 2) / (2 * math.factorial(M - 1))
            for S in map(frozenset, itertools.combinations(others, s)):
                total += weight * (values[S | {i, j}] - values[S | {i}] - values[S | {j}] + values[S])
        out[i, j] = out[j, i] = total
    for i in players:
        others = [k for k in players if k != i]
        phi = 0.0
        for s in range(M):
            weight = math.factorial(s) * math.factorial(M - s - 1) / math.factorial(M)
            for S in map(frozenset, itertools.combinations(others, s)):
                phi += weight * (values[S | {i}] - values[S])
        out[i, i] = phi - (out[i].sum() - out[i, i])
    return out


def _game(score, x: np.ndarray, z: np.ndarray, players: list[int], owner: np.ndarray) -> dict:
    """v(S) = score(x on the columns of S's players, z elsewhere) for every S ⊆ players."""
    subsets = [frozenset(S) for s in range(len(players) + 1) for S in itertools.combinations(players, s)]
    hybrids = np.repeat(z[None, :], len(subsets), axis=0)
    for row, S in zip(hybrids, subsets):
        mask = np.isin(owner, list(S))
        row[mask] = x[mask]
    return dict(zip(subsets, np.asarray(score(hybrids), dtype=np.float64).tolist()))


def _used_columns(tree) -> list[int]:
    if tree.kind == "oblivious_tree":
        return sorted({int(j) for j in tree.feature})
    return sorted({int(j) for j in tree.feature[tree.left >= 0]})


def interaction_reference(rankers, alphas, x, background, n_columns: int, groups=None) -> np.ndarray:
    """(G + 1, G + 1): (1/m) Σ_z Σ_t α_t Φ_t(x; z), the mean of Σ_t α_t h_t(z) at (G, G); ``groups[j]``: column
    j's player (None: column j is player j)."""
    owner = np.arange(n_columns) if groups is None else np.asarray(groups)
    G = int(owner.max()) + 1 if owner.size else 0
    background = np.atleast_2d(np.asarray(background, dtype=np.float64))
    out = np.zeros((G + 1, G + 1))
    for tree, alpha in zip(rankers, alphas):
        players = sorted({int(owner[j]) for j in _used_columns(tree)})
        for z in background:
            values = _game(tree.predict, x, z, players, owner)
            out[:G, :G] += alpha * _shapley_matrix(values, players, G) / background.shape[0]
            out[G, G] += alpha * values[frozenset()] / background.shape[0]
    return out


def model_interaction_reference(score, x: np.ndarray, background: np.ndarray) -> np.ndarray:
    """(d + 1, d + 1): the values of the whole model's game v(S) = mean_k score(x_S, z_k,S̄) over all d columns
    (``score``: e.g. ``decision_function``, so whatever the estimator adds or routes is in the game).  O(m · 2^d)
    scores, O(m · d² · 2^d) arithmetic."""
    d = x.shape[0]
    out = np.zeros((d + 1, d + 1))
    for z in np.atleast_2d(background):
        values = _game(score, x, z, list(range(d)), np.arange(d))
        out[:d, :d] += _shapley_matrix(values, list(range(d)), d)
        out[d, d] += values[frozenset()]
    return out / np.atleast_2d(background).shape[0]


def main_effects_reference(out: np.ndarray, m: int) -> None:
    """The kernel ``main_effects`` in NumPy (the steps it replaced in ``_interventional_interactions.py``): the
    (n, G + 1, G + 1) sums' player block divided by m, each diagonal entry φ_p replaced by φ_p − Σ_{q≠p} Φ_pq."""
    G = out.shape[1] - 1
    block = out[:, :G, :G]
    block /= m
    diagonal = np.arange(G)
    phi = block[:, diagonal, diagonal].copy()
    block[:, diagonal, diagonal] = 0.0
    block[:, diagonal, diagonal] = phi - block.sum(axis=2)


def cells_reference(X: np.ndarray, feature, threshold, nan_left) -> np.ndarray:
    """(n,) each row's cell in the oblivious tree of these levels, by the NumPy steps the kernel ``oblivious_cells``
    replaced (``_cells`` of ``_interventional.py``): bit l set iff x[feature[l]] > threshold[l], NaN iff not
    nan_left[l]."""
    cell = np.zeros(X.shape[0], dtype=np.int64)
    for level in range(len(feature)):
        v = X[:, int(feature[level])]
        right = np.where(np.isnan(v), not bool(nan_left[level]), v > threshold[level])
        cell |= right.astype(np.int64) << level
    return cell


def cell_blocks_reference(cells, slots, tables, used, out: np.ndarray) -> None:
    """The kernel ``add_cell_blocks`` in NumPy: tree by tree, each row whose cell has a block (slot >= 0) adds it to
    its used players' rows and columns of ``out`` (``tables[t]``: (k_t, U_t, U_t))."""
    for cell, slot, table, players in zip(cells, slots, tables, used):
        if not len(players):
            continue
        index = np.ix_(players, players)
        for r, s in enumerate(slot[cell]):
            if s >= 0:
                out[r][index] += table[s]

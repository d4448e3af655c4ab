"""Interventional SHAP interaction values of a forest of trees (``_treeshap_interventional_interactions.pyx``).

For the score f(x) = Σ_t α_t h_t(x), a row x and background rows z_1..z_m,
the game is that of the interventional SHAP values (``_interventional.py``):
v(S) = (1/m) Σ_k f(x_S, z_k,S̄), the features of S taking x's values and
the others z_k's.  The pair i ≠ j gets half its Shapley interaction index

    Φ_ij = Φ_ji = Σ_{S ⊆ N∖{i,j}} |S|! (|N| − |S| − 2)! / (2 (|N| − 1)!) · ∇_ij(S),
    ∇_ij(S) = v(S ∪ {i,j}) − v(S ∪ {i}) − v(S ∪ {j}) + v(S)

(Grabisch & Roubens, "An axiomatic approach to the concept of interaction
among players in cooperative games", 1999), the diagonal the main effects
Φ_ii = φ_i − Σ_{j≠i} Φ_ij for the interventional SHAP values φ, so row i
sums to φ_i and the matrix to f(x) (Lundberg et al., "From local
explanations to global understanding with explainable AI for trees", Nature
Machine Intelligence 2020).  The layout is the path-dependent
``feature_interactions``' (``_interaction_values.py``): the bias -- here
v(∅) = (1/m) Σ_k f(z_k) -- at (d, d), zeros in the rest of the last row and
column.  The trees need no covers.

With a player map (``player[j]`` ∈ 0..G−1: the group of column j) the
players are groups of columns that take x's values or z's together, as in
``_interventional.py``: the matrix is (G + 1) × (G + 1), Φ of the game over
sets of the G players (not sums of its columns' entries, those of another
game); without one, every column is its own player (G = d).
"""

from __future__ import annotations

import numpy as np

from ...validation import INTERACTION_MAX_BYTES, check_finite_scores, check_interaction_size
from . import _treeshap_interventional_interactions as _kernel
from ._contributions import (BATCH_NODES, CELL_ENTRIES, batches, cell_levels, concatenated, shap_row_blocks,
                             starts)
from ._interventional import _categories, _form_depth, _scores, _walk_arguments, checked_inputs, subset_weights

__all__ = ["forest_interventional_interactions"]


def forest_interventional_interactions(rankers, alphas, X, background, n_threads: int = 1, *,
                                       max_bytes=INTERACTION_MAX_BYTES,
                                       owner: str = "feature_interactions", player=None) -> np.ndarray:
    """(n, d + 1, d + 1) float64: each row's interventional SHAP interaction values of Σ_t α_t h_t(x) against the
    ``background`` rows, E_z f(z) at (d, d); with a ``player`` map ((d,) integer labels 0..G−1, each used)
    (n, G + 1, G + 1): the players' values, E_z f(z) at (G, G).

    ``X`` and ``background`` (m >= 1 rows of X's d columns) as
    :func:`~._interventional.forest_interventional` reads them.  Each
    matrix is symmetric (bit for bit), its rows sum to the interventional
    SHAP values and its total to f(x) (up to rounding).  O(n · m · Σ_t (V_t
    + P_t · D_t) + n · d²) time, V_t ≤ the nodes of tree t reached by a
    pair's hybrid rows, P_t ≤ V_t those where the pair parts; a forest of
    oblivious trees takes O(Σ_t k_t · C_t · (V_t + P_t · D_t) + n · Σ_t (D_t
    + U_t²)) for k_t ≤ min(n, 2^D_t) cells of the rows, C_t ≤ min(m, 2^D_t)
    of the background and U_t distinct features, plus O(n · d²) for the
    main effects (``main_effects``); all parallel over rows (``n_threads``),
    the values independent of the thread count.  Memory: the output,
    O(n · d + m · d), O(BATCH_NODES) for a batch of trees (an oblivious
    tree's table: k_t · U_t² ≤ n · U_t² values) and for a batch of oblivious
    trees its rows' and background's cells ((n + m) int32 a tree, about
    :data:`CELL_ENTRIES` at most, each row's found once); no n × m array.
    A player map costs no more: the same walks, U_t then the tree's distinct
    players.

    Raises
    ------
    ValueError
        The output would take more than ``max_bytes`` (None: no limit);
        ``background`` has no rows, or not X's columns; a tree splits a
        column X does not have; ``player`` is not d labels 0..G−1 each used
        at least once (naming ``groups``).
    TypeError
        A weak ranker is not a tree.
    FloatingPointError
        A value is not finite, naming ``owner``.
    """
    X, Z, players, oblivious = checked_inputs(rankers, X, background, player, owner)
    n, d = X.shape
    G = int(players.max()) + 1 if d else 0
    check_interaction_size(n, G, max_bytes, owner)
    out = np.zeros((n, G + 1, G + 1))
    if not rankers:
        return out
    alphas = np.asarray(alphas, dtype=np.float64)
    if oblivious:
        _add_oblivious(rankers, alphas, X, Z, players, out, n_threads)
    else:
        for first, batch in batches(rankers):
            trees = rankers[first:first + len(batch)]
            arguments = (*_walk_arguments(trees, batch, d), np.ascontiguousarray(alphas[first:first + len(batch)]),
                         *_categories(trees, batch), subset_weights(max(map(_form_depth, batch))))
            # in blocks of rows, between which Ctrl-C is delivered: each row's values are its own, as in one call
            for start, stop in shap_row_blocks(n, Z.shape[0] * sum(m["left"].shape[0] for m in batch)):
                _kernel.interventional_interactions(X[start:stop], Z, players, *arguments, out[start:stop],
                                                    int(n_threads))
    _main_effects(out, Z.shape[0], n_threads)
    out[:, G, G] = np.mean(_scores(rankers, alphas, Z, oblivious))
    return check_finite_scores(out, owner=owner, X=X)


def _main_effects(out: np.ndarray, m: int, n_threads: int) -> None:
    """The kernels' sums over the background divided by m, then each diagonal entry (φ_p) replaced by the main
    effect φ_p − Σ_{q≠p} Φ_pq, so each row of Φ sums to φ_p: the kernel's ``main_effects``, parallel over rows
    (``tests/_interventional_interaction_reference.py`` keeps the NumPy steps it replaced).  O(n · G²)."""
    _kernel.main_effects(out, float(m), int(n_threads))


def _add_oblivious(rankers, alphas: np.ndarray, X: np.ndarray, Z: np.ndarray, players: np.ndarray, out: np.ndarray,
                   n_threads: int) -> None:
    """Add Σ_z Σ_t α_t H_t(x; z) of oblivious trees to ``out``, trees in batches (:func:`_batch_end`): the rows'
    and the background's cells in every tree of the batch, found once (``oblivious_cells``); per tree, the (U, U)
    block of each cell of X's rows against the background's cells, counted (``oblivious_interventional_interactions``),
    then each row's cell's block added (``add_cell_blocks``).  O(Σ_t (k_t · C_t · (V_t + P_t · D_t) + (n + m) · D_t
    + n · U_t²)) time; memory: a batch's cells ((n + m) int32 a tree, at most about :data:`CELL_ENTRIES`) and
    tables (about :data:`BATCH_NODES` entries)."""
    d = X.shape[1]
    top = max((int(r.feature.max()) for r in rankers if r.depth), default=-1)
    if top >= d:
        raise ValueError(f"X: the trees split feature {top}, X has {d} columns")
    weights: dict = {}                     # subset_weights by depth, shared by a call's trees
    used_players = [np.unique(players[r.feature]) for r in rankers]
    first = 0
    while first < len(rankers):
        last = _batch_end(rankers, used_players, first, X.shape[0], Z.shape[0])
        batch = rankers[first:last]
        levels = cell_levels(batch, [], d)          # no features to check: all were above
        x_cells, z_cells = (_kernel_cells(rows, levels, len(batch), n_threads) for rows in (X, Z))
        tables, slots, used = [], [], []
        for t, ranker in enumerate(batch):
            if ranker.depth not in weights:
                weights[ranker.depth] = subset_weights(ranker.depth)
            unique = used_players[first + t]
            table, slot = _cell_table(ranker, float(alphas[first + t]), x_cells[t], z_cells[t], players, unique,
                                      weights[ranker.depth], n_threads)
            tables.append(table.ravel())
            slots.append(slot)
            used.append(unique)
        _kernel.add_cell_blocks(x_cells, concatenated(slots, np.int32), starts(slots),
                                concatenated(tables, np.float64), starts(tables)[:-1], concatenated(used, np.int32),
                                starts(used), out, int(n_threads))
        first = last


def _batch_end(rankers, used_players: list, first: int, n: int, m: int) -> int:
    """The end of the batch of trees from ``first``: trees while their tables' bound (min(n, 2^D) · U² + 2^D
    entries) stays under about :data:`BATCH_NODES` and their cells ((n + m) a tree) under :data:`CELL_ENTRIES`,
    at least one tree (``used_players``: each tree's U players).  The batches only bound memory: each row adds
    the trees' blocks in tree order whatever they are, so the values do not depend on them."""
    last, size, cells = first, 0, 0
    while last < len(rankers) and (last == first or (size < BATCH_NODES and cells + n + m <= CELL_ENTRIES)):
        depth, U = rankers[last].depth, used_players[last].shape[0]
        size += min(n, 1 << depth) * U * U + (1 << depth)
        cells += n + m
        last += 1
    return last


def _kernel_cells(rows: np.ndarray, levels: tuple, T: int, n_threads: int) -> np.ndarray:
    """(T, rows) int32: each row's cell in each of the batch's T trees (``oblivious_cells``, parallel over rows)."""
    cells = np.empty((T, rows.shape[0]), dtype=np.int32)
    _kernel.oblivious_cells(rows, *levels, cells, int(n_threads))
    return cells


def _cell_table(ranker, alpha: float, x_cells: np.ndarray, z_cells: np.ndarray, players: np.ndarray,
                unique: np.ndarray, weight: np.ndarray, n_threads: int) -> tuple[np.ndarray, np.ndarray]:
    """One oblivious tree's (k, U, U) blocks for the k cells of X's rows (their cells ``x_cells``, ascending) and
    each cell's slot among them (2^D, −1 where no row falls); ``z_cells`` the background's cells, ``unique`` the
    tree's U distinct players (ascending), ``weight`` ``subset_weights(D)``.  O(k · C · 2^(D+1) + n + m + 2^D)."""
    cells = 1 << ranker.depth
    x_cells = np.flatnonzero(np.bincount(x_cells, minlength=cells))
    slot = np.full(cells, -1, dtype=np.int32)
    slot[x_cells] = np.arange(x_cells.shape[0], dtype=np.int32)
    table = np.zeros((x_cells.shape[0], unique.shape[0], unique.shape[0]))
    if ranker.depth:
        z_count = np.bincount(z_cells, minlength=cells).astype(np.float64)
        level_player = np.searchsorted(unique, players[ranker.feature]).astype(np.int32)
        _kernel.oblivious_interventional_interactions(
            level_player, np.ascontiguousarray(ranker.value, dtype=np.float64), alpha, x_cells.astype(np.intp),
            z_count, weight, table, int(n_threads))
    return table, slot

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
from ._contributions import BATCH_NODES, batches, cell_levels, concatenated, starts
from ._interventional import (_categories, _cells, _form_depth, _scores, _walk_arguments, checked_inputs,
                             subset_weights)

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
    tree's table: k_t · U_t² ≤ n · U_t² values); no n × m array.  A player
    map costs no more: the same walks, U_t then the tree's distinct players.

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
            _kernel.interventional_interactions(
                X, Z, players, *_walk_arguments(trees, batch, d),
                np.ascontiguousarray(alphas[first:first + len(batch)]), *_categories(trees, batch),
                subset_weights(max(map(_form_depth, batch))), out, int(n_threads))
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
    """Add Σ_z Σ_t α_t H_t(x; z) of oblivious trees to ``out``: per tree, the (U, U) block of each cell of X's rows
    against the background's cells, counted (``oblivious_interventional_interactions``), then each row's cell's
    block added (``add_cell_blocks``), trees in batches of about :data:`BATCH_NODES` table entries."""
    d = X.shape[1]
    top = max((int(r.feature.max()) for r in rankers if r.depth), default=-1)
    if top >= d:
        raise ValueError(f"X: the trees split feature {top}, X has {d} columns")
    first = 0
    while first < len(rankers):
        tables, slots, used, size = [], [], [], 0
        while first + len(tables) < len(rankers) and (not tables or size < BATCH_NODES):
            ranker = rankers[first + len(tables)]
            table, slot, unique = _cell_table(ranker, float(alphas[first + len(tables)]), X, Z, players, n_threads)
            tables.append(table.ravel())
            slots.append(slot)
            used.append(unique)
            size += table.size + slot.size
        batch = rankers[first:first + len(tables)]
        _kernel.add_cell_blocks(X, *cell_levels(batch, [np.unique(r.feature) for r in batch], d),
                                concatenated(slots, np.int32), starts(slots)[:-1], concatenated(tables, np.float64),
                                starts(tables)[:-1], concatenated(used, np.int32), starts(used), out, int(n_threads))
        first += len(tables)


def _cell_table(ranker, alpha: float, X: np.ndarray, Z: np.ndarray, players: np.ndarray,
                n_threads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One oblivious tree's (k, U, U) blocks for the k cells of X's rows (ascending), each cell's slot among them
    (2^D, −1 where no row falls) and its U distinct players (ascending).  O(k · C · 2^(D+1) + (n + m) · D)."""
    unique = np.unique(players[ranker.feature])
    cells = 1 << ranker.depth
    x_cells = np.flatnonzero(np.bincount(_cells(ranker, X), minlength=cells))
    slot = np.full(cells, -1, dtype=np.int32)
    slot[x_cells] = np.arange(x_cells.shape[0], dtype=np.int32)
    table = np.zeros((x_cells.shape[0], unique.shape[0], unique.shape[0]))
    if ranker.depth:
        z_count = np.bincount(_cells(ranker, Z), minlength=cells).astype(np.float64)
        level_player = np.searchsorted(unique, players[ranker.feature]).astype(np.int32)
        _kernel.oblivious_interventional_interactions(
            level_player, np.ascontiguousarray(ranker.value, dtype=np.float64), alpha, x_cells.astype(np.intp),
            z_count, subset_weights(ranker.depth), table, int(n_threads))
    return table, slot, unique

"""Interventional SHAP values of a forest of trees against background rows (``_treeshap_interventional.pyx``).

For the score f(x) = Σ_t α_t h_t(x), a row x and background rows z_1..z_m,
feature j's value is the mean over the background of the Shapley values of
the game in which the features of S take x's values and the others z's:

    φ_j(x) = (1/m) Σ_k Σ_{S ⊆ N∖{j}} |S|! (|N| − |S| − 1)! / |N|! · (f(x_{S∪j}, z_k) − f(x_S, z_k)),

the Shapley values of v(S) = E_z f(x_S, z_S̄) -- the interventional
expectation, which breaks the features' dependence instead of following the
training cover (Janzing, Minorics & Blöbaum, "Feature relevance
quantification in explainable AI: a causal problem", 2020; Lundberg et al.,
"From local explanations to global understanding with explainable AI for
trees", Nature Machine Intelligence 2020).  The last column is v(∅) =
(1/m) Σ_k f(z_k), so each row sums to f(x).  The trees need no covers.

With a player map (``player[j]`` ∈ 0..G−1: the group of column j) the
players are groups of columns that take x's values or z's together, and the
values are the Shapley values of v(S) = E_z f(x_{cols(S)}, z_rest) over
sets S of the G players -- one value per group, exactly (not the sum of its
columns' values, which are those of another game).
"""

from __future__ import annotations

import numpy as np

from ..._background import group_labels
from ...validation import check_finite_scores
from . import _treeshap, _treeshap_interventional
from ._binning import is_sparse
from ._contributions import (BATCH_NODES, CELL_ENTRIES, _NumericNodes, _depth, batches, concatenated,
                             shap_row_blocks, starts, tree_cells)
from ._oblivious_ranker import ObliviousTreeRanker, predict_oblivious_forest
from ._ranker import TreeRanker, _categorical_arrays, predict_forest

__all__ = ["forest_interventional", "checked_inputs", "subset_weights"]

_WALK_ARRAYS = ("feature", "threshold", "nan_left", "left", "right", "value")


def forest_interventional(rankers, alphas, X, background, n_threads: int = 1, *,
                          owner: str = "feature_contributions", player=None) -> np.ndarray:
    """(n, d + 1) float64: each feature's interventional SHAP value of Σ_t α_t h_t(x), then E_z f(z); with a
    ``player`` map ((d,) integer labels 0..G−1, each used) (n, G + 1): each player's value, then E_z f(z).

    ``X`` and ``background`` (m >= 1 rows of X's d columns): the rows as the
    trees read them (dense or CSR, read as their dense forms; NaN routed as
    prediction routes it).  The trees are explained in batches of about
    :data:`~._contributions.BATCH_NODES` nodes, each row's values summed
    over trees in order and background rows in order, then divided by m.
    O(n · m · Σ_t V_t) time, V_t ≤ the nodes of tree t (D_t + 1 for a pair
    of rows that share a leaf); O(n · d + m · d) memory besides the output,
    plus O(BATCH_NODES) for a batch -- no array of n × m pairs.  A player
    map costs nothing more: the same walks, one byte a player per thread.

    Raises
    ------
    ValueError
        ``background`` has no rows, or not X's columns; ``player`` is not
        d labels 0..G−1 each used at least once (naming ``groups``).
    TypeError
        A weak ranker is not a tree.
    FloatingPointError
        A value is not finite, naming ``owner``.
    """
    X, Z, player, oblivious = checked_inputs(rankers, X, background, player, owner)
    n, d = X.shape
    G = int(player.max()) + 1 if d else 0
    # d + 1 columns, G <= d of them the players': add_cell_values writes into an output as wide as X
    out = np.zeros((n, d + 1))
    if not rankers:
        return np.ascontiguousarray(out[:, :G + 1])
    alphas = np.asarray(alphas, dtype=np.float64)
    if oblivious:
        _add_oblivious(rankers, alphas, X, Z, out, n_threads, player)
    else:
        for first, batch in batches(rankers):
            arguments = (*_walk_arguments(rankers[first:first + len(batch)], batch, d),
                         np.ascontiguousarray(alphas[first:first + len(batch)]),
                         *_categories(rankers[first:first + len(batch)], batch),
                         subset_weights(max(map(_form_depth, batch))))
            # in blocks of rows, between which Ctrl-C is delivered: each row's values are its own, as in one call
            for start, stop in shap_row_blocks(n, Z.shape[0] * sum(m["left"].shape[0] for m in batch)):
                _treeshap_interventional.interventional_shap(X[start:stop], Z, *arguments, out[start:stop],
                                                             int(n_threads), player)
    out = np.ascontiguousarray(out[:, :G + 1]) if G < d else out
    out[:, :G] /= Z.shape[0]
    out[:, G] = np.mean(_scores(rankers, alphas, Z, oblivious))
    return check_finite_scores(out, owner=owner, X=X)


def checked_inputs(rankers, X, background, player, owner: str):
    """``(X, Z, player, oblivious)`` of the interventional values and interaction values: X and the background
    dense float64 (Z: at least one row of X's columns), the player map checked (``player`` None: each column its
    own), and whether every tree is oblivious; a TypeError for a weak ranker that is not a tree."""
    X = np.ascontiguousarray(X.toarray() if is_sparse(X) else X, dtype=np.float64)
    Z = np.ascontiguousarray(background.toarray() if is_sparse(background) else background, dtype=np.float64)
    d = X.shape[1]
    if Z.ndim != 2 or Z.shape[0] == 0 or Z.shape[1] != d:
        raise ValueError(f"background: expected at least 1 row of the {d} columns of X, got shape {Z.shape}")
    player = np.arange(d, dtype=np.int32) if player is None else group_labels(player, d)
    for t, ranker in enumerate(rankers):
        if ranker.kind not in (TreeRanker.kind, ObliviousTreeRanker.kind):
            raise TypeError(f"{owner}: weak ranker {t} is a {type(ranker).__name__}; interventional TreeSHAP reads "
                            f"trees only")
    return X, Z, player, all(r.kind == ObliviousTreeRanker.kind for r in rankers)


def _scores(rankers, alphas: np.ndarray, Z: np.ndarray, oblivious: bool) -> np.ndarray:
    """Σ_t α_t h_t(z) of the background rows, as ``predict_sum`` adds them (a forest of both kinds: tree by tree)."""
    if oblivious:
        return predict_oblivious_forest(rankers, alphas, Z, 1)
    if all(r.kind == TreeRanker.kind for r in rankers):
        return predict_forest(rankers, alphas, Z, 1)
    return sum((a * r.predict(Z) for a, r in zip(alphas.tolist(), rankers)), np.zeros(Z.shape[0]))


def _add_oblivious(rankers, alphas: np.ndarray, X: np.ndarray, Z: np.ndarray, out: np.ndarray,
                   n_threads: int, player: np.ndarray) -> None:
    """Add Σ_z Σ_t α_t φ_t(x; z) of oblivious trees to ``out``'s players' columns, trees in batches of about
    :data:`BATCH_NODES` table entries and :data:`CELL_ENTRIES` cells: the rows' and the background's cells in
    every tree of the batch, found once (``oblivious_cells``, parallel over rows); per tree, the values of each
    cell of X's rows against the background's cells, counted (``oblivious_interventional``, each level read as
    its column's player), then each row's cell's values added (``add_cell_values``).  O(Σ_t (k_t · C_t · V_t +
    (n + m) · D_t)) time for k_t ≤ min(n, 2^D_t) cells of rows and C_t ≤ min(m, 2^D_t) of the background; a
    tree's table has one column per player."""
    n, d, m = X.shape[0], X.shape[1], Z.shape[0]
    top = max((int(r.feature.max()) for r in rankers if r.depth), default=-1)
    if top >= d:
        raise ValueError(f"X: the trees split feature {top}, X has {d} columns")
    first = 0
    while first < len(rankers):
        tables, used, size = [], [], 0
        while first + len(tables) < len(rankers) and (not tables or (size < BATCH_NODES
                                                                     and (len(tables) + 1) * (n + m) <= CELL_ENTRIES)):
            ranker = rankers[first + len(tables)]
            used.append(np.unique(player[np.asarray(ranker.feature, dtype=np.intp)]))
            tables.append(np.zeros((1 << ranker.depth, used[-1].shape[0])))
            size += tables[-1].size
        batch = rankers[first:first + len(tables)]
        x_cells, z_cells = tree_cells(batch, X, n_threads), tree_cells(batch, Z, n_threads)
        for t, ranker in enumerate(batch):
            if ranker.depth:
                cells = 1 << ranker.depth
                players = player[np.asarray(ranker.feature, dtype=np.intp)]
                _treeshap_interventional.oblivious_interventional(
                    np.searchsorted(used[t], players).astype(np.int32), np.ascontiguousarray(ranker.value,
                    dtype=np.float64), float(alphas[first + t]),
                    np.flatnonzero(np.bincount(x_cells[t], minlength=cells)).astype(np.intp),
                    np.bincount(z_cells[t], minlength=cells).astype(np.float64), subset_weights(ranker.depth),
                    tables[t], int(n_threads))
        _treeshap.add_cell_values(x_cells, concatenated([t.ravel() for t in tables], np.float64),
                                  starts([t.ravel() for t in tables])[:-1], concatenated(used, np.int32), starts(used),
                                  out, int(n_threads))
        first += len(tables)


def subset_weights(depth: int) -> np.ndarray:
    """(D + 1, D + 1) float64: W[p, q] = p! q! / (p + q + 1)!, the Shapley weight of a coalition of p of the other
    p + q players, by W[p, 0] = 1 / (p + 1) and W[p, q] = W[p, q − 1] · q / (p + q + 1) (no factorial is formed,
    so deep trees' weights underflow gracefully instead of overflowing).  O(D²)."""
    p = np.arange(depth + 1, dtype=np.float64)[:, None]
    q = np.arange(1, depth + 1, dtype=np.float64)[None, :]
    steps = np.concatenate([1.0 / (p + 1.0), q / (p + q + 1.0)], axis=1)
    return np.ascontiguousarray(np.cumprod(steps, axis=1))


def _form_depth(nodes: dict) -> int:
    """The deepest leaf's depth of a node form (root 0)."""
    return _depth(nodes["left"], nodes["right"])


def _walk_arguments(rankers, nodes: list, d: int) -> tuple:
    """The trees' node arrays (``_WALK_ARRAYS``) concatenated, then their roots; a ``ValueError`` when a tree splits
    a feature beyond X's ``d`` columns."""
    flat = [np.ascontiguousarray(np.concatenate([m[name] for m in nodes])) for name in _WALK_ARRAYS]
    internal = flat[3] >= 0
    if internal.any() and int(flat[0][internal].max()) >= d:
        raise ValueError(f"X: the trees split feature {int(flat[0][internal].max())}, X has {d} columns")
    sizes = np.array([m["left"].shape[0] for m in nodes], dtype=np.intp)
    roots = np.ascontiguousarray(np.r_[0, np.cumsum(sizes)[:-1]], dtype=np.intp)
    return (flat[0].astype(np.int32), flat[1].astype(np.float64), flat[2].astype(np.uint8),
            flat[3].astype(np.int32), flat[4].astype(np.int32), flat[5].astype(np.float64), roots)


def _categories(rankers, nodes: list) -> tuple:
    """The trees' ``is_cat``, ``cat_offset`` and ``cat_values`` (an oblivious tree's nodes all numeric)."""
    sizes = [m["left"].shape[0] for m in nodes]
    return _categorical_arrays([r if r.kind == TreeRanker.kind else _NumericNodes(s) for r, s in zip(rankers, sizes)],
                               int(sum(sizes)))


"""SHAP interaction values of a forest of trees: exact path-dependent TreeSHAP (``_shap_interactions.pyx``).

For the score f(x) = Σ_t α_t h_t(x), the features N and the path-dependent
conditional expectation v_x(S) of ``_contributions.py``, the Shapley
interaction index of features i ≠ j is

    Φ_ij(x) = Σ_{S ⊆ N∖{i,j}} |S|! (|N| − |S| − 2)! / (2 (|N| − 1)!) · ∇_ij(S),
    ∇_ij(S) = v_x(S ∪ {i,j}) − v_x(S ∪ {i}) − v_x(S ∪ {j}) + v_x(S),

split equally between Φ_ij and Φ_ji (the 2 of the denominator); the main
effect is Φ_ii = φ_i − Σ_{j≠i} Φ_ij, so row i sums to feature i's SHAP value
φ_i and the whole matrix to f(x) (Lundberg et al., "From local explanations
to global understanding with explainable AI for trees", Nature Machine
Intelligence 2020; the index: Grabisch & Roubens, "An axiomatic approach to
the concept of interaction among players in cooperative games", 1999).  The last row and column are XGBoost's
``pred_interactions`` layout, which mirrors ``feature_contributions``' last
column: the expected value v(∅) at (d, d), zeros elsewhere.

Φ_ij is computed as (φ_j | x_i known − φ_j | x_i unknown) / 2, TreeSHAP with
feature i conditioned, for each feature a tree splits on.
"""

from __future__ import annotations

import numpy as np

from ...validation import INTERACTION_MAX_BYTES, check_finite_scores, check_interaction_size
from . import _shap_interactions
from ._binning import is_sparse
from ._contributions import (_depth, batches, by_cells, cell_levels, check_explainable, concatenated, expected_value,
                             kernel_arguments, local_features, shap_row_blocks, starts)

__all__ = ["forest_interactions"]

def forest_interactions(rankers, alphas, X, n_threads: int = 1, *, max_bytes=INTERACTION_MAX_BYTES,
                        owner: str = "feature_interactions") -> np.ndarray:
    """(n, d + 1, d + 1) float64: each row's SHAP interaction values of Σ_t α_t h_t(x), the expected value last.

    ``X`` as :func:`~._contributions.forest_contributions` reads it (dense or
    CSR; every tree must carry covers).  Each row's matrix is symmetric, its
    rows sum to the SHAP values and its total to the score (up to rounding).
    O(n · Σ_t (1 + 2 U_t) · L_t · D_t² + n · d²) time for trees of L_t
    leaves, depth D_t and U_t distinct features; oblivious trees whose 2^D
    cells are no more than the rows take O(Σ_t 2^D_t · (1 + 2 U_t) · 2^D_t ·
    D_t² + n · Σ_t (D_t + U_t²) + n · d²), the same values bit for bit.
    Memory: the output, O(n_threads · (D² + d)) scratch and O(BATCH_NODES)
    for a batch of trees (plus 2^D_t · U_t² per oblivious tree's cells).

    Raises
    ------
    ValueError
        The output would take more than ``max_bytes`` (None: no limit), or
        a tree has no covers.
    FloatingPointError
        A value is not finite, naming ``owner``.
    """
    n, d = X.shape
    check_interaction_size(n, d, max_bytes, owner)
    X = X.toarray() if is_sparse(X) else X
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros((n, d + 1, d + 1))
    if not rankers:
        return out
    check_explainable(rankers, owner)
    alphas = np.asarray(alphas, dtype=np.float64)
    explain = _add_cell_blocks if by_cells(rankers, n) else _explain_batch
    expected = 0.0
    for first, batch in batches(rankers):
        explain(rankers[first:first + len(batch)], batch, alphas[first:first + len(batch)], X, out, n_threads)
        for a, m in zip(alphas[first:first + len(batch)].tolist(), batch):
            expected += a * expected_value(m)
    _shap_interactions.finish_interactions(out, d, int(n_threads))
    out[:, d, d] = expected
    return check_finite_scores(out, owner=owner, X=X)


def _explain_batch(rankers, nodes: list, alphas: np.ndarray, X: np.ndarray, out: np.ndarray, n_threads: int) -> None:
    """Add the trees' α-weighted matrices (``tree_interactions``) to each row's block of ``out``, in blocks of rows
    (:func:`~._contributions.shap_row_blocks`), between which Ctrl-C is delivered: each row's values are its own,
    the same whatever the blocks."""
    arguments = kernel_arguments(rankers, nodes, alphas, X.shape[1])
    if arguments[-2].shape[0] == 0:          # no tree splits: every tree is a leaf, its values all 0
        return
    # a row's TreeSHAP takes O(L · D²) steps a tree, once unconditioned and twice per feature the tree splits on
    work = sum((1 + 2 * int(np.unique(m["feature"][m["left"] >= 0]).shape[0])) * int((m["left"] < 0).sum())
               * (_depth(m["left"], m["right"]) + 1) ** 2 for m in nodes)
    for start, stop in shap_row_blocks(X.shape[0], work):
        _shap_interactions.tree_interactions(X[start:stop], *arguments, out[start:stop], int(n_threads))


def _add_cell_blocks(rankers, nodes: list, alphas: np.ndarray, X: np.ndarray, out: np.ndarray,
                     n_threads: int) -> None:
    """:func:`_explain_batch` for oblivious trees: each tree's (U, U) block per cell (``oblivious_cell_interactions``),
    then each row's cell's blocks added (``add_cell_interactions``)."""
    tables, used = [], []
    for ranker, m, alpha in zip(rankers, nodes, alphas.tolist()):
        unique, local = local_features(ranker, m)
        table = np.zeros((1 << ranker.depth, unique.shape[0], unique.shape[0]))
        if unique.shape[0]:
            _shap_interactions.oblivious_cell_interactions(local, m["left"], m["right"], m["value"], m["cover"],
                                                           alpha, ranker.depth, table, int(n_threads))
        tables.append(table.ravel())
        used.append(unique)
    _shap_interactions.add_cell_interactions(X, *cell_levels(rankers, used, X.shape[1]),
                                             concatenated(tables, np.float64), starts(tables)[:-1],
                                             concatenated(used, np.int32), starts(used), out, int(n_threads))

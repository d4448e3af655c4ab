"""Feature contributions of a forest of trees: exact path-dependent TreeSHAP (``_treeshap.pyx``) on node arrays.

For the score f(x) = Σ_t α_t h_t(x) and the features N, feature j's
contribution is its Shapley value

    φ_j(x) = Σ_{S ⊆ N∖{j}} |S|! (|N| − |S| − 1)! / |N|! · (v_x(S ∪ {j}) − v_x(S)),

where v_x(S) = Σ_t α_t E_t[h_t | x_S] is the path-dependent conditional
expectation: down each tree, a split on a feature of S follows x, a split
on another feature averages its children weighted by their covers (the
training rows of the tree's sample that reached them, ``_covers.py``).
The last column is φ_0 = v(∅) = Σ_t α_t Σ_leaves cover·value / root cover,
the same for every row; by the Shapley values' efficiency each row sums to
f(x) (Lundberg, Erion & Lee, "Consistent individualized feature attribution
for tree ensembles", 2018; Lundberg et al., "From local explanations to
global understanding with explainable AI for trees", Nature Machine
Intelligence 2020).

Oblivious trees are walked as the complete binary trees they are (level l's
split at each of its 2^l nodes, the leaves below a node that was not split
sharing its value and its rows): the same v(S), the same values.
"""

from __future__ import annotations

import numpy as np

from ...validation import check_finite_scores
from . import _treeshap, _treeshap_interventional_interactions
from ._binning import is_sparse
from ._oblivious_ranker import ObliviousTreeRanker
from ._ranker import TreeRanker, _categorical_arrays

__all__ = ["forest_contributions", "node_form", "expected_value", "check_explainable", "by_cells", "batches",
           "kernel_arguments", "local_features", "cell_levels", "concatenated", "starts"]

_NODE_ARRAYS = ("feature", "threshold", "nan_left", "left", "right", "value", "cover")


def node_form(ranker) -> dict:
    """The node arrays of a tree (``_NODE_ARRAYS``), an oblivious tree's as its complete binary tree.

    Node (l, k) of level l and cell bits k < 2^l is node 2^l − 1 + k; its
    children are (l + 1, k) on the left and (l + 1, k + 2^l) on the right
    (bit l of the cell: right at level l).  O(2^D) time and memory.  A tree
    without covers (a model file written before they were recorded) gets
    zero covers: enough for the walks that do not read them.
    """
    if ranker.kind == TreeRanker.kind:
        return {name: getattr(ranker, name) for name in _NODE_ARRAYS}
    depth = ranker.depth
    n_internal = (1 << depth) - 1
    level = np.repeat(np.arange(depth), 1 << np.arange(depth))          # each internal node's level, BFS order
    k = np.arange(n_internal) - ((1 << level) - 1)
    left = np.full(n_internal + (1 << depth), -1, dtype=np.int32)
    right = left.copy()
    left[:n_internal] = (1 << (level + 1)) - 1 + k
    right[:n_internal] = left[:n_internal] + (1 << level)
    covers = [np.asarray(ranker.cover if ranker.cover is not None else np.zeros(1 << depth), dtype=np.float64)]
    for _ in range(depth):                                               # a node's rows: its two children's
        half = covers[0].shape[0] // 2
        covers.insert(0, covers[0][:half] + covers[0][half:])
    return {"feature": np.r_[ranker.feature[level], np.full(1 << depth, -1)].astype(np.int32),
            "threshold": np.r_[ranker.threshold[level], np.zeros(1 << depth)],
            "nan_left": np.r_[ranker.nan_left[level], np.zeros(1 << depth, dtype=np.uint8)].astype(np.uint8),
            "left": left, "right": right,
            "value": np.r_[np.zeros(n_internal), ranker.value], "cover": np.concatenate(covers)}


def expected_value(nodes: dict) -> float:
    """E[h] = Σ_leaves (cover / root cover)·value (a tree that is one leaf: its value).

    The shares are taken before the products, so leaf values near the
    largest float (a model file's) do not overflow where the score does not.
    """
    leaves = nodes["left"] < 0
    if not (nodes["left"][0] >= 0):
        return float(nodes["value"][0])
    return float(np.dot(nodes["cover"][leaves] / nodes["cover"][0], nodes["value"][leaves]))


def _depth(left: np.ndarray, right: np.ndarray) -> int:
    """The deepest leaf's depth (root 0), one level of the tree per step: O(nodes)."""
    depth, level = 0, np.zeros(1, dtype=np.intp)
    while True:
        level = level[left[level] >= 0]
        if level.size == 0:
            return depth
        level = np.r_[left[level], right[level]]
        depth += 1


#: Nodes of the trees explained in one kernel call: the node arrays of a batch take ~45 bytes a node, so the
#: complete binary trees of deep oblivious trees (2^(D+1) nodes each) are never all held at once.
BATCH_NODES = 1 << 18

#: Most rows' cells (int32, one array of the rows per oblivious tree) a batch of oblivious trees keeps: 16 MiB.
#: The batches bound memory only; many trees a batch keep each row's output in cache while they add to it.
CELL_ENTRIES = 1 << 22


def forest_contributions(rankers, alphas, X, n_threads: int = 1, *, owner: str = "feature_contributions") -> np.ndarray:
    """(n, d + 1) float64: each feature's SHAP value of Σ_t α_t h_t(x), then the expected value φ_0.

    ``X``: the rows as the trees read them (dense or CSR; a CSR matrix is
    read as its dense form, the size of the output).  Every tree must carry
    covers (a ``ValueError`` otherwise: a model file written without them).
    The trees are explained in batches of about :data:`BATCH_NODES` nodes,
    adding to the output in tree order (the same sums as one call).
    O(n · Σ_t L_t · D_t²) time (an oblivious tree of depth D has L = 2^D);
    oblivious trees whose 2^D cells are no more than the rows take
    O(Σ_t 4^D_t · D_t² + n · Σ_t (D_t + U_t)) instead, the same values bit
    for bit.  O(n · d) memory besides the output, plus O(BATCH_NODES) for
    the batch.

    Raises
    ------
    FloatingPointError
        A value is not finite (a model file's leaf values or covers near the
        largest float), naming ``owner``.
    """
    X = X.toarray() if is_sparse(X) else X
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, d = X.shape
    out = np.zeros((n, d + 1))
    if not rankers:
        return out
    check_explainable(rankers, "feature_contributions")
    alphas = np.asarray(alphas, dtype=np.float64)
    explain = _add_cell_values if by_cells(rankers, n) else _explain_batch
    expected = 0.0
    for first, batch in batches(rankers):
        explain(rankers[first:first + len(batch)], batch, alphas[first:first + len(batch)], X, out, n_threads)
        for a, m in zip(alphas[first:first + len(batch)].tolist(), batch):
            expected += a * expected_value(m)
    out[:, d] = expected
    return check_finite_scores(out, owner=owner, X=X)


def check_explainable(rankers, method: str) -> None:
    """Refuse a weak ranker that is not a tree (``TypeError``) or a tree without covers (``ValueError``), naming
    ``method``."""
    for t, ranker in enumerate(rankers):
        if ranker.kind not in (TreeRanker.kind, ObliviousTreeRanker.kind):
            raise TypeError(f"{method}: weak ranker {t} is a {type(ranker).__name__}; TreeSHAP reads trees only")
        if getattr(ranker, "cover", None) is None:
            raise ValueError(f"{method}: tree {t} has no covers (training rows per node): the model file holds no "
                             f"covers, as files written before they were recorded; refit the model to explain its "
                             f"scores")


def by_cells(rankers, n: int) -> bool:
    """Whether every tree is oblivious with no more cells than rows: then each cell is walked once and each row
    looks its cell up (the same bits as a walk per row: both sum each tree's values from 0, trees in order)."""
    return (bool(rankers) and all(r.kind == ObliviousTreeRanker.kind for r in rankers)
            and (1 << max(r.depth for r in rankers)) <= n)


def batches(rankers):
    """``(first, node forms)`` of consecutive trees, about :data:`BATCH_NODES` nodes at a time, in tree order."""
    first = 0
    while first < len(rankers):
        batch, size = [], 0
        while first + len(batch) < len(rankers) and (not batch or size < BATCH_NODES):
            batch.append(node_form(rankers[first + len(batch)]))
            size += batch[-1]["left"].shape[0]
        yield first, batch
        first += len(batch)


def kernel_arguments(rankers, nodes: list, alphas: np.ndarray, d: int) -> tuple:
    """The arguments of ``_treeshap.tree_shap`` between X and out for the trees (their node forms ``nodes``): the
    concatenated node arrays, roots, α, categories, the deepest leaf's depth and each tree's distinct features."""
    sizes = np.array([m["left"].shape[0] for m in nodes], dtype=np.intp)
    flat = {name: np.ascontiguousarray(np.concatenate([m[name] for m in nodes])) for name in _NODE_ARRAYS}
    internal = flat["left"] >= 0
    if internal.any() and int(flat["feature"][internal].max()) >= d:
        raise ValueError(f"X: the trees split feature {int(flat['feature'][internal].max())}, X has {d} columns")
    is_cat, cat_offset, cat_values = _categorical_arrays(
        [r if r.kind == TreeRanker.kind else _NumericNodes(s) for r, s in zip(rankers, sizes)], int(sizes.sum()))
    roots = np.ascontiguousarray(np.r_[0, np.cumsum(sizes)[:-1]], dtype=np.intp)
    max_depth = max(_depth(m["left"], m["right"]) for m in nodes)
    used = [np.unique(m["feature"][m["left"] >= 0]) for m in nodes]
    return (flat["feature"], flat["threshold"], flat["nan_left"], flat["left"], flat["right"], flat["value"],
            flat["cover"], roots, np.ascontiguousarray(alphas), is_cat, cat_offset, cat_values, max_depth,
            concatenated(used, np.int32), starts(used))


def _explain_batch(rankers, nodes: list, alphas: np.ndarray, X: np.ndarray, out: np.ndarray, n_threads: int) -> None:
    """Add the trees' (with their node forms ``nodes``) α-weighted SHAP values to ``out``'s feature columns, in
    blocks of rows (:func:`shap_row_blocks`): each row's values are its own, the same whatever the blocks."""
    args = kernel_arguments(rankers, nodes, alphas, X.shape[1])
    # a row's path-dependent TreeSHAP takes O(L · D²) steps a tree (L leaves, D the depth)
    work = sum(int((m["left"] < 0).sum()) * (_depth(m["left"], m["right"]) + 1) ** 2 for m in nodes)
    for start, stop in shap_row_blocks(X.shape[0], work):
        _treeshap.tree_shap(X[start:stop], *args, out[start:stop], int(n_threads))


#: TreeSHAP work (a row's leaves times its depth squared, over the trees of a batch) per kernel call.  The kernel runs
#: without the GIL, where Ctrl-C cannot reach it: the rows of one call took tens of seconds (a hundred trees of 31
#: leaves on 5,000 rows), and Python raises the ``KeyboardInterrupt`` between calls.
SHAP_BLOCK_WORK = 1 << 24


def shap_row_blocks(n_rows: int, work: int) -> list[tuple[int, int]]:
    """The (start, stop) row ranges a TreeSHAP kernel runs in, about :data:`SHAP_BLOCK_WORK` each, for ``work``
    steps a row (one empty range for no rows: the kernel still checks its arrays)."""
    step = max(1, SHAP_BLOCK_WORK // max(1, work))
    return [(start, min(start + step, n_rows)) for start in range(0, n_rows, step)] or [(0, 0)]


def _add_cell_values(rankers, nodes: list, alphas: np.ndarray, X: np.ndarray, out: np.ndarray,
                     n_threads: int) -> None:
    """:func:`_explain_batch` for oblivious trees: each tree's values per cell (one walk per cell,
    ``oblivious_cell_values``), then each row's cell's values added (``add_cell_values``, the rows' cells found by
    ``oblivious_cells`` for at most :data:`CELL_ENTRIES` of them at a time).  O(Σ_t 4^D_t · D_t²) for the cells
    and O(n · Σ_t (D_t + U_t)) for the rows."""
    tables, used = [], []
    for ranker, m, alpha in zip(rankers, nodes, alphas.tolist()):
        unique, local = local_features(ranker, m)
        table = np.zeros((1 << ranker.depth, unique.shape[0]))
        if unique.shape[0]:
            _treeshap.oblivious_cell_values(local, m["left"], m["right"], m["value"], m["cover"], alpha,
                                            ranker.depth, table, int(n_threads))
        tables.append(table.ravel())
        used.append(unique)
    cell_levels(rankers, used, X.shape[1])          # the trees' features checked against X's columns
    step = max(1, CELL_ENTRIES // max(X.shape[0], 1))
    for first in range(0, len(rankers), step):
        part = slice(first, first + step)
        _treeshap.add_cell_values(tree_cells(rankers[part], X, n_threads), concatenated(tables[part], np.float64),
                                  starts(tables[part])[:-1], concatenated(used[part], np.int32), starts(used[part]),
                                  out, int(n_threads))


def tree_cells(rankers, X: np.ndarray, n_threads: int) -> np.ndarray:
    """(T, n) int32: each row of X in each of the T oblivious trees' cells (``oblivious_cells``, parallel over rows;
    their features already checked against X's columns).  O(n · Σ_t D_t) time, T · n int32."""
    cells = np.empty((len(rankers), X.shape[0]), dtype=np.int32)
    _treeshap_interventional_interactions.oblivious_cells(X, *cell_levels(rankers, [], X.shape[1]), cells,
                                                          int(n_threads))
    return cells


def local_features(ranker, nodes: dict) -> tuple[np.ndarray, np.ndarray]:
    """An oblivious tree's distinct features (ascending) and its node form's features as their indices there."""
    unique = np.unique(ranker.feature)
    local = nodes["feature"].copy()
    internal = nodes["left"] >= 0
    local[internal] = np.searchsorted(unique, local[internal])
    return unique, np.ascontiguousarray(local, dtype=np.int32)


def cell_levels(rankers, used: list, d: int) -> tuple:
    """The oblivious trees' level features, thresholds, NaN sides and level starts, concatenated (the arguments
    that find a row's cell); a ``ValueError`` when a tree splits a feature beyond X's ``d`` columns."""
    top = max((int(u[-1]) for u in used if u.shape[0]), default=-1)
    if top >= d:
        raise ValueError(f"X: the trees split feature {top}, X has {d} columns")
    return (concatenated([r.feature for r in rankers], np.int32),
            concatenated([r.threshold for r in rankers], np.float64),
            concatenated([r.nan_left for r in rankers], np.uint8), starts([r.feature for r in rankers]))


def concatenated(arrays: list, dtype) -> np.ndarray:
    """The arrays end to end as one contiguous array of ``dtype`` (empty: an empty one)."""
    return np.ascontiguousarray(np.concatenate(arrays) if arrays else np.empty(0), dtype=dtype)


def starts(arrays: list) -> np.ndarray:
    """(len + 1,) where each array starts in their concatenation, and the total."""
    return np.ascontiguousarray(np.r_[0, np.cumsum([a.shape[0] for a in arrays])], dtype=np.intp)


class _NumericNodes:
    """Stands for an oblivious tree's nodes in ``_categorical_arrays``: ``n_nodes`` numeric nodes."""

    categorical = False

    def __init__(self, n_nodes: int):
        self.n_nodes = int(n_nodes)

"""The leaf each row reaches in each tree of a forest (``estimator.apply``): Cython walks on the trees' arrays.

A leaf is named by its index into the tree's ``value`` array -- the array
the model file saves -- so that ``tree.value[leaf]`` is the leaf's value:

* a :class:`~._ranker.TreeRanker` (leaf-wise or depth-wise growth): the
  leaf's node id, its index in the tree's node arrays (``feature``,
  ``left``, ``right``, ``value``, ...; root 0, a leaf has ``left == -1``),
  as scikit-learn's ``apply`` numbers leaves.  Node ids are not
  consecutive: a tree of L leaves has 2L − 1 nodes, and its leaves are
  some L of them;
* an :class:`~._oblivious_ranker.ObliviousTreeRanker`: the cell
  Σ_l 2^l·[x goes right at level l], between 0 and 2^depth − 1.

The walk is the prediction's (``_predict.pyx``'s ``child_of``, the
oblivious kernels' bit per level): NaN by ``nan_left``, categorical nodes
by their left categories, a CSR matrix read from its stored values (the
others are 0).  So Σ_t α_t·value_t[leaf_t(x)], added in tree order from 0,
is the score the prediction kernels return, bit for bit.
"""

from __future__ import annotations

import numpy as np

from . import _oblivious_kernels, _predict
from ._oblivious_ranker import ObliviousTreeRanker, level_arrays
from ._ranker import TreeRanker, prediction_matrix, row_blocks, walk_arrays

__all__ = ["forest_leaves"]


def forest_leaves(rankers, X, n_threads: int = 1) -> np.ndarray:
    """(n, T) int32: the leaf of each row of ``X`` in each of the T trees (module docstring: leaf numbering).

    ``X``: dense (float32/float64) or CSR, as the prediction reads it.  The
    trees must all be trees, or all oblivious trees (as a fitted model's are).
    Parallel passes over blocks of rows (Ctrl-C is delivered between them),
    each thread owning its rows of the output (the same leaves for any thread
    count or blocks): O(n·Σ_t depth_t) time
    (times log(nnz per row) on CSR), O(n·T) memory for the output and
    O(Σ_t nodes_t) for the trees' concatenated arrays.

    Raises
    ------
    TypeError
        A weak ranker is not a tree, or the trees mix the two kinds.
    ValueError
        A tree splits a feature beyond X's columns.
    """
    X, sparse = prediction_matrix(X)
    n_trees = len(rankers)
    out = np.zeros((X.shape[0], n_trees), dtype=np.int32)
    kinds = {r.kind for r in rankers}
    if not kinds <= {TreeRanker.kind, ObliviousTreeRanker.kind} or len(kinds) > 1:
        raise TypeError(f"apply: expected trees of one kind ({TreeRanker.kind!r} or {ObliviousTreeRanker.kind!r}), "
                        f"got weak rankers of kinds {sorted(kinds)}")
    if not rankers:
        return out
    if kinds == {ObliviousTreeRanker.kind}:
        arrays, level_offset, value_offset = level_arrays(rankers)
        args = (arrays["feature"], arrays["threshold"], arrays["nan_left"], arrays["value"], level_offset,
                value_offset)
        # in blocks of rows, between which Ctrl-C is delivered (``row_blocks``); each row's leaves are its own
        for start, stop in row_blocks(X.shape[0], n_trees):
            if sparse:
                _oblivious_kernels.oblivious_leaves_csr(X.indptr[start:stop + 1], X.indices, X.data, X.shape[1],
                                                        *args, out[start:stop], int(n_threads))
            else:
                _oblivious_kernels.oblivious_leaves(X[start:stop], *args, out[start:stop], int(n_threads))
        return out
    arrays, roots, (is_cat, cat_offset, cat_values) = walk_arrays(rankers)
    internal = arrays["left"] >= 0
    if internal.any() and int(arrays["feature"][internal].max()) >= X.shape[1]:
        raise ValueError(f"X: the trees split feature {int(arrays['feature'][internal].max())}, "
                         f"X has {X.shape[1]} columns")
    args = (arrays["feature"], arrays["threshold"], arrays["nan_left"], arrays["left"], arrays["right"], roots,
            is_cat, cat_offset, cat_values)
    for start, stop in row_blocks(X.shape[0], n_trees):
        if sparse:      # the block's row pointers index the whole matrix's stored values, as the prediction's
            _predict.leaf_nodes_csr(X.indptr[start:stop + 1], X.indices, X.data, *args, out[start:stop],
                                    int(n_threads))
        else:
            _predict.leaf_nodes(X[start:stop], *args, out[start:stop], int(n_threads))
    return out

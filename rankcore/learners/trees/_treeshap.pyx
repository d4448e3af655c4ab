"""Exact TreeSHAP of a forest of trees: per row, each feature's SHAP value of Σ_t α_t h_t(x).

Design
------
A. The value function is the path-dependent conditional expectation of each
   tree (Algorithm 1 of Lundberg, Erion & Lee, "Consistent individualized
   feature attribution for tree ensembles", 2018): with the features of S
   known, a split on a known feature follows x, a split on an unknown one
   averages its two children weighted by their covers (training rows).
B. ``tree_shap`` computes its Shapley values exactly by the polynomial
   algorithm of that paper (Algorithm 2; the form of Lundberg et al., "From
   local explanations to global understanding with explainable AI for
   trees", Nature Machine Intelligence 2020): one depth-first walk per tree
   carries the path of unique features with, for each, the fraction of the
   rows that follow it when it is unknown (cover ratio) and when it is known
   (1 on the branch x takes, 0 on the other), and the weights of every
   subset size (EXTEND); at a leaf each feature's weight with that feature
   taken out (UNWOUND_SUM) gives its share of the leaf value.  A feature
   split twice on a path is taken out (UNWIND) before it is put back with
   the product of its fractions.  A branch with both fractions 0 adds
   nothing and is not walked.  The walk is ``_treeshap_path.pxd``'s
   ``_walk_conditioned`` with no feature conditioned, the one the SHAP
   interaction values (``_shap_interactions.pyx``) condition.
C. Rows run in parallel (static schedule), each row's output written by the
   thread that owns it, trees in their order: the result does not depend on
   the thread count.  Values route as in ``_predict.pyx`` (``_route.pxd``):
   NaN by ``nan_left``, categories by their left set.
D. An oblivious tree sends every row of one cell (the D bits of its way
   down) the same way at every node, so all of them have the same values:
   ``oblivious_cell_values`` walks each of the 2^D cells once, and
   ``add_cell_values`` adds a row's cell's values at prediction's cost,
   the rows' cells found once by the caller (``oblivious_cells``).

Cost: O(n · Σ_t L_t · D_t²) time for trees of L_t leaves and depth D_t; no
allocation beyond one path buffer of (D + 3)(D + 4)/2 elements per thread
(D the deepest tree's depth).
"""

from cython.parallel cimport prange, threadid
from libc.stdint cimport uint8_t, int32_t, int64_t
from libc.math cimport isnan
from libc.stdlib cimport calloc, malloc, free

from rankcore._parallel cimport threads_for
from rankcore.learners.trees._treeshap_path cimport Forest, PathElement, _walk_conditioned


def tree_shap(const double[:, ::1] X,         # IN  (n, d) raw feature values (NaN allowed)
              const int32_t[::1] feature,     # IN  all trees' nodes, concatenated (columns of X)
              const double[::1] threshold,    # IN  numeric nodes: right iff x > threshold
              const uint8_t[::1] nan_left,    # IN  NaN goes left
              const int32_t[::1] left,        # IN  left child (index within the tree), −1 at a leaf
              const int32_t[::1] right,       # IN  right child
              const double[::1] value,        # IN  leaf values
              const double[::1] cover,        # IN  training rows per node (> 0 at internal nodes)
              const Py_ssize_t[::1] roots,    # IN  (T,) offset of each tree's node 0
              const double[::1] alpha,        # IN  (T,) coefficient of each tree
              const uint8_t[::1] is_cat,      # IN  categorical nodes
              const int64_t[::1] cat_offset,  # IN  (nodes + 1,) node k's left categories: cat_values[k0:k1]
              const double[::1] cat_values,   # IN  the categorical nodes' left categories, ascending per node
              Py_ssize_t max_depth,           # IN  the deepest leaf's depth (root: 0)
              const int32_t[::1] tree_feature,      # IN  every tree's distinct split features, concatenated
              const Py_ssize_t[::1] feature_start,  # IN  (T + 1,) tree t's: [start[t], start[t+1])
              double[:, ::1] out,             # IN/OUT (n, >= d) φ added in columns 0..d−1 (zeros on entry)
              int n_threads=1):
    """Add Σ_t α_t φ_t(x) to each row of ``out``: the exact TreeSHAP values (Algorithm 2).

    Each tree's values of a row are summed from 0 (in a scratch row) and then
    added to ``out``, so they are bit for bit those of
    :func:`oblivious_cell_values` for a row of that cell.
    O(n · Σ_t (L_t · D_t² + U_t)) time (L_t leaves, D_t depth and U_t
    distinct features of tree t), parallel over rows;
    O(n_threads · ((D + 3)(D + 4)/2 + d)) memory for the path buffers and
    scratch rows.  Each row is computed by one thread in tree order: the
    result does not depend on ``n_threads``.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], T = roots.shape[0], N = feature.shape[0]
    cdef Py_ssize_t r, t, u, j, size = (max_depth + 3) * (max_depth + 4) // 2
    cdef Forest f
    cdef PathElement* paths
    cdef PathElement* mine
    cdef double* scratches
    cdef double* scratch
    if feature_start.shape[0] != T + 1 or (T > 0 and feature_start[T] > tree_feature.shape[0]):
        raise ValueError("tree_shap: feature_start needs T + 1 entries within tree_feature")
    if out.shape[0] != n or out.shape[1] < d:
        raise ValueError(f"tree_shap: out must have shape ({n}, >= {d}), got ({out.shape[0]}, {out.shape[1]})")
    for name, arr in (("threshold", threshold), ("nan_left", nan_left), ("left", left), ("right", right),
                      ("value", value), ("cover", cover), ("is_cat", is_cat)):
        if arr.shape[0] != N:
            raise ValueError(f"tree_shap: {name} must have one entry per node ({N}), got {arr.shape[0]}")
    if cat_offset.shape[0] != N + 1 or alpha.shape[0] != T or max_depth < 0:
        raise ValueError("tree_shap: cat_offset needs nodes + 1 entries, alpha one per tree, max_depth >= 0")
    if n == 0 or T == 0:
        return
    f.feature, f.threshold, f.nan_left = &feature[0], &threshold[0], &nan_left[0]
    f.left, f.right, f.value, f.cover = &left[0], &right[0], &value[0], &cover[0]
    f.is_cat, f.cat_offset = &is_cat[0], &cat_offset[0]
    f.cat_values = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    n_threads = threads_for(<double> n * N * (max_depth + 1), n_threads, 65536.0)
    paths = <PathElement*> malloc(n_threads * size * sizeof(PathElement))
    scratches = <double*> calloc(n_threads * d, sizeof(double))
    if paths == NULL or scratches == NULL:
        free(paths)
        free(scratches)
        raise MemoryError(f"tree_shap: no memory for {n_threads} path buffers of {size} elements and rows of {d}")
    try:
        with nogil:
            for r in prange(n, schedule="static", num_threads=n_threads):
                mine = paths + threadid() * size
                scratch = scratches + threadid() * d
                for t in range(T):
                    _walk_conditioned(&f, roots[t], &X[r, 0], scratch, alpha[t], 0, 0, mine, 1.0, 1.0, -1, -1, 0,
                                      0, -1, 1.0)
                    for u in range(feature_start[t], feature_start[t + 1]):
                        j = tree_feature[u]
                        out[r, j] += scratch[j]
                        scratch[j] = 0.0
    finally:
        free(paths)
        free(scratches)


def oblivious_cell_values(const int32_t[::1] feature,     # IN  (nodes,) the complete binary tree's nodes, BFS order;
                                                          #     features as indices 0..U−1 of the tree's own
                          const int32_t[::1] left,        # IN  (nodes,) left child, −1 at a leaf
                          const int32_t[::1] right,       # IN  (nodes,) right child
                          const double[::1] value,        # IN  (nodes,) leaf values
                          const double[::1] cover,        # IN  (nodes,) training rows per node
                          double alpha,                   # IN  the tree's coefficient
                          Py_ssize_t depth,               # IN  D: 2^D cells
                          double[:, ::1] out,             # OUT (2^D, U) zeros on entry: α φ of a row of each cell
                          int n_threads=1):
    """α φ_u of any row of each cell of an oblivious tree, for the tree's U distinct features (columns of ``out``).

    Every node of level l of an oblivious tree splits on the same feature at
    the same threshold, so a row's way down -- and with it its path-dependent
    TreeSHAP values -- is fixed by the D bits of its cell (right at level l
    iff bit l).  One walk per cell, as :func:`tree_shap` walks a row:
    O(2^D · L · D²) time (L = 2^D leaves), parallel over cells; the values
    of a row are then a lookup (:func:`add_cell_values`).
    """
    cdef Py_ssize_t n_cells = 1 << depth, N = feature.shape[0], c
    cdef Py_ssize_t size = (depth + 3) * (depth + 4) // 2
    cdef Forest f
    cdef PathElement* paths
    cdef double dummy = 0.0
    if out.shape[0] != n_cells or left.shape[0] != N or right.shape[0] != N or value.shape[0] != N \
            or cover.shape[0] != N or N != 2 * n_cells - 1:
        raise ValueError("oblivious_cell_values: expected the 2^(D+1) − 1 nodes of a complete tree of depth D and "
                         "one row of out per cell")
    f.feature, f.left, f.right, f.value, f.cover = &feature[0], &left[0], &right[0], &value[0], &cover[0]
    f.threshold, f.nan_left, f.is_cat, f.cat_offset, f.cat_values = NULL, NULL, NULL, NULL, NULL
    n_threads = threads_for(<double> n_cells * N * (depth + 1), n_threads, 65536.0)
    paths = <PathElement*> malloc(n_threads * size * sizeof(PathElement))
    if paths == NULL:
        raise MemoryError(f"oblivious_cell_values: no memory for {n_threads} path buffers of {size} elements")
    try:
        with nogil:
            for c in prange(n_cells, schedule="static", num_threads=n_threads):
                _walk_conditioned(&f, 0, &dummy, &out[c, 0], alpha, 0, 0, paths + threadid() * size, 1.0, 1.0, -1, c, 0,
                                  0, -1, 1.0)
    finally:
        free(paths)


def add_cell_values(const int32_t[:, ::1] cells,         # IN  (T, n) each row's cell in each tree (oblivious_cells)
                    const double[::1] table,             # IN  every tree's (2^D_t, U_t) cell values, concatenated
                    const Py_ssize_t[::1] table_start,   # IN  (T,) where tree t's table starts (ascending)
                    const int32_t[::1] unique_feature,   # IN  every tree's distinct features (columns of out)
                    const Py_ssize_t[::1] unique_start,  # IN  (T + 1,) tree t's: [start[t], start[t+1])
                    double[:, ::1] out,                  # IN/OUT (n, W), W > every feature: cell values added
                    int n_threads=1):
    """Add each tree's values of each row's cell (:func:`oblivious_cell_values`, or the interventional tables of
    ``_treeshap_interventional.oblivious_interventional``) to the row's columns.

    The rows' cells come from ``_treeshap_interventional_interactions.oblivious_cells``, found once by the caller
    for the tables and for this (bit l set iff x[feature] > threshold at level l, NaN iff not nan_left, as
    prediction finds them).  O(n · Σ_t U_t) time (and a pass over ``cells`` checking that each row's cell has a
    row in its tree's table), parallel over rows; each row owned by one thread, trees in order: the result does
    not depend on ``n_threads``.  No memory beyond the arguments.
    """
    cdef Py_ssize_t n = cells.shape[1], T = cells.shape[0], W = out.shape[1], r, t, u, U, end, bad = 0
    cdef const double* row_values
    if unique_start.shape[0] != T + 1 or table_start.shape[0] != T or out.shape[0] != n:
        raise ValueError(f"add_cell_values: unique_start needs T + 1 entries and table_start T for cells' T = {T} "
                         f"trees, out cells' {n} rows")
    if T > 0 and (unique_start[0] < 0 or unique_start[T] > unique_feature.shape[0]):
        raise ValueError("add_cell_values: unique_start runs outside unique_feature")
    for t in range(T):
        end = table_start[t + 1] if t + 1 < T else table.shape[0]
        if unique_start[t + 1] < unique_start[t] or table_start[t] < 0 or end < table_start[t]:
            raise ValueError(f"add_cell_values: tree {t}'s unique_start or table_start entries are not ascending")
    for t in range(unique_start[T] if T > 0 else 0):
        if unique_feature[t] < 0 or unique_feature[t] >= W:
            raise ValueError(f"add_cell_values: feature {unique_feature[t]} outside out's columns 0..{W - 1}")
    if T == 0 or n == 0:
        return
    n_threads = threads_for(<double> n * T, n_threads, 4096.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                U = unique_start[t + 1] - unique_start[t]
                end = table_start[t + 1] if t + 1 < T else table.shape[0]
                if U > 0 and (cells[t, r] < 0 or table_start[t] + (cells[t, r] + 1) * U > end):
                    bad += 1
    if bad:
        raise ValueError(f"add_cell_values: {bad} cells outside their trees' tables")
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                U = unique_start[t + 1] - unique_start[t]
                row_values = &table[table_start[t] + cells[t, r] * U] if U > 0 else NULL
                for u in range(U):
                    out[r, unique_feature[unique_start[t] + u]] += row_values[u]

"""Exact SHAP interaction values of a forest of trees: per row, the (d + 1) × (d + 1) matrix Φ of Σ_t α_t h_t(x).

Design
------
A. The value function is TreeSHAP's (``_treeshap.pyx``): the path-dependent
   conditional expectation, a split on an unknown feature averaging its
   children by their covers.  Off the diagonal, Φ_jk is half the Shapley
   interaction index of j and k, which is the difference between k's SHAP
   value with j always known ("on") and with j never known ("off"), halved
   (Lundberg et al., "From local explanations to global understanding with
   explainable AI for trees", Nature Machine Intelligence 2020; Lundberg,
   Erion & Lee, "Consistent individualized feature attribution for tree
   ensembles", 2018).
B. ``_walk_conditioned`` (``_treeshap_path.pxd``) is RECURSE of Algorithm 2 with feature j
   conditioned: j never enters the path of unique features; at a split on
   j, "on" follows x only, "off" sends both children the cover shares of
   the walk (the condition fraction).  Per tree, for each of its U distinct
   features j, one walk on and one off give row j of the tree's matrix
   H_jk = (φ_k|j on − φ_k|j off) / 2; its diagonal holds the tree's plain
   SHAP values φ_j (one unconditioned walk, bit for bit ``tree_shap``'s).
C. Rows run in parallel (static schedule), each row's matrix written by the
   thread that owns it, trees in their order; ``finish_interactions`` then
   makes each row's matrix exactly symmetric (Φ_jk = Φ_kj = (H_jk + H_kj) / 2,
   equal up to rounding before) and sets the diagonal to the main effects
   φ_j − Σ_{k≠j} Φ_jk, so each row of Φ sums to φ_j.  No result depends on
   the thread count.
D. Oblivious trees: every row of one cell has the same matrix, so
   ``oblivious_cell_interactions`` walks each of the 2^D cells and
   ``add_cell_interactions`` adds a row's cell's U × U block.

Cost: O(n · Σ_t (1 + 2 U_t) · L_t · D_t² + n · d²) time for trees of L_t
leaves, depth D_t and U_t distinct features (U_t ≤ min(d, L_t − 1));
O(n_threads · (D² + 3 d)) memory besides the (n, d + 1, d + 1) output.
"""

from cython.parallel cimport prange, threadid
from libc.stdint cimport uint8_t, int32_t, int64_t
from libc.math cimport isnan
from libc.stdlib cimport calloc, malloc, free

from rankcore._parallel cimport threads_for
from rankcore.learners.trees._treeshap_path cimport Forest, PathElement, _walk_conditioned, _cell_of


cdef void _tree_block(const Forest* f, Py_ssize_t base, const double* x, Py_ssize_t cell, double scale,
                      const int32_t* used, Py_ssize_t U, double* phi, double* on, double* off, PathElement* path,
                      double* out, Py_ssize_t stride) noexcept nogil:
    """Add one tree's matrix H (scale × it) to ``out[used[a] * stride + used[b]]``: H_jj = φ_j, H_jk = (φ_k|j on −
    φ_k|j off) / 2.  ``phi``, ``on``, ``off``: scratch indexed by feature, zeros on entry and on exit."""
    cdef Py_ssize_t a, b, j, k
    _walk_conditioned(f, base, x, phi, scale, 0, 0, path, 1.0, 1.0, -1, cell, 0, 0, -1, 1.0)
    for a in range(U):
        j = used[a]
        _walk_conditioned(f, base, x, on, scale, 0, 0, path, 1.0, 1.0, -1, cell, 0, 1, j, 1.0)
        _walk_conditioned(f, base, x, off, scale, 0, 0, path, 1.0, 1.0, -1, cell, 0, -1, j, 1.0)
        for b in range(U):
            k = used[b]
            if k != j:
                out[j * stride + k] += (on[k] - off[k]) * 0.5
            on[k] = 0.0
            off[k] = 0.0
    for a in range(U):
        j = used[a]
        out[j * stride + j] += phi[j]
        phi[j] = 0.0


def tree_interactions(const double[:, ::1] X,         # IN  (n, d) raw feature values (NaN allowed)
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
                      double[:, :, ::1] out,          # IN/OUT (n, >= d, >= d) Σ_t α_t H_t added
                      int n_threads=1):
    """Add each tree's α-weighted matrix H (plain SHAP values on the diagonal, halved on − off differences off it)
    to each row's block of ``out``; :func:`finish_interactions` turns the sums into Φ.

    O(n · Σ_t (1 + 2 U_t) · L_t · D_t²) time (L_t leaves, D_t depth, U_t
    distinct features of tree t), parallel over rows; O(n_threads ·
    ((D + 3)(D + 4)/2 + 3 d)) memory for the path buffers and scratch rows.
    Each row is computed by one thread in tree order: the result does not
    depend on ``n_threads``.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], T = roots.shape[0], N = feature.shape[0]
    cdef Py_ssize_t r, t, size = (max_depth + 3) * (max_depth + 4) // 2, stride = out.shape[2]
    cdef Forest f
    cdef PathElement* paths
    cdef double* scratches
    cdef double* scratch
    if feature_start.shape[0] != T + 1 or (T > 0 and feature_start[T] > tree_feature.shape[0]):
        raise ValueError("tree_interactions: feature_start needs T + 1 entries within tree_feature")
    if out.shape[0] != n or out.shape[1] < d or out.shape[2] < d:
        raise ValueError(f"tree_interactions: out must have shape ({n}, >= {d}, >= {d})")
    for name, arr in (("threshold", threshold), ("nan_left", nan_left), ("left", left), ("right", right),
                      ("value", value), ("cover", cover), ("is_cat", is_cat)):
        if arr.shape[0] != N:
            raise ValueError(f"tree_interactions: {name} must have one entry per node ({N}), got {arr.shape[0]}")
    if cat_offset.shape[0] != N + 1 or alpha.shape[0] != T or max_depth < 0:
        raise ValueError("tree_interactions: cat_offset needs nodes + 1 entries, alpha one per tree, max_depth >= 0")
    if n == 0 or T == 0:
        return
    f.feature, f.threshold, f.nan_left = &feature[0], &threshold[0], &nan_left[0]
    f.left, f.right, f.value, f.cover = &left[0], &right[0], &value[0], &cover[0]
    f.is_cat, f.cat_offset = &is_cat[0], &cat_offset[0]
    f.cat_values = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    n_threads = threads_for(<double> n * N * (max_depth + 1), n_threads, 16384.0)
    paths = <PathElement*> malloc(n_threads * size * sizeof(PathElement))
    scratches = <double*> calloc(n_threads * 3 * d, sizeof(double))
    if paths == NULL or scratches == NULL:
        free(paths)
        free(scratches)
        raise MemoryError(f"tree_interactions: no memory for {n_threads} path buffers of {size} elements and rows "
                          f"of {3 * d}")
    try:
        with nogil:
            for r in prange(n, schedule="static", num_threads=n_threads):
                scratch = scratches + threadid() * 3 * d
                for t in range(T):
                    _tree_block(&f, roots[t], &X[r, 0], -1, alpha[t], &tree_feature[0] + feature_start[t],
                                feature_start[t + 1] - feature_start[t], scratch, scratch + d, scratch + 2 * d,
                                paths + threadid() * size, &out[r, 0, 0], stride)
    finally:
        free(paths)
        free(scratches)


def finish_interactions(double[:, :, ::1] out,   # IN/OUT (n, m, m) Σ_t α_t H_t in, Φ out
                        Py_ssize_t d,            # IN  the features: the first d rows and columns of each block
                        int n_threads=1):
    """Turn each row's sum of tree matrices H into Φ: Φ_jk = Φ_kj = (H_jk + H_kj) / 2 off the diagonal, then
    Φ_jj = H_jj − Σ_{k≠j} Φ_jk (H_jj is φ_j, so row j sums to φ_j up to rounding).

    O(n · d²) time, parallel over rows (one thread per row), no memory.
    """
    cdef Py_ssize_t n = out.shape[0], r, j, k
    cdef double s
    if out.shape[1] < d or out.shape[2] < d or d < 0:
        raise ValueError(f"finish_interactions: out must have shape (n, >= {d}, >= {d})")
    n_threads = threads_for(<double> n * d * d, n_threads, 65536.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for j in range(d):
                for k in range(j + 1, d):
                    s = (out[r, j, k] + out[r, k, j]) * 0.5
                    out[r, j, k] = s
                    out[r, k, j] = s
            for j in range(d):
                s = 0.0
                for k in range(d):
                    if k != j:
                        s = s + out[r, j, k]
                out[r, j, j] = out[r, j, j] - s


def oblivious_cell_interactions(const int32_t[::1] feature,   # IN  (nodes,) the complete binary tree's nodes, BFS;
                                                              #     features as indices 0..U−1 of the tree's own
                                const int32_t[::1] left,      # IN  (nodes,) left child, −1 at a leaf
                                const int32_t[::1] right,     # IN  (nodes,) right child
                                const double[::1] value,      # IN  (nodes,) leaf values
                                const double[::1] cover,      # IN  (nodes,) training rows per node
                                double alpha,                 # IN  the tree's coefficient
                                Py_ssize_t depth,             # IN  D: 2^D cells
                                double[:, :, ::1] out,        # OUT (2^D, U, U) zeros on entry: α H of each cell
                                int n_threads=1):
    """α H (``tree_interactions``' block) of any row of each cell of an oblivious tree, for its U features.

    One set of walks per cell, as :func:`tree_interactions` walks a row:
    O(2^D · (1 + 2U) · L · D²) time (L = 2^D leaves), parallel over cells;
    O(n_threads · (D² + 3U)) memory.  A row's block is then a lookup
    (:func:`add_cell_interactions`).
    """
    cdef Py_ssize_t n_cells = 1 << depth, N = feature.shape[0], U = out.shape[1], c, u
    cdef Py_ssize_t size = (depth + 3) * (depth + 4) // 2
    cdef Forest f
    cdef PathElement* paths
    cdef double* scratches
    cdef int32_t* identity
    cdef double dummy = 0.0
    if out.shape[0] != n_cells or out.shape[2] != U or left.shape[0] != N or right.shape[0] != N \
            or value.shape[0] != N or cover.shape[0] != N or N != 2 * n_cells - 1:
        raise ValueError("oblivious_cell_interactions: expected the 2^(D+1) − 1 nodes of a complete tree of depth D "
                         "and one (U, U) block of out per cell")
    if U == 0:
        return
    f.feature, f.left, f.right, f.value, f.cover = &feature[0], &left[0], &right[0], &value[0], &cover[0]
    f.threshold, f.nan_left, f.is_cat, f.cat_offset, f.cat_values = NULL, NULL, NULL, NULL, NULL
    n_threads = threads_for(<double> n_cells * N * (depth + 1) * (2 * U + 1), n_threads, 16384.0)
    paths = <PathElement*> malloc(n_threads * size * sizeof(PathElement))
    scratches = <double*> calloc(n_threads * 3 * U, sizeof(double))
    identity = <int32_t*> malloc(U * sizeof(int32_t))
    if paths == NULL or scratches == NULL or identity == NULL:
        free(paths)
        free(scratches)
        free(identity)
        raise MemoryError(f"oblivious_cell_interactions: no memory for {n_threads} path buffers of {size} elements")
    try:
        for u in range(U):
            identity[u] = <int32_t> u
        with nogil:
            for c in prange(n_cells, schedule="static", num_threads=n_threads):
                _tree_block(&f, 0, &dummy, c, alpha, identity, U, scratches + threadid() * 3 * U,
                            scratches + threadid() * 3 * U + U, scratches + threadid() * 3 * U + 2 * U,
                            paths + threadid() * size, &out[c, 0, 0], U)
    finally:
        free(paths)
        free(scratches)
        free(identity)


def add_cell_interactions(const double[:, ::1] X,              # IN  (n, d) raw feature values (NaN allowed)
                          const int32_t[::1] level_feature,    # IN  every tree's level features, concatenated
                          const double[::1] level_threshold,   # IN  right iff x > threshold
                          const uint8_t[::1] level_nan_left,   # IN  NaN goes left
                          const Py_ssize_t[::1] level_start,   # IN  (T + 1,) tree t's levels: [start[t], start[t+1])
                          const double[::1] table,             # IN  every tree's (2^D_t, U_t, U_t) blocks, concatenated
                          const Py_ssize_t[::1] table_start,   # IN  (T,) where tree t's table starts
                          const int32_t[::1] unique_feature,   # IN  every tree's distinct features (columns of X)
                          const Py_ssize_t[::1] unique_start,  # IN  (T + 1,) tree t's: [start[t], start[t+1])
                          double[:, :, ::1] out,               # IN/OUT (n, >= d, >= d) blocks added, tree by tree
                          int n_threads=1):
    """Add each tree's block of each row's cell (:func:`oblivious_cell_interactions`) to the row's matrix.

    O(n · Σ_t (D_t + U_t²)) time, parallel over rows; each row owned by one
    thread, trees in order: the result does not depend on ``n_threads``.
    A row's cell is found as prediction finds it: bit l set iff
    x[feature] > threshold at level l, NaN iff not nan_left.
    """
    cdef Py_ssize_t n = X.shape[0], T = table_start.shape[0], r, t, l, k, a, b, cell, U, u0
    cdef double x
    cdef bint right
    cdef const double* block
    if level_start.shape[0] != T + 1 or unique_start.shape[0] != T + 1 or out.shape[0] != n \
            or out.shape[1] < X.shape[1] or out.shape[2] < X.shape[1]:
        raise ValueError("add_cell_interactions: level_start and unique_start need T + 1 entries, out the rows of X")
    if T == 0 or n == 0:
        return
    n_threads = threads_for(<double> n * T, n_threads, 4096.0)
    # the levels' arrays as pointers (none when every tree is a single leaf: no level is read then)
    cdef const int32_t* lf = &level_feature[0] if level_feature.shape[0] > 0 else NULL
    cdef const double* lt = &level_threshold[0] if level_threshold.shape[0] > 0 else NULL
    cdef const uint8_t* ln = &level_nan_left[0] if level_nan_left.shape[0] > 0 else NULL
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                cell = _cell_of(&X[r, 0], lf, lt, ln, level_start[t], level_start[t + 1])
                u0 = unique_start[t]
                U = unique_start[t + 1] - u0
                block = &table[table_start[t] + cell * U * U]
                for a in range(U):
                    for b in range(U):
                        out[r, unique_feature[u0 + a], unique_feature[u0 + b]] += block[a * U + b]

"""Exact interventional TreeSHAP of a forest of trees against background rows.

Design
------
A. For a row x, one background row z and a tree h, the game is
   v(S) = h(x_S, z_S̄): the features of S take x's values, the others z's.
   Down the tree, a split on feature j sends the hybrid row where x goes if
   j ∈ S, where z goes otherwise.  Where x and z go the same way, S does
   not matter; where they part, the walk follows both, x's branch putting j
   in the set A (j ∈ S required) and z's branch putting j in B (j ∉ S
   required); a feature already in A or B is followed to its side only.
   Each leaf reached is thus reached exactly by the coalitions S ⊇ A with
   S ∩ B = ∅, a game whose Shapley values are, with a = |A|, b = |B|,

       φ_i = v · (a − 1)! b! / (a + b)!    for i ∈ A,
       φ_i = −v · a! (b − 1)! / (a + b)!   for i ∈ B,   0 for the others

   (Lundberg et al., "From local explanations to global understanding with
   explainable AI for trees", Nature Machine Intelligence 2020, Methods,
   "Interventional Tree SHAP").  h(x_S, z_S̄) is the sum of these leaf
   games, so φ(x; z) is the sum of their values.
B. The leaves' values are not given to each of their A and B features at
   the leaf (O(depth) per leaf) but summed on the way back up: a subtree
   returns Σ v·W(a − 1, b) and Σ v·W(a, b − 1) over its leaves
   (W(p, q) = p! q! / (p + q + 1)!), and the node that put j in A or B adds
   its branch's sum to φ_j.  Each node reached costs O(1).
C. Rows run in parallel (static schedule), each row's output written only
   by the thread that owns it, trees in their order and within a tree the
   background rows in theirs: the result does not depend on the thread
   count.  Values route as in ``_predict.pyx`` (``_route.pxd``): NaN by
   ``nan_left``, categories by their left set.
D. Players.  The columns may be grouped into players (``player[j]``: the
   player of column j), a player's columns taking x's values or z's
   together: v(S) = h(x_{cols(S)}, z_rest) for S a set of players.  The walk
   is the same with A and B sets of players: at a split on column j whose
   player p is in A the hybrid follows x, in B z, and where p is in neither
   and x and z part, p goes to A down x's branch and to B down z's.  A leaf
   is then reached exactly by the coalitions S ⊇ A, S ∩ B = ∅ of players,
   and the weights above are the Shapley values of the grouped game.  The
   identity map (each column its own player) is the walk of A-C, operation
   for operation.

Cost: O(n · m · Σ_t V_t) time for n rows, m background rows and V_t the
nodes of tree t that x and z reach together (D_t + 1 where they take the same
way, at most the whole tree); no allocation beyond G bytes per thread (G
players, G = d without groups) and the (D + 1)² weights.
"""

from cython.parallel cimport prange, threadid
from libc.stdint cimport uint8_t, int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc

from rankcore._parallel cimport threads_for
from rankcore.learners.trees._route cimport child_of
from rankcore.learners.trees._treeshap_path cimport Forest


cdef struct Nodes:
    Forest tree                 # the trees' nodes, as TreeSHAP reads them (no covers: the game needs none)
    const double* weight        # (D + 1)²: weight[p * stride + q] = p! q! / (p + q + 1)!
    Py_ssize_t stride
    const int32_t* player       # (d,) each column's player 0..G−1


cdef inline Py_ssize_t _child(const Forest* t, double v, Py_ssize_t k) noexcept nogil:
    """The child (index within its tree) that value v takes at node k, as prediction routes it."""
    return child_of(v, k, t.threshold, t.nan_left, t.left, t.right, t.is_cat, t.cat_offset, t.cat_values)


cdef void _walk(const Nodes* f, Py_ssize_t k, Py_ssize_t base, const double* x, const double* z, uint8_t* side,
                double* phi, double scale, Py_ssize_t a, Py_ssize_t b, double* sums) noexcept nogil:
    """Walk node ``k`` (index in the concatenated nodes; ``base`` its tree's root) with A and B of sizes a, b
    (``side[p]`` of player p: 1 in A, 2 in B, 0 neither); add the parted players' values to phi and return in
    sums[0] the subtree's Σ scale·v·W(a − 1, b) over leaves with a >= 1, in sums[1] its Σ scale·v·W(a, b − 1)
    (b >= 1)."""
    cdef Py_ssize_t j, p, to_x, to_z
    cdef double v
    cdef double x_sums[2]
    cdef double z_sums[2]
    if f.tree.left[k] < 0:
        v = scale * f.tree.value[k]
        sums[0] = v * f.weight[(a - 1) * f.stride + b] if a > 0 else 0.0
        sums[1] = v * f.weight[a * f.stride + b - 1] if b > 0 else 0.0
        return
    j = f.tree.feature[k]
    p = f.player[j]
    to_x = _child(&f.tree, z[j] if side[p] == 2 else x[j], k)        # p in B: the hybrid holds z's value
    if side[p] == 0:
        to_z = _child(&f.tree, z[j], k)
        if to_z != to_x:        # x and z part: both ways, p charged to the side it follows
            side[p] = 1
            _walk(f, base + to_x, base, x, z, side, phi, scale, a + 1, b, x_sums)
            side[p] = 2
            _walk(f, base + to_z, base, x, z, side, phi, scale, a, b + 1, z_sums)
            side[p] = 0
            phi[p] += x_sums[0] - z_sums[1]
            sums[0] = x_sums[0] + z_sums[0]
            sums[1] = x_sums[1] + z_sums[1]
            return
    _walk(f, base + to_x, base, x, z, side, phi, scale, a, b, sums)


def interventional_shap(const double[:, ::1] X,         # IN  (n, d) raw feature values (NaN allowed)
                        const double[:, ::1] Z,         # IN  (m, d) background rows (NaN allowed)
                        const int32_t[::1] feature,     # IN  all trees' nodes, concatenated (columns of X)
                        const double[::1] threshold,    # IN  numeric nodes: right iff x > threshold
                        const uint8_t[::1] nan_left,    # IN  NaN goes left
                        const int32_t[::1] left,        # IN  left child (index within the tree), −1 at a leaf
                        const int32_t[::1] right,       # IN  right child
                        const double[::1] value,        # IN  leaf values
                        const Py_ssize_t[::1] roots,    # IN  (T,) offset of each tree's node 0
                        const double[::1] alpha,        # IN  (T,) coefficient of each tree
                        const uint8_t[::1] is_cat,      # IN  categorical nodes
                        const int64_t[::1] cat_offset,  # IN  (nodes + 1,) node k's left categories
                        const double[::1] cat_values,   # IN  the categorical nodes' left categories, ascending
                        const double[:, ::1] weight,    # IN  (D + 1, D + 1) p! q! / (p + q + 1)!, D >= every depth
                        double[:, ::1] out,             # IN/OUT (n, >= G) Σ_z Σ_t α_t φ_t(x; z) added to 0..G−1
                        int n_threads=1,
                        const int32_t[::1] player=None):  # IN  (d,) each column's player 0..G−1 (None: itself)
    """Add Σ_{z ∈ Z} Σ_t α_t φ_t(x; z) to each row of ``out`` (the sum over the background: divide by m after).

    φ_t(x; z) are the exact Shapley values of v(S) = h_t(x_{cols(S)}, z_rest)
    over the G players of ``player`` (G = 1 + its largest label; None: each
    column its own player, G = d, and S̄'s columns take z's values), one
    value per player: an unused label's column of ``out`` gets nothing.
    O(n · m · Σ_t V_t) time, V_t the nodes of tree t reached by the hybrids
    of x and z (D_t + 1 when they share a leaf, at most the tree; grouping
    columns never adds nodes), parallel over rows; O(n_threads · G) memory
    (one byte a player per thread, plus d int32 for the identity map when
    ``player`` is None) and the recursion's O(D) stack.  Each row is
    computed by one thread, trees in order, background rows in order within
    a tree: the result does not depend on ``n_threads``.  The identity map
    gives the values of ``player=None`` bit for bit.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], m = Z.shape[0], T = roots.shape[0], N = feature.shape[0]
    cdef Py_ssize_t r, t, s, j, G = d
    cdef Nodes f
    cdef uint8_t* sides
    cdef double* sums
    cdef int32_t* identity = NULL
    if Z.shape[1] != d:
        raise ValueError(f"interventional_shap: Z must have {d} columns as X, got {Z.shape[1]}")
    if player is not None:
        if player.shape[0] != d:
            raise ValueError(f"interventional_shap: player must map the {d} columns of X, got {player.shape[0]}")
        G = 0
        for j in range(d):
            if player[j] < 0:
                raise ValueError(f"interventional_shap: column {j}'s player {player[j]} is negative")
            G = max(G, <Py_ssize_t> player[j] + 1)
    if out.shape[0] != n or out.shape[1] < G:
        raise ValueError(f"interventional_shap: out must have shape ({n}, >= {G}), got ({out.shape[0]}, "
                         f"{out.shape[1]})")
    for name, arr in (("threshold", threshold), ("nan_left", nan_left), ("left", left), ("right", right),
                      ("value", value), ("is_cat", is_cat)):
        if arr.shape[0] != N:
            raise ValueError(f"interventional_shap: {name} must have one entry per node ({N}), got {arr.shape[0]}")
    if cat_offset.shape[0] != N + 1 or alpha.shape[0] != T or weight.shape[0] < 1 \
            or weight.shape[1] != weight.shape[0]:
        raise ValueError("interventional_shap: cat_offset needs nodes + 1 entries, alpha one per tree, weight a "
                         "non-empty square table")
    if n == 0 or m == 0 or T == 0:
        return
    f.tree.feature, f.tree.threshold, f.tree.nan_left = &feature[0], &threshold[0], &nan_left[0]
    f.tree.left, f.tree.right, f.tree.value, f.tree.cover = &left[0], &right[0], &value[0], NULL
    f.tree.is_cat, f.tree.cat_offset = &is_cat[0], &cat_offset[0]
    f.tree.cat_values = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    f.weight, f.stride = &weight[0, 0], weight.shape[1]
    n_threads = threads_for(<double> n * m * T, n_threads, 4096.0)
    sides = <uint8_t*> calloc(n_threads * G + 1, sizeof(uint8_t))
    sums = <double*> calloc(n_threads * 2, sizeof(double))        # each thread's walk returns its sums here
    if player is None:
        identity = <int32_t*> malloc((d + 1) * sizeof(int32_t))
    if sides == NULL or sums == NULL or (player is None and identity == NULL):
        free(sides)
        free(sums)
        free(identity)
        raise MemoryError(f"interventional_shap: no memory for {n_threads} rows of {G} bytes")
    if player is None:
        for j in range(d):
            identity[j] = <int32_t> j
        f.player = identity
    else:
        f.player = &player[0] if d > 0 else NULL
    try:
        with nogil:
            for r in prange(n, schedule="static", num_threads=n_threads):
                for t in range(T):
                    for s in range(m):
                        _walk(&f, roots[t], roots[t], &X[r, 0], &Z[s, 0], sides + threadid() * G, &out[r, 0],
                              alpha[t], 0, 0, sums + 2 * threadid())
    finally:
        free(sides)
        free(sums)
        free(identity)


cdef void _walk_cells(const int32_t* feature, const double* value, Py_ssize_t depth, Py_ssize_t level,
                      Py_ssize_t cell, Py_ssize_t x_cell, Py_ssize_t z_cell, uint8_t* side, double* phi, double scale,
                      const double* weight, Py_ssize_t stride, Py_ssize_t a, Py_ssize_t b,
                      double* sums) noexcept nogil:
    """:func:`_walk` for an oblivious tree: the hybrid goes right at level l iff bit l of x's cell (its player in
    A, or x and z agree there) or of z's cell (in B); ``cell`` holds the bits below ``level`` taken so far."""
    cdef Py_ssize_t j, x_bit, z_bit
    cdef double v
    cdef double x_sums[2]
    cdef double z_sums[2]
    if level == depth:
        v = scale * value[cell]
        sums[0] = v * weight[(a - 1) * stride + b] if a > 0 else 0.0
        sums[1] = v * weight[a * stride + b - 1] if b > 0 else 0.0
        return
    j = feature[level]
    x_bit = (x_cell >> level) & 1
    z_bit = (z_cell >> level) & 1
    if side[j] == 2:
        x_bit = z_bit
    elif side[j] == 0 and x_bit != z_bit:
        side[j] = 1
        _walk_cells(feature, value, depth, level + 1, cell | (x_bit << level), x_cell, z_cell, side, phi, scale,
                    weight, stride, a + 1, b, x_sums)
        side[j] = 2
        _walk_cells(feature, value, depth, level + 1, cell | (z_bit << level), x_cell, z_cell, side, phi, scale,
                    weight, stride, a, b + 1, z_sums)
        side[j] = 0
        phi[j] += x_sums[0] - z_sums[1]
        sums[0] = x_sums[0] + z_sums[0]
        sums[1] = x_sums[1] + z_sums[1]
        return
    _walk_cells(feature, value, depth, level + 1, cell | (x_bit << level), x_cell, z_cell, side, phi, scale, weight,
                stride, a, b, sums)


def oblivious_interventional(const int32_t[::1] feature,    # IN  (D,) level players as indices 0..U−1 of the tree's
                             const double[::1] value,       # IN  (2^D,) leaf values by cell
                             double alpha,                  # IN  the tree's coefficient
                             const Py_ssize_t[::1] x_cells, # IN  (k,) the cells of the rows explained, ascending
                             const double[::1] z_count,     # IN  (2^D,) background rows per cell
                             const double[:, ::1] weight,   # IN  (D + 1, D + 1) p! q! / (p + q + 1)!
                             double[:, ::1] out,            # IN/OUT (2^D, U) rows x_cells: α Σ_c' count_c' φ(c; c')
                             int n_threads=1):
    """Add, for each cell c of ``x_cells``, α Σ_{c'} count_{c'} φ(c; c') to ``out[c]`` (the background sum).

    In an oblivious tree a row's way down is fixed by the D bits of its
    cell, so φ(x; z) of :func:`interventional_shap` depends on x and z only
    through their cells: each pair of cells is walked once, the background
    rows of a cell counted, and a row's values are then a lookup (prediction's
    cost, ``_treeshap.add_cell_values``).  O(k · C · V) time for k cells of
    rows, C ≤ min(m, 2^D) cells of background rows and V ≤ 2^(D+1) hybrid
    nodes per pair, parallel over the cells of rows (each cell's row of
    ``out`` written by one thread, background cells ascending: the result does
    not depend on ``n_threads``); O(n_threads · U) memory.  A cell paired
    with itself adds nothing and is skipped.

    Players (design D): ``feature`` gives each level's player among the U
    distinct players of the tree's columns -- without groups its distinct
    columns -- and ``out`` one column per such player; levels on different
    columns of one player share its side.  Grouping costs nothing here: the
    same cells, no more hybrid nodes (fewer where a player's levels agree).
    """
    cdef Py_ssize_t depth = feature.shape[0], n_cells = value.shape[0], k = x_cells.shape[0], U = out.shape[1]
    cdef Py_ssize_t i, c, cz
    cdef uint8_t* sides
    cdef double* sums
    if n_cells != (1 << depth) or z_count.shape[0] != n_cells or out.shape[0] != n_cells \
            or weight.shape[0] < depth + 1 or weight.shape[1] != weight.shape[0]:
        raise ValueError("oblivious_interventional: expected 2^D values and background counts, one row of out per "
                         "cell, and a (>= D + 1)-square weight table")
    for i in range(k):
        if x_cells[i] < 0 or x_cells[i] >= n_cells:
            raise ValueError(f"oblivious_interventional: cell {x_cells[i]} outside 0..{n_cells - 1}")
        if i > 0 and x_cells[i] <= x_cells[i - 1]:      # a cell listed twice: two threads would add to its row
            raise ValueError("oblivious_interventional: x_cells must be distinct and ascending")
    for i in range(depth):
        if feature[i] < 0 or feature[i] >= U:
            raise ValueError(f"oblivious_interventional: level {i}'s feature {feature[i]} outside 0..{U - 1}")
    if k == 0 or depth == 0:
        return
    n_threads = threads_for(<double> k * n_cells, n_threads, 4096.0)
    sides = <uint8_t*> calloc(n_threads * U + 1, sizeof(uint8_t))
    sums = <double*> calloc(n_threads * 2, sizeof(double))
    if sides == NULL or sums == NULL:
        free(sides)
        free(sums)
        raise MemoryError(f"oblivious_interventional: no memory for {n_threads} rows of {U} bytes")
    try:
        with nogil:
            for i in prange(k, schedule="static", num_threads=n_threads):
                c = x_cells[i]
                for cz in range(n_cells):
                    if z_count[cz] != 0 and cz != c:
                        _walk_cells(&feature[0], &value[0], depth, 0, 0, c, cz, sides + threadid() * U, &out[c, 0],
                                    alpha * z_count[cz], &weight[0, 0], weight.shape[1], 0, 0, sums + 2 * threadid())
    finally:
        free(sides)
        free(sums)

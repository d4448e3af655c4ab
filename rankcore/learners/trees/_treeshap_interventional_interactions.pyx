"""Exact interventional SHAP interaction values of a forest of trees against background rows.

Design
------
A. Players.  ``player[j]`` is the player of column j (G players: each
   column its own, G = d, or the caller's ``groups`` of columns): a
   coalition S of players gives every column of a player in S x's value, the
   others z's.  The game of a row x, one
   background row z and a tree h is v(S) = h(x_S, z_S̄), walked as
   ``_treeshap_interventional.pyx`` walks it: where x and z take the same
   child S does not matter; where they part at a split on column j of a
   player p not yet met, the walk follows both, x's branch putting p in A
   (p ∈ S required), z's in B (p ∉ S); a player met again follows its side
   (x's value of the column if in A, z's if in B).  Each leaf reached is
   reached exactly by the coalitions S ⊇ A with S ∩ B = ∅, so v is the sum
   of the leaf games u(S) = v_leaf · [A ⊆ S] · [B ∩ S = ∅].
B. A leaf game's interaction values.  With a = |A|, b = |B| and
   W(p, q) = p! q! / (p + q + 1)! (the Shapley weight table of
   ``_treeshap_interventional.pyx``), u is v_leaf Σ_{C ⊆ B} (−1)^|C| [A ∪ C
   ⊆ S]: its Harsanyi dividends are v_leaf (−1)^|C| on the sets A ∪ C.  The
   Shapley interaction index of i ≠ j is Σ_{T ⊇ {i,j}} dividend(T) / (|T| −
   1) (Grabisch & Roubens, "An axiomatic approach to the concept of
   interaction among players in cooperative games", 1999), a sum of
   binomial alternations that are Beta integrals; halved as SHAP splits it
   between Φ_ij and Φ_ji (Lundberg et al., "From local explanations to
   global understanding with explainable AI for trees", Nature Machine
   Intelligence 2020):

       Φ_ij = Φ_ji =  v_leaf · W(a − 2, b) / 2        i, j ∈ A,
                   = −v_leaf · W(a − 1, b − 1) / 2    i ∈ A, j ∈ B,
                   =  v_leaf · W(a, b − 2) / 2        i, j ∈ B,
                   =  0                               i or j outside A ∪ B;

       φ_i = v_leaf · W(a − 1, b)  (i ∈ A),   −v_leaf · W(a, b − 1)  (i ∈ B),
       Φ_ii = φ_i − Σ_{j≠i} Φ_ij
            = v_leaf · (W(a − 1, b) − (a − 1) W(a − 2, b) / 2 + b W(a − 1, b − 1) / 2)    i ∈ A,
            = v_leaf · (−W(a, b − 1) + a W(a − 1, b − 1) / 2 − (b − 1) W(a, b − 2) / 2)   i ∈ B.

   They depend on the leaf only through a, b and the sides of i and j
   (``tests/learners/test_tree_interventional_interactions.py`` checks them
   against the definition in exact arithmetic).  A leaf that x and z both
   reach (a = b = 0) adds nothing: its value is in the bias.
C. Summed on the way back up, not at the leaves.  A subtree returns five
   sums over its leaves: Σ v·W(a − 1, b), Σ v·W(a, b − 1) (the SHAP values'
   sums of ``_treeshap_interventional.pyx``) and Σ v·W(a − 2, b),
   Σ v·W(a − 1, b − 1), Σ v·W(a, b − 2).  The node where x and z part on
   player p adds p's SHAP value to the diagonal (x's branch's first sum minus
   z's second), and for each player q parted above it -- the leaves below
   share q's side, known at the node -- the pair's value from the sums of
   the branches: ½(x's Σ W(a − 2, b) − z's Σ W(a − 1, b − 1)) for q ∈ A,
   ½(z's Σ W(a, b − 2) − x's Σ W(a − 1, b − 1)) for q ∈ B, added to (p, q)
   and (q, p) at once, so each matrix is symmetric bit for bit.  The main
   effects Φ_pp = φ_p − Σ_{q≠p} Φ_pq are set once per row at the end, after
   the mean over the background (``main_effects``, parallel over rows).
D. Rows run in parallel (static schedule), each row's matrix written only by
   the thread that owns it, trees in their order and within a tree the
   background rows in theirs: the result does not depend on the thread
   count.  Values route as in ``_predict.pyx`` (``_route.pxd``): NaN by
   ``nan_left``, categories by their left set.
E. Oblivious trees: the game of x and z depends on them only through their
   cells, so each pair of cells is walked once (the background's cells
   counted) into a (U, U) block per cell of the rows, U the tree's players,
   and each row adds its cell's block.  The rows' cells are found once
   (``oblivious_cells``, parallel over rows) and serve both steps.

Cost: a pair of rows costs O(V_t + P_t · D_t) on tree t, V_t the nodes its
hybrid rows reach (D_t + 1 where x and z take the same way, at most the
tree) and P_t ≤ V_t the nodes where they part (each pairs its player with
the ≤ D_t players parted above it); O(n · m · Σ_t (V_t + P_t · D_t)) for n
rows and m background rows, far less than O((a + b)²) a leaf, then O(n · G²)
for the main effects.  Memory: the (n, G + 1, G + 1) output, O(n_threads ·
(G + D)) scratch and the recursion's O(D) stack; no n × m array.
"""

from cython.parallel cimport prange, threadid
from libc.stdint cimport uint8_t, int32_t, int64_t
from libc.stdlib cimport calloc, free

from rankcore._parallel cimport threads_for
from rankcore.learners.trees._route cimport child_of
from rankcore.learners.trees._treeshap_path cimport Forest, _cell_of


cdef enum:
    SUMS = 5                    # a subtree's sums: W(a−1,b), W(a,b−1), W(a−2,b), W(a−1,b−1), W(a,b−2)


cdef struct Game:
    const double* weight        # (D + 1)²: weight[p * stride + q] = p! q! / (p + q + 1)!
    Py_ssize_t stride
    uint8_t* side               # per player: 0 not parted, 1 in A (x's branch), 2 in B (z's branch)
    int32_t* parted             # the players parted on the way down, in order (a + b of them)
    double* out                 # the row's (G + 1, G + 1) block
    Py_ssize_t width            # its row stride


cdef inline void _leaf_sums(const Game* g, double v, Py_ssize_t a, Py_ssize_t b, double* sums) noexcept nogil:
    """The five sums of one leaf of value v reached with |A| = a, |B| = b (a weight whose index is negative: 0)."""
    cdef const double* w = g.weight
    cdef Py_ssize_t s = g.stride
    sums[0] = v * w[(a - 1) * s + b] if a >= 1 else 0.0
    sums[1] = v * w[a * s + b - 1] if b >= 1 else 0.0
    sums[2] = v * w[(a - 2) * s + b] if a >= 2 else 0.0
    sums[3] = v * w[(a - 1) * s + b - 1] if a >= 1 and b >= 1 else 0.0
    sums[4] = v * w[a * s + b - 2] if b >= 2 else 0.0


cdef inline void _parted(Game* g, Py_ssize_t p, Py_ssize_t a, Py_ssize_t b, const double* x_sums,
                         const double* z_sums, double* sums) noexcept nogil:
    """After both branches of a parting on player p (the a + b players above it in ``g.parted``): p's SHAP value
    to the diagonal, each pair (p, q) with a player q parted above to both (p, q) and (q, p), the sums returned."""
    cdef Py_ssize_t i, q
    cdef double h
    g.out[p * g.width + p] += x_sums[0] - z_sums[1]
    for i in range(a + b):
        q = g.parted[i]
        if g.side[q] == 1:
            h = 0.5 * (x_sums[2] - z_sums[3])
        else:
            h = 0.5 * (z_sums[4] - x_sums[3])
        g.out[p * g.width + q] += h
        g.out[q * g.width + p] += h
    for i in range(SUMS):
        sums[i] = x_sums[i] + z_sums[i]


cdef void _walk(const Forest* f, Game* g, Py_ssize_t k, Py_ssize_t base, const double* x, const double* z,
                const int32_t* player, double scale, Py_ssize_t a, Py_ssize_t b, double* sums) noexcept nogil:
    """Walk node ``k`` (index in the concatenated nodes; ``base`` its tree's root) with |A| = a, |B| = b; add the
    pairs parted below to ``g.out`` and return the subtree's five sums (times ``scale``) in ``sums``."""
    cdef Py_ssize_t j, p, to_x, to_z
    cdef double x_sums[SUMS]
    cdef double z_sums[SUMS]
    if f.left[k] < 0:
        _leaf_sums(g, scale * f.value[k], a, b, sums)
        return
    j = f.feature[k]
    p = player[j]
    to_x = child_of(z[j] if g.side[p] == 2 else x[j], k, f.threshold, f.nan_left, f.left, f.right, f.is_cat,
                    f.cat_offset, f.cat_values)
    if g.side[p] == 0:
        to_z = child_of(z[j], k, f.threshold, f.nan_left, f.left, f.right, f.is_cat, f.cat_offset, f.cat_values)
        if to_z != to_x:        # x and z part: both ways, p charged to the side it follows
            g.parted[a + b] = <int32_t> p
            g.side[p] = 1
            _walk(f, g, base + to_x, base, x, z, player, scale, a + 1, b, x_sums)
            g.side[p] = 2
            _walk(f, g, base + to_z, base, x, z, player, scale, a, b + 1, z_sums)
            g.side[p] = 0
            _parted(g, p, a, b, x_sums, z_sums, sums)
            return
    _walk(f, g, base + to_x, base, x, z, player, scale, a, b, sums)


def interventional_interactions(const double[:, ::1] X,         # IN  (n, d) raw feature values (NaN allowed)
                                const double[:, ::1] Z,         # IN  (m, d) background rows (NaN allowed)
                                const int32_t[::1] player,      # IN  (d,) each column's player, 0..G−1
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
                                const double[:, ::1] weight,    # IN  (D + 1, D + 1) p! q! / (p + q + 1)!, D >= depths
                                double[:, :, ::1] out,          # IN/OUT (n, W, W), W > every player: sums added
                                int n_threads=1):
    """Add Σ_{z ∈ Z} Σ_t α_t H_t(x; z) to each row's block of ``out``: the pairs' Φ_pq off the diagonal, the
    players' SHAP values φ_p on it (divide by m, then set the main effects φ_p − Σ_{q≠p} Φ_pq).

    O(n · m · Σ_t (V_t + P_t · D_t)) time, V_t the nodes of tree t reached
    by the hybrids of x and z and P_t those where they part, parallel over
    rows; O(n_threads · (G + D)) memory and the recursion's O(D) stack.
    Each row is computed by one thread, trees in order, background rows in
    order within a tree: the result does not depend on ``n_threads``.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], m = Z.shape[0], T = roots.shape[0], N = feature.shape[0]
    cdef Py_ssize_t G = out.shape[1], depth = weight.shape[0], r, j, tid
    cdef Forest f
    cdef uint8_t* sides
    cdef int32_t* stacks
    if Z.shape[1] != d or player.shape[0] != d:
        raise ValueError(f"interventional_interactions: Z and player must have the {d} columns of X, got "
                         f"{Z.shape[1]} and {player.shape[0]}")
    if out.shape[0] != n or out.shape[2] != G:
        raise ValueError(f"interventional_interactions: out must have shape ({n}, G, G), got ({out.shape[0]}, "
                         f"{out.shape[1]}, {out.shape[2]})")
    for j in range(d):
        if player[j] < 0 or player[j] >= G:
            raise ValueError(f"interventional_interactions: column {j}'s player {player[j]} outside 0..{G - 1} "
                             f"(out's blocks are {G} wide)")
    for name, arr in (("threshold", threshold), ("nan_left", nan_left), ("left", left), ("right", right),
                      ("value", value), ("is_cat", is_cat)):
        if arr.shape[0] != N:
            raise ValueError(f"interventional_interactions: {name} must have one entry per node ({N}), got "
                             f"{arr.shape[0]}")
    if cat_offset.shape[0] != N + 1 or alpha.shape[0] != T or depth < 1 or weight.shape[1] != depth:
        raise ValueError("interventional_interactions: cat_offset needs nodes + 1 entries, alpha one per tree, "
                         "weight a non-empty square table")
    if n == 0 or m == 0 or T == 0 or d == 0:       # no column: no tree splits, every value is 0
        return
    f.feature, f.threshold, f.nan_left = &feature[0], &threshold[0], &nan_left[0]
    f.left, f.right, f.value, f.cover = &left[0], &right[0], &value[0], NULL
    f.is_cat, f.cat_offset = &is_cat[0], &cat_offset[0]
    f.cat_values = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    n_threads = threads_for(<double> n * m * T, n_threads, 4096.0)
    sides = <uint8_t*> calloc(n_threads * G + 1, sizeof(uint8_t))
    stacks = <int32_t*> calloc(n_threads * depth, sizeof(int32_t))       # a + b <= the depth D < weight's side
    if sides == NULL or stacks == NULL:
        free(sides)
        free(stacks)
        raise MemoryError(f"interventional_interactions: no memory for {n_threads} rows of {G} players")
    try:
        with nogil:
            for r in prange(n, schedule="static", num_threads=n_threads):
                tid = threadid()
                _run_row(&f, &weight[0, 0], depth, sides + tid * G, stacks + tid * depth, &out[r, 0, 0], G,
                         &X[r, 0], &Z[0, 0], d, m, &player[0], &roots[0], &alpha[0], T)
    finally:
        free(sides)
        free(stacks)


cdef void _run_row(const Forest* f, const double* weight, Py_ssize_t stride, uint8_t* side, int32_t* parted,
                   double* out, Py_ssize_t width, const double* x, const double* Z, Py_ssize_t d, Py_ssize_t m,
                   const int32_t* player, const Py_ssize_t* roots, const double* alpha,
                   Py_ssize_t T) noexcept nogil:
    """One row's block: every tree in order, against every background row in order."""
    cdef Game g
    cdef double sums[SUMS]
    cdef Py_ssize_t t, s
    g.weight, g.stride, g.side, g.parted, g.out, g.width = weight, stride, side, parted, out, width
    for t in range(T):
        for s in range(m):
            _walk(f, &g, roots[t], roots[t], x, Z + s * d, player, alpha[t], 0, 0, sums)


cdef void _walk_cells(Game* g, const int32_t* level_player, const double* value, Py_ssize_t depth,
                      Py_ssize_t level, Py_ssize_t cell, Py_ssize_t x_cell, Py_ssize_t z_cell, double scale,
                      Py_ssize_t a, Py_ssize_t b, double* sums) noexcept nogil:
    """:func:`_walk` for an oblivious tree: the hybrid goes right at level l iff bit l of x's cell (its player in
    A, or x and z agree there) or of z's cell (in B); ``cell`` holds the bits below ``level`` taken so far."""
    cdef Py_ssize_t p, x_bit, z_bit
    cdef double x_sums[SUMS]
    cdef double z_sums[SUMS]
    if level == depth:
        _leaf_sums(g, scale * value[cell], a, b, sums)
        return
    p = level_player[level]
    x_bit = (x_cell >> level) & 1
    z_bit = (z_cell >> level) & 1
    if g.side[p] == 2:
        x_bit = z_bit
    elif g.side[p] == 0 and x_bit != z_bit:
        g.parted[a + b] = <int32_t> p
        g.side[p] = 1
        _walk_cells(g, level_player, value, depth, level + 1, cell | (x_bit << level), x_cell, z_cell, scale,
                    a + 1, b, x_sums)
        g.side[p] = 2
        _walk_cells(g, level_player, value, depth, level + 1, cell | (z_bit << level), x_cell, z_cell, scale,
                    a, b + 1, z_sums)
        g.side[p] = 0
        _parted(g, p, a, b, x_sums, z_sums, sums)
        return
    _walk_cells(g, level_player, value, depth, level + 1, cell | (x_bit << level), x_cell, z_cell, scale, a, b,
                sums)


def oblivious_interventional_interactions(
        const int32_t[::1] level_player,    # IN  (D,) each level's player as an index 0..U−1 of the tree's own
        const double[::1] value,            # IN  (2^D,) leaf values by cell
        double alpha,                       # IN  the tree's coefficient
        const Py_ssize_t[::1] x_cells,      # IN  (k,) the cells of the rows explained, distinct and ascending
        const double[::1] z_count,          # IN  (2^D,) background rows per cell
        const double[:, ::1] weight,        # IN  (>= D + 1, same) p! q! / (p + q + 1)!
        double[:, :, ::1] out,              # IN/OUT (k, U, U) block i: α Σ_c' count_c' H(x_cells[i]; c')
        int n_threads=1):
    """Add, for each cell c = x_cells[i], α Σ_{c'} count_{c'} H(c; c') to ``out[i]`` (H as
    :func:`interventional_interactions` adds it: pairs off the diagonal, SHAP values on it).

    In an oblivious tree a row's way down is fixed by the D bits of its
    cell, so the game of x and z depends on them only through their cells:
    each pair of cells is walked once, a background cell weighted by its
    rows.  O(k · C · (V + P · D)) time for k cells of rows, C ≤ min(m, 2^D)
    cells of background rows, V ≤ 2^(D+1) hybrid nodes and P parting nodes
    per pair, parallel over the k cells (block i written by one thread,
    background cells ascending: the result does not depend on
    ``n_threads``); O(n_threads · (U + D)) memory.  A cell paired with itself
    adds nothing and is skipped.
    """
    cdef Py_ssize_t depth = level_player.shape[0], n_cells = value.shape[0], k = x_cells.shape[0]
    cdef Py_ssize_t U = out.shape[1], i, tid
    cdef uint8_t* sides
    cdef int32_t* stacks
    if n_cells != (1 << depth) or z_count.shape[0] != n_cells or out.shape[0] != k or out.shape[2] != U \
            or weight.shape[0] < depth + 1 or weight.shape[1] != weight.shape[0]:
        raise ValueError("oblivious_interventional_interactions: expected 2^D values and background counts, one "
                         "(U, U) block of out per cell of x_cells, and a (>= D + 1)-square weight table")
    for i in range(k):
        if x_cells[i] < 0 or x_cells[i] >= n_cells:
            raise ValueError(f"oblivious_interventional_interactions: cell {x_cells[i]} outside 0..{n_cells - 1}")
        if i > 0 and x_cells[i] <= x_cells[i - 1]:
            raise ValueError("oblivious_interventional_interactions: x_cells must be distinct and ascending")
    for i in range(depth):
        if level_player[i] < 0 or level_player[i] >= U:
            raise ValueError(f"oblivious_interventional_interactions: level {i}'s player {level_player[i]} outside "
                             f"0..{U - 1}")
    if k == 0 or depth == 0:
        return
    n_threads = threads_for(<double> k * n_cells, n_threads, 4096.0)
    sides = <uint8_t*> calloc(n_threads * U + 1, sizeof(uint8_t))
    stacks = <int32_t*> calloc(n_threads * (depth + 1), sizeof(int32_t))
    if sides == NULL or stacks == NULL:
        free(sides)
        free(stacks)
        raise MemoryError(f"oblivious_interventional_interactions: no memory for {n_threads} rows of {U} players")
    try:
        with nogil:
            for i in prange(k, schedule="static", num_threads=n_threads):
                tid = threadid()
                _cell_block(&level_player[0], &value[0], depth, x_cells[i], &z_count[0], n_cells, alpha,
                            &weight[0, 0], weight.shape[1], sides + tid * U, stacks + tid * (depth + 1),
                            &out[i, 0, 0], U)
    finally:
        free(sides)
        free(stacks)


cdef void _cell_block(const int32_t* level_player, const double* value, Py_ssize_t depth, Py_ssize_t c,
                      const double* z_count, Py_ssize_t n_cells, double alpha, const double* weight,
                      Py_ssize_t stride, uint8_t* side, int32_t* parted, double* out,
                      Py_ssize_t U) noexcept nogil:
    """One cell's block: every background cell with rows, ascending."""
    cdef Game g
    cdef double sums[SUMS]
    cdef Py_ssize_t cz
    g.weight, g.stride, g.side, g.parted, g.out, g.width = weight, stride, side, parted, out, U
    for cz in range(n_cells):
        if z_count[cz] != 0 and cz != c:
            _walk_cells(&g, level_player, value, depth, 0, 0, c, cz, alpha * z_count[cz], 0, 0, sums)


def oblivious_cells(const double[:, ::1] X,              # IN  (n, d) raw feature values (NaN allowed)
                    const int32_t[::1] level_feature,    # IN  every tree's level features (columns of X), concatenated
                    const double[::1] level_threshold,   # IN  right iff x > threshold
                    const uint8_t[::1] level_nan_left,   # IN  NaN goes left
                    const Py_ssize_t[::1] level_start,   # IN  (T + 1,) tree t's levels: [start[t], start[t+1])
                    int32_t[:, ::1] cells,               # OUT (T, n) each row's cell in each tree
                    int n_threads=1):
    """Each row's cell in each oblivious tree, found as prediction finds it: bit l of ``cells[t, r]`` set iff
    X[r, feature] > threshold at level l of tree t, NaN iff not nan_left.

    The one place the rows' cells are computed: the caller counts them to
    build the trees' tables and hands them to :func:`add_cell_blocks` (or,
    for the SHAP values, to ``_treeshap.add_cell_values``).
    O(n · Σ_t D_t) time, parallel over rows (a row's cells written by one
    thread, integers: the result does not depend on ``n_threads``); no
    memory beyond ``cells`` (T · n int32, tree t's row contiguous for
    counting).
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], T = cells.shape[0], L = level_feature.shape[0], r, t, k
    if cells.shape[1] != n or level_start.shape[0] != T + 1:
        raise ValueError(f"oblivious_cells: cells must be (T, {n}) for level_start's T + 1 entries, got "
                         f"({T}, {cells.shape[1]}) and {level_start.shape[0]} entries")
    if level_threshold.shape[0] != L or level_nan_left.shape[0] != L:
        raise ValueError(f"oblivious_cells: level_threshold and level_nan_left need {L} entries, got "
                         f"{level_threshold.shape[0]} and {level_nan_left.shape[0]}")
    for t in range(T):
        if level_start[t] < 0 or level_start[t + 1] < level_start[t] or level_start[t + 1] > L \
                or level_start[t + 1] - level_start[t] > 30:
            raise ValueError(f"oblivious_cells: tree {t}'s levels [{level_start[t]}, {level_start[t + 1]}) are not "
                             f"0..30 levels within the {L} given")
    for k in range(L):
        if level_feature[k] < 0 or level_feature[k] >= d:
            raise ValueError(f"oblivious_cells: level {k} splits column {level_feature[k]}, X has {d}")
    if T == 0 or n == 0:
        return
    n_threads = threads_for(<double> n * (L + T), n_threads, 16384.0)
    # the levels' arrays as pointers (none when every tree is a single leaf: no level is read then)
    cdef const int32_t* lf = &level_feature[0] if L > 0 else NULL
    cdef const double* lt = &level_threshold[0] if L > 0 else NULL
    cdef const uint8_t* ln = &level_nan_left[0] if L > 0 else NULL
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                cells[t, r] = _cell_bits(&X[r, 0], lf, lt, ln, level_start[t], level_start[t + 1])


cdef inline int32_t _cell_bits(const double* x, const int32_t* level_feature, const double* level_threshold,
                               const uint8_t* level_nan_left, Py_ssize_t k0, Py_ssize_t k1) noexcept nogil:
    """``_cell_of`` (``_treeshap_path.pxd``) without branches: a row's way at a level is as random as the data, so
    a mispredicted branch per level cost more than the comparisons (bit l: x > threshold, or x NaN and not
    nan_left; a comparison with NaN is false)."""
    cdef Py_ssize_t l
    cdef int32_t cell = 0
    cdef double v
    for l in range(k1 - k0):
        v = x[level_feature[k0 + l]]
        cell = cell | (<int32_t> ((v > level_threshold[k0 + l]) | ((v != v) & (level_nan_left[k0 + l] == 0))) << l)
    return cell


def add_cell_blocks(const int32_t[:, ::1] cells,         # IN  (T, n) each row's cell in each tree (oblivious_cells)
                    const int32_t[::1] slot,             # IN  every tree's 2^D_t cells' blocks in its table, concat.
                    const Py_ssize_t[::1] slot_start,    # IN  (T + 1,) tree t's slots: [start[t], start[t+1])
                    const double[::1] table,             # IN  every tree's (k_t, U_t, U_t) blocks, concatenated
                    const Py_ssize_t[::1] table_start,   # IN  (T,) where tree t's table starts
                    const int32_t[::1] used_player,      # IN  every tree's distinct players (columns of out's blocks)
                    const Py_ssize_t[::1] used_start,    # IN  (T + 1,) tree t's: [start[t], start[t+1])
                    double[:, :, ::1] out,               # IN/OUT (n, W, W), W > every player: blocks added
                    int n_threads=1):
    """Add each tree's block of each row's cell (:func:`oblivious_interventional_interactions`) to its matrix.

    The rows' cells come from :func:`oblivious_cells`, computed once for
    the tables and for this; ``slot`` gives a cell's block in the tree's
    table, which the caller built for the cells of these very rows (a cell
    without one, slot −1, adds nothing).  O(n · Σ_t U_t²) time (and a pass
    over ``cells`` checking them), parallel over rows; each row owned by
    one thread, trees in order: the result does not depend on
    ``n_threads``.  No memory beyond the arguments.  Slots, player ranges or
    table starts that would read outside their arrays, and cells outside
    their trees, are refused (ValueError) before anything is added.
    """
    cdef Py_ssize_t n = cells.shape[1], T = cells.shape[0], G = out.shape[1], r, t, a, b, U, u0, s, bad = 0
    cdef const double* block
    cdef double* to
    if slot_start.shape[0] != T + 1 or used_start.shape[0] != T + 1 or table_start.shape[0] != T \
            or out.shape[0] != n or out.shape[2] != G:
        raise ValueError("add_cell_blocks: slot_start and used_start need T + 1 entries, table_start T (cells' "
                         "rows), out cells' columns")
    if T > 0 and (used_start[T] > used_player.shape[0] or slot_start[T] > slot.shape[0]):
        raise ValueError("add_cell_blocks: used_start or slot_start runs past used_player or slot")
    t = _bad_layout(slot, slot_start, table.shape[0], table_start, used_start, T)
    if t >= 0:
        raise ValueError(f"add_cell_blocks: tree {t}'s slots, players or blocks are not ascending ranges within "
                         f"slot, used_player and table (slots -1 or a block inside the table)")
    for t in range(used_start[T] if T > 0 else 0):
        if used_player[t] < 0 or used_player[t] >= G:
            raise ValueError(f"add_cell_blocks: player {used_player[t]} outside 0..{G - 1}")
    if T == 0 or n == 0:
        return
    n_threads = threads_for(<double> n * T, n_threads, 4096.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                if cells[t, r] < 0 or cells[t, r] >= slot_start[t + 1] - slot_start[t]:
                    bad += 1
    if bad:
        raise ValueError(f"add_cell_blocks: {bad} cells outside their trees' 0..2^D − 1")
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                u0 = used_start[t]
                U = used_start[t + 1] - u0
                if U == 0:
                    continue
                s = slot[slot_start[t] + cells[t, r]]
                if s < 0:
                    continue
                block = &table[table_start[t] + s * U * U]
                for a in range(U):
                    to = &out[r, used_player[u0 + a], 0]
                    for b in range(U):
                        to[used_player[u0 + b]] += block[a * U + b]


cdef Py_ssize_t _bad_layout(const int32_t[::1] slot, const Py_ssize_t[::1] slot_start, Py_ssize_t table_size,
                            const Py_ssize_t[::1] table_start, const Py_ssize_t[::1] used_start, Py_ssize_t T):
    """The first tree whose arguments to :func:`add_cell_blocks` would read outside them, or −1: its slots and
    players not an ascending range from >= 0, a slot below −1, or its largest slot's (U, U) block not inside the
    table (the kernel reads the blocks unchecked, so an inconsistent caller must not get memory beyond them).
    O(Σ_t 2^D_t)."""
    cdef Py_ssize_t t, k, top, U
    for t in range(T):
        if slot_start[t] < 0 or slot_start[t + 1] < slot_start[t] or used_start[t] < 0 \
                or used_start[t + 1] < used_start[t]:
            return t
        top = -1
        for k in range(slot_start[t], slot_start[t + 1]):
            if slot[k] < -1:
                return t
            if slot[k] > top:
                top = slot[k]
        U = used_start[t + 1] - used_start[t]
        if U > 0 and top >= 0 and (table_start[t] < 0 or table_start[t] + (top + 1) * U * U > table_size):
            return t
    return -1


def main_effects(double[:, :, ::1] out,     # IN/OUT (n, G + 1, G + 1): the kernels' sums over the background
                 double m,                  # IN  the background's rows (> 0)
                 int n_threads=1):
    """Divide each row's (G, G) block of players by m, then set its diagonal to the main effects
    Φ_pp = φ_p − Σ_{q≠p} Φ_pq (φ_p the divided diagonal), so each row of the block sums to φ_p.

    The last row and column (the bias's) are left as they are.  O(n · G²)
    time, parallel over rows: each row's block is divided and summed by one
    thread, q ascending, so the result does not depend on ``n_threads``;
    no memory beyond ``out``.  A row's block (G² values) stays in cache
    between the division and the sums: one pass over ``out``, where the
    NumPy steps (divide, gather the diagonal, sum along rows) took three.
    """
    cdef Py_ssize_t n = out.shape[0], G = out.shape[1] - 1, r
    if out.shape[1] < 1 or out.shape[2] != out.shape[1]:
        raise ValueError(f"main_effects: out must have shape (n, G + 1, G + 1), got ({n}, {out.shape[1]}, "
                         f"{out.shape[2]})")
    if not m > 0:
        raise ValueError(f"main_effects: m must be a positive count of background rows, got {m}")
    if n == 0 or G == 0:
        return
    # About a nanosecond an entry, one pass over memory: a second thread saves at most half of that, while a
    # descheduled one costs a time slice (200 rows of 50 players: 0.5 ms on one thread, 4 ms on two, on the
    # loaded 2-core development machine), so only blocks of a million entries or more are split.
    n_threads = threads_for(<double> n * G * G, n_threads, 1048576.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            _row_main_effects(&out[r, 0, 0], G, m)


cdef void _row_main_effects(double* block, Py_ssize_t G, double m) noexcept nogil:
    """One row's (G + 1)-wide block: its G × G players' entries divided by m, then each diagonal entry less the
    rest of its row."""
    cdef Py_ssize_t W = G + 1, p, q
    cdef double rest
    for p in range(G):
        for q in range(G):
            block[p * W + q] = block[p * W + q] / m
    for p in range(G):
        rest = 0.0
        for q in range(G):
            if q != p:
                rest = rest + block[p * W + q]
        block[p * W + p] = block[p * W + p] - rest

"""Monotone constraints on oblivious trees: the leaf values' exact projection onto the monotone order.

An oblivious tree of depth D has 2^D cells, indexed by the bits
[x goes right at level l]; level l splits on (feature f_l, threshold t_l),
and the right side holds the larger values of f_l.  With a sign s_j ≠ 0 on
feature j (``monotone``), the tree is monotone in x_j (the other columns
fixed) iff for every level l with f_l = j and every cell c without bit l,

    s_j · (v[c + 2^l] − v[c]) ≥ 0,

since raising x_j (not NaN) only turns bits of j's levels on, one level at a
time.  These pairs generate a partial order on the cells (a product of
2-chains, one per constrained level, for each setting of the other bits).
A node that the level's split did not allow (``min_samples_leaf``,
``min_child_weight``) stays one leaf whose cells share its value, so the
variables are the tree's distinct leaves and the order is the preorder the
cell pairs induce on them (a pair inside one leaf says nothing).

The leaf values are the minimizer of the Newton objective
Σ_leaves G_k v_k + ½ (H_k + λ) v_k² over that order -- the weighted
least-squares projection of the Newton values −G_k/(H_k + λ), weights
H_k + λ (isotonic regression on the order).  It is solved exactly, in a
finite number of steps, by recursive partitioning (Maxwell and Muckstadt,
"Establishing consistent and realistic reorder intervals in
production-distribution systems", 1985; Luss, Rosset and Shahar,
"Decomposing isotonic regression for efficiently solving large problems",
2010): a block of leaves at its pooled value m = −ΣG/Σ(H + λ) is final when
no upper set of the block (closed under "is greater than" within it) has
Σ_k (H_k + λ)(y_k − m) > 0; otherwise the upper set of largest such sum -- a
maximum-weight closure, one minimum cut (Dinic's max-flow, in
``_isotonic_cuts.pyx``, without the GIL) -- and the rest are solved apart.
Each split leaves two smaller blocks, so at most K − 1 cuts for K leaves.
First the leaves split into the connected components of the order: a
component whose Newton values keep its order keeps them (they are its
minimizer); only the others are cut (a violated pair alone pools at once).
Floating point: a block whose best upper set sums to at most 1e-12 of
Σ|w(y − m)| is final, and a last pass raises each leaf to the largest value
of the leaves below it (a change of the order of the rounding at most), so
that the values keep the order exactly.

Why this solver: with several constrained levels (one column splitting
several levels, or several constrained columns in one tree) and leaves shared
by cells, the order is a general preorder on the leaves, not a set of
independent pairs or one chain, so neither pooling of pairs nor pool-adjacent-
violators is exact, and alternating projections (Dykstra) only converge.
Recursive partitioning is exact in finitely many steps on any preorder, so no
rule has to keep a constrained column to one level of a tree.

The split search stays the level's greedy one, its candidates on a
constrained feature scored by the exact projected gain of the level's own
pairs of children: a node whose children keep the sign's order gains as
without constraints, one whose children do not pools them to its own value
and gains 0 (``_oblivious_kernels._order_gains``).

Cost: nothing when no level of the tree splits a constrained feature; when
the Newton values already keep the order (tested first, O(D·2^D)), nothing
more; else at most K − 1 max-flows on blocks of K ≤ 2^D leaves and
D·2^(D−1) pairs in all, each on its block's own graph.  Measured (one
thread): a full tree with every level constrained and random Newton values,
the worst case, projects in about 0.3 s at depth 14 and 3 s at depth 16
(65,536 leaves); in fits the grown trees' values are nearly ordered already,
and depth-16 trees on 200,000 rows project in about 0.5 s.

Both growth routes (the native grower and ``ObliviousSearch``) call
:func:`monotone_cells` on the same sums and the same cells: the same values,
bit for bit.  NaN takes the side its level sends it to and is no value on
the constrained column's scale: the order says nothing about it.
"""

from __future__ import annotations

import numpy as np

from ._isotonic_cuts import components, partition_blocks
from ._no_split import uncapped_derivative

__all__ = ["monotone_cells", "monotone_grown", "oblivious_uncapped", "order_edges", "isotonic_leaves"]

def order_edges(leaf: np.ndarray, level_sign: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (lo, hi) of distinct leaves with v[lo] ≤ v[hi] that the constrained levels ask for.

    ``leaf``: each cell's leaf (2^D integers); ``level_sign``: each level's
    sign (its feature's; 0: free).  Duplicates are dropped; the pairs are
    sorted.  O(D·2^D) time and memory.
    """
    cells = np.arange(leaf.shape[0])
    lo_parts, hi_parts = [], []
    for level, sign in enumerate(np.asarray(level_sign).tolist()):
        if sign == 0:
            continue
        low = cells[(cells >> level) & 1 == 0]
        a, b = leaf[low], leaf[low | (1 << level)]
        if sign < 0:
            a, b = b, a
        keep = a != b
        lo_parts.append(a[keep])
        hi_parts.append(b[keep])
    if not lo_parts:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    n = int(leaf.max()) + 1
    key = np.unique(np.concatenate(lo_parts).astype(np.int64) * n + np.concatenate(hi_parts))
    return (key // n).astype(np.intp), (key % n).astype(np.intp)


def isotonic_leaves(G: np.ndarray, w: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """argmin_v Σ_k G_k v_k + ½ w_k v_k² subject to v[lo[e]] ≤ v[hi[e]] for every pair e (w > 0).

    The weighted isotonic regression of y = −G/w on the preorder of the
    pairs.  The problem splits into the connected components of the pairs:
    a component whose values y keep its pairs keeps them (y is then its
    minimizer), and every other component is solved by recursive
    partitioning (the module's docstring; ``_isotonic_cuts.partition_blocks``);
    a block's value is −ΣG/Σw, summed in leaf order.  Exact up to rounding; the order
    holds exactly in the result.  At most K − 1 minimum cuts for K leaves.
    """
    n = G.shape[0]
    if np.any(~(w > 0)):
        raise ValueError("isotonic_leaves: the weights H + l2 must be positive")
    G = np.ascontiguousarray(G, dtype=np.float64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    lo = np.ascontiguousarray(lo, dtype=np.intp)
    hi = np.ascontiguousarray(hi, dtype=np.intp)
    value = -G / w
    component = components(n, lo, hi)
    violated = np.zeros(n, dtype=bool)
    violated[component[lo[value[lo] > value[hi]]]] = True
    members = np.flatnonzero(violated[component])
    members = members[np.argsort(component[members], kind="stable")]      # by component, each ascending
    starts = np.r_[np.flatnonzero(np.r_[True, np.diff(component[members]) != 0]), members.size].astype(np.intp)
    partition_blocks(G, w, members, starts, lo, hi, value)
    return _raised(value, lo, hi)


def _raised(value: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Each leaf raised to the largest value below it in the order (only rounding can leave one lower)."""
    while lo.shape[0]:
        bad = value[lo] > value[hi]
        if not bad.any():
            break
        np.maximum.at(value, hi[bad], value[lo[bad]])
    return value


def monotone_cells(cell_node: np.ndarray, G: np.ndarray, H: np.ndarray, l2: float,
                   level_sign: np.ndarray, cap: float = 0.0) -> tuple[np.ndarray, float]:
    """(value per cell, derivative Σ_leaves G·v): a grown oblivious tree's leaf values projected onto the order.

    ``cell_node``: each cell's node (any numbering); ``G``, ``H``: Σg, Σh
    by node; ``level_sign``: each level's monotone sign (its feature's).
    The leaves are numbered in the order of their first cell, so the result
    does not depend on the routes' node numbering.  The derivative sums
    G·v over the leaves in that order (as the unconstrained trees').
    ``cap`` > 0 (``max_delta_step``): the projected values clamped to
    [−cap, cap] -- the projection onto the order within that box (a clamp
    is nondecreasing, so it keeps the order, and of the order's solutions
    the clamped one is the box's: weighted isotonic regression with the same
    bounds on every value is solved by clamping the unbounded solution).
    """
    cell_node = np.asarray(cell_node)
    nodes, first, inverse = np.unique(cell_node, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    leaf = rank[inverse.reshape(-1)]
    g = np.asarray(G, dtype=np.float64)[nodes[order]]
    w = np.asarray(H, dtype=np.float64)[nodes[order]] + l2
    value = -g / w
    lo, hi = order_edges(leaf, level_sign)
    if lo.shape[0] and np.any(value[lo] > value[hi]):
        value = isotonic_leaves(g, w, lo, hi)
    if cap > 0:
        value = np.minimum(np.maximum(value, -cap), cap)
    derivative = 0.0
    for gk, vk in zip(g.tolist(), value.tolist()):
        derivative += gk * vk
    return value[leaf], derivative


def monotone_grown(grower, l2: float, level_sign: np.ndarray, cap: float = 0.0) -> tuple[np.ndarray, float, bool]:
    """:func:`monotone_cells` of the tree an ``ObliviousGrower`` just grew, and whether some leaf value is at
    least the smallest normal number in magnitude (``ObliviousGrower.tree``'s test)."""
    value, derivative = monotone_cells(*grower.cell_sums(), l2, level_sign, cap)
    return value, derivative, bool(np.any(np.abs(value) >= np.finfo(np.float64).tiny))


def oblivious_uncapped(cell_node: np.ndarray, G: np.ndarray, H: np.ndarray, l2: float,
                       level_sign: np.ndarray | None = None) -> float:
    """Σ G·v of a grown oblivious tree's leaves at their values without the cap ``max_delta_step``: the Newton
    values, projected onto the monotone order when ``level_sign`` (each level's sign) constrains a level.

    ``cell_node``, ``G``, ``H``: as :func:`monotone_cells` takes them.  What the stop rule compares with tol
    for a capped tree (``_no_split.capped_stall_reason``).  O(2^levels), plus the projection.
    """
    if level_sign is not None and np.any(level_sign):
        return monotone_cells(cell_node, G, H, l2, level_sign)[1]
    nodes = np.unique(np.asarray(cell_node))
    return uncapped_derivative(np.asarray(G, dtype=np.float64)[nodes], np.asarray(H, dtype=np.float64)[nodes], l2)

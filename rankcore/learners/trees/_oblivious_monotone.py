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
maximum-weight closure, one minimum cut (Edmonds-Karp) -- and the rest are
solved apart.  Each split leaves two smaller blocks, so at most K − 1 cuts
for K leaves.  First the leaves split into the connected components of the
order: a component whose Newton values keep its order keeps them (they are
its minimizer), and a violated pair alone pools; only the others are cut.
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
more; else at most K − 1 max-flows on K ≤ 2^D nodes and D·2^(D−1) edges.

Both growth routes (the native grower and ``ObliviousSearch``) call
:func:`monotone_cells` on the same sums and the same cells: the same values,
bit for bit.  NaN takes the side its level sends it to and is no value on
the constrained column's scale: the order says nothing about it.
"""

from __future__ import annotations

from collections import deque

import numpy as np

__all__ = ["monotone_cells", "monotone_grown", "order_edges", "isotonic_leaves"]

#: A block is final when its best upper set sums to at most this share of Σ|w(y − m)| (rounding).
_CUT_TOLERANCE = 1e-12


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


def _max_closure(block: list[int], c: dict, succ: list[list[int]]) -> list[int]:
    """The smallest upper set U of ``block`` (closed under ``succ`` within it) maximizing Σ_{k∈U} c_k.

    A minimum s–t cut (Edmonds-Karp: breadth-first augmenting paths, a
    finite number of them): s → k of capacity c_k > 0, k → t of −c_k > 0,
    k → j unbounded for each order pair inside the block; U is the source
    side (what s reaches in the residual graph), closed since an unbounded
    edge is never saturated.  O(V·E²) time for V nodes and E edges.
    """
    inside = set(block)
    source, sink = -1, -2
    cap: dict[int, dict[int, float]] = {source: {}, sink: {}}
    for k in block:
        cap[k] = {}

    def add(u, v, x):
        cap[u][v] = cap[u].get(v, 0.0) + x
        cap[v].setdefault(u, 0.0)

    for k in block:
        if c[k] > 0:
            add(source, k, c[k])
        elif c[k] < 0:
            add(k, sink, -c[k])
        for j in succ[k]:
            if j in inside:
                add(k, j, np.inf)
    while True:
        parent = {source: None}
        queue = deque([source])
        while queue and sink not in parent:
            u = queue.popleft()
            for v, r in cap[u].items():
                if r > 0 and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if sink not in parent:
            return sorted(k for k in parent if k >= 0)
        flow, v = np.inf, sink
        while parent[v] is not None:
            flow = min(flow, cap[parent[v]][v])
            v = parent[v]
        v = sink
        while parent[v] is not None:
            u = parent[v]
            cap[u][v] -= flow
            cap[v][u] += flow
            v = u


def isotonic_leaves(G: np.ndarray, w: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """argmin_v Σ_k G_k v_k + ½ w_k v_k² subject to v[lo[e]] ≤ v[hi[e]] for every pair e (w > 0).

    The weighted isotonic regression of y = −G/w on the preorder of the
    pairs.  The problem splits into the connected components of the pairs:
    a component whose values y keep its pairs keeps them (y is then its
    minimizer), a violated pair alone is pooled, and any other component is
    solved by recursive partitioning (the module's docstring); a block's
    value is −ΣG/Σw, summed in leaf order.  Exact up to rounding; the order
    holds exactly in the result.  At most K − 1 minimum cuts for K leaves.
    """
    n = G.shape[0]
    if np.any(~(w > 0)):
        raise ValueError("isotonic_leaves: the weights H + l2 must be positive")
    value = -G / w
    component = _components(n, lo, hi)
    violated = np.unique(component[lo[value[lo] > value[hi]]])
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(lo.tolist(), hi.tolist()):
        succ[a].append(b)
    g, ww = G.tolist(), w.tolist()
    for c in violated.tolist():
        members = np.flatnonzero(component == c).tolist()
        if len(members) == 2:
            a, b = members
            value[a] = value[b] = -(g[a] + g[b]) / (ww[a] + ww[b])
            continue
        for block, m in _partition(members, g, ww, succ):
            value[block] = m
    return _raised(value, lo, hi)


def _components(n: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Each leaf's connected component of the pairs, numbered by its smallest leaf (union-find).  O(n + E·α)."""
    root = list(range(n))

    def find(k):
        while root[k] != k:
            root[k] = root[root[k]]
            k = root[k]
        return k
    for a, b in zip(lo.tolist(), hi.tolist()):
        ra, rb = find(a), find(b)
        if ra != rb:
            root[max(ra, rb)] = min(ra, rb)
    return np.array([find(k) for k in range(n)], dtype=np.intp)


def _partition(members: list[int], g: list, w: list, succ: list[list[int]]) -> list[tuple[list[int], float]]:
    """The blocks of ``members`` and their values by recursive partitioning: a block at m = −ΣG/Σw is split by
    its maximum-weight upper set (:func:`_max_closure`) while that set's Σ w(y − m) is above rounding."""
    out = []
    stack = [members]
    while stack:
        block = stack.pop()
        sg = sw = 0.0
        for k in block:
            sg += g[k]
            sw += w[k]
        m = -sg / sw
        c = {k: -g[k] - m * w[k] for k in block}           # w_k (y_k − m)
        upper = _max_closure(block, c, succ) if len(block) > 1 else []
        gain = sum(c[k] for k in upper)
        if not upper or len(upper) == len(block) or not gain > _CUT_TOLERANCE * sum(abs(x) for x in c.values()):
            out.append((block, m))
            continue
        taken = set(upper)
        stack.append([k for k in block if k not in taken])
        stack.append(upper)
    return out


def _raised(value: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Each leaf raised to the largest value below it in the order (only rounding can leave one lower)."""
    while lo.shape[0]:
        bad = value[lo] > value[hi]
        if not bad.any():
            break
        np.maximum.at(value, hi[bad], value[lo[bad]])
    return value


def monotone_cells(cell_node: np.ndarray, G: np.ndarray, H: np.ndarray, l2: float,
                   level_sign: np.ndarray) -> tuple[np.ndarray, float]:
    """(value per cell, derivative Σ_leaves G·v): a grown oblivious tree's leaf values projected onto the order.

    ``cell_node``: each cell's node (any numbering); ``G``, ``H``: Σg, Σh
    by node; ``level_sign``: each level's monotone sign (its feature's).
    The leaves are numbered in the order of their first cell, so the result
    does not depend on the routes' node numbering.  The derivative sums
    G·v over the leaves in that order (as the unconstrained trees').
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
    derivative = 0.0
    for gk, vk in zip(g.tolist(), value.tolist()):
        derivative += gk * vk
    return value[leaf], derivative


def monotone_grown(grower, l2: float, level_sign: np.ndarray) -> tuple[np.ndarray, float, bool]:
    """:func:`monotone_cells` of the tree an ``ObliviousGrower`` just grew, and whether some leaf value is at
    least the smallest normal number in magnitude (``ObliviousGrower.tree``'s test)."""
    value, derivative = monotone_cells(*grower.cell_sums(), l2, level_sign)
    return value, derivative, bool(np.any(np.abs(value) >= np.finfo(np.float64).tiny))

"""Kernels of the monotone oblivious trees' projection: the order's components, and recursive partitioning by
minimum cuts (Dinic's max-flow), without the GIL.

Design
------
A. ``components``: each leaf's connected component of the order pairs,
   numbered by its smallest leaf (union-find with path halving).
   O(n + E·α(n)) time, O(n) memory.
B. ``partition_blocks``: the weighted isotonic regression of y = −G/w on the
   preorder of the pairs, within each of the given blocks, by recursive
   partitioning (``_oblivious_monotone.py``'s docstring).  A block, its
   leaves in ascending order, is valued at m = −ΣG/Σw (summed in that order);
   its upper set U of largest Σ_{k∈U} c_k, c_k = −G_k − m·w_k, is the source
   side of a minimum s–t cut: s → k of capacity c_k > 0, k → t of −c_k > 0,
   k → j unbounded for each pair (k, j) inside the block.  The smallest such
   U is what s reaches in the residual graph of a maximum flow, whichever
   flow, so the blocks are those of the Python recursion of the same
   arithmetic (``tests/_tree_references.py``).  The block is final when U is
   empty or all of it, or Σ_U c ≤ 1e-12·Σ|c|; else U and the rest (both still
   ascending: stable partitions) are solved apart, each with its own pairs
   (the pairs across the cut are dropped: U is an upper set).
   The maximum flow is Dinic's (breadth-first levels, blocking flows by a
   depth-first walk with a current-arc pointer per node): O(V²·E) time for
   V nodes and E arcs, much less on these graphs.  Each augmentation
   saturates its bottleneck arc exactly (x − x = 0), so it terminates on
   real capacities.  A block's graph is rebuilt in CSR form (arrays, no
   allocation per cut).
   Time: at most K − 1 cuts on blocks of K leaves in all; one cut of a block
   of V leaves and E pairs costs one max-flow on V + 2 nodes and ≤ V + E
   arcs.  Memory: O(n + K + E) for n leaves (the graph of the largest
   block, its scratch, the stack of blocks), nothing allocated per cut.
"""

from libc.math cimport INFINITY, fabs

import numpy as np

cdef double CUT_TOLERANCE = 1e-12     # a block is final when its best upper set sums to at most this share of Σ|c|


def components(Py_ssize_t n, const Py_ssize_t[::1] lo, const Py_ssize_t[::1] hi):
    """Each of ``n`` leaves' connected component of the pairs (lo[e], hi[e]), numbered by its smallest leaf.

    Union-find, O(n + E·α(n)) time, O(n) memory; the GIL is released.
    """
    root_array = np.arange(n, dtype=np.intp)
    cdef Py_ssize_t[::1] root = root_array
    cdef Py_ssize_t e, ra, rb, k
    if lo.shape[0] != hi.shape[0]:
        raise ValueError("components: lo and hi must have the same length")
    with nogil:
        for e in range(lo.shape[0]):
            ra = _find(root, lo[e])
            rb = _find(root, hi[e])
            if ra < rb:
                root[rb] = ra
            elif rb < ra:
                root[ra] = rb
        for k in range(n):
            root[k] = _find(root, k)
    return root_array


cdef inline Py_ssize_t _find(Py_ssize_t[::1] root, Py_ssize_t k) noexcept nogil:
    while root[k] != k:
        root[k] = root[root[k]]
        k = root[k]
    return k


cdef struct Flow:
    # a block's graph in CSR form: node v's arcs are head[v] .. head[v + 1] - 1
    Py_ssize_t* head          # (V + 1)
    Py_ssize_t* to            # (A) each arc's head node
    Py_ssize_t* rev           # (A) each arc's reverse arc
    double* cap               # (A) residual capacities
    Py_ssize_t* level         # (V) breadth-first level from s (-1: not reached): ≥ 0 on the source side at the end
    Py_ssize_t* cursor        # (V) each node's current arc (the CSR fill, then a phase's walk)
    Py_ssize_t* queue         # (V) the breadth-first queue
    Py_ssize_t* path          # (V) the depth-first walk's arcs
    Py_ssize_t* local         # (n) a leaf's index in its block while the block is cut
    Py_ssize_t* scratch       # (max(K, 2E)) the leaves, then the pairs, of the rest during a split
    double* c                 # (K) the block's w_k (y_k − m)


def partition_blocks(const double[::1] G, const double[::1] w, const Py_ssize_t[::1] members,
                     const Py_ssize_t[::1] starts, const Py_ssize_t[::1] lo, const Py_ssize_t[::1] hi,
                     double[::1] value):
    """Write the isotonic regression's value of every leaf in ``members`` into ``value`` (and return it).

    ``members``: the leaves of the blocks to solve, block b's (ascending) at
    members[starts[b]:starts[b + 1]]; ``lo``, ``hi``: the order pairs
    (v[lo] ≤ v[hi]), those with an end outside the blocks or ends in two
    blocks ignored.  G, w (w > 0): by leaf.  Recursive partitioning by
    minimum cuts (the module's docstring): at most K − 1 max-flows for K
    members, O(n + K + E) memory.  The GIL is released.
    """
    cdef Py_ssize_t n = G.shape[0], n_blocks = starts.shape[0] - 1
    if w.shape[0] != n or value.shape[0] != n or lo.shape[0] != hi.shape[0] or n_blocks < 0:
        raise ValueError("partition_blocks: G, w and value must hold one entry per leaf, lo and hi one per pair, "
                         "starts at least one entry")
    block_of = np.full(n, -1, dtype=np.intp)
    block_of[np.asarray(members)] = np.repeat(np.arange(n_blocks, dtype=np.intp), np.diff(np.asarray(starts)))
    lo_a, hi_a = np.asarray(lo), np.asarray(hi)
    inside = (block_of[lo_a] >= 0) & (block_of[lo_a] == block_of[hi_a])
    order = np.argsort(block_of[lo_a[inside]], kind="stable")
    edge_lo = np.ascontiguousarray(lo_a[inside][order])
    edge_hi = np.ascontiguousarray(hi_a[inside][order])
    edge_starts = np.searchsorted(block_of[edge_lo], np.arange(n_blocks + 1)).astype(np.intp)
    cdef Py_ssize_t K = members.shape[0], E = edge_lo.shape[0]
    cdef Py_ssize_t V = K + 2, A = 2 * (K + E)
    perm = np.array(members, dtype=np.intp)
    ints = np.empty(5 * V + 1 + 2 * A + n + max(K, 2 * E) + 4 * max(K, n_blocks), dtype=np.intp)
    doubles = np.empty(A + K + 1)       # never empty: &db[0] is taken
    cdef Py_ssize_t[::1] p = perm, el = edge_lo, eh = edge_hi, es = edge_starts, ib = ints
    cdef double[::1] db = doubles
    cdef Flow f
    f.head, f.level, f.cursor, f.queue, f.path = &ib[0], &ib[V + 1], &ib[2 * V + 1], &ib[3 * V + 1], &ib[4 * V + 1]
    f.to, f.rev, f.local = f.path + V, f.path + V + A, f.path + V + 2 * A
    f.scratch = f.local + n
    f.cap, f.c = &db[0], &db[A]
    with nogil:
        _solve(&f, G, w, p, starts, el, eh, es, value, f.scratch + max(K, 2 * E))
    return value


cdef void _solve(Flow* f, const double[::1] G, const double[::1] w, Py_ssize_t[::1] perm,
                 const Py_ssize_t[::1] starts, Py_ssize_t[::1] el, Py_ssize_t[::1] eh, const Py_ssize_t[::1] es,
                 double[::1] value, Py_ssize_t* stack) noexcept nogil:
    """The stack of blocks (4 entries each: a leaf range in ``perm``, a pair range in ``el``/``eh``, disjoint:
    at most K of them): pop one, value it or cut it, push both sides."""
    cdef Py_ssize_t top = 0, b, a0, a1, e0, e1, i, nb, nu, up, rest
    cdef double sg, sw, m, gain, total
    for b in range(starts.shape[0] - 1):
        if starts[b + 1] > starts[b]:
            _push(stack, &top, starts[b], starts[b + 1], es[b], es[b + 1])
    while top > 0:
        top -= 1
        a0, a1, e0, e1 = stack[4 * top], stack[4 * top + 1], stack[4 * top + 2], stack[4 * top + 3]
        nb = a1 - a0
        sg = 0.0
        sw = 0.0
        for i in range(a0, a1):
            sg = sg + G[perm[i]]
            sw = sw + w[perm[i]]
        m = -sg / sw
        total = 0.0
        for i in range(nb):
            f.c[i] = -G[perm[a0 + i]] - m * w[perm[a0 + i]]
            total = total + fabs(f.c[i])
        nu = 0
        gain = 0.0
        if nb > 1:
            nu = _min_cut(f, nb, perm, a0, el, eh, e0, e1)
            for i in range(nb):
                if f.level[i] >= 0:
                    gain = gain + f.c[i]
        if nu == 0 or nu == nb or not gain > CUT_TOLERANCE * total:
            for i in range(a0, a1):
                value[perm[i]] = m
            continue
        up = _split(f, perm, a0, a1, el, eh, e0, e1, &rest)
        _push(stack, &top, a0 + nu, a1, up, up + rest)
        _push(stack, &top, a0, a0 + nu, e0, up)


cdef inline void _push(Py_ssize_t* stack, Py_ssize_t* top, Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t e0,
                       Py_ssize_t e1) noexcept nogil:
    cdef Py_ssize_t* entry = stack + 4 * top[0]
    entry[0], entry[1], entry[2], entry[3] = a0, a1, e0, e1
    top[0] += 1


cdef Py_ssize_t _min_cut(Flow* f, Py_ssize_t nb, Py_ssize_t[::1] perm, Py_ssize_t a0, Py_ssize_t[::1] el,
                         Py_ssize_t[::1] eh, Py_ssize_t e0, Py_ssize_t e1) noexcept nogil:
    """Build the block's flow graph from f.c and its pairs, run Dinic; f.level[i] ≥ 0 marks the source side at
    the end (what s reaches in the residual graph).  Returns the source side's size."""
    cdef Py_ssize_t s = nb, t = nb + 1, V = nb + 2, i, e, v, nu = 0
    for i in range(nb):
        f.local[perm[a0 + i]] = i
    for v in range(V + 1):
        f.head[v] = 0
    for i in range(nb):                           # degrees, shifted by one: head[v + 1] counts v's arcs
        if f.c[i] > 0:
            f.head[s + 1] += 1
            f.head[i + 1] += 1
        elif f.c[i] < 0:
            f.head[i + 1] += 1
            f.head[t + 1] += 1
    for e in range(e0, e1):
        f.head[f.local[el[e]] + 1] += 1
        f.head[f.local[eh[e]] + 1] += 1
    for v in range(V):
        f.head[v + 1] += f.head[v]
        f.cursor[v] = f.head[v]
    for i in range(nb):
        if f.c[i] > 0:
            _arc_pair(f, s, i, f.c[i])
        elif f.c[i] < 0:
            _arc_pair(f, i, t, -f.c[i])
    for e in range(e0, e1):
        _arc_pair(f, f.local[el[e]], f.local[eh[e]], INFINITY)
    while _levels(f, s, t, V):
        _blocking_flow(f, s, t, V)
    for i in range(nb):
        if f.level[i] >= 0:
            nu += 1
    return nu


cdef inline void _arc_pair(Flow* f, Py_ssize_t u, Py_ssize_t v, double capacity) noexcept nogil:
    """u → v of ``capacity`` and its reverse v → u of 0, at the nodes' cursors (the CSR fill)."""
    cdef Py_ssize_t a = f.cursor[u], r = f.cursor[v]
    f.to[a], f.cap[a], f.rev[a] = v, capacity, r
    f.to[r], f.cap[r], f.rev[r] = u, 0.0, a
    f.cursor[u] += 1
    f.cursor[v] += 1


cdef bint _levels(Flow* f, Py_ssize_t s, Py_ssize_t t, Py_ssize_t V) noexcept nogil:
    """Breadth-first levels from s over arcs with residual capacity; whether t is reached."""
    cdef Py_ssize_t v, a, u, first = 0, last = 1
    for v in range(V):
        f.level[v] = -1
    f.level[s] = 0
    f.queue[0] = s
    while first < last:
        v = f.queue[first]
        first += 1
        for a in range(f.head[v], f.head[v + 1]):
            u = f.to[a]
            if f.cap[a] > 0 and f.level[u] < 0:
                f.level[u] = f.level[v] + 1
                f.queue[last] = u
                last += 1
    return f.level[t] >= 0


cdef void _blocking_flow(Flow* f, Py_ssize_t s, Py_ssize_t t, Py_ssize_t V) noexcept nogil:
    """Augment along level-increasing paths until none is left (a depth-first walk, current-arc pointers)."""
    cdef Py_ssize_t v = s, depth = 0, a, u, i
    cdef double x
    for i in range(V):
        f.cursor[i] = f.head[i]
    while True:
        if v == t:
            x = INFINITY
            for i in range(depth):
                if f.cap[f.path[i]] < x:
                    x = f.cap[f.path[i]]
            for i in range(depth):
                a = f.path[i]
                f.cap[a] -= x
                f.cap[f.rev[a]] += x
            for i in range(depth):               # back to the tail of the first saturated arc
                if not f.cap[f.path[i]] > 0:
                    depth = i
                    break
            v = s if depth == 0 else f.to[f.path[depth - 1]]
            continue
        while f.cursor[v] < f.head[v + 1]:
            a = f.cursor[v]
            u = f.to[a]
            if f.cap[a] > 0 and f.level[u] == f.level[v] + 1:
                break
            f.cursor[v] += 1
        if f.cursor[v] < f.head[v + 1]:
            f.path[depth] = f.cursor[v]
            depth += 1
            v = f.to[f.cursor[v]]
            continue
        if v == s:
            return
        f.level[v] = -1                          # a dead end for the rest of the phase
        depth -= 1
        v = f.to[f.rev[f.path[depth]]]
        f.cursor[v] += 1


cdef Py_ssize_t _split(Flow* f, Py_ssize_t[::1] perm, Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t[::1] el,
                       Py_ssize_t[::1] eh, Py_ssize_t e0, Py_ssize_t e1, Py_ssize_t* rest) noexcept nogil:
    """Stable partitions of the block: its leaves on the source side first, then the others; its pairs inside the
    source side first, then those inside the other side (``rest``: how many), the crossing ones dropped.  Returns
    the end of the source side's pairs."""
    cdef Py_ssize_t i, k = a0, e, x, n_other = 0, up = e0
    for i in range(a1 - a0):
        x = perm[a0 + i]
        if f.level[i] >= 0:
            perm[k] = x
            k += 1
        else:
            f.scratch[n_other] = x
            n_other += 1
    for i in range(n_other):
        perm[k + i] = f.scratch[i]
    rest[0] = 0
    for e in range(e0, e1):
        x = f.level[f.local[el[e]]] >= 0
        if x and f.level[f.local[eh[e]]] >= 0:
            el[up], eh[up] = el[e], eh[e]
            up += 1
        elif not x and f.level[f.local[eh[e]]] < 0:
            f.scratch[2 * rest[0]], f.scratch[2 * rest[0] + 1] = el[e], eh[e]
            rest[0] += 1
    for i in range(rest[0]):
        el[up + i], eh[up + i] = f.scratch[2 * i], f.scratch[2 * i + 1]
    return up

"""Plain reference rules shared by the trees' tests (bundling, split choice, node histograms), written without the
kernels, and the statistics the route-equality tests grow trees on."""

from collections import deque

import numpy as np


def greedy_bundles(rows, n_edges, max_codes, groups=None, *, open_new=True):
    """Features by decreasing non-default row count, each into the first group it fits, as sets.

    A feature fits a group when the group's codes plus its n_edges + 2 stay
    within ``max_codes`` and it shares no non-default row with the group.
    ``groups`` continues earlier groups (dicts of members, codes, rows);
    without ``open_new`` a feature that fits nowhere stays out.  Returns the
    groups, groups of one included.
    """
    groups = [] if groups is None else groups
    for j in sorted(rows, key=lambda j: (-len(rows[j]), j)):
        for g in groups:
            if g["codes"] + n_edges[j] + 2 <= max_codes and not (set(rows[j]) & g["rows"]):
                g["members"].append(j)
                g["codes"] += n_edges[j] + 2
                g["rows"] |= set(rows[j])
                break
        else:
            if open_new:
                groups.append({"members": [j], "codes": 1 + n_edges[j] + 2, "rows": set(rows[j])})
    return groups


def numeric_split_gains(cums, nan_sums, totals, n_bins, parent, min_samples_leaf, min_child_weight, l2):
    """``(gain, b, nan_left)`` of every admissible split of one numeric feature, in the kernel's order.

    ``cums`` yields ``(b, g, h, count)``: the sums over bins 0..b; ``nan_sums``
    and ``totals`` are the NaN slot's and the node's ``(g, h, count)``; a
    split at ``b == n_bins`` sends only the NaN rows right.
    """
    ng, nh, nc = nan_sums
    G, H, C = totals
    for b, cg, ch, cc in cums:
        for nan_left in (True, False):
            if b == n_bins and (nan_left or nc <= 0):
                continue
            if nc <= 0 and nan_left != (cc >= C - cc):
                continue
            lg, lh, lc = (cg + ng, ch + nh, cc + nc) if nan_left else (cg, ch, cc)
            rg, rh, rc = G - lg, H - lh, C - lc
            if min(lc, rc) < min_samples_leaf or min(lh, rh) < min_child_weight or lh + l2 <= 0 or rh + l2 <= 0:
                continue
            yield lg * lg / (lh + l2) + rg * rg / (rh + l2) - parent, b, nan_left


def capped_term(G, H, l2, cap):
    """A leaf's gain term under the cap ±``cap`` (``max_delta_step``; 0: none), in plain floats: G²/(H+λ) while
    w = −G/(H+λ) lies within the cap, else −(2·G·w + (H+λ)·w²) at w clamped to it."""
    w = -G / (H + l2)
    if cap <= 0 or -cap <= w <= cap:
        return G * G / (H + l2)
    w = min(max(w, -cap), cap)
    return -(2.0 * G * w + (H + l2) * w * w)


def first_within_tolerance(cands, scale, tolerance):
    """The split search's choice among candidates (gain first): the first within ``tolerance`` × scale of the
    best gain, scale being the larger of ``scale`` (the parent terms) and the best; None without a gain."""
    if not cands:
        return None
    best = max(c[0] for c in cands)
    scale = max(scale, best)
    if not best > tolerance * scale:
        return None
    return next(c for c in cands if c[0] >= best - tolerance * scale)


_M64 = (1 << 64) - 1


def _mix(z):
    """splitmix64's finalizer of z + golden ratio, on Python integers."""
    z = (z + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def split_noise_reference(seed, node, feature):
    """The random strength's deviate of (seed, node, feature): the hash's top 12 bits pick the normal
    quantile Φ⁻¹((i + ½)/4096) (plain Python and the standard library)."""
    from statistics import NormalDist

    a = _mix((_mix((seed ^ _mix(node)) & _M64) + feature) & _M64)
    return NormalDist().inv_cdf(((a >> 52) + 0.5) / 4096)


def noisy_feature(feature_best, threshold, strength, seed, node):
    """The feature random strength picks: argmax_j best_j + r·m·z_j over the features whose best gain
    exceeds ``threshold`` (m: the lower median of those gains, or of the 31 at positions ⌊i·k/31⌋ of
    the k in feature order when k > 31; the first j on ties); None if none can."""
    can = sorted(j for j, v in feature_best.items() if v > threshold)
    if not can:
        return None
    sample = can if len(can) <= 31 else [can[(i * len(can)) // 31] for i in range(31)]
    median = sorted(feature_best[j] for j in sample)[(len(sample) - 1) // 2]
    noisy = {j: feature_best[j] + strength * median * split_noise_reference(seed, node, j) for j in can}
    top = max(noisy.values())
    return next(j for j in can if noisy[j] == top)


def node_histogram(codes, slots, g, h, rows, unit_h):
    """(Σg, Σh, count) per slot of the rows ``rows`` of row-major ``codes``, each sum in row order.

    ``np.add.at`` adds repeated slots one after the other, as the kernels do; with ``unit_h`` every
    row's curvature is 1, so Σh is the count.
    """
    hist = np.zeros((slots.n_slots, 3))
    col_base = np.asarray(slots.col_base)
    for c in range(codes.shape[1]):
        at = col_base[c] + codes[rows, c].astype(np.intp)
        np.add.at(hist[:, 0], at, g[rows])
        np.add.at(hist[:, 1], at, 1.0 if unit_h else h[rows])
        np.add.at(hist[:, 2], at, 1.0)
    return hist


def sparse_and_dense_block(rng, n, n_dense):
    """60 sparse columns (4 % nonzero: bundled, listed rows) beside ``n_dense`` dense ones with 5 % NaN:
    the rows, their trees layout and its encoded block."""
    from rankcore.registry import resolve

    sparse = np.round(rng.normal(size=(n, 60)), 1) * (rng.random((n, 60)) < 0.04)
    dense = np.round(rng.normal(size=(n, n_dense)), 2)
    dense[rng.random(dense.shape) < 0.05] = np.nan
    X = np.hstack([sparse, dense])
    layout = resolve("learner", "trees").prepare(X, random_state=0)
    block = layout.encode(X)
    assert block.listed is not None and layout.bundles
    return X, layout, block


def route_statistics(n, count, curvature, seed=7):
    """``count`` gradient vectors (one with tied values) and curvatures of a kind, for comparing two tree routes.

    ``curvature``: ``"ones"``, ``"weights"`` (0-3, a tenth of the rows of zero weight) or ``"hessian"``
    (positive, varying).
    """
    rng = np.random.default_rng(seed)
    gradients = [rng.normal(size=n) for _ in range(count)]
    gradients[1][rng.random(n) < 0.3] = 0.25               # tied gradients
    if curvature == "ones":
        return gradients, [np.ones(n)] * count
    if curvature == "weights":
        w = rng.uniform(0.0, 3.0, n)
        w[rng.random(n) < 0.1] = 0.0                        # rows of zero weight
        return gradients, [w] * count
    return gradients, [rng.uniform(1e-3, 2.0, n) for _ in range(count)]


def isotonic_by_enumeration(G, w, pairs):
    """argmin_v Σ G_k v_k + ½ w_k v_k² subject to v[a] ≤ v[b] for (a, b) in ``pairs``, by brute force.

    The minimizer pools each connected component of the pairs it holds with
    equality at −ΣG/Σw (its KKT conditions: the pairs between components hold
    strictly, so carry no multiplier).  So it is the best feasible point among
    the poolings of every subset of the pairs: 2^|pairs| of them.
    """
    G, w = np.asarray(G, dtype=float), np.asarray(w, dtype=float)
    n = G.shape[0]
    pairs = sorted(set((int(a), int(b)) for a, b in pairs))
    scale = np.abs(G / w).max() + 1.0
    best, best_objective = None, np.inf
    for subset in range(1 << len(pairs)):
        root = list(range(n))

        def find(k):
            while root[k] != k:
                k = root[k]
            return k
        for e, (a, b) in enumerate(pairs):
            if subset >> e & 1:
                root[find(a)] = find(b)
        comp = np.array([find(k) for k in range(n)])
        v = np.empty(n)
        for c in np.unique(comp):
            v[comp == c] = -G[comp == c].sum() / w[comp == c].sum()
        if all(v[a] <= v[b] + 1e-12 * scale for a, b in pairs):
            objective = float(np.sum(G * v + 0.5 * w * v * v))
            if objective < best_objective:
                best, best_objective = v, objective
    return best


def monotone_cell_pairs(cell_leaf, level_sign):
    """The pairs (lo, hi) of leaves of cells that differ only in one constrained level (hi: the greater side
    for sign +1), leaves of one cell pair being different: the order an oblivious tree's leaves must keep."""
    pairs = set()
    for c in range(len(cell_leaf)):
        for level, sign in enumerate(level_sign):
            if sign and not c >> level & 1:
                a, b = cell_leaf[c], cell_leaf[c | 1 << level]
                if a != b:
                    pairs.add((a, b) if sign > 0 else (b, a))
    return pairs


def isotonic_leaves_by_cuts(G, w, lo, hi):
    """``isotonic_leaves`` in plain Python: the violated components of the pairs by union-find, each solved by
    recursive partitioning with a dict-of-dicts Edmonds-Karp minimum cut per block (the same arithmetic as
    ``_isotonic_cuts.partition_blocks``: the same blocks, so the same values bit for bit but for ties of the
    rounding), then each leaf raised to the largest value below it."""
    n = G.shape[0]
    value = -G / w
    component = _components(n, lo, hi)
    violated = np.unique(component[lo[value[lo] > value[hi]]])
    succ = [[] for _ in range(n)]
    for a, b in zip(lo.tolist(), hi.tolist()):
        succ[a].append(b)
    g, ww = G.tolist(), w.tolist()
    for c in violated.tolist():
        members = np.flatnonzero(component == c).tolist()
        for block, m in _partition(members, g, ww, succ):
            value[block] = m
    while lo.shape[0]:
        bad = value[lo] > value[hi]
        if not bad.any():
            break
        np.maximum.at(value, hi[bad], value[lo[bad]])
    return value


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
        if not upper or len(upper) == len(block) or not gain > 1e-12 * sum(abs(x) for x in c.values()):
            out.append((block, m))
            continue
        taken = set(upper)
        stack.append([k for k in block if k not in taken])
        stack.append(upper)
    return out


def assert_level_best_is_first_top(out, base, n_edges, mask):
    """``level_best`` of summed level gains ``out`` (S, 2) is the first candidate (feature, bin, NaN left before
    right) within the tie tolerance of the largest gain, or None when no gain is above 0."""
    from rankcore.learners.trees import _oblivious_kernels as kernels
    from rankcore.learners.trees._ranker import TIE_TOLERANCE

    best = kernels.level_best(out, base, n_edges, mask, TIE_TOLERANCE)
    candidates = [(j, b, side == 0, out[base[j] + b, side]) for j in range(len(base)) if mask[j]
                  for b in range(n_edges[j] + 1) for side in range(2)]
    top = max([c[3] for c in candidates], default=0.0)
    if top <= 0:
        assert best is None
    else:
        first = next(c for c in candidates if c[3] >= top - TIE_TOLERANCE * top)
        assert best == (first[0], first[1], first[2], first[3])

"""Plain reference rules shared by the trees' tests (bundling, split choice, node histograms), written without the kernels,
and the statistics the route-equality tests grow trees on."""

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

"""``trees:growth=oblivious``: symmetric trees against a plain NumPy reference grower, their kernels, files, routes."""

import json
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _oblivious_kernels as kernels
from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees._oblivious import oblivious_depth
from rankcore.learners.trees._oblivious_ranker import (ObliviousTreeRanker, oblivious_from_state,
                                                      predict_oblivious_forest)
from rankcore.learners.trees._ranker import TIE_TOLERANCE
from rankcore.registry import resolve
from rankcore.testing import component_checks
from test_learners_trees import corrupt_tree_file
from test_tree_grow import _data as _features
from _tree_references import (assert_level_best_is_first_top, capped_term, isotonic_by_enumeration,
                              monotone_cell_pairs, noisy_feature)


def _data(seed, n=300, d=5, nan_fraction=0.1):
    """test_tree_grow's features (ties, zeros, few values, a constant column, NaN) and an interaction label."""
    X = _features(seed, n=n, d=d, nan_fraction=nan_fraction)
    noise = np.random.default_rng(seed + 1).normal(size=n)
    z = np.nan_to_num(X)
    y = (z[:, 0] + z[:, 1] * (z[:, 2] - 1) + noise > 0).astype(int) if d > 2 else (z[:, 0] + noise > 0).astype(int)
    return X, y


# ----------------------------------------------------------------------
# The plain NumPy reference grower
# ----------------------------------------------------------------------
def _bins(layout, X):
    """Bin of every value: #{edges < x}, NaN → n_edges + 1."""
    B = np.empty(X.shape, dtype=np.int64)
    for j in range(X.shape[1]):
        e = layout.edges[j]
        B[:, j] = np.searchsorted(e, X[:, j], side="left")
        B[np.isnan(X[:, j]), j] = e.shape[0] + 1
    return B


def _reference_tree(layout, X, g, h, depth, msl, mcw, l2, random_strength=0.0, noise_seed=0, groups=None,
                    signs=None, cap=0.0):
    """Oblivious tree grown by brute force on the rows: (levels [(j, b, nan_left)], 2^D leaf values).

    ``random_strength`` > 0: each level's feature is chosen with the noise of
    ``noisy_feature`` (keyed by ``noise_seed`` and the level).  ``groups``
    (interaction constraints, lists of columns): a level searches column j
    only if j and the columns of the levels above lie within one group.
    ``signs`` (monotone, one per column): a node adds a constrained
    candidate's gain only where its children's values keep the sign's order,
    and the leaf values are the Newton objective's minimizer over the order
    (``isotonic_by_enumeration``).  ``cap`` > 0 (``max_delta_step``): the
    gains are the capped terms' (``capped_term``), a node whose children both
    sit at or beyond one bound adds nothing, and the leaf values are clamped.
    """
    B = _bins(layout, X)
    n, d = X.shape
    min_weight = mcw * h.sum() / n
    node_of = np.zeros(n, dtype=np.int64)       # node id of every row
    stats = {0: (g.sum(), h.sum(), n)}
    cells = [0]
    frozen = set()
    levels = []
    for _ in range(depth):
        active = sorted({c for c in cells if c not in frozen and stats[c][2] >= 2 * msl})
        if not active:
            break
        best_gain = 0.0
        gains = {}
        for j in range(d):
            path = {level[0] for level in levels} | {j}
            if groups is not None and not any(path <= set(group) for group in groups):
                continue
            nb = layout.n_edges[j]
            for b in range(nb + 1):
                for nan_left in (True, False):
                    total = 0.0
                    for node in active:
                        rows = node_of == node
                        go_left = np.where(B[rows, j] == nb + 1, nan_left, B[rows, j] <= b)
                        lg, lh, lc = g[rows][go_left].sum(), h[rows][go_left].sum(), go_left.sum()
                        G, H, C = g[rows].sum(), h[rows].sum(), rows.sum()
                        rg, rh, rc = G - lg, H - lh, C - lc
                        if lc < msl or rc < msl or lh < min_weight or rh < min_weight:
                            continue
                        if signs is not None and signs[j] and not signs[j] * (lg / (lh + l2) - rg / (rh + l2)) > 0:
                            continue
                        wl, wr = -lg / (lh + l2), -rg / (rh + l2)
                        if cap > 0 and ((wl >= cap and wr >= cap) or (wl <= -cap and wr <= -cap)):
                            continue
                        total += capped_term(lg, lh, l2, cap) + capped_term(rg, rh, l2, cap) - capped_term(G, H, l2,
                                                                                                          cap)
                    gains[(j, b, nan_left)] = total
                    best_gain = max(best_gain, total)
        if best_gain <= 0:
            break
        if random_strength > 0:
            feature_top = {}
            for (j, b, nan_left), v in gains.items():
                feature_top[j] = max(feature_top.get(j, 0.0), v)
            chosen = noisy_feature(feature_top, TIE_TOLERANCE * best_gain, random_strength, noise_seed, len(levels))
            j, b, nan_left = next(k for k, v in gains.items()
                                  if k[0] == chosen
                                  and v >= feature_top[chosen] - TIE_TOLERANCE * feature_top[chosen] * 10)
        else:
            # ties: the first in the order (feature, bin, NaN left before right)
            j, b, nan_left = next(k for k, v in gains.items() if v >= best_gain - TIE_TOLERANCE * best_gain * 10)
        nb = layout.n_edges[j]
        if not any((B[node_of == node, j] == nb + 1).any() for node in active):
            left = sum((B[node_of == node, j] <= b).sum() for node in active)
            right = sum((node_of == node).sum() for node in active) - left
            nan_left = left >= right
        new_cells = list(cells) * 2
        size = len(cells)
        for cell, node in enumerate(cells):
            if node not in active:
                continue
            rows = node_of == node
            go_left = np.where(B[:, j] == nb + 1, nan_left, B[:, j] <= b)
            lc, rc = (rows & go_left).sum(), (rows & ~go_left).sum()
            lh, rh = h[rows & go_left].sum(), h[rows & ~go_left].sum()
            if lc < msl or rc < msl or lh < min_weight or rh < min_weight:
                frozen.add(node)
                continue
            a, c = max(stats) + 1, max(stats) + 2
            for child, side in ((a, go_left), (c, ~go_left)):
                sel = rows & side
                stats[child] = (g[sel].sum(), h[sel].sum(), sel.sum())
                node_of[sel] = child
            new_cells[cell], new_cells[cell + size] = a, c
        cells = new_cells
        levels.append((j, b, bool(nan_left)))
    values = np.array([-stats[c][0] / (stats[c][1] + l2) for c in cells])
    level_sign = [0 if signs is None else signs[j] for j, _, _ in levels]
    if any(level_sign):
        leaves = list(dict.fromkeys(cells))                 # distinct leaves, by first cell
        leaf = [leaves.index(c) for c in cells]
        v = isotonic_by_enumeration([stats[c][0] for c in leaves], [stats[c][1] + l2 for c in leaves],
                                    monotone_cell_pairs(leaf, level_sign))
        values = v[leaf]
    if cap > 0:
        values = np.clip(values, -cap, cap)
    return levels, values


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("params", [dict(max_depth=3, min_samples_leaf=5, min_child_weight=0.0, l2=0.0),
                                    dict(max_depth=4, min_samples_leaf=20, min_child_weight=1.0, l2=1.0),
                                    dict(max_depth=2, min_samples_leaf=1, min_child_weight=0.0, l2=0.5),
                                    dict(max_depth=3, min_samples_leaf=5, min_child_weight=0.0, l2=0.0,
                                         random_strength=2.0)])
def test_oblivious_trees_match_the_numpy_reference_grower(seed, params):
    X, _ = _data(seed, n=150, d=4)
    rng = np.random.default_rng(seed)
    g = np.round(rng.normal(size=150), 1)             # ties among gradients too
    h = rng.uniform(0.5, 2.0, size=150)
    learner = resolve("learner", "trees:growth=oblivious,subsample=1,max_bins=8,"
                      + ",".join(f"{k}={v}" for k, v in params.items()))
    layout = learner.prepare(X, random_state=0)
    block = layout.encode(X)
    cand = layout.search_in_memory([block], [g], [h])
    # random strength draws with the first tree's seed (the layout's first draw)
    levels, values = _reference_tree(layout, X, g, h, params["max_depth"], params["min_samples_leaf"],
                                     params["min_child_weight"], params["l2"], learner.random_strength,
                                     int(np.random.default_rng(0).integers(0, 2**62)))
    assert cand is not None and levels
    tree = cand.ranker
    assert [(int(j), int(b), bool(v)) for j, b, v in zip(tree.feature, tree.bins, tree.nan_left)] == levels
    np.testing.assert_allclose(tree.value, values, rtol=1e-9, atol=1e-12)
    # the training rows' values read from the codes equal the tree's prediction on raw values
    np.testing.assert_array_equal(layout.evaluate(tree, block), tree.predict(X))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("signs, spec", [((1, -1, 0, 0), "max_depth=3,min_samples_leaf=5,l2=0.5"),
                                         ((-1, 0, 1, 1), "max_depth=3,min_samples_leaf=15,min_child_weight=1,l2=0"),
                                         ((1, 1, 1, 1), "max_depth=3,min_samples_leaf=2,l2=1,interactions=0+1/2+3")])
def test_monotone_oblivious_trees_match_the_numpy_reference_grower(seed, signs, spec):
    """Constrained levels scored by their gain where the children keep the order; leaf values the exact
    minimizer over the monotone order (by enumeration): both routes, against the reference."""
    X, _ = _data(seed, n=150, d=4)
    rng = np.random.default_rng(seed)
    g = np.round(rng.normal(size=150), 1) + 0.8 * np.nan_to_num(X[:, 0])     # a trend against some signs
    h = rng.uniform(0.5, 2.0, size=150)
    learner = resolve("learner", f"trees:growth=oblivious,subsample=1,max_bins=8,monotone={'/'.join(map(str, signs))},"
                      + spec)
    groups = [[0, 1], [2, 3]] if "interactions" in spec else None
    layout, protocol = learner.prepare(X, random_state=0), learner.prepare(X, random_state=0)
    levels, values = _reference_tree(layout, X, g, h, 3, learner.min_samples_leaf, learner.min_child_weight,
                                     learner.l2, groups=groups, signs=signs)
    for cand in (layout.search_in_memory([layout.encode(X)], [g], [h]),
                 multi_pass_search(protocol, [protocol.encode(X)], [g], [h])):
        assert cand is not None and levels
        tree = cand.ranker
        assert [(int(j), int(b), bool(v)) for j, b, v in zip(tree.feature, tree.bins, tree.nan_left)] == levels
        np.testing.assert_allclose(tree.value, values, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("groups, random_strength", [([[0, 1], [2, 3]], 0.0), ([[0, 2], [1, 2], [3]], 0.0),
                                                     ([[1], [0, 2, 3]], 2.0), ([[3], [2]], 0.0)])
def test_oblivious_trees_with_interactions_match_the_numpy_reference_grower(seed, groups, random_strength):
    X, _ = _data(seed, n=150, d=4)
    rng = np.random.default_rng(seed)
    g = np.round(rng.normal(size=150), 1)
    h = rng.uniform(0.5, 2.0, size=150)
    spec = "/".join("+".join(map(str, group)) for group in groups)
    learner = resolve("learner", f"trees:growth=oblivious,subsample=1,max_bins=8,max_depth=4,min_samples_leaf=3,"
                      f"l2=0.5,random_strength={random_strength},interactions={spec}")
    layout = learner.prepare(X, random_state=0)
    block = layout.encode(X)
    levels, values = _reference_tree(layout, X, g, h, 4, 3, learner.min_child_weight, 0.5, random_strength,
                                     int(np.random.default_rng(0).integers(0, 2**62)), groups=groups)
    protocol = learner.prepare(X, random_state=0)
    # the native grower and the multi-pass search (Dask's route), each on its own layout of the same seed
    for cand in (layout.search_in_memory([block], [g], [h]),
                 multi_pass_search(protocol, [protocol.encode(X)], [g], [h])):
        assert cand is not None and levels
        tree = cand.ranker
        assert [(int(j), int(b), bool(v)) for j, b, v in zip(tree.feature, tree.bins, tree.nan_left)] == levels
        np.testing.assert_allclose(tree.value, values, rtol=1e-9, atol=1e-12)


def test_depth_mapping():
    assert oblivious_depth(-1, 31) == 6              # CatBoost's depth by default
    assert oblivious_depth(3, 31) == 3               # max_depth wins
    assert oblivious_depth(-1, 8) == 3 and oblivious_depth(-1, 10) == 3 and oblivious_depth(-1, 2) == 1
    assert oblivious_depth(-1, 255) == 7 and oblivious_depth(-1, 2**31) == 16
    assert oblivious_depth(-1, 63) == 6 and oblivious_depth(-1, 30) == 4      # 63: early stopping's large-data leaves
    with pytest.raises(rankcore.spec.SpecError, match="max_depth"):
        resolve("learner", "trees:growth=oblivious,max_depth=17")


# ----------------------------------------------------------------------
# Kernels against NumPy
# ----------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n_nodes=st.integers(1, 4), l2=st.sampled_from([0.0, 0.5]),
       msl=st.sampled_from([1.0, 3.0]))
def test_level_gains_match_numpy(seed, n_nodes, l2, msl):
    rng = np.random.default_rng(seed)
    n_edges = rng.integers(0, 6, size=4).astype(np.intp)
    # the last feature's slots first: slots need not be in feature order (bundles come first)
    base = np.r_[0, np.cumsum((n_edges + 2)[::-1])[:-1]][::-1].astype(np.intp).copy()
    S = int((n_edges + 2).sum())
    mask = rng.integers(0, 2, size=4).astype(np.uint8)
    out = np.zeros((S, 2))
    expect = np.zeros((S, 2))
    for _ in range(n_nodes):
        hist = np.zeros((S, 3))
        hist[:, 2] = rng.integers(0, 4, size=S)
        hist[:, 0] = np.round(rng.normal(size=S), 1) * (hist[:, 2] > 0)
        hist[:, 1] = hist[:, 2] * rng.uniform(0.5, 1.0, size=S)
        kernels.level_gains_add(hist, base, n_edges, mask, msl, 0.2, l2, out, 2)
        for j in np.flatnonzero(mask):
            fh = hist[base[j]: base[j] + n_edges[j] + 2]
            G, H, C = fh.sum(axis=0)
            for b in range(n_edges[j] + 1):
                for side, nan_left in enumerate((True, False)):
                    left = fh[: b + 1].sum(axis=0) + (fh[-1] if nan_left else 0.0)
                    lg, lh, lc = left
                    rg, rh, rc = G - lg, H - lh, C - lc
                    if lc < msl or rc < msl or lh < 0.2 or rh < 0.2 or H + l2 <= 0:
                        continue
                    expect[base[j] + b, side] += lg ** 2 / (lh + l2) + rg ** 2 / (rh + l2) - G ** 2 / (H + l2)
    np.testing.assert_allclose(out, expect, rtol=1e-10, atol=1e-10)
    assert_level_best_is_first_top(out, base, n_edges, mask)


def _numpy_forest(trees, alphas, X):
    out = np.zeros(X.shape[0])
    for t, a in zip(trees, alphas):
        leaf = np.zeros(X.shape[0], dtype=np.int64)
        for level, (j, thr, nl) in enumerate(zip(t.feature, t.threshold, t.nan_left)):
            x = X[:, j]
            right = np.where(np.isnan(x), not nl, x > thr)
            leaf |= right.astype(np.int64) << level
        out += a * t.value[leaf]
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n_trees=st.integers(1, 4), dtype=st.sampled_from([np.float32, np.float64]))
def test_predict_by_bit_index_matches_numpy_dense_and_csr(seed, n_trees, dtype):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(60, 5)), 1).astype(dtype)
    X[rng.random(X.shape) < 0.3] = 0
    X[rng.random(X.shape) < 0.1] = np.nan
    trees = []
    for _ in range(n_trees):
        D = int(rng.integers(0, 5))
        trees.append(ObliviousTreeRanker(rng.integers(0, 5, D), np.round(rng.normal(size=D), 1),
                                         rng.integers(0, 2, D), rng.normal(size=2 ** D), rng.random(D)))
    alphas = rng.normal(size=n_trees)
    expect = _numpy_forest(trees, alphas, X.astype(np.float64))
    dense = predict_oblivious_forest(trees, alphas, X, 2)
    np.testing.assert_allclose(dense, expect, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(predict_oblivious_forest(trees, alphas, sp.csr_matrix(X), 2), dense)
    zeros = np.zeros((4, 5), dtype=dtype)           # nothing stored: every row at one leaf per tree
    np.testing.assert_array_equal(predict_oblivious_forest(trees, alphas, sp.csr_matrix(zeros)),
                                  predict_oblivious_forest(trees, alphas, zeros))


def _zeros_forest_reference(feature, threshold, value, level_offset, value_offset, alpha):
    """Σ_t α_t v_t(0) in tree order, plain Python: a zero goes right at level k iff 0 > threshold_k."""
    s = 0.0
    for t in range(len(alpha)):
        leaf = 0
        for level, k in enumerate(range(level_offset[t], level_offset[t + 1])):
            leaf |= int(0.0 > threshold[k]) << level
        s = s + float(alpha[t]) * float(value[value_offset[t] + leaf])
    return s


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n_trees=st.integers(0, 5), n=st.sampled_from([0, 1, 7]))
def test_predict_zeros_matches_a_plain_reference(seed, n_trees, n):
    rng = np.random.default_rng(seed)
    depth = rng.integers(0, 5, n_trees)
    level_offset = np.concatenate([[0], np.cumsum(depth)]).astype(np.int64)
    value_offset = np.concatenate([[0], np.cumsum(2 ** depth)]).astype(np.int64)
    L = int(level_offset[-1])
    # thresholds at exactly ±0 (a zero ties them and goes left), below and above zero, and NaN (left)
    threshold = rng.choice([-1.5, -0.0, 0.0, 0.0, 0.25, np.nan], size=L)
    feature = rng.integers(0, 3, L).astype(np.int32)
    nan_left = rng.integers(0, 2, L).astype(np.uint8)
    value = np.round(rng.normal(size=int(value_offset[-1])), 1)        # tied leaf values
    alpha = np.round(rng.normal(size=n_trees), 2)
    out = np.full(n, np.nan)
    kernels._predict_zeros(feature, threshold, nan_left, value, level_offset, value_offset, alpha, out)
    expect = _zeros_forest_reference(feature, threshold, value, level_offset, value_offset, alpha)
    np.testing.assert_array_equal(out, np.full(n, expect))
    if n:                                              # the dense kernel on all-zero rows: the same bits
        dense = np.empty(n)
        kernels.predict_oblivious(np.zeros((n, 3)), feature, threshold, nan_left, value, level_offset, value_offset,
                                  alpha, dense)
        np.testing.assert_array_equal(out, dense)


def _random_oblivious_tree(rng, n, n_cols, depth):
    """Random codes (n, n_cols) and a tree of ``depth`` levels on them: (codes, columns, split tables, values)."""
    codes = rng.integers(0, 256, size=(n, n_cols)).astype(np.uint8)
    column = rng.integers(0, n_cols, depth).astype(np.int32)
    go_left = (rng.random((depth, 256)) < 0.5).astype(np.uint8)
    value = rng.normal(size=2 ** depth)
    return codes, column, go_left, value


def _oblivious_reference(codes, column, go_left, value):
    leaf = np.zeros(codes.shape[0], dtype=np.int64)
    for level in range(column.shape[0]):
        leaf |= (1 - go_left[level, codes[:, column[level]]]).astype(np.int64) << level
    return value[leaf]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(0, 300), depth=st.integers(0, 6), n_cols=st.integers(1, 9))
def test_oblivious_columns_match_numpy_and_row_major(seed, n, depth, n_cols):
    """A tree's leaf values from column-major codes: the numpy bit index, and oblivious_codes on the same rows."""
    rng = np.random.default_rng(seed)
    codes, column, go_left, value = _random_oblivious_tree(rng, n, n_cols, depth)
    codes[rng.random(codes.shape) < 0.4] = 3                     # runs of one code
    out = np.full(n, np.nan)
    kernels.oblivious_columns(np.ascontiguousarray(codes.T), column, go_left, value, out, 2)
    np.testing.assert_array_equal(out, _oblivious_reference(codes, column, go_left, value))
    row_major = np.full(n, np.nan)
    kernels.oblivious_codes(codes, column, go_left, value, row_major, 1)
    np.testing.assert_array_equal(out, row_major)
    with pytest.raises(ValueError, match="column"):
        kernels.oblivious_columns(np.ascontiguousarray(codes.T), np.full(max(depth, 1), n_cols, dtype=np.int32),
                                  np.zeros((max(depth, 1), 256), dtype=np.uint8), np.zeros(2 ** max(depth, 1)),
                                  out, 1)


@pytest.mark.parametrize("n, depth, threads", [(511, 3, 1), (512, 6, 1), (513, 6, 2), (1537, 12, 2),
                                               (20_000, 6, 2), (20_001, 17, 1)])
def test_oblivious_columns_blocks_threads_and_deep_trees(n, depth, threads):
    """Rows in several blocks of the kernel (and a partial last one), on two threads, leaf indices past 8 and 16
    bits: the numpy bit index, whatever the thread count."""
    codes, column, go_left, value = _random_oblivious_tree(np.random.default_rng(n + depth), n, 7, depth)
    out = np.full(n, np.nan)
    kernels.oblivious_columns(np.ascontiguousarray(codes.T), column, go_left, value, out, threads)
    np.testing.assert_array_equal(out, _oblivious_reference(codes, column, go_left, value))


def test_oblivious_columns_refuses_tables_of_other_widths():
    """Each level's split table must cover the 256 codes a byte can hold (a shorter one would be read past its
    end)."""
    codes_t = np.zeros((2, 10), dtype=np.uint8)
    with pytest.raises(ValueError, match="256 entries"):
        kernels.oblivious_columns(codes_t, np.zeros(2, dtype=np.int32), np.zeros((2, 255), dtype=np.uint8),
                                  np.zeros(4), np.empty(10), 1)


# ----------------------------------------------------------------------
# Invariants (hypothesis) and routes
# ----------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(20, 120), depth=st.integers(1, 4),
       msl=st.integers(1, 8), nan_fraction=st.sampled_from([0.0, 0.2]))
def test_oblivious_tree_invariants(seed, n, depth, msl, nan_fraction):
    """Codes and raw values route rows alike; every leaf holds min_samples_leaf rows; the leaves are Newton steps."""
    X, _ = _data(seed, n=n, d=3, nan_fraction=nan_fraction)
    rng = np.random.default_rng(seed)
    g = rng.normal(size=n)
    learner = resolve("learner", f"trees:growth=oblivious,subsample=1,max_depth={depth},min_samples_leaf={msl},"
                      "min_child_weight=0,max_bins=16")
    layout = learner.prepare(X, random_state=0)
    block = layout.encode(X)
    cand = layout.search_in_memory([block], [g], [np.ones(n)])
    if cand is None:
        return
    tree = cand.ranker
    assert tree.depth <= depth and tree.value.shape == (2 ** tree.depth,)
    pred = tree.predict(X)
    np.testing.assert_array_equal(layout.evaluate(tree, block), pred)
    for v in np.unique(pred):                   # a leaf (a value) holds enough rows, its value is −G/H
        rows = pred == v
        assert rows.sum() >= msl
        assert -g[rows].sum() / rows.sum() == pytest.approx(v, rel=1e-9, abs=1e-12)
    assert cand.derivative == pytest.approx(float(np.dot(g, pred)), rel=1e-9, abs=1e-12)


def test_search_in_memory_is_the_protocol():
    """In memory the native grower grows the protocol's tree (more cases: test_tree_oblivious_grow)."""
    X, _ = _data(7, n=200)
    g = np.random.default_rng(7).normal(size=200)
    learner = resolve("learner", "trees:growth=oblivious,subsample=0.7,colsample=0.6")
    a_layout, b_layout = learner.prepare(X, random_state=1), learner.prepare(X, random_state=1)
    a = a_layout.search_in_memory([a_layout.encode(X)], [g], [np.ones(200)])
    b = multi_pass_search(b_layout, [b_layout.encode(X)], [g], [np.ones(200)])
    for field in ("feature", "bins", "nan_left", "threshold", "value", "gain"):
        np.testing.assert_array_equal(getattr(a.ranker, field), getattr(b.ranker, field))


def test_sparse_bundled_and_dense_fits_agree():
    rng = np.random.default_rng(0)
    n = 400
    onehot = np.zeros((n, 6))
    onehot[np.arange(n), rng.integers(0, 6, n)] = 1.0
    X = np.c_[rng.normal(size=(n, 2)), onehot]
    y = (X[:, 0] + onehot[:, 2] - onehot[:, 4] + rng.normal(size=n) > 0).astype(int)
    spec = "trees:growth=oblivious"
    dense = rankcore.boost(learner=spec, n_iter=10, random_state=0).fit(X, y)
    sparse = rankcore.boost(learner=spec, n_iter=10, random_state=0).fit(sp.csr_matrix(X), y)
    plain = rankcore.boost(learner=spec + ",bundle=false", n_iter=10, random_state=0).fit(X, y)
    s = dense.decision_function(X)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)), s, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(plain.decision_function(X), s, rtol=1e-9, atol=1e-12)
    assert all(r.kind == "oblivious_tree" for r in dense.rankers_)


def test_oblivious_trees_learn_and_predict_nan():
    X, y = _data(3, n=600, nan_fraction=0.2)
    model = rankcore.boost(learner="trees:growth=oblivious", n_iter=30, random_state=0).fit(X, y)
    s = model.decision_function(X)
    assert np.isfinite(s).all()
    from sklearn.metrics import roc_auc_score
    assert roc_auc_score(y, s) > 0.75
    assert model.rankers_[0].depth == 6 and model.feature_importances_.shape == (5,)


def test_categorical_columns_are_refused_by_name():
    X, y = _data(0, n=100, nan_fraction=0.0)
    with pytest.raises(ValueError, match="growth='oblivious'.*categorical"):
        rankcore.boost(learner="trees:growth=oblivious,categorical=2", n_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="growth='oblivious'.*categorical_features"):
        resolve("learner", "trees:growth=oblivious").prepare(X, categorical_features=[2])


# ----------------------------------------------------------------------
# Model files
# ----------------------------------------------------------------------
def test_save_load_round_trip_and_corrupt_files(tmp_path):
    """Saved and loaded: the same scores and importances; a re-signed file with a broken tree is refused."""
    X, y = _data(12, n=300)
    fitted = rankcore.boost(learner="trees:growth=oblivious,max_depth=3", n_iter=4, random_state=0).fit(X, y)
    rankcore.save_model(fitted, tmp_path / "oblivious.json")
    text = (tmp_path / "oblivious.json").read_text()
    back = rankcore.load_model(tmp_path / "oblivious.json")
    assert [r.to_state() for r in back.rankers_] == [r.to_state() for r in fitted.rankers_]
    np.testing.assert_array_equal(back.decision_function(X), fitted.decision_function(X))
    np.testing.assert_allclose(back.feature_importances_, fitted.feature_importances_)

    def corrupt(edit, match):
        corrupt_tree_file(tmp_path, text, edit, match, kind="oblivious_tree")

    corrupt(lambda t: t["value"].pop(), "value")
    corrupt(lambda t: t["feature"].__setitem__(0, 50), "feature 50")
    corrupt(lambda t: t["feature"].__setitem__(0, -1), "feature")
    corrupt(lambda t: t["threshold"].__setitem__(0, float("inf")), "threshold")
    corrupt(lambda t: t["gain"].append(1.0), "gain")
    corrupt(lambda t: t.__setitem__("kind", "tree"), "oblivious tree record")
    corrupt(lambda t: t.__setitem__("left", [1]), "oblivious tree record")


_GOOD = {"kind": "oblivious_tree", "feature": [0, 1], "threshold": [0.5, -1.0], "nan_left": [True, False],
         "value": [0.0, 1.0, 2.0, 3.0], "gain": [1.0, 0.5]}


def test_record_validation_directly():
    tree = oblivious_from_state(_GOOD)
    X = np.array([[0.0, -2.0], [1.0, -2.0], [0.0, 0.0], [1.0, 0.0], [np.nan, np.nan]])
    np.testing.assert_array_equal(tree.predict(X), [0.0, 1.0, 2.0, 3.0, 2.0])
    assert tree.to_state() == _GOOD and tree.values == (0.0, 1.0, 2.0, 3.0)
    for field, value, match in [("feature", [0, 1.5], "feature"), ("nan_left", ["x", 0], "nan_left"),
                                ("value", [0.0] * 3, "value"), ("threshold", [math.nan, 0.0], "threshold"),
                                ("feature", [0, True], "feature"), ("gain", "ab", "gain")]:
        with pytest.raises(ValueError, match=match):
            oblivious_from_state({**_GOOD, field: value})
    with pytest.raises(ValueError, match="depth 17"):
        oblivious_from_state({**_GOOD, "feature": [0] * 17, "threshold": [0.0] * 17, "nan_left": [0] * 17,
                              "gain": [0.0] * 17, "value": [0.0]})


_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(),
                    st.sampled_from(["", "x", "oblivious_tree", "tree"]), st.just([]), st.just({}))


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(["kind", "feature", "threshold", "nan_left", "value", "gain", "extra"]),
       where=st.integers(-1, 5), leaf=_LEAVES, drop=st.booleans())
def test_fuzz_oblivious_records(field, where, leaf, drop):
    """A mutated record loads as a valid tree or raises ValueError; it never crashes or predicts NaN."""
    state = json.loads(json.dumps(_GOOD))
    if drop and field in state:
        del state[field]
    elif where < 0 or not isinstance(state.get(field), list):
        state[field] = leaf
    else:
        arr = state[field]
        arr.insert(where, leaf) if where >= len(arr) else arr.__setitem__(where, leaf)
    try:
        tree = oblivious_from_state(state)
    except ValueError:
        return
    width = max(tree.features, default=0) + 1
    if width > 8:
        return
    pred = tree.predict(np.array([[0.0] * width, [np.nan] + [1.0] * (width - 1)]))
    assert np.isfinite(pred).all()


@pytest.mark.parametrize("check", component_checks("learner", "trees:growth=oblivious,subsample=1,max_depth=3"),
                         ids=str)
def test_oblivious_trees_learner_contract(check):
    check()


@pytest.mark.parametrize("n_edges_of_last", [3, -1])
def test_level_gain_kernels_refuse_features_whose_slots_do_not_fit(n_edges_of_last):
    """Both gain walks name themselves and the feature whose slots overrun the histogram (or whose bins are < 0)."""
    S = 8
    hist, small = np.zeros((S, 3)), np.zeros((S, 3))
    out, top = np.zeros((S, 2)), np.zeros(2)
    base = np.array([0, 4], dtype=np.intp)             # feature 1: slots 4 .. 4 + 3 + 2 = 9 > 8
    n_edges = np.array([1, n_edges_of_last], dtype=np.intp)
    mask = np.ones(2, dtype=np.uint8)
    with pytest.raises(ValueError, match=r"level_gains_add: feature 1's slots do not fit the 8 slots"):
        kernels.level_gains_add(hist, base, n_edges, mask, 1.0, 0.0, 0.0, out)
    with pytest.raises(ValueError, match=r"level_gains_sub_add: feature 1's slots do not fit the 8 slots"):
        kernels.level_gains_sub_add(hist, small, base, n_edges, mask, 1.0, 0.0, 0.0, out, top)
    with pytest.raises(ValueError, match=r"level_gains_pair: feature 1's slots do not fit the 8 slots"):
        kernels.level_gains_pair(hist, small, base, n_edges, mask, True, True, True, 1.0, 0.0, 0.0, out)


def test_sibling_gain_kernels_refuse_mismatched_shapes():
    """The two sibling walks name themselves and what they expected: a short smaller child, a wrong out, a top
    of another length."""
    S = 8
    hist, out, top = np.zeros((S, 3)), np.zeros((S, 2)), np.zeros(2)
    base, n_edges, mask = np.array([0, 4], dtype=np.intp), np.array([1, 1], dtype=np.intp), np.ones(2, np.uint8)
    with pytest.raises(ValueError, match=r"level_gains_pair: expected hist and small \(S, 3\)"):
        kernels.level_gains_pair(hist, np.zeros((S - 1, 3)), base, n_edges, mask, True, True, True, 1.0, 0.0, 0.0,
                                 out)
    with pytest.raises(ValueError, match=r"level_gains_sub_add: expected hist and small \(S, 3\), out \(S, 2\)"):
        kernels.level_gains_sub_add(hist, np.zeros((S, 3)), base, n_edges, mask, 1.0, 0.0, 0.0, np.zeros((S, 3)), top)
    with pytest.raises(ValueError, match=r"level_gains_sub_add: expected top of one entry per feature \(2\), got 3"):
        kernels.level_gains_sub_add(hist, np.zeros((S, 3)), base, n_edges, mask, 1.0, 0.0, 0.0, out, np.zeros(3))

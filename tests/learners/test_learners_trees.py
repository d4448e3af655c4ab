"""The ``trees`` learner: kernels against NumPy references, the tree builder against an exact
greedy reference, block and thread independence, NaN handling, estimators, persistence."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from _tree_references import first_within_tolerance, noisy_feature, numeric_split_gains
from rankcore.learners.trees import _histogram, _split
from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees._block import slot_layout
from rankcore.learners.trees._learner import ALL_LEFT, TIE_TOLERANCE, TreeRanker, Trees, tree_arrays_from_state
from rankcore.objectives._base import Objective, _BoundDefault
from rankcore.persistence import ModelFormatError, _checksum
from rankcore.push._backend import InMemoryBackend
from rankcore.push._driver import run_boosting
from rankcore.registry import resolve
from rankcore.testing import component_checks


# ----------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------
def _data(seed=0, n=400, d=5, nan_fraction=0.1, dtype=np.float64):
    """Features with ties (rounded, a block of zeros), NaNs, and a label with an interaction."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] = np.round(X[:, 0], 1)
    X[: n // 5, 1] = 0.0
    if d > 2:
        X[:, 2] = rng.integers(0, 4, n)                     # 4 distinct values
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    if nan_fraction:
        X[rng.random((n, d)) < nan_fraction] = np.nan
    return np.ascontiguousarray(X, dtype=dtype), y


# ----------------------------------------------------------------------
# A NumPy reference tree builder: exact greedy, leaf-wise, on the same bins
# ----------------------------------------------------------------------
def reference_tree(codes, n_edges, g, h, *, max_leaves, max_depth=-1, min_samples_leaf=1,
                   min_child_weight=0.0, l2=0.0, feature_mask=None, random_strength=0.0, noise_seed=0):
    """Leaf-wise growth with histograms summed directly from each node's rows (no subtraction trick).

    Returns (feature, bin, nan_left, left, right, value) per node, numbered as the learner does.
    ``random_strength`` > 0: each node's feature is chosen with the noise of
    ``noisy_feature`` (keyed by ``noise_seed`` and the node's number).
    """
    d, n = codes.shape
    feature_mask = np.ones(d, bool) if feature_mask is None else feature_mask
    min_child_weight = min_child_weight * h.sum() / n          # in units of the mean curvature

    def best_split(rows, node_id):
        G, H = g[rows].sum(), h[rows].sum()
        g_rows, h_rows = g[rows], h[rows]
        candidates = []
        for j in range(d):
            if not feature_mask[j]:
                continue
            c = codes[j, rows]
            is_nan = c == n_edges[j] + 1                  # the NaN bin
            has_nan = is_nan.any()
            # every threshold of the feature at once: row r of a mask is the split "bin <= b" of this node's rows
            # (the sums are dot products of a mask with this node's g and h: no histogram, no subtraction)
            below = (c[None, :] <= np.arange(n_edges[j] + 1)[:, None]) & ~is_nan
            n_below = below.sum(axis=1)
            sides = {}
            for nan_left in (True, False):
                go_left = below | is_nan if nan_left else below
                sides[nan_left] = (go_left, go_left.sum(axis=1), go_left @ h_rows, ~go_left @ h_rows,
                                   go_left @ g_rows, ~go_left @ g_rows)
            for b in range(n_edges[j] + 1):
                for nan_left in (True, False):
                    if b == n_edges[j] and (nan_left or not has_nan):
                        continue
                    if not has_nan and nan_left != (n_below[b] >= rows.size - n_below[b]):
                        continue           # without NaN: one direction, NaN to the larger side
                    go_left, n_left, HL, HR, GL, GR = (side[b] for side in sides[nan_left])
                    if min(n_left, rows.size - n_left) < min_samples_leaf:
                        continue
                    if min(HL, HR) < min_child_weight or HL + l2 <= 0 or HR + l2 <= 0:
                        continue
                    gain = GL ** 2 / (HL + l2) + GR ** 2 / (HR + l2) - G ** 2 / (H + l2)
                    candidates.append((gain, j, b, nan_left, go_left))
        if not candidates or max(c[0] for c in candidates) <= 0:
            return None
        top = max(c[0] for c in candidates)
        scale = max(top, G ** 2 / (H + l2))
        if top <= TIE_TOLERANCE * scale:
            return None
        if random_strength > 0:
            feature_best = {}
            for c in candidates:
                feature_best[c[1]] = max(feature_best.get(c[1], -np.inf), c[0])
            j = noisy_feature(feature_best, TIE_TOLERANCE * scale, random_strength, noise_seed, node_id)
            best = next(c for c in candidates if c[1] == j and c[0] >= feature_best[j] - TIE_TOLERANCE * scale)
        else:
            best = next(c for c in candidates if c[0] >= top - TIE_TOLERANCE * scale)   # first of the ties
        gain, j, b, nan_left, go_left = best
        return gain, j, b, nan_left, rows[go_left], rows[~go_left]

    nodes = [{"rows": np.arange(n), "depth": 0}]
    open_ = {}

    def consider(i):
        node = nodes[i]
        if (max_depth >= 0 and node["depth"] >= max_depth) or node["rows"].size < 2 * min_samples_leaf:
            return
        split = best_split(node["rows"], i)
        if split is not None:
            open_[i] = split

    consider(0)
    n_leaves = 1
    while n_leaves < max_leaves and open_:
        top = max(c[0] for c in open_.values())
        i = min(k for k, c in open_.items() if c[0] >= top - TIE_TOLERANCE * top)   # smallest id among ties
        gain, j, b, nan_left, L, R = open_.pop(i)
        nodes[i].update(split=(j, b, nan_left), children=(len(nodes), len(nodes) + 1))
        for rows in (L, R):
            nodes.append({"rows": rows, "depth": nodes[i]["depth"] + 1})
        n_leaves += 1
        if n_leaves < max_leaves:
            consider(len(nodes) - 2)
            consider(len(nodes) - 1)
    out = {k: [] for k in ("feature", "bin", "nan_left", "left", "right", "value")}
    out["rows"] = [node["rows"] for node in nodes]
    for node in nodes:
        if "split" in node:
            j, b, nan_left = node["split"]
            vals = (j, b, int(nan_left), *node["children"], 0.0)
        else:
            r = node["rows"]
            vals = (-1, -1, 0, -1, -1, -g[r].sum() / (h[r].sum() + l2))
        for k, v in zip(out, vals):
            out[k].append(v)
    return {k: (v if k == "rows" else np.array(v)) for k, v in out.items()}


def _search(layout, X, g, h, cuts=None, n_threads=1):
    cuts = [0, X.shape[0]] if cuts is None else cuts
    blocks = [layout.encode(X[a:b], offset=a) for a, b in zip(cuts[:-1], cuts[1:])]
    return multi_pass_search(layout, blocks, [g[a:b] for a, b in zip(cuts[:-1], cuts[1:])],
                             [h[a:b] for a, b in zip(cuts[:-1], cuts[1:])], n_threads=n_threads)


PARAMS = [
    dict(max_leaves=8),
    dict(max_leaves=8, random_strength=3),                 # each node's feature chosen with noise
    dict(max_leaves=31, min_samples_leaf=5),
    dict(max_leaves=31, min_samples_leaf=5, random_strength=0.5),
    dict(max_leaves=16, max_depth=3, l2=1.0),
    dict(max_leaves=12, min_child_weight=3.0, min_samples_leaf=6),
    dict(max_leaves=2),
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("params", PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
@pytest.mark.parametrize("curvature", ["weights", "hessian"])
def test_trees_match_the_numpy_reference_builder(seed, params, curvature):
    X, _ = _data(seed, n=300)
    rng = np.random.default_rng(100 + seed)
    g = rng.normal(size=X.shape[0])
    g[rng.random(X.shape[0]) < 0.2] = 0.5                    # tied gradients
    h = np.ones(X.shape[0]) if curvature == "weights" else rng.uniform(0.1, 2.0, X.shape[0])
    spec = "trees:" + ",".join(f"{k}={v}" for k, v in {"min_samples_leaf": 4, "min_child_weight": 0,
                                                         "subsample": 1, **params}.items())
    learner = resolve("learner", spec)
    layout = learner.prepare(X, random_state=seed)
    codes = layout.encode(X).codes.T                 # feature-major view for the reference
    # random strength draws with the first tree's seed (the layout's first draw)
    ref = reference_tree(codes, layout.n_edges, g, h, max_leaves=learner.max_leaves, max_depth=learner.max_depth,
                         min_samples_leaf=learner.min_samples_leaf, min_child_weight=learner.min_child_weight,
                         l2=learner.l2, random_strength=learner.random_strength,
                         noise_seed=int(np.random.default_rng(seed).integers(0, 2**62)))
    candidate = _search(layout, X, g, h)
    tree = candidate.ranker
    np.testing.assert_array_equal(tree.left, ref["left"])
    np.testing.assert_array_equal(tree.right, ref["right"])
    same = (tree.feature == ref["feature"]) & (tree.bins == ref["bin"]) & (tree.nan_left == ref["nan_left"])
    for i in np.flatnonzero(~same):
        # an exact tie: two splits sending the same rows left (e.g. 3 rows a small node's features
        # all separate alike); which one wins is decided by rounding, the tree is the same
        rows = ref["rows"][i]

        def goes_left(j, b, nan_left):
            c = codes[j, rows]
            return np.where(c == layout.n_edges[j] + 1, bool(nan_left), c <= b)

        np.testing.assert_array_equal(goes_left(tree.feature[i], tree.bins[i], tree.nan_left[i]),
                                      goes_left(ref["feature"][i], ref["bin"][i], ref["nan_left"][i]),
                                      err_msg=f"node {i}: a different split")
    assert (~same).sum() <= 2
    np.testing.assert_allclose(tree.value, ref["value"], rtol=1e-9, atol=1e-12)
    # the derivative is Σ g h, and the tree is a descent direction
    assert candidate.derivative == pytest.approx(g @ tree.predict(X), rel=1e-9, abs=1e-12)
    assert candidate.derivative < 0


def test_trees_do_not_depend_on_threads_or_blocks():
    X, _ = _data(3, n=2000, d=8)
    rng = np.random.default_rng(0)
    g, h = rng.normal(size=X.shape[0]), rng.uniform(0.5, 1.5, X.shape[0])
    learner = resolve("learner", "trees:min_samples_leaf=5,subsample=0.7,colsample=0.6")
    trees = []
    for n_threads, cuts in [(1, None), (2, None), (2, [0, 1, 700, 701, 1500, 2000])]:
        layout = learner.prepare(X, random_state=4, n_threads=n_threads)
        trees.append(_search(layout, X, g, h, cuts, n_threads=n_threads).ranker)
    assert trees[0].to_state() == trees[1].to_state()                      # threads: bitwise
    for field in ("feature", "left", "right", "nan_left", "threshold"):
        np.testing.assert_array_equal(getattr(trees[2], field), getattr(trees[0], field))
    np.testing.assert_allclose(trees[2].value, trees[0].value, rtol=1e-10)


def _reference_best_split(hist, n_edges, mask, min_samples_leaf, min_child_weight, l2):
    """best_split from an (S, 3) histogram (feature j's slots: its bins, then NaN), candidate by candidate
    in the kernel's order (NumPy sums)."""
    d = len(n_edges)
    base = np.r_[0, np.cumsum(np.asarray(n_edges) + 2)]
    scale = 0.0
    cands = []
    for j in range(d):
        fh = hist[base[j]:base[j + 1]]
        G, H, C = fh.sum(axis=0)
        if H + l2 > 0:
            scale = max(scale, G * G / (H + l2))
        if not mask[j]:
            continue
        parent = G * G / (H + l2) if H + l2 > 0 else 0.0
        cum = np.cumsum(fh[:-1], axis=0)
        nb = int(n_edges[j])
        cums = ((b, *cum[b]) for b in range(nb + 1))
        for gain, b, nan_left in numeric_split_gains(cums, fh[-1], (G, H, C), nb, parent, min_samples_leaf,
                                                     min_child_weight, l2):
            cands.append((gain, j, b, nan_left))
    return first_within_tolerance(cands, scale, TIE_TOLERANCE)


@pytest.mark.parametrize("seed", range(4))
def test_best_split_kernel_matches_numpy_and_threads(seed):
    """Enough features for the parallel scan; duplicated features make exact ties (the first wins)."""
    rng = np.random.default_rng(seed)
    d, n = 90, 600
    codes = rng.integers(0, 12, size=(n, d)).astype(np.uint8)
    codes[rng.random((n, d)) < 0.05] = 12           # the NaN bin of 11 edges
    codes[:, 40] = codes[:, 7]                       # feature 40 ties feature 7 exactly
    g = rng.normal(size=n) + 0.8 * (codes[:, 7] > 5)
    h = rng.uniform(0.5, 1.5, n)
    n_edges = np.full(d, 11, dtype=np.intp)
    slots = slot_layout(n_edges)
    hist = np.zeros((slots.n_slots, 3))
    for j in range(d):
        np.add.at(hist, slots.base[j] + codes[:, j], np.column_stack([g, h, np.ones(n)]))
    mask = (rng.random(d) < 0.8).astype(np.uint8)
    mask[[7, 40]] = 1
    for msl, mcw, l2 in [(1.0, 0.0, 0.0), (20.0, 5.0, 1.0)]:
        outs = []
        for n_threads in (1, 2):
            out = np.empty(10)
            found = _split.best_split(hist, slots, mask, msl, mcw, l2, TIE_TOLERANCE, out, n_threads)
            outs.append((found, out.copy()))
        assert outs[0][0] == outs[1][0]
        np.testing.assert_array_equal(outs[0][1], outs[1][1])        # threads: bitwise
        ref = _reference_best_split(hist, n_edges, mask, msl, mcw, l2)
        assert outs[0][0] == (ref is not None)
        if ref is not None:
            out = outs[0][1]
            assert (int(out[1]), int(out[2]), bool(out[3])) == ref[1:]
            assert out[0] == pytest.approx(ref[0], rel=1e-9)
            assert int(out[1]) != 40                                   # the first of the tied features


def test_best_split_no_candidate_and_bad_shapes():
    slots = slot_layout(np.zeros(3, dtype=np.intp))        # 3 constant features: bin 0 and NaN each
    hist = np.zeros((slots.n_slots, 3))
    hist[slots.base] = (1.0, 1.0, 5.0)                    # one bin only: no split anywhere
    out = np.empty(10)
    assert not _split.best_split(hist, slots, np.ones(3, np.uint8), 1.0, 0.0, 0.0, TIE_TOLERANCE, out, 2)
    with pytest.raises(ValueError, match="best_split"):
        _split.best_split(hist[:-1], slots, np.ones(3, np.uint8), 1.0, 0.0, 0.0, TIE_TOLERANCE, out, 1)
    with pytest.raises(ValueError, match="best_split"):
        _split.best_split(hist, slots, np.ones(2, np.uint8), 1.0, 0.0, 0.0, TIE_TOLERANCE, out, 1)


def test_reused_histogram_buffers_do_not_change_trees():
    """A layout's second tree (built in buffers the first one handed back) equals a fresh layout's.

    (Without random strength, whose noise follows each tree's seed: the second tree's is not the first's.)"""
    X, _ = _data(5, n=800, d=6)
    rng = np.random.default_rng(1)
    g1, g2 = rng.normal(size=(2, X.shape[0]))
    h = rng.uniform(0.5, 1.5, X.shape[0])
    learner = resolve("learner", "trees:max_leaves=15,min_samples_leaf=3,subsample=1,random_strength=0")
    used = learner.prepare(X, random_state=0)
    _search(used, X, g1, h)
    assert used._hist_pool                                  # the first tree's histograms came back
    second = _search(used, X, g2, h).ranker
    fresh = _search(learner.prepare(X, random_state=0), X, g2, h).ranker
    assert second.to_state() == fresh.to_state()
    import pickle
    assert pickle.loads(pickle.dumps(used))._hist_pool == []   # buffers do not travel


# ----------------------------------------------------------------------
# Kernels against NumPy
# ----------------------------------------------------------------------
def _split_table(slots, feature, bin, nan_left):
    """The partition's code -> goes-left table of one split."""
    return _histogram.split_tables(slots, np.array([feature], np.int32), np.array([bin], np.int32),
                                      np.array([nan_left], np.uint8), np.zeros(1, np.int32))[0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_encode_matches_searchsorted(dtype):
    X, _ = _data(1, n=500, dtype=dtype)
    layout = Trees(max_bins=16).prepare(X, random_state=0)
    codes = layout.encode(X).codes.T
    for j in range(X.shape[1]):
        col = X[:, j].astype(np.float64)
        expected = np.where(np.isnan(col), layout.n_edges[j] + 1, np.searchsorted(layout.edges[j], col, side="left"))
        np.testing.assert_array_equal(codes[j], expected)
        assert layout.n_edges[j] <= 15


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 300), st.integers(1, 4))
def test_kernel_histogram_and_partition_match_numpy(seed, n, d):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 5, size=(d, n)).astype(np.uint8)      # bins 0..4 of 4 edges
    codes[rng.random((d, n)) < 0.2] = 5                            # the NaN bin
    row_major = np.ascontiguousarray(codes.T)           # the kernels' (n, d) layout
    slots = slot_layout(np.full(d, 4))
    g, h = rng.normal(size=n), rng.random(n)
    idx = rng.permutation(n).astype(np.int32)
    start, end = sorted(rng.integers(0, n + 1, 2))
    for identity, unit_h in [(False, False), (True, False), (False, True), (True, True)]:
        hist = np.full((slots.n_slots, 3), np.nan)
        order = np.arange(n, dtype=np.int32) if identity else idx
        hh = np.ones(n) if unit_h else h
        _histogram.node_histogram(row_major, slots, g, hh, order, start, end, np.empty(n), np.empty(n), hist, 2,
                                     identity, unit_h)
        rows = order[start:end].copy()
        for j in range(d):
            c = codes[j, rows]
            fh = hist[slots.base[j]:slots.base[j] + 6]
            np.testing.assert_allclose(fh[:, 0], np.bincount(c, g[rows], minlength=6), atol=1e-12)
            np.testing.assert_allclose(fh[:, 1], np.bincount(c, hh[rows], minlength=6), atol=1e-12)
            np.testing.assert_array_equal(fh[:, 2], np.bincount(c, minlength=6))
    rows = idx[start:end].copy()
    # stable partition of idx[start:end] on feature 0 at bin 2
    nan_left = bool(rng.integers(0, 2))
    c = codes[0, rows]
    go_left = np.where(c == 5, nan_left, c <= 2)
    table = _split_table(slots, 0, 2, nan_left)
    before = idx.copy()
    # one thread, and 2-3 threads forced onto small ranges (min_parallel=0): the same stable order
    for n_threads in (1, 2, 3):
        work = before.copy()
        nl = _histogram.partition(row_major, work, np.empty(n, np.int32), start, end, 0, table, n_threads, 0)
        assert nl == go_left.sum()
        np.testing.assert_array_equal(work[start:end], np.r_[rows[go_left], rows[~go_left]])
        np.testing.assert_array_equal(work[:start], before[:start])
        np.testing.assert_array_equal(work[end:], before[end:])


def test_parallel_gather_and_partition_on_large_nodes_match_numpy():
    """Above PARALLEL_ROWS the gather and the partition run on 2 threads: same histogram, same order."""
    rng = np.random.default_rng(3)
    n, d = _histogram.PARALLEL_ROWS * 2 + 17, 3
    codes = rng.integers(0, 8, size=(n, d)).astype(np.uint8)       # bins 0..7 of 7 edges
    codes[rng.random((n, d)) < 0.05] = 8                           # the NaN bin
    slots = slot_layout(np.full(d, 7))
    g, h = rng.normal(size=n), rng.random(n)
    idx = rng.permutation(n).astype(np.int32)
    start, end = 5, n - 3
    rows = idx[start:end]
    for n_threads in (1, 2):
        hist = np.zeros((slots.n_slots, 3))
        _histogram.node_histogram(codes, slots, g, h, idx, start, end, np.empty(n), np.empty(n), hist, n_threads)
        for j in range(d):
            fh = hist[slots.base[j]:slots.base[j] + 9]
            np.testing.assert_allclose(fh[:, 0], np.bincount(codes[rows, j], g[rows], minlength=9), atol=1e-9)
            np.testing.assert_allclose(fh[:, 1], np.bincount(codes[rows, j], h[rows], minlength=9), atol=1e-9)
        work = idx.copy()
        nl = _histogram.partition(codes, work, np.empty(n, np.int32), start, end, 1,
                                     _split_table(slots, 1, 4, True), n_threads)
        c = codes[rows, 1]
        go_left = np.where(c == 8, True, c <= 4)
        assert nl == go_left.sum()
        np.testing.assert_array_equal(work[start:end], np.r_[rows[go_left], rows[~go_left]])


def test_predict_trees_equals_the_sum_of_tree_predictions_bitwise():
    X, y = _data(2, n=600)
    model = rankcore.boost(learner="trees:max_leaves=9", n_iter=15, n_jobs=1).fit(X, y)
    expected = np.zeros(X.shape[0])
    for ranker, alpha in zip(model.rankers_, model.alphas_):
        expected += alpha * ranker.predict(X)
    for n_threads in (1, 2):
        got = Trees.predict_sum(model.rankers_, model.alphas_, X, n_threads)
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(model.decision_function(X), expected)
    staged = list(model.staged_decision_function(X))
    np.testing.assert_array_equal(staged[-1], expected)
    # one tree at a time (early stopping's validation rows): α·h(x) of that tree, bit for bit, numeric and
    # categorical splits alike
    Xc = X.copy()
    Xc[:, 0] = np.floor(np.abs(Xc[:, 0]) * 3) % 5
    cat_model = rankcore.boost(learner="trees:max_leaves=9,categorical=0", n_iter=6, n_jobs=1).fit(Xc, y)
    for fitted, data in ((model, X), (cat_model, Xc)):
        for ranker, alpha in zip(fitted.rankers_, fitted.alphas_):
            for n_threads in (1, 2):
                one = Trees.predict_sum([ranker], np.array([alpha]), data, n_threads)
                np.testing.assert_array_equal(one, alpha * ranker.predict(data))
    assert any(r.categorical for r in cat_model.rankers_)


def test_predict_walks_raw_values_like_a_python_reference():
    X, y = _data(5, n=300)
    model = rankcore.boost(learner="trees:max_leaves=6", n_iter=3, n_jobs=1).fit(X, y)
    tree = model.rankers_[0]

    def walk(x):
        i = 0
        while tree.left[i] >= 0:
            v = x[tree.feature[i]]
            go_left = bool(tree.nan_left[i]) if np.isnan(v) else not v > tree.threshold[i]
            i = tree.left[i] if go_left else tree.right[i]
        return tree.value[i]

    np.testing.assert_array_equal(tree.predict(X), [walk(x) for x in X])


# ----------------------------------------------------------------------
# Missing values
# ----------------------------------------------------------------------
def test_nan_goes_to_the_side_with_the_larger_gain():
    rng = np.random.default_rng(0)
    n = 400
    x = rng.normal(size=n)
    g = np.where(x > 0, -1.0, 1.0)
    x[:50] = np.nan
    g[:50] = -1.0                                # the missing rows behave like x > 0: NaN goes right
    X = x[:, None]
    layout = Trees(max_leaves=2, min_samples_leaf=1).prepare(X, random_state=0)
    tree = _search(layout, X, g, np.ones(n)).ranker
    assert tree.feature[0] == 0 and not tree.nan_left[0]
    assert tree.predict(np.array([[np.nan]]))[0] == tree.predict(np.array([[5.0]]))[0]
    g[:50] = 1.0                                 # now they behave like x <= 0: NaN goes left
    tree = _search(layout, X, g, np.ones(n)).ranker
    assert tree.nan_left[0]


def test_nan_only_split_and_unseen_nan_goes_to_the_larger_side():
    rng = np.random.default_rng(1)
    n = 300
    x = rng.normal(size=n)
    x[:60] = np.nan
    g = np.where(np.isnan(x), -1.0, 60 / 240)    # only missingness matters
    layout = Trees(max_leaves=2, min_samples_leaf=1).prepare(x[:, None], random_state=0)
    tree = _search(layout, x[:, None], g, np.ones(n)).ranker
    assert tree.threshold[0] == ALL_LEFT and not tree.nan_left[0]
    # a feature without NaN in training: unseen NaN follows the larger child
    z = np.r_[np.zeros(250), np.ones(50)]
    layout = Trees(max_leaves=2, min_samples_leaf=1).prepare(z[:, None], random_state=0)
    tree = _search(layout, z[:, None], np.r_[np.full(250, -0.2), np.ones(50)], np.ones(n)).ranker
    assert tree.nan_left[0]                      # 250 rows go left
    assert tree.predict(np.array([[np.nan]]))[0] == tree.predict(np.array([[0.0]]))[0]


def test_estimators_accept_nan_only_for_learners_that_allow_it():
    X, y = _data(0, n=300)
    model = rankcore.boost(learner="trees", n_iter=5).fit(X, y)
    assert np.isfinite(model.decision_function(X)).all()
    with pytest.raises(ValueError, match="NaN"):
        rankcore.boost(learner="stumps", n_iter=5).fit(X, y)
    X_inf = np.nan_to_num(X)
    X_inf[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        rankcore.boost(learner="trees", n_iter=5).fit(X_inf, y)


# ----------------------------------------------------------------------
# Boosting with trees
# ----------------------------------------------------------------------
@pytest.mark.parametrize("growth", ["leafwise", "depthwise", "oblivious"])
@pytest.mark.parametrize("block_rows", [None, [1, 150, 99, 150], 64])
def test_boosting_with_blocks_gives_the_same_trees(block_rows, growth):
    X, y = _data(4, n=400)
    objective = resolve("objective", "push:exp,pow:4")

    def fit(blocks):
        layout = Trees(max_leaves=8, min_samples_leaf=5, subsample=0.8, growth=growth).prepare(X, random_state=3)
        backend = InMemoryBackend(objective.bind(y.astype(np.int8)), layout, X, y.astype(np.int8),
                                  block_rows=blocks)
        return run_boosting(backend, layout, n_iter=8, log_value=objective.log_value), backend

    (whole, b0), (parts, b1) = fit(None), fit(block_rows)
    assert len(whole.records) == len(parts.records) == 8
    for a, b in zip(whole.records, parts.records):
        assert a.ranker.kind == b.ranker.kind == ("oblivious_tree" if growth == "oblivious" else "tree")
        # (an oblivious tree has no child links: its levels and 2^depth leaf values say it all)
        for field in ("feature", "nan_left", "threshold") + (("left", "right") if growth != "oblivious" else ()):
            np.testing.assert_array_equal(getattr(a.ranker, field), getattr(b.ranker, field))
        np.testing.assert_allclose(a.ranker.value, b.ranker.value, rtol=1e-9)
        assert a.alpha == pytest.approx(b.alpha, rel=1e-9)
    np.testing.assert_allclose(b1.scores, b0.scores, rtol=1e-9, atol=1e-9)
    # the training scores are the model's: Σ (η α) h
    np.testing.assert_allclose(b0.scores, Trees.predict_sum([r.ranker for r in whole.records],
                                                             [r.alpha for r in whole.records], X), rtol=1e-12)


def test_learning_rate_shrinks_the_line_search_step():
    X, y = _data(6, n=300)
    full = rankcore.boost(learner="trees:learning_rate=1", n_iter=1, random_state=0).fit(X, y)
    small = rankcore.boost(learner="trees:learning_rate=0.25", n_iter=1, random_state=0).fit(X, y)
    assert small.alphas_[0] == pytest.approx(0.25 * full.alphas_[0], rel=1e-12)


@pytest.mark.parametrize("spec", ["push:exp,pow:4", "push:logistic,pow:8", "push:sqhinge,exp:1",
                                  "push:exp,pow:1", "prec@k-avg:20", "prec@k-max:20",
                                  "prec@k-ramp:20", "mp-squared"])
def test_every_objective_boosts_trees_without_increasing(spec):
    X, y = _data(7, n=300)
    model = rankcore.boost(objective=spec, learner="trees:max_leaves=7", n_iter=15, n_jobs=1,
                           random_state=0).fit(X, y)
    assert model.n_iter_ >= 1
    assert np.all(np.diff(model.objective_values_) <= 1e-12 * np.abs(model.objective_values_[1:]).clip(1))
    assert np.isfinite(model.decision_function(X)).all()


def test_trees_beat_stumps_on_an_interaction():
    X, y = _data(8, n=3000, nan_fraction=0.0)
    Xt, yt, Xv, yv = X[:2000], y[:2000], X[2000:], y[2000:]
    trees = rankcore.boost(learner="trees", n_iter=40, random_state=0).fit(Xt, yt)
    stumps = rankcore.boost(learner="stumps", n_iter=40, random_state=0).fit(Xt, yt)
    from sklearn.metrics import roc_auc_score
    assert roc_auc_score(yv, trees.decision_function(Xv)) > roc_auc_score(yv, stumps.decision_function(Xv)) + 0.05


def test_sample_weight_acts_as_multiplicity():
    X, y = _data(9, n=200, nan_fraction=0.05)
    w = np.random.default_rng(0).integers(0, 3, X.shape[0])
    spec = "trees:max_leaves=6,min_samples_leaf=1,min_child_weight=0,subsample=1"
    # An objective without curvature (gradient leaves, h = weight): the diagonal curvature of the
    # push objectives is not additive over duplicated rows (a row of weight 2 interacts with itself),
    # so only the gradient-leaf path is exactly multiplicity-invariant.
    weighted = rankcore.boost(loss="hinge", learner=spec, n_iter=4, random_state=0).fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(X.shape[0]), w)
    repeated = rankcore.boost(loss="hinge", learner=spec, n_iter=4, random_state=0).fit(X[rows], y[rows])
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-8)


def test_early_stopping_and_feature_importances():
    X, y = _data(10, n=1500, nan_fraction=0.0)
    model = rankcore.boost(learner="trees:max_leaves=15", n_iter=200, early_stopping=True, n_iter_no_change=5,
                           random_state=0).fit(X, y)
    assert model.stop_reason_ in ("early_stopping", "converged", "n_iter")
    assert model.n_iter_ == model.best_iteration_
    imp = model.feature_importances_
    assert imp.shape == (X.shape[1],) and imp.sum() == pytest.approx(1.0) and (imp >= 0).all()
    assert imp[:2].sum() > 0.5                         # the label depends on features 0 and 1
    stumps = rankcore.boost(learner="stumps", n_iter=3).fit(np.nan_to_num(X), y)
    with pytest.raises(AttributeError, match="split gains"):
        stumps.feature_importances_


class _Logistic(Objective):
    """Pointwise logistic loss Σ w log(1 + exp(−s f)), s = ±1: a test-only objective with curvature."""

    name = "test-logistic"

    def value_and_gradient(self, y, scores, sample_weight=None):
        w = np.ones_like(scores) if sample_weight is None else sample_weight
        s = np.where(y == 1, 1.0, -1.0)
        return float((w * np.logaddexp(0, -s * scores)).sum()), -w * s / (1 + np.exp(s * scores))

    def bind(self, y, sample_weight=None, *, n_threads=1):
        return _CurvedBound(self, y, sample_weight)


class _CurvedBound(_BoundDefault):
    has_hessian = True

    def value_gradient_hessian(self, scores):
        value, grad = self.value_and_gradient(scores)
        p = 1 / (1 + np.exp(-scores))
        w = np.ones_like(scores) if self.sample_weight is None else self.sample_weight
        return value, grad, w * p * (1 - p)


def test_newton_leaves_use_the_objective_curvature():
    X, y = _data(11, n=400)
    y8 = y.astype(np.int8)
    layout = Trees(max_leaves=4, l2=0.5, subsample=1.0).prepare(X, random_state=0)
    backend = InMemoryBackend(_Logistic().bind(y8), layout, X, y8)
    result = run_boosting(backend, layout, n_iter=1, log_value=False)
    tree = result.records[0].ranker
    leaf = tree.predict(X)
    g = np.where(y == 1, -0.5, 0.5)                    # gradient and Hessian (1/4) at scores 0
    for v in tree.values:
        rows = leaf == v
        assert v == pytest.approx(-g[rows].sum() / (0.25 * rows.sum() + 0.5), rel=1e-12)


# ----------------------------------------------------------------------
# Bad input, contract, persistence
# ----------------------------------------------------------------------
@pytest.mark.parametrize("spec, name", [
    ("trees:max_leaves=1", "max_leaves"), ("trees:learning_rate=0", "learning_rate"),
    ("trees:learning_rate=-1", "learning_rate"), ("trees:subsample=0", "subsample"),
    ("trees:subsample=1.5", "subsample"), ("trees:colsample=0", "colsample"), ("trees:colsample=2", "colsample"),
    ("trees:max_bins=256", "max_bins"), ("trees:l2=-1", "l2"), ("trees:min_child_weight=-1", "min_child_weight"),
    ("trees:learning_rate=nan", "learning_rate"),
])
def test_bad_parameters_are_refused_naming_them(spec, name):
    with pytest.raises(ValueError, match=name):
        rankcore.boost(learner=spec, n_iter=2).fit(*_data(0, n=50))


def test_nan_in_y_or_weights_is_refused():
    X, y = _data(0, n=50)
    with pytest.raises(ValueError, match="y"):
        rankcore.boost(learner="trees", n_iter=2).fit(X, np.where(y == 1, 1.0, np.nan))
    with pytest.raises(ValueError, match="sample_weight"):
        rankcore.boost(learner="trees", n_iter=2).fit(X, y, sample_weight=np.full(50, np.nan))


@pytest.mark.parametrize("check",
                         component_checks("learner", "trees") + component_checks("learner", "trees:subsample=1"),
                         ids=str)
def test_trees_learner_contract(check):
    check()


def test_subsampled_trees_report_an_estimated_derivative():
    assert resolve("learner", "trees").prepare(_data(0, n=50)[0], random_state=0).sampled_derivative
    assert not resolve("learner", "trees:subsample=1").prepare(_data(0, n=50)[0], random_state=0).sampled_derivative


def test_save_load_round_trip_and_validation(tmp_path):
    X, y = _data(12, n=300)
    model = rankcore.boost(learner="trees:max_leaves=5", n_iter=4, random_state=0).fit(X, y)
    path = tmp_path / "m.json"
    rankcore.save_model(model, path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_allclose(loaded.feature_importances_, model.feature_importances_)

    text = path.read_text()

    def corrupt(edit, match):
        corrupt_tree_file(tmp_path, text, edit, match)

    def child_out_of_range(t):
        t["left"][0] = 999

    def cycle(t):
        t["left"][t["left"][0]] = 0
        t["right"][t["left"][0]] = 0

    def shared(t):
        t["right"][0] = t["left"][0]

    def big_feature(t):
        t["feature"][0] = 50

    def nan_value(t):
        t["value"][-1] = float("nan")

    def short(t):
        t["value"].pop()

    corrupt(child_out_of_range, "left child")
    corrupt(cycle, "child|leaf")
    corrupt(shared, "reached twice")
    corrupt(big_feature, "feature 50")
    corrupt(nan_value, "value")
    corrupt(short, "value")


def corrupt_tree_file(tmp_path, text, edit, match, kind="tree"):
    """Edit the first ``kind`` record of a saved model's text, re-sign it: loading must raise ModelFormatError."""
    doc = json.loads(text)
    edit(_find_trees(doc, kind)[0])
    del doc["sha256"]
    doc["sha256"] = _checksum(doc)            # a consistent file with inconsistent trees
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(ModelFormatError, match=match):
        rankcore.load_model(bad)


def _find_trees(doc, kind="tree"):
    found = []

    def visit(node):
        if isinstance(node, dict):
            if node.get("kind") == kind:
                found.append(node)
            for v in node.values():
                visit(v)
        elif isinstance(node, list):
            for v in node:
                visit(v)

    visit(doc)
    return found


def test_tree_record_validation_directly():
    good = {"kind": "tree", "feature": [0, -1, -1], "threshold": [0.5, 0, 0], "nan_left": [True, False, False],
            "left": [1, -1, -1], "right": [2, -1, -1], "value": [0, -1.0, 1.0], "gain": [2.0, 0, 0]}
    tree = tree_arrays_from_state(good)
    assert isinstance(tree, TreeRanker) and tree.values == (-1.0, 1.0)
    np.testing.assert_array_equal(tree.predict(np.array([[0.0], [1.0], [np.nan]])), [-1.0, 1.0, -1.0])
    for field, value, match in [("left", [1, -1, 5], "left"), ("threshold", [math.inf, 0, 0], "threshold"),
                                ("feature", [-2, -1, -1], "feature"), ("left", [1.5, -1, -1], "left"),
                                ("nan_left", ["x", 0, 0], "nan_left")]:
        with pytest.raises(ValueError, match=match):
            tree_arrays_from_state({**good, field: value})


def test_cli_fit_and_compare_accept_trees(tmp_path):
    import contextlib
    import io

    from rankcore.cli import main

    X, y = _data(13, n=300, nan_fraction=0.0)
    data = tmp_path / "data.csv"
    with open(data, "w") as fh:
        fh.write(",".join(f"x{j}" for j in range(X.shape[1])) + ",label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")

    def run(*argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main([str(a) for a in argv])
        return status, out.getvalue(), err.getvalue()

    model_path = tmp_path / "m.json"
    status, _, err = run("fit", data, "--label", "label", "--learner", "trees:max_leaves=7", "--n-iter", "6",
                         "--out", model_path, "--progress", "lines")
    assert status == 0, err
    assert "iter 6/6" in err                                   # the progress shows the trees' iterations
    model = rankcore.load_model(model_path)
    assert model.learner_spec_.startswith("trees") and model.n_iter_ == 6
    status, out, err = run("compare", data, "--label", "label", "--model", "push", "--learner", "stumps,trees",
                           "--n-iter", "5", "--table-format", "json", "--no-plots")
    assert status == 0, err
    assert "trees" in out


def test_trees_defaults_are_pinned():
    """boost(learner="trees"): exp loss, the trees' own price pow:2, 100 LightGBM-sized trees."""
    from rankcore.learners.trees._learner import Trees

    X, y = _data(11, n=300, nan_fraction=0.0)
    model = rankcore.boost(learner="trees", random_state=0).fit(X, y)
    assert model.objective_spec_ == "push:exp,pow:2"
    # n_iter=None: 100 iterations below 10,000 rows (early_stopping="auto" is off there)
    assert model.n_iter is None and model.n_iter_ == 100 and model.stop_reason_ == "n_iter"
    trees = rankcore.resolve("learner", "trees")
    assert isinstance(trees, Trees)
    assert (trees.max_leaves, trees.learning_rate, trees.min_samples_leaf, trees.max_bins) == (31, 0.1, 20, 255)
    # the other learners keep pow:4, and an explicit price always wins
    assert rankcore.boost(n_iter=2).fit(X, y).objective_spec_ == "push:exp,pow:4"
    assert rankcore.boost(learner="trees", price="pow:8", n_iter=2).fit(X, y).objective_spec_ == "push:exp,pow:8"
    with pytest.raises(ValueError, match="replaces loss and price"):
        rankcore.boost(objective="prec@k-avg:5", price="pow:2").fit(X, y)


def test_default_trees_learn_an_interaction_that_stumps_cannot():
    """A planted XOR: the label depends on sign(x0) * sign(x1) only; stumps (additive) cannot rank it."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 5))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    flip = rng.random(2000) < 0.1
    y[flip] = 1 - y[flip]
    tr, te = slice(0, 1400), slice(1400, None)
    trees = rankcore.boost(learner="trees", random_state=0).fit(X[tr], y[tr])
    stumps = rankcore.boost(random_state=0).fit(X[tr], y[tr])
    auc_trees = rankcore.evaluate(y[te], trees.decision_function(X[te]), ["auc"])["auc"]
    auc_stumps = rankcore.evaluate(y[te], stumps.decision_function(X[te]), ["auc"])["auc"]
    assert auc_trees > 0.85 > 0.65 > auc_stumps


def _passes_per_tree(spec, X, g, h):
    """Run one tree search over one block and count its passes (reductions)."""
    from rankcore.learners._base import multi_pass_search

    layout = rankcore.resolve("learner", spec).prepare(X, random_state=0)
    encoded = [layout.encode(X)]
    passes = {"n": 0}
    inner = layout.block_pass

    def counting(block, gradient, hessian, request, **kw):
        passes["n"] += not passes.get("inside")        # a depth-wise pass recurses per split: count once
        outer = not passes.get("inside")
        passes["inside"] = True
        try:
            return inner(block, gradient, hessian, request, **kw)
        finally:
            if outer:
                passes["inside"] = False

    layout.block_pass = counting
    candidate = multi_pass_search(layout, encoded, [g], [h])
    return candidate.ranker, passes["n"], layout, encoded


def _depth(tree):
    def walk(i):
        return 0 if tree.left[i] < 0 else 1 + max(walk(tree.left[i]), walk(tree.right[i]))
    return walk(0)


@pytest.mark.parametrize("seed", range(6))
def test_depthwise_growth_makes_one_pass_per_level_and_equals_leafwise_without_a_leaf_budget(seed):
    """Without a binding leaf budget both growths split every splittable node up to max_depth:
    the same tree (same h on every row), but depth-wise needs one pass per level, not per split.
    (Without random strength: its noise is keyed by the node numbers, which differ between the orders.)"""
    X, y = _data(seed, n=600, nan_fraction=0.1)
    rng = np.random.default_rng(seed)
    g = rng.normal(size=X.shape[0]) - (y - 0.5)
    h = rng.uniform(0.5, 2.0, size=X.shape[0])
    base = "trees:max_depth=3,max_leaves=64,min_samples_leaf=10,random_strength=0"
    deep, n_deep, lay_d, enc_d = _passes_per_tree(base + ",growth=depthwise", X, g, h)
    leaf, n_leaf, lay_l, enc_l = _passes_per_tree(base, X, g, h)
    np.testing.assert_array_equal(deep.predict(X), leaf.predict(X))
    assert deep.n_leaves == leaf.n_leaves
    assert n_deep <= _depth(deep) + 1                  # the root, then one pass per level
    assert n_leaf >= deep.n_leaves - 1 or deep.n_leaves <= 2
    np.testing.assert_array_equal(lay_d.evaluate(deep, enc_d[0]), deep.predict(X))


def test_depthwise_growth_with_a_leaf_budget_takes_the_largest_gains_and_matches_blocks():
    X, y = _data(4, n=800, nan_fraction=0.05)
    spec = "trees:max_leaves=5,min_samples_leaf=5,growth=depthwise"
    model = rankcore.boost(learner=spec, n_iter=6, random_state=0).fit(X, y)
    assert all(r.n_leaves <= 5 for r in model.rankers_)
    assert model.learner_spec_.endswith("growth='depthwise'") or "depthwise" in model.learner_spec_
    with pytest.raises(ValueError, match="growth"):
        rankcore.boost(learner="trees:growth=sideways", n_iter=2).fit(X, y)

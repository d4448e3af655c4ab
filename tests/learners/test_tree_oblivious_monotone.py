"""Monotone constraints on ``trees:growth=oblivious``: the exact projection of the leaf values onto the monotone
order, the constrained levels' scores, both routes bit for bit, and the score's monotonicity.

The plain NumPy reference grower with signs is in ``test_tree_oblivious.py``; the brute-force projection
(``isotonic_by_enumeration``) in ``_tree_references.py``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _oblivious_kernels as kernels
from rankcore.learners.trees._oblivious_monotone import isotonic_leaves, monotone_cells, order_edges
from rankcore.persistence import load_model, save_model
from rankcore.registry import resolve
from _tree_references import isotonic_by_enumeration, monotone_cell_pairs, route_statistics
from test_tree_monotone import GRID as STEPS, _data, _worst_step
from test_tree_oblivious_grow import _both_routes


def _random_cells(rng, depth):
    """Each cell's node in a random oblivious tree of ``depth`` levels whose nodes are split or not (ids
    shuffled: the projection must not depend on the numbering)."""
    cells, n_nodes = [0], 1
    for _ in range(depth):
        size = len(cells)
        cells = cells * 2
        for node in set(cells[:size]):
            if rng.random() < 0.75:
                a, b = n_nodes, n_nodes + 1
                n_nodes += 2
                for c in range(size):
                    if cells[c] == node:
                        cells[c], cells[c + size] = a, b
    ids = rng.permutation(n_nodes)
    return ids[np.array(cells)], n_nodes


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 3), st.sampled_from([0.0, 0.5]))
def test_the_leaf_values_are_the_exact_projection_onto_the_order(seed, depth, l2):
    rng = np.random.default_rng(seed)
    cell_node, n_nodes = _random_cells(rng, depth)
    G = np.round(rng.normal(size=n_nodes), 1)                   # ties
    H = rng.choice([0.5, 1.0, 2.0, 3.5], size=n_nodes)
    level_sign = rng.integers(-1, 2, size=depth)
    value, derivative = monotone_cells(cell_node, G, H, l2, level_sign)
    leaves = list(dict.fromkeys(cell_node.tolist()))
    leaf = [leaves.index(c) for c in cell_node.tolist()]
    pairs = monotone_cell_pairs(leaf, level_sign)
    g, w = G[leaves], H[leaves] + l2
    expect = isotonic_by_enumeration(g, w, pairs)
    np.testing.assert_allclose(value, expect[leaf], rtol=1e-10, atol=1e-12)
    for a, b in pairs:                                           # the order holds exactly, in floating point
        assert value[leaf.index(a)] <= value[leaf.index(b)]
    assert derivative == pytest.approx(float(np.sum(g * expect[np.arange(len(leaves))])), rel=1e-10, abs=1e-12)
    assert derivative <= 1e-12                                   # a descent direction: −Σ w v² after projection
    lo, hi = order_edges(np.array(leaf), level_sign)
    assert set(zip(lo.tolist(), hi.tolist())) == pairs


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 7), st.integers(0, 10))
def test_isotonic_leaves_on_any_preorder_matches_enumeration(seed, n, n_pairs):
    """Random pairs, cycles among them (their leaves pooled), isolated leaves, ties."""
    rng = np.random.default_rng(seed)
    pairs = {(int(a), int(b)) for a, b in rng.integers(0, n, size=(n_pairs, 2)) if a != b}
    G = np.round(rng.normal(size=n) * 2, 0)
    w = rng.choice([0.25, 1.0, 4.0], size=n)
    lo = np.array([a for a, _ in sorted(pairs)], dtype=np.intp)
    hi = np.array([b for _, b in sorted(pairs)], dtype=np.intp)
    v = isotonic_leaves(G, w, lo, hi)
    np.testing.assert_allclose(v, isotonic_by_enumeration(G, w, pairs), rtol=1e-10, atol=1e-12)
    assert all(v[a] <= v[b] for a, b in pairs)


def test_isotonic_leaves_refuses_weights_that_are_not_positive():
    with pytest.raises(ValueError, match="H \\+ l2 must be positive"):
        isotonic_leaves(np.ones(2), np.array([1.0, 0.0]), np.array([0]), np.array([1]))


def test_leaves_that_keep_the_order_keep_their_newton_values_bit_for_bit():
    cell_node = np.array([0, 1, 2, 3])
    G, H = np.array([3.0, 1.0, 0.5, -2.0]), np.array([1.0, 2.0, 1.5, 1.0])
    value, derivative = monotone_cells(cell_node, G, H, 0.3, np.array([1, 1]))
    newton = -G / (H + 0.3)
    np.testing.assert_array_equal(value, newton)
    assert derivative == sum(float(a * b) for a, b in zip(G, newton))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n_nodes=st.integers(1, 4), l2=st.sampled_from([0.0, 0.5]))
def test_constrained_level_gains_count_where_the_children_keep_the_order(seed, n_nodes, l2):
    """level_gains_add with signs against NumPy: a constrained candidate adds a node's gain only where
    sign·(v_R − v_L) > 0; free features add theirs as without signs (bit for bit)."""
    rng = np.random.default_rng(seed)
    n_edges = rng.integers(0, 6, size=4).astype(np.intp)
    base = np.r_[0, np.cumsum(n_edges + 2)[:-1]].astype(np.intp)
    S = int((n_edges + 2).sum())
    mask = np.ones(4, dtype=np.uint8)
    signs = np.array([1, -1, 0, 1], dtype=np.int8)
    out, free, expect = np.zeros((S, 2)), np.zeros((S, 2)), np.zeros((S, 2))
    for _ in range(n_nodes):
        hist = np.zeros((S, 3))
        hist[:, 2] = rng.integers(0, 4, size=S)
        hist[:, 0] = np.round(rng.normal(size=S), 1) * (hist[:, 2] > 0)
        hist[:, 1] = hist[:, 2] * rng.uniform(0.5, 1.0, size=S)
        kernels.level_gains_add(hist, base, n_edges, mask, 1.0, 0.2, l2, out, 2, signs)
        kernels.level_gains_add(hist, base, n_edges, mask, 1.0, 0.2, l2, free, 2)
        for j in range(4):
            fh = hist[base[j]: base[j] + n_edges[j] + 2]
            G, H, C = fh.sum(axis=0)
            for b in range(n_edges[j] + 1):
                for side, nan_left in enumerate((True, False)):
                    lg, lh, lc = fh[: b + 1].sum(axis=0) + (fh[-1] if nan_left else 0.0)
                    rg, rh, rc = G - lg, H - lh, C - lc
                    if lc < 1 or rc < 1 or lh < 0.2 or rh < 0.2 or H + l2 <= 0:
                        continue
                    if signs[j] and not signs[j] * (lg / (lh + l2) - rg / (rh + l2)) > 0:
                        continue
                    expect[base[j] + b, side] += lg ** 2 / (lh + l2) + rg ** 2 / (rh + l2) - G ** 2 / (H + l2)
    np.testing.assert_allclose(out, expect, rtol=1e-10, atol=1e-10)
    free_slots = slice(base[2], base[2] + n_edges[2] + 2)
    np.testing.assert_array_equal(out[free_slots], free[free_slots])
    with pytest.raises(ValueError, match="signs must hold one entry per feature"):
        kernels.level_gains_add(hist, base, n_edges, mask, 1.0, 0.2, l2, out, 1, signs[:3])


ROUTES = [
    "trees:growth=oblivious,monotone=1/-1/0/0/1,subsample=1",
    "trees:growth=oblivious,monotone=1/-1/0/0/1",                                    # subsample 0.8
    "trees:growth=oblivious,monotone=-1/0/1/1/0,max_depth=8,min_samples_leaf=3,min_child_weight=0",
    "trees:growth=oblivious,monotone=1/1/1/1/1,max_depth=4,l2=2,colsample=0.6,min_samples_leaf=30",
    "trees:growth=oblivious,monotone=1/-1/0/0/1,random_strength=1,max_depth=5,subsample=0.7",
    "trees:growth=oblivious,monotone=1/-1/0/1/0,interactions=0+2+4/1+3,max_depth=4",
]


@pytest.mark.parametrize("spec", ROUTES)
@pytest.mark.parametrize("curvature", ["ones", "weights", "hessian"])
def test_native_growth_equals_the_multi_pass_protocol_with_monotone_oblivious_trees(spec, curvature):
    X, _ = _data(3, n=500)
    pairs = _both_routes(spec, X, *route_statistics(X.shape[0], 4, curvature))
    assert any(a[0] is not None for a, _ in pairs)
    for a, b in pairs:
        assert a == b


def test_both_routes_give_the_same_model():
    X, y = _data(8, n=700)
    spec = "trees:growth=oblivious,monotone=1/-1/0/0/1,max_depth=5"
    native = rankcore.boost(learner=spec, n_iter=12, random_state=0).fit(X, y)
    learner = resolve("learner", spec)
    assert native.rankers_ and learner.monotone == "1/-1/0/0/1"
    for r in native.rankers_:                      # each tree is monotone on its own, NaN in the other columns
        assert _worst_tree_step(r, X[:40], 0, 1) >= 0.0 and _worst_tree_step(r, X[:40], 1, -1) >= 0.0


def _worst_tree_step(ranker, rows, j, sign):
    scores = []
    for v in STEPS:
        R = rows.copy()
        R[:, j] = v
        scores.append(ranker.predict(R))
    return float((sign * np.diff(np.array(scores), axis=0)).min())


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([0.0, 2.0]), st.sampled_from([1.0, 0.7]), st.sampled_from([3, 6]),
       st.booleans())
def test_the_score_and_every_tree_are_monotone(seed, l2, subsample, depth, interactions):
    X, y = _data(seed, n=300, d=3, nan_fraction=0.2)                 # NaN in the constrained columns too
    spec = (f"trees:growth=oblivious,monotone=-1/1/0,l2={l2},subsample={subsample},max_depth={depth},"
            f"min_samples_leaf=5" + (",interactions=0+2/1+2" if interactions else ""))
    model = rankcore.boost(learner=spec, n_iter=10, random_state=seed % 1000).fit(X, y)
    rows = X[:30]
    assert _worst_step(model, rows, 0, -1, STEPS) >= 0.0
    assert _worst_step(model, rows, 1, 1, STEPS) >= 0.0
    for r in model.rankers_:
        assert _worst_tree_step(r, rows, 0, -1) >= 0.0 and _worst_tree_step(r, rows, 1, 1) >= 0.0


def test_the_constraints_bind_and_the_unconstrained_fit_is_not_monotone():
    X, y = _data(1)
    spec = "trees:growth=oblivious,subsample=1"
    model = rankcore.boost(learner=f"{spec},monotone=1/-1/0/0/1", n_iter=25, random_state=0).fit(X, y)
    free = rankcore.boost(learner=spec, n_iter=25, random_state=0).fit(X, y)
    rows = X[:80]
    for j, sign in ((0, 1), (1, -1), (4, 1)):
        assert _worst_step(model, rows, j, sign, STEPS) >= 0.0
    assert min(_worst_step(free, rows, j, s, STEPS) for j, s in ((0, 1), (1, -1))) < 0.0


def test_the_per_query_default_keeps_its_oblivious_trees_with_monotone(tmp_path):
    X, y = _data(3, n=800)
    qid = np.repeat(np.arange(40), 20)
    model = rankcore.boost(learner="trees:monotone=1/-1/0/0/0", n_iter=15, random_state=0).fit(X, y, qid=qid)
    learner = resolve("learner", model.learner_spec_)
    assert (learner.growth, learner.max_depth, learner.monotone) == ("oblivious", 6, "1/-1/0/0/0")
    assert model.rankers_ and all(r.kind == "oblivious_tree" for r in model.rankers_)
    rows = X[:60]
    assert _worst_step(model, rows, 0, 1, STEPS) >= 0.0
    assert _worst_step(model, rows, 1, -1, STEPS) >= 0.0
    save_model(model, tmp_path / "model.json")
    loaded = load_model(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    # the contributions still add up to the score (they read the projected leaf values)
    phi = model.feature_contributions(rows)
    np.testing.assert_allclose(phi.sum(axis=1), model.decision_function(rows), rtol=1e-9, atol=1e-9)

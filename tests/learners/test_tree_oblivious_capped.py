"""Oblivious trees under ``trees:max_delta_step``: the level search scores candidates by the capped gains.

Checked here: the capped level gains of the kernels (one node's, a larger child's walk, two siblings' walk)
against a NumPy reference on random histograms with ties, empty bins and NaN rows; a node whose children both
sit at one bound adding +0 (a level that changes no value is no level); a cap that binds nowhere giving the
vector path's gains bit for bit at every vector width; the grown trees against the plain NumPy reference grower
with a cap (levels and values), and the cap changing the levels where it binds; both growth routes and one or two
threads alike (the native grower, the multi-pass search of Dask).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _oblivious_kernels as kernels
from rankcore.learners.trees._ranker import TIE_TOLERANCE
from rankcore.registry import resolve
from test_tree_oblivious import _data, _reference_tree
from test_tree_oblivious_grow import _sibling_histograms, _widths_and_walks
from _tree_references import assert_level_best_is_first_top, route_statistics
from _tree_routes import assert_routes_agree


def _capped_level_gains_numpy(hist, base, n_edges, mask, msl, mcw, l2, cap):
    """One node's capped gain of every candidate (feature, bin, NaN side) in NumPy, as an (S, 2) array.

    Each side's term is the decrease of the second-order model at its value clamped to ±cap,
    −(2·G·w + (H+λ)·w²) at w = clip(−G/(H+λ), −cap, cap) (which is G²/(H+λ) where the clip does nothing);
    a candidate leaving a side too small, or both sides' values at or beyond one bound, gains 0.
    """
    out = np.zeros((hist.shape[0], 2))

    def term(G, H):
        w = np.clip(-G / (H + l2), -cap, cap)
        return -(2 * G * w + (H + l2) * w * w)

    for j in np.flatnonzero(mask):
        fh = hist[base[j]: base[j] + n_edges[j] + 2]
        G, H, C = fh.sum(axis=0)
        if H + l2 <= 0:
            continue
        cum = np.cumsum(fh[:-1], axis=0)                                  # bins 0..b, NaN apart
        for side, left in enumerate((cum + fh[-1], cum)):                 # NaN left, NaN right
            lg, lh, lc = left.T
            rg, rh, rc = G - lg, H - lh, C - lc
            with np.errstate(divide="ignore", invalid="ignore"):
                wl, wr = -lg / (lh + l2), -rg / (rh + l2)
                gain = term(lg, lh) + term(rg, rh) - term(G, H)
            ok = (lc >= msl) & (rc >= msl) & (lh >= mcw) & (rh >= mcw) & (lh + l2 > 0) & (rh + l2 > 0)
            ok &= ~(((wl >= cap) & (wr >= cap)) | ((wl <= -cap) & (wr <= -cap)))
            out[base[j]: base[j] + n_edges[j] + 1, side] = np.where(ok, gain, 0.0)
    return out


def _layout(rng, d=4, max_edges=8):
    n_edges = rng.integers(0, max_edges, size=d).astype(np.intp)
    base = np.r_[0, np.cumsum(n_edges + 2)[:-1]].astype(np.intp)
    return n_edges, base, int((n_edges + 2).sum())


def _node(rng, S, scale):
    """A node's random (S, 3) histogram: ties among the gradients, empty bins, some NaN rows."""
    hist = np.zeros((S, 3))
    hist[:, 2] = rng.integers(0, 4, size=S) * (rng.random(S) < 0.8)
    hist[:, 0] = np.round(rng.normal(size=S), 1) * scale * hist[:, 2]
    hist[:, 1] = hist[:, 2] * rng.choice([0.25, 0.5, 1.0], size=S)          # ties of curvature
    return hist


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n_nodes=st.integers(1, 4), l2=st.sampled_from([0.0, 0.5]),
       msl=st.sampled_from([1.0, 3.0]), cap=st.sampled_from([0.05, 0.3, 1.0, 4.0]), scale=st.sampled_from([1.0, 8.0]))
def test_capped_level_gains_match_numpy(seed, n_nodes, l2, msl, cap, scale):
    """The level's summed capped gains (``level_gains_add``, over several nodes) against NumPy, and the best
    candidate (``level_best``) the first within the tie tolerance of the largest."""
    rng = np.random.default_rng(seed)
    n_edges, base, S = _layout(rng)
    mask = np.ones(4, dtype=np.uint8)
    mask[rng.integers(0, 4)] = 0
    out, expect = np.zeros((S, 2)), np.zeros((S, 2))
    for _ in range(n_nodes):
        hist = _node(rng, S, scale)
        kernels.level_gains_add(hist, base, n_edges, mask, msl, 0.2, l2, out, 2, None, cap)
        expect += _capped_level_gains_numpy(hist, base, n_edges, mask, msl, 0.2, l2, cap)
    scale_of = max(1.0, float(np.abs(expect).max()))
    np.testing.assert_allclose(out, expect, rtol=1e-10, atol=1e-12 * scale_of)
    assert_level_best_is_first_top(out, base, n_edges, mask)


def test_the_reference_sees_the_cap_bind():
    """The histograms above reach the cap in places, so the capped gains differ from the uncapped ones."""
    rng = np.random.default_rng(0)
    n_edges, base, S = _layout(rng)
    mask = np.ones(4, dtype=np.uint8)
    capped, plain = np.zeros((S, 2)), np.zeros((S, 2))
    hist = _node(rng, S, 8.0)
    kernels.level_gains_add(hist, base, n_edges, mask, 1.0, 0.0, 0.5, capped, 1, None, 0.3)
    kernels.level_gains_add(hist, base, n_edges, mask, 1.0, 0.0, 0.5, plain)
    assert not np.allclose(capped, plain)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), l2=st.sampled_from([0.0, 0.5]), msl=st.sampled_from([0.0, 1.0, 3.0]),
       cap=st.sampled_from([0.1, 0.5, 2.0]), search_large=st.booleans(), search_small=st.booleans(),
       small_first=st.booleans())
def test_sibling_walks_add_the_capped_gains_of_each_child_bitwise(seed, l2, msl, cap, search_large, search_small,
                                                                  small_first):
    """The grower's walks (a larger child's subtraction and gains; two siblings at once) with a cap: the
    subtraction of NumPy and the capped gains of ``level_gains_add`` on each child, in node order, bit for bit."""
    rng = np.random.default_rng(seed)
    n_edges, base, S, mask, parent, small = _sibling_histograms(rng, 6, 20)
    parent[:, 0] *= 6.0
    small[:, 0] *= 6.0
    large = parent - small
    expect = np.zeros((S, 2))
    for child, search in (((small, search_small), (large, search_large)) if small_first
                          else ((large, search_large), (small, search_small))):
        if search:
            kernels.level_gains_add(child, base, n_edges, mask, msl, 0.1, l2, expect, 1, None, cap)
    out, hist = np.zeros((S, 2)), parent.copy()
    kernels.level_gains_pair(hist, small, base, n_edges, mask, search_large, search_small, small_first, msl, 0.1,
                             l2, out, cap)
    assert hist.tobytes() == large.tobytes() and out.tobytes() == expect.tobytes()
    expect_large = np.zeros((S, 2))
    kernels.level_gains_add(large, base, n_edges, mask, msl, 0.1, l2, expect_large, 1, None, cap)
    out, hist, top = np.zeros((S, 2)), parent.copy(), np.zeros(len(base))
    kernels.level_gains_sub_add(hist, small, base, n_edges, mask, msl, 0.1, l2, out, top, cap)
    assert hist.tobytes() == large.tobytes() and out.tobytes() == expect_large.tobytes()


def test_a_node_whose_children_all_clamp_to_one_bound_adds_nothing():
    """Every row's Newton value far above the cap: every candidate's two cells take +cap, as the node does; the
    level changes no value, gains exactly +0 and is no level (its "gain" would be −λ·cap²)."""
    n_edges = np.array([3, 2], dtype=np.intp)
    base = np.array([0, 5], dtype=np.intp)
    hist = np.zeros((9, 3))
    hist[:, 2] = [2, 3, 1, 2, 1, 4, 0, 3, 2]
    hist[:, 1] = hist[:, 2]
    hist[:, 0] = -5.0 * hist[:, 2]                       # −G/(H+λ) near 5 in every cell, cap 0.5
    out = np.zeros((9, 2))
    kernels.level_gains_add(hist, base, n_edges, np.ones(2, np.uint8), 1.0, 0.0, 1.0, out, 1, None, 0.5)
    assert out.tobytes() == np.zeros((9, 2)).tobytes()
    assert kernels.level_best(out, base, n_edges, np.ones(2, np.uint8), TIE_TOLERANCE) is None
    # one bin far below −cap: the candidates that leave it on a side at the other bound gain
    hist[1, 0] = 5.0 * hist[1, 2]
    out[:] = 0.0
    kernels.level_gains_add(hist, base, n_edges, np.ones(2, np.uint8), 1.0, 0.0, 1.0, out, 1, None, 0.5)
    assert out.max() > 0 and kernels.level_best(out, base, n_edges, np.ones(2, np.uint8), TIE_TOLERANCE)[0] == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_cap_that_binds_nowhere_gives_the_vector_gains_bitwise_at_every_width(seed):
    rng = np.random.default_rng(seed)
    n_edges, base, S = _layout(rng, d=5, max_edges=40)
    mask = np.ones(5, dtype=np.uint8)
    hists = [_node(rng, S, 1.0) for _ in range(3)]
    for level, walks in _widths_and_walks(kernels):
        plain, capped = np.zeros((S, 2)), np.zeros((S, 2))
        for hist in hists:
            kernels.level_gains_add(hist, base, n_edges, mask, 1.0, 0.0, 0.5, plain)
            kernels.level_gains_add(hist, base, n_edges, mask, 1.0, 0.0, 0.5, capped, 1, None, 1e300)
        assert plain.tobytes() == capped.tobytes(), f"vector level {level}, vector walks {walks}"


@pytest.mark.parametrize("cap", [-1.0, np.nan, np.inf])
def test_the_kernels_refuse_a_bad_cap(cap):
    n_edges, base = np.array([2], dtype=np.intp), np.array([0], dtype=np.intp)
    hist, out = np.zeros((4, 3)), np.zeros((4, 2))
    with pytest.raises(ValueError, match="level_gains_add: cap"):
        kernels.level_gains_add(hist, base, n_edges, np.ones(1, np.uint8), 1.0, 0.0, 0.0, out, 1, None, cap)
    with pytest.raises(ValueError, match="level_gains_pair: cap"):
        kernels.level_gains_pair(hist, hist.copy(), base, n_edges, np.ones(1, np.uint8), True, True, True, 1.0, 0.0,
                                 0.0, out, cap)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("params", [dict(max_depth=3, min_samples_leaf=5, min_child_weight=0.0, l2=0.0),
                                    dict(max_depth=4, min_samples_leaf=2, min_child_weight=0.0, l2=1.0),
                                    dict(max_depth=3, min_samples_leaf=10, min_child_weight=1.0, l2=0.5)])
def test_capped_oblivious_trees_match_the_numpy_reference_grower(seed, params):
    """The grown tree (levels, cell values) against the brute-force grower scoring the capped gains."""
    X, _ = _data(seed, n=150, d=4)
    rng = np.random.default_rng(seed)
    g = np.round(rng.normal(loc=-0.2, size=150), 1)                    # ties; Newton values beyond the cap
    h = rng.uniform(0.5, 2.0, size=150)
    cap = 0.2
    spec = "trees:growth=oblivious,subsample=1,max_bins=8," + ",".join(f"{k}={v}" for k, v in params.items())
    layout = resolve("learner", spec + f",max_delta_step={cap}").prepare(X, random_state=0)
    tree = layout.search_in_memory([layout.encode(X)], [g], [h]).ranker
    levels, values = _reference_tree(layout, X, g, h, params["max_depth"], params["min_samples_leaf"],
                                     params["min_child_weight"], params["l2"], cap=cap)
    assert [(int(j), int(b), bool(v)) for j, b, v in zip(tree.feature, tree.bins, tree.nan_left)] == levels
    np.testing.assert_allclose(tree.value, values, rtol=1e-9, atol=1e-12)
    assert np.abs(tree.value).max() == cap


def test_the_cap_changes_the_levels_where_it_binds():
    """Against the uncapped trees of the same statistics, the capped trees choose other levels somewhere."""
    X, _ = _data(1, n=600, d=5)
    gradients, curvatures = route_statistics(X.shape[0], 4, "hessian")
    spec = "trees:growth=oblivious,max_depth=4,min_samples_leaf=5,subsample=1,l2=0.5"
    layouts = [resolve("learner", s).prepare(X, random_state=0) for s in (spec, spec + ",max_delta_step=0.2")]
    differ = 0
    for g, h in zip(gradients, curvatures):
        plain, capped = (lay.search_in_memory([lay.encode(X)], [4 * g], [h]).ranker for lay in layouts)
        differ += plain.feature.tobytes() + plain.bins.tobytes() != capped.feature.tobytes() + capped.bins.tobytes()
        assert np.abs(capped.value).max() <= 0.2
    assert differ > 0


@pytest.mark.parametrize("spec", [
    "trees:max_depth=4,growth=oblivious,min_samples_leaf=5,max_delta_step=0.15",
    "trees:max_depth=3,growth=oblivious,min_samples_leaf=5,max_delta_step=0.15,monotone=1/-1/0/0/1",
    "trees:max_depth=4,growth=oblivious,min_samples_leaf=5,max_delta_step=0.15,subsample=0.7,random_strength=1",
])
@pytest.mark.parametrize("batched", [False, True])
def test_grower_and_multi_pass_search_grow_the_same_capped_levels(spec, batched):
    X, _ = _data(2, n=600, d=5)
    gradients, curvatures = route_statistics(X.shape[0], 4, "hessian")
    pairs = assert_routes_agree(spec, X, [3 * g for g in gradients], curvatures, batched=batched)
    assert any(a is not None and np.abs(a.ranker.value).max() == 0.15 for a, _ in pairs)


def test_two_threads_grow_the_one_thread_capped_oblivious_trees(exact_threads):
    exact_threads(2)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4000, 12))
    grades = np.clip(np.round(X[:, 0] + X[:, 3] * X[:, 4] + rng.normal(size=4000)) + 1, 0, 4)
    qid = np.repeat(np.arange(400), 10)
    fits = [rankcore.boost(learner="trees:max_delta_step=0.3", objective="xendcg", n_iter=8, random_state=0,
                           n_jobs=t).fit(X, grades, qid=qid, init_score=10 * X[:, 1]) for t in (1, 2)]
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))
    assert any(np.abs(r.value).max() == 0.3 for r in fits[0].rankers_)

"""``trees:growth=oblivious`` in memory: the native grower (one call per tree) against the multi-pass protocol.

Both routes must give the same trees bit for bit -- levels, thresholds, NaN sides, leaf values, gains,
derivative and the account of a search that finds no tree (``last_no_split``).  The protocol route
(``ObliviousSearch`` over ``block_pass``, which Dask uses) is itself checked against a plain NumPy
reference grower in ``test_tree_oblivious.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees import _layout
from rankcore.learners.trees._grow_oblivious import ObliviousGrower
from rankcore.learners.trees._ranker import TIE_TOLERANCE
from rankcore.push._backend import InMemoryBackend
from rankcore.push._driver import run_boosting
from rankcore.registry import resolve
from _tree_references import route_statistics
from test_tree_bundles import _bundling_data
from test_tree_grow import _data


def _state(candidate, layout):
    """Everything a search returns, as bytes (None: no tree, with the layout's reason)."""
    if candidate is None:
        return None, layout.last_no_split
    r = candidate.ranker
    arrays = (r.feature, r.threshold, r.nan_left, r.value, r.gain, r.bins)
    return tuple(np.asarray(a).tobytes() for a in arrays) + (np.float64(candidate.derivative).tobytes(),), None


def _both_routes(spec, X, gradients, curvatures, *, seed=0, n_threads=1):
    """(native, protocol) states of consecutive searches, each route on its own layout of the same seed."""
    learner = resolve("learner", spec)
    native = learner.prepare(X, random_state=seed, n_threads=n_threads)
    protocol = learner.prepare(X, random_state=seed, n_threads=n_threads)
    block_n, block_p = native.encode(X), protocol.encode(X)
    out = []
    for g, h in zip(gradients, curvatures):
        a = native.search_in_memory([block_n], [g], [h], n_threads=n_threads)
        assert isinstance(native._grower, ObliviousGrower)          # the native route grew it
        b = multi_pass_search(protocol, [block_p], [g], [h], n_threads=n_threads)
        out.append((_state(a, native), _state(b, protocol)))
        if a is not None:
            assert native._grown[0] is a.ranker            # the evaluation reads the grown tree's levels as kept
            kept = native.evaluate(a.ranker, block_n)
            native._grown = None                           # ... and as mapped back from its columns of X
            np.testing.assert_array_equal(native.evaluate(a.ranker, block_n), kept)
            np.testing.assert_array_equal(kept, a.ranker.predict(X))
    return out


GRID = [
    "trees:growth=oblivious,max_depth=6,subsample=1",
    "trees:growth=oblivious",                                        # the defaults: subsample=0.8, depth 6
    "trees:growth=oblivious,max_depth=3,min_samples_leaf=40",        # nodes blocked by min_samples_leaf
    "trees:growth=oblivious,max_depth=4,l2=2,min_child_weight=5,subsample=0.5",
    "trees:growth=oblivious,max_depth=5,min_samples_leaf=2,min_child_weight=20",   # ... by min_child_weight
    "trees:growth=oblivious,colsample=0.5,subsample=0.7",
    "trees:growth=oblivious,max_depth=8,min_samples_leaf=1,min_child_weight=0",
    "trees:growth=oblivious,max_bins=4,min_samples_leaf=60",         # shallow stops: no level gains
    "trees:growth=oblivious,max_leaves=8",                           # depth 3 from max_leaves
    "trees:growth=oblivious,max_depth=1",
    "trees:growth=oblivious,random_strength=1",                      # noise on each level's feature
    "trees:growth=oblivious,max_depth=5,random_strength=2,colsample=0.7,subsample=0.6",
]


@pytest.mark.parametrize("spec", GRID)
@pytest.mark.parametrize("curvature", ["ones", "weights", "hessian"])
def test_oblivious_grower_equals_the_multi_pass_protocol_bitwise(spec, curvature):
    X = _data(3)
    gradients, curvatures = route_statistics(X.shape[0], 3, curvature)
    pairs = _both_routes(spec, X, gradients, curvatures)
    assert any(a[0] is not None for a, _ in pairs)
    for a, b in pairs:
        assert a == b


def test_an_unseen_nan_goes_to_the_larger_side_by_either_route():
    """NaN in a few rows of one feature only: levels on the other features see no NaN and send it to the
    side with more rows; levels on that feature route the NaN rows."""
    rng = np.random.default_rng(2)
    X = _data(4, n=800, nan_fraction=0.0)
    X[:30, 0] = np.nan
    g = np.where(np.isnan(X[:, 0]), 3.0, 0.0) + rng.normal(size=800) + np.nan_to_num(X[:, 1])
    pairs = _both_routes("trees:growth=oblivious,max_depth=5,subsample=1,min_samples_leaf=5", X, [g, -g],
                         [np.ones(800)] * 2)
    for a, b in pairs:
        assert a == b and a[0] is not None


@pytest.mark.parametrize("spec", ["trees:growth=oblivious,max_depth=2,min_samples_leaf=200",
                                  "trees:growth=oblivious,l2=1e308,max_depth=2,subsample=1",
                                  "trees:growth=oblivious,subsample=0.001"])
def test_no_tree_gives_the_protocol_s_reason(spec):
    """Too few rows for two leaves, leaf values that underflow, no row drawn: no tree, and the same reason."""
    X = _data(5, n=300)
    g = np.random.default_rng(0).normal(size=300) * 1e-3
    pairs = _both_routes(spec, X, [g], [np.ones(300)])
    (a, b), = pairs
    assert a == b and a[0] is None and a[1]


def test_a_constant_gradient_gives_no_tree_and_no_reason():
    X = _data(5, n=200)
    pairs = _both_routes("trees:growth=oblivious", X, [np.ones(200)], [np.ones(200)])
    assert pairs[0][0] == pairs[0][1] == (None, None)


@pytest.mark.parametrize("spec", ["trees:growth=oblivious,max_depth=6,subsample=1",
                                  "trees:growth=oblivious,max_depth=7,subsample=0.7,colsample=0.8,random_strength=1",
                                  "trees:growth=oblivious,max_depth=6,monotone=1/-1/0/0/0/0/0/0/0/0/0/1"])
def test_oblivious_grower_does_not_depend_on_threads_above_every_parallel_threshold(spec):
    """20,000 rows: partitions, histograms and the gain pass run on 2 and 3 threads; the same trees."""
    n = 20_000
    X = _data(7, n=n, d=12)
    rng = np.random.default_rng(2)
    g, h = rng.normal(size=n), rng.uniform(0.5, 1.5, n)
    states = [_both_routes(spec, X, [g, -g], [h, h], n_threads=t) for t in (1, 2, 3)]
    assert states[0][0][0][0] is not None
    for pairs in states:
        assert all(a == b for a, b in pairs)
    assert states[0] == states[1] == states[2]


@pytest.mark.parametrize("subsample", [1.0, 0.7])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_features_without_a_candidate_at_the_root_grow_the_same_trees(subsample, n_threads):
    """Features no candidate of which leaves min_samples_leaf rows on both sides of the root -- a constant one,
    one whose other values are on fewer rows than that, one NaN on a few rows only -- beside one that splits
    only with its NaN rows on the left and one only with them on the right: the grower skips the first three
    (their candidates gain +0 at every node) and grows the protocol's trees.  On two threads each thread
    finds which of its own features are live (the root's 8,000 cells are above the histogram's threshold)."""
    rng = np.random.default_rng(3)
    n = 1_000
    X = _data(3, n=n, d=8, nan_fraction=0.0)
    X[:, 7] = 0.0
    X[100:110, 7] = 1.0                                   # bin 1 alone is too small, NaN rows join it
    X[-25:, 7] = np.nan
    X[:, 3] = 1.0
    X[:, 4] = 0.0
    X[:12, 4] = rng.normal(size=12)
    X[:, 5] = 2.0
    X[-12:, 5] = np.nan
    X[:, 6] = 1.0
    X[:10, 6] = 0.0                                       # bin 0 alone is too small, NaN rows join it
    X[10:40, 6] = np.nan
    g = rng.normal(size=n) + 3.0 * (X[:, 4] != 0) + 2.0 * np.isnan(X[:, 5]) + 4.0 * (X[:, 6] != 1.0)
    g = g + 5.0 * (X[:, 7] != 0.0)
    h = rng.uniform(0.5, 1.5, n)
    spec = f"trees:growth=oblivious,max_depth=4,min_samples_leaf=20,subsample={subsample}"
    pairs = _both_routes(spec, X, [g, -g, g[::-1].copy()], [h, h, h], n_threads=n_threads)
    for a, b in pairs:
        assert a == b and a[0] is not None


@pytest.mark.parametrize("data", ["one-hot", "sparse counts", "sparse counts, listed"])
def test_bundled_columns_grow_the_same_tree(data, monkeypatch):
    """Exclusive features bundled into shared code columns (sparse bundles' code 0 uncounted, their rows'
    nonzero slots listed): the same trees by either route."""
    spec = "trees:growth=oblivious,max_depth=5,min_samples_leaf=3"
    # (every row listed, or none: the sparse columns' code 0 then skipped behind a branch)
    monkeypatch.setattr(_layout, "LISTED_MIN_COLUMNS", 1 if data.endswith("listed") else 10**6)
    X = _bundling_data("one-hot" if data == "one-hot" else "sparse counts", 5, 800)
    layout = resolve("learner", spec).prepare(X, random_state=0)
    assert layout.bundles
    assert (layout.encode(X).listed is not None) == data.endswith("listed")
    rng = np.random.default_rng(2)
    g = rng.normal(size=X.shape[0]) + np.asarray(X[:, 0].todense() if sp.issparse(X) else X[:, 0]).ravel()
    h = rng.uniform(0.5, 2.0, X.shape[0])
    for a, b in _both_routes(spec, X, [g, -g], [h, h]):
        assert a == b and a[0] is not None


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 260), st.integers(1, 5), st.sampled_from(GRID))
def test_oblivious_grower_equals_the_protocol_on_random_data(seed, n, d, spec):
    X = _data(seed, n=n, d=d, nan_fraction=0.2)
    rng = np.random.default_rng(seed)
    g = np.round(rng.normal(size=n), 1)                     # many exact ties between candidates
    h = rng.uniform(0.5, 1.5, n)
    for a, b in _both_routes(spec, X, [g, g[::-1].copy()], [h, h], seed=seed):
        assert a == b


def _fit(spec, X, y, *, native, n_iter=12):
    layout = resolve("learner", spec).prepare(X, random_state=0, n_threads=2)
    if not native:                          # force the protocol route (what several blocks and Dask use)
        layout.search_in_memory = lambda *a, **k: multi_pass_search(layout, *a, **k)
    problem = resolve("objective", "push:exp,pow:2").bind(y, None, n_threads=2)
    backend = InMemoryBackend(problem, layout, X, y, None, n_threads=2)
    result = run_boosting(backend, layout, n_iter=n_iter, log_value=True)
    trees = [(r.alpha, r.ranker.to_state()) for r in result.records]
    return trees, backend.scores.copy(), isinstance(layout._grower, ObliviousGrower)


@pytest.mark.parametrize("spec", ["trees:growth=oblivious", "trees:growth=oblivious,max_depth=4,colsample=0.6,"
                                                            "random_strength=1,line_search=false"])
def test_boosting_by_either_route_gives_the_same_model(spec):
    X = _data(11, n=700)
    rng = np.random.default_rng(2)
    y = ((np.nan_to_num(X[:, 0]) + rng.normal(size=X.shape[0])) > 0.5).astype(np.int8)
    trees_n, scores_n, grown_n = _fit(spec, X, y, native=True)
    trees_p, scores_p, grown_p = _fit(spec, X, y, native=False)
    assert grown_n and not grown_p
    assert trees_n == trees_p
    np.testing.assert_array_equal(scores_n, scores_p)


def test_categorical_features_and_bad_depths_are_refused_by_name():
    X = _data(0, n=100, nan_fraction=0.0)
    slots = resolve("learner", "trees:categorical=2").prepare(X).slots
    assert np.asarray(slots.categorical).any()
    with pytest.raises(ValueError, match="feature 2 is categorical"):
        ObliviousGrower(slots, 6, 20.0, 1.0, 0.0, TIE_TOLERANCE)
    plain = resolve("learner", "trees").prepare(X).slots
    with pytest.raises(ValueError, match="depth: expected an integer in 0..16, got 17"):
        ObliviousGrower(plain, 17, 20.0, 1.0, 0.0, TIE_TOLERANCE)
    with pytest.raises(ValueError, match="random_strength: expected a number >= 0, got -1"):
        ObliviousGrower(plain, 6, 20.0, 1.0, 0.0, TIE_TOLERANCE, -1.0)
    with pytest.raises(TypeError, match="not copied or pickled"):
        import pickle
        pickle.dumps(ObliviousGrower(plain, 6, 20.0, 1.0, 0.0, TIE_TOLERANCE))


# ----------------------------------------------------------------------
# The level's gains, every vector width, against plain Python
# ----------------------------------------------------------------------
def _level_gains_reference(hist, base, n_edges, mask, msl, mcw, l2, out):
    """level_gains_add in plain Python floats, the same operations in the same order (so the same bits)."""
    for j in np.flatnonzero(mask):
        fh = hist[base[j]: base[j] + n_edges[j] + 2].tolist()
        tg = th = tc = 0.0
        for g, h, c in fh:
            tg, th, tc = tg + g, th + h, tc + c
        if th + l2 <= 0:
            continue
        parent = tg * tg / (th + l2)
        ng, nh, nc = fh[-1]
        cg = ch = cc = 0.0
        for b in range(n_edges[j] + 1):
            cg, ch, cc = cg + fh[b][0], ch + fh[b][1], cc + fh[b][2]
            for side, (lg, lh, lc) in enumerate([(cg + ng, ch + nh, cc + nc), (cg, ch, cc)]):
                rg, rh, rc = tg - lg, th - lh, tc - lc
                if lc < msl or rc < msl or lh < mcw or rh < mcw or lh + l2 <= 0 or rh + l2 <= 0:
                    gain = 0.0
                else:
                    gain = lg * lg / (lh + l2) + rg * rg / (rh + l2) - parent
                out[base[j] + b, side] += gain


def _widths_and_walks(kernels):
    """Every vector width of the CPU, each with the vector walks over the bins (AVX2 and up) and the scalar ones;
    the settings in use are restored at the end."""
    before, walks_before = kernels.simd_level(), kernels.vector_walks()
    try:
        for level in range(before + 1):
            kernels.simd_level(level)
            for walks in (True, False):
                kernels.vector_walks(walks)
                yield level, walks
    finally:
        kernels.simd_level(before)
        kernels.vector_walks(walks_before)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n_nodes=st.integers(1, 3), l2=st.sampled_from([0.0, 0.5, -0.5]),
       msl=st.sampled_from([0.0, 1.0, 3.0]), mcw=st.sampled_from([0.0, 0.2]))
def test_level_gains_are_the_plain_python_sums_bitwise_at_every_vector_width(seed, n_nodes, l2, msl, mcw):
    from rankcore.learners.trees import _oblivious_kernels as kernels

    rng = np.random.default_rng(seed)
    d = 5
    n_edges = rng.integers(0, 20, size=d).astype(np.intp)           # tails of every vector width
    base = np.r_[0, np.cumsum(n_edges + 2)[:-1]].astype(np.intp)
    S = int((n_edges + 2).sum())
    mask = rng.integers(0, 2, size=d).astype(np.uint8)
    hists = []
    for _ in range(n_nodes):
        hist = np.zeros((S, 3))
        hist[:, 2] = rng.integers(0, 4, size=S) * (rng.random(S) < 0.7)       # empty bins
        hist[:, 0] = rng.normal(size=S) * (hist[:, 2] > 0)
        hist[:, 1] = hist[:, 2] * rng.uniform(0.0, 1.0, size=S)
        hists.append(hist)
    expect = np.zeros((S, 2))
    for hist in hists:
        _level_gains_reference(hist, base, n_edges, mask, msl, mcw, l2, expect)
    for level, walks in _widths_and_walks(kernels):
        out = np.zeros((S, 2))
        for hist in hists:
            kernels.level_gains_add(hist, base, n_edges, mask, msl, mcw, l2, out, 2)
        assert out.tobytes() == expect.tobytes(), f"vector level {level}, vector walks {walks}"


def _first_best(out, base, n_edges, mask):
    """Each searched feature's best summed gain as a scan in order finds it (above +0, else +0)."""
    top = np.zeros(len(base))
    for j in np.flatnonzero(mask):
        for v in out[base[j]: base[j] + n_edges[j] + 1].ravel().tolist():
            if v > top[j]:
                top[j] = v
    return top


def _sibling_histograms(rng, d, max_edges, n_edges=None):
    """Random histograms of a parent and its smaller child over ``d`` features of up to ``max_edges`` edges
    (the first feature one bin, searched), or of ``n_edges`` edges each: empty bins, ties of counts, NaN rows on
    some features, and rounding residues where the larger child is empty.  Returns (n_edges, base, S, mask,
    parent, small)."""
    if n_edges is None:
        n_edges = rng.integers(0, max_edges, size=d).astype(np.intp)
        n_edges[0] = 0
    n_edges = np.asarray(n_edges, dtype=np.intp)
    base = np.r_[0, np.cumsum(n_edges + 2)[:-1]].astype(np.intp)
    S = int((n_edges + 2).sum())
    mask = rng.integers(0, 2, size=d).astype(np.uint8)
    mask[0] = 1
    parent = np.zeros((S, 3))
    parent[:, 2] = rng.integers(0, 6, size=S) * (rng.random(S) < 0.7)
    parent[base + n_edges + 1, 2] *= rng.random(d) < 0.5                       # NaN rows on some features
    small = np.zeros((S, 3))
    small[:, 2] = rng.integers(0, parent[:, 2] + 1)
    small[:, 0] = rng.normal(size=S) * (small[:, 2] > 0)
    small[:, 1] = small[:, 2] * rng.uniform(0.0, 1.0, size=S)
    parent[:, 0] = small[:, 0] + rng.normal(size=S) * (parent[:, 2] > small[:, 2])
    parent[:, 1] = small[:, 1] + (parent[:, 2] - small[:, 2]) * rng.uniform(0.0, 1.0, size=S)
    gone = (parent[:, 2] == small[:, 2]) & (rng.random(S) < 0.5)
    parent[gone, 0] += 1e-17 * rng.normal(size=int(gone.sum()))                # residues of a subtraction
    return n_edges, base, S, mask, parent, small


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), l2=st.sampled_from([0.0, 0.5]), msl=st.sampled_from([0.0, 1.0, 3.0, 8.0]),
       mcw=st.sampled_from([0.0, 0.2]))
def test_larger_child_walk_is_the_subtraction_then_the_plain_python_sums_bitwise(seed, l2, msl, mcw):
    """The grower's fused walk of a larger child (parent − smaller sibling, then its gains, then each feature's
    best) against the subtraction in NumPy and the plain Python sums, at every vector width; with bins the
    larger child does not reach (whole-number counts, rounding residues of Σg), one-bin features, NaN rows
    on some features, and a minimum of rows that rules out the first and last candidates."""
    from rankcore.learners.trees import _oblivious_kernels as kernels

    rng = np.random.default_rng(seed)
    d = 6
    n_edges, base, S, mask, parent, small = _sibling_histograms(rng, d, 20)
    earlier = np.zeros((S, 3))                                                  # an earlier node of the level
    earlier[:, 2] = rng.integers(0, 4, size=S)
    earlier[:, 0] = rng.normal(size=S) * (earlier[:, 2] > 0)
    earlier[:, 1] = earlier[:, 2] * rng.uniform(0.5, 1.0, size=S)
    large = parent - small
    expect = np.zeros((S, 2))
    _level_gains_reference(earlier, base, n_edges, mask, msl, mcw, l2, expect)
    _level_gains_reference(large, base, n_edges, mask, msl, mcw, l2, expect)
    for level, walks in _widths_and_walks(kernels):
        out = np.zeros((S, 2))
        kernels.level_gains_add(earlier, base, n_edges, mask, msl, mcw, l2, out)
        hist, top = parent.copy(), np.full(d, np.nan)
        kernels.level_gains_sub_add(hist, small, base, n_edges, mask, msl, mcw, l2, out, top)
        where = f"vector level {level}, vector walks {walks}"
        assert hist.tobytes() == large.tobytes(), where
        assert out.tobytes() == expect.tobytes(), where
        assert top.tobytes() == _first_best(expect, base, n_edges, mask).tobytes(), where


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), l2=st.sampled_from([0.0, 0.5]), msl=st.sampled_from([0.0, 1.0, 3.0, 8.0]),
       mcw=st.sampled_from([0.0, 0.2]), search_large=st.booleans(), search_small=st.booleans(),
       small_first=st.booleans())
def test_sibling_pair_walk_is_the_two_walks_in_node_order_bitwise(seed, l2, msl, mcw, search_large, search_small,
                                                                   small_first):
    """The grower's walk of two siblings at once (the larger child's subtraction and both children's gains)
    against the subtraction in NumPy and the plain Python sums of each child, added in node order, at every
    vector width: empty bins, ties of counts at min_samples_leaf, one-bin features, NaN rows on some
    features, rounding residues of the subtraction, and either child not searched."""
    from rankcore.learners.trees import _oblivious_kernels as kernels

    rng = np.random.default_rng(seed)
    d = 7
    n_edges, base, S, mask, parent, small = _sibling_histograms(rng, d, 24)
    mask[-1] = 1
    large = parent - small
    expect = np.zeros((S, 2))
    expect[:, 0] = np.where(rng.random(S) < 0.3, rng.normal(size=S), 0.0)     # earlier nodes' sums (never −0)
    out0 = expect.copy()
    order = [(small, search_small), (large, search_large)]
    for child, search in (order if small_first else order[::-1]):
        if search:
            _level_gains_reference(child, base, n_edges, mask, msl, mcw, l2, expect)
    for level, walks in _widths_and_walks(kernels):
        out, hist = out0.copy(), parent.copy()
        kernels.level_gains_pair(hist, small, base, n_edges, mask, search_large, search_small, small_first,
                                 msl, mcw, l2, out)
        assert hist.tobytes() == large.tobytes(), f"vector level {level}, vector walks {walks}"
        assert out.tobytes() == expect.tobytes(), f"vector level {level}, vector walks {walks}"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_walks_over_the_most_bins_a_feature_has_are_the_plain_python_sums_bitwise(seed):
    """Features of 254 edges (one-byte codes' most, the walks' scratch at its fullest) beside short ones: the
    pair walk, the larger child's walk and one node's walk against NumPy's subtraction and the plain Python
    sums, at every vector width, vector walks and scalar; the histograms in one buffer as the grower's are (the
    scratch's start depends on where a feature's slots are)."""
    from rankcore.learners.trees import _oblivious_kernels as kernels

    rng = np.random.default_rng(seed)
    n_edges, base, S, _, parent, small = _sibling_histograms(rng, 4, None, [rng.integers(0, 8), 254, 254, 0])
    mask = np.ones(4, np.uint8)
    large = parent - small
    expect_pair, expect_large = np.zeros((S, 2)), np.zeros((S, 2))
    _level_gains_reference(small, base, n_edges, mask, 5.0, 0.0, 0.5, expect_pair)
    _level_gains_reference(large, base, n_edges, mask, 5.0, 0.0, 0.5, expect_pair)
    _level_gains_reference(large, base, n_edges, mask, 5.0, 0.0, 0.5, expect_large)
    for level, walks in _widths_and_walks(kernels):
        where = f"vector level {level}, vector walks {walks}"
        out, hist = np.zeros((S, 2)), parent.copy()
        kernels.level_gains_pair(hist, small, base, n_edges, mask, True, True, True, 5.0, 0.0, 0.5, out)
        assert hist.tobytes() == large.tobytes() and out.tobytes() == expect_pair.tobytes(), where
        out, hist, top = np.zeros((S, 2)), parent.copy(), np.zeros(4)
        kernels.level_gains_sub_add(hist, small, base, n_edges, mask, 5.0, 0.0, 0.5, out, top)
        assert hist.tobytes() == large.tobytes() and out.tobytes() == expect_large.tobytes(), where
        out = np.zeros((S, 2))
        kernels.level_gains_add(large, base, n_edges, mask, 5.0, 0.0, 0.5, out)
        assert out.tobytes() == expect_large.tobytes(), where


def test_a_walk_s_sums_start_on_a_64_byte_boundary_clear_of_its_bins_and_inside_its_scratch():
    """rc_sums_start, for every stack position and bins' position modulo 4,096 (8 bytes apart): the sums of a
    walk of 255 bins fit in the scratch, start on a cache line (one vector store each, never across two
    lines), and from 2,760 to 2,816 bytes below the bins modulo 4,096 (clear of 4K aliasing)."""
    from rankcore.learners.trees import _oblivious_kernels as kernels

    bins = 255
    for scratch in range(1 << 20, (1 << 20) + 4096, 8):
        xs = np.arange(1 << 24, (1 << 24) + 4096, 8)
        for x in xs[(scratch // 8) % 7::7]:          # a seventh of the positions per scratch, all over the loop
            offset, length = kernels.sums_start(scratch, int(x))
            at = scratch + 8 * offset
            assert 0 <= offset and offset + 4 * bins <= length
            assert at % 64 == 0
            assert 2816 - 56 <= (int(x) - at) % 4096 <= 2816
    with pytest.raises(ValueError, match="scratch, x: expected addresses of doubles"):
        kernels.sums_start(12, 16)


def test_level_gains_refuse_features_beyond_one_byte_codes():
    from rankcore.learners.trees import _oblivious_kernels as kernels

    n_edges = np.array([255], dtype=np.intp)
    hist = np.zeros((257, 3))
    with pytest.raises(ValueError, match="more than 254 edges"):
        kernels.level_gains_add(hist, np.zeros(1, np.intp), n_edges, np.ones(1, np.uint8), 1.0, 0.0, 0.0,
                                np.zeros((257, 2)))
    with pytest.raises(ValueError, match="level: this CPU supports levels 0 to"):
        kernels.simd_level(7)
    with pytest.raises(TypeError, match="on: expected a bool or None, got 1"):
        kernels.vector_walks(1)
    assert kernels.vector_walks() is True          # the default, and the refusal changed nothing

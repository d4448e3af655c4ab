"""Categorical splits of the ``trees`` learner: the group search against references, the routes, persistence."""

import itertools
import json

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _histogram, _split
from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees._learner import tree_arrays_from_state
from rankcore.registry import resolve
from rankcore.spec import SpecError


def _cat_data(seed=0, n=1500, k=8, good=(1, 4, 6), nan_fraction=0.05):
    rng = np.random.default_rng(seed)
    cat = rng.integers(0, k, n).astype(float)
    cat[rng.random(n) < nan_fraction] = np.nan
    x = rng.normal(size=n)
    y = (np.isin(cat, good) * 1.5 + 0.3 * x + rng.normal(size=n) > 1).astype(int)
    return np.column_stack([cat, x]), y


def _categorical_histogram(codes, g, h, K):
    """(K + 1, 3) histogram of one categorical feature: bins 0..K-1 are its K categories, bin K its NaN bin."""
    hist = np.zeros((K + 1, 3))
    np.add.at(hist, codes, np.column_stack([g, h, np.ones(codes.shape[0])]))
    return hist


def _tie_runs_by_bin(order, key, tolerance=1e-10):
    """``order`` (sorted by key) with each run of neighbours whose keys differ by at most tolerance × max |key|
    sorted by bin: the kernel's order of near-tied categories, written plainly."""
    atol = tolerance * max((abs(key[b]) for b in order), default=0.0)
    runs = []
    for b in order:
        if runs and atol > 0 and key[b] - key[runs[-1][-1]] <= atol:
            runs[-1].append(b)
        else:
            runs.append([b])
    return [b for run in runs for b in sorted(run)]


def _reference_scan(hist, l2, smooth, max_cat, msl, mcw):
    """The kernel's candidate list, written plainly: present categories by G/(H + smooth), prefixes both ways."""
    present = [b for b in range(hist.shape[0]) if hist[b, 2] > 0]
    key = {b: hist[b, 0] / (hist[b, 1] + smooth) if hist[b, 1] + smooth > 0 else 0.0 for b in present}
    order = _tie_runs_by_bin(sorted(present, key=lambda b: (key[b], b)), key)
    G, H, C = hist.sum(axis=0)
    parent = G * G / (H + l2) if H + l2 > 0 else 0.0
    cands = []
    for seq in (order, order[::-1]):
        for k in range(1, min(len(order) - 1, max_cat) + 1):
            group = seq[:k]
            lg, lh, lc = hist[group].sum(axis=0)
            rg, rh, rc = G - lg, H - lh, C - lc
            if min(lc, rc) < msl or min(lh, rh) < mcw or lh + l2 <= 0 or rh + l2 <= 0:
                continue
            cands.append((lg * lg / (lh + l2) + rg * rg / (rh + l2) - parent, frozenset(group)))
    return cands


def _kernel_split(hist, l2=0.0, smooth=0.0, max_cat=256, msl=1.0, mcw=0.0):
    K = hist.shape[0] - 1
    slots = _histogram.SlotLayout([0], [K - 1], [0], [0], [-1], K + 1, [1])
    out, bits = np.empty(10), np.zeros(4, dtype=np.uint64)
    found = _split.best_split(hist, slots, np.ones(1, np.uint8), msl, mcw, l2, 1e-10, out, 1, smooth, max_cat,
                                     bits)
    group = frozenset(b for b in range(K + 1) if (int(bits[b >> 6]) >> (b & 63)) & 1)
    return found, out, group


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 9))
def test_the_best_category_group_is_the_best_of_all_partitions(seed, K):
    """Without smoothing and limits, sorting by G/H finds the best binary partition (Fisher 1958): check all."""
    rng = np.random.default_rng(seed)
    n = 200
    codes = rng.integers(0, K + 1, n)                        # bin K: NaN
    g, h = rng.normal(size=n), rng.uniform(0.1, 2.0, n)
    hist = _categorical_histogram(codes, g, h, K)
    found, out, _ = _kernel_split(hist)
    present = [b for b in range(K + 1) if hist[b, 2] > 0]
    G, H, _ = hist.sum(axis=0)
    best = -1.0
    for r in range(1, len(present)):
        for group in itertools.combinations(present, r):
            lg, lh, _ = hist[list(group)].sum(axis=0)
            best = max(best, lg * lg / lh + (G - lg) ** 2 / (H - lh) - G * G / H)
    assert found == (best > 1e-10 * max(best, G * G / H))
    if found:
        assert out[0] == pytest.approx(best, rel=1e-9, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 40), st.sampled_from([0.0, 3.0]), st.sampled_from([1, 3, 64]),
       st.sampled_from([(1.0, 0.0, 0.0), (15.0, 2.0, 1.0)]))
def test_category_scan_matches_the_plain_reference(seed, K, smooth, max_cat, limits):
    msl, mcw, l2 = limits
    rng = np.random.default_rng(seed)
    n = 400
    codes = np.minimum(rng.geometric(0.15, n) - 1, K)          # skewed category frequencies, some absent
    g = np.round(rng.normal(size=n), 1)                         # ties between categories' ratios
    h = rng.uniform(0.5, 1.5, n)
    hist = _categorical_histogram(codes, g, h, K)
    found, out, group = _kernel_split(hist, l2, smooth, max_cat, msl, mcw)
    cands = _reference_scan(hist, l2, smooth, max_cat, msl, mcw)
    if not cands or not found:
        assert not found or cands
        return
    top = max(c[0] for c in cands)
    assert out[0] == pytest.approx(top, rel=1e-9, abs=1e-12)
    first = next(c for c in cands if c[0] >= top - 1e-10 * max(top, hist.sum(0)[0] ** 2 / (hist.sum(0)[1] + l2)))
    nan_present = hist[K, 2] > 0
    assert group - ({K} if not nan_present else set()) == first[1]


def test_categories_whose_keys_differ_by_rounding_go_by_bin():
    """Keys equal but for the rounding of their sums are ordered by bin, whichever of them rounds higher: the group
    a limited prefix (max_cat) cuts out of tied categories does not depend on the summation order."""
    groups = []
    for noise in (-1, 0, 1):
        # bins 1, 2 and 4 tie at the low end (bin 2's G one ulp off, either way); the best group of at most two
        # categories is two of them
        g = np.array([0.5, -6.0, -6.0, 1.0, -6.0, 1.5, 2.0, 2.5])
        g[2] = np.nextafter(g[2], noise * np.inf) if noise else g[2]
        hist = np.vstack([np.column_stack([g, np.full(8, 2.0), np.full(8, 5.0)]), np.zeros(3)])     # no NaN
        found, out, group = _kernel_split(hist, max_cat=2)
        cands = _reference_scan(hist, 0.0, 0.0, 2, 1.0, 0.0)
        top = max(c[0] for c in cands)
        assert found and group - {8} == next(c[1] for c in cands if c[0] >= top - 1e-10 * top)
        groups.append(group - {8})
    assert groups == [{1, 2}] * 3           # the lower bins of the tie, whatever the rounding


def test_row_order_does_not_change_a_categorical_fit():
    """Many small categories with the same counts tie at the first tree: permuting the rows changes only the
    rounding of their sums, and so (ties by bin) not the model."""
    rng = np.random.default_rng(0)
    n, k = 2000, 150
    x = rng.normal(size=n)
    c = rng.permutation(np.arange(n) % k)
    y = (rng.normal(size=k)[c] + 0.3 * x + 0.3 * rng.normal(size=n) > 0.5).astype(int)
    X = np.column_stack([c, x]).astype(float)
    params = dict(learner="trees:categorical=0,subsample=1", n_iter=4, random_state=1, early_stopping=False)
    model = rankcore.PushBoost(**params).fit(X, y)
    for seed in range(2):
        p = np.random.default_rng(seed).permutation(n)
        other = rankcore.PushBoost(**params).fit(X[p], y[p])
        for a, b in zip(model.rankers_, other.rankers_):
            assert [None if g is None else sorted(g.tolist()) for g in a.categories] == \
                [None if g is None else sorted(g.tolist()) for g in b.categories]
        np.testing.assert_allclose(other.decision_function(X), model.decision_function(X), rtol=1e-9, atol=1e-12)


def test_categorical_split_finds_a_scattered_group_and_matches_histgradientboosting():
    X, y = _cat_data()
    p = np.full(y.shape[0], y.mean())
    g, h = p - y, p * (1 - p)                                   # log-loss derivatives at the constant model
    layout = resolve("learner", "trees:categorical=0,subsample=1,max_leaves=2,cat_smooth=0").prepare(X, random_state=0)
    tree = layout.search_in_memory([layout.encode(X)], [g], [h]).ranker
    assert tree.feature[0] == 0
    ours = set(tree.categories[0].tolist())
    assert ours in ({1.0, 4.0, 6.0}, {0.0, 2.0, 3.0, 5.0, 7.0})
    from sklearn.ensemble import HistGradientBoostingClassifier

    X_hgb = np.where(np.isnan(X), np.nan, X)
    hgb = HistGradientBoostingClassifier(max_iter=1, max_leaf_nodes=2, categorical_features=[0], early_stopping=False,
                                         random_state=0).fit(X_hgb, y)
    node = hgb._predictors[0][0].nodes[0]
    assert node["is_categorical"] and node["feature_idx"] == 0
    bitset = hgb._predictors[0][0].raw_left_cat_bitsets[node["bitset_idx"]]
    theirs = {c for c in range(8) if (int(bitset[c >> 5]) >> (c & 31)) & 1}
    assert ours in ({float(c) for c in theirs}, {float(c) for c in set(range(8)) - theirs})


@pytest.mark.parametrize("spec", ["trees:categorical=0", "trees:categorical=0,subsample=1,max_cat_threshold=2",
                                  "trees:categorical=0;2,growth=depthwise,cat_smooth=0"])
def test_categorical_native_growth_equals_the_protocol_and_predicts_its_training_values(spec):
    X, y = _cat_data(seed=3)
    X = np.column_stack([X, np.round(X[:, 1] * 2) % 5])          # a second categorical column
    rng = np.random.default_rng(1)
    g, h = rng.normal(size=X.shape[0]) - y, rng.uniform(0.2, 1.5, X.shape[0])
    a_layout = resolve("learner", spec).prepare(X, random_state=0)
    b_layout = resolve("learner", spec).prepare(X, random_state=0)
    a_block, b_block = a_layout.encode(X), b_layout.encode(X)
    for _ in range(3):
        a = a_layout.search_in_memory([a_block], [g], [h])
        b = multi_pass_search(b_layout, [b_block], [g], [h])
        assert a.ranker.to_state() == b.ranker.to_state() and a.derivative == b.derivative
        assert a.ranker.categorical
        for layout, block, c in ((a_layout, a_block, a), (b_layout, b_block, b)):
            np.testing.assert_array_equal(layout.evaluate(c.ranker, block), c.ranker.predict(X))
        g = g[::-1].copy()


def test_pandas_category_columns_split_as_categories(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = _cat_data(seed=5)
    codes = np.nan_to_num(X[:, 0], nan=-1).astype(int)
    frame = pd.DataFrame({"colour": pd.Categorical.from_codes(codes, list("abcdefgh")), "x": X[:, 1]})
    by_frame = rankcore.boost(learner="trees", n_iter=20, random_state=0).fit(frame, y)
    by_codes = rankcore.boost(learner="trees:categorical=0", n_iter=20, random_state=0).fit(X, y)
    np.testing.assert_array_equal(by_frame.decision_function(frame), by_codes.decision_function(X))
    assert any(r.categorical for r in by_frame.rankers_)
    # saved and loaded: the categorical splits travel in the trees
    path = tmp_path / "model.json"
    rankcore.save_model(by_frame, path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(frame), by_frame.decision_function(frame))


def test_unsigned_categories_beyond_int64_survive_the_model_file(tmp_path):
    # 64-bit hashed ids: saved as int64 they wrapped negative, and the loaded model sent every row to "missing"
    pd = pytest.importorskip("pandas")
    X, y = _cat_data(seed=5)
    ids = np.array([2**63 + 5 + 7 * i for i in range(8)], dtype=np.uint64)
    codes = np.nan_to_num(X[:, 0], nan=-1).astype(int)
    frame = pd.DataFrame({"id": pd.Categorical.from_codes(codes, ids), "x": X[:, 1]})
    model = rankcore.boost(learner="trees", n_iter=20, random_state=0).fit(frame, y)
    path = tmp_path / "model.json"
    rankcore.save_model(model, path)
    loaded = rankcore.load_model(path)
    assert loaded.categories_[0].dtype == np.uint64 and np.array_equal(loaded.categories_[0], ids)
    np.testing.assert_array_equal(loaded.decision_function(frame), model.decision_function(frame))


def test_categories_of_another_type_when_scoring_are_warned_about():
    # integer shop ids at fit, the same ids read as text from a CSV: matched by value, every row was "unseen", silently
    pd = pytest.importorskip("pandas")
    X, y = _cat_data(seed=5)
    codes = np.nan_to_num(X[:, 0], nan=-1).astype(int)
    ids = np.arange(10, 18)
    frame = pd.DataFrame({"shop": pd.Categorical.from_codes(codes, ids), "x": X[:, 1]})
    model = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(frame, y)
    as_text = frame.assign(shop=frame["shop"].astype(str).astype("category"))
    with pytest.warns(UserWarning, match=r"column 'shop' holds none of the categories seen in fit \(fit: numbers such "
                                         r"as 10; here: text such as '10"):
        model.decision_function(as_text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.decision_function(frame.iloc[:3])                  # the fit's type: no warning
        model.decision_function(frame.assign(shop=pd.Categorical.from_codes(codes, ids + 100)))  # new ids, same type


def test_unseen_categories_go_right_and_nan_follows_its_side():
    X, y = _cat_data(seed=7)
    model = rankcore.boost(learner="trees:categorical=0,max_leaves=2,subsample=1", n_iter=1, random_state=0).fit(X, y)
    tree = model.rankers_[0]
    assert tree.categories[0] is not None
    row = np.array([[99.0, 0.0], [np.nan, 0.0], [float(tree.categories[0][0]), 0.0]])
    v = tree.predict(row)
    assert v[0] == tree.value[tree.right[0]]
    assert v[1] == tree.value[tree.left[0] if tree.nan_left[0] else tree.right[0]]
    assert v[2] == tree.value[tree.left[0]]


def test_sparse_categorical_equals_dense():
    X, y = _cat_data(seed=9, nan_fraction=0.0)
    Xs = sp.csr_matrix(X)
    a = rankcore.boost(learner="trees:categorical=0", n_iter=10, random_state=0).fit(Xs, y)
    b = rankcore.boost(learner="trees:categorical=0", n_iter=10, random_state=0).fit(X, y)
    assert [r.to_state() for r in a.rankers_] == [r.to_state() for r in b.rankers_]
    np.testing.assert_array_equal(a.decision_function(Xs), b.decision_function(X))


def test_tree_records_with_categories_validate():
    X, y = _cat_data(seed=2)
    model = rankcore.boost(learner="trees:categorical=0", n_iter=3, random_state=0).fit(X, y)
    state = json.loads(json.dumps(next(r for r in model.rankers_ if r.categorical).to_state()))
    assert tree_arrays_from_state(state).to_state() == state
    plain = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X[:, 1:], y).rankers_[0].to_state()
    assert "categories" not in plain                            # numeric trees save as before
    bad = dict(state, categories=state["categories"][:-1])
    with pytest.raises(ValueError, match="one entry per node"):
        tree_arrays_from_state(bad)
    leaf = state["left"].index(-1)
    bad = dict(state, categories=[[1.0] if i == leaf else c for i, c in enumerate(state["categories"])])
    with pytest.raises(ValueError, match="a leaf has none"):
        tree_arrays_from_state(bad)
    root = [c for c in state["categories"]]
    root[0] = ["a"]
    with pytest.raises(ValueError, match="finite numbers"):
        tree_arrays_from_state(dict(state, categories=root))


def test_bad_categorical_parameters_are_refused_by_name():
    X, y = _cat_data(seed=1)
    with pytest.raises(SpecError, match="categorical"):
        resolve("learner", "trees:categorical=a;b")
    with pytest.raises(SpecError, match="categorical"):
        resolve("learner", "trees:categorical=-1")
    with pytest.raises(ValueError, match="column 5 is not one of the 2 columns"):
        rankcore.boost(learner="trees:categorical=5", n_iter=2).fit(X, y)
    wide = np.column_stack([np.arange(X.shape[0]) % 300, X[:, 1]]).astype(float)
    with pytest.raises(ValueError, match="column 0 has 300 categories, more than max_bins=255"):
        rankcore.boost(learner="trees:categorical=0", n_iter=2).fit(wide, y)
    assert resolve("learner", "trees:categorical=3;0;3").categorical == "0;3"
    spec = resolve("learner", "trees:categorical=3;0").spec
    assert spec.endswith(",0;3") and resolve("learner", spec).categorical == "0;3"

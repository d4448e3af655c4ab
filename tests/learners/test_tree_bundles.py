"""Exclusive feature bundling of the ``trees`` learner: bundles, codes, histograms and trees against references."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from _tree_references import greedy_bundles
from rankcore.learners.trees import _histogram
from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees._bundles import MAX_BUNDLE_CODES, bundled_slot_layout, default_bins, exclusive_bundles
from rankcore.learners.trees import _layout
from rankcore.learners.trees._block import slot_layout
from rankcore.registry import resolve


def one_hot_data(seed=0, n=600, levels=(4, 7, 3), n_numeric=2, nan_fraction=0.0):
    """One-hot columns of categorical variables (exclusive within a variable), then numeric columns."""
    rng = np.random.default_rng(seed)
    blocks = []
    for k in levels:
        codes = rng.integers(0, k, n)
        blocks.append(np.eye(k)[codes])
    X = np.hstack(blocks + [rng.normal(size=(n, n_numeric))])
    if nan_fraction:
        X[rng.random(X.shape) < nan_fraction] = np.nan
    y = ((X[:, 0] + X[:, 5] + 0.5 * np.nan_to_num(X[:, -1]) + rng.normal(scale=0.5, size=n)) > 0.8).astype(int)
    return X, y


def _reference_bundles(rows, n_edges, n_rows, max_codes=MAX_BUNDLE_CODES):
    """The greedy rule, written plainly: features by decreasing non-default count, first bundle they fit."""
    return [sorted(g["members"]) for g in greedy_bundles(rows, n_edges, max_codes) if len(g["members"]) > 1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 25), st.integers(5, 80))
def test_exclusive_bundles_match_the_plain_greedy_rule(seed, d, n):
    rng = np.random.default_rng(seed)
    rows = {j: np.sort(rng.choice(n, size=rng.integers(0, n // 3 + 1), replace=False)) for j in range(d)}
    n_edges = rng.integers(0, 120, d)
    bundles = exclusive_bundles(rows, n_edges, n)
    assert bundles == _reference_bundles(rows, n_edges, n)
    for b in bundles:                       # exclusive, and the codes fit one byte
        seen = np.concatenate([rows[j] for j in b])
        assert np.unique(seen).shape[0] == seen.shape[0]
        assert 1 + sum(n_edges[j] + 2 for j in b) <= MAX_BUNDLE_CODES


def test_one_hot_columns_are_bundled_per_variable_and_codes_decode():
    X, _ = one_hot_data(nan_fraction=0.0)
    layout = resolve("learner", "trees").prepare(X, random_state=0)
    assert sorted(map(sorted, layout.bundles)) == [[0, 1, 2, 3], [4, 5, 6, 7, 8, 9, 10], [11, 12, 13]]
    assert layout.slots.n_cols == 3 + 2
    plain = resolve("learner", "trees:bundle=false").prepare(X, random_state=0)
    assert plain.bundles == [] and plain.slots.n_cols == X.shape[1]
    codes, ref = layout.encode(X).codes, plain.encode(X).codes
    slots = layout.slots
    for j in range(X.shape[1]):
        # the feature's bin of each row, read back from its column as a split table reads it
        c = codes[:, slots.col[j]].astype(np.intp)
        b = c + slots.col_base[slots.col[j]] - slots.base[j]
        inside = (b >= 0) & (b <= layout.n_edges[j] + 1)
        decoded = np.where(inside, b, layout.default_bins[j]) if slots.default_bin[j] >= 0 else c
        np.testing.assert_array_equal(decoded, ref[:, j])


def _fixed_histogram(codes_plain, n_edges, g, h, rows):
    """The unbundled histogram of the rows, per feature slot (NumPy)."""
    slots = slot_layout(n_edges)
    out = np.zeros((slots.n_slots, 3))
    for j in range(codes_plain.shape[1]):
        np.add.at(out, slots.base[j] + codes_plain[rows, j], np.column_stack([g[rows], h[rows], np.ones(rows.size)]))
    return slots, out


@pytest.mark.parametrize("data, nan_fraction", [("one-hot", 0.0), ("one-hot", 0.05), ("sparse counts", 0.0)])
def test_bundled_histograms_equal_the_unbundled_ones(data, nan_fraction):
    """Every feature's slots hold the unbundled sums, on one thread and two (a sparse bundle's code 0 uncounted)."""
    X = one_hot_data(seed=3, nan_fraction=nan_fraction)[0] if data == "one-hot" else sparse_count_data(seed=2)[0]
    rng = np.random.default_rng(0)
    n = X.shape[0]
    g = rng.integers(-8, 9, n).astype(float)            # integers: every sum exact, in any order
    h = rng.integers(1, 5, n).astype(float)
    # min_samples_leaf=1: every column that is not all zeros is stored (the default leaves out the count
    # columns nonzero on fewer than 20 rows, which no split could use)
    plain = resolve("learner", "trees:bundle=false,min_samples_leaf=1").prepare(X, random_state=0)
    bundled = resolve("learner", "trees:min_samples_leaf=1").prepare(X, random_state=0)
    assert bundled.columns is None
    if nan_fraction == 0.0:
        assert bundled.bundles
    if data == "sparse counts":
        assert 0 < bundled.slots.sparse_columns < len(bundled.bundles)     # sparse bundles first, then others
    codes_b, codes_p = bundled.encode(X).codes, plain.encode(X).codes
    # the sparse columns' slots read row-wise from each row's list (``listed_rows``) or from the codes
    listed = [None, _histogram.listed_rows(codes_b, bundled.slots)] if data == "sparse counts" else [None]
    idx = rng.permutation(n).astype(np.int32)
    for start, end, identity in [(0, n, True), (50, 400, False), (7, 9, False)]:
        order = np.arange(n, dtype=np.int32) if identity else idx
        _, ref = _fixed_histogram(codes_p, plain.n_edges, g, h, order[start:end])
        for n_threads, rows in itertools.product((1, 2), listed):
            hist = np.full((bundled.n_slots, 3), np.nan)
            _histogram.node_histogram(codes_b, bundled.slots, g, h, order, start, end, np.empty(n), np.empty(n),
                                         hist, n_threads, identity, False, rows)
            for j in range(X.shape[1]):
                np.testing.assert_array_equal(hist[bundled.feature_slots(j)], ref[plain.feature_slots(j)])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 60), st.integers(1, 12), st.floats(0.0, 1.0))
def test_listed_rows_match_a_plain_listing(seed, n, d, density):
    """Each row's slots of its sparse columns' nonzero codes, in column order, against a plain loop."""
    X = np.where(np.random.default_rng(seed).random((n, d)) < density, 1.0, 0.0)
    X = np.vstack([X, np.eye(d)[: max(0, 2 - n)]]) if n < 2 else X
    layout = resolve("learner", "trees:min_samples_leaf=1").prepare(X, random_state=0)
    codes = layout.encode(X).codes
    ptr, slot = _histogram.listed_rows(codes, layout.slots, 2)
    col_base, n_sparse = np.asarray(layout.slots.col_base), layout.slots.sparse_columns
    expected = [[int(col_base[j] + codes[r, j]) for j in range(n_sparse) if codes[r, j]] for r in range(codes.shape[0])]
    assert ptr[0] == 0 and ptr.shape == (codes.shape[0] + 1,)
    assert [slot[ptr[r]:ptr[r + 1]].tolist() for r in range(codes.shape[0])] == expected


def _learner(spec, X, g, h, native):
    layout = resolve("learner", spec).prepare(X, random_state=0)
    block = layout.encode(X)
    found = layout.search_in_memory([block], [g], [h]) if native else multi_pass_search(layout, [block], [g], [h])
    # the training rows' values (from codes) equal the tree's predictions (from raw values)
    np.testing.assert_array_equal(layout.evaluate(found.ranker, block), found.ranker.predict(X))
    return found


def _bundling_data(kind, seed, n):
    """One-hot columns (exclusive bundles) or sparse counts (mostly sparse bundles, some of one)."""
    return (one_hot_data(seed=seed, n=n, nan_fraction=0.0) if kind == "one-hot" else sparse_count_data(seed, n))[0]


@pytest.mark.parametrize("data", ["one-hot", "sparse counts"])
@pytest.mark.parametrize("spec", ["trees", "trees:subsample=1,min_samples_leaf=3",
                                  "trees:growth=depthwise,colsample=0.7"])
def test_bundled_trees_equal_unbundled_trees_when_sums_are_exact(spec, data):
    X = _bundling_data(data, 5, 800)
    rng = np.random.default_rng(2)
    g = rng.integers(-20, 21, X.shape[0]).astype(float) / 4       # dyadic: exact sums
    h = rng.integers(1, 9, X.shape[0]).astype(float) / 8
    for native in (True, False):
        a = _learner(spec, X, g, h, native).ranker
        b = _learner(spec + (",bundle=false" if ":" in spec else ":bundle=false"), X, g, h, native).ranker
        for field in ("feature", "threshold", "nan_left", "left", "right", "value", "gain"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


@pytest.mark.parametrize("data", ["one-hot", "sparse counts", "sparse counts, listed"])
@pytest.mark.parametrize("spec", ["trees", "trees:subsample=1,max_leaves=8", "trees:growth=depthwise"])
def test_bundled_native_growth_equals_the_protocol_bitwise(spec, data, monkeypatch):
    if data.endswith("listed"):     # the native grower's histograms read the rows' lists of sparse slots
        monkeypatch.setattr(_layout, "LISTED_MIN_COLUMNS", 1)
        spec += (",min_samples_leaf=3" if ":" in spec else ":min_samples_leaf=3")     # the sparse columns split
    # listed: 100 count columns that meet one another (almost no bundle), most a sparse column of its own
    X = sparse_count_data(7, n=3000, d=100, density=0.045)[0] if data.endswith("listed") else _bundling_data(data, 7,
                                                                                                            700)
    block = resolve("learner", spec).prepare(X, random_state=0).encode(X)
    assert (block.listed is not None) == data.endswith("listed")
    if block.listed is not None:
        assert block.listed[1].shape[0] > 3 * X.shape[0]          # several sparse columns' codes a row
    rng = np.random.default_rng(4)
    g, h = rng.normal(size=X.shape[0]), rng.uniform(0.2, 2.0, X.shape[0])
    a = _learner(spec, X, g, h, True)
    b = _learner(spec, X, g, h, False)
    if data.endswith("listed"):
        assert any(a.ranker.feature[i] < 100 for i in np.flatnonzero(a.ranker.left >= 0))    # a count column
        layout = resolve("learner", spec).prepare(X, random_state=0, n_threads=2)       # two threads' lists
        two = layout.search_in_memory([layout.encode(X)], [g], [h], n_threads=2)
        for field in ("feature", "threshold", "nan_left", "left", "right", "value", "gain"):
            np.testing.assert_array_equal(getattr(two.ranker, field), getattr(a.ranker, field))
    assert a.derivative == b.derivative
    for field in ("feature", "threshold", "nan_left", "left", "right", "value", "gain"):
        np.testing.assert_array_equal(getattr(a.ranker, field), getattr(b.ranker, field))


def test_bundled_fit_learns_and_matches_the_unbundled_fit():
    from sklearn.metrics import roc_auc_score

    X, y = one_hot_data(seed=9, n=1500)
    bundled = rankcore.boost(learner="trees", n_iter=30, random_state=0).fit(X, y)
    plain = rankcore.boost(learner="trees:bundle=false", n_iter=30, random_state=0).fit(X, y)
    assert roc_auc_score(y, bundled.decision_function(X)) > 0.8
    np.testing.assert_allclose(bundled.decision_function(X), plain.decision_function(X), rtol=1e-9, atol=1e-12)


def test_bundled_slot_layout_and_bad_layouts():
    n_edges = np.array([1, 1, 5, 1])
    z = np.zeros(4, dtype=np.intp)
    slots = bundled_slot_layout(n_edges, z, [[0, 3]])
    assert slots.n_cols == 3 and slots.col[0] == slots.col[3] == 0
    assert slots.base[0] == 1 and slots.base[3] == 4 and slots.n_slots == 1 + 3 + 3 + 3 + 7
    np.testing.assert_array_equal(default_bins([np.array([-1.0, 2.0]), np.array([0.0]), np.array([0.5])]), [1, 0, 0])
    with pytest.raises(ValueError, match="does not fit"):
        _histogram.SlotLayout([0], [300], [0], [0], [-1], 400)
    with pytest.raises(ValueError, match="codes"):
        _histogram.SlotLayout([0, 200], [1, 100], [0, 0], [0], [0, 0], 400)


def sparse_count_data(seed=0, n=900, d=40, density=0.02, n_dense=3):
    """Mostly-zero count columns that meet one another on a few rows (no exclusive bundle forms), then dense ones."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < density, rng.poisson(0.5, size=(n, d)) + 1.0, 0.0)
    X = np.hstack([X, rng.normal(size=(n, n_dense))])
    y = ((X[:, :5] > 0).sum(axis=1) + 0.5 * X[:, -1] + rng.normal(scale=0.5, size=n) > 0.7).astype(int)
    return X, y


def _expected_columns(X, multi, share):
    """tree_columns' rule with the share of a sparse column: (columns, n_sparse)."""
    nonzero = (X != 0).sum(axis=0)
    limit = share * X.shape[0]
    grouped = {j for b in multi for j in b}
    singles = [[j] for j in range(X.shape[1]) if j not in grouped and nonzero[j] <= limit]
    sparse_multi = [b for b in multi if nonzero[b].sum() <= limit]
    return sparse_multi + singles + [b for b in multi if nonzero[b].sum() > limit], len(sparse_multi) + len(singles)


def test_sparse_lone_features_become_sparse_bundles_first():
    from rankcore.learners.trees._binning import (LISTED_SPARSE_COLUMNS, LISTED_SPARSE_SHARE, SPARSE_BUNDLE_SHARE,
                                                  tree_bundles, tree_columns, tree_edges)

    X, _ = sparse_count_data(n=3000, d=60)
    X[:, 7] = np.where(np.arange(X.shape[0]) % 10 == 0, 1.0, 0.0)       # 10 % nonzero: sparse at 50 % only
    edges = tree_edges(X, 255, None, None, None)
    multi = tree_bundles(X, edges)
    bundles, n_sparse = tree_columns(X, edges)
    expected = _expected_columns(X, multi, LISTED_SPARSE_SHARE)
    assert expected[1] >= LISTED_SPARSE_COLUMNS > _expected_columns(X, multi, SPARSE_BUNDLE_SHARE)[1]
    assert (bundles, n_sparse) == expected and [7] in bundles[:n_sparse]
    sparse_input = tree_columns(__import__("scipy.sparse").sparse.csr_matrix(X), edges)
    assert sparse_input == (bundles, n_sparse)
    # one-hot variables: their bundles cover every row, so none is sparse and nothing is reordered
    Xo, _ = one_hot_data(seed=1, n=400)
    edges_o = tree_edges(Xo, 255, None, None, None)
    assert tree_columns(Xo, edges_o) == (tree_bundles(Xo, edges_o), 0)


@pytest.mark.parametrize("half_zero", [7, 8])
def test_columns_half_at_their_default_bin_are_sparse_only_when_eight_or_more(half_zero):
    """At their default bin on 60 % of the rows: sparse (rows listed, no branch) when that makes eight sparse
    columns, else plain columns; the native grower and the protocol grow the same trees either way."""
    from rankcore.learners.trees._binning import tree_columns, tree_edges

    rng = np.random.default_rng(half_zero)
    n = 600
    X = rng.normal(size=(n, 12))
    X[:, :half_zero] *= rng.random((n, half_zero)) < 0.4
    X[rng.random((n, 12)) < 0.05] = np.nan
    edges = tree_edges(X, 255, None, None, None)
    bundles, n_sparse = tree_columns(X, edges)
    assert n_sparse == (half_zero if half_zero >= 8 else 0)
    assert sorted(j for b in bundles[:n_sparse] for j in b) == list(range(n_sparse))
    from test_tree_oblivious_grow import _both_routes

    g = rng.normal(size=n) + 2.0 * np.nan_to_num(X[:, 0]) + (X[:, 1] == 0)
    h = rng.uniform(0.5, 1.5, n)
    for spec in ["trees:growth=oblivious,max_depth=5,min_samples_leaf=10", "trees:growth=oblivious,subsample=1"]:
        layout = resolve("learner", spec).prepare(X, random_state=0)
        assert layout.slots.sparse_columns == n_sparse
        assert (layout.encode(X).listed is not None) == (n_sparse >= 8)
        for a, b in _both_routes(spec, X, [g, -g], [h, h]):
            assert a == b and a[0] is not None


def test_sparse_columns_must_be_bundles_with_a_code_0_slot():
    n_edges, z = np.array([1, 1, 5]), np.zeros(3, dtype=np.intp)
    slots = bundled_slot_layout(n_edges, z, [[0], [1]], n_sparse=2)
    assert slots.sparse_columns == 2
    import pickle

    assert pickle.loads(pickle.dumps(slots)).sparse_columns == 2
    with pytest.raises(ValueError, match="sparse_columns"):
        bundled_slot_layout(n_edges, z, [[0]], n_sparse=2)          # column 1 is feature 1 alone
    with pytest.raises(ValueError, match="sparse_columns"):
        _histogram.SlotLayout([0], [1], [0], [0], [0], 3, None, 1)   # code 0 is the feature's own bin 0

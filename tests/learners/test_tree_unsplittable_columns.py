"""The ``trees`` learner leaves out the columns no split can use: nonzero on fewer than min_samples_leaf rows.

Checked against plain counts, and against the trees grown on a layout that
stores every column: the same trees, bit for bit where the sums are exact.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _histogram, _learner
from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees._binning import splittable_columns, take_columns
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import load_model, save_model
from rankcore.registry import resolve


def wide_sparse_data(seed=0, n=700, d=60, n_dense=3):
    """Count columns nonzero on 0 to 60 rows (about half below 20), a few NaN, then dense columns."""
    rng = np.random.default_rng(seed)
    nonzero = rng.integers(0, 60, d)
    X = np.zeros((n, d))
    for j, k in enumerate(nonzero):
        X[rng.choice(n, size=k, replace=False), j] = rng.poisson(1.0, size=k) + 1.0
    X[rng.choice(n, size=5, replace=False), 3] = np.nan             # missing counts as nonzero
    X = np.hstack([X, rng.normal(size=(n, n_dense))])
    y = ((X[:, :10] > 0).sum(axis=1) + 0.7 * X[:, -1] + rng.normal(scale=0.5, size=n) > 0.8).astype(int)
    return X, y


def _plain_splittable(X, min_samples_leaf):
    dense = X.toarray() if sp.issparse(X) else X
    return np.flatnonzero(((dense != 0) | np.isnan(dense)).sum(axis=0) >= min_samples_leaf)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 40), st.integers(1, 12), st.integers(1, 30))
def test_splittable_columns_match_plain_counts(seed, n, d, msl):
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < rng.uniform(0, 1), rng.integers(-2, 3, (n, d)).astype(float), 0.0)
    X[rng.random((n, d)) < 0.05] = np.nan
    expected = _plain_splittable(X, msl)
    np.testing.assert_array_equal(splittable_columns(X, msl), expected)
    S = sp.csr_matrix(X)
    S.data[rng.random(S.data.shape[0]) < 0.2] = 0.0           # stored zeros are zeros
    np.testing.assert_array_equal(splittable_columns(S, msl), _plain_splittable(S, msl))
    kept = splittable_columns(X, msl)
    np.testing.assert_array_equal(take_columns(X, kept), X[:, kept])
    np.testing.assert_array_equal(take_columns(S, kept).toarray(), S.toarray()[:, kept])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 60), st.integers(1, 15))
def test_encode_reads_the_listed_columns_in_place(seed, n, d):
    """The encode kernel given ``columns`` equals the kernel on a copy of those columns."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < 0.5, rng.integers(0, 4, (n, d)).astype(float), 0.0)
    X[rng.random((n, d)) < 0.1] = np.nan
    columns = np.flatnonzero(rng.random(d) < 0.6).astype(np.intp)
    if columns.size == 0:
        columns = np.array([d - 1], dtype=np.intp)
    layout = resolve("learner", "trees:min_samples_leaf=1").layout_from_edges(
        [np.array([0.5, 1.5, 2.5])[: rng.integers(0, 4)] for _ in columns])
    expected = np.zeros((n, layout.slots.n_cols), dtype=np.uint8)
    _histogram.encode(np.ascontiguousarray(X[:, columns]), layout.flat_edges, layout.offsets, layout.slots,
                         expected)
    for n_threads in (1, 2):
        codes = np.zeros_like(expected)
        _histogram.encode(X, layout.flat_edges, layout.offsets, layout.slots, codes, n_threads, columns)
        np.testing.assert_array_equal(codes, expected)
    with pytest.raises(ValueError, match="columns"):
        _histogram.encode(X, layout.flat_edges, layout.offsets, layout.slots, codes, 1, columns + d)


def _every_column(X, min_samples_leaf):
    return np.arange(X.shape[1], dtype=np.intp)


def _tree(spec, X, g, h, native):
    layout = resolve("learner", spec).prepare(X, random_state=0)
    block = layout.encode(X)
    found = layout.search_in_memory([block], [g], [h]) if native else multi_pass_search(layout, [block], [g], [h])
    # the training rows' values (from codes) equal the tree's predictions (from the raw columns)
    np.testing.assert_array_equal(layout.evaluate(found.ranker, block), found.ranker.predict(X))
    return layout, found


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("spec", ["trees", "trees:subsample=1,min_samples_leaf=30,max_leaves=8",
                                  "trees:growth=depthwise,bundle=false",
                                  # column 7 (nonzero on 4 rows) is left out; 1 and 61 stay, renumbered
                                  "trees:categorical=1;7;61,subsample=1"])
def test_trees_equal_the_trees_of_every_column(spec, sparse, monkeypatch):
    X, _ = wide_sparse_data(seed=4)
    X[:, 61] = np.random.default_rng(1).integers(0, 5, X.shape[0])       # a categorical column that splits
    rng = np.random.default_rng(2)
    g = rng.integers(-20, 21, X.shape[0]).astype(float) / 4       # dyadic: exact sums in any order
    h = rng.integers(1, 9, X.shape[0]).astype(float) / 8
    data = sp.csr_matrix(X) if sparse else X
    for native in (True, False):
        layout, found = _tree(spec, data, g, h, native)
        assert layout.columns is not None and layout.n_features < X.shape[1]
        if "categorical" in spec:           # the categories follow their columns to the stored positions
            assert 7 not in layout.columns
            assert sorted(layout.columns[list(layout.categories)].tolist()) == [1, 61]
        with monkeypatch.context() as m:
            m.setattr(_learner, "splittable_columns", _every_column)
            full_layout, full = _tree(spec, data, g, h, native)
        assert full_layout.columns is None
        assert found.derivative == full.derivative
        for field in ("feature", "threshold", "nan_left", "left", "right", "value", "gain"):
            np.testing.assert_array_equal(getattr(found.ranker, field), getattr(full.ranker, field))
        assert set(found.ranker.feature[found.ranker.left >= 0]) <= set(layout.columns.tolist())


def test_a_fit_names_the_columns_of_x_and_matches_the_fit_on_every_column(monkeypatch, tmp_path):
    X, y = wide_sparse_data(seed=6, n=1200, d=80)
    model = rankcore.boost(learner="trees", n_iter=30, random_state=0).fit(X, y)
    with monkeypatch.context() as m:
        m.setattr(_learner, "splittable_columns", _every_column)
        full = rankcore.boost(learner="trees", n_iter=30, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), full.decision_function(X), rtol=1e-9, atol=1e-12)
    kept = set(splittable_columns(X, 20).tolist())
    used = {int(j) for r in model.rankers_ for j in r.feature[r.left >= 0]}
    assert used and used <= kept and max(used) >= 80      # a dense column, by its index in X
    # the saved model, read back, predicts the same from the columns of X
    path = tmp_path / "model.json"
    save_model(model, path)
    np.testing.assert_array_equal(load_model(path).decision_function(X), model.decision_function(X))


def test_a_tree_on_a_column_the_layout_left_out_is_a_clear_error():
    X, _ = wide_sparse_data(seed=3)
    layout = resolve("learner", "trees").prepare(X, random_state=0)
    dropped = int(np.setdiff1d(np.arange(X.shape[1]), layout.columns)[0])
    ranker = TreeRanker(np.array([dropped, -1, -1], dtype=np.int32), np.array([0.5, 0.0, 0.0]),
                        np.zeros(3, dtype=np.uint8), np.array([1, -1, -1], dtype=np.int32),
                        np.array([2, -1, -1], dtype=np.int32), np.array([0.0, -1.0, 1.0]), np.zeros(3))
    with pytest.raises(ValueError, match=f"column {dropped}, which this layout does not store"):
        layout.evaluate(ranker, layout.encode(X))
    with pytest.raises(ValueError, match="columns; the layout reads column"):
        layout.encode(X[:, :10])


def test_layouts_that_keep_every_column():
    X, _ = wide_sparse_data(seed=5)
    # oblivious trees choose a level's split on the sum over its nodes: every column with two bins stays, even one
    # nonzero on a single row; only the columns with one bin go (test_tree_oblivious_single_bin_columns.py)
    one_bin = np.flatnonzero(~((X != 0) | np.isnan(X)).any(axis=0))
    rare = np.flatnonzero(((X != 0) | np.isnan(X)).sum(axis=0) == 1)
    assert one_bin.size and rare.size
    kept = resolve("learner", "trees:growth=oblivious").prepare(X, random_state=0).columns
    np.testing.assert_array_equal(kept, np.setdiff1d(np.arange(X.shape[1]), one_bin))
    # a column nonzero on one row is stored at min_samples_leaf=1; an all-zero one is not
    kept = resolve("learner", "trees:min_samples_leaf=1").prepare(X, random_state=0).columns
    zero = np.flatnonzero(~((X != 0) | np.isnan(X)).any(axis=0))
    assert zero.size and (kept is None or not set(zero.tolist()) & set(kept.tolist()))
    # when no column could split, the layout keeps them all and the fit says why it has no tree
    tiny = np.zeros((30, 4))
    tiny[:3, 0] = 1.0
    y = np.r_[np.ones(15), np.zeros(15)].astype(int)
    assert resolve("learner", "trees").prepare(tiny, random_state=0).columns is None
    with pytest.warns(UserWarning, match="min_samples_leaf"):
        rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(tiny, y)

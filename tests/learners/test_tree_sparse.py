"""``scipy.sparse`` input for the ``trees`` learner: never made dense, and the same model as the dense form."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _histogram
from rankcore.registry import resolve
from test_tree_bundles import one_hot_data


def _sparse_data(seed=0, n=500, d=12, density=0.15, nan_fraction=0.0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed, dtype=np.float64)
    X.data = np.round(X.data * 4 - 1, 1)                  # negative, zero (explicit) and positive values
    if nan_fraction:
        X.data[rng.random(X.data.shape[0]) < nan_fraction] = np.nan
    X = X.astype(dtype)
    dense = X.toarray()
    y = ((np.nan_to_num(dense[:, 0]) + np.nan_to_num(dense[:, -1]) + rng.normal(scale=0.3, size=n)) > 0.2).astype(int)
    return X, dense, y


def _same_model(a, b):
    assert len(a.rankers_) == len(b.rankers_)
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    for r, s in zip(a.rankers_, b.rankers_):
        assert r.to_state() == s.to_state()


@pytest.mark.parametrize("spec", ["trees", "trees:subsample=1,max_leaves=8", "trees:growth=depthwise,colsample=0.6"])
@pytest.mark.parametrize("nan_fraction", [0.0, 0.1])
def test_sparse_and_dense_input_give_the_same_model_and_scores(spec, nan_fraction):
    X, dense, y = _sparse_data(nan_fraction=nan_fraction)
    a = rankcore.boost(learner=spec, n_iter=15, random_state=0).fit(X, y)
    b = rankcore.boost(learner=spec, n_iter=15, random_state=0).fit(dense, y)
    _same_model(a, b)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(dense))
    np.testing.assert_array_equal(a.decision_function(dense), a.decision_function(sp.csc_matrix(dense)))


def test_sparse_one_hot_data_bundles_like_its_dense_form():
    dense, y = one_hot_data(seed=2, n=900)
    X = sp.csr_matrix(dense)
    lay_s = resolve("learner", "trees").prepare(X, random_state=0)
    lay_d = resolve("learner", "trees").prepare(dense, random_state=0)
    assert lay_s.bundles == lay_d.bundles and lay_s.bundles
    np.testing.assert_array_equal(lay_s.encode(X).codes, lay_d.encode(dense).codes)
    _same_model(rankcore.boost(learner="trees", n_iter=10, random_state=1).fit(X, y),
                rankcore.boost(learner="trees", n_iter=10, random_state=1).fit(dense, y))


def test_sparse_input_is_never_made_dense(monkeypatch):
    X, dense, y = _sparse_data(n=300)
    expected = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(dense, y).decision_function(dense)

    def refuse(*args, **kwargs):
        raise AssertionError("a sparse matrix was made dense")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    model = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), expected)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 120), st.integers(1, 9), st.floats(0.0, 1.0))
def test_encode_csr_equals_encode_of_the_dense_form(seed, n, d, density):
    X, dense, _ = _sparse_data(seed=seed, n=n, d=d, density=density, nan_fraction=0.1)
    layout = resolve("learner", "trees:max_bins=8").prepare(dense, random_state=0)
    np.testing.assert_array_equal(layout.encode(X).codes, layout.encode(dense).codes)
    # an unsorted, int64-indexed CSR matrix too
    unsorted = sp.csr_matrix((X.data[::-1].copy(), X.indices[::-1].astype(np.int64).copy(),
                              (X.indptr[-1] - X.indptr[::-1]).astype(np.int64)), shape=X.shape)
    unsorted = sp.csr_matrix(unsorted[::-1])
    np.testing.assert_array_equal(layout.encode(unsorted).codes, layout.encode(dense).codes)


def test_predict_on_csr_walks_like_the_dense_kernel():
    X, dense, y = _sparse_data(seed=4, n=400, nan_fraction=0.05, dtype=np.float32)
    model = rankcore.boost(learner="trees:max_leaves=12", n_iter=20, random_state=0).fit(dense, y)
    np.testing.assert_array_equal(model.decision_function(X), model.decision_function(dense))
    for ranker in model.rankers_[:5]:
        np.testing.assert_array_equal(ranker.predict(X), ranker.predict(dense))


def test_sparse_eval_set_and_early_stopping():
    X, dense, y = _sparse_data(seed=6, n=600)
    a = rankcore.boost(learner="trees", n_iter=20, random_state=0, early_stopping=True).fit(X, y)
    b = rankcore.boost(learner="trees", n_iter=20, random_state=0, early_stopping=True).fit(dense, y)
    _same_model(a, b)
    c = rankcore.boost(learner="trees", n_iter=8, random_state=0).fit(X[:400], y[:400], eval_set=(X[400:], y[400:]))
    assert c.validation_scores_.shape == (c.n_iter_,)


def test_learners_without_sparse_support_refuse_it_by_name():
    X, _, y = _sparse_data(n=100)
    with pytest.raises(TypeError, match="sparse"):
        rankcore.boost(learner="stumps", n_iter=3).fit(X, y)
    with pytest.raises(ValueError, match="infinite"):
        bad = X.copy()
        bad.data[0] = np.inf
        rankcore.boost(learner="trees", n_iter=3).fit(bad, y)


def test_kernel_checks_csr_arrays():
    layout = resolve("learner", "trees").prepare(np.eye(4), random_state=0)
    codes = np.empty((4, layout.slots.n_cols), dtype=np.uint8)
    with pytest.raises(ValueError, match="out of range"):
        _histogram.encode_csr(np.array([0, 1, 1, 1, 1], np.int32), np.array([9], np.int32), np.array([1.0]),
                                 layout.flat_edges, layout.offsets, layout.slots, layout.column_default, codes)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("subsample", [None, 700])
@pytest.mark.parametrize("weighted", [False, True])
def test_sparse_bin_edges_equal_the_dense_forms(dtype, subsample, weighted):
    """Every route of a sparse column's edges (every row, a row sample, weights) gives its dense form's edges,
    at quantile levels where the count of zeros moves them: continuous and few-valued columns of several
    densities, explicit zeros, NaN, float32 and float64 stored values."""
    from rankcore.learners.trees._binning import tree_edges

    rng = np.random.default_rng(4)
    n, d = 1200, 8
    X = sp.random(n, d, density=0.35, format="csc", random_state=5, dtype=np.float64)
    X.data = rng.normal(size=X.data.shape[0])
    X.data[rng.random(X.data.shape[0]) < 0.05] = 0.0           # explicit zeros
    X.data[rng.random(X.data.shape[0]) < 0.03] = np.nan
    X.data[X.indptr[1]:X.indptr[2]] = np.round(X.data[X.indptr[1]:X.indptr[2]])    # a few-valued column
    X = sp.csr_matrix(X).astype(dtype)
    dense = X.toarray()
    w = rng.random(n) if weighted else None
    sparse_edges = tree_edges(X, 16, w, subsample, 0)
    dense_edges = tree_edges(dense, 16, w, subsample, 0)
    assert len(sparse_edges) == len(dense_edges) == d
    for j, (s, e) in enumerate(zip(sparse_edges, dense_edges)):
        np.testing.assert_array_equal(s, e, err_msg=f"feature {j}")

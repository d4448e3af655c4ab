"""A pandas DataFrame of ``Sparse`` columns (a fingerprint table) is read as the sparse matrix it stores.

The estimators that take scipy.sparse input read such a frame's stored
values, never a dense copy of every cell; the others densify it only while
the copy stays small, and refuse it past that, as they refuse a scipy.sparse
matrix, saying how large the dense array would be.
"""

import tracemalloc

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import rankcore
import rankcore.validation as validation


def _fingerprints(n=2000, d=4096, seed=0):
    """Binary bit columns, 2 % ones, a few planted bits driving the label; as CSR and as a Sparse[int8] frame."""
    X = sp.random(n, d, density=0.02, random_state=seed, format="csr", data_rvs=np.ones)
    signal = X[:, 3].toarray().ravel() * 2 + X[:, 11].toarray().ravel()
    y = (signal + np.random.default_rng(seed).normal(0, 0.3, n) > 1.0).astype(int)
    frame = pd.DataFrame.sparse.from_spmatrix(X.astype(np.int8), columns=[f"bit{j}" for j in range(d)])
    return X, frame, y


def _peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_sgd_at_k_reads_a_sparse_frame_without_a_dense_copy():
    X, frame, y = _fingerprints()
    dense_bytes = X.shape[0] * X.shape[1] * 8
    model = rankcore.SGDAtK(k=50, random_state=0)
    peak = _peak_bytes(lambda: model.fit(frame, y))
    assert peak < dense_bytes / 3, (peak, dense_bytes)
    reference = rankcore.SGDAtK(k=50, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.decision_function(frame), reference.decision_function(X), atol=1e-10)
    assert list(model.feature_names_in_) == list(frame.columns)


def test_trees_read_a_sparse_frame_as_its_csr_matrix():
    X, frame, y = _fingerprints()
    model = _trees_as_on_the_dense_array(frame, X, y)
    np.testing.assert_array_equal(model.decision_function(frame), model.decision_function(frame.sparse.to_dense()))


def _trees_as_on_the_dense_array(frame, X, y):
    """The trees fitted on ``frame`` without half its dense array's memory, scoring it as the fit on ``X``."""
    dense_bytes = X.shape[0] * X.shape[1] * 8
    model = rankcore.boost(learner="trees", n_iter=5, random_state=0)
    peak = _peak_bytes(lambda: model.fit(frame, y))
    assert peak < dense_bytes / 2, (peak, dense_bytes)
    reference = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(frame), reference.decision_function(X))
    return model


def test_a_sparse_frame_too_large_to_densify_is_refused(monkeypatch):
    _, frame, y = _fingerprints(n=200, d=64)
    monkeypatch.setattr(validation, "DENSE_BYTES_LIMIT", 200 * 64 * 8 - 1)
    with pytest.raises(TypeError, match=r"X: sparse input is not supported here.*GB as float64 for shape \(200, 64\)"):
        rankcore.ExactBoost(n_runs=2, n_rounds=2, random_state=0).fit(frame, y)
    # dense columns beside the Sparse ones that would make the CSR matrix larger than the dense array: the frame
    # would be densified even by the trees, refused past the limit
    crowded = frame.assign(**{f"dense{j}": np.linspace(200.0, 400.0, 200) + j for j in range(200)})
    monkeypatch.setattr(validation, "DENSE_BYTES_LIMIT", 200 * 264 * 8 - 1)
    with pytest.raises(TypeError, match="Sparse columns beside dense ones"):
        rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(crowded, y)


def test_a_fingerprint_frame_with_descriptor_columns_is_read_as_csr_in_column_order():
    # fingerprints beside a few plain descriptor columns (one with NaN) were made dense cell by cell, even by the
    # trees: read as one CSR matrix instead, the dense columns' zeros absent and their NaN stored (missing)
    X, frame, y = _fingerprints(n=1500, d=2048)
    rng = np.random.default_rng(1)
    logp, hbd = rng.normal(size=1500), rng.integers(0, 5, 1500)
    logp[7] = np.nan
    mixed = pd.concat([pd.DataFrame({"logp": logp}), frame.iloc[:, :1000], pd.DataFrame({"hbd": hbd}),
                       frame.iloc[:, 1000:]], axis=1)
    csr = validation.sparse_frame_as_csr(mixed)
    dense = np.column_stack([logp, X[:, :1000].toarray(), hbd, X[:, 1000:].toarray()])
    assert sp.issparse(csr) and csr.shape == dense.shape
    np.testing.assert_array_equal(csr.toarray(), dense)
    model = _trees_as_on_the_dense_array(mixed, dense, y)
    assert list(model.feature_names_in_) == list(mixed.columns)


def test_a_small_sparse_frame_still_fits_the_dense_only_models():
    X, frame, y = _fingerprints(n=200, d=16)
    model = rankcore.ExactBoost(n_runs=2, n_rounds=3, random_state=0).fit(frame, y)
    reference = rankcore.ExactBoost(n_runs=2, n_rounds=3, random_state=0).fit(X.toarray(), y)
    np.testing.assert_array_equal(model.decision_function(frame), reference.decision_function(X.toarray()))


def test_a_nan_filled_sparse_frame_keeps_its_missing_values_for_the_trees():
    _, frame, y = _fingerprints(n=1000, d=16)
    holes = frame.astype(pd.SparseDtype(np.float64, np.nan))        # absent entries are missing here, not 0
    dense = holes.sparse.to_dense().to_numpy()
    model = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(holes, y)
    reference = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(dense, y)
    np.testing.assert_array_equal(model.decision_function(holes), reference.decision_function(dense))


def test_the_refusal_of_a_sparse_matrix_says_how_large_its_dense_copy_would_be():
    X = sp.csr_matrix((np.ones(2), ([0, 1], [0, 1])), shape=(200_000, 16_384))    # its shape is what counts
    y = np.arange(200_000) % 2
    with pytest.raises(TypeError, match=r"26\.2 GB as float64.*rankcore\.boost\(learner='trees'\)"):
        rankcore.KernelRanker().fit(X, y)


def test_the_stumps_refuse_a_large_sparse_frame_before_reading_its_cells(monkeypatch):
    X, frame, y = _fingerprints()
    dense_bytes = X.shape[0] * X.shape[1] * 8
    monkeypatch.setattr(validation, "DENSE_BYTES_LIMIT", 1 << 20)

    def fit():
        with pytest.raises(TypeError, match="sparse input is not supported here"):
            rankcore.boost(n_iter=2).fit(frame, y)

    assert _peak_bytes(fit) < dense_bytes / 4


def test_the_refusal_of_a_sparse_frame_advises_a_call_a_frame_has(monkeypatch):
    # a DataFrame has no toarray(): the advice given for a scipy.sparse matrix raised AttributeError when followed
    X, frame, y = _fingerprints(n=200, d=64)
    monkeypatch.setattr(validation, "DENSE_BYTES_LIMIT", 200 * 64 * 8 - 1)
    with pytest.raises(TypeError, match=r"pass a dense array \(X\.to_numpy\(\), ") as refused:
        rankcore.KernelRanker().fit(frame, y)
    assert "toarray" not in str(refused.value)
    np.testing.assert_array_equal(frame.to_numpy(), X.toarray())      # the advice, followed, gives the matrix
    with pytest.raises(TypeError, match=r"pass a dense array \(X\.toarray\(\), "):
        rankcore.KernelRanker().fit(X, y)


def test_a_sparse_frame_made_dense_holds_one_dense_copy_not_two():
    # np.asarray reads the frame column-major; its C-contiguous copy was a second dense array held at once
    X, frame, y = _fingerprints(n=1000, d=2048)
    dense_bytes = X.shape[0] * X.shape[1] * 8
    stumps = rankcore.resolve("learner", "stumps")
    made = []
    peak = _peak_bytes(lambda: made.append(validation.check_learner_matrix(frame, stumps)[0]))
    assert peak < 1.5 * dense_bytes, peak / dense_bytes
    np.testing.assert_array_equal(made[0], X.toarray())
    assert made[0].dtype == np.float64 and made[0].flags["C_CONTIGUOUS"]
    holes = frame.iloc[:, :8].astype(pd.SparseDtype(np.float32, np.nan))     # NaN fill and float32 kept
    got = validation.check_matrix(holes, dtype=np.float32, allow_nan=True)
    np.testing.assert_array_equal(got, holes.sparse.to_dense().to_numpy(dtype=np.float32))


@pytest.mark.parametrize("subtypes", [("float64", "bool"), ("int8", "bool"), ("float16", "int8")],
                         ids=["float-bool", "int8-bool", "float16"])
def test_sparse_columns_of_different_subtypes_are_read_as_the_dense_frame_is(subtypes):
    # pandas' common type of booleans and numbers is object (and scipy has no float16): to_coo() failed with
    # scipy's "does not support dtype object" for every learner that reads sparse input
    rng = np.random.default_rng(5)
    dense = pd.DataFrame({"a": (rng.random(200) < 0.3) * rng.integers(1, 4, 200), "b": rng.random(200) < 0.2})
    y = np.array((dense["a"] > 1) | dense["b"], dtype=int)
    y[::9] = 1 - y[::9]
    dense = dense.astype({"a": subtypes[0], "b": subtypes[1]})
    frame = pd.DataFrame({c: pd.arrays.SparseArray(dense[c].to_numpy(), fill_value=dense[c].dtype.type(0))
                          for c in dense.columns})
    csr = validation.sparse_frame_as_csr(frame)
    np.testing.assert_array_equal(csr.toarray(), dense.to_numpy(dtype=np.float64))
    fitted = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(frame, y)
    reference = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(dense.astype(np.float64), y)
    np.testing.assert_allclose(fitted.decision_function(frame), reference.decision_function(dense))

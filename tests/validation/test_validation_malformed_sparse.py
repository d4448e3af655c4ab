"""Malformed scipy.sparse matrices are refused by name before anything reads their index arrays.

scipy builds a CSR matrix from ``(data, indices, indptr)`` after checking
only the lengths, and arrays assigned later are not checked at all; its
``tocsc`` and rankcore's kernels trust them (a crash, a C++ message, or a
silent score).  Every estimator family is fitted on and scores each kind of
malformation; the check comes first, so none of these calls reaches a kernel.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from rankcore.validation import check_matrix, check_sparse_structure


def _data():
    rng = np.random.RandomState(0)
    X = rng.rand(40, 5)
    X[X < 0.5] = 0.0
    y = np.r_[np.ones(20, dtype=int), np.zeros(20, dtype=int)]
    return X, y


def _column_too_large(M):
    M.indices[3] = M.shape[1] + 7


def _column_negative(M):
    M.indices[3] = -1


def _indptr_decreasing(M):
    M.indptr[5], M.indptr[6] = M.indptr[6], M.indptr[5]


def _indices_shorter_than_data(M):
    M.indices = M.indices[:-2]


def _indptr_too_short(M):
    M.indptr = M.indptr[:-1]


def _indptr_past_the_data(M):
    M.indptr[-1] += 3


def _indptr_not_from_zero(M):
    M.indptr[0] = 1


MALFORMATIONS = {
    "column index too large": (_column_too_large, "every column index must lie in [0, 5), got 12 in row 0"),
    "negative column index": (_column_negative, "every column index must lie in [0, 5), got -1 in row 0"),
    "indptr decreasing": (_indptr_decreasing, "indptr must not decrease"),
    "indices shorter than data": (_indices_shorter_than_data, "indices and data must have the same length"),
    "indptr too short": (_indptr_too_short, "indptr must have one entry per row plus one (41), got 40"),
    "indptr past the data": (_indptr_past_the_data, "past the"),
    "indptr not from zero": (_indptr_not_from_zero, "indptr must start at 0, got 1"),
}


def malformed(kind: str) -> sp.csr_matrix:
    M = sp.csr_matrix(_data()[0])
    MALFORMATIONS[kind][0](M)
    return M


def _estimators():
    from rankcore.auto import AutoRanker
    from rankcore.exactboost import ExactBoost
    from rankcore.precision_at_k import PerceptronAtK, SGDAtK
    from rankcore.push import PNormPush, PushBoost, RankBoost
    from rankcore.rkhs import KernelRanker

    return {
        "PushBoost-trees": lambda: PushBoost(learner="trees:min_samples_leaf=3", n_iter=3, random_state=0),
        "PushBoost": lambda: PushBoost(n_iter=3, random_state=0),
        "PNormPush": lambda: PNormPush(n_iter=3, random_state=0),
        "RankBoost": lambda: RankBoost(n_iter=3, random_state=0),
        "ExactBoost": lambda: ExactBoost(n_runs=2, n_rounds=3, random_state=0),
        "PerceptronAtK": lambda: PerceptronAtK(k=5, n_epochs=2, batch_size=20, random_state=0),
        "SGDAtK": lambda: SGDAtK(k=5, n_epochs=2, batch_size=20, random_state=0),
        "KernelRanker": lambda: KernelRanker(lam=0.1, random_state=0),
        "AutoRanker": lambda: AutoRanker(candidates=["linear:n_epochs=2"], blend=False, random_state=0, n_jobs=1),
    }


ESTIMATORS = tuple(_estimators())


@pytest.mark.parametrize("kind", MALFORMATIONS)
def test_check_matrix_refuses_malformed_csr_naming_x(kind):
    with pytest.raises(ValueError, match="X: malformed sparse CSR matrix of shape \\(40, 5\\)") as info:
        check_matrix(malformed(kind), accept_sparse=True)
    assert MALFORMATIONS[kind][1] in str(info.value)


@pytest.mark.parametrize("kind", MALFORMATIONS)
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_fit_refuses_malformed_csr(estimator, kind):
    X, y = _data()
    with pytest.raises(ValueError, match="^X: malformed sparse CSR matrix"):
        _estimators()[estimator]().fit(malformed(kind), y)


@pytest.fixture(scope="module")
def fitted():
    """Each estimator fitted on the dense matrix and, where it takes sparse input, on its CSR form."""
    X, y = _data()
    models = {}
    for name, make in _estimators().items():
        models[name, "dense"] = make().fit(X, y)
        if name in ("PushBoost-trees", "SGDAtK", "PerceptronAtK"):
            models[name, "sparse"] = make().fit(sp.csr_matrix(X), y)
    return models


@pytest.mark.parametrize("kind", MALFORMATIONS)
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_decision_function_refuses_malformed_csr(fitted, estimator, kind):
    for (name, _), model in fitted.items():
        if name == estimator:
            with pytest.raises(ValueError, match="^X: malformed sparse CSR matrix"):
                model.decision_function(malformed(kind))


def test_eval_set_refuses_malformed_csr():
    from rankcore.precision_at_k import SGDAtK

    X, y = _data()
    with pytest.raises(ValueError, match="^eval_set X: malformed sparse CSR matrix"):
        SGDAtK(n_epochs=2, random_state=0).fit(X, y, eval_set=(malformed("column index too large"), y))


def test_malformed_csc_is_refused_before_its_conversion():
    M = sp.csc_matrix(_data()[0])
    M.indices[0] = 99                                   # a row index past the 40 rows
    with pytest.raises(ValueError, match="X: malformed sparse CSC matrix .* every row index must lie in "
                                         "\\[0, 40\\), got 99 in column 0"):
        check_matrix(M, accept_sparse=True)
    M = sp.csc_matrix(_data()[0])
    M.indptr[2], M.indptr[3] = M.indptr[3], M.indptr[2]
    with pytest.raises(ValueError, match="indptr must not decrease, got .* at column 2"):
        check_matrix(M, accept_sparse=True)


def test_malformed_coo_and_bsr_are_refused():
    X = _data()[0]
    coo = sp.coo_matrix(X)
    coo.col[4] = 5
    with pytest.raises(ValueError, match="X: malformed sparse COO .* every col index must lie in \\[0, 5\\), got 5 "
                                         "at stored value 4"):
        check_matrix(coo, accept_sparse=True)
    coo = sp.coo_matrix(X)
    coo.row = coo.row[:-1]
    with pytest.raises(ValueError, match="row and data must have the same length"):
        check_matrix(coo, accept_sparse=True)
    bsr = sp.bsr_matrix(np.hstack([X, X[:, :1]]), blocksize=(2, 2))
    bsr.indices[0] = 3                                   # three blocks of two columns: 0, 1, 2
    with pytest.raises(ValueError, match="X: malformed sparse BSR .* every block column index must lie in "
                                         "\\[0, 3\\), got 3 in block row 0"):
        check_matrix(bsr, accept_sparse=True)


def test_index_arrays_of_floats_are_refused():
    M = sp.csr_matrix(_data()[0])
    M.indices = M.indices.astype(np.float64)
    with pytest.raises(ValueError, match="indices must be a 1-D array of integers, got dtype float64"):
        check_sparse_structure(M)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "lil", "dok", "dia"])
def test_well_formed_sparse_matrices_pass_unchanged(fmt):
    X = _data()[0]
    M = sp.csr_matrix(X).asformat(fmt)
    check_sparse_structure(M)
    np.testing.assert_array_equal(check_matrix(M, accept_sparse=True).toarray(), X)
    empty = sp.csr_matrix((3, 4)).asformat(fmt)                 # no stored value at all
    check_sparse_structure(empty)
    assert check_matrix(empty, accept_sparse=True).nnz == 0


def test_sparse_arrays_are_checked_like_matrices():
    M = sp.csr_array(_data()[0])
    M.indices[3] = -2
    with pytest.raises(ValueError, match="X: malformed sparse CSR matrix .* got -2 in row 0"):
        check_matrix(M, accept_sparse=True)


def test_a_malformed_matrix_is_a_value_error_even_where_sparse_is_refused():
    with pytest.raises(ValueError, match="X: malformed sparse CSR"):
        check_matrix(malformed("negative column index"))
    with pytest.raises(TypeError, match="X: sparse input is not supported here"):
        check_matrix(sp.csr_matrix(_data()[0]))


def test_malformed_lil_rows_are_refused_after_their_conversion():
    M = sp.lil_matrix(_data()[0])
    M.rows[1], M.data[1] = [7], [1.0]                   # a column past the five
    with pytest.raises(ValueError, match="X: malformed sparse CSR matrix .* got 7 in row 1"):
        check_matrix(M, accept_sparse=True)


def _with_duplicates(X):
    """X as CSR with each stored value split in two halves stored at the same place (not canonical)."""
    coo = sp.coo_matrix(X)
    rows, cols = np.r_[coo.row, coo.row], np.r_[coo.col, coo.col]
    values = np.r_[coo.data / 2, coo.data / 2]
    order = np.lexsort((cols, rows))
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=X.shape[0]))]
    A = sp.csr_matrix((values[order], cols[order], indptr), shape=X.shape)
    assert not A.has_canonical_format and np.array_equal(A.toarray(), X)
    return A


@pytest.mark.parametrize("learner", ["trees", "trees:growth=depthwise"])
def test_values_stored_twice_at_one_place_are_their_sum(learner):
    # the trees read one stored value per place: duplicates are summed first, as toarray reads them
    import rankcore

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.5] = 0.0
    X = np.round(X * 4) / 4                      # halves are exact: the sums equal X bit for bit
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    A = _with_duplicates(X)
    data_before = A.data.copy()
    dense = rankcore.boost(learner=learner, n_iter=10, random_state=0).fit(X, y)
    duplicated = rankcore.boost(learner=learner, n_iter=10, random_state=0).fit(A, y)
    np.testing.assert_array_equal(duplicated.decision_function(A), dense.decision_function(X))
    np.testing.assert_array_equal(dense.decision_function(A), dense.decision_function(X))
    np.testing.assert_array_equal(A.data, data_before)          # the caller's matrix is left as it was


def test_duplicates_that_sum_past_the_largest_double_are_infinite():
    from rankcore.validation import check_matrix

    A = _with_duplicates(np.array([[1.7e308, 0.0], [0.0, 1.0]]) * 2 / 2)
    A.data[:] = [1.7e308, 1.7e308, 0.5, 0.5]
    with pytest.raises(ValueError, match=r"X: expected finite numbers, got inf"):
        check_matrix(A, accept_sparse=True)

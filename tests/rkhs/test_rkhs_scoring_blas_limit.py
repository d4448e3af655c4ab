"""KernelRanker's scores take a BLAS thread limit only when the work could run on BLAS threads."""
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import rankcore
from rankcore.rkhs import _estimator


def _fitted(kernel="rbf", n=120, d=4):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    return X, rankcore.KernelRanker(kernel=kernel, n_jobs=1, random_state=0).fit(X, y)


@pytest.fixture
def limits(monkeypatch):
    entered = []
    real = _estimator._blas_limit

    def counted(threads):
        entered.append(threads)
        return real(threads)

    monkeypatch.setattr(_estimator, "_blas_limit", counted)
    return entered


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly", "linear", "tanimoto"])
def test_a_one_row_call_enters_no_limit(limits, kernel):
    X, model = _fitted(kernel)
    limits.clear()                        # the fit's own
    model.decision_function(X[:1])
    # before, every call entered (and left) the limit: threadpoolctl's scan and two settings, more than the scores
    assert limits == []


def test_a_call_big_enough_for_blas_threads_keeps_the_limit(limits):
    X, model = _fitted(n=300, d=4)
    rows = np.repeat(X, 2, axis=0)        # 600 x 300 x 4 multiply-adds: beyond BLAS's one-thread size
    limits.clear()
    model.decision_function(rows)
    assert limits == [1]


def test_a_users_kernel_keeps_the_limit_even_for_one_row(limits):
    X, model = _fitted(kernel=lambda A, B: A @ B.T)
    limits.clear()
    model.decision_function(X[:1])
    assert limits == [1]


def test_scores_without_the_limit_are_those_under_it():
    X, model = _fitted()
    free = np.concatenate([model.decision_function(X[i:i + 1]) for i in range(5)])
    with threadpool_limits(limits=1, user_api="blas"):
        limited = np.concatenate([model.decision_function(X[i:i + 1]) for i in range(5)])
    np.testing.assert_array_equal(free, limited)

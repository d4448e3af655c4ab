"""Kernel matrices on one thread below their work threshold and on several above it: the same entries, bit for bit."""

import numpy as np
import pytest

import rankcore
from rankcore.kernels import _gram

SPECS = ["rbf:2.5", "laplacian:1.5", "poly:3,gamma=2,coef0=1", "linear"]


def _reference(spec, X, Y):
    if spec.startswith("rbf"):
        return np.exp(-((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1) / 2.5)
    if spec.startswith("laplacian"):
        return np.exp(-np.abs(X[:, None, :] - Y[None, :, :]).sum(-1) / 1.5)
    if spec.startswith("poly"):
        return (X @ Y.T / 2.0 + 1.0) ** 3
    return X @ Y.T


# (rows of X, rows of Y): below and above 65,536 entries (laplacian: entries x 4 features)
SIZES = [(9, 7), (60, 50), (130, 129), (300, 260)]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("n, r", SIZES, ids=lambda v: str(v))
def test_gram_threads_give_the_same_matrix(spec, n, r):
    rng = np.random.default_rng(n)
    X, Y = rng.normal(size=(n, 4)), rng.normal(size=(r, 4))
    X[1] = X[0]  # a duplicate row: a distance of exactly 0
    kernel = rankcore.get_registry().resolve("kernel", spec)
    one_xx, one_xy = kernel(X, n_threads=1), kernel(X, Y, n_threads=1)
    for threads in (2, 4):
        assert np.array_equal(kernel(X, n_threads=threads), one_xx)
        assert np.array_equal(kernel(X, Y, n_threads=threads), one_xy)
    assert np.array_equal(one_xx, one_xx.T)
    scale = np.abs(_reference(spec, X, X)).max()
    np.testing.assert_allclose(one_xx, _reference(spec, X, X), rtol=1e-12, atol=1e-13 * scale)
    np.testing.assert_allclose(one_xy, _reference(spec, X, Y), rtol=1e-12, atol=1e-13 * scale)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 255, 256, 300])
def test_gram_mirror_threads_give_the_same_matrix(n):
    rng = np.random.default_rng(n)
    G = np.tril(rng.normal(size=(n, n)))
    expected = G + np.tril(G, -1).T
    for threads in (1, 2, 4):
        M = G.copy()
        _gram.mirror_lower(M, threads)
        assert np.array_equal(M, expected)


def test_kernel_diagonal_threads_give_the_same_values():
    X = np.random.default_rng(5).normal(size=(40, 3))
    kernel = rankcore.get_registry().resolve("kernel", "poly:2,gamma=1,coef0=1")
    expected = ((X * X).sum(1) + 1.0) ** 2
    for threads in (1, 2):
        np.testing.assert_allclose(kernel.diagonal(X, n_threads=threads), expected, rtol=1e-13)

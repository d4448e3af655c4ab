"""The spectral engine: LAPACK wrappers, in-place centering, one decomposition for every filter and λ."""

import numpy as np
import pytest
import scipy.linalg

import rankcore
from rankcore.rkhs import _center, _lapack
from rankcore.rkhs._spectral import ExactSpectrum, NystroemSpectrum, filter_matrix

from _rkhs_reference import centered_operator, dense_coefficients

FILTERS = ["tikhonov", "iterated", "iterated:5", "cutoff", "landweber", "showalter"]
LAMS = np.array([0.5, 1e-2, 1e-3, 1e-5])


def resolve(family, spec):
    return rankcore.get_registry().resolve(family, spec)


def rbf_problem(m, seed=0, d=3, gamma=2.0, levels=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = rng.integers(0, levels, size=m).astype(float)
    return resolve("kernel", f"rbf:{gamma}")(X), y


def sym(m, seed=0):
    A = np.random.default_rng(seed).normal(size=(m, m))
    return A + A.T


# ----------------------------------------------------------------------
# LAPACK wrappers
# ----------------------------------------------------------------------
@pytest.mark.parametrize("m", [2, 3, 17, 130])
def test_sytrd_ormtr_reconstruct(m):
    A = sym(m)
    a = A.copy()
    d, e, tau = _lapack.sytrd(a)
    T = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    Q = np.ascontiguousarray(np.eye(m))  # rows are vectors: apply Q to each unit vector
    _lapack.ormtr(a, tau, Q, False)
    Q = Q.T  # column j = Q e_j
    np.testing.assert_allclose(Q @ T @ Q.T, A, atol=1e-12 * np.abs(A).max())
    np.testing.assert_allclose(Q.T @ Q, np.eye(m), atol=1e-13)
    b = np.random.default_rng(1).normal(size=(1, m))
    bt = b.copy()
    _lapack.ormtr(a, tau, bt, True)
    np.testing.assert_allclose(bt[0], Q.T @ b[0], atol=1e-12)


@pytest.mark.parametrize("block", [1, 5, 64, 128, 300])
@pytest.mark.parametrize("m, k", [(2, 3), (9, 1), (130, 7), (257, 40)])
def test_apply_q_blocked_equals_ormtr(m, k, block):
    a = sym(m, seed=m)
    d, e, tau = _lapack.sytrd(a)
    C0 = np.random.default_rng(2).normal(size=(k, m))
    ref, fast = C0.copy(), C0.copy()
    _lapack.ormtr(a, tau, ref, False)
    _lapack.apply_q_blocked(a, tau, fast, block)
    np.testing.assert_allclose(fast, ref, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("solver", ["stemr", "stedc"])
@pytest.mark.parametrize("m", [1, 2, 50, 300])
def test_tridiagonal_eigensolvers(solver, m):
    rng = np.random.default_rng(m)
    d, e = rng.normal(size=m), rng.normal(size=max(m - 1, 0))
    w, Z = getattr(_lapack, solver)(d, e)
    T = np.diag(d) + (np.diag(e, 1) + np.diag(e, -1) if m > 1 else 0)
    np.testing.assert_allclose(w, scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=True), atol=1e-12)
    np.testing.assert_allclose(Z @ T @ Z.T, np.diag(w), atol=1e-11)  # rows are eigenvectors
    np.testing.assert_allclose(_lapack.sterf(d, e), w, atol=1e-12)


def test_stemr_partial_range():
    rng = np.random.default_rng(0)
    d, e = rng.normal(size=40), rng.normal(size=39)
    w, Z = _lapack.stemr(d, e)
    w2, Z2 = _lapack.stemr(d, e, 30, 40)
    np.testing.assert_allclose(w2, w[30:], atol=1e-13)
    np.testing.assert_allclose(np.abs(np.sum(Z2 * Z[30:], axis=1)), 1.0, atol=1e-10)
    with pytest.raises(ValueError):
        _lapack.stemr(d, e, 5, 50)


def test_blas_row_helpers():
    rng = np.random.default_rng(0)
    H, B = rng.normal(size=(7, 11)), rng.normal(size=(11, 13))
    out = np.empty((7, 13))
    _lapack.gemm_rows(H, B, out)
    np.testing.assert_allclose(out, H @ B, atol=1e-13)
    x = rng.normal(size=13)
    np.testing.assert_allclose(_lapack.gemv_rows(B, x), B @ x, atol=1e-13)
    with pytest.raises(ValueError):
        _lapack.gemm_rows(H, B, np.empty((7, 12)))


@pytest.mark.parametrize("impl", ["reference", "fast"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_center_inplace(impl, n_threads):
    K, _ = rbf_problem(123)
    expected = centered_operator(K)
    if impl == "reference":
        got = (K - K.mean(0) - K.mean(1)[:, None] + K.mean()) / K.shape[0]
    else:
        got = K.copy()
        means = _center.center_inplace(got, n_threads)
        np.testing.assert_allclose(means, K.mean(1), atol=1e-15)
        assert np.array_equal(got, got.T)
    np.testing.assert_allclose(got, expected, atol=1e-15)


# ----------------------------------------------------------------------
# Exact spectrum: every filter and λ from one decomposition
# ----------------------------------------------------------------------
@pytest.mark.parametrize("impl", ["reference", "fast"])
@pytest.mark.parametrize("eigensolver", ["mrrr", "dc"])
def test_exact_path_matches_dense_eigh(impl, eigensolver):
    K, y = rbf_problem(160, seed=1)
    filters = [resolve("filter", s) for s in FILTERS]
    if impl == "fast":
        C = ExactSpectrum(K.copy(), y, eigensolver=eigensolver).path(filters, LAMS)
    for i, flt in enumerate(filters):
        for j, lam in enumerate(LAMS):
            ref = dense_coefficients(K, y, lambda t, norm: flt(t, lam, norm=norm))
            got = ref if impl == "reference" else C[i, j]
            # The coefficients are as well determined as g_lambda's size allows.
            np.testing.assert_allclose(got, ref, rtol=0, atol=1e-11 * np.abs(ref).max() + 1e-14)


def test_exact_spectrum_eigenvalues_and_weights():
    K, y = rbf_problem(90, seed=2)
    sp = ExactSpectrum(K.copy(), y)
    t, U = np.linalg.eigh(centered_operator(K))
    np.testing.assert_allclose(sp.eigenvalues, np.maximum(t, 0), atol=1e-14)
    assert (sp.eigenvalues >= 0).all() and sp.norm == sp.eigenvalues.max()
    # weights are U^T b up to the signs of the eigenvectors
    b = (y - y.mean()) / y.size
    np.testing.assert_allclose(np.abs(sp.weights), np.abs(U.T @ b), atol=1e-12)


def test_tiny_eigenvalues_rank_deficient_kernel():
    # A linear kernel on 2 features: P K P / m has rank 2, 98 zero eigenvalues
    # (rounding-level in floating point).  Every filter must stay finite and
    # the coefficients must be those of the exact-zero spectrum.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 2))
    y = X @ np.array([1.0, -2.0]) + 0.1 * rng.normal(size=100)
    K = resolve("kernel", "linear")(X)
    filters = [resolve("filter", s) for s in FILTERS]
    sp = ExactSpectrum(K.copy(), y)
    assert (sp.eigenvalues[:-2] < 1e-12).all()
    C = sp.path(filters, LAMS)
    assert np.isfinite(C).all()
    for i, flt in enumerate(filters):
        for j, lam in enumerate(LAMS):
            ref = dense_coefficients(K, y, lambda t, norm: flt(np.where(t < 1e-12, 0.0, t), lam, norm=norm))
            np.testing.assert_allclose(C[i, j], ref, atol=1e-8 * np.abs(ref).max())
    # The scores, which is what ranks, agree to high relative accuracy.
    np.testing.assert_allclose(K @ C[0, 1], K @ dense_coefficients(K, y, lambda t, n: 1 / (t + LAMS[1])),
                               rtol=1e-9, atol=1e-12)


def test_coefficients_sum_to_zero_and_shift_invariance():
    K, y = rbf_problem(120, seed=4)
    filters = [resolve("filter", s) for s in FILTERS]
    C1 = ExactSpectrum(K.copy(), y).path(filters, LAMS)
    C2 = ExactSpectrum(K.copy(), y + 1234.5).path(filters, LAMS)
    assert np.abs(C1.sum(axis=-1)).max() < 1e-10 * np.abs(C1).max()
    np.testing.assert_allclose(C2, C1, atol=1e-9 * np.abs(C1).max())


def test_filter_matrix_shape():
    t = np.linspace(0, 1, 7)
    G = filter_matrix([resolve("filter", "tikhonov"), resolve("filter", "cutoff")], LAMS, t, 1.0)
    assert G.shape == (2, LAMS.size, 7)
    np.testing.assert_allclose(G[0, 1], 1 / (t + LAMS[1]))


def test_exact_spectrum_one_and_two_points():
    for m in (1, 2):
        K = np.ones((m, m)) * 0.5 + np.eye(m) * 0.5
        C = ExactSpectrum(K.copy(), np.arange(m, dtype=float)).path([resolve("filter", "tikhonov")], [0.1])
        assert C.shape == (1, 1, m) and np.isfinite(C).all()
        ref = dense_coefficients(K, np.arange(m, dtype=float), lambda t, n: 1 / (t + 0.1))
        np.testing.assert_allclose(C[0, 0], ref, atol=1e-14)


def test_released_spectrum_refuses_work():
    K, y = rbf_problem(20)
    sp = ExactSpectrum(K.copy(), y)
    sp.release()
    with pytest.raises(RuntimeError, match="released"):
        sp.path([resolve("filter", "tikhonov")], [0.1])


# ----------------------------------------------------------------------
# Nyström: same filters on a low-rank spectrum
# ----------------------------------------------------------------------
def test_nystroem_with_every_row_as_landmark_is_exact():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 2))
    y = np.round(X[:, 0] * 2)
    K = resolve("kernel", "laplacian:2")(X)  # well conditioned: nothing dropped
    filters = [resolve("filter", s) for s in FILTERS]
    exact = ExactSpectrum(K.copy(), y).path(filters, LAMS)
    ny = NystroemSpectrum(K, K, y)
    assert ny.rank == 120
    np.testing.assert_allclose(ny.path(filters, LAMS), exact, atol=1e-9 * np.abs(exact).max())


def test_nystroem_error_against_exact_shrinks_with_landmarks():
    rng = np.random.default_rng(6)
    m = 600
    X = rng.normal(size=(m, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=m)
    kernel = resolve("kernel", "rbf:6")
    K = kernel(X)
    flt = [resolve("filter", "tikhonov"), resolve("filter", "cutoff")]
    lams = np.array([1e-2, 1e-4])
    exact = ExactSpectrum(K.copy(), y).path(flt, lams)
    f_exact = np.einsum("ij,flj->fli", K, exact)
    errors = []
    for r in (25, 50, 100, 200, 400):
        idx = np.sort(rng.choice(m, r, replace=False))
        ny = NystroemSpectrum(K[:, idx].copy(), K[np.ix_(idx, idx)], y).path(flt, lams)
        f_ny = np.einsum("ij,flj->fli", K[:, idx], ny)
        # scores are shift-free: compare after centering
        diff = (f_ny - f_ny.mean(-1, keepdims=True)) - (f_exact - f_exact.mean(-1, keepdims=True))
        errors.append(np.linalg.norm(diff) / np.linalg.norm(f_exact - f_exact.mean(-1, keepdims=True)))
    assert errors[-1] < 0.02, errors
    assert errors[-1] < errors[0] / 5, errors
    assert all(b <= a * 1.5 for a, b in zip(errors, errors[1:])), errors


def test_more_vectors_than_rows_forms_u_once():
    # k > m switches to forming U = Q Z (2 m^3) once; later calls reuse it.
    K, y = rbf_problem(30, seed=7)
    filters = [resolve("filter", s) for s in FILTERS]
    lams = np.geomspace(1, 1e-6, 10)  # 6 x 10 = 60 vectors > 30 rows
    sp = ExactSpectrum(K.copy(), y)
    C = sp.path(filters, lams)
    assert sp._u_formed
    again = sp.path(filters[:1], lams[:2])  # after the switch: U directly
    for i, flt in enumerate(filters):
        for j, lam in enumerate(lams):
            ref = dense_coefficients(K, y, lambda t, norm: flt(t, lam, norm=norm))
            np.testing.assert_allclose(C[i, j], ref, atol=1e-10 * np.abs(ref).max() + 1e-14)
    np.testing.assert_allclose(again, C[:1, :2], atol=1e-12 * np.abs(C[:1, :2]).max())
    small = ExactSpectrum(K.copy(), y)
    np.testing.assert_allclose(small.path(filters[:1], lams[:2]), again, atol=1e-12 * np.abs(again).max())
    assert not small._u_formed

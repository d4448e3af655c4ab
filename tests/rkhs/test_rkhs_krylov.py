"""The Krylov (Lanczos) path against the exact spectral path and direct solves."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.rkhs import KernelRanker
from rankcore.rkhs._krylov import (BlockKernelOperator, DenseOperator, KrylovConvergenceWarning, KrylovSpectrum,
                                   LowRankOperator)
from rankcore.rkhs._plan import plan_solver
from rankcore.rkhs._selection import GridEdgeWarning
from rankcore.rkhs._spectral import ExactSpectrum, NystroemSpectrum

FILTERS = ["tikhonov", "iterated", "iterated:5", "cutoff", "landweber", "showalter"]
LAMS = np.logspace(0, -8, 17)  # 8 decades


def resolve(family, spec):
    return rankcore.get_registry().resolve(family, spec)


def problem(m, seed=0, d=3, kernel="rbf:2", levels=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = rng.integers(0, levels, size=m).astype(float)  # few levels: many ties
    return X, y, resolve("kernel", kernel).with_data(X)(X)


def relative_score_error(K, C_ref, C):
    """max over (filter, λ) of ‖K (c − c_ref)‖ / ‖K c_ref‖ (centered training scores)."""
    S_ref, S = C_ref @ K, C @ K
    S_ref -= S_ref.mean(axis=-1, keepdims=True)
    S -= S.mean(axis=-1, keepdims=True)
    # Forming K c in floating point is itself accurate only to ~eps ‖K‖ ‖c‖: with a rank-deficient K and
    # λ = 1e-8, c carries a null-space part 1e8 times b's, which the scores do not see.  Discount that floor.
    floor = 1e-13 * np.linalg.norm(K, 2) * np.linalg.norm(C_ref, axis=-1)
    num = np.maximum(np.linalg.norm(S - S_ref, axis=-1) - floor, 0.0)
    den = np.linalg.norm(S_ref, axis=-1)
    return float(np.max(np.where(den > 0, num / np.where(den > 0, den, 1), num)))


def krylov_path(K, y, filters, lams, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KrylovConvergenceWarning)  # the fallback is part of what is checked
        sp = KrylovSpectrum(DenseOperator(K), y, exact=lambda: ExactSpectrum(K.copy(), y), **kw)
        return sp.path(filters, lams), sp


@pytest.mark.parametrize("kernel, d", [("rbf:2", 3), ("laplacian:3", 4), ("poly:2", 2), ("linear", 2)],
                         ids=["rbf", "laplacian", "poly-rank-deficient", "linear-rank-2"])
@pytest.mark.parametrize("seed", [0, 1])
def test_krylov_path_matches_exact_every_filter(kernel, d, seed):
    X, y, K = problem(120, seed=seed, d=d, kernel=kernel)
    filters = [resolve("filter", s) for s in FILTERS]
    ref = ExactSpectrum(K.copy(), y).path(filters, LAMS)
    C, sp = krylov_path(K, y, filters, LAMS)
    assert C.shape == ref.shape
    assert relative_score_error(K, ref, C) <= 1e-6
    np.testing.assert_allclose(C.sum(axis=-1), 0.0, atol=1e-9 * max(1.0, np.abs(C).max()))
    if kernel == "linear":  # rank 2: the Krylov space (range part + null part of b) is invariant after 3 steps
        assert sp.n_iter <= 4 and not sp.unconverged_


def test_krylov_tikhonov_solves_the_ranking_system():
    # (D K / m² + λ I) c = D y / m², D = m I − 11ᵀ: the scaling of A = P K P / m, b = P y / m
    X, y, K = problem(90, seed=3)
    m = y.shape[0]
    D = m * np.eye(m) - 1.0
    lams = np.array([1e-1, 1e-3, 1e-5])
    C, _ = krylov_path(K, y, [resolve("filter", "tikhonov")], lams, tol=1e-10)
    for lam, c in zip(lams, C[0]):
        direct = np.linalg.solve(D @ K / m**2 + lam * np.eye(m), D @ y / m**2)
        assert np.linalg.norm(c - direct) <= 1e-8 * np.linalg.norm(direct)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(3, 60), seed=st.integers(0, 2**16), log_lam=st.floats(-8, 0), levels=st.integers(2, 6))
def test_krylov_tikhonov_residual_bound_holds(m, seed, log_lam, levels):
    X, y, K = problem(m, seed=seed, levels=levels)
    if np.unique(y).shape[0] < 2:
        return
    lam = 10.0 ** log_lam
    tol = 1e-7
    C, sp = krylov_path(K, y, [resolve("filter", "tikhonov")], np.array([lam]), tol=tol)
    ref = ExactSpectrum(K.copy(), y).path([resolve("filter", "tikhonov")], np.array([lam]))
    # the certified bound (rounding aside): relative coefficient error <= tol
    assert np.linalg.norm(C - ref) <= 10 * tol * np.linalg.norm(ref) + 1e-13 * np.abs(ref).max()
    assert sp.n_iter <= m - 1


def test_krylov_warns_and_falls_back_to_exact():
    X, y, K = problem(150, seed=4)
    filters = [resolve("filter", "tikhonov"), resolve("filter", "cutoff")]
    lams = np.array([1e-1, 1e-7])
    ref = ExactSpectrum(K.copy(), y).path(filters, lams)
    sp = KrylovSpectrum(DenseOperator(K), y, max_iter=5, exact=lambda: ExactSpectrum(K.copy(), y))
    with pytest.warns(KrylovConvergenceWarning, match=r"5 Lanczos steps .*exact solver"):
        C = sp.path(filters, lams)
    assert ("tikhonov", 1e-7) in sp.unconverged_ and sp.n_iter == 5
    assert relative_score_error(K, ref, C) <= 1e-6  # the unconverged ones came from the exact route
    # without an exact route the warning says the values were kept
    sp = KrylovSpectrum(DenseOperator(K), y, max_iter=5)
    with pytest.warns(KrylovConvergenceWarning, match="kept as they are"):
        sp.path(filters, lams)


def test_krylov_extends_its_basis_for_smaller_lambdas():
    X, y, K = problem(150, seed=5)
    tik = [resolve("filter", "tikhonov")]
    sp = KrylovSpectrum(DenseOperator(K), y)
    sp.path(tik, np.array([1e-1]))
    first = sp.n_iter
    C = sp.path(tik, np.array([1e-6]))
    assert sp.n_iter > first
    assert relative_score_error(K, ExactSpectrum(K.copy(), y).path(tik, np.array([1e-6])), C) <= 1e-6


def test_krylov_constant_target_gives_zero():
    X, y, K = problem(20)
    C = KrylovSpectrum(DenseOperator(K), np.full(20, 3.0)).path([resolve("filter", "showalter")], LAMS)
    assert np.all(C == 0.0)


@pytest.mark.parametrize("spec", ["rbf", "rbf:0.01", "laplacian", "poly:2", "linear"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_matrix_free_operator_equals_dense_product(spec, n_threads):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(203, 4)) + 50.0  # an offset: the rbf path must center as the kernel does
    X[7] = X[8]  # a duplicate row: distance 0
    kernel = resolve("kernel", spec).with_data(X)
    v = rng.normal(size=203)
    ref = kernel(X) @ v
    for block in (1, 16, 64, 500):
        got = BlockKernelOperator(kernel, X, block=block, n_threads=n_threads)(v)
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())


def test_rbf_rows_dot_validates_shapes():
    from rankcore.rkhs import _matfree

    with pytest.raises(ValueError, match="shapes"):
        _matfree.rbf_rows_dot(np.zeros((2, 3)), np.zeros(2), np.zeros(3), 1.0, np.zeros(4), np.zeros(2), 1)


def test_krylov_on_nystroem_features_matches_nystroem_spectrum():
    X, y, K = problem(200, seed=7)
    idx = np.sort(np.random.default_rng(0).choice(200, 40, replace=False))
    K_mr = K[:, idx].copy()
    ref_sp = NystroemSpectrum(K_mr, K_mr[idx], y)
    s, V = np.linalg.eigh(K_mr[idx])
    keep = s > s.max() * 40 * np.finfo(float).eps
    root = V[:, keep] / np.sqrt(s[keep])  # K_rr^{-1/2}
    F = K_mr @ root  # K ≈ F Fᵀ
    filters = [resolve("filter", s) for s in FILTERS]
    lams = np.logspace(0, -6, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KrylovConvergenceWarning)
        sp = KrylovSpectrum(LowRankOperator(F), y, post=F @ root.T)  # coefficients over the landmarks
        C = sp.path(filters, lams)
    ref = ref_sp.path(filters, lams)
    K_xl = K_mr  # scores of the training rows through the landmarks
    assert relative_score_error(K_xl.T, ref, C) <= 1e-6
    assert sp.n_iter <= keep.sum() + 2  # rank of F, plus b's component off range(F), plus one rounding step


# ----------------------------------------------------------------------
# The estimator on the Krylov route
# ----------------------------------------------------------------------
def graded(m, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = np.floor(2 * X[:, 0] + X[:, 1] ** 2 + 0.5 * rng.normal(size=m))
    return X, y


@pytest.mark.parametrize("lam", ["holdout", "path", "apriori"])
def test_estimator_krylov_equals_exact(lam):
    X, y = graded(240, seed=8)
    filters = ["tikhonov", "iterated:2", "landweber", "showalter", "cutoff"] if lam != "apriori" else "showalter"
    params = dict(filter=filters, random_state=0, lam=np.logspace(0, -7, 15) if lam == "path" else lam)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        warnings.simplefilter("ignore", UserWarning)
        exact = KernelRanker(solver="exact", **params).fit(X, y)
        krylov = KernelRanker(solver="krylov", **params).fit(X, y)
    assert krylov.solver_ == "krylov" and krylov.n_iter_ >= 1 and exact.n_iter_ is None
    if lam != "path":
        assert krylov.lam_ == exact.lam_ and krylov.filter_.spec == exact.filter_.spec
    if lam == "holdout":
        np.testing.assert_allclose(krylov.holdout_losses_, exact.holdout_losses_, atol=1e-9)
    se, sk = exact.decision_function(X), krylov.decision_function(X)
    se, sk = se - se.mean(axis=0), sk - sk.mean(axis=0)
    assert np.linalg.norm(sk - se) <= 1e-6 * np.linalg.norm(se)


def test_cutoff_values_handed_to_the_exact_route_by_design_warn_nothing():
    # they said "did not meet the error bound ... raise max_iter" (more steps change nothing), and an overflow in
    # the ambiguity ratio reached the user as NumPy's RuntimeWarning
    from rankcore.rkhs import default_grid

    rng = np.random.default_rng(500)
    X = rng.normal(size=(500, 8))
    y = np.floor(2 * X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=500))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", GridEdgeWarning)
        krylov = KernelRanker(solver="krylov", filter="cutoff", lam=default_grid(), random_state=0).fit(X, y)
    exact = KernelRanker(solver="exact", filter="cutoff", lam=default_grid(), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        exact.fit(X, y)
    se, sk = exact.decision_function(X), krylov.decision_function(X)
    assert np.linalg.norm((sk - sk.mean()) - (se - se.mean())) <= 1e-6 * np.linalg.norm(se - se.mean())


def test_estimator_matrix_free_route():
    X, y = graded(150, seed=9)
    lams = np.array([1e-1, 1e-3])
    dense = KernelRanker(solver="krylov", lam=lams).fit(X, y)
    free = KernelRanker(solver="krylov", lam=lams, memory_budget=8 * 150 * 150 - 1, random_state=0).fit(X, y)
    # matrix-free is block Lanczos (another Krylov space): equal within the certified tol (1e-8)
    assert np.linalg.norm(free.dual_coef_ - dense.dual_coef_) <= 1e-7 * np.linalg.norm(dense.dual_coef_)
    assert free.n_iter_ < dense.n_iter_  # block steps


def test_estimator_matrix_free_block_route_is_seeded_and_thread_independent(exact_threads, monkeypatch):
    exact_threads(2)
    # BLAS on one thread: rankcore's kernels still run two, and OpenBLAS's own two threads on a busy machine
    # (its waits ignore OMP_WAIT_POLICY) took this fit from seconds to minutes
    from rankcore import _blas
    from rankcore.rkhs import _estimator

    monkeypatch.setattr(_estimator, "_blas_limit", lambda threads: _blas.blas_limit(1))
    X, y = graded(1100, seed=10)  # above PARALLEL_MIN_ROWS: n_jobs=2 really runs 2 threads
    lams = np.array([1e-1, 1e-3, 1e-5])
    kw = dict(solver="krylov", lam=lams, filter=["tikhonov", "showalter"], memory_budget=8 * 1100 * 1100 - 1)
    a = KernelRanker(random_state=3, n_jobs=1, **kw).fit(X, y)
    b = KernelRanker(random_state=3, n_jobs=1, **kw).fit(X, y)
    c = KernelRanker(random_state=3, n_jobs=2, **kw).fit(X, y)
    d = KernelRanker(random_state=4, n_jobs=1, **kw).fit(X, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    ref = np.linalg.norm(a.dual_coef_)
    assert np.linalg.norm(c.dual_coef_ - a.dual_coef_) <= 1e-9 * ref  # threads: rounding only
    assert 0 < np.linalg.norm(d.dual_coef_ - a.dual_coef_) <= 1e-7 * ref  # another seed: another basis, same path
    exact = KernelRanker(solver="exact", lam=lams, filter=["tikhonov", "showalter"]).fit(X, y)
    assert np.linalg.norm(a.dual_coef_ - exact.dual_coef_) <= 1e-7 * np.linalg.norm(exact.dual_coef_)


def test_estimator_krylov_persists():
    from rankcore.persistence import load_model, save_model  # noqa: F401  (format check below)

    X, y = graded(80, seed=10)
    model = KernelRanker(solver="krylov", lam=1e-3).fit(X, y)
    state = model._get_fitted_state()
    other = KernelRanker()
    other._set_fitted_state(state)
    np.testing.assert_array_equal(other.decision_function(X), model.decision_function(X))
    assert other.solver_ == "krylov"


@pytest.mark.parametrize("params, name", [
    ({"tol": 0}, "tol"), ({"tol": 1.5}, "tol"), ({"tol": "x"}, "tol"),
    ({"max_iter": 0}, "max_iter"), ({"max_iter": 2.5}, "max_iter"), ({"max_iter": True}, "max_iter"),
    ({"memory_budget": 0}, "memory_budget"), ({"memory_budget": "1GB"}, "memory_budget"),
    ({"solver": "lanczos"}, "solver"),
])
def test_estimator_krylov_parameters_validated(params, name):
    X, y = graded(30, seed=11)
    with pytest.raises(ValueError, match=name):
        KernelRanker(**params).fit(X, y)


def test_plan_solver_by_time_and_memory():
    budget = 8 << 30
    assert plan_solver(500, 1000, budget, 46340)[0] == "exact"
    assert plan_solver(2000, 1000, budget, 46340)[0] == "krylov"
    assert plan_solver(7828, 1000, budget, 46340)[0] == "nystroem"
    assert plan_solver(14000, 1000, budget, 46340)[0] == "nystroem"
    # no memory for two m x m arrays: not exact even when small
    assert plan_solver(500, 1000, 16 * 500 * 500 - 1, 46340)[0] == "krylov"
    # with the cut-off filter the Krylov route pays for the exact one too: never chosen over it
    assert plan_solver(2000, 1000, budget, 46340, cutoff=True)[0] == "nystroem"
    assert plan_solver(1000, 1000, budget, 46340, cutoff=True)[0] == "exact"
    name, est = plan_solver(3000, 1000, budget, 46340)
    assert (set(est) == {"exact", "krylov", "nystroem"}
            and all(v["seconds"] > 0 and v["bytes"] > 0 for v in est.values()))


# ----------------------------------------------------------------------
# Hold-out choice at the edge of its grid
# ----------------------------------------------------------------------
def test_holdout_at_grid_edge_warns_and_extends():
    rng = np.random.default_rng(12)
    X = rng.uniform(-1, 1, size=(200, 1))
    y = np.sin(3 * X[:, 0])  # noise-free: less regularization is better
    grid = np.array([1.0, 0.5, 0.25])
    with pytest.warns(GridEdgeWarning, match="smallest lambda"):
        model = KernelRanker(lam="holdout", lam_grid=grid, solver="exact", random_state=0).fit(X, y)
    assert model.lam_grid_.shape[0] > grid.shape[0] and model.lam_ < 0.25
    assert np.all(np.diff(model.lam_grid_) < 0)  # still descending
    assert model.holdout_losses_.shape == (1, model.lam_grid_.shape[0])


def test_holdout_inside_grid_does_not_warn():
    rng = np.random.default_rng(13)
    X = rng.uniform(-1, 1, size=(200, 1))
    y = np.sin(3 * X[:, 0]) + rng.normal(scale=0.5, size=200)
    grid = np.logspace(1, -9, 41)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GridEdgeWarning)
        model = KernelRanker(lam="holdout", lam_grid=grid, solver="exact", random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.lam_grid_, grid)


def test_estimator_krylov_bipartite_holdout_equals_exact():
    X, y = graded(260, seed=14)
    yb = (y >= np.median(y)).astype(int)
    params = dict(lam="holdout", metric="auc", filter=["tikhonov", "showalter"], random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        exact = KernelRanker(solver="exact", **params).fit(X, yb)
        krylov = KernelRanker(solver="krylov", **params).fit(X, yb)
    assert (krylov.lam_, krylov.filter_.spec) == (exact.lam_, exact.filter_.spec)
    np.testing.assert_allclose(krylov.holdout_losses_, exact.holdout_losses_, atol=1e-12)


def test_estimator_krylov_does_not_depend_on_threads(exact_threads):
    exact_threads(2)
    X, y = graded(1100, seed=15)  # above PARALLEL_MIN_ROWS: n_jobs takes effect
    lams = np.array([1e-2, 1e-4])
    one = KernelRanker(solver="krylov", lam=lams, n_jobs=1).fit(X, y)
    two = KernelRanker(solver="krylov", lam=lams, n_jobs=2).fit(X, y)
    assert one.n_iter_ == two.n_iter_
    np.testing.assert_allclose(two.dual_coef_, one.dual_coef_, rtol=1e-9, atol=1e-12 * np.abs(one.dual_coef_).max())


# ----------------------------------------------------------------------
# The cut-off fallback: only the eigenpairs above the smallest λ
# ----------------------------------------------------------------------
@pytest.mark.parametrize("kernel, d", [("rbf:2", 3), ("poly:2", 2)], ids=["rbf", "poly-rank-deficient"])
def test_exact_spectrum_with_min_eigenvalue_gives_the_cutoff_path(kernel, d):
    X, y, K = problem(130, seed=16, d=d, kernel=kernel)
    cut = [resolve("filter", "cutoff")]
    full = ExactSpectrum(K.copy(), y)
    positive = full.eigenvalues[full.eigenvalues > 1e-6 * full.norm]  # above rounding noise
    top = positive[-min(20, positive.size):]
    between = np.sqrt(top[:-1] * top[1:])  # λ between two eigenvalues: the step right next to them
    floor = float(between[0])
    lams = np.concatenate([between, np.geomspace(floor, between[-1], 7)[1:-1]])
    part = ExactSpectrum(K.copy(), y, min_eigenvalue=floor)
    assert part.eigenvalues.shape[0] < full.eigenvalues.shape[0]
    assert part.eigenvalues.shape[0] >= (full.eigenvalues >= floor).sum()
    assert (part.lam_floor == pytest.approx(full.lam_floor, rel=1e-12)
            and part.norm == pytest.approx(full.norm, rel=1e-12))
    ref = full.path(cut, lams)
    np.testing.assert_allclose(part.path(cut, lams), ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    # more than a quarter of the eigenpairs above the bound: all of them are computed
    low = ExactSpectrum(K.copy(), y, min_eigenvalue=float(full.eigenvalues[-60]))
    assert low.eigenvalues.shape[0] == full.eigenvalues.shape[0]


def test_krylov_cutoff_fallback_uses_the_partial_route_and_switches_when_needed():
    X, y, K = problem(200, seed=17)
    calls = []

    def exact(min_eigenvalue=None):
        calls.append(min_eigenvalue)
        return ExactSpectrum(K.copy(), y, min_eigenvalue=min_eigenvalue)

    filters = [resolve("filter", s) for s in ("tikhonov", "showalter", "cutoff")]
    lams = np.logspace(0, -7, 15)
    ref = ExactSpectrum(K.copy(), y).path(filters, lams)
    sp = KrylovSpectrum(DenseOperator(K), y, exact=exact)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KrylovConvergenceWarning)
        C = sp.path(filters, lams)
    assert sp.unconverged_ and all(spec == "cutoff" for spec, _ in sp.unconverged_)
    assert calls == [min(lam for _, lam in sp.unconverged_)]  # one partial decomposition
    assert relative_score_error(K, ref, C) <= 1e-6
    # a later request the partial spectrum cannot serve (a smooth filter that misses its bound) builds the full one
    sp.max_iter = sp.n_iter
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KrylovConvergenceWarning)
        C2 = sp.path([resolve("filter", "landweber")], np.array([1e-12]))
    assert calls[-1] is None
    ref2 = ExactSpectrum(K.copy(), y).path([resolve("filter", "landweber")], np.array([1e-12]))
    assert relative_score_error(K, ref2, C2) <= 1e-6


def test_sturm_count_matches_eigenvalues():
    from rankcore.rkhs._spectral import _count_below

    rng = np.random.default_rng(18)
    for n in (1, 2, 5, 60):
        for trial in range(12):
            d, e = rng.normal(size=n), rng.normal(size=n - 1)
            if trial % 3 == 0:
                e[: n // 2] = 0.0  # a split matrix: zero off-diagonals
            if trial % 4 == 0:
                d[:] = 1.0  # repeated diagonal
            ev = np.linalg.eigvalsh(np.diag(d) + np.diag(e, 1) + np.diag(e, -1))
            for sigma in np.concatenate([rng.normal(size=4), [ev.min() - 1, ev.max() + 1]]):
                if np.min(np.abs(ev - sigma)) > 1e-9:
                    assert _count_below(d, e, float(sigma)) == int((ev < sigma).sum())


@settings(max_examples=25, deadline=None)
@given(m=st.integers(4, 90), seed=st.integers(0, 2**16), log_lam=st.floats(-8, 0),
       spec=st.sampled_from(["iterated:2", "iterated:5", "landweber", "showalter", "cutoff"]),
       kernel=st.sampled_from(["rbf:2", "rbf:0.2", "laplacian:3", "poly:2"]))
def test_krylov_certified_filters_match_exact(m, seed, log_lam, spec, kernel):
    # the difference estimate, its plateau guard (tol^(1/4)) and the check schedule on random problems
    X, y, K = problem(m, seed=seed, kernel=kernel, levels=3)
    flt = [resolve("filter", spec)]
    lams = np.array([10.0 ** log_lam, 10.0 ** (log_lam / 2)])
    ref = ExactSpectrum(K.copy(), y).path(flt, lams)
    C, sp = krylov_path(K, y, flt, lams)
    assert relative_score_error(K, ref, C) <= 1e-6


@pytest.mark.parametrize("layout", ["C", "F", "readonly", "float32"])
def test_dense_operator_symmetric_product_equals_numpy(layout):
    X, y, K = problem(97, seed=19)
    v = np.random.default_rng(19).normal(size=97)
    ref = K @ v
    M = {"C": K.copy(), "F": np.asfortranarray(K), "readonly": K.copy(), "float32": K.astype(np.float32)}[layout]
    if layout == "readonly":
        M.flags.writeable = False
    op = DenseOperator(M)
    assert (op._symv is not None) == (layout in ("C", "readonly"))  # the one-triangle product where it applies
    rtol = 1e-6 if layout == "float32" else 1e-12
    np.testing.assert_allclose(op(v), ref, rtol=rtol, atol=rtol * np.abs(ref).max())


# ----------------------------------------------------------------------
# Block Lanczos (BlockKrylovSpectrum)
# ----------------------------------------------------------------------
def block_path(K, y, filters, lams, block_size=4, random_state=0, **kw):
    from rankcore.rkhs._block_krylov import BlockKrylovSpectrum

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KrylovConvergenceWarning)
        sp = BlockKrylovSpectrum(DenseOperator(K), y, block_size=block_size, random_state=random_state,
                                 exact=lambda: ExactSpectrum(K.copy(), y), **kw)
        return sp.path(filters, lams), sp


@pytest.mark.parametrize("kernel, d", [("rbf:2", 3), ("laplacian:3", 4), ("poly:2", 2), ("linear", 2)],
                         ids=["rbf", "laplacian", "poly-rank-deficient", "linear-rank-2"])
@pytest.mark.parametrize("block_size", [2, 5, 8])
def test_block_krylov_path_matches_exact_every_filter(kernel, d, block_size):
    X, y, K = problem(120, seed=block_size, d=d, kernel=kernel)  # few label levels: ties in y
    filters = [resolve("filter", s) for s in FILTERS]
    ref = ExactSpectrum(K.copy(), y).path(filters, LAMS)  # λ over 8 decades
    C, sp = block_path(K, y, filters, LAMS, block_size=block_size)
    assert C.shape == ref.shape
    assert relative_score_error(K, ref, C) <= 1e-6
    np.testing.assert_allclose(C.sum(axis=-1), 0.0, atol=1e-9 * max(1.0, np.abs(C).max()))
    assert sp._dim <= 119  # the basis stays in range(P)
    if kernel == "linear":  # rank 2: the block space deflates to the invariant range(A) + b at once
        assert sp.n_iter <= 3 and sp._invariant and not sp.unconverged_


def test_block_krylov_basis_is_orthonormal_and_satisfies_the_block_recurrence():
    X, y, K = problem(150, seed=11)
    from rankcore.rkhs._block_krylov import BlockKrylovSpectrum

    sp = BlockKrylovSpectrum(DenseOperator(K), y, block_size=6, random_state=3)
    for _ in range(8):
        sp._step()
    n = sp._dim
    V = sp._V[:n]
    np.testing.assert_allclose(V @ V.T, np.eye(n), atol=1e-12)
    np.testing.assert_allclose(V.sum(axis=1), 0.0, atol=1e-12)
    m = y.shape[0]
    P = np.eye(m) - 1.0 / m
    A = P @ K @ P / m
    T = sp._block_T()
    np.testing.assert_allclose(T, T.T, atol=0)
    # A V_nᵀ = V_nᵀ T + V_next B E_kᵀ, the residual rows the bounds use
    Vnext = sp._V[n : sp._n]
    E = np.zeros((n, n - sp._starts[-2]))
    E[sp._starts[-2]:] = np.eye(n - sp._starts[-2])
    lhs = A @ V.T
    rhs = V.T @ T + Vnext.T @ sp._B[-1] @ E.T
    np.testing.assert_allclose(lhs, rhs, atol=1e-12 * np.abs(lhs).max())
    np.testing.assert_allclose(V[0], (y - y.mean()) / np.linalg.norm(y - y.mean()), atol=1e-14)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(3, 60), seed=st.integers(0, 2**16), log_lam=st.floats(-8, 0), levels=st.integers(2, 6),
       block_size=st.integers(1, 9))
def test_block_krylov_tikhonov_residual_bound_holds(m, seed, log_lam, levels, block_size):
    X, y, K = problem(m, seed=seed, levels=levels)
    if np.unique(y).shape[0] < 2:
        return
    lam = 10.0 ** log_lam
    tol = 1e-7
    tik = [resolve("filter", "tikhonov")]
    C, sp = block_path(K, y, tik, np.array([lam]), block_size=block_size, random_state=seed, tol=tol)
    ref = ExactSpectrum(K.copy(), y).path(tik, np.array([lam]))
    assert np.linalg.norm(C - ref) <= 10 * tol * np.linalg.norm(ref) + 1e-13 * np.abs(ref).max()
    assert sp._dim <= m - 1


def test_block_krylov_is_deterministic_for_a_seed_and_close_across_seeds():
    X, y, K = problem(200, seed=12)
    filters = [resolve("filter", s) for s in FILTERS]
    C1, sp1 = block_path(K, y, filters, LAMS, block_size=4, random_state=7)
    C2, _ = block_path(K, y, filters, LAMS, block_size=4, random_state=7)
    C3, sp3 = block_path(K, y, filters, LAMS, block_size=4, random_state=8)
    np.testing.assert_array_equal(C1, C2)
    assert not np.array_equal(sp1._V[1], sp3._V[1])  # the seed does change the random start vectors ...
    assert relative_score_error(K, C1, C3) <= 1e-6  # ... but not the certified path
    # a Generator is accepted as well
    C4, _ = block_path(K, y, filters, LAMS, block_size=4, random_state=np.random.default_rng(7))
    assert relative_score_error(K, C1, C4) <= 1e-6


def test_block_krylov_needs_fewer_steps_than_single_vector():
    X, y, K = problem(400, seed=13, d=5, kernel="rbf:5")
    filters = [resolve("filter", s) for s in ("tikhonov", "showalter")]
    lams = np.array([1e-2, 1e-4, 1e-6])
    _, single = krylov_path(K, y, filters, lams)
    _, block = block_path(K, y, filters, lams, block_size=8)
    assert not single.unconverged_ and not block.unconverged_
    assert block.n_iter < single.n_iter  # the block space contains the single one, step for step


def test_block_krylov_warns_and_falls_back_to_exact():
    from rankcore.rkhs._block_krylov import BlockKrylovSpectrum

    X, y, K = problem(150, seed=4)
    filters = [resolve("filter", "tikhonov"), resolve("filter", "cutoff")]
    lams = np.array([1e-1, 1e-7])
    ref = ExactSpectrum(K.copy(), y).path(filters, lams)
    sp = BlockKrylovSpectrum(DenseOperator(K), y, block_size=3, random_state=0, max_iter=3,
                             exact=lambda: ExactSpectrum(K.copy(), y))
    with pytest.warns(KrylovConvergenceWarning, match=r"3 Lanczos steps .*exact solver"):
        C = sp.path(filters, lams)
    assert ("tikhonov", 1e-7) in sp.unconverged_ and sp.n_iter == 3
    assert relative_score_error(K, ref, C) <= 1e-6


def test_block_krylov_small_and_constant_problems():
    from rankcore.rkhs._block_krylov import BlockKrylovSpectrum

    X, y, K = problem(7, seed=2)
    y[0] += 1.0
    filters = [resolve("filter", s) for s in FILTERS]
    C, sp = block_path(K, y, filters, LAMS, block_size=16)  # more vectors than range(P) has dimensions
    assert sp._invariant and sp._dim <= 6 and not sp.unconverged_
    assert relative_score_error(K, ExactSpectrum(K.copy(), y).path(filters, LAMS), C) <= 1e-6
    C = BlockKrylovSpectrum(DenseOperator(K), np.full(7, 2.0), random_state=0).path(filters, LAMS)
    assert np.all(C == 0.0)


@pytest.mark.parametrize("params, error, name", [
    ({"block_size": 0}, ValueError, "block_size"), ({"block_size": 2.5}, ValueError, "block_size"),
    ({"block_size": True}, ValueError, "block_size"), ({"tol": 2.0}, ValueError, "tol"),
    ({"max_iter": 0}, ValueError, "max_iter"),
])
def test_block_krylov_parameters_validated(params, error, name):
    from rankcore.rkhs._block_krylov import BlockKrylovSpectrum

    X, y, K = problem(20)
    with pytest.raises(error, match=name):
        BlockKrylovSpectrum(DenseOperator(K), y, **params)


def test_block_krylov_needs_a_block_operator():
    from rankcore.rkhs._block_krylov import BlockKrylovSpectrum

    X, y, K = problem(20)
    op = DenseOperator(K)
    with pytest.raises(TypeError, match="operator"):
        BlockKrylovSpectrum(lambda v: op(v), y)


@pytest.mark.parametrize("spec", ["rbf", "rbf:0.01", "laplacian", "poly:2"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_operators_matmat_equals_dense_product(spec, n_threads):
    rng = np.random.default_rng(14)
    X = rng.normal(size=(157, 4)) + 30.0
    X[3] = X[4]  # duplicate rows: distance 0
    kernel = resolve("kernel", spec).with_data(X)
    K = kernel(X)
    V = rng.normal(size=(5, 157))
    ref = V @ K
    scale = np.abs(ref).max()
    np.testing.assert_allclose(BlockKernelOperator(kernel, X, block=40, n_threads=n_threads).matmat(V), ref,
                               atol=1e-11 * scale)
    np.testing.assert_allclose(DenseOperator(K).matmat(V), ref, atol=1e-12 * scale)
    F = rng.normal(size=(157, 6))
    np.testing.assert_allclose(LowRankOperator(F).matmat(V), V @ F @ F.T, atol=1e-12 * np.abs(V @ F @ F.T).max())


@pytest.mark.parametrize("n_threads", [1, 2])
def test_rbf_rows_exp_matches_numpy(n_threads):
    from rankcore.rkhs import _matfree

    rng = np.random.default_rng(15)
    Xc = rng.normal(size=(60, 3))
    Xc[5] = Xc[6]  # a duplicate: d² rounds to about 0 and may go negative (clamped to 0 -> exp(0) = 1)
    sq = np.einsum("ij,ij->i", Xc, Xc)
    G = Xc[10:30] @ Xc.T
    d2 = np.maximum(sq[10:30, None] + sq[None, :] - 2 * G, 0.0)
    ref = np.exp(-d2 / 1.7)
    out = np.ascontiguousarray(G.copy())
    _matfree.rbf_rows_exp(out, sq[10:30], sq, 1.0 / 1.7, n_threads)
    np.testing.assert_allclose(out, ref, rtol=1e-13, atol=0)
    assert np.all(out <= 1.0)
    with pytest.raises(ValueError, match="rbf_rows_exp"):
        _matfree.rbf_rows_exp(out, sq[:3], sq, 1.0, 1)


def test_block_krylov_deflation_keeps_the_bounds():
    # K of rank 3 and a block of 6: the second block deflates; the dropped parts join the residual rows
    from rankcore.rkhs._block_krylov import BlockKrylovSpectrum

    rng = np.random.default_rng(16)
    F = rng.normal(size=(80, 3))
    K = F @ F.T
    y = rng.integers(0, 3, size=80).astype(float)
    sp = BlockKrylovSpectrum(DenseOperator(K), y, block_size=6, random_state=0)
    sp._step()
    assert sp._n - sp._starts[-1] < 6 and sp._lost  # narrower than the block; the dropped part is kept
    filters = [resolve("filter", s) for s in FILTERS]
    C = sp.path(filters, LAMS)
    assert not sp.unconverged_
    assert relative_score_error(K, ExactSpectrum(K.copy(), y).path(filters, LAMS), C) <= 1e-6

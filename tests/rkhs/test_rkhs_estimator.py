"""KernelRanker: the correctness statements of the spectral filters, λ choice, shapes, errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore import KernelRanker
from rankcore.rkhs._selection import apriori_choice, best_index, default_grid

from _rkhs_reference import FORMULAS, dense_coefficients, direct_tikhonov, misrank_reference, mp_risk

FILTERS = ["tikhonov", "iterated", "iterated:3", "cutoff", "landweber", "showalter"]


def graded_data(m=80, seed=0, d=2, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(m, d))
    y = np.floor(np.sin(X[:, 0]) * 3 + X[:, 1] + noise * rng.normal(size=m))
    return X, y


def gram(model, X):
    return model.kernel_(X, model.support_)


# ----------------------------------------------------------------------
# Item 4: correctness
# ----------------------------------------------------------------------
@pytest.mark.parametrize("lam", [1.0, 1e-2, 1e-4, 1e-7])
def test_tikhonov_equals_direct_solution(lam):
    X, y = graded_data()
    model = KernelRanker(kernel="rbf", gamma=1.5, lam=lam).fit(X, y)
    K = model.kernel_(X)
    c = direct_tikhonov(K, y, lam)
    # (D K/m² + λI) c = D y/m² has a unique solution; ours is it (to the conditioning of the system)
    np.testing.assert_allclose(model.dual_coef_, c, atol=1e-9 * np.abs(c).max())


@pytest.mark.parametrize("lam", [1e-1, 1e-3])
def test_tikhonov_minimizes_the_regularized_mp_risk(lam):
    X, y = graded_data(m=40, seed=1)
    model = KernelRanker(kernel="laplacian", gamma=2.0, lam=lam).fit(X, y)
    K = model.kernel_(X)
    c = model.dual_coef_
    risk = mp_risk(K, y, c, lam)
    # Gradient of the risk in c vanishes: (4/m²) K (D K c − D y) + 4λ K c = 0.
    m = y.size
    D = m * np.eye(m) - 1
    grad = 4 / m**2 * K @ (D @ (K @ c) - D @ y) + 4 * lam * K @ c
    assert np.linalg.norm(grad) < 1e-9 * (np.linalg.norm(4 / m**2 * K @ D @ y) + 1e-300)
    # and random perturbations only increase it
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert mp_risk(K, y, c + 1e-3 * rng.normal(size=m), lam) > risk


@pytest.mark.parametrize("spec", FILTERS)
def test_each_filter_matches_its_formula_through_a_dense_reference(spec):
    X, y = graded_data(m=70, seed=2)
    lams = np.array([0.3, 1e-2, 1e-4])
    model = KernelRanker(kernel="rbf", gamma=2.0, filter=spec, lam=lams).fit(X, y)
    K = model.kernel_(X)
    formula = FORMULAS[spec]
    for j, lam in enumerate(lams):
        def g(t, norm):
            out = np.empty_like(t)
            small = t < 1e-3 * lam  # the printed formulas cancel there; use their limits
            with np.errstate(divide="ignore", invalid="ignore"):
                out[~small] = formula(t[~small], lam, norm)
            out[small] = rankcore.get_registry().resolve("filter", spec)(t[small], lam, norm=norm)
            return out
        ref = dense_coefficients(K, y, g)
        np.testing.assert_allclose(model.dual_coef_[j], ref, atol=1e-9 * np.abs(ref).max())


def test_iterated_two_is_eq13_and_two_tikhonov_steps():
    X, y = graded_data(m=60, seed=3)
    lam = 5e-3
    model = KernelRanker(kernel="rbf", gamma=1.0, filter="iterated:2", lam=lam).fit(X, y)
    K = model.kernel_(X)
    ref = dense_coefficients(K, y, lambda t, n: (t + 2 * lam) / (t + lam) ** 2)  # the paper's printed form
    np.testing.assert_allclose(model.dual_coef_, ref, atol=1e-10 * np.abs(ref).max())
    # Iterated Lavrentiev: c1 = (A + λ)^-1 b, c2 = c1 + (A + λ)^-1 (b − A c1)
    m = y.size
    P = np.eye(m) - 1 / m
    A, b = P @ K @ P / m, P @ y / m
    c1 = np.linalg.solve(A + lam * np.eye(m), b)
    c2 = c1 + np.linalg.solve(A + lam * np.eye(m), b - A @ c1)
    np.testing.assert_allclose(K @ model.dual_coef_, K @ c2, atol=1e-9 * np.abs(K @ c2).max())


@pytest.mark.parametrize("spec", FILTERS)
def test_adding_a_constant_to_y_changes_nothing(spec):
    X, y = graded_data(seed=4)
    a = KernelRanker(filter=spec, lam=[1e-2, 1e-4]).fit(X, y)
    b = KernelRanker(filter=spec, lam=[1e-2, 1e-4]).fit(X, y + 1000.0)
    np.testing.assert_allclose(b.dual_coef_, a.dual_coef_, atol=1e-9 * np.abs(a.dual_coef_).max())
    sa, sb = a.decision_function(X), b.decision_function(X)
    np.testing.assert_allclose(sb, sa, atol=1e-9 * np.abs(sa).max())


def test_holdout_picks_the_lambda_with_the_best_heldout_metric():
    X, y = graded_data(m=60, seed=5, noise=1.0)
    grid = default_grid()[::10]
    model = KernelRanker(kernel="rbf", gamma=1.0, lam="holdout", lam_grid=grid, refit=False, random_state=7).fit(X, y)
    # Recompute with the same split (same seed -> same generator draws), brute force per λ.
    rng = np.random.default_rng(np.random.RandomState(7).randint(2**31 - 1))
    perm = rng.permutation(y.size)
    n_val = y.size // 2
    val, fit = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    K_ff = model.kernel_(X[fit])
    K_vf = model.kernel_(X[val], X[fit])
    losses = np.array([misrank_reference(y[val], K_vf @ direct_tikhonov(K_ff, y[fit], lam)) for lam in grid])
    np.testing.assert_allclose(model.holdout_losses_[0], losses, atol=1e-12)
    best = losses.min()
    expected_lam = grid[np.flatnonzero(losses == best)].max()  # ties: the largest λ
    assert model.lam_ == expected_lam
    np.testing.assert_array_equal(model.support_, X[fit])  # refit=False keeps the fitting-part model


def test_holdout_chooses_among_filters_and_refits():
    X, y = graded_data(m=70, seed=6)
    model = KernelRanker(filter=["tikhonov", "cutoff", "showalter"], lam="holdout", random_state=0).fit(X, y)
    assert model.holdout_losses_.shape == (3, 200)
    fi, li = best_index(model.holdout_losses_, model.lam_grid_)
    assert model.filter_ == rankcore.get_registry().resolve("filter", ["tikhonov", "cutoff", "showalter"][fi])
    assert model.lam_ == model.lam_grid_[li]
    assert model.support_.shape == X.shape and model.dual_coef_.shape == (70,)
    ref = KernelRanker(filter=model.filter_.spec, lam=model.lam_).fit(X, y)
    np.testing.assert_allclose(model.dual_coef_, ref.dual_coef_, atol=1e-12 * np.abs(ref.dual_coef_).max())


def test_holdout_with_any_registered_metric():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(int)
    for metric in ("auc", "misrank", "prec@k:5", "pauc:0.2"):
        model = KernelRanker(lam="holdout", metric=metric, random_state=1).fit(X, y)
        assert np.isfinite(model.holdout_losses_).all()
        assert model.lam_ in model.lam_grid_
    with pytest.raises(ValueError, match="bipartite"):
        KernelRanker(lam="holdout", metric="auc").fit(*graded_data())


def test_best_index_tie_rule():
    losses = np.array([[0.3, 0.1, 0.1, 0.2], [0.1, 0.5, 0.5, 0.5]])
    lams = np.array([1.0, 0.5, 0.25, 0.125])
    assert best_index(losses, lams) == (0, 1)  # first filter, then the largest λ


def test_apriori_recovers_a_power_law():
    alpha, beta = 3.0, 1.4
    X = np.zeros((500, 1))
    y = np.arange(500.0)
    res = apriori_choice(X, y, sizes=[20, 30, 40, 50], choose=lambda Xs, ys: alpha * len(ys) ** (-beta / 2),
                         rng=np.random.default_rng(0))
    assert res.alpha == pytest.approx(alpha) and res.beta == pytest.approx(beta)
    assert res.lam == pytest.approx(alpha * 500 ** (-beta / 2))


@pytest.mark.parametrize("beta, expected", [(30.0, "low"), (-6.0, "high"), (1.4, "inside")])
def test_apriori_clips_the_extrapolation_to_the_grid(beta, expected):
    X, y = np.zeros((500, 1)), np.arange(500.0)
    choose = lambda Xs, ys: 0.01 * (len(ys) / 20) ** (-beta / 2)  # noqa: E731  (λ₊(20) = 0.01)
    bounds = (1e-5, 1.0)
    if expected == "inside":
        res = apriori_choice(X, y, sizes=[20, 30, 40], choose=choose, rng=np.random.default_rng(0), bounds=bounds)
        assert res.lam == res.extrapolated
        return
    with pytest.warns(UserWarning, match=r"lies outside the grid"):
        res = apriori_choice(X, y, sizes=[20, 30, 40], choose=choose, rng=np.random.default_rng(0), bounds=bounds)
    assert res.extrapolated == pytest.approx(0.01 * 25 ** (-beta / 2))
    assert res.lam == (bounds[0] if expected == "low" else bounds[1])


def test_apriori_fit_end_to_end():
    X, y = graded_data(m=300, seed=9)
    model = KernelRanker(lam="apriori", apriori_sizes=(20, 30, 40, 50, 20, 30, 40, 50), random_state=3).fit(X, y)
    ap = model.apriori_
    design = np.column_stack([np.ones(8), -0.5 * np.log(ap["sizes"])])
    coef, *_ = np.linalg.lstsq(design, np.log(ap["lams"]), rcond=None)
    assert ap["alpha"] == pytest.approx(math.exp(coef[0])) and ap["beta"] == pytest.approx(coef[1])
    assert ap["extrapolated"] == pytest.approx(ap["alpha"] * 300 ** (-ap["beta"] / 2))
    grid = model.lam_grid_
    assert model.lam_ == pytest.approx(min(max(ap["extrapolated"], grid.min()), grid.max()))
    assert set(ap["lams"]) <= set(model.lam_grid_)
    assert model.dual_coef_.shape == (300,)


# ----------------------------------------------------------------------
# Targets, paths and shapes
# ----------------------------------------------------------------------
def test_bipartite_labels_of_any_type():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(60, 3))
    y01 = (X[:, 0] > 0).astype(int)
    labels = np.where(y01 == 1, "yes", "no")
    a = KernelRanker().fit(X, y01)
    b = KernelRanker().fit(X, labels)
    assert a.target_type_ == b.target_type_ == "bipartite"
    assert list(b.classes_) == ["no", "yes"]
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X))
    assert b.score(X, labels) == pytest.approx(a.score(X, y01))
    assert KernelRanker(metric="auc").fit(X, labels).score(X, labels) > 0.9


def test_path_shapes():
    X, y = graded_data(m=30)
    one = KernelRanker(lam=0.1).fit(X, y)
    assert one.dual_coef_.shape == (30,) and one.decision_function(X[:4]).shape == (4,)
    lam_path = KernelRanker(lam=[0.1, 0.01, 0.001]).fit(X, y)
    assert lam_path.dual_coef_.shape == (3, 30) and lam_path.decision_function(X[:4]).shape == (4, 3)
    assert lam_path.lam_ is None and lam_path.filter_ is not None
    both = KernelRanker(filter=["tikhonov", "cutoff"], lam=[0.1, 0.01, 0.001]).fit(X, y)
    assert both.dual_coef_.shape == (2, 3, 30) and both.decision_function(X[:4]).shape == (4, 2, 3)
    assert both.filter_ is None
    filt = KernelRanker(filter=["tikhonov", "cutoff"], lam=0.1).fit(X, y)
    assert filt.dual_coef_.shape == (2, 30)
    # each path entry equals its own single fit
    for i, f in enumerate(["tikhonov", "cutoff"]):
        for j, lam in enumerate([0.1, 0.01, 0.001]):
            single = KernelRanker(filter=f, lam=lam).fit(X, y)
            np.testing.assert_allclose(both.dual_coef_[i, j], single.dual_coef_,
                                       atol=1e-12 * np.abs(single.dual_coef_).max())
    with pytest.raises(ValueError, match="path"):
        lam_path.score(X, y)


def test_kernel_parameters_and_callable():
    X, y = graded_data(m=40)
    m1 = KernelRanker(kernel="rbf", gamma=3.0).fit(X, y)
    m2 = KernelRanker(kernel="rbf:3").fit(X, y)
    m3 = KernelRanker(kernel=lambda A, B: np.exp(-((A[:, None] - B[None]) ** 2).sum(-1) / 3.0)).fit(X, y)
    assert m1.kernel_.spec == m2.kernel_.spec == "rbf:3"
    np.testing.assert_allclose(m3.decision_function(X), m1.decision_function(X), rtol=1e-10, atol=1e-12)
    poly = KernelRanker(kernel="poly", degree=2, coef0=0.5, gamma=2.0).fit(X, y)
    assert poly.kernel_.spec == "poly:2,2,0.5"
    assert KernelRanker(kernel="rbf").fit(X, y).kernel_.gamma == pytest.approx(2 * X.var())
    with pytest.raises(ValueError, match="degree"):
        KernelRanker(kernel="rbf", degree=2).fit(X, y)
    with pytest.raises(ValueError, match="callable"):
        KernelRanker(kernel=lambda A, B: A @ B.T, gamma=1.0).fit(X, y)


@pytest.mark.parametrize("params, match", [
    ({"lam": 0.0}, "lam"),
    ({"lam": -1.0}, "lam"),
    ({"lam": "best"}, "lam"),
    ({"lam": [0.1, np.nan]}, "lam"),
    ({"lam": [[0.1]]}, "lam"),
    ({"filter": "nonsense"}, "filter"),
    ({"filter": []}, "filter"),
    ({"kernel": "nonsense"}, "kernel"),
    ({"kernel": 3}, "kernel"),
    ({"solver": "qr"}, "solver"),
    ({"n_components": 0}, "n_components"),
    ({"holdout_size": 1.5, "lam": "holdout"}, "holdout_size"),
    ({"metric": "nonsense", "lam": "holdout"}, "metric"),
    ({"metric": "roc", "lam": "holdout"}, "scalar"),
    ({"lam_grid": [1.0, -1.0], "lam": "holdout"}, "lam_grid"),
    ({"lam": "apriori", "apriori_sizes": (10, 500)}, "apriori_sizes"),
    ({"lam": "apriori", "apriori_sizes": (10, 10)}, "apriori_sizes"),
    # checked whatever lam is, as a saved model's parameters are, so that every fit that passes gives a file that loads
    ({"apriori_sizes": ()}, "apriori_sizes: expected a non-empty sequence of integers >= 4"),
    ({"apriori_sizes": (2, 30)}, "apriori_sizes: expected a non-empty sequence of integers >= 4"),
    ({"lam": "apriori", "filter": ["tikhonov", "cutoff"]}, "filter"),
])
def test_bad_parameters_raise_clear_errors(params, match):
    X, y = graded_data(m=60)
    with pytest.raises((ValueError, TypeError), match=match):
        KernelRanker(**params).fit(X, y)


def test_bad_data_raises_clear_errors():
    X, y = graded_data(m=20)
    with pytest.raises(ValueError, match="two different label values"):
        KernelRanker().fit(X, np.ones(20))
    with pytest.raises(ValueError, match=r"labels 9223372036854775808 and 9223372036854775809 differ only beyond "
                                         r"float64's precision"):       # two labels, not "only one value"
        KernelRanker().fit(X, np.array([2**63, 2**63 + 1] * 10, dtype=np.uint64))
    with pytest.raises(ValueError, match="NaN"):
        KernelRanker().fit(np.where(X > 1, np.nan, X), y)
    with pytest.raises(ValueError, match="inconsistent lengths"):
        KernelRanker().fit(X, y[:-1])
    with pytest.raises(ValueError, match="1 sample"):
        KernelRanker().fit(X[:1], y[:1])
    with pytest.raises(ValueError, match="None"):
        KernelRanker().fit(X, None)
    with pytest.raises(ValueError, match="two classes"):
        KernelRanker().fit(X, np.array(["a", "b", "c", "d"] * 5))
    model = KernelRanker().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.decision_function(X[:, :1])
    with pytest.raises(ValueError, match="Reshape"):
        model.decision_function(X[0])


@pytest.mark.parametrize("n_jobs", [1, 2, None])
def test_threads_do_not_change_the_result(n_jobs, monkeypatch, exact_threads):
    from rankcore.rkhs import _estimator

    exact_threads(2)                                         # n_jobs=None: 8 threads
    monkeypatch.setattr(_estimator, "PARALLEL_MIN_ROWS", 0)  # let a small fit use the threads
    X, y = graded_data(m=150, seed=11)
    ref = KernelRanker(lam=[1e-2, 1e-3], n_jobs=1).fit(X, y)
    got = KernelRanker(lam=[1e-2, 1e-3], n_jobs=n_jobs).fit(X, y)
    assert got._n_threads == (1 if n_jobs == 1 else 2 if n_jobs == 2 else _estimator.effective_n_threads(None))
    np.testing.assert_allclose(got.dual_coef_, ref.dual_coef_, atol=1e-10 * np.abs(ref.dual_coef_).max())
    np.testing.assert_allclose(got.decision_function(X), ref.decision_function(X), rtol=1e-9, atol=1e-12)


def test_small_fits_run_serially():
    from rankcore.rkhs._estimator import PARALLEL_MIN_ROWS

    X, y = graded_data(m=150, seed=11)
    assert 150 < PARALLEL_MIN_ROWS
    assert KernelRanker(n_jobs=2).fit(X, y)._n_threads == 1


def test_random_state_makes_fits_reproducible():
    X, y = graded_data(m=120, seed=12)
    for params in ({"lam": "holdout"}, {"solver": "nystroem", "n_components": 30}):
        a = KernelRanker(random_state=5, **params).fit(X, y)
        b = KernelRanker(random_state=5, **params).fit(X, y)
        np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)


def test_nystroem_mode_close_to_exact_and_auto_switch(monkeypatch):
    X, y = graded_data(m=400, seed=13, noise=0.1)
    exact = KernelRanker(lam=1e-3, solver="exact").fit(X, y)
    approx = KernelRanker(lam=1e-3, solver="nystroem", n_components=150, random_state=0).fit(X, y)
    assert approx.solver_ == "nystroem" and approx.support_.shape == (150, 2)
    fe, fa = exact.decision_function(X), approx.decision_function(X)
    fe, fa = fe - fe.mean(), fa - fa.mean()
    assert np.linalg.norm(fa - fe) / np.linalg.norm(fe) < 0.05
    assert abs(exact.score(X, y) - approx.score(X, y)) < 0.02
    import rankcore.rkhs._plan as plan

    # "auto" by predicted time: a route predicted to take longer than AUTO_SECONDS is not chosen
    assert KernelRanker(n_components=50, random_state=0).fit(X, y).solver_ == "exact"
    monkeypatch.setattr(plan, "AUTO_SECONDS", 0.0)
    model = KernelRanker(n_components=50, random_state=0).fit(X, y)
    assert model.solver_ == "nystroem" and set(model.solver_plan_) == {"exact", "krylov", "nystroem"}


@settings(max_examples=25)
@given(
    shift=st.floats(-1e3, 1e3),
    scale=st.floats(0.1, 10.0),
    seed=st.integers(0, 2**16),
)
def test_ranking_invariances(shift, scale, seed):
    # Shifting y changes nothing; scaling y scales the scores (the order is kept).
    X, y = graded_data(m=25, seed=seed)
    if np.unique(y).size < 2:
        return
    base = KernelRanker(lam=1e-2).fit(X, y).decision_function(X)
    moved = KernelRanker(lam=1e-2).fit(X, scale * y + shift).decision_function(X)
    np.testing.assert_allclose(moved, scale * base, atol=1e-8 * max(1.0, np.abs(scale * base).max()))


def test_score_is_one_minus_misrank():
    X, y = graded_data(m=50, seed=14)
    model = KernelRanker(lam=1e-2).fit(X, y)
    assert model.score(X, y) == pytest.approx(1 - misrank_reference(y, model.decision_function(X)))


def test_exact_size_limit_and_failed_fit_leaves_the_previous_model(monkeypatch):
    import rankcore.rkhs._estimator as est

    X, y = graded_data(m=50)
    model = KernelRanker().fit(X, y)
    before = model.decision_function(X)
    monkeypatch.setattr(est, "EXACT_MAX_SAMPLES", 40)
    with pytest.raises(ValueError, match="nystroem"):
        model.set_params(solver="exact").fit(X, y)
    # a failed fit publishes nothing (rankcore/_threadsafe.py): the previous model, whole
    np.testing.assert_array_equal(model.decision_function(X), before)
    # exact out of reach: "auto" takes the Krylov route (cheap at this size), else Nystroem
    assert model.set_params(solver="auto", n_components=20).fit(X, y).solver_ == "krylov"
    monkeypatch.setattr(est, "KRYLOV_BLOCK", 7)  # (unused here: the kernel matrix fits the budget)
    assert model.set_params(memory_budget=1000).fit(X, y).solver_ == "nystroem"


def test_grid_extension_ratio_is_exact_and_median():
    """The grid past its end steps by the median neighbour ratio, computed by IEEE quotients (no exp/log)."""
    from rankcore.rkhs._selection import _median_ratio

    assert _median_ratio(np.array([0.01, 0.1, 1.0])) == 10.0
    assert _median_ratio(np.array([1.0, 2.0, 8.0, 16.0, 32.0])) == 2.0      # ratios 2, 4, 2, 2: median 2
    assert _median_ratio(np.array([1.0, 2.0, 8.0])) == pytest.approx(np.sqrt(8.0), rel=1e-15)
    assert _median_ratio(np.array([3.0])) == 1.0


def test_labels_near_the_largest_double_are_refused_at_fit():
    # infinite coefficients would make every decision_function fail: such labels are refused at fit
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = rng.choice([-1.0, 1.0, 0.5], 30)
    for solver in ("auto", "krylov"):
        with pytest.raises(ValueError, match=r"^y: the labels are too large for the kernel ranker's solve"):
            rankcore.KernelRanker(solver=solver).fit(X, y * 1e307)
        with pytest.raises(ValueError, match=r"^y: the labels are too large for the kernel ranker's solve"):
            rankcore.KernelRanker(solver=solver).fit(X, y * 1e200)
        assert np.isfinite(rankcore.KernelRanker(solver=solver).fit(X, y * 1e100).decision_function(X)).all()


@pytest.mark.parametrize("metric", [None, "misrank", "auc"])
def test_the_holdout_split_is_stratified_for_two_valued_labels_whatever_the_metric(monkeypatch, metric):
    # the default metric, misrank, reads labels as grades: its split was plain random (once 1 held-out positive
    # of 8 where 4 were meant)
    import numpy as np

    import rankcore
    from rankcore.rkhs import _selection

    splits = []
    real = _selection.holdout_split

    def recorded(y_metric, *args, **kwargs):
        splits.append(real(y_metric, *args, **kwargs))
        return splits[-1]

    monkeypatch.setattr(_selection, "holdout_split", recorded)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.zeros(40, dtype=int)
    y[rng.permutation(40)[:8]] = 1
    for seed in range(6):
        params = {} if metric is None else {"metric": metric}
        rankcore.KernelRanker(lam="holdout", holdout_size=0.5, random_state=seed, **params).fit(X, y)
    assert len(splits) == 6
    for fit, val in splits:
        assert y[val].sum() == 4 and y[fit].sum() == 4

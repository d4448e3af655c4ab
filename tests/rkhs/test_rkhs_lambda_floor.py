"""λ below the rounding floor of the spectrum, or above its ceiling, is clipped with a warning; a λ whose model is
zero says so."""

import warnings

import numpy as np
import pytest

from rankcore import KernelRanker, evaluate

FILTERS = ["tikhonov", "cutoff", "showalter", "landweber", "iterated"]


def _data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("kernel", ["linear", "rbf:1.0"])
@pytest.mark.parametrize("filter", FILTERS)
def test_tiny_lambda_is_clipped_to_the_floor_with_a_warning(filter, kernel):
    X, y = _data()
    with pytest.warns(RuntimeWarning, match="below the numerical floor"):
        model = KernelRanker(kernel=kernel, lam=1e-300, filter=filter).fit(X, y)
    scores = model.decision_function(X)
    assert model.lam_ > 1e-300
    assert np.abs(scores).max() < 1e6
    assert evaluate(y, scores, ["auc"])["auc"] > 0.8
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # at the floor itself: no warning, the same model
        same = KernelRanker(kernel=kernel, lam=model.lam_, filter=filter).fit(X, y)
    np.testing.assert_array_equal(same.decision_function(X), scores)


def test_floor_is_n_eps_norm_and_a_path_clips_only_the_small_lambdas():
    X, y = _data()
    with pytest.warns(RuntimeWarning, match="1e-300"):
        model = KernelRanker(kernel="linear", lam=[1e-300, 1e-3]).fit(X, y)
    floor, kept = model.lams_
    assert kept == 1e-3
    # n·ε·max(‖A‖, mean K_ii): the kernel entries' rounding counts too
    entry_scale = np.mean(np.einsum("ij,ij->i", X, X))
    assert floor == pytest.approx(X.shape[0] * np.finfo(float).eps * max(model.spectrum_.max(), entry_scale),
                                  rel=1e-12)


def test_usual_lambdas_give_no_warning():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KernelRanker(kernel="rbf:1.0", lam=1e-8).fit(X, y)
        # (seeded: the hold-out split decides whether the best lambda lands at an end of the grid,
        # which warns by design -- GridEdgeWarning)
        KernelRanker(kernel="rbf:1.0", lam="holdout", random_state=0).fit(X, y)


@pytest.mark.parametrize("lam", [1e20, 1e308])
@pytest.mark.parametrize("filter", FILTERS)
def test_huge_lambda_is_clipped_to_the_ceiling_with_a_warning(filter, lam):
    """λ = 1e308 gave coefficients of 1e-310 (subnormal: digits lost) and no word; above ‖A‖/ε the filters no
    longer depend on the eigenvalues, so λ is clipped there, with the same ranking."""
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = KernelRanker(kernel="rbf:1.0", lam=lam, filter=filter).fit(X, y)
    assert any("above the ceiling" in str(w.message) and issubclass(w.category, RuntimeWarning) for w in caught)
    ceiling = model.spectrum_.max() / np.finfo(float).eps
    assert model.lam_ == pytest.approx(ceiling, rel=1e-12)
    coef = np.abs(model.dual_coef_)
    if filter in ("cutoff", "landweber"):              # no direction kept at such λ: a constant model, said so
        assert not coef.any()
        assert any("keeps no direction" in str(w.message) for w in caught)
        return
    assert coef.max() > 1e-30                           # normal doubles, not subnormal
    limit = KernelRanker(kernel="rbf:1.0", lam=ceiling / 1e3, filter=filter).fit(X, y)
    assert np.array_equal(np.argsort(model.decision_function(X), kind="stable"),
                          np.argsort(limit.decision_function(X), kind="stable"))


@pytest.mark.parametrize("filter", ["cutoff", "landweber"])
def test_a_lambda_that_keeps_no_direction_warns_of_a_constant_model(filter):
    """cutoff (and landweber) at λ = 10, above ‖A‖ ≈ 0.1: the zero model, which used to come without a word."""
    X, y = _data()
    with pytest.warns(UserWarning, match=rf"constant .* filter '{filter}' at lam = 10 keeps no direction"):
        model = KernelRanker(kernel="rbf:1.0", lam=10.0, filter=filter).fit(X, y)
    assert model.spectrum_.max() < 10 and not np.abs(model.dual_coef_).any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KernelRanker(kernel="rbf:1.0", lam=1e-3, filter=filter).fit(X, y)

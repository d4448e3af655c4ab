"""KernelRanker at extreme feature scales and extreme lambdas.

Before: with the default ``gamma="scale"``, features ×1e-150 were refused by
an error about ``gamma`` (which the user never set), ×1e-310 (and ×1e-200)
gave constant scores silently (the variance underflowed to 0 and γ fell back
to 1), ×1e200 blamed the kernel ``'rbf:1'``.  And the exact solver with
``rbf:1e10, lam=1e-300`` on duplicated rows clipped λ to a floor computed
from the *centred* operator's norm (2e-10), far below the rounding noise of
the kernel entries (~1): training AUC 0.34-0.44 where the Krylov route gave
0.87-0.90.

Now γ = d·Var(X) is computed without overflow or underflow, and a data scale
it cannot represent is refused by a ``ValueError`` naming ``X`` and saying
what to do; the λ floor counts the kernel entries' rounding (n·ε·max(‖A‖,
mean diagonal of K)).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankcore
from rankcore.metrics import auc
from rankcore.rkhs import KernelRanker


def _data(n=100, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly:2"])
@pytest.mark.parametrize("scale", [1e-40, 1e-20, 1e20, 1e40])
def test_gamma_scale_fits_the_same_ranking_at_any_representable_scale(kernel, scale):
    X, y = _data()
    base = KernelRanker(kernel=kernel, random_state=0).fit(X, y).decision_function(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = KernelRanker(kernel=kernel, random_state=0).fit(X * scale, y).decision_function(X * scale)
    assert abs(auc(y, s) - auc(y, base)) < 1e-9


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly"])
@pytest.mark.parametrize("scale", [1e-150, 1e-200, 1e-310, 1e150, 1e200])
def test_a_data_scale_gamma_scale_cannot_represent_is_a_clear_error_naming_x(kernel, scale):
    X, y = _data()
    with pytest.raises(ValueError, match=r"^X: ") as info:
        KernelRanker(kernel=kernel, random_state=0).fit(X * scale, y)
    message = str(info.value)
    assert "gamma='scale'" in message and "rescale" in message
    assert "gamma must be" not in message          # the user never set gamma


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly"])
@pytest.mark.parametrize("peak", [2.0**1023, 1.5 * 2.0**1023, np.finfo(np.float64).max])
def test_features_at_the_top_of_float64_are_the_same_clear_error_naming_x(kernel, peak):
    # max |x| >= 2**1023: the power of two above it is not a float64, so the scaling must not form it
    X, y = _data()
    X = X / np.abs(X).max() * peak
    assert np.isfinite(X).all() and np.abs(X).max() >= 2.0**1023
    with pytest.raises(ValueError, match=r"^X: gamma='scale' takes the kernel's length scale from the data.*"
                                         r"too large.*rescale"):
        KernelRanker(kernel=kernel, random_state=0).fit(X, y)


def test_constant_features_still_get_gamma_one_and_a_constant_model_warning():
    X = np.ones((30, 2))
    y = np.r_[np.zeros(15), np.ones(15)].astype(int)
    with pytest.warns(UserWarning, match="constant"):
        model = KernelRanker(random_state=0).fit(X, y)
    assert model.kernel_.gamma == 1.0


def test_with_data_computes_the_variance_without_overflow():
    kernel = rankcore.get_registry().resolve("kernel", "rbf")
    X, _ = _data()
    expected = X.shape[1] * X.var()
    # scaling by a power of two is exact: gamma scales by its square
    assert kernel.with_data(X).gamma == pytest.approx(expected, rel=1e-14)
    assert kernel.with_data(X * 2.0**40).gamma == pytest.approx(expected * 2.0**80, rel=1e-14)


# --------------------------------------------------------------------------
# the exact solver's lambda floor
# --------------------------------------------------------------------------

def _duplicates(seed=0):
    X = np.repeat(np.random.default_rng(seed).normal(size=(30, 2)), 2, axis=0)
    y = (X[:, 0] > 0).astype(int)
    y[::7] ^= 1
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_and_krylov_routes_agree_at_a_lambda_below_the_rounding_floor(seed):
    X, y = _duplicates(seed)
    results = {}
    for solver in ("exact", "krylov"):
        with pytest.warns(RuntimeWarning, match="lam"):
            model = KernelRanker(kernel="rbf:1e10", lam=1e-300, solver=solver).fit(X, y)
        results[solver] = auc(y, model.decision_function(X))
    assert results["exact"] > 0.8, results
    assert abs(results["exact"] - results["krylov"]) < 0.05, results


def test_the_floor_counts_the_kernel_entries_not_only_the_centred_operator():
    from rankcore.rkhs._spectral import ExactSpectrum

    X, y = _duplicates()
    K = rankcore.get_registry().resolve("kernel", "rbf:1e10")(X)
    spectrum = ExactSpectrum(np.array(K, order="C"), y.astype(np.float64))
    eps = np.finfo(np.float64).eps
    assert spectrum.norm < 1e-8                       # the centred operator is tiny ...
    assert spectrum.lam_floor >= X.shape[0] * eps * 0.99   # ... but its entries round at the scale of K ~ 1


def test_ordinary_lambdas_are_not_clipped():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for solver in ("exact", "krylov", "nystroem"):
            KernelRanker(lam=1e-6, solver=solver, random_state=0).fit(X, y)

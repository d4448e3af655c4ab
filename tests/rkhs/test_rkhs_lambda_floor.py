"""λ below the rounding floor of the spectrum is clipped with a warning."""

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

"""Kernel ranking as a screening campaign uses it: many rows to score, the λ of scikit-learn's ``KernelRidge``.

Small data only; the sizes that matter (a million compounds to score) are simulated by shrinking the limits.
"""

from __future__ import annotations

import numpy as np

import pytest

from rankcore.rkhs import KernelRanker
from rankcore.rkhs import _estimator


def _data(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.floor(2 * X[:, 0] + rng.normal(size=n))


def test_decision_function_scores_many_rows_a_block_at_a_time(monkeypatch):
    # Before, the whole rows x support kernel block was built at once (21.6 GB for 10**6 rows against 2,700
    # support rows).  With a block of 8 * 60 * 7 bytes, no kernel call may see more than 7 rows.
    X, y = _data()
    model = KernelRanker(kernel="rbf", lam=1e-2, solver="exact").fit(X, y)
    X_new = np.random.default_rng(1).normal(size=(50, 4))
    whole = model.decision_function(X_new)
    kernel_type = type(model.kernel_)
    seen = []
    compute = kernel_type.compute

    def counting(self, A, B, n_threads):
        seen.append(A.shape[0])
        return compute(self, A, B, n_threads)

    monkeypatch.setattr(kernel_type, "compute", counting)
    monkeypatch.setattr(_estimator, "SCORE_BLOCK_ENTRIES", 60 * 7)
    blocked = model.decision_function(X_new)
    assert seen and max(seen) <= 7 and sum(seen) == 50
    np.testing.assert_allclose(blocked, whole, rtol=1e-12, atol=1e-14)


def test_decision_function_blocks_keep_a_path_s_axes(monkeypatch):
    X, y = _data()
    model = KernelRanker(lam=[1e-1, 1e-2, 1e-3], filter=["tikhonov", "showalter"], solver="exact").fit(X, y)
    whole = model.decision_function(X[:25])
    monkeypatch.setattr(_estimator, "SCORE_BLOCK_ENTRIES", 60 * 4)
    blocked = model.decision_function(X[:25])
    assert blocked.shape == whole.shape == (25, 2, 3)
    np.testing.assert_allclose(blocked, whole, rtol=1e-12, atol=1e-14)


def test_tikhonov_is_kernel_ridge_on_the_centred_kernel_with_alpha_m_lambda():
    # the relation docs/kernel_ranking_filters.md states: (P K P + m λ I) c = P y, sklearn's alpha = m λ
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.metrics.pairwise import rbf_kernel

    X, y = _data(n=80)
    m, lam = X.shape[0], 1e-2
    model = KernelRanker(kernel="rbf", gamma=4.0, filter="tikhonov", lam=lam, solver="exact").fit(X, y)
    P = np.eye(m) - 1.0 / m
    ridge = KernelRidge(kernel="precomputed", alpha=m * lam).fit(P @ rbf_kernel(X, gamma=0.25) @ P, P @ y)
    np.testing.assert_allclose(model.dual_coef_, ridge.dual_coef_, rtol=1e-9, atol=1e-12)


def _fingerprints(n=50, bits=64, seed=0):
    rng = np.random.default_rng(seed)
    F = (rng.random((n, bits)) < 0.15).astype(float)
    F[3] = 0.0                                      # an empty fingerprint
    F[4] = 0.0
    return F


def test_the_tanimoto_kernel_is_the_jaccard_similarity_of_the_bits_set():
    import rankcore

    F = _fingerprints()
    kernel = rankcore.get_registry().resolve("kernel", "jaccard")
    assert kernel.spec == "tanimoto"

    def jaccard(a, b):     # plain Python on the sets of bits set
        A, B = set(np.flatnonzero(a)), set(np.flatnonzero(b))
        return 1.0 if not A | B else len(A & B) / len(A | B)

    expected = np.array([[jaccard(a, b) for b in F] for a in F])
    K = kernel(F)
    np.testing.assert_allclose(K, expected, rtol=1e-15, atol=0)
    assert np.array_equal(K, K.T) and np.all(np.diagonal(K) == 1.0)
    np.testing.assert_allclose(kernel(F[:7], F[10:30]), expected[:7, 10:30], rtol=1e-15, atol=0)
    assert np.linalg.eigvalsh(K).min() > -1e-12


def test_the_tanimoto_kernel_meets_the_kernel_contract_on_real_vectors():
    from rankcore.testing import check_component

    check_component("kernel", "tanimoto")


def _tanimoto_reference(X, Y):
    """Plain NumPy: <x, y> / (|x|^2 + |y|^2 - <x, y>), 1 where both rows are zero."""
    S = X @ Y.T
    den = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - S
    return np.where(den == 0, 1.0, S / np.where(den == 0, 1.0, den))


@pytest.mark.parametrize("scale", [1e-200, 1e-160, 1e160, 1e200])
def test_the_tanimoto_kernel_is_the_same_at_any_scale_of_the_features(scale):
    # It is unchanged by one factor on both rows.  Before, |x|^2 underflowed at 1e-200 (every similarity 1, even of
    # x and -x), lost its digits at 1e-160 (subnormal) and overflowed at 1e160 and 1e200 (NaN, the fit refused).
    from rankcore.registry import resolve

    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(30, 5)), rng.normal(size=(7, 5))
    X[1], X[2] = -X[0], 0.0
    kernel = resolve("kernel", "tanimoto")
    np.testing.assert_allclose(kernel(X * scale), _tanimoto_reference(X, X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(kernel(Y * scale, X * scale), _tanimoto_reference(Y, X), rtol=1e-12, atol=1e-15)
    assert kernel(X * scale)[0, 1] == pytest.approx(-1 / 3)
    y = (X[:, 0] > 0).astype(int)
    scores = KernelRanker(kernel="tanimoto", lam=1e-2, solver="exact").fit(X * scale, y).decision_function(Y * scale)
    plain = KernelRanker(kernel="tanimoto", lam=1e-2, solver="exact").fit(X, y).decision_function(Y)
    np.testing.assert_allclose(scores, plain, rtol=1e-9, atol=1e-12)


def test_kernel_ranker_ranks_fingerprints_with_tanimoto_and_a_saved_model_scores_the_same(tmp_path):
    import rankcore

    F = _fingerprints(n=120, bits=48, seed=1)
    y = (F[:, :3].sum(axis=1) >= 1).astype(int)
    model = KernelRanker(kernel="tanimoto", lam="holdout", metric="auc", random_state=0).fit(F, y)
    assert model.kernel_.spec == "tanimoto"
    rankcore.save_model(model, tmp_path / "fp.json")
    loaded = rankcore.load_model(tmp_path / "fp.json")
    assert np.array_equal(loaded.decision_function(F), model.decision_function(F))
    assert rankcore.evaluate(y, model.decision_function(F), ["auc"])["auc"] > 0.8


def test_a_choice_at_the_grid_top_by_ties_of_a_coarse_metric_says_so():
    # prec@k:3 over 20 held-out rows takes four values: dozens of lambdas tie, the largest (the grid's top) is taken,
    # and the warning used to say only that the choice was at the edge of the grid
    from rankcore.rkhs import GridEdgeWarning

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=40) > 0.8).astype(int)
    with pytest.warns(GridEdgeWarning, match=r"largest lambda .* tied with every other value of lambda.*'auc'"):
        model = KernelRanker(lam="holdout", metric="prec@k:3", random_state=0).fit(X, y)
    losses = model.holdout_losses_[0]
    assert model.lam_ == 0.95 and np.all(losses == losses[0])     # the grid's top; the choice tells nothing

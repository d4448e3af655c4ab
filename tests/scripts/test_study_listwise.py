"""The fortieth session's study objectives (``studies/query_defaults_study.py``): ListMLE's and NDCG-Loss2++'s
gradients and Hessian diagonals against finite differences of plain loops over each query's places and pairs."""

import sys

import numpy as np
import pytest

from _checkout_scripts import ROOT, script_module_fixture
from _study_query_data import finite_differences as _numeric
from _study_query_data import interleaved_queries as _data

sys.path.insert(0, str(ROOT / "benchmarks"))        # the study imports the benchmarks' helpers

study = script_module_fixture("studies/query_defaults_study.py", "rankcore_query_defaults_study_listwise")


def listmle_loss(scores, y, codes, draws):
    """−log P(π | f) summed over the queries of two grades; π: grade order, ties by ``draws``."""
    total = 0.0
    for q in np.unique(codes):
        rows = np.flatnonzero(codes == q)
        if np.unique(y[rows]).size < 2:
            continue
        f = scores[rows][np.lexsort((draws[rows], -y[rows]))]
        for k in range(f.size):
            total += np.log(np.sum(np.exp(f[k:]))) - f[k]
    return total


def lambdaloss_loss(scores, y, codes, draws, ranked_by, mu=10.0):
    """NDCG-Loss2++ with its weights at the ranks of ``ranked_by`` (ties by ``draws``), pair by pair."""
    total = 0.0
    for q in np.unique(codes):
        rows = np.flatnonzero(codes == q)
        g = y[rows]
        if np.unique(g).size < 2:
            continue
        n = rows.size
        rank = np.empty(n)
        rank[np.lexsort((draws[rows], -ranked_by[rows]))] = np.arange(1, n + 1)
        gain = 2.0 ** g - 1.0
        gain /= sum(v / np.log2(2.0 + k) for k, v in enumerate(sorted(gain, reverse=True)))
        for a in range(n):
            for b in range(n):
                if g[a] > g[b]:
                    gap = abs(rank[a] - rank[b])
                    rho = abs(1 / np.log2(1 + rank[a]) - 1 / np.log2(1 + rank[b]))
                    delta = abs(1 / np.log2(1 + gap) - 1 / np.log2(2 + gap))
                    weight = (rho + mu * delta) * abs(gain[a] - gain[b])
                    total += weight * np.log1p(np.exp(-(scores[rows[a]] - scores[rows[b]])))
    return total


@pytest.mark.parametrize("seed", [0, 1])
def test_listmle_matches_finite_differences(study, seed):
    scores, y, codes = _data(seed)
    draws = np.random.default_rng(7).random(scores.size)
    g, h = study.listmle_terms(y, codes)(scores, np.random.default_rng(7))
    grad, curv = _numeric(lambda f: listmle_loss(f, y, codes, draws), scores)
    np.testing.assert_allclose(g, grad, atol=1e-7)
    np.testing.assert_allclose(h, curv, atol=1e-3)
    assert np.all(h >= 0) and np.all(g[codes == 2] == 0) and np.all(h[codes == 2] == 0)


@pytest.mark.parametrize("seed", [0, 1])
def test_lambdaloss_matches_finite_differences(study, seed):
    scores, y, codes = _data(seed, n=30)
    draws = np.random.default_rng(3).random(scores.size)
    g, h = study.lambdaloss_terms(y, codes)(scores, np.random.default_rng(3))
    grad, curv = _numeric(lambda f: lambdaloss_loss(f, y, codes, draws, scores), scores)
    np.testing.assert_allclose(g, grad, atol=1e-7)
    np.testing.assert_allclose(h, curv, atol=1e-3)
    assert np.all(g[codes == 2] == 0) and np.all(h[codes == 2] == 0)


def test_terms_sum_to_zero_per_query_and_stay_finite_far_from_zero(study):
    scores, y, codes = _data(2)
    for make in (study.listmle_terms, study.lambdaloss_terms):
        for scale in (1.0, 500.0):
            g, h = make(y, codes)(scale * scores, np.random.default_rng(0))
            assert np.isfinite(g).all() and np.isfinite(h).all()
            np.testing.assert_allclose(np.bincount(codes, g), 0.0, atol=1e-9)


def test_the_listwise_path_at_weight_zero_is_the_default(study):
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(12), 15)
    X = rng.normal(size=(qid.size, 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(0, 0.5, qid.size) + 1), 0, 3)
    default = study.MODELS["default"](X, y, qid, 1)(X)
    np.testing.assert_array_equal(study.MODELS["default, listwise path"](X, y, qid, 1)(X), default)
    assert not np.array_equal(study.MODELS["default + ListMLE"](X, y, qid, 1)(X), default)

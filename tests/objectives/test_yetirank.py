"""YetiRank's gradients: a loop-by-loop reference (its own hash and sort), hand checks, invariants, determinism."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.metrics._queries import check_qid
from rankcore.objectives._yetirank import YetiRank, YetiRankObjective, _stream_key, logistic_noise

MASK = (1 << 64) - 1


def _mix(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def _reference_key(seed, evaluation, permutation):
    key = seed & MASK
    for part in (evaluation, permutation):
        key = _mix((key + ((part * 0x9E3779B97F4A7C15 + 1) & MASK)) & MASK)
    return key


def _reference_noise(key, row):
    bits = _mix((row * 0x9E3779B97F4A7C15 + key) & MASK)
    u = ((bits >> 50) + 0.5) / 2.0 ** 14                    # the top 14 bits pick a logistic quantile
    return math.log(u / (1.0 - u))


def yetirank_reference(y, qid, f, *, permutations=10, decay=0.85, newton=True, seed=0, evaluation=0,
                       first_row=0, weight=None):
    """Plain Python: each query, each permutation, the noisy order by sorted(), each neighbour pair."""
    n = len(y)
    grad, hess = [0.0] * n, [0.0] * n
    for q in dict.fromkeys(qid):
        rows = [i for i in range(n) if qid[i] == q]
        for p in range(permutations):
            key = _reference_key(seed, evaluation, p)
            noisy = {i: f[i] + _reference_noise(key, first_row + i) for i in rows}
            order = sorted(rows, key=lambda i: (-noisy[i], i))
            for k in range(len(order) - 1):
                if decay ** k < 1e-6:
                    break
                a, b = order[k], order[k + 1]
                if y[a] == y[b]:
                    continue
                high, low = (a, b) if y[a] > y[b] else (b, a)
                c = decay ** k * abs(y[a] - y[b]) / permutations
                rho = 1.0 / (1.0 + math.exp(min(f[high] - f[low], 700.0)))     # no overflow: ρ ≈ 0
                grad[high] -= c * rho
                grad[low] += c * rho
                hess[high] += c * rho * (1 - rho)
                hess[low] += c * rho * (1 - rho)
    if not newton:
        hess = [1.0] * n
    w = np.ones(n) if weight is None else np.asarray(weight)
    return np.array(grad) * w, np.array(hess) * w


def _data(seed, n=70):
    """Rows not sorted by query, ties in grades and scores, one-row and single-grade queries, a long query."""
    rng = np.random.default_rng(seed)
    qid = rng.choice([3, 8, 12, 40], n, p=[0.1, 0.2, 0.3, 0.4])      # query 40: ~28 rows (beyond insertion sort)
    qid[0] = 99                                                       # a query of one row
    y = rng.choice([0.0, 0.0, 1.0, 2.0, 3.5], n)
    y[qid == 3] = 1.0                                                 # a single grade: no pair
    f = rng.integers(-4, 5, n) / 4.0                                  # many tied scores
    return y, qid, f


def test_noise_matches_the_reference_hash():
    rows = np.array([0, 1, 2, 17, 10**9, 2**40])
    for seed, evaluation, p in [(0, 0, 0), (12345, 7, 3), (2**63 + 5, 199, 29)]:
        assert int(_stream_key(seed, evaluation, p)) == _reference_key(seed, evaluation, p)
        expected = [_reference_noise(_reference_key(seed, evaluation, p), int(r)) for r in rows]
        np.testing.assert_allclose(logistic_noise(seed, evaluation, p, rows), expected, rtol=1e-14)


def test_noise_is_logistic():
    z = logistic_noise(3, 0, 0, np.arange(200_000))
    assert abs(z.mean()) < 0.02 and abs(z.var() - math.pi ** 2 / 3) < 0.05           # Logistic(0, 1)
    assert np.unique(z).shape[0] == 2 ** 14 and np.abs(z).max() < 10.5
    assert np.corrcoef(z, logistic_noise(3, 1, 0, np.arange(200_000)))[0, 1] < 0.01  # fresh each evaluation


@pytest.mark.parametrize("permutations, decay, newton", [(1, 0.85, True), (10, 0.85, True), (3, 1.0, False),
                                                          (5, 0.3, True), (2, 0.5, True)])
def test_matches_reference(permutations, decay, newton):
    for seed in range(3):
        y, qid, f = _data(seed)
        w = np.random.default_rng(seed).uniform(0.5, 2, y.shape[0])
        objective = YetiRank(permutations, decay, newton=newton)
        grad, hess = objective.gradient_hessian(y, f, check_qid(qid, y.shape[0]), w, seed=seed, evaluation=seed + 4,
                                                first_row=seed * 100)
        ref_grad, ref_hess = yetirank_reference(list(y), list(qid), list(f), permutations=permutations, decay=decay,
                                                newton=newton, seed=seed, evaluation=seed + 4, first_row=seed * 100,
                                                weight=w)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-15)
        assert np.any(grad != 0)
        np.testing.assert_array_equal(grad[(qid == 3) | (qid == 99)], 0.0)   # single grade, single row


def test_two_rows_by_hand():
    # two rows, every noisy order pairs them at place 0: c = |Δy| = 2, ρ = 1 / (1 + e^{f_high − f_low})
    f = np.array([0.3, -0.2])
    grad, hess = YetiRank(7).gradient_hessian(np.array([2.0, 0.0]), f, check_qid([5, 5], 2))
    rho = 1.0 / (1.0 + math.exp(0.5))
    np.testing.assert_allclose(grad, [-2 * rho, 2 * rho], rtol=1e-14)
    np.testing.assert_allclose(hess, [2 * rho * (1 - rho)] * 2, rtol=1e-14)


def test_all_grades_equal_and_one_row_queries():
    q = check_qid([1, 1, 2, 3, 3, 3], 6)
    grad, hess = YetiRank().gradient_hessian(np.array([1.0, 1.0, 4.0, 0.0, 0.0, 0.0]), np.arange(6.0), q)
    np.testing.assert_array_equal(grad, 0.0)
    np.testing.assert_array_equal(hess, 0.0)
    grad, hess = YetiRank(newton=False).gradient_hessian(np.array([3.0]), np.zeros(1), check_qid([0], 1))
    np.testing.assert_array_equal(grad, 0.0)
    np.testing.assert_array_equal(hess, 1.0)


def test_decay_favours_the_top():
    # a relevant row far down a long query: with a steep decay its neighbours' weight vanishes
    y = np.zeros(40)
    y[0] = y[39] = 1.0
    f = -np.arange(40.0) * 5                      # noise hardly moves the order: row 0 first, row 39 last
    grad, _ = YetiRank(4, 0.5).gradient_hessian(y, f, check_qid(np.zeros(40), 40))
    assert grad[39] > -1e-9 > grad[0] * 1e6 and abs(grad[39]) < 1e-10


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.integers(1, 9), min_size=2, max_size=6), st.integers(1, 4))
def test_queries_are_independent_blocks(seed, sizes, permutations):
    """Σλ = 0 and h >= 0 per query; rows bound in blocks of whole queries (numbered from first_row) give the same."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, 3, n).astype(float)
    f = rng.normal(size=n)
    ranks = YetiRank(permutations)
    grad, hess = ranks.gradient_hessian(y, f, check_qid(qid, n), seed=seed, evaluation=2)
    for q in range(len(sizes)):
        assert abs(grad[qid == q].sum()) < 1e-12
    assert np.all(hess >= 0) and np.all(hess[grad != 0] > 0)
    cut = sizes[0]
    first = ranks.gradient_hessian(y[:cut], f[:cut], check_qid(qid[:cut], cut), seed=seed, evaluation=2)
    rest = ranks.gradient_hessian(y[cut:], f[cut:], check_qid(qid[cut:], n - cut), seed=seed, evaluation=2,
                                  first_row=cut)
    np.testing.assert_allclose(np.concatenate([first[0], rest[0]]), grad, rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(np.concatenate([first[1], rest[1]]), hess, rtol=1e-13, atol=1e-16)


def test_bound_draws_new_noise_per_evaluation_and_repeats_per_seed():
    y, qid, f = _data(1)
    q = check_qid(qid, y.shape[0])
    bound = YetiRankObjective().bind(y, None, queries=q, random_state=5)
    _, g0, h0 = bound.value_gradient_hessian(f)
    _, again, _ = bound.value_gradient_hessian(f.copy())             # same scores: the same evaluation
    np.testing.assert_array_equal(g0, again)
    _, g1, _ = bound.value_gradient_hessian(f + 1e-3)                 # new scores: the next noise
    assert bound.evaluations == 2
    ref1, _ = yetirank_reference(list(y), list(qid), list(f + 1e-3), seed=5, evaluation=1)
    np.testing.assert_allclose(g1, ref1, rtol=1e-12, atol=1e-15)
    twin = YetiRankObjective().bind(y, None, queries=q, random_state=5)
    np.testing.assert_array_equal(twin.value_gradient_hessian(f)[1], g0)
    other = YetiRankObjective().bind(y, None, queries=q, random_state=6)
    assert not np.array_equal(other.value_gradient_hessian(f)[1], g0)
    assert math.isnan(bound.value(f)) and np.all(h0 > 0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(permutations=0), "permutations: must be an integer in"),
    (dict(permutations=2.5), "permutations"),
    (dict(decay=0.0), r"decay: must be a number in \(0, 1\]"),
    (dict(decay=1.5), "decay"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        YetiRank(**kwargs)


def test_bad_inputs():
    q = check_qid([0, 0, 1], 3)
    with pytest.raises(ValueError, match="y: grades must be >= 0"):
        YetiRank().gradient_hessian(np.array([0.0, -1.0, 2.0]), np.zeros(3), q)
    with pytest.raises(ValueError, match="scores: must be finite"):
        YetiRank().gradient_hessian(np.zeros(3), np.array([0.0, np.nan, 1.0]), q)
    with pytest.raises(ValueError, match=r"scores: expected one value per row \(3\)"):
        YetiRank().gradient_hessian(np.zeros(3), np.zeros(2), q)
    with pytest.raises(TypeError, match="queries: expected a Queries"):
        YetiRank().gradient_hessian(np.zeros(3), np.zeros(3), [0, 0, 1])
    with pytest.raises(TypeError, match="newton: expected True or False"):
        YetiRank(newton="yes")
    with pytest.raises(TypeError, match="random_state: expected an int"):
        YetiRankObjective().bind(np.zeros(3), queries=q, random_state="seven")
    with pytest.raises(ValueError, match="qid: the objective 'yetirank' ranks within queries"):
        YetiRankObjective().bind(np.zeros(3))


def test_noisy_ties_keep_row_order():
    # scores so large that the noise rounds away: every noisy order is the scores' order, ties by row
    y, qid, f = _data(2)
    f = np.where(f > 0, 1e18, -1e18)          # half an ulp of 1e18 is 64 > |noise| (at most 37.5)
    grad, hess = YetiRank(2).gradient_hessian(y, f, check_qid(qid, y.shape[0]))
    ref_grad, ref_hess = yetirank_reference(list(y), list(qid), list(f), permutations=2)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("decay", [0.85, 0.6])
def test_long_queries_sort_their_head_only(decay):
    # queries of 150-300 rows: the selection of the first places, then their sort, against the full sort
    rng = np.random.default_rng(7)
    qid = np.repeat([0, 1, 2], [150, 300, 40])
    y = rng.integers(0, 4, qid.shape[0]).astype(float)
    f = rng.normal(scale=3, size=qid.shape[0]).round(1)               # ties in the scores
    grad, hess = YetiRank(3, decay).gradient_hessian(y, f, check_qid(qid, qid.shape[0]), seed=11)
    ref_grad, ref_hess = yetirank_reference(list(y), list(qid), list(f), permutations=3, decay=decay, seed=11)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-15)


def test_place_weights():
    from rankcore.objectives._yetirank import place_weights

    w = place_weights(0.85, 1000)
    assert w.shape == (86,) and w[-1] >= 1e-6 > 0.85 ** 86
    assert place_weights(0.1, 1000).shape == (7,)                     # 0.1^6 = 1e-6 is kept
    np.testing.assert_array_equal(place_weights(1.0, 12), np.ones(11))
    assert place_weights(0.85, 1).shape == (0,)

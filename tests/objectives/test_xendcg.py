"""XE-NDCG's gradients: a NumPy reference (its own hash, a softmax per query), finite differences, edge cases,
threads, determinism and bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.metrics._queries import check_qid
from rankcore.objectives._xendcg import PreparedXENDCG, XENDCGObjective, target_noise
from rankcore.registry import resolve
from rankcore.testing import check_component

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
STREAM = 0x78656E646367                   # "xendcg": the objective's stream under a seed


def _mix(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def _reference_key(seed, evaluation):
    key = seed & MASK
    for part in (evaluation, STREAM):
        key = _mix((key + ((part * GOLDEN + 1) & MASK)) & MASK)
    return key


def reference_noise(seed, evaluation, rows):
    """γ of each row: (j + ½) / 2^52, j the top 52 bits of the row's hash (Python integers)."""
    key = _reference_key(seed, evaluation)
    return np.array([((_mix((int(r) * GOLDEN + key) & MASK) >> 12) + 0.5) / 2.0 ** 52 for r in rows])


def xendcg_reference(y, qid, f, gamma, weight=None, newton=True):
    """(g, h) per row in NumPy, query by query: softmax of the scores against p = φ / Σφ, φ = 2^y − γ
    (``newton=False``: h = 1 on every row, before the weights)."""
    y, f = np.asarray(y, dtype=np.float64), np.asarray(f, dtype=np.float64)
    grad, hess = np.zeros(y.shape[0]), np.zeros(y.shape[0])
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        if rows.shape[0] < 2 or np.all(y[rows] == y[rows][0]):
            continue
        phi = np.exp2(y[rows]) - gamma[rows]
        p = phi / phi.sum()
        e = np.exp(f[rows] - f[rows].max())
        rho = e / e.sum()
        grad[rows] = rho - p
        hess[rows] = rho * (1.0 - rho)
    if not newton:
        hess[:] = 1.0
    w = np.ones(y.shape[0]) if weight is None else np.asarray(weight)
    return grad * w, hess * w


def query_loss(y, f, gamma):
    """−Σ p log ρ of one query (γ held fixed), log ρ by a stable log-sum-exp."""
    phi = np.exp2(y) - gamma
    m = f.max()
    return -float(np.sum(phi / phi.sum() * (f - m - np.log(np.sum(np.exp(f - m))))))


def _data(seed, n=70):
    """Rows not sorted by query, ties in grades and scores, one-row, two-row and single-grade queries."""
    rng = np.random.default_rng(seed)
    qid = rng.choice([3, 8, 12, 40], n, p=[0.1, 0.2, 0.3, 0.4])
    qid[0] = 99                                                       # one row
    qid[1:3] = 77                                                     # two rows
    y = rng.choice([0.0, 0.0, 1.0, 2.0, 3.5], n)
    y[1:3] = [0.0, 2.0]
    y[qid == 3] = 1.0                                                 # a single grade: no gradient
    f = rng.integers(-4, 5, n) / 4.0                                  # many tied scores
    return y, qid, f


def _gradient(y, qid, f, w=None, seed=0, evaluation=0, first_row=0, n_threads=1, newton=True):
    prepared = PreparedXENDCG(y, check_qid(qid, len(y)))
    return prepared.gradient_hessian(f, w, seed=seed, evaluation=evaluation, first_row=first_row,
                                     n_threads=n_threads, newton=newton)


def test_noise_matches_the_reference_hash_and_is_uniform():
    rows = np.array([0, 1, 2, 17, 10**9, 2**40])
    for seed, evaluation in [(0, 0), (12345, 7), (2**63 + 5, 199)]:
        np.testing.assert_array_equal(target_noise(seed, evaluation, rows), reference_noise(seed, evaluation, rows))
    u = target_noise(3, 0, np.arange(200_000))
    assert 0 < u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002
    assert abs(np.corrcoef(u, target_noise(3, 1, np.arange(200_000)))[0, 1]) < 0.01   # fresh each evaluation


@pytest.mark.parametrize("seed", range(4))
def test_matches_the_numpy_reference(seed):
    y, qid, f = _data(seed)
    w = np.random.default_rng(seed).uniform(0.5, 2, y.shape[0])
    first_row, evaluation = seed * 100, seed + 4
    grad, hess = _gradient(y, qid, f, w, seed=seed, evaluation=evaluation, first_row=first_row)
    gamma = reference_noise(seed, evaluation, np.arange(y.shape[0]) + first_row)
    ref_grad, ref_hess = xendcg_reference(y, qid, f, gamma, w)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-15)
    assert np.any(grad != 0)
    still = (qid == 3) | (qid == 99)                                  # single grade, single row
    np.testing.assert_array_equal(grad[still], 0.0)
    np.testing.assert_array_equal(hess[still], 0.0)
    assert np.all(grad[qid == 77] != 0)                               # two rows of two grades


def test_two_rows_by_hand():
    # ρ = softmax(0.3, −0.2); p = (4 − γ0, 1 − γ1) / Σ
    g0, g1 = reference_noise(0, 0, [0, 1])
    grad, hess = _gradient(np.array([2.0, 0.0]), [5, 5], np.array([0.3, -0.2]))
    rho = 1.0 / (1.0 + math.exp(-0.5))
    p = (4 - g0) / (5 - g0 - g1)
    np.testing.assert_allclose(grad, [rho - p, p - rho], rtol=1e-13)
    np.testing.assert_allclose(hess, [rho * (1 - rho)] * 2, rtol=1e-13)


@pytest.mark.parametrize("seed", range(3))
def test_gradient_and_curvature_are_the_losss_derivatives(seed):
    """Central differences of −Σ p log ρ with γ held fixed, query by query."""
    rng = np.random.default_rng(seed)
    n = 9
    y = rng.integers(0, 4, n).astype(float)
    y[:2] = [0.0, 3.0]
    f = rng.normal(size=n)
    grad, hess = _gradient(y, np.zeros(n), f, seed=seed, evaluation=2)
    gamma = reference_noise(seed, 2, np.arange(n))
    step = 1e-5
    for i in range(n):
        up, down = f.copy(), f.copy()
        up[i] += step
        down[i] -= step
        plus, mid, minus = query_loss(y, up, gamma), query_loss(y, f, gamma), query_loss(y, down, gamma)
        assert grad[i] == pytest.approx((plus - minus) / (2 * step), rel=1e-6, abs=1e-9)
        assert hess[i] == pytest.approx((plus - 2 * mid + minus) / step ** 2, rel=1e-3, abs=1e-5)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.integers(1, 9), min_size=1, max_size=7), st.integers(1, 4))
def test_random_queries_match_the_reference_and_split_into_blocks(seed, sizes, levels):
    """Any sizes, grades and tied scores: the reference; Σg = 0 and 0 <= h <= ¼ per query; blocks of whole
    queries numbered from first_row give the same numbers, bit for bit."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, levels, n).astype(float)
    f = rng.integers(-3, 4, n) * 0.5
    grad, hess = _gradient(y, qid, f, seed=seed, evaluation=3)
    ref_grad, ref_hess = xendcg_reference(y, qid, f, reference_noise(seed, 3, np.arange(n)))
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-15)
    for q in range(len(sizes)):
        assert abs(grad[qid == q].sum()) < 1e-12
    assert np.all((hess >= 0) & (hess <= 0.25))
    cut = sizes[0]
    first = _gradient(y[:cut], qid[:cut], f[:cut], seed=seed, evaluation=3)
    rest = _gradient(y[cut:], qid[cut:], f[cut:], seed=seed, evaluation=3, first_row=cut)
    np.testing.assert_array_equal(np.concatenate([first[0], rest[0]]), grad)
    np.testing.assert_array_equal(np.concatenate([first[1], rest[1]]), hess)


def test_huge_score_gaps_stay_finite_and_the_top_keeps_its_curvature():
    y = np.array([3.0, 0.0, 1.0, 2.0, 0.0, 1.0])
    qid = np.array([0, 0, 0, 1, 1, 1])
    f = np.array([1e300, -1e300, 0.0, 1e300, 1e300, -1e300])
    grad, hess = _gradient(y, qid, f)
    ref_grad, ref_hess = xendcg_reference(y, qid, f, reference_noise(0, 0, np.arange(6)))
    assert np.all(np.isfinite(grad)) and np.all(np.isfinite(hess))
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(hess, [0.0, 0.0, 0.0, 0.25, 0.25, 0.0])
    # the top row takes all but e^-46 of the mass: 1 − ρ from the other rows' sum, not from 1 − ρ (which is 0)
    _, hess = _gradient(np.array([1.0, 0.0]), [0, 0], np.array([0.0, -46.0]))
    tail = math.exp(-46.0)
    np.testing.assert_allclose(hess, [tail / (1 + tail) ** 2] * 2, rtol=1e-14)


def test_grades_up_to_1023():
    y = np.array([1023.0, 1023.0, 0.0, 1022.5])
    grad, hess = _gradient(y, np.zeros(4), np.zeros(4))
    assert np.all(np.isfinite(grad)) and np.all(np.isfinite(hess))
    share = np.array([1.0, 1.0, 0.0, 2.0 ** -0.5]) / (2 + 2.0 ** -0.5)          # γ rounds away next to 2^1023
    np.testing.assert_allclose(grad, 0.25 - share, rtol=1e-12, atol=1e-300)
    with pytest.raises(ValueError, match=r"y: grades must be in \[0, 1023\].*got 1024.0 at row 1"):
        _gradient(np.array([0.0, 1024.0]), [0, 0], np.zeros(2))


def test_threads_give_the_same_bits():
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 40, 8000)                                 # past the threads' threshold of rows
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    y = rng.integers(0, 5, qid.shape[0]).astype(float)
    f = rng.normal(size=qid.shape[0])
    assert qid.shape[0] > 131072
    one = _gradient(y, qid, f, seed=1, evaluation=9, n_threads=1)
    two = _gradient(y, qid, f, seed=1, evaluation=9, n_threads=2)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])


def test_bound_draws_new_noise_per_evaluation_and_repeats_per_seed():
    y, qid, f = _data(1)
    q = check_qid(qid, y.shape[0])
    bound = XENDCGObjective().bind(y, None, queries=q, random_state=5)
    _, g0, h0 = bound.value_gradient_hessian(f)
    _, again, _ = bound.value_gradient_hessian(f.copy())             # same scores: the same evaluation
    np.testing.assert_array_equal(g0, again)
    _, g1, _ = bound.value_gradient_hessian(f + 1e-3)                 # new scores: the next noise
    assert bound.evaluations == 2
    ref1, _ = xendcg_reference(y, qid, f + 1e-3, reference_noise(5, 1, np.arange(y.shape[0])))
    np.testing.assert_allclose(g1, ref1, rtol=1e-12, atol=1e-15)
    twin = XENDCGObjective().bind(y, None, queries=q, random_state=5)
    np.testing.assert_array_equal(twin.value_gradient_hessian(f)[1], g0)
    other = XENDCGObjective().bind(y, None, queries=q, random_state=6)
    assert not np.array_equal(other.value_gradient_hessian(f)[1], g0)
    assert math.isnan(bound.value(f)) and np.all(h0 > 0)             # clipped at the floor where 0


def test_bad_inputs():
    q = check_qid([0, 0, 1], 3)
    prepared = PreparedXENDCG(np.zeros(3), q)
    with pytest.raises(ValueError, match="y: grades must be in"):
        PreparedXENDCG(np.array([0.0, -1.0, 2.0]), q)
    with pytest.raises(ValueError, match="y: must be finite, got nan at row 1"):
        PreparedXENDCG(np.array([0.0, np.nan, 2.0]), q)
    with pytest.raises(ValueError, match="scores: must be finite"):
        prepared.gradient_hessian(np.array([0.0, np.nan, 1.0]))
    with pytest.raises(ValueError, match=r"scores: expected one value per row \(3\)"):
        prepared.gradient_hessian(np.zeros(2))
    with pytest.raises(ValueError, match="sample_weight: expected 3 finite weights"):
        prepared.gradient_hessian(np.zeros(3), np.array([1.0, -1.0, 1.0]))
    with pytest.raises(TypeError, match="queries: expected a Queries"):
        PreparedXENDCG(np.zeros(3), [0, 0, 1])
    with pytest.raises(TypeError, match="random_state: expected an int"):
        XENDCGObjective().bind(np.zeros(3), queries=q, random_state="seven")
    with pytest.raises(ValueError, match="qid: the objective 'xendcg' ranks within queries"):
        XENDCGObjective().bind(np.zeros(3))


def test_registered_with_its_lightgbm_alias_and_passes_the_contract_checks():
    assert type(resolve("objective", "xendcg")) is XENDCGObjective
    assert type(resolve("objective", "rank_xendcg")) is XENDCGObjective
    objective = resolve("objective", "xendcg")
    assert objective.randomized and not objective.has_value and objective.max_grade == 1023
    check_component("objective", "xendcg")


def test_a_query_whose_grades_share_one_gain_carries_no_gradient():
    # 2^1e-20 == 2^0 in float64: the target would be the noise alone
    queries = check_qid(np.zeros(3, dtype=np.int64), 3)
    prepared = PreparedXENDCG(np.array([0.0, 1e-20, 0.0]), queries)
    grad, hess = prepared.gradient_hessian(np.array([0.3, -0.1, 0.2]))
    np.testing.assert_array_equal(grad, 0.0)
    np.testing.assert_array_equal(hess, 0.0)


@pytest.mark.parametrize("seed", range(3))
def test_gradient_leaves_match_the_numpy_reference(seed):
    # newton=false: the same gradient, and every row's curvature its sample weight (rows without a gradient too,
    # as yetirank:newton=false), so that a tree's leaf is the mean gradient of its rows
    y, qid, f = _data(seed)
    f = 30.0 * f                                                      # saturated softmaxes: h near 0 with Newton
    w = np.random.default_rng(seed).uniform(0.5, 2, y.shape[0])
    gamma = reference_noise(seed, 2, np.arange(y.shape[0]) + 7)
    for weight in (None, w):
        grad, hess = _gradient(y, qid, f, weight, seed=seed, evaluation=2, first_row=7, newton=False)
        ref_grad, ref_hess = xendcg_reference(y, qid, f, gamma, weight, newton=False)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(hess, ref_hess)
        np.testing.assert_array_equal(hess, 1.0 if weight is None else weight)
        newton = _gradient(y, qid, f, weight, seed=seed, evaluation=2, first_row=7)
        np.testing.assert_array_equal(grad, newton[0])                # the option changes the curvature only
        assert np.min(newton[1][newton[0] != 0]) < 1e-6               # the Newton curvature it replaces vanished


def test_the_newton_option_is_parsed_bound_and_refused_by_name():
    q = check_qid([0, 0, 0, 1, 1], 5)
    y, f = np.array([0.0, 1.0, 2.0, 0.0, 3.0]), np.array([0.5, -1.0, 2.0, 0.0, 1.0])
    default = resolve("objective", "xendcg")
    assert default.newton is True and default.spec == "xendcg" and default == resolve("objective", "xendcg:true")
    leaves = resolve("objective", "xendcg:newton=false")
    assert leaves.newton is False and resolve("objective", leaves.spec) == leaves
    assert resolve("objective", "rank_xendcg:newton=false") == leaves
    _, g, h = leaves.bind(y, None, queries=q, random_state=3).value_gradient_hessian(f)
    _, g_newton, h_newton = default.bind(y, None, queries=q, random_state=3).value_gradient_hessian(f)
    np.testing.assert_array_equal(g, g_newton)
    np.testing.assert_array_equal(h, 1.0)
    assert np.all(h_newton < 1)
    check_component("objective", "xendcg:newton=false")
    for bad in ("xendcg:newton=maybe", "xendcg:newton=2", "xendcg:maybe", "xendcg:newton=false,newton=true"):
        with pytest.raises(ValueError, match="newton"):
            resolve("objective", bad)
    with pytest.raises(ValueError, match="newton must be true or false, got 2"):
        XENDCGObjective(newton=2)
    with pytest.raises(ValueError, match="unknown parameter.*nweton; expected newton"):
        resolve("objective", "xendcg:nweton=false")

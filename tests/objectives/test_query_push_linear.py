"""The per-query push's linear-space kernel (ℓ = e^{−rz}, a price of degree 1) against its log-space path."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from _query_objective_reference import query_push_reference
from rankcore.metrics._queries import check_qid
from rankcore.objectives._base import HESSIAN_FLOOR, clip_hessian
from rankcore.objectives._query_kernels import LinearStatus, exp_linear_push
from rankcore.objectives._query_push import QueryPush


class SteepExp(rankcore.Loss):
    """ℓ(z) = e^{−2.5 z}: an exponential loss of rate r ≠ 1."""

    name = "test-exp-rate"
    exponential_rate = 2.5

    def value(self, z):
        return np.exp(-2.5 * np.asarray(z, dtype=float))

    def derivative(self, z):
        return -2.5 * self.value(z)

    def second_derivative(self, z):
        return 6.25 * self.value(z)


LOSSES = ["exp", SteepExp()]


def _data(seed, n=80, n_queries=9):
    """Ties in scores and grades, non-integer grades, zero and uneven weights, a one-row and a one-grade query."""
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n)
    qid[0] = n_queries                                  # a query of one row
    qid[1:5] = n_queries + 1                            # a query of one grade
    y = rng.choice([0.0, 0.5, 1.0, 2.25, 3.0], n)
    y[1:5] = 1.0
    f = rng.integers(-8, 9, n) / 4.0                    # ties in scores
    w = rng.uniform(0.2, 3.0, n)
    w[rng.random(n) < 0.15] = 0.0
    return y, qid, f, w


def _bind(loss, price, y, qid, w, gain_weighted):
    return QueryPush(loss, price, gain_weighted=gain_weighted).bind(y, check_qid(qid, len(y)), w)


def _log_path(bound, f):
    """(J, ∇J, clipped curvature) by the log-space path, rows in the caller's order."""
    J, grad, hess = bound._exponential(bound._sorted_scores(f), 2)
    return J, bound._unsort(grad), clip_hessian(bound._unsort(hess))


def _assert_same(fast, slow, rate):
    """Value and curvature (a sum of positive terms per row) to 1e-10 relative; the gradient (the
    negative part minus the positive part, whose sum is the curvature / r) to 1e-10 of its row's scale."""
    J, grad, hess = fast
    J0, grad0, hess0 = slow
    assert J == pytest.approx(J0, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(hess, hess0, rtol=1e-10, atol=0)
    assert np.all(np.abs(grad - grad0) <= 1e-10 * hess0 / rate)


@pytest.mark.parametrize("gain_weighted", [False, True], ids=["pairs", "gain_weighted"])
@pytest.mark.parametrize("price", ["identity", "pow:1"])
@pytest.mark.parametrize("loss", LOSSES, ids=["exp", "rate2.5"])
def test_linear_matches_log_path(loss, price, gain_weighted):
    for seed in range(4):
        y, qid, f, w = _data(seed)
        bound = _bind(loss, price, y, qid, w, gain_weighted)
        fast = bound._linear_exponential(f, 2)
        assert fast is not None, "the kernel refused moderate scores"
        _assert_same(fast, _log_path(bound, f), bound.rate)
        J, grad, hess = bound.value_gradient_hessian(f)
        np.testing.assert_array_equal(hess, fast[2])          # the public call takes the kernel
        assert bound.value(f) == J
        J1, grad1 = bound.value_and_gradient(f)
        assert J1 == J
        np.testing.assert_array_equal(grad1, grad)


@pytest.mark.parametrize("gain_weighted", [False, True], ids=["pairs", "gain_weighted"])
def test_linear_rate_matches_pairwise_reference(gain_weighted):
    y, qid, f, w = _data(4)
    bound = _bind(SteepExp(), "identity", y, qid, w, gain_weighted)
    R, dR, d2R = query_push_reference(y, qid, f, w, bound.loss, bound.price, gain_weighted)
    J, grad, hess = bound._linear_exponential(f, 2)
    assert J == pytest.approx(math.log(R), rel=1e-12)
    np.testing.assert_allclose(grad, dR / R, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(hess, np.maximum(d2R / R, HESSIAN_FLOOR), rtol=1e-10, atol=1e-13)


def test_linear_rows_without_pairs_get_nothing():
    """A one-row query, a one-grade query, and zero-weight rows with nothing on the other side of them."""
    y = np.array([0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 2.0, 1.0])
    qid = np.array([7, 8, 8, 8, 9, 9, 9, 9])
    w = np.array([1.0, 1.0, 2.0, 3.0, 0.0, 1.0, 0.0, 1.0])
    f = np.array([0.5, -1.0, 2.0, 0.0, 0.3, 0.1, -0.2, 0.7])
    bound = _bind("exp", "identity", y, qid, w, True)
    J, grad, hess = bound._linear_exponential(f, 2)
    # query 9: the only live pair is (row 5 above row 7), gain 2^2 − 2^1 = 2
    assert J == pytest.approx(math.log(2.0 * math.exp(f[7] - f[5])), rel=1e-14)
    np.testing.assert_allclose(grad, [0, 0, 0, 0, 0, -1.0, 0, 1.0], atol=1e-15)
    np.testing.assert_allclose(hess, [HESSIAN_FLOOR] * 5 + [1.0, HESSIAN_FLOOR, 1.0], rtol=1e-14)
    _assert_same((J, grad, hess), _log_path(bound, f), 1.0)


def test_linear_nothing_live_is_minus_infinity():
    """Where no pair has weight the value is −inf and nothing moves (binding refuses such data up front)."""
    y, qid, f, w = _data(0)
    bound = _bind("exp", "identity", y, qid, w, True)
    bound.set_role_weights(np.zeros(y.shape[0]), np.zeros(y.shape[0]))
    J, grad, hess = bound._linear_exponential(f, 2)
    assert J == -math.inf
    np.testing.assert_array_equal(grad, 0.0)
    np.testing.assert_array_equal(hess, HESSIAN_FLOOR)
    assert _log_path(bound, f)[0] == -math.inf


def _kernel(bound, f, spread_limit=None):
    n_levels = bound.level_starts.shape[0]
    limit = bound._spread_limit if spread_limit is None else spread_limit
    return exp_linear_push(np.ascontiguousarray(f, dtype=float), bound.order, bound.pos_weight, bound.neg_weight,
                           bound._level_edges,
                           bound.bounds, bound._level_step, limit, float(bound.rate), 2,
                           np.empty(n_levels), np.empty(n_levels), np.empty(f.shape[0]), np.empty(f.shape[0]))


@pytest.mark.parametrize("gain_weighted", [False, True], ids=["pairs", "gain_weighted"])
@pytest.mark.parametrize("price", ["identity", "pow:1"])
def test_linear_refuses_a_wide_query_and_the_log_path_answers(price, gain_weighted):
    """Scores of magnitude 700 in one query: e^{r·1400} is no double; the call takes the log-space path."""
    y, qid, f, w = _data(7)
    wide = np.flatnonzero(qid == 3)
    f = f.copy()
    f[wide] = np.random.default_rng(7).uniform(-700.0, 700.0, wide.shape[0])
    f[wide[:2]] = [-700.0, 700.0]
    bound = _bind("exp", price, y, qid, w, gain_weighted)
    assert _kernel(bound, f)[0] == LinearStatus.LINEAR_SPREAD
    J, grad, hess = bound.value_gradient_hessian(f)
    J0, grad0, hess0 = _log_path(bound, f)
    assert J == J0
    np.testing.assert_array_equal(grad, grad0)
    np.testing.assert_array_equal(hess, hess0)
    assert math.isfinite(J) and np.isfinite(grad).all() and np.isfinite(hess).all()
    # a degree-1 price is g(1)·L: identity and pow:1 give the same numbers
    J1, grad1, hess1 = _bind("exp", "identity", y, qid, w, gain_weighted).value_gradient_hessian(f)
    assert J1 == pytest.approx(J, rel=1e-14)
    np.testing.assert_allclose(grad1, grad, rtol=1e-13, atol=1e-300)


def test_linear_spread_limit_counts_weights_gains_and_rows():
    """The per-query limit: 700 less the largest log of a sum's factors, 700 plus the smallest."""
    y = np.array([0.0, 3.0, 0.0, 1.0, 1.0])
    qid = np.array([0, 0, 1, 1, 1])
    w = np.array([1.0, 1e-100, 1.0, 1.0, 1.0])
    bound = _bind("exp", "identity", y, qid, w, True)
    # query 0: hi = 3 log 2 + 2 log 2, lo = log(2^3 − 1) + 2 log 1e-100; query 1: hi = log 2 + 2 log 3, lo = 0
    expected_0 = min(700 - 3 * math.log(2) - 2 * math.log(2), 700 + math.log(7) + 2 * math.log(1e-100))
    expected_1 = min(700 - math.log(2) - 2 * math.log(3), 700 + 0.0)
    np.testing.assert_allclose(bound._spread_limit, [expected_0, expected_1], rtol=1e-14)


def test_linear_refuses_sums_beyond_the_doubles():
    """Weights of 1e200: w² overflows.  The bound's own limit refuses; a kernel told otherwise reports the overflow."""
    y = np.array([0.0, 1.0, 0.0, 2.0])
    qid = np.array([0, 0, 1, 1])
    w = np.array([1e200, 1e200, 1.0, 1.0])
    f = np.array([0.0, 0.5, 0.25, -0.25])
    bound = _bind("exp", "identity", y, qid, w, True)
    assert _kernel(bound, f)[0] == LinearStatus.LINEAR_SPREAD
    assert _kernel(bound, f, np.full(2, np.inf))[0] == LinearStatus.LINEAR_OVERFLOW
    J, grad, hess = bound.value_gradient_hessian(f)
    assert J == pytest.approx(math.log(1e200) * 2 + math.log(2 - 1) + f[0] - f[1], rel=1e-14)
    np.testing.assert_allclose(grad, [1.0, -1.0, 0.0, 0.0], atol=1e-300)


def test_linear_not_finite_scores_take_the_path_that_names_them():
    y, qid, f, w = _data(1)
    bound = _bind("exp", "identity", y, qid, w, False)
    f = f.copy()
    f[3] = np.nan
    assert _kernel(bound, f)[0] == LinearStatus.LINEAR_NOT_FINITE
    with pytest.raises(ValueError, match="scores: must be finite, got nan at row 3"):
        bound.value_gradient_hessian(f)


@pytest.mark.parametrize("loss,price", [("exp", "pow:2"), ("exp", "exp:0.5"), ("logistic", "identity")])
def test_linear_kernel_only_for_exponential_loss_and_degree_one(loss, price):
    y, qid, _, w = _data(0)
    assert _bind(loss, price, y, qid, w, True)._log_g1 is None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), gain_weighted=st.booleans(), loss=st.sampled_from(LOSSES),
       shift=st.floats(-200, 200))
def test_hypothesis_linear_shift_of_one_query_and_permutation_change_nothing(seed, gain_weighted, loss, shift):
    y, qid, f, w = _data(seed, n=40, n_queries=5)
    bound = _bind(loss, "identity", y, qid, w, gain_weighted)
    J, grad, hess = bound.value_gradient_hessian(f)
    _assert_same((J, grad, hess), _log_path(bound, f), bound.rate)
    moved = f + np.where(qid == qid[seed % len(qid)], shift, 0.0)
    J2, grad2, hess2 = bound.value_gradient_hessian(moved)
    assert J2 == pytest.approx(J, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(hess2, hess, rtol=1e-10)
    assert np.all(np.abs(grad2 - grad) <= 1e-10 * hess / bound.rate)
    perm = np.random.default_rng(seed).permutation(len(y))
    shuffled = _bind(loss, "identity", y[perm], qid[perm], w[perm], gain_weighted)
    J3, grad3, hess3 = shuffled.value_gradient_hessian(f[perm])
    assert J3 == pytest.approx(J, rel=1e-13)
    np.testing.assert_allclose(hess3, hess[perm], rtol=1e-12)
    assert np.all(np.abs(grad3 - grad[perm]) <= 1e-12 * hess[perm] / bound.rate)


def test_linear_kernel_refuses_arrays_of_other_lengths():
    """The kernel reads its arrays through raw pointers: one of the wrong length is refused, not read past."""
    y, qid, f, w = _data(3)
    bound = _bind("exp", "identity", y, qid, w, True)
    n, n_levels = f.shape[0], bound.level_starts.shape[0]
    good = dict(scores=np.ascontiguousarray(f), order=bound.order, pos_weight=bound.pos_weight,
                neg_weight=bound.neg_weight, level_starts=bound._level_edges, bounds=bound.bounds,
                step=bound._level_step, spread_limit=bound._spread_limit, above=np.empty(n_levels),
                below=np.empty(n_levels), grad=np.empty(n), hess=np.empty(n))

    def call(**changed):
        a = {**good, **changed}
        return exp_linear_push(a["scores"], a["order"], a["pos_weight"], a["neg_weight"], a["level_starts"],
                               a["bounds"], a["step"], a["spread_limit"], float(bound.rate), 2, a["above"],
                               a["below"], a["grad"], a["hess"])

    status, total = call()
    assert status == LinearStatus.LINEAR_DONE and total > 0
    for name, short in [("order", bound.order[:-1]), ("pos_weight", bound.pos_weight[:-1]),
                        ("neg_weight", bound.neg_weight[:-1]), ("grad", np.empty(n - 1)), ("hess", np.empty(n + 1)),
                        ("above", np.empty(n_levels - 1)), ("below", np.empty(n_levels - 1)),
                        ("step", bound._level_step[:-1]), ("spread_limit", bound._spread_limit[:-1]),
                        ("level_starts", bound._level_edges[:-1])]:
        with pytest.raises(ValueError, match="exp_linear_push"):
            call(**{name: short})
    beyond = bound.bounds.copy()
    beyond[-1] = n_levels + 1
    with pytest.raises(ValueError, match="ascending range"):
        call(bounds=beyond)
    backwards = bound.bounds.copy()
    backwards[1], backwards[2] = backwards[2], backwards[1]
    with pytest.raises(ValueError, match="ascending range"):
        call(bounds=backwards)


# ----------------------------------------------------------------------
# More than one thread (from 4,096 rows): the same numbers to the last bit
# ----------------------------------------------------------------------
THREADED_ROWS = 16_384 + 2_000


def _threaded_data(seed, n=THREADED_ROWS, n_queries=500):
    """Rows in query order (as a fit holds them), one query holding a quarter of them, plus :func:`_data`'s cases."""
    rng = np.random.default_rng(seed)
    qid = np.sort(rng.integers(0, n_queries, n))
    qid[: n // 4] = 0                                   # a query of a quarter of the rows
    qid[n // 4] = n_queries                             # a query of one row
    qid[n // 4 + 1:n // 4 + 5] = n_queries + 1          # a query of one grade
    y = rng.choice([0.0, 0.5, 1.0, 2.25, 3.0], n)
    y[n // 4 + 1:n // 4 + 5] = 1.0
    f = rng.integers(-8, 9, n) / 4.0                    # ties in scores
    w = rng.uniform(0.2, 3.0, n)
    w[rng.random(n) < 0.15] = 0.0
    return y, qid, f, w


def _kernel_on(bound, f, n_threads, want=2):
    n_levels = bound.level_starts.shape[0]
    grad, hess = np.full(f.shape[0], np.nan), np.full(f.shape[0] if want == 2 else 0, np.nan)
    status, total = exp_linear_push(np.ascontiguousarray(f, dtype=float), bound.order, bound.pos_weight,
                                    bound.neg_weight, bound._level_edges, bound.bounds, bound._level_step,
                                    bound._spread_limit, float(bound.rate), want, np.empty(n_levels),
                                    np.empty(n_levels), grad, hess, n_threads)
    return status, total, grad, hess


@pytest.mark.parametrize("gain_weighted", [False, True], ids=["pairs", "gain_weighted"])
@pytest.mark.parametrize("want", [0, 1, 2])
def test_linear_kernel_on_threads_is_the_one_thread_kernel_bit_for_bit(gain_weighted, want):
    y, qid, f, w = _threaded_data(0)
    bound = _bind("exp", "identity", y, qid, w, gain_weighted)
    status, total, grad, hess = _kernel_on(bound, f, 1, want)
    assert status == LinearStatus.LINEAR_DONE and total > 0
    for n_threads in (2, 3, 8):
        s, t, g, h = _kernel_on(bound, f, n_threads, want)
        assert s == status and t == total
        if want > 0:
            np.testing.assert_array_equal(g, grad)
        if want == 2:
            np.testing.assert_array_equal(h, hess)


def test_linear_kernel_on_two_threads_against_the_pair_loop():
    y, qid, f, w = _threaded_data(1, n_queries=2_000)
    bound = _bind("exp", "identity", y, qid, w, True)
    bound.n_threads = 2
    J, grad, hess = bound.value_gradient_hessian(f)
    J0, grad0, hess0 = _log_path(bound, f)
    _assert_same((J, grad, hess), (J0, grad0, hess0), 1.0)


def test_linear_kernel_on_threads_reports_the_first_refusal_in_query_order():
    y, qid, f, w = _threaded_data(2)
    bound = _bind("exp", "identity", y, qid, w, False)
    first = len(y) // 4 + 10                            # a row of an early query (thread 0's)
    last = np.flatnonzero(qid == qid[-1])[0]            # a row of the last query (the last thread's)
    spread = f.copy()
    spread[first] = 1e4                                 # an early query spreads beyond its limit ...
    spread[last] = np.nan                               # ... before the last query's NaN
    for n_threads in (1, 2, 3):
        assert _kernel_on(bound, spread, n_threads)[0] == LinearStatus.LINEAR_SPREAD
    nan_first = spread.copy()
    nan_first[first], nan_first[last] = np.nan, 1e4
    for n_threads in (1, 2, 3):
        assert _kernel_on(bound, nan_first, n_threads)[0] == LinearStatus.LINEAR_NOT_FINITE


def test_linear_kernel_refuses_a_thread_count_below_one():
    y, qid, f, w = _data(0)
    bound = _bind("exp", "identity", y, qid, w, False)
    with pytest.raises(ValueError, match="n_threads must be at least 1, got 0"):
        _kernel_on(bound, f, 0)
    with pytest.raises(ValueError, match="n_threads: expected an integer >= 1, got 0"):
        QueryPush("exp", "identity").bind(y, check_qid(qid, len(y)), w, n_threads=0)


def test_a_fit_within_queries_on_two_threads_is_the_one_thread_fit(exact_threads):
    exact_threads(2)
    y, qid, _, _ = _threaded_data(3, n_queries=800)
    X = np.random.default_rng(3).normal(size=(y.shape[0], 3)) + y[:, None] * 0.3
    fits = [rankcore.boost(learner="trees:max_depth=2", n_iter=3, random_state=0, n_jobs=t).fit(X, y, qid=qid)
            for t in (1, 2)]
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))
    np.testing.assert_array_equal(fits[0].objective_values_, fits[1].objective_values_)


def test_linear_kernel_given_fewer_threads_than_asked_still_does_every_query():
    """OMP_THREAD_LIMIT=1 gives each parallel region one thread: every run of queries is still summed."""
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np, sys\n"
        "sys.path[:0] = sys.argv[1:]\n"
        "import test_query_push_linear as t\n"
        "y, qid, f, w = t._threaded_data(5)\n"
        "bound = t._bind('exp', 'identity', y, qid, w, True)\n"
        "one, two = t._kernel_on(bound, f, 1), t._kernel_on(bound, f, 2)\n"
        "assert one[0] == two[0] and one[1] == two[1]\n"
        "assert np.array_equal(one[2], two[2]) and np.array_equal(one[3], two[3])\n"
        "print('ok')\n"
    )
    here = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    done = subprocess.run([sys.executable, "-c", script, here, os.path.dirname(here)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr

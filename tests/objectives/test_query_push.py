"""The per-query push over grades: exact pairwise references, finite differences, shuffles, extremes, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _query_objective_reference import query_push_reference
from rankcore.metrics._queries import check_qid
from rankcore.objectives._base import HESSIAN_FLOOR
from rankcore.objectives._query_push import QueryPush
from rankcore.registry import resolve

LOSSES = ["exp", "logistic", "sqhinge", "hinge"]
PRICES = ["identity", "pow:3", "pow:1.5", "exp:0.5"]


def _data(seed, n=45, n_queries=6, float_grades=False):
    """Rows not sorted by query, queries of different sizes, ties in scores and grades."""
    rng = np.random.default_rng(seed)
    qid = rng.choice(np.arange(n_queries) * 7 + 3, n, p=np.arange(1, n_queries + 1) / (n_queries * (n_queries + 1) / 2))
    grades = [0, 0.5, 1.25, 3] if float_grades else [0, 1, 2, 4]
    y = rng.choice(grades, n)
    f = rng.integers(-6, 7, n) / 4.0                 # ties in scores
    w = rng.uniform(0.5, 2.0, n)
    return y, qid, f, w


def _bind(loss, price, y, qid, w, gain_weighted=False):
    return QueryPush(loss, price, gain_weighted=gain_weighted).bind(y, check_qid(qid, len(y)), w)


@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("price", PRICES)
@pytest.mark.parametrize("loss", LOSSES)
def test_matches_pairwise_reference(loss, price, gain_weighted):
    for seed, float_grades in ((0, False), (1, True)):
        y, qid, f, w = _data(seed, float_grades=float_grades)
        bound = _bind(loss, price, y, qid, w, gain_weighted)
        R, dR, d2R = query_push_reference(y, qid, f, w, bound.loss, bound.price, gain_weighted)
        J, grad = bound.value_and_gradient(f)
        assert J == pytest.approx(math.log(R), rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(grad, dR / R, rtol=1e-10, atol=1e-13)
        assert bound.value(f) == J
        if bound.has_hessian:
            J2, grad2, hess = bound.value_gradient_hessian(f)
            assert J2 == J
            np.testing.assert_array_equal(grad2, grad)
            np.testing.assert_allclose(hess, np.maximum(d2R / R, HESSIAN_FLOOR), rtol=1e-9, atol=1e-13)


def test_hinge_has_no_curvature():
    y, qid, f, w = _data(0)
    bound = _bind("hinge", "pow:2", y, qid, w)
    assert not bound.has_hessian
    with pytest.raises(ValueError, match="'hinge'.*no curvature"):
        bound.value_gradient_hessian(f)


@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("loss,price", [("exp", "identity"), ("exp", "pow:4"), ("logistic", "pow:2")])
def test_gradient_and_curvature_by_finite_differences(loss, price, gain_weighted):
    rng = np.random.default_rng(3)
    y, qid, _, w = _data(3)
    f = rng.normal(size=y.shape[0])                 # smooth point: no ties
    bound = _bind(loss, price, y, qid, w, gain_weighted)
    J, grad, hess = bound.value_gradient_hessian(f)
    eps = 1e-5
    for n in range(0, y.shape[0], 4):
        e = np.zeros_like(f)
        e[n] = eps
        up, down = bound.value(f + e), bound.value(f - e)
        assert (up - down) / (2 * eps) == pytest.approx(grad[n], rel=1e-5, abs=1e-8)
        # h = R''/R = J'' + J'^2 (a wider step: the second difference cancels more digits)
        e[n] = 1e-3
        second = (bound.value(f + e) - 2 * J + bound.value(f - e)) / 1e-6 + grad[n] ** 2
        assert second == pytest.approx(hess[n], rel=1e-4, abs=1e-7)


@pytest.mark.parametrize("loss", ["exp", "logistic"])
def test_invariant_to_shuffled_rows_and_relabelled_queries(loss):
    y, qid, f, w = _data(5, float_grades=True)
    bound = _bind(loss, "pow:2", y, qid, w, True)
    J, grad, hess = bound.value_gradient_hessian(f)
    perm = np.random.default_rng(9).permutation(y.shape[0])
    names = np.array([f"q{v}" for v in qid])
    shuffled = _bind(loss, "pow:2", y[perm], names[perm], w[perm], True)
    J2, grad2, hess2 = shuffled.value_gradient_hessian(f[perm])
    assert J2 == pytest.approx(J, rel=1e-14)
    np.testing.assert_allclose(grad2, grad[perm], rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(hess2, hess[perm], rtol=1e-13, atol=1e-16)


def test_queries_are_independent_and_single_grade_queries_count():
    y = np.array([0, 1, 2, 1, 1, 3, 0, 2.0])
    qid = np.array([1, 1, 1, 2, 2, 3, 4, 4])
    f = np.array([0.3, -0.2, 0.1, 5.0, -5.0, 9.0, 0.4, -0.7])
    bound = _bind("exp", "identity", y, qid, None)
    assert bound.n_single_grade_queries == 2                       # query 2 (one grade), query 3 (one row)
    J, grad = bound.value_and_gradient(f)
    np.testing.assert_array_equal(grad[[3, 4, 5]], 0.0)
    # RankBoost within queries by hand: Σ over ordered pairs of e^{−(f_hi − f_lo)}
    pairs = [(1, 0), (2, 0), (2, 1), (7, 6)]
    assert J == pytest.approx(math.log(sum(math.exp(f[k] - f[i]) for i, k in pairs)), rel=1e-14)
    # a query of one grade moving changes nothing
    g = f.copy()
    g[[3, 4, 5]] = [-50.0, 60.0, 0.0]
    assert bound.value(g) == J


def test_gain_weighted_pairs_by_hand():
    y = np.array([0, 1, 3.0])
    f = np.array([0.5, 0.0, -0.25])
    bound = _bind("exp", "identity", y, np.zeros(3), None, True)
    pairs = [(1, 0, 2 - 1), (2, 0, 8 - 1), (2, 1, 8 - 2)]
    expected = sum(a * math.exp(f[k] - f[i]) for i, k, a in pairs)
    assert bound.value(f) == pytest.approx(math.log(expected), rel=1e-14)


@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("price", ["identity", "pow:64", "exp:0.5"])
def test_steep_prices_and_large_scores_stay_finite(price, gain_weighted):
    y, qid, _, w = _data(7)
    rng = np.random.default_rng(7)
    f = rng.uniform(-700, 700, y.shape[0])
    bound = _bind("exp", price, y, qid, w, gain_weighted)
    J, grad, hess = bound.value_gradient_hessian(f)
    assert math.isfinite(J)
    assert np.isfinite(grad).all() and np.isfinite(hess).all()
    assert (hess >= HESSIAN_FLOOR).all()
    assert abs(grad.sum()) <= 1e-9 * max(1.0, np.abs(grad).max())      # shift invariance: Σ ∂J/∂f = 0


def test_pow64_extreme_scores_match_the_reference_in_log_space():
    """At p = 64 the plain reference overflows; compare with it on scores scaled so that it does not."""
    y, qid, f, w = _data(11)
    f = f * 3.0
    bound = _bind("exp", "pow:64", y, qid, w)
    J, grad = bound.value_and_gradient(f)
    shifted = bound.value(f + 400.0)           # a shift of every score changes nothing
    assert shifted == pytest.approx(J, rel=1e-12)
    R, dR, _ = query_push_reference(y, qid, f / 16, w, bound.loss, bound.price)
    J16, grad16 = bound.value_and_gradient(f / 16)
    assert J16 == pytest.approx(math.log(R), rel=1e-12)
    np.testing.assert_allclose(grad16, dR / R, rtol=1e-9, atol=1e-12)


def test_levels_far_apart_keep_every_level():
    """Levels e^{±1400} apart in one query: each level's sums stay exact in log space."""
    y = np.array([0, 1, 2.0])
    f = np.array([-700.0, 700.0, 0.0])
    J, grad = _bind("exp", "identity", y, np.zeros(3), None).value_and_gradient(f)
    # pairs (hi, lo): (1, 0) e^{-1400}, (2, 0) e^{-700}, (2, 1) e^{700}: the (2, 1) pair dominates
    assert J == pytest.approx(700.0, rel=1e-14)
    np.testing.assert_allclose(grad, [0.0, 1.0, -1.0], atol=1e-12)
    J, grad = _bind("exp", "identity", y, np.zeros(3), None).value_and_gradient(-f)
    assert J == pytest.approx(1400.0, rel=1e-14)
    np.testing.assert_allclose(grad, [1.0, -1.0, 0.0], atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_hypothesis_matches_reference(data):
    n = data.draw(st.integers(2, 14))
    qid = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=n, max_size=n)))
    f = np.array(data.draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n)), dtype=float) / 4
    gain_weighted = data.draw(st.booleans())
    loss = data.draw(st.sampled_from(["exp", "logistic"]))
    price = data.draw(st.sampled_from(["identity", "pow:2"]))
    try:
        bound = _bind(loss, price, y, qid, None, gain_weighted)
    except ValueError:
        # no query has two grades: the reference has no pair either
        assert query_push_reference(y, qid, f, np.ones(n), *_components(loss, price), gain_weighted)[0] == 0
        return
    R, dR, d2R = query_push_reference(y, qid, f, np.ones(n), bound.loss, bound.price, gain_weighted)
    J, grad, hess = bound.value_gradient_hessian(f)
    assert J == pytest.approx(math.log(R), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(grad, dR / R, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(hess, np.maximum(d2R / R, HESSIAN_FLOOR), rtol=1e-9, atol=1e-12)
    assert abs(grad.sum()) < 1e-9                                     # depends on differences only


def _components(loss, price):
    obj = QueryPush(loss, price)
    return obj.loss, obj.price


@pytest.mark.parametrize("args,kwargs,error,match", [
    (("nope", "identity"), {}, ValueError, "loss: "),
    (("exp", 4), {}, TypeError, "price: expected a registered price"),
    ((resolve("price", "identity"), "exp"), {}, TypeError, "loss: expected a loss, got the price"),
    (("exp", "identity"), {"gain_weighted": "yes"}, TypeError, "gain_weighted: expected True or False"),
])
def test_bad_components(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        QueryPush(*args, **kwargs)


@pytest.mark.parametrize("y,w,scores,match", [
    ([0, -1, 2], None, [0, 0, 0], r"y: grades must be finite and >= 0, got -1.0 at row 1"),
    ([0, np.nan, 2], None, [0, 0, 0], r"y: grades must be finite and >= 0, got nan at row 1"),
    ([0, 1], None, [0, 0, 0], r"y: expected one grade per row \(3\)"),
    ([0, 1, 2], [1, -1, 1], [0, 0, 0], r"sample_weight: weights must be finite and >= 0, got -1.0 at row 1"),
    ([0, 1, 2], None, [0, np.inf, 0], r"scores: must be finite, got inf at row 1"),
    ([0, 1, 2], None, [0, 0], r"scores: expected one score per row \(3\)"),
    ([1, 1, 1], None, [0, 0, 0], r"needs a query with two grades .* 1 with a single grade"),
])
def test_bad_input(y, w, scores, match):
    with pytest.raises(ValueError, match=match):
        QueryPush().bind(np.array(y, dtype=float), check_qid([5, 5, 5], 3), w).value(np.array(scores, dtype=float))


def test_gain_weighted_grades_that_overflow_name_the_row():
    with pytest.raises(ValueError, match=r"grades <= 1023\), got 2000.0 at row 2"):
        QueryPush(gain_weighted=True).bind(np.array([0, 1, 2000.0]), check_qid([1, 1, 1], 3))
    QueryPush().bind(np.array([0, 1, 2000.0]), check_qid([1, 1, 1], 3))           # unweighted: grades only order


def test_queries_argument_must_be_queries():
    with pytest.raises(TypeError, match="queries: expected a Queries"):
        QueryPush().bind(np.array([0, 1.0]), [1, 1])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), gain_weighted=st.booleans(), loss=st.sampled_from(["exp", "logistic"]))
def test_hypothesis_shift_within_each_query_changes_nothing(seed, gain_weighted, loss):
    """Only differences within a query count: adding a constant per query leaves J and ∇J."""
    y, qid, f, w = _data(seed, n=30, n_queries=4, float_grades=True)
    bound = _bind(loss, "pow:2", y, qid, w, gain_weighted)
    J, grad = bound.value_and_gradient(f)
    shift = np.random.default_rng(seed).uniform(-30, 30, qid.max() + 1)[qid]
    J2, grad2 = bound.value_and_gradient(f + shift)
    assert J2 == pytest.approx(J, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(grad2, grad, rtol=1e-9, atol=1e-12)
    for q in np.unique(qid):                                            # Σ ∂J/∂f = 0 within each query
        assert abs(grad[qid == q].sum()) <= 1e-10


def test_line_agrees_with_the_gradient():
    y, qid, f, w = _data(2)
    bound = _bind("exp", "pow:4", y, qid, w, True)
    h = np.random.default_rng(2).normal(size=y.shape[0])
    line = bound.line(f, h)
    at = line(0.1)
    assert at.value == bound.value(f + 0.1 * h)
    assert at.d1 == pytest.approx((line(0.1 + 1e-6).value - line(0.1 - 1e-6).value) / 2e-6, rel=1e-5)


def test_a_query_of_100000_documents():
    """RankBoost on one long query against the sorted prefix sums of its closed form."""
    rng = np.random.default_rng(0)
    n = 100_000
    y = rng.choice([0.0, 1.0, 2.0], n)
    f = rng.normal(size=n)
    J, grad = _bind("exp", "identity", y, np.zeros(n), None).value_and_gradient(f)
    # R = Σ_k e^{f_k} Σ_{y_i > y_k} e^{−f_i}: per grade, the sums over the higher grades
    above = {g: np.exp(-f[y > g]).sum() for g in (0.0, 1.0)}
    R = sum(np.exp(f[y == g]).sum() * above[g] for g in (0.0, 1.0))
    assert J == pytest.approx(math.log(R), rel=1e-12)
    below = {g: np.exp(f[y < g]).sum() for g in (1.0, 2.0)}
    expected = np.where(y < 2, np.exp(f) * np.where(y == 0, above[0.0], above[1.0]), 0.0)
    expected -= np.where(y > 0, np.exp(-f) * np.where(y == 2, below[2.0], below[1.0]), 0.0)
    np.testing.assert_allclose(grad, expected / R, rtol=1e-9, atol=1e-18)


def test_pairwise_form_where_the_objective_is_subnormal():
    """Weights g′(L)/R beyond any float (L ≈ 2.5e-310, p = 64) are scaled, never inf or NaN."""
    y = np.array([0.0, 1.0])
    f = np.array([0.0, 0.5])
    w = np.array([1.0, 1e-309])
    J, grad, hess = _bind("sqhinge", "pow:64", y, [1, 1], w).value_gradient_hessian(f)
    L = 1e-309 * 0.25
    assert J == pytest.approx(64 * math.log(L), rel=1e-9)
    # J = 64 log L, L = w (1 − z)²: ∂J/∂f_0 = 128 / (1 − z) = −∂J/∂f_1
    np.testing.assert_allclose(grad, [256.0, -256.0], rtol=1e-9)
    # R″/R = 64·63 (L′/L)² + 64 L″/L with L′/L = 2 / (1 − z) = 4 and L″/L = 2 / (1 − z)² = 8
    np.testing.assert_allclose(hess, [64 * 63 * 16 + 64 * 8] * 2, rtol=1e-9)

"""The per-query push with place discounts and per-query normalization against an exact O(n_q²) reference."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _query_objective_reference import place_discounts_reference, position_push_reference
from rankcore.metrics._queries import check_qid
from rankcore.objectives._base import HESSIAN_FLOOR, clip_hessian
from rankcore.objectives._query_positions import BoundPositionPush, place_discounts
from rankcore.objectives._query_push import QueryPush
from rankcore.registry import resolve
from rankcore.spec import SpecError


def _data(seed, n=70, n_queries=8):
    """Ties in scores and grades, zero and uneven weights, a one-row and a one-grade query, rows not grouped."""
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n)
    qid[0] = n_queries
    qid[1:4] = n_queries + 1
    y = rng.choice([0.0, 1.0, 2.0, 3.0, 4.0], n)
    y[1:4] = 2.0
    f = rng.integers(-6, 7, n) / 3.0
    w = rng.uniform(0.3, 2.5, n)
    w[rng.random(n) < 0.1] = 0.0
    return y, qid, f, w


def _bind(y, qid, w, **options):
    return QueryPush("exp", "identity", **options).bind(y, check_qid(qid, len(y)), w)


def _assert_matches(bound, y, qid, f, w, **options):
    J0, grad0, hess0 = position_push_reference(y, qid, f, w, **options)
    J, grad, hess = bound.value_gradient_hessian(f)
    assert J == pytest.approx(J0, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(grad, grad0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(hess, clip_hessian(hess0), rtol=1e-9, atol=1e-15)
    assert bound.value(f) == pytest.approx(J, rel=1e-14)


@pytest.mark.parametrize("truncation", [0, 1, 3])
def test_place_discounts_match_a_loop(truncation):
    for seed in range(3):
        _, qid, f, _ = _data(seed)
        expected = place_discounts_reference(f, qid, truncation)
        np.testing.assert_array_equal(place_discounts(f, qid, truncation), expected)


OPTIONS = [dict(discount="sum"), dict(discount="sum", truncation=3), dict(normalize=True),
           dict(discount="sum", normalize=True), dict(discount="sum", truncation=5, normalize=True),
           dict(discount="product"), dict(discount="product", truncation=4, normalize=True)]


@pytest.mark.parametrize("gain_weighted", [False, True], ids=["pairs", "gain_weighted"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_matches_pairwise_reference(options, gain_weighted):
    for seed in range(3):
        y, qid, f, w = _data(seed)
        bound = _bind(y, qid, w, gain_weighted=gain_weighted, **options)
        assert isinstance(bound, BoundPositionPush)
        _assert_matches(bound, y, qid, f, w, gain_weighted=gain_weighted, **options)


def test_log_space_path_gives_the_same_numbers():
    """A query spread beyond the linear kernel's range: both parts take the log-space path, same definition."""
    y, qid, f, w = _data(4)
    bound = _bind(y, qid, w, gain_weighted=True, discount="sum", truncation=4, normalize=True)
    narrow = bound.value_gradient_hessian(f)
    bound.push._spread_limit = np.full_like(bound.push._spread_limit, -1.0)     # every query refused
    wide = bound.value_gradient_hessian(f)
    assert wide[0] == pytest.approx(narrow[0], rel=1e-12)
    np.testing.assert_allclose(wide[1], narrow[1], rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(wide[2], narrow[2], rtol=1e-9, atol=1e-15)


def test_weights_come_from_the_places_of_each_evaluation():
    """Moving one row to the top changes the discounts: the gradient is the reference's at the new places."""
    y, qid, f, w = _data(5)
    options = dict(gain_weighted=True, discount="sum", truncation=2)
    bound = _bind(y, qid, w, **options)
    _assert_matches(bound, y, qid, f, w, **options)
    g = f.copy()
    g[np.flatnonzero(qid == qid[10])[-1]] = 10.0
    _assert_matches(bound, y, qid, g, w, **options)


def test_normalized_queries_each_weigh_one_at_equal_scores():
    y, qid, _, w = _data(6)
    f = np.zeros(y.shape[0])
    for options in (dict(normalize=True), dict(discount="sum", truncation=3, normalize=True)):
        J = _bind(y, qid, w, gain_weighted=True, **options).value(f)
        live = [q for q in np.unique(qid) if len(np.unique(y[(qid == q) & (w > 0)])) > 1]
        assert math.exp(J) == pytest.approx(len(live), rel=1e-12)


@pytest.mark.parametrize("discount", ["none", "sum", "product"])
def test_normalized_weights_do_not_depend_on_the_grades_scale(discount):
    # normalized, the pair weights (2^y_i − 2^y_k)/Z_q are ratios: a query of grades 0, t, t, t gives the same J and
    # gradient at t = 1023 as at t = 1000 (Z_q overflowed at 1023 and the query was dropped)
    f = np.array([1.0, 0.0, 0.5, -0.5, 0.2, 0.1])
    qid, w = np.array([0, 0, 0, 0, 1, 1]), np.ones(6)
    results = [_bind(np.array([0.0, t, t, t, 1.0, 2.0]), qid, w, gain_weighted=True, discount=discount,
                     normalize=True).value_gradient_hessian(f) for t in (1000.0, 1023.0)]
    assert results[1][0] == pytest.approx(results[0][0], rel=1e-12)
    assert np.all(results[1][1][:4] != 0)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-9, atol=1e-15)


def test_line_matches_values_and_gradient_with_the_weights_held():
    y, qid, f, w = _data(7)
    bound = _bind(y, qid, w, gain_weighted=True, discount="sum", normalize=True)
    h = np.random.default_rng(7).normal(size=f.shape[0])
    J, grad = bound.value_and_gradient(f)
    point = bound.line(f, h)(0.0)
    assert point.value == pytest.approx(J, rel=1e-12)
    assert point.d1 == pytest.approx(float(grad @ h), rel=1e-9)
    # φ″ by differences of φ′ along the line (the places held at α = 0, as in the line)
    line = bound.line(f, h)
    eps = 1e-5
    assert point.d2 == pytest.approx((line(eps).d1 - line(-eps).d1) / (2 * eps), rel=1e-4)


def test_curvature_is_clipped_at_the_floor_where_no_pair_reaches():
    y, qid, f, w = _data(8)
    _, _, hess = _bind(y, qid, w, gain_weighted=True, discount="sum").value_gradient_hessian(f)
    assert np.all(hess >= HESSIAN_FLOOR)
    assert np.all(hess[w == 0][np.isin(qid[w == 0], [qid[0]])] == HESSIAN_FLOOR)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), truncation=st.integers(0, 6), normalize=st.booleans(),
       discount=st.sampled_from(["sum", "product"]), shift=st.floats(-5, 5), scale=st.floats(0.2, 3.0))
def test_hypothesis_invariants(seed, truncation, normalize, discount, shift, scale):
    """Per query the gradient sums to 0; a shift per query, or an increasing map of all scores that keeps
    the places, leaves the places' discounts and the gradient's signs; the reference agrees."""
    y, qid, f, w = _data(seed, n=40, n_queries=5)
    options = dict(gain_weighted=True, discount=discount, truncation=truncation, normalize=normalize)
    bound = _bind(y, qid, w, **options)
    J, grad, _ = bound.value_gradient_hessian(f)
    np.testing.assert_allclose(np.bincount(qid, grad), 0.0, atol=1e-12)
    moved = f + shift * (qid % 3)                                    # a different shift for each query
    J1, grad1, _ = bound.value_gradient_hessian(moved)
    assert J1 == pytest.approx(J, rel=1e-10, abs=1e-12)
    np.testing.assert_allclose(grad1, grad, rtol=1e-8, atol=1e-12)
    stretched = scale * f
    np.testing.assert_array_equal(place_discounts(stretched, qid, truncation), place_discounts(f, qid, truncation))
    J0, grad0, _ = position_push_reference(y, qid, stretched, w, **options)
    np.testing.assert_allclose(bound.value_and_gradient(stretched)[1], grad0, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("spec, match", [
    ("push:logistic,identity,discount=sum", "discount: needs the exponential loss"),
    ("push:exp,pow:4,normalize=true", "normalize: needs the exponential loss"),
    ("push:exp,identity,truncation=3", "truncation: .*needs discount=sum or product"),
    ("push:exp,identity,discount=sum,truncation=-1", "truncation must be an integer >= 0"),
    ("push:exp,identity,discount=maybe", "discount must be .*one of 'none', 'sum', 'product'"),
])
def test_bad_options_are_named(spec, match):
    with pytest.raises(SpecError, match=match):
        resolve("objective", spec)


def test_bad_options_of_the_query_push_are_named():
    with pytest.raises(ValueError, match="discount: expected one of 'none', 'sum', 'product'"):
        QueryPush("exp", "identity", discount=True)
    with pytest.raises(TypeError, match="normalize: expected True or False"):
        QueryPush("exp", "identity", normalize=1)
    with pytest.raises(ValueError, match="truncation: expected an integer >= 0"):
        QueryPush("exp", "identity", discount="sum", truncation=2.5)


def test_options_on_one_list_need_queries():
    objective = resolve("objective", "push:exp,identity,discount=sum")
    with pytest.raises(ValueError, match="discount, normalize and query_rmse act within queries\\)"):
        objective.bind(np.array([0.0, 1.0, 1.0]))


def test_spec_round_trips():
    for spec in ("push:exp,identity,gain_weighted=true,discount=sum,truncation=10,normalize=true",
                 "push:exp,identity,discount=product", "push:exp,identity,normalize=true"):
        objective = resolve("objective", spec)
        assert resolve("objective", objective.spec) == objective
    assert QueryPush("exp", "identity", gain_weighted=True, discount="sum", truncation=10).spec == \
        "push:exp,identity,gain_weighted=true,discount=sum,truncation=10"


@pytest.mark.parametrize("options", ["discount=sum,truncation=10,normalize=true", "discount=product"])
def test_trees_learn_the_grades_with_the_options(options):
    """A fit through ``rankcore.boost`` takes the options (Newton leaves) and ranks its training queries."""
    import rankcore

    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(12), 15)
    X = rng.normal(size=(qid.shape[0], 3))
    y = np.clip(np.round(X[:, 0] + 1.5), 0, 3)
    model = rankcore.boost(learner="trees", objective=f"push:exp,identity,gain_weighted=true,{options}",
                           n_iter=15, random_state=0).fit(X, y, qid=qid)
    assert model.score(X, y, qid=qid) > 0.9
    reversed_grades = rankcore.evaluate(y, -model.decision_function(X), ["ndcg@k:10"], qid=qid)["ndcg@k:10"]
    assert reversed_grades < 0.7


def test_a_fit_without_queries_names_the_options():
    import rankcore

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(float)
    with pytest.raises(ValueError, match=r"qid: the objective 'push:discount=product' ranks within queries "
                                         r"\(discount, normalize and query_rmse act within queries\); fit with qid"):
        rankcore.boost(learner="trees", objective="push:exp,identity,discount=product", n_iter=3).fit(X, y)

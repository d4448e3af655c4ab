"""The per-query push plus CatBoost's QueryRMSE (``query_rmse``): NumPy references, finite differences, the line,
λ = 0 bit for bit, a per-query shift invariant, specs, saved models, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _query_objective_reference import check_line_point, position_push_reference, query_push_reference
from rankcore.metrics._queries import check_qid
from rankcore.objectives._base import HESSIAN_FLOOR
from rankcore.objectives._query_push import QueryPush
from rankcore.objectives._query_rmse import QueryRMSETerm
from rankcore.registry import resolve
from rankcore.spec import SpecError

SPEC = "push:exp,identity,gain_weighted=true,query_rmse=2"


def _data(seed, n=60, n_queries=8):
    """Rows not sorted by query, ties in scores and grades, weights, a single-grade query, a one-row query."""
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n)
    y = rng.choice([0.0, 1.0, 2.0, 4.0], n)
    y[qid == 0] = 2.0                               # one grade: the term still pulls its scores together
    qid[5] = n_queries + 3                          # a query of one row
    f = rng.integers(-6, 7, n) / 4.0                # ties in scores
    w = rng.uniform(0.5, 2.0, n)
    w[7] = 0.0
    return y, qid, f, w


def _squared_reference(y, qid, f, w):
    """(Q, ∂Q/∂f, diagonal of ∂²Q/∂f²) of Q = ½ Σ_i w_i (r_i − m_q)², a loop over the queries."""
    r = f - y
    value, grad, hess = 0.0, np.zeros_like(f), np.zeros_like(f)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        total = w[rows].sum()
        if total == 0:
            continue
        mean = np.dot(w[rows], r[rows]) / total
        value += 0.5 * np.sum(w[rows] * (r[rows] - mean) ** 2)
        grad[rows] = w[rows] * (r[rows] - mean)
        hess[rows] = w[rows] * (1.0 - w[rows] / total)
    return value, grad, hess


def _push_reference(y, qid, f, w, loss, price, gain_weighted):
    """(J_push, ∂J_push, the push's curvature ∇²R / R) from the pairwise reference."""
    R, dR, d2R = query_push_reference(y, qid, f, w, resolve("loss", loss), resolve("price", price), gain_weighted)
    return math.log(R), dR / R, d2R / R


def _blend_reference(y, qid, f, w, lam, push):
    """(J, ∇J, curvature) of J = J_push + λc·Q, c = ‖∇J_push(0)‖₁ / ‖∇Q(0)‖₁, from the references."""
    zero = np.zeros_like(f)
    c = np.abs(push(zero)[1]).sum() / np.abs(_squared_reference(y, qid, zero, w)[1]).sum()
    J, g, h = push(f)
    Q, gq, hq = _squared_reference(y, qid, f, w)
    return J + lam * c * Q, g + lam * c * gq, np.maximum(h, HESSIAN_FLOOR) + lam * c * hq


def _bind(y, qid, w, loss="exp", price="identity", **options):
    return QueryPush(loss, price, **options).bind(y, check_qid(qid, len(y)), w)


@pytest.mark.parametrize("lam", [0.5, 2.0])
@pytest.mark.parametrize("loss,price,gain_weighted", [
    ("exp", "identity", True), ("exp", "identity", False),           # the linear-space kernel
    ("exp", "pow:3", True),                                           # log space
    ("logistic", "identity", True), ("logistic", "pow:2", False),     # pairwise sums
])
def test_query_rmse_matches_the_reference(loss, price, gain_weighted, lam):
    for seed in range(3):
        y, qid, f, w = _data(seed)
        bound = _bind(y, qid, w, loss, price, gain_weighted=gain_weighted, query_rmse=lam)
        J0, g0, h0 = _blend_reference(y, qid, f, w, lam,
                                      lambda s: _push_reference(y, qid, s, w, loss, price, gain_weighted))
        J, grad, hess = bound.value_gradient_hessian(f)
        assert J == pytest.approx(J0, rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(grad, g0, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(hess, h0, rtol=1e-9, atol=1e-13)
        assert bound.value(f) == J
        J1, grad1 = bound.value_and_gradient(f)
        assert J1 == J
        np.testing.assert_array_equal(grad1, grad)
        assert np.all(hess >= HESSIAN_FLOOR)


@pytest.mark.parametrize("options", [dict(discount="sum", truncation=3), dict(discount="product", normalize=True)])
def test_query_rmse_with_place_discounts_matches_the_reference(options):
    """The term adds outside the position-aware push's merging of its parts."""
    y, qid, f, w = _data(4)
    bound = _bind(y, qid, w, gain_weighted=True, query_rmse=2.0, **options)

    def push(s):
        J, g, h = position_push_reference(y, qid, s, w, gain_weighted=True, **options)
        return J, g, h

    J0, g0, _ = _blend_reference(y, qid, f, w, 2.0, push)
    J, grad = bound.value_and_gradient(f)
    assert J == pytest.approx(J0, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(grad, g0, rtol=1e-9, atol=1e-12)


def test_query_rmse_scale_matches_the_gradients_at_zero():
    """c makes ‖λc∇Q(0)‖₁ = λ‖∇J_push(0)‖₁: λ weighs the term against the push."""
    y, qid, _, w = _data(1)
    bound = _bind(y, qid, w, gain_weighted=True, query_rmse=3.0)
    zero = np.zeros_like(y)
    push_grad = bound.push.value_and_gradient(zero)[1]
    term_grad = bound.scale * bound.term.value_and_gradient(zero)[1]
    assert np.abs(term_grad).sum() == pytest.approx(3.0 * np.abs(push_grad).sum(), rel=1e-12)


@pytest.mark.parametrize("loss,price", [("exp", "identity"), ("exp", "pow:4"), ("logistic", "pow:2")])
def test_query_rmse_gradient_by_finite_differences(loss, price):
    rng = np.random.default_rng(3)
    y, qid, _, w = _data(3)
    f = rng.normal(size=y.shape[0])                 # smooth point: no ties
    bound = _bind(y, qid, w, loss, price, gain_weighted=True, query_rmse=2.0)
    _, grad = bound.value_and_gradient(f)
    eps = 1e-5
    for n in range(y.shape[0]):
        e = np.zeros_like(f)
        e[n] = eps
        fd = (bound.value(f + e) - bound.value(f - e)) / (2 * eps)
        assert fd == pytest.approx(grad[n], rel=1e-5, abs=1e-8)


@pytest.mark.parametrize("loss,price,options", [
    ("exp", "identity", {}), ("exp", "pow:3", {}), ("logistic", "identity", {}),
    ("exp", "identity", dict(discount="sum")),
])
def test_query_rmse_line_matches_direct_evaluation(loss, price, options):
    rng = np.random.default_rng(5)
    y, qid, f, w = _data(5)
    h = rng.choice([-0.3, 0.0, 0.7, 1.1], y.shape[0])
    bound = _bind(y, qid, w, loss, price, gain_weighted=True, query_rmse=2.0, **options)
    line = bound.line(f, h)
    for alpha in (0.0, 0.35, -0.6):
        at = check_line_point(bound, line, f, h, alpha, tolerance=1e-12)
        if loss == "exp" and not options:
            eps = 1e-5
            fd2 = (line(alpha + eps).d1 - line(alpha - eps).d1) / (2 * eps)
            assert at.d2 == pytest.approx(fd2, rel=1e-5, abs=1e-8)
        elif loss == "logistic":
            assert math.isnan(at.d2)                 # secant steps, as the push's own line


def test_query_rmse_line_refuses_a_direction_of_the_wrong_shape():
    y, qid, f, w = _data(0)
    bound = _bind(y, qid, w, query_rmse=1.0)
    with pytest.raises(ValueError, match="direction: expected one value per row"):
        bound.line(f, np.ones(3))


@pytest.mark.parametrize("loss,price,options", [("exp", "identity", {}), ("exp", "pow:3", {}),
                                                ("logistic", "identity", {}),
                                                ("exp", "identity", dict(discount="sum"))])
def test_query_rmse_zero_is_the_push_bit_for_bit(loss, price, options):
    y, qid, f, w = _data(2)
    rng = np.random.default_rng(2)
    h = rng.normal(size=y.shape[0])
    old = _bind(y, qid, w, loss, price, gain_weighted=True, **options)
    new = _bind(y, qid, w, loss, price, gain_weighted=True, query_rmse=0.0, **options)
    assert type(new) is type(old)
    for a, b in zip(old.value_gradient_hessian(f), new.value_gradient_hessian(f)):
        np.testing.assert_array_equal(a, b)
    assert old.line(f, h)(0.3) == new.line(f, h)(0.3)
    assert QueryPush(loss, price, query_rmse=0).spec == QueryPush(loss, price).spec


def test_the_per_query_default_is_the_push_with_the_default_query_rmse_bit_for_bit():
    import rankcore
    from rankcore.objectives._query_push import BoundQueryPush
    from rankcore.push._query_defaults import QUERY_RMSE

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(10), 12)
    X = rng.normal(size=(qid.shape[0], 3))
    y = np.clip(np.round(X[:, 0] + 1.5), 0, 3)
    default = rankcore.boost(learner="trees", n_iter=8, random_state=0).fit(X, y, qid=qid)
    spelled = rankcore.boost(learner="trees", objective=f"push:exp,identity,gain_weighted=true,query_rmse={QUERY_RMSE}",
                             n_iter=8, random_state=0).fit(X, y, qid=qid)
    np.testing.assert_array_equal(default.decision_function(X), spelled.decision_function(X))
    # query_rmse=0 binds the push itself (no wrapper), and fits another model than the default's
    zero = rankcore.boost(learner="trees", objective="push:exp,identity,gain_weighted=true,query_rmse=0",
                          n_iter=8, random_state=0).fit(X, y, qid=qid)
    assert QUERY_RMSE > 0
    assert not np.array_equal(default.decision_function(X), zero.decision_function(X))
    assert type(_bind(y, qid, np.ones(y.shape[0]), "exp", "identity", gain_weighted=True,
                      query_rmse=0.0)) is BoundQueryPush


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), lam=st.floats(0.0, 8.0), loss=st.sampled_from(["exp", "logistic"]))
def test_hypothesis_query_rmse_shift_within_each_query_changes_nothing(seed, lam, loss):
    y, qid, f, w = _data(seed)
    bound = _bind(y, qid, w, loss, "identity", gain_weighted=True, query_rmse=lam)
    J, grad = bound.value_and_gradient(f)
    shift = np.random.default_rng(seed).normal(size=qid.max() + 1) * 3.0
    J1, grad1 = bound.value_and_gradient(f + shift[qid])
    assert J1 == pytest.approx(J, rel=1e-10, abs=1e-10)
    np.testing.assert_allclose(grad1, grad, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.bincount(qid, grad), 0.0, atol=1e-10)     # and so Σ_{i ∈ q} ∂J/∂f_i = 0


def test_query_rmse_spec_round_trips():
    objective = resolve("objective", SPEC)
    assert objective.query_rmse == 2.0
    assert resolve("objective", objective.spec) == objective
    assert QueryPush("exp", "identity", gain_weighted=True, query_rmse=2).spec == SPEC
    assert QueryPush("exp", "identity", query_rmse=0.25).spec == "push:exp,identity,query_rmse=0.25"
    assert resolve("objective", QueryPush("exp", "identity", gain_weighted=True, query_rmse=2).spec) == objective


def _small_queries(seed):
    """12 queries of 15 rows, 3 features, grades 0-3 from the first feature."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(12), 15)
    X = rng.normal(size=(qid.shape[0], 3))
    return X, np.clip(np.round(X[:, 0] + 1.5), 0, 3), qid


def test_query_rmse_model_save_and_load(tmp_path):
    import rankcore
    from rankcore.persistence import load_model, save_model

    X, y, qid = _small_queries(1)
    model = rankcore.boost(learner="trees", objective=SPEC, n_iter=10, random_state=0).fit(X, y, qid=qid)
    assert model.score(X, y, qid=qid) > 0.9
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert resolve("objective", loaded.get_params()["objective"]).query_rmse == 2.0
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_query_rmse_fits_with_a_line_search():
    """Gradient steps with the driver's line search (stumps) read the term's quadratic in α."""
    import rankcore

    X, y, qid = _small_queries(2)
    model = rankcore.boost(learner="stumps", objective=SPEC, n_iter=20, random_state=0).fit(X, y, qid=qid)
    assert model.score(X, y, qid=qid) > 0.9


@pytest.mark.parametrize("bad", [-1.0, -1e-300, math.nan, math.inf, True, "2"])
def test_query_rmse_bad_values_are_named(bad):
    with pytest.raises(ValueError, match="query_rmse: expected a finite number >= 0"):
        QueryPush("exp", "identity", query_rmse=bad)


@pytest.mark.parametrize("text", ["-1", "nan", "inf", "x"])
def test_query_rmse_bad_spec_values_are_named(text):
    with pytest.raises(SpecError, match="query_rmse must be a number >= 0"):
        resolve("objective", f"push:exp,identity,query_rmse={text}")


def test_query_rmse_needs_queries():
    objective = resolve("objective", "push:exp,identity,query_rmse=1")
    with pytest.raises(ValueError, match=r"^qid: the objective 'push:query_rmse=1' ranks within queries"):
        objective.bind(np.array([0.0, 1.0, 1.0]))


def _term_inputs(seed, n=80, n_queries=9):
    """A term over rows with ties, a query of weight 0, a one-row query, a single-grade query, read-only arrays."""
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n)
    qid[0] = n_queries                               # one row
    y = rng.choice([0.0, 1.0, 3.0], n)
    y[qid == 1] = 1.0                                # one grade
    w = rng.choice([0.5, 1.0, 2.0], n)
    w[qid == 2] = 0.0                                # a query of weight 0
    f = rng.integers(-4, 5, n) / 2.0                 # ties
    for a in (y, w, f):
        a.setflags(write=False)
    return QueryRMSETerm(y, check_qid(qid, n), w), y, qid, f, w


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scale", [0.0, 0.7, 3.0])
def test_query_rmse_kernel_matches_numpy(seed, scale):
    """``query_rmse_term`` (Cython) against the NumPy term and the loop reference."""
    term, y, qid, f, w = _term_inputs(seed)
    base = np.random.default_rng(seed + 10).normal(size=f.shape[0])
    base.setflags(write=False)
    value, grad = term.add_to(f, scale, base)
    q, q_grad = term.value_and_gradient(f)
    assert value == pytest.approx(q, rel=1e-12, abs=1e-13)
    np.testing.assert_allclose(grad, base + scale * q_grad, rtol=1e-12, atol=1e-13)
    Q0, g0, h0 = _squared_reference(y, qid, f, w)
    assert value == pytest.approx(Q0, rel=1e-12, abs=1e-13)
    np.testing.assert_allclose(q_grad, g0, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(term.curvature, h0, rtol=1e-12, atol=1e-15)
    assert np.all(term.curvature >= 0) and np.all(term.curvature[qid == 2] == 0) and term.curvature[0] == 0
    zero_value, zero_grad = term.add_to(f, scale, None)
    assert zero_value == value
    np.testing.assert_allclose(zero_grad, scale * q_grad, rtol=1e-12, atol=1e-13)


def test_query_rmse_kernel_on_no_rows():
    from rankcore.objectives._query_kernels import query_rmse_term

    empty = np.empty(0)
    out = np.empty(0)
    none = np.empty(0, dtype=np.int64)
    assert query_rmse_term(empty, empty, empty, none, np.empty(0), none, 2.0, empty, np.empty(0), out) == 0.0


def test_the_kernel_form_refuses_scores_of_another_length():
    y, qid, f, w = _data(3)
    term = QueryRMSETerm(y, check_qid(qid, len(y)), w)
    with pytest.raises(ValueError, match=r"scores: expected one value per row \(\d+\), got shape \(\d+,\)"):
        term.add_to(f[:-1], 1.0, None)


@pytest.mark.parametrize("weight", ["1000001", "1e200", "1e308"])
def test_query_rmse_beyond_a_million_is_refused_by_name(weight):
    # near 1e200 the scaled gradients and curvature overflowed: the trees found no split, a constant model, with a
    # warning that blamed the learner
    import rankcore

    X, y, qid = _small_queries(1)
    with pytest.raises(SpecError, match=r"query_rmse must be a number >= 0 and <= 1e\+06"):
        rankcore.boost(learner="trees", objective=f"push:query_rmse={weight}", n_iter=2).fit(X, y, qid=qid)
    big = rankcore.boost(learner="trees", objective="push:query_rmse=1e6", n_iter=5, random_state=0)
    assert big.fit(X, y, qid=qid).n_iter_ == 5 and big.score(X, y, qid=qid) > 0.9


@pytest.mark.parametrize("level", ["2147483648", "1e308"])
def test_a_discount_truncation_beyond_any_place_is_refused_by_name(level):
    # 1e308 reached the place kernel as an OverflowError (Python int too large to convert to C ssize_t)
    import rankcore

    X, y, qid = _small_queries(1)
    with pytest.raises(SpecError, match=r"truncation must be an integer >= 0 and <= 2147483647"):
        rankcore.boost(objective=f"push:discount=sum,truncation={level}", n_iter=2).fit(X, y, qid=qid)
    wide, whole = (rankcore.boost(objective=f"push:discount=sum,truncation={t}", n_iter=4, random_state=0)
                   .fit(X, y, qid=qid).decision_function(X) for t in (2**31 - 1, 0))
    np.testing.assert_array_equal(wide, whole)             # a level beyond every query truncates nothing


def _exact_term(y, qid, f, w):
    """(Q, ∂Q/∂f) of the QueryRMSE term in exact rational arithmetic, rounded once at the end."""
    from fractions import Fraction

    r = [Fraction(float(a)) - Fraction(float(b)) for a, b in zip(f, y)]
    W = [Fraction(float(v)) for v in w]
    value, grad = Fraction(0), [Fraction(0)] * len(r)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        total = sum(W[i] for i in rows)
        mean = sum(W[i] * r[i] for i in rows) / total if total else Fraction(0)
        for i in rows:
            grad[i] = W[i] * (r[i] - mean)
            value += grad[i] * (r[i] - mean) / 2
    return float(value), np.array([float(g) for g in grad])


@pytest.mark.parametrize("heavy", [1e152, 7e152, 1e200, 1e300])
@pytest.mark.parametrize("where", [0, 4, 9])
def test_query_rmse_keeps_its_digits_with_one_row_holding_most_of_the_weight(heavy, where):
    # before: r_a − m_q of the heaviest row was formed as a difference of two numbers equal to ~16 digits, its
    # error an ulp of r_a instead of its exact ~1e-152; times w_a it made a gradient weight of ~1e136 and Q of
    # ~1e119 (the fit's J jumped from 357 to 2.5e119 at its 3rd tree, then a leaf of 1e135 and an "overflow")
    rng = np.random.default_rng(where)
    qid = np.repeat(np.arange(3), 10)
    y = rng.choice([0.0, 1.0, 2.0], 30)
    f = rng.normal(size=30) * 0.37
    w = np.ones(30)
    w[where] = heavy
    w[where + 10] = heavy
    term = QueryRMSETerm(y, check_qid(qid, 30), w)
    exact_q, exact_grad = _exact_term(y, qid, f, w)
    q, grad = term.value_and_gradient(f)
    kernel_q, kernel_grad = term.add_to(f, 1.0, None)
    scale = np.abs(exact_grad).max()
    for value, gradient in ((q, grad), (kernel_q, kernel_grad)):
        assert value == pytest.approx(exact_q, rel=1e-9)
        np.testing.assert_allclose(gradient, exact_grad, rtol=1e-9, atol=1e-12 * scale)
    assert scale < 1e3                               # the heavy rows' gradient weights are O(1), not O(ulp·heavy)


def test_the_kernel_refuses_an_anchor_outside_the_rows():
    from rankcore.objectives._query_kernels import query_rmse_term

    f = np.zeros(3)
    codes = np.zeros(3, dtype=np.int64)
    for anchor in ([3], [-2], [0, 1]):
        with pytest.raises(ValueError, match="anchor must hold one row index"):
            query_rmse_term(f, f, np.ones(3), codes, np.ones(1), np.array(anchor, dtype=np.int64), 1.0, f,
                            np.empty(1), np.empty(3))


def test_only_a_query_whose_heaviest_row_holds_most_of_its_weight_is_anchored():
    from rankcore.objectives._query_rmse import heaviest_rows

    codes = np.array([1, 0, 1, 0, 2, 1], dtype=np.int64)
    weight = np.array([1.0, 5.0, 9.0, 5.0, 2.0, 9.0])           # query 0: a tie at half; query 1: a tie, first wins
    np.testing.assert_array_equal(heaviest_rows(codes, weight, 4), [-1, -1, 4, -1])
    weight[5] = 1.0                                              # query 1: row 2 holds 9 of 11
    np.testing.assert_array_equal(heaviest_rows(codes, weight, 4), [-1, 2, 4, -1])

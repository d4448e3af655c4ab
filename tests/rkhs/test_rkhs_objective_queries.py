"""The magnitude-preserving squared loss within queries, against a double loop over each query's pairs."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import rankcore
from rankcore.metrics import Queries, check_qid


def objective():
    return rankcore.get_registry().resolve("objective", "mp-squared")


def reference_value(y, f, w, qid):
    """Σ_q (W_q / W) (1/W_q²) Σ_{i,j ∈ q} w_i w_j (a_i − a_j)², one pair at a time."""
    a, total, value = y - f, w.sum(), 0.0
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        W_q = w[rows].sum()
        pairs = sum(w[i] * w[j] * (a[i] - a[j]) ** 2 for i in rows for j in rows)
        value += (W_q / total) * pairs / W_q ** 2
    return value


def data(seed, n=60, n_queries=7, ties=True):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n)
    y = rng.integers(0, 4, n).astype(float) if ties else rng.uniform(0, 4, n)
    f = np.round(rng.normal(size=n), 1) if ties else rng.normal(size=n)
    w = rng.uniform(0.2, 3.0, n)
    return y, f, w, qid


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighted", [False, True])
def test_value_gradient_curvature_and_line_match_the_pairs(seed, weighted):
    y, f, w, qid = data(seed, ties=seed % 2 == 0)
    w = w if weighted else np.ones_like(w)
    bound = objective().bind(y, w if weighted else None, queries=check_qid(qid, y.shape[0]))
    value, grad, hess = bound.value_gradient_hessian(f)
    assert value == pytest.approx(reference_value(y, f, w, qid), rel=1e-12)
    eps = 1e-6
    for i in (0, 17, 42):
        step = np.zeros_like(f)
        step[i] = eps
        assert grad[i] == pytest.approx((reference_value(y, f + step, w, qid)
                                         - reference_value(y, f - step, w, qid)) / (2 * eps), rel=1e-6, abs=1e-9)
        assert hess[i] == pytest.approx((bound.value_and_gradient(f + step)[1][i]
                                         - bound.value_and_gradient(f - step)[1][i]) / (2 * eps), rel=1e-6)
    direction = np.random.default_rng(seed).normal(size=f.shape[0])
    line = bound.line(f, direction)
    for alpha in (0.0, 0.37, -1.5):
        point = line(alpha)
        assert point.value == pytest.approx(reference_value(y, f + alpha * direction, w, qid), rel=1e-10)
        assert point.d1 == pytest.approx(float(np.dot(bound.value_and_gradient(f + alpha * direction)[1],
                                                      direction)), rel=1e-9, abs=1e-12)


def test_one_query_is_the_single_list():
    y, f, w, _ = data(5)
    single = objective().bind(y, w)
    within = objective().bind(y, w, queries=Queries.single(y.shape[0]))
    np.testing.assert_allclose(within.value_and_gradient(f)[1], single.value_and_gradient(f)[1], rtol=1e-12)
    assert within.value(f) == pytest.approx(single.value(f), rel=1e-12)


@given(st.integers(0, 10_000))
def test_rows_in_any_order_give_the_same_values(seed):
    y, f, w, qid = data(seed, n=40, n_queries=5)
    order = np.random.default_rng(seed + 1).permutation(y.shape[0])
    a = objective().bind(y, w, queries=check_qid(qid, 40)).value_gradient_hessian(f)
    b = objective().bind(y[order], w[order], queries=check_qid(qid[order], 40)).value_gradient_hessian(f[order])
    assert a[0] == pytest.approx(b[0], rel=1e-12)
    np.testing.assert_allclose(a[1][order], b[1], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a[2][order], b[2], rtol=1e-12)


def test_trees_fit_within_queries_and_rank_new_queries():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(40), 12)
    X = rng.normal(size=(qid.size, 4))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=qid.size)), 0, 4)
    train, test = qid < 30, qid >= 30
    model = rankcore.boost(objective="mp-squared", learner="trees:max_leaves=7,min_samples_leaf=3",
                           n_iter=30, random_state=0).fit(X[train], y[train], qid=qid[train])
    assert model.ranks_within_queries_
    ours = rankcore.evaluate(y[test], model.decision_function(X[test]), ["ndcg@5"], qid=qid[test])["ndcg@5"]
    noise = rankcore.evaluate(y[test], rng.normal(size=test.sum()), ["ndcg@5"], qid=qid[test])["ndcg@5"]
    assert ours > noise + 0.15

"""The per-query objectives over blocks of whole queries equal the objective bound to every row.

Random data with ties in scores and grades, queries split into blocks in
every way the test draws (one block, one query a block, random groups, a
block with no pair); value, gradient, curvature and the line derivatives
to 1e-12 relative; any grouping of the blocks' partials merges alike.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.metrics._queries import check_qid
from rankcore.objectives import HESSIAN_FLOOR, RowBlock
from rankcore.objectives._query_blocks import BoundQueryBlocks
from rankcore.registry import resolve

OBJECTIVES = ["push:exp,identity", "push:exp,pow:4", "push:logistic,pow:2", "push:exp,pow:2,gain_weighted=true",
              "lambdarank:5", "push:exp,identity,gain_weighted=true,discount=sum,truncation=3,normalize=true",
              "push:exp,identity,discount=product"]


def _data(seed, n=60, n_queries=8):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n) * 11
    y = rng.choice([0.0, 1.0, 2.0, 4.0], n)
    y[qid == 0] = 1.0                               # a query with one grade
    f = rng.integers(-6, 7, n) / 4.0                # ties in scores
    w = rng.uniform(0.5, 2.0, n)
    w[rng.random(n) < 0.1] = 0.0
    h = rng.integers(-2, 3, n) / 2.0
    return y, qid, f, w, h


def _blocks(y, qid, f, w, groups):
    """RowBlocks of the queries in each group (rows in their given order), and the row indices of each."""
    out, rows = [], []
    for group in groups:
        idx = np.flatnonzero(np.isin(qid, group))
        out.append(RowBlock(y[idx], w[idx], f[idx], check_qid(qid[idx], idx.shape[0])))
        rows.append(idx)
    return out, rows


def _groups(qid, rng):
    labels = np.unique(qid)
    cut = np.sort(rng.choice(np.arange(1, labels.shape[0]), rng.integers(0, labels.shape[0] - 1), replace=False))
    return np.split(rng.permutation(labels), cut)


def _check(spec, seed):
    rng = np.random.default_rng(seed + 100)
    y, qid, f, w, h = _data(seed)
    objective = resolve("objective", spec)
    whole = objective.bind(y, w, queries=check_qid(qid, y.shape[0]))
    blocked = BoundQueryBlocks(objective)
    blocks, rows = _blocks(y, qid, f, w, _groups(qid, rng))
    G = blocked.reduce(blocks)
    grad = np.empty_like(f)
    hess = np.empty_like(f)
    for block, idx in zip(blocks, rows):
        grad[idx], hess[idx] = blocked.block_gradient_hessian(block, G)
        np.testing.assert_array_equal(blocked.block_gradient(block, G), grad[idx])
    value, grad_whole, hess_whole = whole.value_gradient_hessian(f)
    np.testing.assert_allclose(grad, grad_whole, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hess, hess_whole, rtol=1e-12, atol=1e-15)
    if not objective.has_value:
        assert math.isnan(blocked.finish(G).value) and math.isnan(value)
        return
    assert blocked.finish(G).value == pytest.approx(value, rel=1e-12)
    line = whole.line(f, h)
    for alpha in (0.0, 0.3, -0.7):
        point = blocked.finish(blocked.reduce(blocks, [h[idx] for idx in rows], alpha), with_direction=True)
        expected = line(alpha)
        assert point.value == pytest.approx(expected.value, rel=1e-12)
        assert point.d1 == pytest.approx(expected.d1, rel=1e-12, abs=1e-15)
        assert math.isnan(point.d2) == math.isnan(expected.d2)


@pytest.mark.parametrize("spec", OBJECTIVES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_blocks_of_whole_queries_equal_the_whole_objective(spec, seed):
    _check(spec, seed)


def test_one_block_and_one_query_per_block_are_the_same_objective():
    y, qid, f, w, h = _data(3)
    objective = resolve("objective", "push:exp,pow:4")
    blocked = BoundQueryBlocks(objective)
    one, _ = _blocks(y, qid, f, w, [np.unique(qid)])
    each, _ = _blocks(y, qid, f, w, [[q] for q in np.unique(qid)])
    assert blocked.finish(blocked.reduce(each)).value == pytest.approx(blocked.finish(blocked.reduce(one)).value,
                                                                       rel=1e-13)


def test_a_block_without_pairs_contributes_nothing():
    y, qid, f, w, h = _data(4)
    objective = resolve("objective", "push:exp,pow:2")
    blocked = BoundQueryBlocks(objective)
    (flat,), _ = _blocks(y, qid, f, w, [[0]])                      # the query with a single grade
    assert blocked.block_partials(0, flat, []).tolist() == [-math.inf]
    assert blocked.block_partials(0, flat, [], h[: len(flat)], 0.5).tolist() == [-math.inf, 0.0, 0.0]
    g, c = blocked.block_gradient_hessian(flat, [np.array([0.0])])
    assert not g.any() and (c > 0).all()


def _check_merged_in_any_grouping(blocked, parts, random):
    """Merging all the partials at once, or shuffled and cut in two merged groups, gives the same numbers."""
    all_at_once = blocked.merge_partials(0, parts)
    random.shuffle(parts)
    cut = random.randrange(1, len(parts))
    in_two = blocked.merge_partials(0, [blocked.merge_partials(0, parts[:cut]), blocked.merge_partials(0, parts[cut:])])
    np.testing.assert_allclose(in_two, all_at_once, rtol=1e-9, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(-30, 5), st.floats(-3, 3), st.floats(0, 4)), min_size=1, max_size=6),
       st.randoms(use_true_random=False))
def test_merging_is_associative(parts, random):
    blocked = BoundQueryBlocks(resolve("objective", "push:exp,identity"))
    parts = [np.array(p) for p in parts] + [np.array([-math.inf, 0.0, 0.0])]
    _check_merged_in_any_grouping(blocked, parts, random)


def test_objectives_that_cannot_rank_within_queries_are_refused():
    with pytest.raises(ValueError, match="qid: the objective 'prec@k-avg:5' ranks one list"):
        BoundQueryBlocks(resolve("objective", "prec@k-avg:5"))
    # it ranks within queries in memory; its value is no logarithm, so blocks cannot merge it by log-sum-exp
    with pytest.raises(ValueError, match="objective 'mp-squared': within queries on blocks"):
        BoundQueryBlocks(resolve("objective", "mp-squared"))


def test_a_block_without_its_queries_is_refused():
    blocked = BoundQueryBlocks(resolve("objective", "push"))
    with pytest.raises(ValueError, match="queries: the rows of a block"):
        blocked.block_partials(0, RowBlock(np.array([0.0, 1.0]), np.ones(2), np.zeros(2)), [])


@pytest.mark.parametrize("spec", ["yetirank:3", "xendcg"])
@pytest.mark.parametrize("seed", [0, 1])
def test_randomized_blocks_draw_the_whole_bindings_noise(seed, spec):
    """A randomized objective over consecutive blocks of whole queries, each numbered from its offset."""
    y, qid, f, w, _ = _data(seed)
    order = np.argsort(qid, kind="stable")
    y, qid, f, w = y[order], qid[order], f[order], w[order]
    objective = resolve("objective", spec)
    whole = objective.bind(y, w, queries=check_qid(qid, y.shape[0]), random_state=seed)
    blocked = BoundQueryBlocks(objective, random_state=seed)
    cuts = np.flatnonzero(np.diff(qid))[::2] + 1                    # block bounds between queries
    blocks = [RowBlock(y[a:b], w[a:b], f[a:b], check_qid(qid[a:b], b - a), offset=int(a))
              for a, b in zip(np.r_[0, cuts], np.r_[cuts, y.shape[0]])]
    for step in range(2):                                           # two evaluations: the noise moves on
        scores = f + step
        for b in blocks:
            b.scores[:] = scores[b.offset:b.offset + len(b)]
        G = blocked.reduce(blocks)
        grad = np.concatenate([blocked.block_gradient_hessian(b, G)[0] for b in blocks])
        hess = np.concatenate([blocked.block_gradient_hessian(b, G)[1] for b in blocks])
        _, ref_grad, ref_hess = whole.value_gradient_hessian(scores)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-15)


# ----------------------------------------------------------------------
# The push with the QueryRMSE term over blocks (query_rmse > 0)
# ----------------------------------------------------------------------
TERM_OBJECTIVES = ["push:exp,identity,gain_weighted=true,query_rmse=2", "push:exp,pow:4,query_rmse=0.5",
                   "push:logistic,pow:2,query_rmse=1",
                   "push:exp,identity,gain_weighted=true,discount=sum,truncation=3,normalize=true,query_rmse=2"]


def _term_data(seed):
    """_data with a one-row query and a query whose rows all have weight 0 besides the single-grade query 0."""
    y, qid, f, w, h = _data(seed)
    qid[3] = 999                                    # one row: its term is 0 whatever its score
    w[qid == 11] = 0.0                              # weight 0: no term, no pair
    return y, qid, f, w, h


def _term_splits(qid, rng):
    """Block splits: every query in one block, one query a block, random groups, the pairless query 0 alone."""
    labels = np.unique(qid)
    rest = labels[labels != 0]
    cut = np.sort(rng.choice(np.arange(1, rest.shape[0]), 2, replace=False))
    return {"one": [labels], "each": [[q] for q in labels], "random": _groups(qid, rng),
            "no-pairs-alone": [[0]] + np.split(rng.permutation(rest), cut)}


@pytest.mark.parametrize("spec", TERM_OBJECTIVES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_query_rmse_blocks_equal_the_whole_objective(spec, seed):
    """Value, gradient, curvature, line (φ, φ′, φ″) and λc against the in-memory blend, for several splits."""
    rng = np.random.default_rng(seed + 200)
    y, qid, f, w, h = _term_data(seed)
    objective = resolve("objective", spec)
    whole = objective.bind(y, w, queries=check_qid(qid, y.shape[0]))
    value, grad_whole, hess_whole = whole.value_gradient_hessian(f)
    line = whole.line(f, h)
    for name, groups in _term_splits(qid, rng).items():
        blocked = BoundQueryBlocks(objective)
        assert blocked.query_rmse == objective.query_rmse
        blocks, rows = _blocks(y, qid, f, w, groups)
        G = blocked.reduce(blocks)
        assert blocked._scale(G[0]) == pytest.approx(whole.scale, rel=1e-12), name
        assert blocked.finish(G).value == pytest.approx(value, rel=1e-12), name
        grad = np.empty_like(f)
        hess = np.empty_like(f)
        for block, idx in zip(blocks, rows):
            grad[idx], hess[idx] = blocked.block_gradient_hessian(block, G)
            np.testing.assert_array_equal(blocked.block_gradient(block, G), grad[idx])
        np.testing.assert_allclose(grad, grad_whole, rtol=1e-12, atol=1e-14, err_msg=name)
        np.testing.assert_allclose(hess, hess_whole, rtol=1e-12, atol=1e-14, err_msg=name)
        for alpha in (0.0, 0.3, -0.7):
            point = blocked.finish(blocked.reduce(blocks, [h[idx] for idx in rows], alpha), with_direction=True)
            expected = line(alpha)
            assert point.value == pytest.approx(expected.value, rel=1e-12), name
            assert point.d1 == pytest.approx(expected.d1, rel=1e-10, abs=1e-12), name
            if math.isnan(expected.d2):
                assert math.isnan(point.d2), name
            else:
                assert point.d2 == pytest.approx(expected.d2, rel=1e-10, abs=1e-12), name


def test_query_rmse_scale_is_the_ratio_of_the_gradients_l1_norms_at_zero():
    """λc from the blocks against the definition in NumPy: ‖∇J_push(0)‖₁ / ‖∇Q(0)‖₁ over every row."""
    y, qid, f, w, _ = _term_data(5)
    queries = check_qid(qid, y.shape[0])
    push = resolve("objective", "push:exp,identity,gain_weighted=true").bind(y, w, queries=queries)
    centred = np.zeros_like(y)                      # ∇Q(0) = −w (y − ȳ_q), ȳ_q the weighted mean of the query
    for q in np.unique(qid):
        rows = qid == q
        if w[rows].sum() > 0:
            centred[rows] = w[rows] * (y[rows] - np.dot(w[rows], y[rows]) / w[rows].sum())
    expected = 2.0 * np.abs(push.value_and_gradient(np.zeros_like(y))[1]).sum() / np.abs(centred).sum()
    blocked = BoundQueryBlocks(resolve("objective", "push:exp,identity,gain_weighted=true,query_rmse=2"))
    blocks, _ = _blocks(y, qid, f, w, [[q] for q in np.unique(qid)])
    assert blocked._scale(blocked.reduce(blocks)[0]) == pytest.approx(expected, rel=1e-12)


def test_query_rmse_block_without_pairs_still_has_its_term():
    """R_c = 0 (no push, ρ_c(0) = 0) but Q_c, ‖∇Q_c(0)‖₁ and the term's gradient and curvature remain."""
    y, qid, f, w, h = _term_data(4)
    blocked = BoundQueryBlocks(resolve("objective", "push:exp,identity,query_rmse=2"))
    (flat,), (idx,) = _blocks(y, qid, f, w, [[0]])                    # the query with a single grade
    parts = blocked.block_partials(0, flat, [])
    r = f[idx] - y[idx]
    q_ref = 0.5 * np.dot(w[idx], (r - np.dot(w[idx], r) / w[idx].sum()) ** 2)
    assert parts[0] == -math.inf and parts[1] == pytest.approx(q_ref, rel=1e-12)
    assert parts[2] == -math.inf and parts[3] == 0.0 and parts[4] == 0.0     # ∇Q_c(0) = 0: one grade
    line = blocked.block_partials(0, flat, [], h[idx], 0.5)
    assert line.shape == (9,) and line[:3].tolist() == [-math.inf, 0.0, 0.0]
    G = [np.array([0.0, 0.0, 0.0, 3.0, 1.5])]                         # λc = 2 · 3 / 1.5 = 4
    g, c = blocked.block_gradient_hessian(flat, G)
    centred = r - np.dot(w[idx], r) / w[idx].sum()
    np.testing.assert_allclose(g, 4.0 * w[idx] * centred, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(c, HESSIAN_FLOOR + 4.0 * w[idx] * (1 - w[idx] / w[idx].sum()), rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(-30, 5), st.floats(-3, 3), st.floats(0, 4), st.floats(0, 9), st.floats(-4, 4),
                          st.floats(0, 4), st.floats(-30, 5), st.floats(0, 5), st.floats(0, 5)),
                min_size=1, max_size=6),
       st.randoms(use_true_random=False), st.booleans())
def test_query_rmse_merging_is_associative(parts, random, with_direction):
    blocked = BoundQueryBlocks(resolve("objective", "push:exp,identity,query_rmse=2"))
    parts = [np.array(p) for p in parts] + [np.array([-math.inf, 0.0, 0.0, 1.0, 0.5, 2.0, -math.inf, 0.0, 1.0])]
    if not with_direction:
        parts = [p[[0, 3, 6, 7, 8]] for p in parts]
    _check_merged_in_any_grouping(blocked, parts, random)


def test_query_rmse_zero_keeps_the_push_partials():
    """λ = 0 is the push: the partials carry no term columns."""
    y, qid, f, w, h = _data(0)
    blocks, _ = _blocks(y, qid, f, w, [np.unique(qid)])
    blocked = BoundQueryBlocks(resolve("objective", "push:exp,identity,query_rmse=0"))
    assert blocked.query_rmse == 0.0
    assert blocked.block_partials(0, blocks[0], []).shape == (1,)


@pytest.mark.parametrize("spec", [*OBJECTIVES, *TERM_OBJECTIVES])
def test_a_block_line_reused_gives_a_fresh_lines_numbers(spec):
    """A block's line formed once (``block_line``) and evaluated at many α, in any order, gives at each α the
    numbers of a line formed for that α alone, bit for bit, and leaves the block's scores as they were: blocks
    of one query, of several, and the query of one grade (no pair) alone."""
    y, qid, f, w, h = _term_data(7) if "query_rmse" in spec else _data(7)
    blocked = BoundQueryBlocks(resolve("objective", spec))
    blocks, rows = _blocks(y, qid, f, w, [[0], [11, 22], [q for q in np.unique(qid) if q not in (0, 11, 22)]])
    G = blocked.reduce(blocks)
    alphas = (0.0, 0.3, -0.7, 2.5, 0.3)
    for block, idx in zip(blocks, rows):
        before = block.scores.copy()
        line = blocked.block_line(0, block, h[idx])
        reused = [line(G, alpha) for alpha in alphas] + [line(G, alpha) for alpha in alphas[::-1]]
        fresh = [blocked.block_line(0, block, h[idx])(G, alpha) for alpha in alphas + alphas[::-1]]
        for a, b, alpha in zip(reused, fresh, alphas + alphas[::-1]):
            np.testing.assert_array_equal(a, b, err_msg=f"{spec}, α = {alpha}")
        np.testing.assert_array_equal(reused[1], reused[-2])          # α = 0.3 at the start and at the end
        np.testing.assert_array_equal(block.scores, before)


def test_query_rmse_block_line_is_formed_once_per_direction(monkeypatch):
    """Along one direction ``block_line`` forms the term's coefficients and the push's line once, however many
    α it is evaluated at; ``block_partials`` forms both at each α."""
    from rankcore.objectives._query_push import BoundQueryPush
    from rankcore.objectives._query_rmse import QueryRMSETerm

    calls = {"term": 0, "push": 0}
    term_line, push_line = QueryRMSETerm.line_coefficients, BoundQueryPush.line

    def counted_term(self, *args):
        calls["term"] += 1
        return term_line(self, *args)

    def counted_push(self, *args):
        calls["push"] += 1
        return push_line(self, *args)

    monkeypatch.setattr(QueryRMSETerm, "line_coefficients", counted_term)
    monkeypatch.setattr(BoundQueryPush, "line", counted_push)
    y, qid, f, w, h = _term_data(3)
    blocked = BoundQueryBlocks(resolve("objective", "push:exp,identity,gain_weighted=true,query_rmse=2"))
    (block,), _ = _blocks(y, qid, f, w, [np.unique(qid)])
    G = blocked.reduce([block])
    alphas = (0.0, 0.25, -0.5, 1.0, 0.125)
    line = blocked.block_line(0, block, h)
    once = [line(G, alpha) for alpha in alphas]
    assert calls == {"term": 1, "push": 1}
    each = [blocked.block_partials(0, block, G, h, alpha) for alpha in alphas]
    assert calls == {"term": 1 + len(alphas), "push": 1 + len(alphas)}
    for a, b in zip(once, each):
        np.testing.assert_array_equal(a, b)

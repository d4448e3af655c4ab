"""The level sweep of the per-query push's hinge sums against every pair, and against the per-level sums."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.losses import Hinge, SquaredHinge
from rankcore.metrics._queries import check_qid
from rankcore.objectives._query_push import QueryPush
from rankcore.objectives._query_sweep_kernels import negative_sweep, positive_sweep

LOSSES = {1: Hinge(), 2: SquaredHinge()}


def _layout(qid, y):
    """Row order by (query, grade), the level edges and each query's levels, as BoundQueryPush holds them."""
    order = np.lexsort((y, qid))
    q, g = qid[order], y[order]
    new_level = np.ones(q.shape[0], dtype=bool)
    new_level[1:] = (q[1:] != q[:-1]) | (g[1:] != g[:-1])
    starts = np.flatnonzero(new_level)
    per_query = np.bincount(np.unique(q, return_inverse=True)[1][starts])
    bounds = np.concatenate([[0], np.cumsum(per_query)]).astype(np.int64)
    return order, np.append(starts, q.shape[0]).astype(np.int64), bounds


def _reference(degree, gain, f, w, y, qid, c1, c2):
    """L, D, N, E, P pair by pair (rows sorted by query): dense per query, O(n_q²)."""
    n = f.shape[0]
    out = {name: np.zeros(n) for name in "LDNEP"}
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        z = f[rows][:, None] - f[rows][None, :]                    # z[i, k] = f_i − f_k
        above = y[rows][:, None] > y[rows][None, :]
        a = np.exp2(y[rows])[:, None] - np.exp2(y[rows])[None, :] if gain else np.ones_like(z)
        live = above & (z < 1.0)
        base = np.where(live, 1.0 - z, 0.0)
        value = base ** degree
        d1 = np.where(live, -degree * base ** (degree - 1), 0.0)
        d2 = np.where(live, 2.0 if degree == 2 else 0.0, 0.0)
        wa = w[rows][:, None] * a
        out["L"][rows] = (wa * value).sum(axis=0)
        out["D"][rows] = (wa * d1).sum(axis=0)
        out["N"][rows] = (wa * d2).sum(axis=0)
        out["E"][rows] = (a * c1[rows][None, :] * d1).sum(axis=1)
        square = w[rows][:, None] * a * a * c2[rows][None, :] * d1 * d1
        out["P"][rows] = (square + a * c1[rows][None, :] * d2).sum(axis=1)
    return out


def _sweep(degree, order, gain, f, w, y, edges, bounds, c1=None, c2=None, n_threads=1):
    n = f.shape[0]
    out = {"L": np.full(n, np.nan), "D": np.full(n, np.nan) if order >= 1 else np.empty(0),
           "N": np.full(n, np.nan) if order == 2 else np.empty(0)}
    negative_sweep(degree, order, gain, f, w, y, edges, bounds, out["L"], out["D"], out["N"], n_threads)
    if order >= 1:
        out["E"] = np.full(n, np.nan)
        out["P"] = np.full(n, np.nan) if order == 2 else np.empty(0)
        positive_sweep(degree, order, gain, f, w, y, edges, bounds, c1, c2 if order == 2 else np.empty(0),
                       out["E"], out["P"], n_threads)
    return {k: v for k, v in out.items() if v.size}


def _case(seed, n_queries=6, float_grades=False, gain=False):
    """Queries of 1 to 60 rows (one of a single grade), scores on a 1/4 grid: ties and pairs exactly 1 apart."""
    rng = np.random.default_rng(seed)
    sizes = np.concatenate([[1], rng.integers(2, 60, n_queries - 2), [7]])
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    n = qid.shape[0]
    if float_grades:
        y = rng.uniform(0, 6 if gain else 40, n)
        y[rng.random(n) < 0.2] = 2.0                                  # some ties in grade too
    else:
        y = rng.integers(0, 5, n).astype(np.float64)
    y[qid == sizes.shape[0] - 1] = 3.0                                 # a query of one level
    f = np.round(rng.normal(scale=1.5, size=n) * 4) / 4 + 0.1 * y
    f = np.round(f * 4) / 4
    w = rng.uniform(0.5, 2.0, n)
    w[rng.random(n) < 0.15] = 0.0
    c1 = rng.uniform(0, 1, n)
    c1[rng.random(n) < 0.15] = 0.0
    c2 = rng.uniform(0, 1, n)
    order, edges, bounds = _layout(qid, y)
    return (np.ascontiguousarray(f[order]), w[order], y[order], qid[order], c1[order], c2[order], edges, bounds)


def _assert_close(got, ref, scale_of=None):
    # each output is a difference of moments: its error is relative to the size of its terms, not to itself
    for name, value in got.items():
        scale = np.max(np.abs(ref[name])) if scale_of is None else scale_of[name]
        np.testing.assert_allclose(value, ref[name], rtol=1e-10, atol=1e-12 * max(scale, 1e-300), err_msg=name)


@pytest.mark.parametrize("degree", [1, 2], ids=["hinge", "sqhinge"])
@pytest.mark.parametrize("gain", [False, True], ids=["flat", "gain"])
@pytest.mark.parametrize("float_grades", [False, True], ids=["int_grades", "float_grades"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sweep_matches_every_pair(degree, gain, float_grades, seed):
    f, w, y, qid, c1, c2, edges, bounds = _case(seed, float_grades=float_grades, gain=gain)
    ref = _reference(degree, gain, f, w, y, qid, c1, c2)
    _assert_close(_sweep(degree, 2, gain, f, w, y, edges, bounds, c1, c2), ref)


@pytest.mark.parametrize("degree", [1, 2])
@pytest.mark.parametrize("gain", [False, True])
def test_lower_orders_write_the_same_sums(degree, gain):
    f, w, y, qid, c1, c2, edges, bounds = _case(3, float_grades=True, gain=gain)
    full = _sweep(degree, 2, gain, f, w, y, edges, bounds, c1, c2)
    for order, names in [(0, "L"), (1, "LDE")]:
        part = _sweep(degree, order, gain, f, w, y, edges, bounds, c1, c2)
        assert sorted(part) == sorted(names)
        for name in names:
            np.testing.assert_array_equal(part[name], full[name])


@pytest.mark.parametrize("degree", [1, 2])
@pytest.mark.parametrize("gain", [False, True])
def test_a_pair_exactly_at_the_kink_contributes_nothing(degree, gain):
    # one query: rows at 0 (grade 0) and 1 (grade 2) are exactly 1 apart; 0.75 (grade 2) is inside
    f = np.array([0.0, 0.75, 1.0])
    y = np.array([0.0, 2.0, 2.0])
    w, c1, c2 = np.ones(3), np.ones(3), np.ones(3)
    edges, bounds = np.array([0, 1, 3], dtype=np.int64), np.array([0, 2], dtype=np.int64)
    got = _sweep(degree, 2, gain, f, w, y, edges, bounds, c1, c2)
    a = 3.0 if gain else 1.0                      # 2^2 − 2^0
    assert got["L"][0] == pytest.approx(a * 0.25 ** degree)
    assert got["D"][0] == pytest.approx(-a * degree * 0.25 ** (degree - 1))
    assert got["E"][2] == 0.0 and got["P"][2] == 0.0
    assert got["E"][1] == pytest.approx(-a * degree * 0.25 ** (degree - 1))


def test_one_row_and_single_level_queries_get_zeros():
    f = np.array([0.3, 0.1, 0.2, 5.0])
    y = np.array([1.0, 2.0, 2.0, 0.0])
    edges = np.array([0, 1, 3, 4], dtype=np.int64)
    bounds = np.array([0, 1, 2, 2, 3], dtype=np.int64)       # one row, one level of two rows, empty, one row
    for degree in (1, 2):
        got = _sweep(degree, 2, True, f, np.ones(4), y, edges, bounds, np.ones(4), np.ones(4))
        for value in got.values():
            np.testing.assert_array_equal(value, 0.0)


@pytest.mark.parametrize("degree", [1, 2])
@pytest.mark.parametrize("gain", [False, True])
def test_threads_give_the_same_bits(degree, gain):
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 400, 80)                          # about 16,000 rows: past the parallel threshold
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    n = qid.shape[0]
    y = rng.uniform(0, 5, n) if gain else rng.integers(0, 5, n).astype(np.float64)
    f, w, c1, c2 = rng.normal(size=n), rng.uniform(0, 2, n), rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    order, edges, bounds = _layout(qid, y)
    args = (np.ascontiguousarray(f[order]), w[order], y[order], edges, bounds, c1[order], c2[order])
    one = _sweep(degree, 2, gain, *args[:5], *args[5:], n_threads=1)
    two = _sweep(degree, 2, gain, *args[:5], *args[5:], n_threads=2)
    for name in one:
        np.testing.assert_array_equal(one[name], two[name])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(-12, 12), st.integers(0, 3),
                          st.integers(0, 3)), min_size=1, max_size=40),
       st.sampled_from([1, 2]), st.booleans(), st.booleans())
def test_sweep_matches_every_pair_on_any_small_input(rows, degree, gain, float_grades):
    qid, grade, score, weight, c = (np.array(column) for column in zip(*rows))
    y = grade + (0.37 * score if float_grades else 0.0)
    y = np.abs(y).astype(np.float64)
    f = score / 4.0                                           # a grid of quarters: ties and exact kinks
    order, edges, bounds = _layout(qid, y)
    w, c1, c2 = weight[order] / 2.0, c[order] / 3.0, (3 - c[order]) / 3.0
    args = (np.ascontiguousarray(f[order]), w, y[order])
    ref = _reference(degree, gain, *args, qid[order], c1, c2)
    _assert_close(_sweep(degree, 2, gain, *args, edges, bounds, c1, c2), ref)


def _per_level_sums(bound, loss, f, c1, c2):
    """L, D, N, E·w and P·w as ``BoundQueryPush._pairwise`` gathers them: the loss's sums level by level."""
    n = f.shape[0]
    out = {name: np.zeros(n) for name in "LDNEP"}
    levels = np.flatnonzero(~bound.top_level)
    tops = bound.bounds[np.searchsorted(bound.bounds, levels, side="right")] - 1
    for lv, top in zip(levels.tolist(), tops.tolist()):
        lo, hi, stop = bound.level_starts[lv], bound.level_ends[lv], bound.level_ends[top]
        w_pos = np.ascontiguousarray(bound._pair_weights(lv, hi, stop))
        f_pos, f_neg = np.ascontiguousarray(f[hi:stop]), np.ascontiguousarray(f[lo:hi])
        out["L"][lo:hi], out["D"][lo:hi] = loss.negative_sums(f_pos, w_pos, f_neg)
        out["E"][hi:stop] += w_pos * loss.positive_sums(f_pos, f_neg, c1[lo:hi])
        P, out["N"][lo:hi] = loss.curvature_sums(f_pos, w_pos, f_neg, c1[lo:hi], c2[lo:hi])
        out["P"][hi:stop] += w_pos * P
    return out


@pytest.mark.parametrize("loss", ["hinge", "sqhinge"])
@pytest.mark.parametrize("gain", [False, True])
@pytest.mark.parametrize("float_grades", [False, True])
@pytest.mark.parametrize("grid", [False, True], ids=["normal_scores", "quarter_scores"])
def test_sweep_matches_the_per_level_sums_of_the_bound_objective(loss, gain, float_grades, grid):
    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 50, 12)
    qid = rng.permutation(np.repeat(np.arange(sizes.shape[0]), sizes))
    n = qid.shape[0]
    y = rng.uniform(0, 4, n) if float_grades else rng.integers(0, 4, n).astype(np.float64)
    scores = rng.normal(size=n) + 0.2 * y
    if grid:        # exact kinks; the per-level sums centre each level, exactly on this grid
        scores = np.round(scores * 4) / 4
    weight = rng.uniform(0, 2, n)
    bound = QueryPush(loss, "pow:2", gain_weighted=gain).bind(y, check_qid(qid, n), weight)
    f = np.ascontiguousarray(scores[bound.order])
    c1, c2 = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    edges = np.append(bound.level_starts, n).astype(np.int64)
    got = _sweep(bound.loss.degree, 2, gain, f, bound.weight, bound.grades, edges, bound.bounds, c1, c2)
    got["E"] *= bound.weight
    got["P"] *= bound.weight
    _assert_close(got, _per_level_sums(bound, bound.loss, f, c1, c2))


@pytest.mark.parametrize("call, message", [
    (lambda a: negative_sweep(3, 0, False, *a), "degree"),
    (lambda a: negative_sweep(1, 3, False, *a), "order"),
    (lambda a: positive_sweep(1, 0, False, *a[:5], a[0], a[0], a[0], a[0]), "order"),
    (lambda a: negative_sweep(1, 0, False, a[0], a[1][:2], *a[2:]), "w, grades"),
    (lambda a: negative_sweep(1, 0, False, *a[:3], np.array([0, 2], dtype=np.int64), *a[4:]), "level_edges"),
    (lambda a: negative_sweep(1, 0, False, *a[:4], np.array([0, 1], dtype=np.int64), *a[5:]), "bounds"),
    (lambda a: negative_sweep(1, 0, False, np.array([0.0, np.nan, 1.0]), *a[1:]), "scores must be finite"),
    (lambda a: negative_sweep(1, 1, False, *a), "D"),
    (lambda a: negative_sweep(1, 0, False, *a, 0), "n_threads"),
])
def test_bad_input_names_the_argument(call, message):
    f, y = np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0])
    args = (f, np.ones(3), y, np.array([0, 1, 3], dtype=np.int64), np.array([0, 2], dtype=np.int64),
            np.empty(3), np.empty(0), np.empty(0))
    with pytest.raises(ValueError, match=message):
        call(args)


def test_a_subset_of_queries_leaves_the_other_rows_alone():
    f, w, y, qid, c1, c2, edges, bounds = _case(4, n_queries=8, float_grades=True)
    full = _sweep(2, 2, True, f, w, y, edges, bounds, c1, c2)
    chosen = np.array([5, 1, 2])
    mine = np.isin(qid, np.unique(qid)[chosen])
    L, D, N, E, P = (np.full(f.shape[0], -7.0) for _ in range(5))
    negative_sweep(2, 2, True, f, w, y, edges, bounds, L, D, N, queries=chosen)
    positive_sweep(2, 2, True, f, w, y, edges, bounds, c1, c2, E, P, queries=chosen)
    for name, value in zip("LDNEP", (L, D, N, E, P)):
        np.testing.assert_array_equal(value[mine], full[name][mine])
        np.testing.assert_array_equal(value[~mine], -7.0)
    with pytest.raises(ValueError, match="at most once"):
        negative_sweep(2, 0, True, f, w, y, edges, bounds, L, D, N, queries=[1, 1])
    with pytest.raises(ValueError, match="queries: expected indices"):
        negative_sweep(2, 0, True, f, w, y, edges, bounds, L, D, N, queries=[8])


# ----------------------------------------------------------------------------------------------------
# The bound objective: the sweep beside the other two routes
# ----------------------------------------------------------------------------------------------------
def _three_route_data(seed):
    """Short queries (small levels), float-graded queries of 20-40 rows (swept) and one of 600 rows in two grades
    (levels of 300 rows: beyond the small levels' pairs, and with the hinge beyond 256 rows a level in fewer than
    8 levels, so the loss's own sums; the squared hinge sweeps it)."""
    rng = np.random.default_rng(seed)
    sizes = np.r_[rng.integers(2, 8, 12), rng.integers(20, 41, 4), 600]
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    n = qid.shape[0]
    y = rng.integers(0, 4, n).astype(float)
    floats = (qid >= 12) & (qid < 16)
    y[floats] = rng.integers(0, 12, int(floats.sum())) / 4.0          # float grades, many levels, ties
    y[qid == 16] = np.r_[np.zeros(300), np.ones(300)]
    f = rng.integers(-8, 9, n) / 4.0                                     # ties and pairs exactly at the kink
    w = rng.uniform(0.5, 2.0, n)
    w[rng.random(n) < 0.1] = 0.0
    perm = rng.permutation(n)
    return y[perm], qid[perm], f[perm], w[perm]


@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("price", ["identity", "pow:3"])
@pytest.mark.parametrize("loss", ["hinge", "sqhinge"])
def test_the_bound_objective_sweeps_long_queries_beside_the_other_routes(monkeypatch, loss, price, gain_weighted):
    from _query_objective_reference import query_push_reference
    from rankcore.objectives import _query_pairs
    from rankcore.objectives._base import HESSIAN_FLOOR

    y, qid, f, w = _three_route_data(0)
    obj = QueryPush(loss, price, gain_weighted=gain_weighted)
    bound = obj.bind(y, check_qid(qid, len(y)), w)
    out = [*bound.value_and_gradient(f)] + ([bound.value_gradient_hessian(f)[2]] if bound.has_hessian else [])
    routes = bound._routes
    swept_too = loss == "sqhinge"
    assert routes.swept.size == 4 + swept_too and routes.n_small > 0 and len(routes.large) == 1 - swept_too
    R, dR, d2R = query_push_reference(y, qid, f, w, obj.loss, obj.price, gain_weighted)
    assert out[0] == pytest.approx(math.log(R), rel=1e-12)
    np.testing.assert_allclose(out[1], dR / R, rtol=1e-9, atol=1e-12)
    if bound.has_hessian:
        np.testing.assert_allclose(out[2], np.maximum(d2R / R, HESSIAN_FLOOR), rtol=1e-9, atol=1e-12)
    monkeypatch.setattr(_query_pairs, "SWEEP_MIN_ROWS", 10**9)         # no sweep: the same numbers to rounding
    other = [*bound.value_and_gradient(f)] + ([bound.value_gradient_hessian(f)[2]] if bound.has_hessian else [])
    assert bound._routes.swept.size == 0
    for a, b in zip(other, out):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-14)


def test_only_the_builtin_hinge_losses_are_swept():
    from rankcore.losses import Hinge
    from rankcore.objectives._query_pairs import swept_queries

    class Shifted(Hinge):        # a subclass may change the loss: the sweep knows only the built-in one
        name = "test-shifted-hinge"

    starts, bounds = np.arange(40, dtype=np.int64), np.array([0, 40], dtype=np.int64)
    assert swept_queries(Hinge(), starts, bounds, 40).tolist() == [0]
    assert swept_queries(Shifted(), starts, bounds, 40).size == 0


def test_which_queries_the_sweep_takes():
    from rankcore.losses import Hinge, SquaredHinge
    from rankcore.objectives._query_pairs import swept_queries

    # queries (rows, levels): too short; one level; 5,000 rows in 3 levels; 5,000 in 8; 1,000 in 5; 10,000 in 2
    shapes = [(10, 3), (100, 1), (5000, 3), (5000, 8), (1000, 5), (10000, 2)]
    starts, bounds, row = [], [0], 0
    for rows, levels in shapes:
        starts += [row + rows * j // levels for j in range(levels)]
        bounds.append(len(starts))
        row += rows
    starts, bounds = np.array(starts, dtype=np.int64), np.array(bounds, dtype=np.int64)
    # the hinge: many levels, or few rows a level (its sorted sums per level win on a few long levels)
    assert swept_queries(Hinge(), starts, bounds, row).tolist() == [3, 4]
    assert swept_queries(SquaredHinge(), starts, bounds, row).tolist() == [2, 3, 4, 5]

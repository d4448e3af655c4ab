"""The per-query push's small-level sums (the one-call kernel, and NumPy chunks for Python losses) against NumPy
pairs, and every route against the reference."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _python_losses import PythonHinge, PythonLogistic
from _query_objective_reference import query_push_reference
from rankcore.losses._pairwise import LogisticKernel
from rankcore.metrics._queries import check_qid
from rankcore.objectives import _query_pair_kernels as kernels
from rankcore.objectives import _query_pair_numpy
from rankcore.objectives import _query_pairs
from rankcore.objectives._base import HESSIAN_FLOOR
from rankcore.objectives._query_push import QueryPush
from rankcore.registry import resolve

NON_EXP = ["logistic", "hinge", "sqhinge"]


def _layout(seed, n_queries=12, max_rows=8, float_grades=False, zero_weights=True):
    """Rows sorted by (query, grade) as the bound objective sorts them, with ties in scores and grades.

    Returns f, w, grades and every level below its query's top as (starts, ends, stops, groups).
    Query sizes include 1 (a single row) and queries of one grade.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, n_queries)
    sizes[0] = 1
    qid = np.repeat(np.arange(n_queries), sizes)
    n = qid.shape[0]
    grades = rng.choice([0.0, 0.5, 1.25, 3.0] if float_grades else [0.0, 1.0, 2.0, 4.0], n)
    grades[qid == 1] = 2.0                                      # a query of one level
    f = rng.integers(-6, 7, n) / 4.0                            # ties, and z = 1 exactly (the hinge kink)
    w = rng.uniform(0.5, 2.0, n)
    if zero_weights:
        w[rng.random(n) < 0.15] = 0.0
    order = np.lexsort((grades, qid))
    qid, grades, f, w = qid[order], grades[order], f[order], w[order]
    new = np.append(True, (qid[1:] != qid[:-1]) | (grades[1:] != grades[:-1]))
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n)
    level_q = qid[starts]
    query_end = np.searchsorted(qid, level_q, side="right")
    below_top = ends < query_end
    starts, ends, stops, level_q = starts[below_top], ends[below_top], query_end[below_top], level_q[below_top]
    groups = np.append(np.flatnonzero(np.append(True, level_q[1:] != level_q[:-1])), level_q.shape[0])
    as64 = [np.ascontiguousarray(a, dtype=np.int64) for a in (starts, ends, stops, groups)]
    return f, w, grades, as64


def _pair_weights(w, grades, hi, stop, g, gain_weighted):
    if not gain_weighted:
        return w[hi:stop]
    return w[hi:stop] * (2.0 ** grades[hi:stop] - 2.0 ** g)


def reference_sums(loss, f, w, grades, gain_weighted, levels, c1, c2):
    """L, D, E, P, N of the kernel, level by level with explicit NumPy pair matrices (``loss``'s NumPy methods)."""
    starts, ends, stops, _ = levels
    n = f.shape[0]
    L, D, E, P, N = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    second = loss.has_second_derivative
    for lo, hi, stop in zip(starts, ends, stops):
        a = _pair_weights(w, grades, hi, stop, grades[lo], gain_weighted)     # (I,)
        z = f[hi:stop][:, None] - f[lo:hi][None, :]                          # (I, K): positive minus negative
        l0, l1 = loss.value(z), loss.derivative(z)
        l2 = loss.second_derivative(z) if second else np.zeros_like(z)
        L[lo:hi] = (a[:, None] * l0).sum(axis=0)
        D[lo:hi] = (a[:, None] * l1).sum(axis=0)
        E[hi:stop] += a * (c1[None, lo:hi] * l1).sum(axis=1)
        P[hi:stop] += a * (a[:, None] * c2[None, lo:hi] * l1 * l1 + c1[None, lo:hi] * l2).sum(axis=1)
        prices = (c1[lo:hi] != 0) | (c2[lo:hi] != 0)
        N[lo:hi] = np.where(prices, (a[:, None] * l2).sum(axis=0), 0.0)
    return L, D, E, P, N


def kernel_sums(loss, f, w, grades, gain_weighted, levels, c1, c2, order=2, n_threads=1):
    n = f.shape[0]
    L, D, E, P, N = (np.zeros(n) for _ in range(5))
    kernel = loss.pairwise_kernel()
    kernels.negative_sums(kernel, f, w, grades, gain_weighted, *levels, L, D, n_threads)
    kernels.positive_sums(kernel, f, w, grades, gain_weighted, *levels, c1, c2, order, E, P, N, n_threads)
    return L, D, E, P, N


def _weights_c(seed, w, zeros=True):
    rng = np.random.default_rng(seed + 100)
    c1, c2 = rng.uniform(0.0, 2.0, w.shape[0]), rng.uniform(0.0, 2.0, w.shape[0])
    if zeros:
        off = rng.random(w.shape[0]) < 0.2
        c1[off] = c2[off] = 0.0
    return c1, c2


@pytest.mark.parametrize("float_grades", [False, True])
@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("loss", NON_EXP)
def test_kernel_matches_numpy_pairs(loss, gain_weighted, float_grades):
    loss = resolve("loss", loss)
    for seed in range(3):
        f, w, grades, levels = _layout(seed, float_grades=float_grades)
        c1, c2 = _weights_c(seed, w)
        expected = reference_sums(loss, f, w, grades, gain_weighted, levels, c1, c2)
        got = kernel_sums(loss, f, w, grades, gain_weighted, levels, c1, c2)
        for name, a, b in zip("LDEPN", got, expected):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("loss", NON_EXP)
def test_order_one_forms_only_the_positives_sums(loss):
    loss = resolve("loss", loss)
    f, w, grades, levels = _layout(4)
    c1, c2 = _weights_c(4, w)
    expected = reference_sums(loss, f, w, grades, True, levels, c1, c2)
    E = np.full(f.shape[0], 0.5)                        # E is added to, not written
    kernels.positive_sums(loss.pairwise_kernel(), f, w, grades, True, *levels, c1, np.empty(0), 1, E,
                          np.empty(0), np.empty(0), 1)
    np.testing.assert_allclose(E, expected[2] + 0.5, rtol=1e-12, atol=1e-12)


def test_rows_outside_the_levels_are_left_alone():
    loss = resolve("loss", "logistic")
    f, w, grades, (starts, ends, stops, groups) = _layout(5)
    keep = groups[1]                                       # the first query's levels only
    levels = [starts[:keep], ends[:keep], stops[:keep], groups[:2]]
    L = np.full(f.shape[0], 7.0)
    D = L.copy()
    kernels.negative_sums(loss.pairwise_kernel(), f, w, grades, False, *levels, L, D, 1)
    mine = np.zeros(f.shape[0], dtype=bool)
    for lo, hi in zip(levels[0], levels[1]):
        mine[lo:hi] = True
    assert (L[~mine] == 7.0).all() and (D[~mine] == 7.0).all()
    assert not (L[mine] == 7.0).any()


def test_no_levels_is_a_no_op():
    loss = resolve("loss", "hinge").pairwise_kernel()
    empty = np.zeros(0, dtype=np.int64)
    L = np.full(3, 7.0)
    kernels.negative_sums(loss, np.zeros(3), np.ones(3), np.zeros(3), False, empty, empty, empty,
                          np.zeros(1, dtype=np.int64), L, L, 2)
    assert (L == 7.0).all()


def test_bad_shapes_name_the_argument():
    loss = resolve("loss", "hinge").pairwise_kernel()
    f, w, grades, levels = _layout(0)
    with pytest.raises(ValueError, match=r"L: expected one entry per row"):
        kernels.negative_sums(loss, f, w, grades, False, *levels, np.zeros(2), np.zeros(f.shape[0]), 1)
    with pytest.raises(ValueError, match=r"ends: expected one entry per level"):
        kernels.negative_sums(loss, f, w, grades, False, levels[0], levels[1][:-1], levels[2], levels[3],
                              np.zeros(f.shape[0]), np.zeros(f.shape[0]), 1)


@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("loss", ["logistic", "sqhinge"])
def test_kernel_is_the_same_bit_for_bit_on_one_and_two_threads(loss, gain_weighted):
    """Enough pairs (some 70,000) that the call does share its queries between threads."""
    loss = resolve("loss", loss)
    f, w, grades, levels = _layout(6, n_queries=6_000, max_rows=10)
    c1, c2 = _weights_c(6, w)
    pairs = int(((levels[1] - levels[0]) * (levels[2] - levels[1])).sum())
    assert pairs > 32_768
    one = kernel_sums(loss, f, w, grades, gain_weighted, levels, c1, c2, n_threads=1)
    two = kernel_sums(loss, f, w, grades, gain_weighted, levels, c1, c2, n_threads=2)
    for name, a, b in zip("LDEPN", one, two):
        np.testing.assert_array_equal(a, b, err_msg=name)


# ----------------------------------------------------------------------------------------------------
# The bound objective: small levels by the kernel, large ones by the loss's own sums
# ----------------------------------------------------------------------------------------------------
def _mixed_data(seed, float_grades=False):
    """Queries of 1-40 rows, so that a threshold of a few dozen pairs splits the levels both ways."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 41, 10)
    qid = np.repeat(np.arange(10) * 3 + 1, sizes)
    n = qid.shape[0]
    y = rng.choice([0, 0.5, 1.25, 3] if float_grades else [0, 1, 2, 4], n)
    f = rng.integers(-6, 7, n) / 4.0
    w = rng.uniform(0.5, 2.0, n)
    w[rng.random(n) < 0.1] = 0.0
    perm = rng.permutation(n)
    return y[perm], qid[perm], f[perm], w[perm]


def _evaluate(loss, price, y, qid, f, w, gain_weighted, n_threads=1):
    bound = QueryPush(loss, price, gain_weighted=gain_weighted).bind(y, check_qid(qid, len(y)), w,
                                                                     n_threads=n_threads)
    out = [bound.value(f), *bound.value_and_gradient(f)]
    if bound.has_hessian:
        out += bound.value_gradient_hessian(f)
    return bound, out


@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("price", ["identity", "pow:3", "exp:0.5"])
@pytest.mark.parametrize("loss", NON_EXP)
def test_both_routes_match_the_exact_reference(monkeypatch, loss, price, gain_weighted):
    monkeypatch.setattr(_query_pairs, "SWEEP_MIN_ROWS", 10**9)     # the hinge losses' sweep: its own tests
    for seed, float_grades in ((0, False), (1, True)):
        y, qid, f, w = _mixed_data(seed, float_grades)
        monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", 60)
        bound, out = _evaluate(loss, price, y, qid, f, w, gain_weighted)
        routes = bound._routes
        assert routes.n_small > 0 and len(routes.large) > 0            # both routes are taken
        R, dR, d2R = query_push_reference(y, qid, f, w, bound.loss, bound.price, gain_weighted)
        J0, J1, grad = out[:3]
        assert J0 == J1 == pytest.approx(math.log(R), rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(grad, dR / R, rtol=1e-10, atol=1e-13)
        if bound.has_hessian:
            J2, grad2, hess = out[3:]
            assert J2 == J0
            np.testing.assert_array_equal(grad2, grad)
            np.testing.assert_allclose(hess, np.maximum(d2R / R, HESSIAN_FLOOR), rtol=1e-9, atol=1e-13)
        # every level one way, then the other: the same numbers to rounding
        for threshold in (-1, 10**9):
            monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", threshold)
            _, other = _evaluate(loss, price, y, qid, f, w, gain_weighted)
            for a, b in zip(other, out):
                np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("loss", ["logistic", "sqhinge"])
def test_bound_objective_is_the_same_bit_for_bit_on_one_and_two_threads(loss):
    rng = np.random.default_rng(8)
    sizes = rng.integers(2, 11, 6_000)
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    y = rng.integers(0, 5, qid.shape[0]).astype(float)
    f = rng.normal(size=qid.shape[0])
    _, one = _evaluate(loss, "pow:4", y, qid, f, None, True, n_threads=1)
    _, two = _evaluate(loss, "pow:4", y, qid, f, None, True, n_threads=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("gain_weighted", [False, True])
def test_subnormal_objective_scales_both_routes_alike(monkeypatch, gain_weighted):
    """Weights g′(L)/R and g″(L)/R beyond any float, on two scales (the curvature's parts apart), either route."""
    y = np.array([0.0, 1.0, 1.0, 2.0])
    f = np.array([0.0, 0.5, 0.25, 0.75])
    w = np.array([1.0, 1e-309, 1e-309, 1e-309])
    bound = QueryPush("sqhinge", "pow:64", gain_weighted=gain_weighted).bind(y, check_qid(np.ones(4), 4), w)
    out = {}
    for threshold, sweep_from in ((-1, 10**9), (512, 10**9), (512, 2)):
        monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", threshold)
        monkeypatch.setattr(_query_pairs, "SWEEP_MIN_ROWS", sweep_from)
        out[threshold, sweep_from] = bound.value_gradient_hessian(f)
        assert (bound._routes.n_small > 0) == (threshold > 0 and sweep_from > 4)
        assert (bound._routes.swept.size > 0) == (sweep_from <= 4)
    J, grad, hess = out[512, 10**9]
    assert math.isfinite(J) and np.isfinite(grad).all() and np.isfinite(hess).all()
    assert np.abs(grad).max() > 1.0 and hess.max() > 1e3                # far from the floor: the scaled parts count
    for other in (out[-1, 10**9], out[512, 2]):
        for a, b in zip(out[512, 10**9], other):
            np.testing.assert_allclose(a, b, rtol=1e-12)


class _CompiledPluginLogistic(PythonLogistic):
    """The same loss with a compiled evaluator, as a Cython plugin gives: the kernel takes its small levels."""

    name = "test-compiled-logistic"

    def pairwise_kernel(self):
        return LogisticKernel(1.0 / np.log(2))


@pytest.mark.parametrize("plugin,compiled", [(PythonLogistic, False), (_CompiledPluginLogistic, True)])
def test_plugin_losses(monkeypatch, plugin, compiled):
    """Small levels together (compiled: the kernel; Python: NumPy chunks), large ones by the loss, as built-ins."""
    calls = []
    numpy_sums = _query_pair_numpy.negative_sums
    monkeypatch.setattr("rankcore.objectives._query_push.numpy_negative_sums",
                        lambda *args: calls.append(1) or numpy_sums(*args))
    monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", 60)
    y, qid, f, w = _mixed_data(3)
    bound, out = _evaluate(plugin(), "pow:2", y, qid, f, w, True)
    assert bound._routes.n_small > 0 and len(bound._routes.large) > 0
    assert bool(calls) != compiled
    _, builtin = _evaluate("logistic", "pow:2", y, qid, f, w, True)
    for a, b in zip(out, builtin):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-14)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_hypothesis_routes_match_reference(data):
    n = data.draw(st.integers(2, 24))
    qid = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, 4.0]), min_size=n, max_size=n)))
    f = np.array(data.draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n)), dtype=float) / 4
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    gain_weighted = data.draw(st.booleans())
    loss = data.draw(st.sampled_from(NON_EXP))
    price = data.draw(st.sampled_from(["identity", "pow:2"]))
    threshold = data.draw(st.sampled_from([-1, 0, 2, 6, 512]))
    sweep_from = data.draw(st.sampled_from([2, 16, 10**9]))
    obj = QueryPush(loss, price, gain_weighted=gain_weighted)
    R, dR, d2R = query_push_reference(y, qid, f, w, obj.loss, obj.price, gain_weighted)
    try:
        bound = obj.bind(y, check_qid(qid, n), w)
    except ValueError:
        assert R == 0                          # no query with two grades of positive weight: no pair
        return
    old = _query_pairs.SMALL_LEVEL_PAIRS, _query_pairs.SWEEP_MIN_ROWS
    _query_pairs.SMALL_LEVEL_PAIRS, _query_pairs.SWEEP_MIN_ROWS = threshold, sweep_from
    try:
        J, grad = bound.value_and_gradient(f)
        hess = bound.value_gradient_hessian(f)[2] if bound.has_hessian else None
    finally:
        _query_pairs.SMALL_LEVEL_PAIRS, _query_pairs.SWEEP_MIN_ROWS = old
    if R == 0:
        assert J == -math.inf
        return
    assert J == pytest.approx(math.log(R), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(grad, dR / R, rtol=1e-9, atol=1e-12)
    if hess is not None:
        np.testing.assert_allclose(hess, np.maximum(d2R / R, HESSIAN_FLOOR), rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------------------------------
# Losses without a compiled evaluator: the small levels by NumPy chunks of pairs
# ----------------------------------------------------------------------------------------------------
def numpy_chunk_sums(loss, f, w, grades, gain_weighted, levels, c1, c2, order=2):
    n = f.shape[0]
    L, D, E, P, N = (np.zeros(n) for _ in range(5))
    _query_pair_numpy.negative_sums(loss, f, w, grades, gain_weighted, *levels, L, D)
    _query_pair_numpy.positive_sums(loss, f, w, grades, gain_weighted, *levels, c1, c2, order, E, P, N)
    return L, D, E, P, N


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 18])
@pytest.mark.parametrize("float_grades", [False, True])
@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("loss", [PythonLogistic(), PythonHinge()], ids=["py-logistic", "py-hinge"])
def test_numpy_chunks_match_numpy_pairs(monkeypatch, loss, gain_weighted, float_grades, chunk):
    """Chunks of 1 pair (a level a chunk), of a few pairs (levels split across chunk starts), of all pairs."""
    monkeypatch.setattr(_query_pair_numpy, "CHUNK_PAIRS", chunk)
    f, w, grades, levels = _layout(11, n_queries=40, max_rows=9, float_grades=float_grades)
    c1, c2 = _weights_c(11, w)
    order = 2 if loss.has_second_derivative else 1
    got = numpy_chunk_sums(loss, f, w, grades, gain_weighted, levels, c1, c2, order)
    want = reference_sums(loss, f, w, grades, gain_weighted, levels, c1, c2)
    for name, a, b in zip("LDEPN"[:3 + 2 * (order == 2)], got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13, err_msg=name)


def test_numpy_chunks_leave_other_rows_alone():
    f, w, grades, levels = _layout(12, n_queries=10, max_rows=6)
    n = f.shape[0]
    c1, c2 = _weights_c(12, w)
    L, D, E, P, N = (np.full(n, 7.0) for _ in range(5))
    loss = PythonLogistic()
    _query_pair_numpy.negative_sums(loss, f, w, grades, False, *levels, L, D)
    _query_pair_numpy.positive_sums(loss, f, w, grades, False, *levels, c1, c2, 2, E, P, N)
    level_rows = np.zeros(n, dtype=bool)
    for lo, hi in zip(levels[0], levels[1]):
        level_rows[lo:hi] = True
    for a in (L, D, N):
        assert (a[~level_rows] == 7.0).all()
    empty = [np.zeros(0, dtype=np.int64)] * 3 + [np.zeros(1, dtype=np.int64)]
    _query_pair_numpy.negative_sums(loss, f, w, grades, False, *empty, L, D)       # no levels: a no-op
    _query_pair_numpy.positive_sums(loss, f, w, grades, False, *empty, c1, c2, 2, E, P, N)
    assert (L[~level_rows] == 7.0).all()


@pytest.mark.parametrize("chunk", [3, 1 << 18])
@pytest.mark.parametrize("gain_weighted", [False, True])
@pytest.mark.parametrize("price", ["identity", "pow:3"])
@pytest.mark.parametrize("loss", [PythonLogistic, PythonHinge])
def test_python_losses_chunked_route_matches_reference_and_per_level(monkeypatch, loss, price, gain_weighted,
                                                                       chunk):
    """Orders 0, 1 (and 2 with ℓ″), zero weights, ties: the reference, then every level through the loss."""
    monkeypatch.setattr(_query_pair_numpy, "CHUNK_PAIRS", chunk)
    for seed, float_grades in ((0, False), (1, True)):
        y, qid, f, w = _mixed_data(seed, float_grades)
        monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", 60)
        bound, out = _evaluate(loss(), price, y, qid, f, w, gain_weighted)
        assert bound._routes.n_small > 0 and len(bound._routes.large) > 0
        assert bound.has_hessian == (loss is PythonLogistic)
        R, dR, d2R = query_push_reference(y, qid, f, w, bound.loss, bound.price, gain_weighted)
        assert out[0] == out[1] == pytest.approx(math.log(R), rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(out[2], dR / R, rtol=1e-10, atol=1e-13)
        if bound.has_hessian:
            np.testing.assert_allclose(out[5], np.maximum(d2R / R, HESSIAN_FLOOR), rtol=1e-9, atol=1e-13)
        for threshold in (-1, 10**9):           # every level by the loss's own sums, then every level chunked
            monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", threshold)
            _, other = _evaluate(loss(), price, y, qid, f, w, gain_weighted)
            for a, b in zip(other, out):
                np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("gain_weighted", [False, True])
def test_python_loss_subnormal_objective_chunked_as_per_level(monkeypatch, gain_weighted):
    """Weights g′(L)/R and g″(L)/R beyond any float: the curvature's two scales, chunked as per level."""
    y = np.array([0.0, 1.0, 1.0, 2.0])
    f = np.array([0.0, 40.0, 39.0, 41.0])
    w = np.array([1.0, 1e-300, 1e-300, 1e-300])
    bound = QueryPush(PythonLogistic(), "pow:64", gain_weighted=gain_weighted).bind(y, check_qid(np.ones(4), 4), w)
    out = {}
    for threshold in (-1, 512):
        monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", threshold)
        out[threshold] = bound.value_gradient_hessian(f)
        assert (bound._routes.n_small > 0) == (threshold > 0)
    assert all(np.isfinite(a).all() for a in out[512])
    assert np.abs(out[512][1]).max() > 1.0 and out[512][2].max() > 1e3        # far from the floor
    for a, b in zip(out[512], out[-1]):
        np.testing.assert_allclose(a, b, rtol=1e-11)


class _NaNBelow(PythonLogistic):
    """A loss that is NaN for z < −1: a plugin that never ran the contract checks."""

    name = "test-nan-below"

    def value(self, z):
        return np.where(np.asarray(z) < -1, np.nan, super().value(z))

    def derivative(self, z):
        return np.where(np.asarray(z) < -1, np.nan, super().derivative(z))


@pytest.mark.parametrize("threshold", [-1, 512])
def test_a_loss_that_is_nan_somewhere_is_named(monkeypatch, threshold):
    # its rows dropped out of the objective and the gradient without a word (log NaN is no number above −inf)
    monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", threshold)
    y = np.array([0.0, 1.0, 0.0, 2.0])
    f = np.array([3.0, 0.0, 0.0, 0.5])                # z = 0 − 3 < −1 for the first query's pair
    bound = QueryPush(_NaNBelow(), "pow:2").bind(y, check_qid(np.array([1, 1, 2, 2]), 4))
    for evaluate in (bound.value, bound.value_and_gradient):
        with pytest.raises(ValueError, match=r"^loss 'test-nan-below': its pairwise sums hold NaN"):
            evaluate(f)
    assert np.isfinite(bound.value(np.zeros(4)))       # where it is a number, the push runs
    from rankcore.objectives import PushObjective

    single = PushObjective(loss=_NaNBelow(), price="pow:2").bind(np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match=r"^loss 'test-nan-below': its pairwise sums hold NaN"):
        single.value_and_gradient(np.array([3.0, 0.0, 0.0, 0.5]))

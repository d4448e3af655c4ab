"""Per-query objectives as queries grow: the per-query push (linear) against pairs (quadratic).

The same number of rows is cut into queries of 100, 1,000 and 10,000 documents
(grades 0-4).  For each length, in the same run:

* the per-query push (``exp`` loss, ``pow:4``), value, gradient and curvature;
* the naive pairwise computation of the same value and gradient (every pair of
  different grades in each query, in blocks of rows);
* LightGBM's lambdarank gradients without truncation (every pair: O(Σ n_q²))
  and with LightGBM's default truncation of 30 positions.

And lambdarank on many queries of 2-10 rows (a search log), the compiled pass
(bound: gains and ideal DCGs computed once, as a fit does; and from the grades
at each call) against the same sums one query at a time in NumPy; lambdarank on
one long query (the compiled pass against the same sums in NumPy on arrays
gathered in score order, and its time per pair against a query an eighth as
long: the pass reads each query's values gathered in score order, so past the
cache the time per pair should stay flat); the per-query push with the
hinge and logistic losses on such queries, its small levels summed in one
compiled call against the loss's sums asked level by level, and with a loss
written in Python (no compiled evaluator) its small levels in NumPy chunks of
pairs against the loss's sums level by level; and, at the
threshold of pairs up to which a level takes the one call, both forms on levels
of that size (the one call should not be the slower); and the hinge and squared
hinge sums of the per-query push on one query of 20,000 rows with float grades
(every row its own level), the level sweep against the loss's sums per level;
and XE-NDCG (``xendcg``) on 20,000 queries of 2-30 rows, the compiled pass
(on one thread, and on two) against the same softmax per query in NumPy
(``np.maximum.reduceat`` / ``np.add.reduceat`` over the queries, the noise
drawn by the same hash in NumPy).

With a fixed number of rows a linear method costs the same at every query
length, a quadratic one ten times more per tenfold longer queries.
``RANKCORE_BENCH_PROFILE=fast`` (default) uses 10,000 rows, ``full`` 100,000.
Run with ``pytest benchmarks/bench_query_objective.py --benchmark-only``.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from rankcore.metrics._queries import check_qid
from rankcore.objectives import _query_pairs
from rankcore.objectives._lambdarank import LambdaRank
from rankcore.objectives._query_push import QueryPush
from rankcore.objectives._query_sweep_kernels import negative_sweep, positive_sweep
from rankcore.objectives._xendcg import PreparedXENDCG, target_noise

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
ROWS = 100_000 if PROFILE == "full" else 10_000
#: Rows of lambdarank's one long query (``full``: past a 32 MiB cache, where pairs read out of row order would
#: wait on memory).
LONG_QUERY = 1_280_000 if PROFILE == "full" else 160_000
LENGTHS = [100, 1_000, 10_000]
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "query objectives"

#: Rows of lower grade per block of the naive pairwise computation.
_BLOCK = 512


def _case(length, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(ROWS // length), length)
    y = rng.choice([0, 1, 2, 3, 4], ROWS, p=[0.5, 0.25, 0.15, 0.07, 0.03]).astype(np.float64)
    f = rng.normal(size=ROWS) + 0.3 * y
    return y, qid, f


def naive_pairwise_push(y, qid, f, p=4.0):
    """(log R, ∇ log R) of the per-query push with ℓ = exp, g = r^p, visiting every pair of every query."""
    L = np.zeros(f.shape[0])
    pairs = []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        for start in range(0, rows.shape[0], _BLOCK):
            low = rows[start:start + _BLOCK]
            above = y[rows][None, :] > y[low][:, None]
            e = np.where(above, np.exp(-(f[rows][None, :] - f[low][:, None])), 0.0)
            L[low] = e.sum(axis=1)
            pairs.append((rows, low, above))
    R = float(np.sum(L ** p))
    grad = np.zeros(f.shape[0])
    c = p * L ** (p - 1) / R
    for rows, low, above in pairs:
        e = np.where(above, np.exp(-(f[rows][None, :] - f[low][:, None])), 0.0) * c[low][:, None]
        grad[low] += e.sum(axis=1)
        np.add.at(grad, rows, -e.sum(axis=0))
    return np.log(R), grad


def _seconds(func, *args, rounds):
    best = np.inf
    for _ in range(rounds):
        start = time.perf_counter()
        func(*args)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("length", LENGTHS, ids=lambda n: f"query={n}")
def test_query_push_against_pairs(benchmark, length):
    y, qid, f = _case(length)
    queries = check_qid(qid, ROWS)
    bound = QueryPush("exp", "pow:4").bind(y, queries)
    J, grad = bound.value_and_gradient(f)
    ref_J, ref_grad = naive_pairwise_push(y, qid, f)
    np.testing.assert_allclose([J, *grad], [ref_J, *ref_grad], rtol=1e-8, atol=1e-12)
    benchmark.pedantic(bound.value_gradient_hessian, args=(f,), rounds=5, iterations=1)
    ours = benchmark.stats.stats.min
    naive = _seconds(naive_pairwise_push, y, qid, f, rounds=1)
    full = _seconds(LambdaRank(None).gradient_hessian, y, f, queries, rounds=1)
    truncated = _seconds(LambdaRank(30).gradient_hessian, y, f, queries, rounds=1)
    benchmark.extra_info.update(rows=ROWS, query_length=length, seconds=ours, naive_seconds=naive,
                                lambdarank_seconds=full, lambdarank_30_seconds=truncated, ratio=naive / ours)
    SUMMARY.append(f"{ROWS} rows in queries of {length:>6}: per-query push (value+gradient+curvature) "
                   f"{ours * 1e3:8.2f} ms | naive pairs (value+gradient) {naive * 1e3:9.1f} ms "
                   f"({naive / ours:7.1f}x) | lambdarank all pairs {full * 1e3:9.1f} ms, "
                   f"truncated at 30 {truncated * 1e3:8.1f} ms")


def per_query_lambdarank(y, qid, f, truncation=30, sigmoid=1.0):
    """LambdaMART's λ and curvature (norm on), one query at a time in NumPy: the form the compiled pass replaced."""
    grad, hess = np.zeros(f.shape[0]), np.zeros(f.shape[0])
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        n = rows.shape[0]
        k = min(truncation, n)
        gain = np.exp2(y[rows]) - 1.0
        max_dcg = float(np.sum(np.sort(gain)[::-1][:k] / np.log2(np.arange(k) + 2.0)))
        if n < 2 or max_dcg <= 0:
            continue
        order = np.argsort(-f[rows], kind="stable")
        fs, gs, ys = f[rows][order], gain[order], y[rows][order]
        i, j = np.nonzero((np.arange(n)[None, :] > np.arange(k)[:, None]) & (ys[:k, None] != ys[None, :]))
        high, low = np.where(ys[i] > ys[j], i, j), np.where(ys[i] > ys[j], j, i)
        ds = fs[high] - fs[low]
        discount = 1.0 / np.log2(np.arange(n) + 2.0)
        delta = (gs[high] - gs[low]) * np.abs(discount[high] - discount[low]) / max_dcg
        if fs[0] != fs[-1]:
            delta = delta / (float(np.float32(0.01)) + np.abs(ds))
        rho = 1.0 / (1.0 + np.exp(sigmoid * ds))
        lam, curv = -sigmoid * delta * rho, sigmoid * sigmoid * delta * rho * (1.0 - rho)
        g = np.bincount(high, lam, n) - np.bincount(low, lam, n)
        h = np.bincount(high, curv, n) + np.bincount(low, curv, n)
        total = -2.0 * lam.sum()
        factor = np.log2(1.0 + total) / total if total > 0 else 1.0
        grad[rows[order]], hess[rows[order]] = g * factor, h * factor
    return grad, hess


def test_lambdarank_on_many_short_queries(benchmark):
    """Queries of 2-10 documents (a search log): the compiled pass against the same sums one query at a time."""
    rng = np.random.default_rng(1)
    sizes = rng.integers(2, 11, ROWS // 6)
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    y = rng.integers(0, 5, qid.shape[0]).astype(np.float64)
    f = rng.normal(size=qid.shape[0]) + 0.3 * y
    queries = check_qid(qid, qid.shape[0])
    ours = LambdaRank(30).gradient_hessian(y, f, queries, n_threads=1)
    plain = per_query_lambdarank(y, qid, f)
    for a, b in zip(ours, plain):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-14)
    prepared = LambdaRank(30).prepare(y, queries)
    for a, b in zip(ours, prepared.gradient_hessian(f, n_threads=1)):
        np.testing.assert_array_equal(a, b)
    benchmark.pedantic(prepared.gradient_hessian, args=(f,), kwargs={"n_threads": 1}, rounds=5, iterations=1)
    seconds = benchmark.stats.stats.min
    unbound = _seconds(LambdaRank(30).gradient_hessian, y, f, queries, rounds=3)
    numpy_seconds = _seconds(per_query_lambdarank, y, qid, f, rounds=1)
    benchmark.extra_info.update(rows=int(qid.shape[0]), queries=int(sizes.shape[0]), seconds=seconds,
                                from_grades_seconds=unbound, per_query_numpy_seconds=numpy_seconds,
                                speedup_vs_per_query_numpy=numpy_seconds / seconds)
    SUMMARY.append(f"lambdarank, {sizes.shape[0]} queries of 2-10 rows: compiled, bound {seconds * 1e3:7.2f} ms, "
                   f"from the grades {unbound * 1e3:7.2f} ms | one query at a time in NumPy "
                   f"{numpy_seconds * 1e3:8.1f} ms ({numpy_seconds / seconds:6.1f}x)")


def one_query_lambdarank(y, f, truncation=30, sigmoid=1.0):
    """LambdaMART's λ and curvature (norm on) of one query in NumPy, on its arrays gathered in score order."""
    n = y.shape[0]
    k = min(truncation, n)
    order = np.argsort(-f, kind="stable")
    grade, score, gain = y[order], f[order], np.exp2(y[order]) - 1.0
    discount = 1.0 / np.log2(np.arange(n) + 2.0)
    max_dcg = float(np.sort(gain)[::-1][:k] @ discount[:k])
    lam, curv, total = np.zeros(n), np.zeros(n), 0.0
    for i in range(k):
        rest = slice(i + 1, n)
        up = grade[i] > grade[rest]                                    # place i is the pair's higher grade
        ds = np.where(up, score[i] - score[rest], score[rest] - score[i])
        delta = np.abs(gain[i] - gain[rest]) * np.abs(discount[i] - discount[rest]) / max_dcg
        if score[0] != score[-1]:
            delta = delta / (float(np.float32(0.01)) + np.abs(ds))
        rho = 1.0 / (1.0 + np.exp(sigmoid * ds))
        p_lambda = np.where(grade[i] != grade[rest], -sigmoid * delta * rho, 0.0)
        p_hess = np.where(grade[i] != grade[rest], sigmoid * sigmoid * delta * rho * (1.0 - rho), 0.0)
        lam[i] += np.sum(np.where(up, p_lambda, -p_lambda))
        lam[rest] += np.where(up, -p_lambda, p_lambda)
        curv[i] += p_hess.sum()
        curv[rest] += p_hess
        total -= 2.0 * p_lambda.sum()
    factor = np.log2(1.0 + total) / total if total > 0 else 1.0
    grad, hess = np.empty(n), np.empty(n)
    grad[order], hess[order] = lam * factor, curv * factor
    return grad, hess


def test_lambdarank_on_one_long_query(benchmark):
    """One query of LONG_QUERY rows at truncation 30: the compiled pass against NumPy on the gathered arrays,
    and its time per pair against a query an eighth as long (flat: the pass reads contiguous buffers)."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 5, LONG_QUERY).astype(np.float64)
    f = rng.normal(size=LONG_QUERY) + 0.3 * y
    prepared = LambdaRank(30).prepare(y, check_qid(np.zeros(LONG_QUERY, dtype=np.int64), LONG_QUERY))
    ours = prepared.gradient_hessian(f, n_threads=1)
    start = time.perf_counter()
    plain = one_query_lambdarank(y, f)
    numpy_seconds = time.perf_counter() - start
    for a, b in zip(ours, plain):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-15)
    benchmark.pedantic(prepared.gradient_hessian, args=(f,), kwargs={"n_threads": 1}, rounds=3, iterations=1)
    seconds = benchmark.stats.stats.min
    short = LONG_QUERY // 8
    small = LambdaRank(30).prepare(y[:short], check_qid(np.zeros(short, dtype=np.int64), short))
    short_seconds = _seconds(small.gradient_hessian, f[:short], rounds=3)
    per_pair, short_per_pair = seconds / (30 * LONG_QUERY), short_seconds / (30 * short)
    benchmark.extra_info.update(rows=LONG_QUERY, seconds=seconds, numpy_seconds=numpy_seconds,
                                ns_per_pair=per_pair * 1e9, eighth_ns_per_pair=short_per_pair * 1e9,
                                speedup_vs_numpy=numpy_seconds / seconds)
    SUMMARY.append(f"lambdarank, one query of {LONG_QUERY} rows: compiled {seconds * 1e3:8.1f} ms "
                   f"({per_pair * 1e9:5.1f} ns a pair; {short} rows: {short_per_pair * 1e9:5.1f} ns, "
                   f"ratio {per_pair / short_per_pair:4.2f}) | NumPy on the gathered arrays "
                   f"{numpy_seconds * 1e3:8.1f} ms ({numpy_seconds / seconds:5.1f}x)")


def _with_threshold(max_pairs, func, *args):
    """``func(*args)`` with levels of at most ``max_pairs`` pairs summed in one call (-1: every level apart)."""
    old = _query_pairs.SMALL_LEVEL_PAIRS
    _query_pairs.SMALL_LEVEL_PAIRS = max_pairs
    try:
        return func(*args)
    finally:
        _query_pairs.SMALL_LEVEL_PAIRS = old


def _push_forms(loss, y, qid, f):
    """The bound push's evaluation (with curvature where the loss has one), and its one-call and per-level forms."""
    bound = QueryPush(loss, "pow:4", gain_weighted=True).bind(y, check_qid(qid, qid.shape[0]))
    evaluate = bound.value_gradient_hessian if bound.has_hessian else bound.value_and_gradient
    one_call = _with_threshold(_query_pairs.SMALL_LEVEL_PAIRS, evaluate, f)
    per_level = _with_threshold(-1, evaluate, f)
    for a, b in zip(one_call, per_level):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-14)
    return evaluate


def _python_logistic():
    """A loss written in NumPy only (no compiled evaluator), as a third-party plugin: the tests' own."""
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "tests"))
    from _python_losses import PythonLogistic

    return PythonLogistic()


@pytest.mark.parametrize("loss", ["hinge", "logistic", "py-logistic"])
def test_query_push_on_many_short_queries(benchmark, loss):
    """2,000 queries of 2-10 rows: every level below a top in one call -- compiled, or NumPy chunks of pairs for a
    loss in Python -- against one loss call per level."""
    rng = np.random.default_rng(2)
    sizes = rng.integers(2, 11, 2_000)
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    y = rng.integers(0, 5, qid.shape[0]).astype(np.float64)
    f = rng.normal(size=qid.shape[0]) + 0.3 * y
    evaluate = _push_forms(_python_logistic() if loss == "py-logistic" else loss, y, qid, f)
    benchmark.pedantic(_with_threshold, args=(_query_pairs.SMALL_LEVEL_PAIRS, evaluate, f), rounds=5, iterations=1)
    seconds = benchmark.stats.stats.min
    per_level = _seconds(_with_threshold, -1, evaluate, f, rounds=3)
    benchmark.extra_info.update(rows=int(qid.shape[0]), queries=int(sizes.shape[0]), seconds=seconds,
                                per_level_seconds=per_level, speedup_vs_per_level=per_level / seconds)
    form = "NumPy chunks" if loss == "py-logistic" else "one call"
    SUMMARY.append(f"push {loss:11s}, {sizes.shape[0]} queries of 2-10 rows: {form} {seconds * 1e3:7.2f} ms | "
                   f"the loss per level {per_level * 1e3:8.1f} ms ({per_level / seconds:6.1f}x)")


@pytest.mark.parametrize("shape", [(2, 256), (8, 64), (64, 8)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_query_push_levels_at_the_threshold(benchmark, loss, shape):
    """Queries of one level of ``below`` rows under ``above`` rows, SMALL_LEVEL_PAIRS pairs: both forms."""
    below, above = shape
    assert below * above == _query_pairs.SMALL_LEVEL_PAIRS
    n_queries = 200
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(n_queries), below + above)
    y = np.tile(np.r_[np.zeros(below), np.ones(above)], n_queries)
    f = rng.normal(size=qid.shape[0])
    evaluate = _push_forms(loss, y, qid, f)
    benchmark.pedantic(_with_threshold, args=(_query_pairs.SMALL_LEVEL_PAIRS, evaluate, f), rounds=5, iterations=1)
    seconds = benchmark.stats.stats.min
    per_level = _seconds(_with_threshold, -1, evaluate, f, rounds=5)
    benchmark.extra_info.update(pairs_per_level=below * above, seconds=seconds, per_level_seconds=per_level,
                                ratio_one_call_over_per_level=seconds / per_level)
    SUMMARY.append(f"push {loss:8s}, {n_queries} levels of {below:3d} x {above:3d} rows: one call "
                   f"{seconds * 1e3:7.2f} ms | the loss per level {per_level * 1e3:7.2f} ms "
                   f"(one call / per level {seconds / per_level:5.2f})")


#: Rows of the one query with float grades (every row its own level) of the hinge sums' benchmark.
SWEEP_ROWS = 20_000


def _level_by_level_sums(bound, f, c):
    """L, D and w·E of the per-query push as its per-level path gathers them: the loss's sums per level."""
    loss, n = bound.loss, f.shape[0]
    L, D, E = np.zeros(n), np.zeros(n), np.zeros(n)
    levels = np.flatnonzero(~bound.top_level)
    tops = bound.bounds[np.searchsorted(bound.bounds, levels, side="right")] - 1
    for lv, top in zip(levels.tolist(), tops.tolist()):
        lo, hi, stop = bound.level_starts[lv], bound.level_ends[lv], bound.level_ends[top]
        w_pos = np.ascontiguousarray(bound._pair_weights(lv, hi, stop))
        f_pos, f_neg = np.ascontiguousarray(f[hi:stop]), np.ascontiguousarray(f[lo:hi])
        L[lo:hi], D[lo:hi] = loss.negative_sums(f_pos, w_pos, f_neg)
        E[hi:stop] += w_pos * loss.positive_sums(f_pos, f_neg, c[lo:hi])
    return L, D, E


def _swept_sums(bound, f, c, edges):
    n = f.shape[0]
    L, D, E = np.empty(n), np.empty(n), np.empty(n)
    negative_sweep(bound.loss.degree, 1, bound.gain_weighted, f, bound.weight, bound.grades, edges, bound.bounds,
                   L, D, np.empty(0))
    positive_sweep(bound.loss.degree, 1, bound.gain_weighted, f, bound.weight, bound.grades, edges, bound.bounds,
                   c, np.empty(0), E, np.empty(0))
    return L, D, E * bound.weight


@pytest.mark.parametrize("loss", ["hinge", "sqhinge"])
def test_hinge_sums_level_sweep_against_per_level(benchmark, loss):
    """One query, float grades: the sweep (O(n log n)) against the loss's sums per level (O(n²)), L, D and E."""
    rng = np.random.default_rng(2)
    y = rng.uniform(0, 4, SWEEP_ROWS)
    f_caller = rng.normal(size=SWEEP_ROWS) + 0.3 * y
    bound = QueryPush(loss, "pow:2").bind(y, check_qid(np.zeros(SWEEP_ROWS, dtype=np.int64), SWEEP_ROWS))
    f = np.ascontiguousarray(f_caller[bound.order])
    c = rng.uniform(0, 1, SWEEP_ROWS)
    edges = np.append(bound.level_starts, SWEEP_ROWS).astype(np.int64)
    swept = _swept_sums(bound, f, c, edges)
    start = time.perf_counter()
    per_level = _level_by_level_sums(bound, f, c)
    level_seconds = time.perf_counter() - start
    for ours, theirs in zip(swept, per_level):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9 * np.max(np.abs(theirs)))
    benchmark.pedantic(_swept_sums, args=(bound, f, c, edges), rounds=5, iterations=1)
    seconds = benchmark.stats.stats.min
    benchmark.extra_info.update(rows=SWEEP_ROWS, levels=int(bound.level_starts.shape[0]), seconds=seconds,
                                per_level_seconds=level_seconds, speedup_vs_per_level=level_seconds / seconds)
    SUMMARY.append(f"{loss} sums (L, D, E), one query of {SWEEP_ROWS} rows, float grades: level sweep "
                   f"{seconds * 1e3:7.2f} ms | loss's sums per level {level_seconds * 1e3:9.1f} ms "
                   f"({level_seconds / seconds:7.1f}x)")


#: Queries of the XE-NDCG benchmark (2-30 rows each: about 320,000 rows).
XENDCG_QUERIES = 20_000


def xendcg_numpy(y, starts, f, seed=0, evaluation=0):
    """XE-NDCG's (g, h) on rows grouped by query (query q from ``starts[q]``), every query at once in NumPy."""
    sizes = np.diff(np.append(starts, y.shape[0]))
    of_row = np.repeat(np.arange(starts.shape[0]), sizes)
    e = np.exp(f - np.maximum.reduceat(f, starts)[of_row])
    rho = e / np.add.reduceat(e, starts)[of_row]
    phi = np.exp2(y) - target_noise(seed, evaluation, np.arange(y.shape[0]))
    p = phi / np.add.reduceat(phi, starts)[of_row]
    live = (np.maximum.reduceat(y, starts) > np.minimum.reduceat(y, starts))[of_row]
    return np.where(live, rho - p, 0.0), np.where(live, rho * (1.0 - rho), 0.0)


def test_xendcg_on_many_short_queries(benchmark):
    """20,000 queries of 2-30 rows: the compiled pass (gains and layout prepared once, as a fit binds them)
    against every query's softmax at once in NumPy; checked equal first."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 31, XENDCG_QUERIES)
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    y = rng.integers(0, 5, qid.shape[0]).astype(np.float64)
    f = np.round(rng.normal(size=qid.shape[0]) + 0.3 * y, 2)            # some tied scores
    prepared = PreparedXENDCG(y, check_qid(qid, qid.shape[0]))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    ours = prepared.gradient_hessian(f, n_threads=1)
    for a, b in zip(ours, xendcg_numpy(y, starts, f)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    for a, b in zip(ours, prepared.gradient_hessian(f, n_threads=2)):
        np.testing.assert_array_equal(a, b)
    benchmark.pedantic(prepared.gradient_hessian, args=(f,), kwargs={"n_threads": 1}, rounds=10, iterations=1)
    seconds = benchmark.stats.stats.min
    two = _seconds(lambda: prepared.gradient_hessian(f, n_threads=2), rounds=10)
    numpy_seconds = _seconds(xendcg_numpy, y, starts, f, rounds=5)
    benchmark.extra_info.update(rows=int(qid.shape[0]), queries=int(sizes.shape[0]), seconds=seconds,
                                two_threads_seconds=two, numpy_seconds=numpy_seconds,
                                speedup_vs_numpy=numpy_seconds / seconds)
    SUMMARY.append(f"xendcg, {sizes.shape[0]} queries of 2-30 rows ({qid.shape[0]} rows): compiled "
                   f"{seconds * 1e3:7.2f} ms (2 threads {two * 1e3:7.2f} ms) | NumPy reduceat "
                   f"{numpy_seconds * 1e3:8.1f} ms ({numpy_seconds / seconds:5.1f}x)")

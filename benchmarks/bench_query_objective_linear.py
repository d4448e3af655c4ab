"""The default per-query ranker's objective evaluation: the linear-space kernel against the log-space path.

``rankcore.boost(learner="trees").fit(X, y, qid=qid)`` fits the per-query push
``push:exp,identity,gain_weighted=true`` with Newton leaves: each tree asks once
for the value, gradient and curvature.  With the exponential loss and a price
of degree 1 that evaluation runs in linear space per query (one exp per row,
``_query_kernels.exp_linear_push``); every other price, and any query whose
scores spread too far, takes the log-space path (about ten NumPy passes with
exp and log).  Both are timed here on the same bound objective, in the same
run, on LTR-like shapes:

* 35,000 rows in 1,500 queries of 10-36 rows (LETOR-like);
* 14,000 rows in 60 queries of 10-1,000 rows (log-uniform sizes).

Single-threaded and timed in CPU time, best of interleaved rounds; ``ratio``
is log-space / linear (how many times faster the kernel is).  A second
benchmark times the kernel on two threads against one (wall time; the kernel
shares the queries between threads from 16,384 rows, the same numbers).
Run with ``pytest benchmarks/bench_query_objective_linear.py --benchmark-only``.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from _ratios import time_ratio
from rankcore.metrics._queries import check_qid
from rankcore.objectives._query_push import QueryPush

SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "per-query push evaluation"

SHAPES = {
    "letor": (35_000, 1_500, 10, 36),
    "long": (14_000, 60, 10, 1_000),
}
ROUNDS = 7


def _case(n_rows, n_queries, min_size, max_size, seed=0):
    """Grades 0-4 (most rows 0), scores that follow them loosely, queries of log-uniform sizes."""
    rng = np.random.default_rng(seed)
    sizes = np.exp(rng.uniform(np.log(min_size), np.log(max_size + 1), n_queries))
    sizes = np.maximum(np.round(sizes * n_rows / sizes.sum()), 1).astype(np.int64)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.choice([0, 1, 2, 3, 4], qid.shape[0], p=[0.5, 0.25, 0.15, 0.07, 0.03]).astype(np.float64)
    f = rng.normal(size=qid.shape[0]) + 0.3 * y
    return y, qid, f


def _best_seconds(func, f, rounds, clock=time.process_time):
    best = np.inf
    for _ in range(rounds):
        start = clock()
        for _ in range(5):
            func(f)
        best = min(best, (clock() - start) / 5)
    return best


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_query_push_linear_against_log_space(benchmark, shape):
    n_rows, n_queries, min_size, max_size = SHAPES[shape]
    y, qid, f = _case(n_rows, n_queries, min_size, max_size)
    objective = QueryPush("exp", "identity", gain_weighted=True)
    linear = objective.bind(y, check_qid(qid, y.shape[0]))
    log_space = objective.bind(y, check_qid(qid, y.shape[0]))
    log_space._log_g1 = None                 # the log-space path: what every other price runs
    J, grad, hess = linear.value_gradient_hessian(f)
    J0, grad0, hess0 = log_space.value_gradient_hessian(f)
    assert J == pytest.approx(J0, rel=1e-12)
    np.testing.assert_allclose(hess, hess0, rtol=1e-10)
    benchmark.pedantic(linear.value_gradient_hessian, args=(f,), rounds=ROUNDS, iterations=5)
    ours = slow = np.inf
    for _ in range(ROUNDS):                  # interleaved: background load hits both sides alike
        ours = min(ours, _best_seconds(linear.value_gradient_hessian, f, 1))
        slow = min(slow, _best_seconds(log_space.value_gradient_hessian, f, 1))
    ratio = time_ratio(slow, ours)
    benchmark.extra_info.update(rows=int(y.shape[0]), queries=n_queries, linear_seconds=ours,
                                log_space_seconds=slow, ratio=ratio)
    SUMMARY.append(f"{y.shape[0]:>6} rows in {n_queries:>5} queries of {min_size}-{max_size} rows: "
                   f"linear {ours * 1e3:6.2f} ms ({ours / y.shape[0] * 1e9:5.1f} ns/row) | "
                   f"log space {slow * 1e3:6.2f} ms ({ratio:5.1f}x)")


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_query_push_linear_two_threads_against_one(benchmark, shape):
    """The kernel sharing its queries between two threads against one thread, wall time, the same numbers."""
    n_rows, n_queries, min_size, max_size = SHAPES[shape]
    y, qid, f = _case(n_rows, n_queries, min_size, max_size)
    objective = QueryPush("exp", "identity", gain_weighted=True)
    one = objective.bind(y, check_qid(qid, y.shape[0]), n_threads=1)
    two = objective.bind(y, check_qid(qid, y.shape[0]), n_threads=2)
    for a, b in zip(one.value_gradient_hessian(f), two.value_gradient_hessian(f)):
        np.testing.assert_array_equal(a, b)
    benchmark.pedantic(two.value_gradient_hessian, args=(f,), rounds=ROUNDS, iterations=5)
    single = double = np.inf
    for _ in range(ROUNDS):                  # interleaved: background load hits both sides alike
        single = min(single, _best_seconds(one.value_gradient_hessian, f, 1, time.perf_counter))
        double = min(double, _best_seconds(two.value_gradient_hessian, f, 1, time.perf_counter))
    ratio = time_ratio(single, double)
    benchmark.extra_info.update(rows=int(y.shape[0]), queries=n_queries, one_thread_seconds=single,
                                two_threads_seconds=double, ratio=ratio)
    SUMMARY.append(f"{y.shape[0]:>6} rows in {n_queries:>5} queries of {min_size}-{max_size} rows: "
                   f"one thread {single * 1e3:6.2f} ms | two threads {double * 1e3:6.2f} ms ({ratio:4.2f}x)")

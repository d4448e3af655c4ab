"""Per-query objectives as queries grow: the per-query push (linear) against pairs (quadratic).

The same number of rows is cut into queries of 100, 1,000 and 10,000 documents
(grades 0-4).  For each length, in the same run:

* the per-query push (``exp`` loss, ``pow:4``), value, gradient and curvature;
* the naive pairwise computation of the same value and gradient (every pair of
  different grades in each query, in blocks of rows);
* LightGBM's lambdarank gradients without truncation (every pair: O(Σ n_q²))
  and with LightGBM's default truncation of 30 positions.

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
from rankcore.objectives._lambdarank import LambdaRank
from rankcore.objectives._query_push import QueryPush

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
ROWS = 100_000 if PROFILE == "full" else 10_000
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

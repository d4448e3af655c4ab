"""YetiRank's gradient per iteration against the default per-query push, LambdaMART's, and YetiRank in NumPy.

The same number of rows cut into queries of 10, 30, 100 and 1,000 documents
(grades 0-4).  For each length, in the same run and alternated, CPU time
(``time.process_time``, best of the rounds) of one evaluation of:

* ``yetirank`` (10 permutations, decay 0.85: the kernel);
* the same gradient in NumPy (one ``lexsort`` of every row by (query, noisy
  score) per permutation, then arrays of neighbour pairs): the form the kernel
  replaced, checked equal to it here;
* the default per-query push (``exp`` loss, identity price, gain-weighted
  pairs), value, gradient and curvature;
* ``lambdarank`` (LightGBM's truncation at 30).

The summary gives each as a ratio to the push's time.
``RANKCORE_BENCH_PROFILE=fast`` (default) uses 20,000 rows, ``full`` 200,000.
Run with ``pytest benchmarks/bench_yetirank.py --benchmark-only``.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from rankcore.metrics._queries import check_qid
from rankcore.objectives._lambdarank import LambdaRank
from rankcore.objectives._query_push import QueryPush
from rankcore.objectives._yetirank import YetiRank, logistic_noise, place_weights

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
ROWS = 200_000 if PROFILE == "full" else 20_000
LENGTHS = [10, 30, 100, 1_000]
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "yetirank"


def _case(length, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(ROWS // length), length)
    y = rng.choice([0, 1, 2, 3, 4], qid.shape[0], p=[0.5, 0.25, 0.15, 0.07, 0.03]).astype(np.float64)
    f = rng.normal(size=qid.shape[0]) + 0.3 * y
    return y, qid, f


def yetirank_numpy(y, queries, f, permutations=10, decay=0.85, seed=0):
    """YetiRank's (λ, h) with NumPy only: a lexsort per permutation, then the neighbour pairs as arrays."""
    codes, starts, n = queries.codes, queries.starts, f.shape[0]
    weights = place_weights(decay, int(queries.sizes.max()))
    rows = np.arange(n)
    grad, hess = np.zeros(n), np.zeros(n)
    for p in range(permutations):
        order = np.lexsort((-(f + logistic_noise(seed, 0, p, rows)), codes))
        a, b = order[:-1], order[1:]
        place = np.arange(n - 1) - starts[codes[a]]
        keep = (codes[a] == codes[b]) & (y[a] != y[b]) & (place < weights.shape[0])
        a, b, place = a[keep], b[keep], place[keep]
        high, low = np.where(y[a] > y[b], a, b), np.where(y[a] > y[b], b, a)
        rho = 1.0 / (1.0 + np.exp(f[high] - f[low]))
        lam = weights[place] * np.abs(y[a] - y[b]) / permutations * rho
        grad += np.bincount(low, lam, n) - np.bincount(high, lam, n)
        curv = lam * (1.0 - rho)
        hess += np.bincount(high, curv, n) + np.bincount(low, curv, n)
    return grad, hess


def _cpu(func, *args, **kwargs):
    start = time.process_time()
    func(*args, **kwargs)
    return time.process_time() - start


@pytest.mark.parametrize("length", LENGTHS, ids=lambda n: f"query={n}")
def test_yetirank_against_the_push(benchmark, length):
    y, qid, f = _case(length)
    queries = check_qid(qid, qid.shape[0])
    yeti = YetiRank()
    grad, hess = yeti.gradient_hessian(y, f, queries)
    np_grad, np_hess = yetirank_numpy(y, queries, f)
    np.testing.assert_allclose(grad, np_grad, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(hess, np_hess, rtol=1e-9, atol=1e-12)
    push = QueryPush("exp", "identity", gain_weighted=True).bind(y, queries)
    lambdarank = LambdaRank(30)
    runs = {"yetirank": lambda: yeti.gradient_hessian(y, f, queries),
            "numpy": lambda: yetirank_numpy(y, queries, f),
            "push": lambda: push.value_gradient_hessian(f),
            "lambdarank": lambda: lambdarank.gradient_hessian(y, f, queries)}
    best = dict.fromkeys(runs, np.inf)
    for _ in range(5):                       # alternated rounds: the machine's load hits every method alike
        for name, run in runs.items():
            best[name] = min(best[name], _cpu(run))
    benchmark.pedantic(runs["yetirank"], rounds=3, iterations=1)
    ratios = {name: seconds / best["push"] for name, seconds in best.items()}
    benchmark.extra_info.update(rows=qid.shape[0], query_length=length, load=os.getloadavg()[0],
                                **{f"{name}_cpu_seconds": s for name, s in best.items()},
                                **{f"{name}_over_push": r for name, r in ratios.items()})
    SUMMARY.append(f"{qid.shape[0]} rows in queries of {length:>5}: yetirank {best['yetirank'] * 1e3:7.2f} ms "
                   f"({ratios['yetirank']:5.1f}x the push) | numpy form {best['numpy'] * 1e3:7.2f} ms "
                   f"({ratios['numpy']:5.1f}x) | push {best['push'] * 1e3:6.2f} ms | lambdarank@30 "
                   f"{best['lambdarank'] * 1e3:7.2f} ms ({ratios['lambdarank']:5.1f}x) "
                   f"[load {os.getloadavg()[0]:.1f}]")

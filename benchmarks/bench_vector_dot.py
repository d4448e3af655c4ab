"""The objectives' row dot product (``rankcore._vector.dot``) beside NumPy's BLAS ``np.dot``, in the same run.

1. One dot product of two float64 vectors of n entries: ``rankcore._vector.dot``
   (four running sums on the calling thread) against ``np.dot`` (NumPy's
   OpenBLAS, threaded above about 10,000 entries), least of 200 alternating
   calls.
2. What a fit pays for ``np.dot``'s threads: the process CPU time of 2 s
   worth of wall time in which the calls are 1 % of the work (a dot product,
   then a loop of Python work without BLAS), against the same with
   ``rankcore._vector.dot``.  OpenBLAS's threads spin for a while after each
   call, so the CPU/wall ratio of the np.dot run is above 1 even at 1 %
   of the time in BLAS: on a two-core machine those are the cycles a
   two-thread fit's second thread needs.

``RANKCORE_BENCH_PROFILE=fast`` (default): n = 20,000 and 10⁶; ``full``: also
10⁷.  The ratios are printed at the end and stored in ``extra_info``.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns
from rankcore._vector import dot

FULL = os.environ.get("RANKCORE_BENCH_PROFILE", "fast") == "full"
SIZES = [20_000, 1_000_000] + ([10_000_000] if FULL else [])
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "row dot products"


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.benchmark(group="vector dot")
def test_dot_against_blas(benchmark, n):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    assert dot(a, b) == pytest.approx(float(np.dot(a, b)), rel=1e-9, abs=1e-9 * n)
    best = _least({"rankcore": lambda: dot(a, b), "np.dot": lambda: np.dot(a, b)}, 200)
    ratio = best["rankcore"] / best["np.dot"]
    benchmark.extra_info.update(n=n, rankcore_s=best["rankcore"], numpy_s=best["np.dot"], ratio=ratio)
    SUMMARY.append(f"n = {n:>10,}: rankcore {best['rankcore'] * 1e6:9.1f} µs, np.dot {best['np.dot'] * 1e6:9.1f} µs, "
                   f"ratio {ratio:.2f}")
    benchmark.pedantic(dot, args=(a, b), rounds=20, iterations=5)


def _cpu_over_wall(dot_product, a, b, seconds=2.0) -> float:
    """Process CPU / wall time of a loop whose dot products are about 1 % of its work."""
    work = np.arange(20_000, dtype=np.float64)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start_wall < seconds:
        dot_product(a, b)
        for _ in range(50):                  # Python and NumPy work without BLAS, on the calling thread
            work.sum()
    return (time.process_time() - start_cpu) / (time.perf_counter() - start_wall)


@pytest.mark.benchmark(group="vector dot, threads")
def test_blas_threads_spin_after_the_calls(benchmark):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(50_000), rng.standard_normal(50_000)
    ours = _cpu_over_wall(dot, a, b)
    blas = _cpu_over_wall(np.dot, a, b)
    benchmark.extra_info.update(cpu_over_wall_rankcore=ours, cpu_over_wall_numpy=blas)
    SUMMARY.append(f"CPU / wall of a loop with 1 % dot products: rankcore {ours:.2f}, np.dot {blas:.2f} "
                   f"({os.cpu_count()} cores)")
    benchmark.pedantic(dot, args=(a, b), rounds=5, iterations=1)

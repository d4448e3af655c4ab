"""Objective curvature (value_gradient_hessian) against the plain gradient, in the same run.

One evaluation of (J, ∇J, h) for ``push:exp,pow:4``, ``push:sqhinge,pow:4``
and ``push:logistic,pow:4`` at n = 10⁵ and 10⁶ (``full``; 10⁴ and 10⁵ with
``fast``), 1 % positives, next to one ``value_and_gradient`` on the same data:
the ratio is what Newton leaves cost over gradient leaves.  The exp curvature
is O(n) from the gradient's own weights, sqhinge's O(n log n) by prefix sums,
logistic's O(I·K) like its gradient.  The summary also gives the time per row
(exp, sqhinge) or per pair (logistic) at both sizes: flat means the stated
complexity holds.

Run with ``pytest benchmarks/bench_curvature.py --benchmark-only``.
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np
import pytest

from rankcore.registry import resolve
from rankcore.validation import effective_n_threads

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
FULL = PROFILE == "full"
SIZES = [100_000, 1_000_000] if FULL else [10_000, 100_000]
SPECS = ["push:exp,pow:4", "push:sqhinge,pow:4", "push:logistic,pow:4"]
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "curvature"




def _case(n, seed=3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.01).astype(np.int8)               # 1 % positives
    return y, rng.normal(size=n) + 0.5 * y


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("n", SIZES, ids=lambda n: f"n={n}")
def test_curvature_evaluation(benchmark, spec, n):
    y, f = _case(n)
    bound = resolve("objective", spec).bind(y, n_threads=effective_n_threads(None))
    rounds = 1 if ("logistic" in spec and n >= 1_000_000) else 5
    plain = []
    for _ in range(rounds):                                   # the alternative: gradient leaves
        start = time.perf_counter()
        bound.value_and_gradient(f)
        plain.append(time.perf_counter() - start)
    benchmark.pedantic(bound.value_gradient_hessian, args=(f,), rounds=rounds, iterations=1)
    seconds = benchmark.stats.stats.median
    gradient = statistics.median(plain)
    I = int(y.sum())
    unit, per = ("pair", I * (n - I)) if "logistic" in spec else ("row", n)
    benchmark.extra_info.update(n=n, seconds=seconds, gradient_seconds=gradient, ratio=seconds / gradient)
    SUMMARY.append(f"{spec:20s} n={n:>8}: value+gradient+hessian {seconds * 1e3:9.2f} ms, value+gradient "
                   f"{gradient * 1e3:9.2f} ms, ratio {seconds / gradient:5.2f}; "
                   f"{seconds / per * 1e9:8.3f} ns per {unit}")

"""Metric speed: rankcore's auc against scikit-learn's roc_auc_score and a bare np.argsort.

Run::

    RANKCORE_BENCH_PROFILE=full pytest benchmarks/bench_metrics.py --benchmark-only

Goal (issue 3, item 6): at n = 10⁶ scores with ties, rankcore's auc at least
3x faster than ``sklearn.metrics.roc_auc_score`` and within 1.5x of a bare
``np.argsort`` of the scores.  The ``fast`` profile (default) uses n = 10⁵.

Everything is measured in the same run.  ``test_auc_speed_ratios`` times the
three interleaved (best of several rounds each, so background load hits all
three alike), prints the ratios and stores them in ``benchmark.extra_info``
(they land in ``--benchmark-json`` output).  The other metrics are timed at
the same n, each with its time relative to the argsort in ``extra_info``.
No assertion on wall-clock time: the numbers are reported, not enforced.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import rankcore
from rankcore import metrics as rm

SIZES = {"fast": 100_000, "full": 1_000_000}
ROUNDS = {"fast": 15, "full": 9}


@pytest.fixture(scope="module")
def n(profile):
    return SIZES[profile]


@pytest.fixture(scope="module")
def rounds(profile):
    return ROUNDS[profile]


@pytest.fixture(scope="module")
def data(n):
    """n scores with ties (3 decimals: a few thousand distinct values), 30 % positives."""
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.3).astype(np.int8)
    scores = np.round(rng.normal(size=n) + 0.8 * y, 3)
    return y, scores


def _best_of(func, rounds):
    best = np.inf
    for _ in range(rounds):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def _interleaved(funcs: dict, rounds: int) -> dict:
    """Best time of each function, the functions taking turns round by round."""
    best = dict.fromkeys(funcs, np.inf)
    for _ in range(rounds):
        for name, func in funcs.items():
            start = time.perf_counter()
            func()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


@pytest.fixture(scope="module")
def argsort_seconds(data, rounds):
    _, scores = data
    return _best_of(lambda: np.argsort(scores), rounds)


# ---------------------------------------------------------------------------
# auc: the three contenders side by side (one table group)
# ---------------------------------------------------------------------------


@pytest.mark.benchmark(group="auc")
def test_auc_rankcore(benchmark, data, n):
    y, scores = data
    value = benchmark(rm.auc, y, scores)
    benchmark.extra_info.update(n=n, value=value)


@pytest.mark.benchmark(group="auc")
def test_auc_sklearn(benchmark, data, n):
    from sklearn.metrics import roc_auc_score

    y, scores = data
    value = benchmark(roc_auc_score, y, scores)
    benchmark.extra_info.update(n=n, value=float(value))


@pytest.mark.benchmark(group="auc")
def test_argsort_bare(benchmark, data, n):
    _, scores = data
    benchmark(np.argsort, scores)
    benchmark.extra_info.update(n=n)


@pytest.mark.benchmark(group="auc-ratios")
def test_auc_speed_ratios(benchmark, data, n, rounds, capsys):
    """Interleaved timing of the three; ratios printed and stored in extra_info."""
    from sklearn.metrics import roc_auc_score

    y, scores = data
    assert rm.auc(y, scores) == pytest.approx(roc_auc_score(y, scores), abs=1e-12)
    best = _interleaved(
        {
            "rankcore": lambda: rm.auc(y, scores),
            "sklearn": lambda: roc_auc_score(y, scores),
            "argsort": lambda: np.argsort(scores),
        },
        rounds,
    )
    speedup = best["sklearn"] / best["rankcore"]
    vs_argsort = best["rankcore"] / best["argsort"]
    benchmark.extra_info.update(
        n=n,
        rankcore_ms=best["rankcore"] * 1e3,
        sklearn_ms=best["sklearn"] * 1e3,
        argsort_ms=best["argsort"] * 1e3,
        speedup_vs_sklearn=speedup,
        ratio_to_argsort=vs_argsort,
        goal_speedup_vs_sklearn=3.0,
        goal_ratio_to_argsort=1.5,
    )
    benchmark.pedantic(rm.auc, args=(y, scores), rounds=rounds, iterations=1)
    with capsys.disabled():
        print(
            f"\n[auc n={n:,}] rankcore {best['rankcore'] * 1e3:.2f} ms | scikit-learn "
            f"{best['sklearn'] * 1e3:.2f} ms | np.argsort {best['argsort'] * 1e3:.2f} ms"
            f"\n[auc n={n:,}] scikit-learn / rankcore = {speedup:.1f}x (goal >= 3: "
            f"{'met' if speedup >= 3 else 'MISSED'}); rankcore / argsort = {vs_argsort:.2f} "
            f"(goal <= 1.5: {'met' if vs_argsort <= 1.5 else 'MISSED'})"
        )


# ---------------------------------------------------------------------------
# the other metrics at the same n
# ---------------------------------------------------------------------------

OTHER_SPECS = [
    "pauc:0.1", "pauc:0.1,mcclish", "tpauc:0.5,0.5", "ks", "prec@k:100", "prec@k:0.1", "rmax",
    "max_height", "height", "pnorm:4", "pnorm:64,0.1", "roc", "roc:100",
]


@pytest.mark.benchmark(group="metrics")
@pytest.mark.parametrize("spec", OTHER_SPECS)
def test_metric_speed(benchmark, data, n, spec, argsort_seconds):
    y, scores = data
    metric = rankcore.resolve("metric", spec)
    benchmark(metric, y, scores)
    benchmark.extra_info.update(n=n, ratio_to_argsort=benchmark.stats.stats.min / argsort_seconds)


@pytest.mark.benchmark(group="metrics")
def test_misrank_speed(benchmark, n, argsort_seconds):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 5, size=n).astype(float)
    scores = np.round(y + rng.normal(scale=2.0, size=n), 3)
    benchmark(rm.misrank, y, scores)
    benchmark.extra_info.update(n=n, ratio_to_argsort=benchmark.stats.stats.min / argsort_seconds)


@pytest.mark.benchmark(group="metrics")
def test_evaluate_all_at_once(benchmark, data, n, argsort_seconds, capsys):
    """Every bipartite metric above from one validation and one sort, vs. one at a time."""
    y, scores = data
    specs = ["auc", *OTHER_SPECS]
    benchmark(rankcore.evaluate, y, scores, specs)
    separate = sum(_best_of(lambda s=s: rankcore.resolve("metric", s)(y, scores), 3) for s in specs)
    together = benchmark.stats.stats.min
    benchmark.extra_info.update(n=n, ratio_to_argsort=together / argsort_seconds,
                                separate_calls_ms=separate * 1e3, speedup_vs_separate=separate / together)
    with capsys.disabled():
        print(f"\n[evaluate n={n:,}] {len(specs)} metrics together {together * 1e3:.1f} ms, "
              f"one call each {separate * 1e3:.1f} ms ({separate / together:.1f}x)")

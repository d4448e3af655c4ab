"""Dask backend benchmarks: one push iteration on a 2-worker LocalCluster beside the in-memory one.

1. ``stumps``, exp loss, ``pow:4``, 50 float32 features, 5 % positives: time
   per boosting iteration of the Dask backend (2 worker processes × 1
   thread, data generated chunk-wise on the workers) and of the in-memory
   backend (2 threads) on the same rows with the same bin edges.  Target
   (docs/dask.md): Dask ≤ 2 × in-memory at 10⁶ × 50.
2. Per-row cost of a Dask iteration at two sizes (10⁶ and 2·10⁷ rows in the
   ``full`` profile): the larger must not cost more per row.

Only the iterations are timed (``benchmark.pedantic`` on ``run_boosting``
of a started fit); validation, binning and encoding are setup.  Each call of
``run_boosting`` starts with one reduction for the objective's scalars (both
backends pay it), so a call runs 10 iterations to dilute it.  ``fast``
(default) runs 10⁵ and 4·10⁵ rows; ``RANKCORE_BENCH_PROFILE=full`` the
full sizes (the 2·10⁷ case needs ~3 GB per worker and a few minutes).
Run with ``pytest benchmarks/bench_dask.py --benchmark-only -s``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("distributed")

from rankcore.push._backend import InMemoryBackend  # noqa: E402
from rankcore.push._driver import run_boosting  # noqa: E402
from rankcore.registry import resolve  # noqa: E402

from _ratios import time_ratio  # noqa: E402
from dask_synthetic import local_slice, synthetic  # noqa: E402

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
FULL = PROFILE == "full"
D = 50
BASE_N = 1_000_000 if FULL else 100_000
SIZES = [BASE_N, 20_000_000] if FULL else [BASE_N, 400_000]
CHUNK = 250_000 if FULL else 25_000
PER_CALL = 10
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "dask"
_TIMES: dict = {}




@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="8GiB" if FULL else "2GiB", silence_logs=40) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def edges(client):
    """Bin edges of the base size, shared by the in-memory and the Dask fits (the stumps rule on a sample)."""
    import rankcore.dask

    X, _ = synthetic(BASE_N, D, chunk_rows=CHUNK)
    return rankcore.dask.bin_edges(X, 256, subsample=200_000, random_state=0, client=client)


def _dask_session(client, n, edges):
    from rankcore.dask import DaskPNormPush

    # several chunks per worker at every size (a single chunk would leave one worker idle)
    X, y = synthetic(n, D, chunk_rows=CHUNK if n == BASE_N else min(500_000, n // 8))
    return DaskPNormPush(client=client, p=4, learner="stumps", thresholds=edges)._start(X, y, None, None)


@pytest.mark.parametrize("n", SIZES, ids=lambda n: f"n={n}")
def test_dask_iteration(benchmark, client, edges, n):
    session = _dask_session(client, n, edges)
    try:
        backend, layout = session.backend, session.layout
        assert session.kind == "fast"
        run_boosting(backend, layout, n_iter=2, log_value=True)          # warm up: past the tied start
        trips = backend.round_trips
        benchmark.pedantic(run_boosting, args=(backend, layout), kwargs=dict(n_iter=PER_CALL, log_value=True),
                           rounds=3, iterations=1)
        per_iteration = benchmark.stats.stats.median / PER_CALL
        trips_per_iteration = (backend.round_trips - trips) / (3 * PER_CALL)
        message = layout.n_features * layout.n_bins * 2 * 8
    finally:
        session.close()
    _TIMES[("dask", n)] = per_iteration
    benchmark.extra_info.update(n=n, d=D, workers=2, seconds_per_iteration=per_iteration,
                                round_trips_per_iteration=trips_per_iteration,
                                bytes_per_worker_per_iteration=message)
    SUMMARY.append(f"dask      n={n:>9,d} x {D}: {per_iteration * 1e3:8.1f} ms/iteration "
                   f"({per_iteration / n * 1e9:6.2f} ns/row), {trips_per_iteration:.2f} round trips/iteration, "
                   f"{message / 1024:.0f} KiB per worker per iteration")
    if n == SIZES[-1] and ("dask", SIZES[0]) in _TIMES:
        small = _TIMES[("dask", SIZES[0])] / SIZES[0]
        large = per_iteration / n
        benchmark.extra_info.update(per_row_ratio_large_over_small=large / small)
        SUMMARY.append(f"per-row cost n={n:,d} over n={SIZES[0]:,d}: {large / small:5.2f} (target <= 1)")


@pytest.mark.parametrize("n_threads", [2], ids=lambda t: f"threads={t}")
def test_in_memory_iteration(benchmark, edges, n_threads):
    X, y = local_slice(BASE_N, D, chunk_rows=CHUNK)
    objective = resolve("objective", "push:exp,pow:4")
    layout = resolve("learner", "stumps").prepare(X, thresholds=edges, n_threads=n_threads)
    backend = InMemoryBackend(objective.bind(y, n_threads=n_threads), layout, X, y, n_threads=n_threads)
    run_boosting(backend, layout, n_iter=2, log_value=True)
    benchmark.pedantic(run_boosting, args=(backend, layout), kwargs=dict(n_iter=PER_CALL, log_value=True),
                       rounds=3, iterations=1)
    per_iteration = benchmark.stats.stats.median / PER_CALL
    ratio = time_ratio(_TIMES.get(("dask", BASE_N)), per_iteration)
    benchmark.extra_info.update(n=BASE_N, d=D, threads=n_threads, seconds_per_iteration=per_iteration,
                                dask_over_in_memory=ratio)
    SUMMARY.append(f"in-memory n={BASE_N:>9,d} x {D}, threads={n_threads}: {per_iteration * 1e3:8.1f} ms/iteration; "
                   f"dask / in-memory = {ratio:5.2f} (target <= 2)")


def test_same_first_rankers(client, edges):
    """The benchmark compares like with like: the Dask and in-memory fits choose the same rankers."""
    from rankcore.dask import DaskPNormPush

    X, y = synthetic(BASE_N, D, chunk_rows=CHUNK)
    Xl, yl = local_slice(BASE_N, D, chunk_rows=CHUNK)
    import rankcore

    dask_model = DaskPNormPush(client=client, p=4, n_iter=3, thresholds=edges).fit(X, y)
    local = rankcore.PNormPush(p=4, n_iter=3, thresholds=edges).fit(Xl, yl)
    assert dask_model.rankers_ == local.rankers_
    np.testing.assert_allclose(dask_model.alphas_, local.alphas_, rtol=1e-9)

"""Dask trees beside LightGBM's and XGBoost's Dask fits: wall time, round trips, peak memory, held-out quality.

A LocalCluster of 2 worker processes x 1 thread; the training rows are
``dask_synthetic.synthetic(n, 40)`` in 16 chunks, generated on the workers;
the held-out set is n/4 more rows drawn with another seed (a fifth of all
rows), brought to the client.  Every learner fits 50 trees (50 iterations
for the stumps) with its defaults otherwise:

* rankcore ``DaskPushBoost`` with ``trees`` (leaf-wise, 31 leaves),
  ``trees:growth=depthwise`` and ``stumps`` (``early_stopping=False``),
  with the default ``placement="auto"`` (the placement it chose is
  printed); leaf-wise also with ``placement="distributed"`` and
  ``"one_worker"`` (the crossover of the placement rule:
  ``--learners "rankcore trees (leaf-wise, distributed)" "rankcore trees
  (leaf-wise, one worker)"`` over several sizes); and "pages not kept":
  the workers' allocator left with Dask's settings during the fit
  (``rankcore.dask._malloc.KEEP_PAGES = False``), where by default freed
  pages are kept for reuse while a fit runs; and "own threads": a fit on
  one worker on that worker's thread alone
  (``rankcore.dask._placement.BORROW_THREADS = False``), where by default
  it borrows the threads of the idle workers on its host;
  the trees also "per pass": the client running each tree's search, one
  round trip per pass (``DaskBackend.lead_searches = False``), where by
  default the first worker runs it with the others and the client waits
  once per tree (distributed placement); and leaf-wise over "Dask-comm
  channels" (distributed placement): the first worker
  calls the others over connections of Dask's comm layer
  (``DaskBackend.direct_channels = True``) where the default learners use
  Dask's actor messages; and leaf-wise on "actor threads": each
  call of the first worker runs in the other worker's actor thread
  (``rankcore.dask._lead.PEER_ON_LOOP = False``), where by default it runs
  on that worker's event loop, where the message arrives;
* ``lightgbm.DaskLGBMClassifier(n_estimators=50)`` (31 leaves);
* ``xgboost.dask.DaskXGBClassifier(n_estimators=50, tree_method="hist")``.

Peak worker memory is the largest resident set a worker process reports
while the fit runs (sampled every 0.5 s by a thread on the client, so
short peaks may be missed); the wall time covers the whole ``fit``
(validation, binning, encoding, trees); worker CPU is the CPU time the
worker processes spent during the fit (every thread), a figure that varies
less than the wall time on a machine shared with other work; "max cpu" is the
busiest worker's share of it, the wall time the fit would take on a machine
where each worker had its own core (the figure the placement rule compares).
"wkr MiB" is what the worker processes sent over Dask's TCP comms during
the fit, summed over the workers (the frames of their messages: replies to
the client, the first worker's calls to the others and their replies,
messages to the scheduler); "cli MiB" what this process sent (the client's
calls and the scheduler's messages, which share it).  The load average is
printed after each size.
Round trips per tree are rankcore's ``fit_info_["round_trips"]`` over its
trees -- the client's waits on the workers -- and worker passes per tree its
``fit_info_["worker_passes"]``, the passes the first worker ran with the
others (LightGBM and XGBoost reduce over their own sockets: not counted).

Script mode warms every learner up on 4,000 rows (the workers' first
imports), then prints the side-by-side table, learners alternating within each
repetition, with ratios against ``DaskLGBMClassifier`` in the same
repetition::

    python benchmarks/bench_dask_trees.py 100000 1000000 --repeat 2

Under pytest (``pytest benchmarks/bench_dask_trees.py --benchmark-only``)
each learner is one benchmark at 2·10⁴ rows (``full`` profile: 10⁵); the
LightGBM and XGBoost ones skip without those packages.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from dask_synthetic import synthetic  # noqa: E402

D = 40
CHUNKS = 16
TREES = 50
LEARNERS = ("rankcore trees (leaf-wise)", "rankcore trees (leaf-wise, distributed)",
            "rankcore trees (leaf-wise, one worker)", "rankcore trees (leaf-wise, pages not kept)",
            "rankcore trees (leaf-wise, one worker, pages not kept)", "rankcore trees (leaf-wise, own threads)",
            "rankcore trees (depthwise)",
            "rankcore trees (leaf-wise, Dask-comm channels)", "rankcore trees (leaf-wise, actor threads)",
            "rankcore trees (leaf-wise, per pass)", "rankcore trees (depthwise, per pass)", "rankcore stumps",
            "DaskLGBMClassifier", "xgboost.dask")
RANKCORE_LEARNERS = {"rankcore trees (leaf-wise)": "trees", "rankcore trees (depthwise)": "trees:growth=depthwise",
                     "rankcore trees (leaf-wise, distributed)": "trees",
                     "rankcore trees (leaf-wise, one worker)": "trees",
                     "rankcore trees (leaf-wise, pages not kept)": "trees",
                     "rankcore trees (leaf-wise, one worker, pages not kept)": "trees",
                     "rankcore trees (leaf-wise, own threads)": "trees",
                     "rankcore trees (leaf-wise, Dask-comm channels)": "trees",
                     "rankcore trees (leaf-wise, actor threads)": "trees",
                     "rankcore trees (leaf-wise, per pass)": "trees",
                     "rankcore trees (depthwise, per pass)": "trees:growth=depthwise", "rankcore stumps": "stumps"}
REFERENCE = "DaskLGBMClassifier"


def _cpu() -> float:
    """This process's CPU time in seconds (every thread)."""
    return time.process_time()


def _comm_bytes_sent() -> int:
    """Bytes this process has written to Dask's TCP comms since :func:`_count_comm_bytes` (0 before).

    The frames of every message: calls and replies between the client and the workers, the first
    worker's calls to the others and their replies, the scheduler's messages.  (A process's
    ``/proc/self/io`` does not count them: sockets are written with ``send``, not ``write``.)
    """
    from distributed.comm import tcp

    return getattr(tcp, "_bench_bytes_sent", 0)


def _count_comm_bytes() -> None:
    """Count the bytes of every message this process writes to a TCP comm (idempotent)."""
    from distributed.comm import tcp

    if getattr(tcp.TCP.write, "_bench_counting", False):
        return
    write = tcp.TCP.write

    async def counted(self, msg, serializers=None, on_error="message"):
        n = await write(self, msg, serializers, on_error)
        tcp._bench_bytes_sent = getattr(tcp, "_bench_bytes_sent", 0) + n
        return n

    counted._bench_counting = True
    tcp.TCP.write = counted


def _rss() -> int:
    """This process's resident memory in bytes."""
    import psutil

    return psutil.Process().memory_info().rss


class _PeakMemory:
    """The largest worker resident set seen while the ``with`` block runs (sampled every 0.5 s)."""

    def __init__(self, client):
        self.client = client
        self.peak = 0
        self._stop = threading.Event()

    def _sample(self):
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, *self.client.run(_rss).values())
            except Exception:           # a worker busy or restarting: the next sample will do
                pass
            self._stop.wait(0.5)

    def __enter__(self):
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _keep_pages(keep: bool) -> None:
    from rankcore.dask import _malloc

    _malloc.KEEP_PAGES = keep


def _peers_on_loop(on_loop: bool) -> None:
    from rankcore.dask import _lead

    _lead.PEER_ON_LOOP = on_loop


def _fit(name: str, client, X, y):
    """(model, round trips per tree or None, worker passes per tree or None) of one learner on the cluster."""
    if name.startswith("rankcore"):
        from rankcore.dask import DaskPushBoost, _placement
        from rankcore.dask._backend import DaskBackend

        saved = DaskBackend.lead_searches, DaskBackend.direct_channels
        saved_borrow = _placement.BORROW_THREADS
        _placement.BORROW_THREADS = not name.endswith("own threads)")
        DaskBackend.lead_searches = not name.endswith("per pass)")
        DaskBackend.direct_channels = name.endswith("Dask-comm channels)")
        # the default placement is "auto"; the per-pass and channel rows measure the distributed machinery
        placement = ("one_worker" if name.endswith(("one worker)", "one worker, pages not kept)")) else
                     "distributed" if name.endswith(("distributed)", "per pass)", "channels)", "actor threads)"))
                     else "auto")
        keep = not name.endswith("pages not kept)")       # Dask's allocator settings left alone during the fit
        client.run(_keep_pages, keep)
        client.run(_peers_on_loop, not name.endswith("actor threads)"))
        try:
            model = DaskPushBoost(learner=RANKCORE_LEARNERS[name], n_iter=TREES, early_stopping=False, random_state=0,
                                  client=client, placement=placement).fit(X, y)
        finally:
            DaskBackend.lead_searches, DaskBackend.direct_channels = saved
            _placement.BORROW_THREADS = saved_borrow
            client.run(_keep_pages, True)
            client.run(_peers_on_loop, True)
        trees = max(1, model.n_iter_)
        if placement == "auto":
            threads = model.fit_info_.get("threads")
            print(f"  ({name}, {X.shape[0]:,d} rows: {model.fit_info_['placement']}: "
                  f"{model.fit_info_['placement_reason']}{'' if threads is None else f'; {threads} threads'})",
                  flush=True)
        return model, model.fit_info_["round_trips"] / trees, model.fit_info_["worker_passes"] / trees
    if name == "DaskLGBMClassifier":
        import lightgbm

        return lightgbm.DaskLGBMClassifier(n_estimators=TREES, client=client, verbose=-1).fit(X, y), None, None
    import xgboost.dask

    model = xgboost.dask.DaskXGBClassifier(n_estimators=TREES, tree_method="hist", client=client).fit(X, y)
    return model, None, None


def _scores(name: str, model, X_test) -> np.ndarray:
    if name.startswith("rankcore"):
        return np.asarray(model.to_local().decision_function(X_test))
    if name == "DaskLGBMClassifier":
        return model.to_local().predict_proba(X_test)[:, 1]
    return model.get_booster().inplace_predict(X_test) if hasattr(model, "get_booster") else None


def available(name: str) -> bool:
    module = {"DaskLGBMClassifier": "lightgbm", "xgboost.dask": "xgboost.dask"}.get(name)
    if module is None:
        return True
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def measure(name: str, client, n: int) -> dict:
    """Wall time, round trips per tree, peak worker memory and held-out auc / pauc:0.1 of one fit."""
    import rankcore

    X, y = synthetic(n, D, chunk_rows=-(-n // CHUNKS), seed=0)
    X_test, y_test = (np.asarray(a) for a in client.compute([*synthetic(n // 4, D, chunk_rows=n // 4, seed=1)],
                                                               sync=True))
    cpu_before = client.run(_cpu)
    sent_before, client_before = client.run(_comm_bytes_sent), _comm_bytes_sent()
    with _PeakMemory(client) as memory:
        start = time.perf_counter()
        model, trips, passes = _fit(name, client, X, y)
        seconds = time.perf_counter() - start
    per_worker = [after - cpu_before.get(worker, 0.0) for worker, after in client.run(_cpu).items()]
    sent = sum(after - sent_before.get(worker, 0) for worker, after in client.run(_comm_bytes_sent).items())
    client_sent = _comm_bytes_sent() - client_before
    cpu = sum(per_worker)
    peak = memory.peak
    scores = _scores(name, model, X_test)
    quality = rankcore.evaluate(y_test.astype(int), scores, ["auc", "pauc:0.1"])
    return {"seconds": seconds, "worker_cpu_seconds": cpu, "busiest_worker_cpu_seconds": max(per_worker),
            "round_trips_per_tree": trips,
            "worker_passes_per_tree": passes,
            "peak_worker_bytes": peak, "worker_bytes_sent": sent,
            "client_bytes_sent": client_sent, **quality}


def _cluster():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           memory_limit="8GiB", silence_logs=40)
    return cluster, Client(cluster)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--learners", nargs="*", default=list(LEARNERS), choices=list(LEARNERS), metavar="NAME",
                        help=f"some of: {', '.join(map(repr, LEARNERS))}")
    args = parser.parse_args(argv)
    names = [name for name in args.learners if available(name)]
    cluster, client = _cluster()
    client.run(_count_comm_bytes)
    _count_comm_bytes()
    try:
        for name in names:            # the workers' first imports, not in any learner's figures
            try:
                measure(name, client, 4_000)
            except Exception:         # reported by the measured runs below
                pass
        for n in args.rows:
            print(f"\n{n:,d} rows x {D} features, {CHUNKS} chunks, 2 workers x 1 thread, {TREES} trees", flush=True)
            print(f"{'learner':41s} {'rep':>3s} {'seconds':>8s} {'x LGBM':>7s} {'cpu s':>6s} {'x LGBM':>7s} "
                  f"{'max cpu':>7s} "
                  f"{'trips/tree':>10s} "
                  f"{'passes/tree':>11s} {'peak MiB':>9s} {'wkr MiB':>7s} {'cli MiB':>7s} {'auc':>7s} "
                  f"{'pauc:0.1':>8s}", flush=True)
            for rep in range(args.repeat):
                order = names if rep % 2 == 0 else names[::-1]          # alternate: neither side always first
                results = {}
                for name in order:
                    try:
                        results[name] = measure(name, client, n)
                    except Exception as exc:             # a library broken on this Dask: say so, go on
                        results[name] = f"failed: {type(exc).__name__}: {str(exc)[:80]}"
                ref = results.get(REFERENCE) if isinstance(results.get(REFERENCE), dict) else {}
                reference, reference_cpu = ref.get("seconds"), ref.get("worker_cpu_seconds")
                for name in names:
                    r = results[name]
                    if isinstance(r, str):
                        print(f"{name:41s} {rep:3d} {r}", flush=True)
                        continue
                    ratio = f"{r['seconds'] / reference:7.2f}" if reference else f"{'-':>7s}"
                    cpu_ratio = f"{r['worker_cpu_seconds'] / reference_cpu:7.2f}" if reference_cpu else f"{'-':>7s}"
                    trips = f"{r['round_trips_per_tree']:10.1f}" if r["round_trips_per_tree"] else f"{'-':>10s}"
                    passes = (f"{r['worker_passes_per_tree']:11.1f}" if r["worker_passes_per_tree"]
                              else f"{'-':>11s}")
                    print(f"{name:41s} {rep:3d} {r['seconds']:8.2f} {ratio} {r['worker_cpu_seconds']:6.1f} {cpu_ratio} "
                          f"{r['busiest_worker_cpu_seconds']:7.1f} "
                          f"{trips} {passes} "
                          f"{r['peak_worker_bytes'] / 2**20:9.0f} {r['worker_bytes_sent'] / 2**20:7.2f} "
                          f"{r['client_bytes_sent'] / 2**20:7.2f} {r['auc']:7.4f} {r['pauc:0.1']:8.4f}", flush=True)
            print(f"load average: {' '.join(f'{v:.1f}' for v in os.getloadavg())}", flush=True)
    finally:
        client.close()
        cluster.close()


# ----------------------------------------------------------------------
# pytest-benchmark
# ----------------------------------------------------------------------
if __name__ != "__main__":
    import pytest

    pytest.importorskip("distributed")
    BENCH_N = 100_000 if os.environ.get("RANKCORE_BENCH_PROFILE", "fast") == "full" else 20_000
    SUMMARY: list[str] = []
    SUMMARY_TITLE = "dask trees"

    @pytest.fixture(scope="module")
    def client():
        cluster, c = _cluster()
        yield c
        c.close()
        cluster.close()

    @pytest.mark.parametrize("name", LEARNERS)
    def test_dask_trees_fit(benchmark, client, name):
        if not available(name):
            pytest.skip(f"{name} needs {'lightgbm' if 'LGBM' in name else 'xgboost'}")
        try:
            result = benchmark.pedantic(measure, args=(name, client, BENCH_N), rounds=1, iterations=1)
        except TypeError as exc:
            if name.startswith("rankcore"):
                raise
            pytest.skip(f"{name} does not run on this Dask: {exc}")
        benchmark.extra_info.update(n=BENCH_N, d=D, workers=2, **result)
        SUMMARY.append(f"{name:38s} n={BENCH_N:,d}: {result['seconds']:6.2f} s, auc {result['auc']:.4f}")


if __name__ == "__main__":
    main()

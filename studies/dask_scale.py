"""Scale demonstration of the Dask push backend (docs/dask.md, *Speed and scale*).

A 2·10⁷ × 50 synthetic dataset is generated chunk by chunk on the workers of
a 2-worker LocalCluster (never on the client) and fitted with ``stumps``,
the exponential loss and ``pow:4`` (P-Norm Push, p = 4).  Reported, in one
run:

* setup time of the big fit (validation pass, sample for the bin edges,
  encoding pass) and the bytes each worker's shard holds;
* time per boosting iteration, steady state, for: the Dask fit of 2·10⁷
  rows; the Dask fit of a 10⁶-row slice (per-row cost against the big one);
  the in-memory fit of the same slice with 1 and 2 threads.  The four are
  timed in interleaved rounds so that they share the machine's load, and
  both the minimum (least disturbed) and the median are printed;
* peak resident memory of each worker process over the run (``ru_maxrss``);
* ``rankcore.dask.evaluate`` of the big fit's scores (auc to 1e-6, prec@k,
  rmax): time and passes;
* the message each worker sends per iteration (features × bins × 2 classes
  × 8 bytes) and the network-traffic model for more workers.

Usage::

    python studies/dask_scale.py                              # 2·10⁷ × 50
    python studies/dask_scale.py --rows 2000000 --slice-rows 500000 --iterations 6   # a quick look

Needs about 1.5 GB per worker at 2·10⁷ rows (uint8 codes: 50 bytes per row,
plus 25 bytes of scores, labels and weights, plus the chunk being generated)
and ~1 GB on the client for the in-memory slice.  Run it when the machine is
quiet: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`

from benchmarks.dask_synthetic import local_slice, synthetic  # noqa: E402


def _peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0       # Linux: KiB


def _timed_iterations(backend, layout, n_iter):
    """Run n_iter iterations; (steady-state seconds per iteration, total seconds, result).

    Steady state: from the end of the first iteration to the end of the last,
    divided by the iterations in between (the first iteration of a call also
    pays for the objective's initial reduction).
    """
    from rankcore.push._driver import run_boosting

    stamps = []

    def callback(record):
        stamps.append(time.perf_counter())

    t0 = time.perf_counter()
    result = run_boosting(backend, layout, n_iter=n_iter, log_value=True, callback=callback)
    total = time.perf_counter() - t0
    if len(stamps) < 3:
        return total / max(1, len(stamps)), total, result
    return (stamps[-1] - stamps[0]) / (len(stamps) - 1), total, result


def _dask_session(client, rows, args, edges=None, chunk_rows=None):
    """A started Dask fit (setup timed); the stumps edges by the estimator's own rule when ``edges`` is None."""
    from rankcore.dask import DaskPNormPush

    X, y = synthetic(rows, args.features, chunk_rows=chunk_rows or args.chunk_rows, seed=args.seed)
    model = DaskPNormPush(client=client, p=4.0, learner="stumps", thresholds=edges, random_state=0)
    t0 = time.perf_counter()
    session = model._start(X, y, None, None)
    return model, session, X, y, time.perf_counter() - t0


def _in_memory_backend(X, y, edges, n_threads):
    from rankcore.push._backend import InMemoryBackend
    from rankcore.registry import resolve

    layout = resolve("learner", "stumps").prepare(X, thresholds=edges, n_threads=n_threads)
    backend = InMemoryBackend(resolve("objective", "push:exp,pow:4").bind(y, n_threads=n_threads), layout, X, y,
                              n_threads=n_threads)
    return backend, layout


def _evaluate(client, model, records, X, y, args):
    """rankcore.dask.evaluate of the scores of the fitted weak rankers (computed on the workers)."""
    import rankcore.dask

    model.rankers_ = [r.ranker for r in records]
    model.alphas_ = np.array([r.alpha for r in records])
    model.n_features_in_ = args.features
    scores = model._lazy_scores(X)
    t0 = time.perf_counter()
    metrics = rankcore.dask.evaluate(y, scores, ["auc", "prec@k:1000", "rmax"], tol=1e-6, client=client)
    return {"seconds": time.perf_counter() - t0, "passes": metrics.passes,
            "values": {key: float(v) for key, v in metrics.items()},
            "bounds": {key: [float(a), float(b)] for key, (a, b) in metrics.bounds.items()}}


def traffic_model(d: int, bins: int, ns_per_row_feature: float, rows: int, bandwidth_gbit: float = 10.0,
                  latency_ms: float = 0.5):
    """Per-iteration traffic and time as workers grow (star: every worker sends its histograms to the client)."""
    message = d * bins * 2 * 8
    lines = []
    for workers in (2, 8, 32, 128, 512, 2048):
        inbound = workers * message                                       # client ingress per iteration
        network = inbound * 8 / (bandwidth_gbit * 1e9) + latency_ms / 1e3
        compute = rows / workers * d * ns_per_row_feature * 1e-9
        lines.append((workers, inbound, network, compute))
    # compute = network  <=>  n d c / W = W m 8 / b  ->  W* = sqrt(n d c b / (8 m))
    c = ns_per_row_feature * 1e-9
    w_star = math.sqrt(rows * d * c * bandwidth_gbit * 1e9 / (8 * message))
    return message, lines, w_star


def _report_traffic(args, big_t) -> dict:
    """Print the per-iteration traffic model at the measured per-row cost; return its figures."""
    ns_per_row_feature = big_t["min_s"] / (args.rows * args.features) * 1e9 * 2       # per worker thread
    message, lines, w_star = traffic_model(args.features, 256, ns_per_row_feature, args.rows)
    print(f"\ntraffic per iteration: each worker sends d × B × 2 × 8 = {args.features} × 256 × 16 = "
          f"{message / 1024:.0f} KiB (per-class histograms) and receives < 1 KiB (the update and two scalars)")
    print(f"model at {args.rows:,d} rows, 10 Gbit/s client link, {ns_per_row_feature:.2f} ns per row-feature on "
          f"one worker (measured above):")
    print(f"  {'workers':>8}  {'client ingress':>15}  {'network s':>10}  {'compute s':>10}")
    for workers, inbound, network, compute in lines:
        print(f"  {workers:>8d}  {inbound / 2**20:>12.1f} MiB  {network:>10.4f}  {compute:>10.4f}")
    print(f"  compute per worker falls as 1/W while the client's ingress grows as W: they cross near "
          f"W ≈ {w_star:.0f} workers")
    return {"message_bytes_per_worker_per_iteration": message, "break_even_workers_10gbit": w_star,
            "ns_per_row_feature_per_worker": ns_per_row_feature}


def _parse_args(argv):
    """The command line, checked: positive counts, a slice made of whole chunks."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=18, help="timed iterations per configuration")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds")
    parser.add_argument("--chunk-rows", type=int, default=500_000)
    parser.add_argument("--slice-rows", type=int, default=1_000_000)
    parser.add_argument("--memory-limit", default="10GiB", help="per worker")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-in-memory", action="store_true")
    parser.add_argument("--skip-evaluate", action="store_true", help="do not time rankcore.dask.evaluate")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    for name in ("rows", "features", "iterations", "rounds", "chunk_rows", "slice_rows"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')}: expected a positive integer, got {getattr(args, name)}")
    if args.slice_rows >= 2 * args.chunk_rows and args.slice_rows % args.chunk_rows:
        parser.error(f"--slice-rows: expected a multiple of --chunk-rows={args.chunk_rows}, got {args.slice_rows}")
    if args.slice_rows < 2 * args.chunk_rows and args.slice_rows % 2:
        parser.error(f"--slice-rows: below two chunks the slice is cut in two chunks; expected an even count, "
                     f"got {args.slice_rows}")
    return args


def main(argv=None) -> int:
    args = _parse_args(argv)

    from distributed import Client, LocalCluster

    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} "
          f"({os.cpu_count()} cores)", flush=True)
    figures: dict = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
                     "load_before": load_before}
    big_name, small_name = f"dask {args.rows:,d}", f"dask {args.slice_rows:,d}"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit=args.memory_limit, silence_logs=40) as cluster, Client(cluster) as client:
        big_model, big, X_big, y_big, setup = _dask_session(client, args.rows, args)
        edges = big.layout.edges                 # the stumps rule on a 200,000-row sample, random_state=0
        info = big.shards.info()
        figures["dask_big_setup_s"] = setup
        figures["shards"] = info
        print(f"dask {args.rows:,d} x {args.features}: setup {setup:.1f} s (validation pass, bin-edge sample, "
              f"encoding pass); shard data " + ", ".join(f"{i['bytes'] / 2**20:.0f} MiB ({i['rows']:,d} rows)"
                                                       for i in info), flush=True)
        # the slice needs a chunk per worker at least, or one worker would sit idle in its per-row figure
        slice_chunk = args.chunk_rows if args.slice_rows >= 2 * args.chunk_rows else max(1, args.slice_rows // 2)
        if slice_chunk != args.chunk_rows:
            print(f"slice: {args.slice_rows:,d} rows in chunks of {slice_chunk:,d} (one per worker at least)")
        _, small, _, _, _ = _dask_session(client, args.slice_rows, args, edges, chunk_rows=slice_chunk)
        configs = {big_name: (big.backend, big.layout, args.rows),
                   small_name: (small.backend, small.layout, args.slice_rows)}
        if not args.skip_in_memory:
            X_slice, y_slice = local_slice(args.slice_rows, args.features, chunk_rows=slice_chunk, seed=args.seed)
            for threads in (1, 2):
                backend, layout = _in_memory_backend(X_slice, y_slice, edges, threads)
                configs[f"in-memory {args.slice_rows:,d}, {threads} thread(s)"] = (backend, layout, args.slice_rows)

        # Interleaved rounds: every configuration sees the same machine load; the minimum is the least disturbed.
        per_round = max(3, args.iterations // args.rounds)
        times = {name: [] for name in configs}
        records, first = {}, {}
        for name, (backend, layout, _) in configs.items():
            _, _, result = _timed_iterations(backend, layout, 2)            # warm up: past the tied start
            records[name] = list(result.records)
            first[name] = [r.ranker.describe() for r in result.records]
        for _ in range(args.rounds):
            for name, (backend, layout, _) in configs.items():
                per_iteration, _, result = _timed_iterations(backend, layout, per_round)
                times[name].append(per_iteration)
                records[name].extend(result.records)
        print(f"\ntime per iteration ({args.rounds} interleaved rounds of {per_round} iterations; min, median):")
        summary = {}
        for name, (backend, _, rows) in configs.items():
            low, mid = min(times[name]), float(np.median(times[name]))
            summary[name] = {"rows": rows, "min_s": low, "median_s": mid, "all_s": times[name]}
            trips = getattr(backend, "round_trips", None)
            print(f"  {name:<30} {low * 1e3:8.1f} ms {mid * 1e3:8.1f} ms   ({low / rows * 1e9:6.1f} / "
                  f"{mid / rows * 1e9:6.1f} ns per row)" + (f", {trips} round trips for "
                                                             f"{len(records[name])} iterations" if trips else ""),
                  flush=True)
        figures["iterations"] = summary
        big_t, small_t = summary[big_name], summary[small_name]
        ratio_rows = {k: (big_t[k] / args.rows) / (small_t[k] / args.slice_rows) for k in ("min_s", "median_s")}
        figures["per_row_big_over_slice"] = ratio_rows
        print(f"per-row cost, Dask {args.rows:,d} over {args.slice_rows:,d} rows: {ratio_rows['min_s']:.2f} (min), "
              f"{ratio_rows['median_s']:.2f} (median)   [target <= 1]")
        if not args.skip_in_memory:
            memory = [summary[name] for name in summary if name.startswith("in-memory")]
            best = {k: min(m[k] for m in memory) for k in ("min_s", "median_s")}
            ratio = {k: small_t[k] / best[k] for k in best}
            figures["dask_over_in_memory_slice"] = ratio
            same = all(first[name] == first[small_name] for name in first if name.startswith("in-memory"))
            print(f"Dask / in-memory (the faster thread count) at {args.slice_rows:,d} rows: {ratio['min_s']:.2f} "
                  f"(min), {ratio['median_s']:.2f} (median)   [target <= 2]; same first weak rankers: {same}")
            per_row = {k: (big_t[k] / args.rows) / (best[k] / args.slice_rows) for k in best}
            figures["per_row_dask_big_over_in_memory_slice"] = per_row
            print(f"per-row cost, Dask {args.rows:,d} over in-memory {args.slice_rows:,d}: {per_row['min_s']:.2f} "
                  f"(min), {per_row['median_s']:.2f} (median)")
        peaks = client.run(_peak_rss_mib)
        figures["worker_peak_rss_mib"] = peaks
        print("worker peak RSS (ru_maxrss, setup and iterations): " + ", ".join(f"{v:.0f} MiB" for v in peaks.values()),
              flush=True)
        if not args.skip_evaluate:
            ev = _evaluate(client, big_model, records[big_name], X_big, y_big, args)
            figures["evaluate"] = ev
            print(f"rankcore.dask.evaluate of the {args.rows:,d} fitted scores: {ev['seconds']:.1f} s, "
                  f"{ev['passes']} passes: " + ", ".join(
                      f"{k}={v:.6g} in [{ev['bounds'][k][0]:.6g}, {ev['bounds'][k][1]:.6g}]"
                      for k, v in ev["values"].items()), flush=True)
            after = client.run(_peak_rss_mib)
            figures["worker_peak_rss_mib_with_evaluate"] = after
            print("worker peak RSS including evaluate (its persisted scores and labels, and the generator's "
                  "chunks Dask keeps while scoring): " + ", ".join(f"{v:.0f} MiB" for v in after.values()),
                  flush=True)
        big.close()
        small.close()

    figures["traffic"] = _report_traffic(args, big_t)
    load_after = os.getloadavg()
    figures["load_after"] = load_after
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

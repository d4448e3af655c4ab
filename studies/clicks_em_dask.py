"""The click model (``position_bias="em"``) fitted on Dask against the in-memory fit, on one simulated click log.

``python studies/clicks_em_dask.py`` simulates one log of ``clicks_study.py`` (``--queries`` training queries of
20 to 40 documents, the first ten shown in the order of a logger that ranks mostly by a feature unrelated to
relevance, place p examined with probability 1/(p + 1)), then fits the click model of ``--spec`` three ways, each
``--repeats`` times, alternated: ``rankcore.boost`` in memory (``--threads`` threads), ``DaskPushBoost`` distributed
(every EM round a distributed fit) and ``DaskPushBoost`` on one worker (the in-memory fit run there), both on a
LocalCluster of 2 worker processes of 1 thread each.  It prints each fit's wall seconds (the median and the
range), the rounds run, the largest difference of θ and of the scores from the in-memory fit, and NDCG@10 of new
queries' true grades.  The data are simulated: nothing is read from disk.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rankcore  # noqa: E402
from clicks_study import graded_documents, logged_clicks  # noqa: E402
from rankcore.metrics import evaluate  # noqa: E402


def _log(n_queries: int, seed: int):
    rng = np.random.default_rng(seed)
    X, grades, qid = graded_documents(n_queries, rng)
    rows, position, clicks = logged_clicks(X, grades, qid, rng, logger="feature", eta=1.0, shown=10)
    test = graded_documents(n_queries // 2, rng)
    return X[rows], clicks, qid[rows], position, test


def _fits(args, client, data):
    import dask.array as da

    from rankcore.dask import DaskPushBoost

    X, clicks, qid, position, _ = data
    chunk = -(-clicks.size // args.chunks)
    lazy = [da.from_array(a, chunks=(chunk, -1) if a.ndim == 2 else (chunk,)) for a in (X, clicks, qid, position)]
    params = dict(learner="trees", position_bias=args.spec, random_state=0)

    def in_memory():
        return rankcore.boost(n_jobs=args.threads, **params).fit(X, clicks, qid=qid, position=position)

    def dask_fit(placement):
        def fit():
            model = DaskPushBoost(placement=placement, client=client, **params)
            return model.fit(lazy[0], lazy[1], qid=lazy[2], position=lazy[3])
        return fit

    return {"in memory": in_memory, "Dask, distributed": dask_fit("distributed"),
            "Dask, one worker": dask_fit("one_worker")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--spec", default="em")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=4, help="row chunks of the Dask arrays")
    parser.add_argument("--threads", type=int, default=1, help="threads of the in-memory fit")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from distributed import Client, LocalCluster

    data = _log(args.queries, args.seed)
    X_test, grades_test, qid_test = data[4]
    print(f"{data[1].size:,d} rows logged, {int(data[1].sum()):,d} clicks; spec {args.spec!r}; load average "
          f"{os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)", flush=True)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as client:
        fits = _fits(args, client, data)
        seconds = {name: [] for name in fits}
        models = {}
        for _ in range(args.repeats):
            for name, fit in fits.items():
                start = time.perf_counter()
                models[name] = fit()
                seconds[name].append(time.perf_counter() - start)
    reference = models["in memory"]
    print("\n| fit | wall s (median) | range | EM rounds | max abs Δθ | max abs Δ score | NDCG@10 |")
    print("|---|---|---|---|---|---|---|")
    for name, model in models.items():
        times = np.array(seconds[name])
        d_theta = np.max(np.abs(model.position_propensities_ - reference.position_propensities_))
        d_score = np.max(np.abs(model.decision_function(X_test) - reference.decision_function(X_test)))
        ndcg = evaluate(grades_test, model.decision_function(X_test), metrics=["ndcg@k:10"], qid=qid_test)
        print(f"| {name} | {np.median(times):.2f} | {times.min():.2f}–{times.max():.2f} | "
              f"{model.position_em_rounds_} | {d_theta:.1e} | {d_score:.1e} | {ndcg['ndcg@k:10']:.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

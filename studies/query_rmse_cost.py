"""Fit CPU of the per-query default with ``query_rmse`` against the default alone, fits paired in one process.

The whole of LightGBM's LTR example (``load_lambdarank``, dense), one thread,
the default's 200 trees: each round fits the default
(``rankcore.boost(learner="trees")``) and the same push with
``objective="push:exp,identity,gain_weighted=true,query_rmse=λ"``, in
alternating order (the default first in even rounds), and times each fit by
``time.process_time``.  It prints every round's two CPU times and their ratio,
then the range and median of the ratios and the load average before and
after.  One warm-up fit of each comes first (imports, first-call caches).
Then the objective alone: CPU microseconds of one ``value_gradient_hessian``
(what each of the fit's Newton steps evaluates) of the push and of the push
with the term, bound to the same rows at the same random scores, 200 calls
per timing, alternated over the rounds.

The record of its runs (and of the comparison with the study's blend) is
the last section of ``query_defaults_study.py``.

Usage::

    RANKCORE_DATASETS=... python studies/query_rmse_cost.py --rounds 10 --query-rmse 2
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _data import DatasetUnavailable  # noqa: E402
from _queries import load_lambdarank  # noqa: E402


def _fit(X, y, qid, objective):
    import rankcore

    start = time.process_time()
    model = rankcore.boost(learner="trees", objective=objective, n_jobs=1, random_state=0).fit(X, y, qid=qid)
    return time.process_time() - start, model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--query-rmse", type=float, default=2.0)
    args = parser.parse_args(argv)
    try:
        X, y, qid = load_lambdarank()
    except DatasetUnavailable as exc:
        print(f"query_rmse_cost: {exc}", file=sys.stderr)
        return 0
    X = X.toarray()
    blend = f"push:exp,identity,gain_weighted=true,query_rmse={args.query_rmse:g}"
    models = {"default": None, "query_rmse": blend}
    load = os.getloadavg()[0]
    for objective in models.values():
        _fit(X, y, qid, objective)
    seconds = {name: [] for name in models}
    for r in range(args.rounds):
        order = list(models) if r % 2 == 0 else list(models)[::-1]
        for name in order:
            cpu, _ = _fit(X, y, qid, models[name])
            seconds[name].append(cpu)
    ratios = np.array(seconds["query_rmse"]) / np.array(seconds["default"])
    print(f"LTR example {X.shape[0]:,} x {X.shape[1]}, 200 trees, one thread; {blend}")
    print("| round | default CPU s | query_rmse CPU s | ratio |")
    print("|---|---|---|---|")
    for r, (a, b, q) in enumerate(zip(seconds["default"], seconds["query_rmse"], ratios)):
        print(f"| {r} | {a:.3f} | {b:.3f} | {q:.3f} |")
    print(f"ratio: {ratios.min():.3f}-{ratios.max():.3f}, median {np.median(ratios):.3f}; "
          f"medians: default {np.median(seconds['default']):.3f} s, "
          f"query_rmse {np.median(seconds['query_rmse']):.3f} s; "
          f"load {load:.1f} -> {os.getloadavg()[0]:.1f}")
    per_evaluation(y, qid, args.query_rmse, args.rounds)
    return 0


def per_evaluation(y, qid, query_rmse, rounds, calls=200):
    """Print the median (range) CPU µs of one value_gradient_hessian of the push and of push + term."""
    from rankcore.metrics import check_qid
    from rankcore.objectives._query_push import QueryPush

    queries = check_qid(qid, y.shape[0])
    bound = {"push": QueryPush("exp", "identity", gain_weighted=True).bind(y, queries),
             "push + query_rmse": QueryPush("exp", "identity", gain_weighted=True,
                                            query_rmse=query_rmse).bind(y, queries)}
    f = np.random.default_rng(0).normal(size=y.shape[0])
    micros = {name: [] for name in bound}
    for r in range(rounds):
        for name in (list(bound) if r % 2 == 0 else list(bound)[::-1]):
            start = time.process_time()
            for _ in range(calls):
                bound[name].value_gradient_hessian(f)
            micros[name].append((time.process_time() - start) / calls * 1e6)
    for name, values in micros.items():
        print(f"{name}: one value_gradient_hessian {np.median(values):.1f} us (range {min(values):.1f}-"
              f"{max(values):.1f})")


if __name__ == "__main__":
    sys.exit(main())

"""What AutoRanker's default fit costs, as a multiple of one ``LGBMClassifier()`` fit on the same data.

For every binary dataset of the folder (``$RANKCORE_DATASETS``), the whole
default fit ``rankcore.AutoRanker(random_state=0).fit(X, y)`` and one
``LGBMClassifier().fit(X, y)`` are timed alternately in this process, each
``--repeats`` times, and the least of each is kept (the machine is shared:
the least is the closest to the work itself).  Also printed: what AutoRanker
spent its time on (search, refit) and its choice.  With ``--budget``, the fit
is ``AutoRanker(time_budget=B)`` and the table shows how close to ``B`` it
ended.  With ``--cpu``, both run on one thread (``n_jobs=1``) and are timed
in process CPU seconds, which a busy machine disturbs far less than wall
time.  ``--metric`` fits ``AutoRanker(metric=...)`` instead of the default
``pauc:0.1`` (ExactBoost, the costliest candidate on small data, trains on
that metric, so the cost depends on it).

Usage::

    python studies/auto_cost.py --repeats 3
    python studies/auto_cost.py --datasets wdbc,spambase --budget 5
    python studies/auto_cost.py --cpu --metric prec@k:0.05
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`
from benchmarks._data import DatasetUnavailable, load_dataset  # noqa: E402
from studies.top_of_list_comparison import _subsample, binary_datasets  # noqa: E402


def _timed(fit, clock) -> float:
    start = clock()
    fit()
    return clock() - start


def measure(name: str, repeats: int, budget: float | None, max_rows: int, cpu: bool = False,
            metric: str = "pauc:0.1") -> dict:
    import lightgbm

    import rankcore

    X, y, _ = load_dataset(name)
    X, y, _ = _subsample(X, y, max_rows, seed=0)
    clock = time.process_time if cpu else time.perf_counter
    threads = {"n_jobs": 1} if cpu else {}
    lgbm, auto, last = [], [], None
    for _ in range(repeats):
        lgbm.append(_timed(lambda: lightgbm.LGBMClassifier(verbose=-1, **threads).fit(X, y), clock))
        model = rankcore.AutoRanker(metric=metric, random_state=0, time_budget=budget, **threads)
        auto.append(_timed(lambda: model.fit(X, y), clock))
        last = model
    return {"dataset": name, "rows": X.shape[0], "features": X.shape[1], "lgbm": min(lgbm), "auto": min(auto),
            "ratio": min(auto) / min(lgbm), "search": last.search_time_, "refit": last.refit_time_,
            "chosen": last.best_candidate_, "cv": last.cv_description_,
            "tasks": int(sum(r.n_folds for r in last.leaderboard_ if not r.name.startswith("blend(")))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=None, help="comma-separated names (default: every binary dataset)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=None, help="AutoRanker(time_budget=...) instead of None")
    parser.add_argument("--max-rows", type=int, default=50_000)
    parser.add_argument("--cpu", action="store_true", help="one thread each, timed in process CPU seconds")
    parser.add_argument("--metric", default="pauc:0.1",
                        help="AutoRanker(metric=...): the default pauc:0.1, or another metric spec")
    args = parser.parse_args(argv)
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        print("skipped: lightgbm is not installed", file=sys.stderr)
        return 0
    try:
        names = args.datasets.split(",") if args.datasets else binary_datasets()
        rows = [measure(n, args.repeats, args.budget, args.max_rows, args.cpu, args.metric) for n in names]
    except DatasetUnavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return 0
    head = "| dataset (rows x features) | LGBMClassifier() s | AutoRanker() s | ratio | search / refit s | " \
           "parts scored | validation | chosen |"
    print(head)
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        print(f"| {r['dataset']} ({r['rows']:,} x {r['features']}) | {r['lgbm']:.3f} | {r['auto']:.2f} | "
              f"{r['ratio']:.1f}x | {r['search']:.2f} / {r['refit']:.2f} | {r['tasks']} | {r['cv']} | "
              f"{r['chosen']} |")
    ratios = np.array([r["ratio"] for r in rows])
    what = "process CPU seconds, one thread each" if args.cpu else "wall seconds, default threads"
    print(f"\nratio: median {np.median(ratios):.1f}x, largest {ratios.max():.1f}x "
          f"({rows[int(ratios.argmax())]['dataset']}); least of {args.repeats} alternating fits each, {what}; "
          f"metric {args.metric}")
    if args.budget is not None:
        over = max(r["auto"] / args.budget for r in rows)
        print(f"time_budget={args.budget:g} s: the longest fit took {over:.2f}x the budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())

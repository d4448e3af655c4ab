"""Fit CPU of ``objective="yetirank"`` against the per-query default and ``LGBMRanker()``, alternated in one process.

The study of ``query_defaults_study.py`` times each model's folds as they
come, minutes apart on a shared machine; here the models' fits alternate,
round after round, on the training rows of the first fold of split 0 of each
set (the same rows, order and threads as that study), and each model's
median CPU seconds (``time.process_time``) over the rounds is reported with
its ratio to the default's and to ``LGBMRanker()``'s, and the load average.

Usage::

    python studies/yetirank_fit_cost.py --sets ltr synthetic retrieval retrieval_long --rounds 3
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import query_defaults_study as study  # noqa: E402

MODELS = ["LGBMRanker()", "default", "yetirank", "yetirank, 4 permutations"]


def fit_seconds(set_name, models, rounds):
    """{model: [CPU seconds per round]} on the first training fold of split 0, the models alternated."""
    from rankcore import QueryKFold

    X, y, qid = study.SETS[set_name]()
    n_splits, _ = study.SPLITS.get(set_name, (5, 5))
    train, _ = next(QueryKFold(n_splits, shuffle=True, random_state=0).split(X, qid=qid))
    train = train[study._canonical_order(X[train], y[train], qid[train])]
    Xtr, ytr, qtr = X[train], y[train], qid[train]
    seconds = {m: [] for m in models}
    for r in range(rounds):
        for name in models[r % len(models):] + models[:r % len(models)]:
            start = time.process_time()
            study.MODELS[name](Xtr, ytr, qtr, 1)
            seconds[name].append(time.process_time() - start)
    return Xtr.shape, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=["ltr", "synthetic", "retrieval", "retrieval_long"],
                        choices=list(study.SETS))
    parser.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print("| set | rows × features | model | median fit CPU s | × default | × LGBMRanker() | load |")
    print("|---|---|---|---|---|---|---|")
    for set_name in args.sets:
        try:
            shape, seconds = fit_seconds(set_name, args.models, args.rounds)
        except study.DatasetUnavailable as exc:
            print(f"left out {set_name}: {exc}", file=sys.stderr)
            continue
        median = {m: float(np.median(s)) for m, s in seconds.items()}
        for m in args.models:
            base = median.get("default", np.nan)
            ref = median.get(study.REFERENCE, np.nan)
            print(f"| {set_name} | {shape[0]:,} × {shape[1]} | {m} | {median[m]:.2f} | {median[m] / base:.2f} | "
                  f"{median[m] / ref:.2f} | {os.getloadavg()[0]:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``KernelRanker(solver="auto")`` on the benchmark datasets: what it chooses, fit time and test AUC.

For every benchmark dataset with at most 20,000 training rows (beyond, the old
default was Nyström as well): a stratified 70/30 split, features
standardized on the training part, then

* ``old``  -- ``solver="exact"``: what ``solver="auto"`` chose before (exact up to 20,000 rows);
* ``auto`` -- today's default (exact, Krylov or Nyström by predicted time and memory);
* ``holdout`` -- ``lam="holdout"`` with the default grid on the auto route, and
  whether the choice fell on an end of the grid (now a warning and an extended grid).

Test AUC is scikit-learn's ``roc_auc_score`` (independent of rankcore).  Timing
is wall clock on a shared machine: compare the columns of one run.

Run::

    python studies/kernel_solver_auto.py [--splits 1] [--max-rows 20000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from rankcore import KernelRanker
from rankcore.rkhs import GridEdgeWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`
from benchmarks._data import DatasetUnavailable, datasets_dir, load_dataset  # noqa: E402


def fit_timed(model, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    return model, time.perf_counter() - start, caught


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=1)
    parser.add_argument("--max-rows", type=int, default=20_000, help="training rows at most")
    parser.add_argument("--skip-old-above", type=int, default=12_000,
                        help="do not run the old exact default above this many training rows (minutes each)")
    args = parser.parse_args()
    try:
        manifest = json.loads((datasets_dir() / "MANIFEST.json").read_text())
    except (FileNotFoundError, NotADirectoryError):
        print(f"datasets not found at {datasets_dir()} (set RANKCORE_DATASETS)", file=sys.stderr)
        return
    entries = manifest if isinstance(manifest, list) else list(manifest.values())
    print("| dataset | train rows | auto chose | old (exact) s | auto s | AUC old | AUC auto "
          "| holdout: lam at grid end |")
    print("|---|---|---|---|---|---|---|---|")
    for entry in sorted(entries, key=lambda e: e["n_rows"]):
        name = entry.get("name") or entry.get("file", "").replace(".csv.gz", "")
        if int(0.7 * entry["n_rows"]) > args.max_rows:
            continue
        try:
            X, y, _ = load_dataset(name)
        except DatasetUnavailable as exc:
            print(f"| {name} | skipped: {exc} |")
            continue
        for split in range(args.splits):
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=split)
            mu, sd = X_tr.mean(axis=0), X_tr.std(axis=0)
            sd[sd == 0] = 1.0
            X_tr, X_te = (X_tr - mu) / sd, (X_te - mu) / sd
            auto, t_auto, _ = fit_timed(KernelRanker(random_state=split), X_tr, y_tr)
            auc_auto = roc_auc_score(y_te, auto.decision_function(X_te))
            if X_tr.shape[0] <= args.skip_old_above:
                old, t_old, _ = fit_timed(KernelRanker(solver="exact"), X_tr, y_tr)
                old_cells = f"{t_old:.2f} | {t_auto:.2f} | {roc_auc_score(y_te, old.decision_function(X_te)):.4f}"
            else:
                old_cells = f"(skipped) | {t_auto:.2f} | --"
            hold, _, caught = fit_timed(KernelRanker(lam="holdout", random_state=split), X_tr, y_tr)
            edge = any(issubclass(w.category, GridEdgeWarning) for w in caught)
            grid_end = ("yes, extended to " + format(hold.lam_grid_.min(), ".2g")
                        + ", chose " + format(hold.lam_, ".2g") if edge else "no")
            print(f"| {name} | {X_tr.shape[0]:,} | {auto.solver_} | {old_cells} | {auc_auto:.4f} | "
                  f"{grid_end} |",
                  flush=True)


if __name__ == "__main__":
    main()

"""ExactBoost speed at equal quality: configurations side by side in one run.

For each dataset (the paper's, spambase, and the synthetic 30,000 × 123 binary
set of ``exactboost_reproduction.py``) and stratified 70/30 splits, fits
ExactBoost (metric AUC, 250 runs × 50 rounds, one thread) in every
configuration below, one after the other on the same split, and reports

- the CPU seconds of each fit (one thread: less disturbed by other work on a
  shared machine than wall time) and their ratios to ``pre-wave-2`` and to
  ``main``, per split, averaged;
- the test AUC, KS and prec@5 % of each configuration, mean ± sd over
  splits, and whether each lies within one standard deviation (of ``main``'s
  splits) of ``main``'s mean.

Configurations:

- ``pre-wave-2``: today's defaults with boxes evaluated on expanded score
  arrays (``fit_runs(..., run_length=False)``), the code before the
  run-length kernel (same stumps as ``main``, checked);
- ``main``: the defaults before this change (max_bins=None, depth=4,
  max_boxes=256);
- the candidates named in ``CONFIGS``; ``bins64+boxes128+depth3`` is the new
  default (max_bins=64, max_boxes=128, depth=3).

Usage::

    python studies/exactboost_speed.py --seeds 3 --out out/exactboost_speed.md
    python studies/exactboost_speed.py --datasets german-numeric svmguide1 --seeds 2 --no-synthetic
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`

from studies.exactboost_reproduction import loaded_datasets, publish_report, synthetic_binary  # noqa: E402

DATASETS = ["german-numeric", "heart-statlog", "heart-cleveland", "ionosphere", "liver-disorders-bupa", "splice",
            "svmguide1", "spambase"]

#: name -> (ExactBoost parameters, run_length).  Every configuration names
#: the parameters it depends on, so the table stays meaningful when defaults move.
BEFORE = dict(max_bins=None, depth=4, max_boxes=256)  # the defaults before the speed-ups
CONFIGS = {
    "pre-wave-2": (BEFORE, False),
    "main": (BEFORE, True),
    "bins32": (dict(BEFORE, max_bins=32), True),
    "bins16+boxes128": (dict(BEFORE, max_bins=16, max_boxes=128), True),
    "bins16+boxes128+depth3": (dict(max_bins=16, max_boxes=128, depth=3), True),
    "bins16+boxes64+depth3": (dict(max_bins=16, max_boxes=64, depth=3), True),
    "bins8+boxes128+depth3": (dict(max_bins=8, max_boxes=128, depth=3), True),
    "boxes128+depth3": (dict(max_bins=None, max_boxes=128, depth=3), True),
    "bins64+boxes128+depth3": (dict(max_bins=64, max_boxes=128, depth=3), True),
    "boxes64+depth3": (dict(max_bins=None, max_boxes=64, depth=3), True),
    "boxes32+depth3": (dict(max_bins=None, max_boxes=32, depth=3), True),
    "boxes16+depth3": (dict(max_bins=None, max_boxes=16, depth=3), True),
    "boxes128+depth2": (dict(max_bins=None, max_boxes=128, depth=2), True),
    "boxes64+depth2": (dict(max_bins=None, max_boxes=64, depth=2), True),
}
METRICS = ("auc", "ks", "prec@k:0.05")


def _fit(params, run_length, X, y, seed, n_runs, metric="auc"):
    import rankcore
    from rankcore.exactboost import fit_runs

    class Reference(rankcore.ExactBoost):
        def _fit_runs(self, data, seeds, settings, n_threads):
            return fit_runs(data, seeds, settings, n_threads=n_threads, run_length=False)

    cls = rankcore.ExactBoost if run_length else Reference
    model = cls(metric=metric, n_runs=n_runs, random_state=seed, n_jobs=1, **params)
    start = time.process_time()
    model.fit(X, y)
    return model, time.process_time() - start


def run(name, X, y, seeds, n_runs, configs, metric="auc"):
    import rankcore
    from sklearn.model_selection import train_test_split

    out = {"n": int(X.shape[0]), "d": int(X.shape[1]), "configs": {}}
    for seed in range(seeds):
        tr, te = train_test_split(np.arange(y.shape[0]), test_size=0.3, stratify=y, random_state=seed)
        models = {}
        for label in configs:
            params, run_length = CONFIGS[label]
            model, seconds = _fit(params, run_length, X[tr], y[tr], seed, n_runs, metric)
            models[label] = model
            values = rankcore.evaluate(y[te], model.decision_function(X[te]), list(METRICS))
            row = out["configs"].setdefault(label, {"time": [], **{m: [] for m in METRICS}})
            row["time"].append(seconds)
            for m in METRICS:
                row[m].append(float(values[m]))
            print(f"  {name} split {seed} {label}: {seconds:.1f} s, auc {values['auc']:.4f}",
                  file=sys.stderr, flush=True)
        if "pre-wave-2" in models and "main" in models:
            if not np.array_equal(models["pre-wave-2"].stumps_, models["main"].stumps_):
                raise AssertionError(f"{name}: pre-wave-2 and main disagree")
    return out


def _ms(values, digits=3):
    values = np.asarray(values, dtype=float)
    sd = values.std(ddof=1) if values.size > 1 else 0.0
    return f"{values.mean():.{digits}f} ± {sd:.{digits}f}"


def report(results, seeds, n_runs):
    lines = [f"# ExactBoost fit time and test quality ({n_runs} runs × 50 rounds, metric AUC, one thread, "
             f"{seeds} splits)", "",
             "CPU seconds per fit (mean over splits); ratios are per split, then averaged. "
             "Quality: test metrics of each configuration, mean ± sd over splits; "
             "'=' within one sd of main (main's sd), '-' worse, '+' better.", "",
             "| data | n × d | config | fit (s) | vs pre-wave-2 | vs main | test AUC | test KS | test prec@5 % |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        configs = r["configs"]
        main = configs.get("main")
        for label, row in configs.items():
            t = np.asarray(row["time"])
            old = np.asarray(configs["pre-wave-2"]["time"]) if "pre-wave-2" in configs else None
            vs_old = f"×{np.mean(old / t):.2f}" if old is not None else ""
            vs_main = f"×{np.mean(np.asarray(main['time']) / t):.2f}" if main is not None else ""
            cells = []
            for m in METRICS:
                cell = _ms(row[m])
                if main is not None and label != "main":
                    ref = np.asarray(main[m])
                    sd = ref.std(ddof=1) if ref.size > 1 else 0.0
                    diff = np.mean(row[m]) - ref.mean()
                    cell += " =" if abs(diff) <= sd else (" +" if diff > 0 else " -")
                cells.append(cell)
            lines.append(f"| {name} | {r['n']} × {r['d']} | {label} | {t.mean():.2f} | {vs_old} | {vs_main} | "
                         + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--n-runs", type=int, default=250)
    parser.add_argument("--configs", nargs="*", default=["pre-wave-2", "main", "boxes128+depth3",
                                                         "bins64+boxes128+depth3"])
    parser.add_argument("--no-synthetic", action="store_true")
    parser.add_argument("--synthetic-only", action="store_true")
    parser.add_argument("--metric", default="auc", help="the metric ExactBoost is trained on")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    results = {}
    names = [] if args.synthetic_only else (args.datasets if args.datasets is not None else DATASETS)
    for name, X, y in loaded_datasets(names):
        results[name] = run(name, X, y, args.seeds, args.n_runs, args.configs, args.metric)
    if not args.no_synthetic:
        X, y = synthetic_binary()
        results["synthetic binary"] = run("synthetic binary", X, y, 1, args.n_runs, args.configs, args.metric)
    text = report(results, args.seeds, args.n_runs).replace("metric AUC", f"trained on {args.metric}")
    publish_report(text, results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

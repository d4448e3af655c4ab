"""What CatBoost's defaults do differently at the top of the list, one idea at a time.

On the ten public held-out comparisons ``CatBoostClassifier()`` was the
strongest default at the top of the list.  Its defaults differ from ours in
three ways; this study tries each on rankcore's trees *alone*, then together,
on every binary dataset of the shared folder (``$RANKCORE_DATASETS``),
``--splits`` stratified 70/30 splits, one thread per model (the machine is
shared):

* ``catboost``: ``CatBoostClassifier(thread_count=1, verbose=0)``;
* ``lightgbm``: ``LGBMClassifier(n_jobs=1)``;
* ``trees``: ``rankcore.boost(learner="trees")``, the defaults;
* ``trees+oblivious`` (a): symmetric trees, ``trees:growth=oblivious``
  (depth 6, 64 leaves, as CatBoost);
* ``trees+long`` (b): more iterations at a rate chosen from the training
  size n (:func:`long_schedule`): 500 trees at
  η = clip(0.05·(n/10⁴)^0.3, 0.02, 0.1) -- a smaller rate on small data,
  more total shrinkage on large data, as CatBoost's rule does;
* ``trees+l2`` (c): stronger leaf regularization on small data
  (:func:`small_data_l2`): below 5,000 training rows, l2 = 12 mean per-row
  curvatures of the objective (CatBoost's ``l2_leaf_reg=3`` is in units of
  the mean row weight, and its logistic curvature is at most 1/4: at least
  12 rows' curvature); the defaults above.  Our ``l2`` is in curvature
  units, whose scale depends on the objective and the labels (0.011 per row
  on wdbc, 0.0013 on spambase for the default push objective), so the rule
  computes it from the training labels (the curvature at f = 0);
* ``trees+all``: the three together; ``trees+long+l2``: (b) and (c);
  ``trees+oblivious+long``: (a) and (b);
* ``trees+noise`` (d): each node's feature chosen with noise on the gains,
  ``trees:random_strength=3`` (docs/push.md, *Random strength*), as
  CatBoost's defaults score splits with noise;
* ``trees+size``: (a) below 5,000 training rows, (b) from there -- the
  combination the table of the shared sets suggested (oblivious trees won
  on the small sets and lost on the large ones, where more iterations won),
  so it is judged on held-out datasets only (``RANKCORE_DATASETS`` pointing
  at the sets ``export_r_datasets.py`` writes).

Test metrics are computed by ``top_of_list_comparison.judge`` (scikit-learn's
ROC curve and NumPy, independent of rankcore): prec@1%, prec@5%, pAUC@0.1
(area up to FPR 0.1 divided by 0.1) and AUC; fit time is the model's fit
alone.  Results are cached per (model, dataset, split) in ``--cache`` so a run
can be resumed or extended with more models.

Usage::

    RANKCORE_DATASETS=/path/to/datasets python studies/catboost_study.py --splits 3 --out study.md
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`
from benchmarks._data import DatasetUnavailable, load_dataset  # noqa: E402
from studies.top_of_list_comparison import METRICS, _scores, _subsample, binary_datasets, judge  # noqa: E402

SMALL = 5_000

#: CatBoost's rate recipe at its automatic rate for a few hundred rows: 1,000 trees at η = 0.0065, depth 6,
#: one row per leaf at least (CatBoost's min_data_in_leaf), an L2 leaf penalty as (c).
RECIPE_TREES, RECIPE_RATE = 1000, 0.0065


def long_schedule(n_train: int) -> tuple[int, float]:
    """(b): 500 trees at η = clip(0.05·(n/10⁴)^0.3, 0.02, 0.1)."""
    return 500, float(np.clip(0.05 * (n_train / 1e4) ** 0.3, 0.02, 0.1))


def small_data_l2(y_train: np.ndarray, objective: str = "push:exp,pow:2") -> dict:
    """(c): l2 = 12 mean per-row curvatures of the objective at f = 0, below ``SMALL`` training rows."""
    import rankcore

    if y_train.shape[0] >= SMALL:
        return {}
    bound = rankcore.resolve("objective", objective).bind(np.asarray(y_train).astype(np.int8))
    _, _, h = bound.value_gradient_hessian(np.zeros(y_train.shape[0]))
    return {"l2": float(f"{12.0 * float(np.mean(h)):.6g}")}


def _trees(seed: int, y_train: np.ndarray, *, oblivious=False, long=False, l2=False, noise=False, recipe=False):
    import rankcore

    spec = {"random_strength": 3} if noise else {}
    n_iter = 100
    n_train = y_train.shape[0]
    if recipe:
        n_iter = RECIPE_TREES
        spec.update(learning_rate=RECIPE_RATE, max_depth=6, max_leaves=64, min_samples_leaf=1)
    if oblivious:
        spec["growth"] = "oblivious"
    if long:
        n_iter, spec["learning_rate"] = long_schedule(n_train)
    if l2:
        spec.update(small_data_l2(y_train))
    learner = "trees" + (":" + ",".join(f"{k}={v}" for k, v in spec.items()) if spec else "")
    # without early stopping, as the study was run (early_stopping="auto" switches on above
    # 10,000 training rows with larger trees: one more idea for large data, measured apart)
    return rankcore.boost(learner=learner, n_iter=n_iter, n_jobs=1, random_state=seed, early_stopping=False)


def models() -> dict:
    out = {
        "trees+recipe": lambda s, n: _trees(s, n, recipe=True, l2=True),
        "trees": lambda s, n: _trees(s, n),
        "trees+noise": lambda s, n: _trees(s, n, noise=True),
        "trees+oblivious": lambda s, n: _trees(s, n, oblivious=True),
        "trees+long": lambda s, n: _trees(s, n, long=True),
        "trees+l2": lambda s, n: _trees(s, n, l2=True),
        "trees+long+l2": lambda s, n: _trees(s, n, long=True, l2=True),
        "trees+all": lambda s, n: _trees(s, n, oblivious=True, long=True, l2=True),
        "trees+oblivious+long": lambda s, n: _trees(s, n, oblivious=True, long=True),
        "trees+size": lambda s, n: (_trees(s, n, oblivious=True) if n.shape[0] < SMALL else _trees(s, n, long=True)),
    }
    try:
        import catboost

        out["catboost"] = lambda s, n: catboost.CatBoostClassifier(thread_count=1, verbose=0, random_seed=s,
                                                                   allow_writing_files=False)
    except ImportError:
        pass
    try:
        import lightgbm

        out["lightgbm"] = lambda s, n: lightgbm.LGBMClassifier(n_jobs=1, verbose=-1, random_state=s)
        # LightGBM (log-loss) with the same recipe: CatBoost's l2_leaf_reg=3 and 80 % row sampling too
        out["lightgbm+recipe"] = lambda s, n: lightgbm.LGBMClassifier(
            n_jobs=1, verbose=-1, random_state=s, n_estimators=RECIPE_TREES, learning_rate=RECIPE_RATE, max_depth=6,
            num_leaves=64, min_child_samples=1, reg_lambda=3.0, subsample=0.8, subsample_freq=1)
    except ImportError:
        pass
    return out


def run(datasets, names, n_splits: int, max_rows: int, cache: Path, log=print, seed_offset: int = 0) -> dict:
    from sklearn.model_selection import StratifiedShuffleSplit

    factories = models()
    done = json.loads(cache.read_text()) if cache.is_file() else {}
    for d in datasets:
        X, y, _ = load_dataset(d)
        X, y, _ = _subsample(X, y, max_rows, seed=0)
        splitter = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.3, random_state=0)
        for split, (tr, te) in enumerate(splitter.split(X, y)):
            for name in names:
                key = f"{name}|{d}|{split}"
                if key in done:
                    continue
                # every model's seed is the split's number (+ seed_offset: another draw of each
                # model's own randomness on the same splits, cached apart)
                model = factories[name](split + seed_offset, y[tr])
                start = time.process_time()
                model.fit(X[tr], y[tr])
                fit = time.process_time() - start
                got = judge(y[te], np.asarray(_scores(model, X[te]), dtype=np.float64))
                done[key] = dict(got, fit=fit)
                cache.write_text(json.dumps(done))
        log(f"{d}: " + ", ".join(f"{n} {np.mean([done[f'{n}|{d}|{s}']['pauc@0.1'] for s in range(n_splits)]):.3f}"
                                 for n in names))
    return done


def report(done: dict, datasets, names, n_splits: int) -> str:
    def mean(name, d, m):
        return float(np.mean([done[f"{name}|{d}|{s}"][m] for s in range(n_splits)]))

    cols = (*METRICS[:3], "fit")
    lines = [f"{len(datasets)} datasets, {n_splits} stratified 70/30 splits, one thread per model (CPU time of "
             "the fit; shared machine).", "",
             "| model | prec@1% | prec@5% | pAUC@0.1 | mean fit (s) | pAUC wins vs trees |",
             "|---|---:|---:|---:|---:|---:|"]
    for n in names:
        vals = [np.mean([mean(n, d, m) for d in datasets]) for m in cols]
        wins = sum(mean(n, d, "pauc@0.1") > mean("trees", d, "pauc@0.1") for d in datasets)
        losses = sum(mean(n, d, "pauc@0.1") < mean("trees", d, "pauc@0.1") for d in datasets)
        lines.append(f"| {n} | " + " | ".join(f"{v:.3f}" for v in vals) + f" | {wins}-{losses} |")
    lines += ["", "pAUC@0.1 per dataset (mean over splits):", "",
              "| dataset | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for d in datasets:
        row = [mean(n, d, "pauc@0.1") for n in names]
        best = max(row)
        lines.append(f"| {d} | " + " | ".join(f"**{v:.3f}**" if v == best else f"{v:.3f}" for v in row) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--datasets", default=None, help="comma-separated names (default: every binary dataset)")
    parser.add_argument("--models", default=None, help="comma-separated names (default: all available)")
    parser.add_argument("--max-rows", type=int, default=50_000)
    parser.add_argument("--seed-offset", type=int, default=0,
                        help="added to every model's seed (the split's number): another draw on the same splits; "
                             "use another --cache")
    parser.add_argument("--cache", default="catboost_study.json", help="per-fit results, reused when present")
    parser.add_argument("--out", default=None, help="write the Markdown table here (default: stdout)")
    args = parser.parse_args(argv)
    available = models()
    names = args.models.split(",") if args.models else list(available)
    if not set(names) <= set(available):
        parser.error(f"unknown or unavailable models {sorted(set(names) - set(available))}; "
                     f"choose from {list(available)}")
    try:                            # every dataset is there, or the study is skipped
        datasets = [d for d in (args.datasets.split(",") if args.datasets else binary_datasets())
                    if load_dataset(d) is not None]
    except DatasetUnavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return 0
    done = run(datasets, names, args.splits, args.max_rows, Path(args.cache), log=lambda s: print(s, file=sys.stderr),
               seed_offset=args.seed_offset)
    text = report(done, datasets, names, args.splits)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0 if all(math.isfinite(v["pauc@0.1"]) for v in done.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

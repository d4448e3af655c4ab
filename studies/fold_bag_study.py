"""Does averaging a candidate's cross-validation fold models with its refit rank the test part better?

The study behind AutoRanker's fold bag (``docs/auto.md``, *How it chooses*).
For every binary dataset of the folder (``$RANKCORE_DATASETS``) whose training
part has at most ``--max-train`` rows, on ``--splits`` stratified 70/30
splits (those of ``top_of_list_comparison.py``), each AutoRanker candidate
below is fitted on the 5 stratified folds of the training part and on all of
it (one thread, the candidate's own seeds), and the test part is scored by

* ``refit``: the refit alone (what AutoRanker returned before the bag);
* ``bag``: the mean of the six models' scores, each standardized by its
  scores on rows it did not see (the fold model's validation fold; the
  refit's, all the out-of-fold scores) -- AutoRanker's ``FoldBag``;
* ``seeds`` (``--seeds N``, the trees only): the mean of N refits on every
  row with other seeds (N - 1 more fits), the alternative the bag was
  compared with.

Prints the mean test pAUC@0.1 (and prec@1%, prec@5%) of each over the sets,
then pAUC@0.1 per set for the trees.  Metrics are computed independently of
rankcore (``top_of_list_comparison.judge``).  Without the folder it says so
and exits with status 0::

    RANKCORE_DATASETS=/path/to/datasets python studies/fold_bag_study.py --splits 5 --seeds 5
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`
from benchmarks._data import DatasetUnavailable, load_dataset  # noqa: E402
from studies.top_of_list_comparison import binary_datasets, judge  # noqa: E402

#: The default search's candidates that cross-validate on small data (AutoRanker's row limits aside).
CANDIDATES = ("trees", "trees:subsample=1", "exactboost", "linear", "kernel", "kernel:kernel=rbf")
METRICS = ("pauc@0.1", "prec@1%", "prec@5%")


def _standardized(scores, reference):
    from rankcore.auto._bag import standardization      # the bag's own rule

    center, scale = standardization(reference)
    return (np.asarray(scores, dtype=np.float64) - center) / scale


def study_split(X, y, tr, te, split: int, seeds: int) -> dict[str, dict[str, np.ndarray]]:
    """candidate -> {"refit", "bag"[, "seeds"]: test scores} on one split."""
    import rankcore
    from rankcore.auto._tasks import make_context
    from sklearn.model_selection import StratifiedKFold

    Xtr, ytr, Xte = X[tr], y[tr], X[te]
    folds = list(StratifiedKFold(5, shuffle=True, random_state=split).split(Xtr, ytr))
    out = {}
    for spec in CANDIDATES:
        candidate = rankcore.resolve("candidate", spec)
        if candidate.skip_reason(make_context("pauc:0.1", Xtr[folds[0][0]], ytr[folds[0][0]], 0, 1)):
            continue

        def fit(rows, seed, c=candidate):
            return c.build(make_context("pauc:0.1", Xtr[rows], ytr[rows], seed, 1)).fit(Xtr[rows], ytr[rows])

        try:
            held_out, fold_test = [], []
            for j, (a, b) in enumerate(folds):
                model = fit(a, 1000 * split + j)
                held_out.append(candidate.scores(model, Xtr[b]))
                fold_test.append(candidate.scores(model, Xte))
            every = np.arange(len(tr))
            refit = candidate.scores(fit(every, split), Xte)
        except Exception as exc:  # noqa: BLE001 - a study: note and go on
            print(f"  {spec} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        z = [_standardized(refit, np.concatenate(held_out))]
        z += [_standardized(s, h) for s, h in zip(fold_test, held_out)]
        out[spec] = {"refit": refit, "bag": np.mean(z, axis=0)}
        if seeds > 1 and spec == "trees":
            runs = [refit] + [candidate.scores(fit(every, split + 7919 * s), Xte) for s in range(1, seeds)]
            out[spec]["seeds"] = np.mean(runs, axis=0)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=0, help="also average N refits of the trees with other seeds")
    parser.add_argument("--max-train", type=int, default=3000, help="largest training part studied (default 3000)")
    parser.add_argument("--datasets", default=None, help="comma-separated names (default: every binary dataset)")
    args = parser.parse_args(argv)
    from sklearn.model_selection import StratifiedShuffleSplit

    warnings.filterwarnings("ignore")
    try:
        names = args.datasets.split(",") if args.datasets else binary_datasets()
        for name in names:
            load_dataset(name)
    except DatasetUnavailable as exc:
        print(f"skipped: {exc}")
        return 0
    table: dict[tuple[str, str], dict[str, list]] = {}
    for name in names:
        X, y, _ = load_dataset(name)
        if round(0.7 * X.shape[0]) > args.max_train:
            continue
        splits = list(StratifiedShuffleSplit(n_splits=5, test_size=0.3, random_state=0).split(X, y))[:args.splits]
        for split, (tr, te) in enumerate(splits):
            for spec, variants in study_split(X, y, tr, te, split, args.seeds).items():
                for variant, scores in variants.items():
                    got = judge(y[te], scores)
                    table.setdefault((spec, variant), {}).setdefault(name, []).append([got[m] for m in METRICS])
        print(f"{name} done", file=sys.stderr)
    print("| candidate | final model | sets | " + " | ".join(METRICS) + " |")
    print("|---|---|---:|" + "---:|" * len(METRICS))
    for (spec, variant), per_set in sorted(table.items()):
        means = np.mean([np.mean(v, axis=0) for v in per_set.values()], axis=0)
        print(f"| {spec} | {variant} | {len(per_set)} | " + " | ".join(f"{m:.4f}" for m in means) + " |")
    print("\npAUC@0.1 of the trees per set (mean over the splits):\n")
    variants = [v for s, v in sorted(table) if s == "trees"]
    print("| dataset | " + " | ".join(variants) + " |")
    print("|---|" + "---:|" * len(variants))
    for name in table.get(("trees", "refit"), {}):
        print(f"| {name} | " + " | ".join(f"{np.mean(table[('trees', v)][name], axis=0)[0]:.3f}" for v in variants)
              + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The study behind AutoRanker's recipe: which candidates, which selection rule, whether to blend.

Two steps, so that many recipes can be compared without refitting:

``collect``
    For every dataset of the folder (``$RANKCORE_DATASETS``) and each of the
    first ``--splits`` stratified 70/30 splits of
    ``benchmarks/top_of_list_comparison.py`` (the same splits), fit every
    candidate on the 5 folds of the training part (``--repeats`` times; a 20 %
    hold-out beyond 7,000 training rows) and once on the whole training part,
    and keep the out-of-fold and test scores in ``DIR/<dataset>__<split>.npz``
    (plus the test scores of the reference learners).  Existing files are kept,
    so a run can be resumed.
``simulate``
    Replay recipes on those scores with AutoRanker's own selection code
    (:func:`rankcore.auto._selection.select`): the default trees alone, the
    best cross-validated mean, the variance-aware rule, with and without the
    nested blend, with successive halving; each judged on the test parts by the
    metrics of ``top_of_list_comparison.py`` (computed without rankcore).

Usage::

    python benchmarks/auto_recipe_study.py collect --out /tmp/study --splits 3
    python benchmarks/auto_recipe_study.py simulate --out /tmp/study
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DatasetUnavailable, load_dataset  # noqa: E402
from top_of_list_comparison import METRICS, binary_datasets, judge  # noqa: E402

#: Candidate name -> AutoRanker candidate spec (the study's names are the file keys).
CANDIDATES = {
    "trees": "trees", "trees_ss1": "trees:subsample=1", "trees_l2": "trees:n_iter=200,max_leaves=2",
    "trees_slow": "trees:n_iter=300,learning_rate=0.03,max_leaves=8", "stumps": "stumps", "linear": "linear",
    "kernel_lap": "kernel", "kernel_rbf": "kernel:kernel=rbf", "exactboost": "exactboost",
}


def _references():
    import lightgbm
    from sklearn.ensemble import HistGradientBoostingClassifier

    out = {"lightgbm": lambda s: lightgbm.LGBMClassifier(verbose=-1, random_state=s),
           "sklearn-hgb": lambda s: HistGradientBoostingClassifier(random_state=s)}
    try:
        import catboost

        out["catboost"] = lambda s: catboost.CatBoostClassifier(verbose=0, random_seed=s, allow_writing_files=False)
    except ImportError:
        pass
    return out


def _fit_scores(make, Xtr, ytr, Xte, score):
    try:
        model = make()
        model.fit(Xtr, ytr)
        values = np.asarray(score(model, Xte), dtype=np.float64)
        return values if np.isfinite(values).all() else np.full(Xte.shape[0], np.nan)
    except Exception:  # noqa: BLE001 - a failure is a NaN column, as AutoRanker records it
        return np.full(Xte.shape[0], np.nan)


def collect(out: Path, splits: int, repeats: int) -> None:
    import rankcore
    from rankcore.auto._tasks import make_context
    from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedShuffleSplit

    warnings.filterwarnings("ignore")
    out.mkdir(parents=True, exist_ok=True)
    refs = _references()
    for name in binary_datasets():
        X, y, _ = load_dataset(name)
        outer = StratifiedShuffleSplit(n_splits=5, test_size=0.3, random_state=0)
        for split, (tr, te) in enumerate(outer.split(X, y)):
            path = out / f"{name}__{split}.npz"
            if split >= splits or path.exists():
                continue
            Xtr, ytr, Xte = X[tr], y[tr], X[te]
            R = repeats if len(tr) <= 7000 else 0
            folds = (list(RepeatedStratifiedKFold(n_splits=5, n_repeats=R, random_state=split).split(Xtr, ytr)) if R
                     else list(StratifiedShuffleSplit(1, test_size=0.2, random_state=split).split(Xtr, ytr)))
            fold_id = np.full((max(R, 1), len(tr)), -1)
            for j, (_, b) in enumerate(folds):
                fold_id[j // 5 if R else 0, b] = j
            record = {"y_train": ytr, "y_test": y[te], "fold_id": fold_id}
            start = time.perf_counter()
            for key, spec in CANDIDATES.items():
                candidate = rankcore.resolve("candidate", spec)
                if candidate.skip_reason(make_context("pauc:0.1", Xtr[folds[0][0]], ytr[folds[0][0]], 0, 1)):
                    continue

                def make(seed, Xf, yf, c=candidate):
                    return lambda: c.build(make_context("pauc:0.1", Xf, yf, seed, 1))

                oof = np.full(fold_id.shape, np.nan)
                for j, (a, b) in enumerate(folds):
                    oof[j // 5 if R else 0, b] = _fit_scores(make(1000 * split + j, Xtr[a], ytr[a]), Xtr[a], ytr[a],
                                                             Xtr[b], candidate.scores)
                record[f"oof__{key}"] = oof
                record[f"test__{key}"] = _fit_scores(make(split, Xtr, ytr), Xtr, ytr, Xte, candidate.scores)
            for key, make_ref in refs.items():
                record[f"test__{key}"] = _fit_scores(lambda m=make_ref: m(split), Xtr, ytr, Xte,
                                                     lambda m, Z: m.predict_proba(Z)[:, 1])
            np.savez_compressed(path, **record)
            print(f"{name} split {split}: {time.perf_counter() - start:.0f}s", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------
# Replaying recipes
# ----------------------------------------------------------------------
def _units(record, repeats):
    from rankcore.auto._folds import Units

    fid = record["fold_id"]
    rows, folds, within, groups = [], [], [], []
    if fid.max() == 0:                         # a hold-out: 5 stratified parts
        from sklearn.model_selection import StratifiedKFold

        val = np.flatnonzero(fid[0] == 0)
        for _, part in StratifiedKFold(5, shuffle=True, random_state=0).split(val, record["y_train"][val]):
            rows.append(val[np.sort(part)]), folds.append(0), within.append(np.sort(part)), groups.append(0)
        return Units(rows, folds, within, groups, 0.0), [0] * 5
    reps = []
    for r in range(min(repeats, fid.shape[0])):
        for f in np.unique(fid[r][fid[r] >= 0]):
            idx = np.flatnonzero(fid[r] == f)
            rows.append(idx), folds.append(len(folds)), within.append(np.arange(idx.size)), groups.append(r)
            reps.append(r)
    return Units(rows, folds, within, groups, 0.25), reps


def choose(record, names, *, repeats=1, blend=True, z=1.0, first=2, keep=3, argmax=False):
    """AutoRanker's choice on the recorded scores: a candidate key, or a tuple of keys (a blend)."""
    import rankcore
    from rankcore.auto._selection import select

    metric = rankcore.resolve("metric", "pauc:0.1")
    names = [n for n in names if f"oof__{n}" in record and np.isfinite(record[f"oof__{n}"][0][record["fold_id"][0] >= 0]).all()]
    units, reps = _units(record, repeats)
    y = record["y_train"]
    preds = {c: [record[f"oof__{n}"][reps[u] if reps else 0, units.rows[u]] for u in range(len(units))]
             for c, n in enumerate(names)}
    labels = [y[r] for r in units.rows]
    scores = {c: np.array([metric(labels[u], p[u]) for u in range(len(units))]) for c, p in preds.items()}
    if argmax:
        return names[max(scores, key=lambda c: scores[c].mean())]
    if len(units) > first and len(scores) > keep:            # successive halving on the first folds
        means = {c: v[:first].mean() for c, v in scores.items()}
        kept = sorted(means, key=lambda c: (-means[c], c))[:keep] + ([0] if 0 in means else [])
        scores = {c: scores[c] for c in set(kept)}
        preds = {c: preds[c] for c in scores}
    chosen = select(scores, preds, labels, units, 0, 1.0, metric, blend=blend, z=z).chosen
    return tuple(names[c] for c in chosen) if len(chosen) > 1 else names[chosen[0]]


def test_scores(record, choice, repeats=1):
    from rankcore.auto._blend import quantile_position, quantile_reference

    if isinstance(choice, str):
        return record[f"test__{choice}"]
    total = 0.0
    for key in choice:
        oof = record[f"oof__{key}"][:repeats]
        total = total + quantile_position(quantile_reference(oof[np.isfinite(oof)]), record[f"test__{key}"])
    return total / len(choice)


RECIPES = {
    "trees alone": lambda r: "trees",
    "best CV mean (all candidates)": lambda r: choose(r, list(CANDIDATES), argmax=True),
    "AutoRanker, no blend": lambda r: choose(r, ["trees", "trees_ss1", "linear", "kernel_lap", "kernel_rbf",
                                                 "exactboost"], blend=False),
    "AutoRanker (default)": lambda r: choose(r, ["trees", "trees_ss1", "linear", "kernel_lap", "kernel_rbf",
                                                 "exactboost"]),
    "AutoRanker + stumps, additive and slow trees": lambda r: choose(r, list(CANDIDATES)),
}


def simulate(out: Path) -> None:
    from scipy.stats import rankdata

    records: dict[str, list] = {}
    for path in sorted(out.glob("*__*.npz")):
        records.setdefault(path.name.split("__")[0], []).append(dict(np.load(path)))
    refs = sorted({k[6:] for recs in records.values() for k in recs[0] if k.startswith("test__")} - set(CANDIDATES))
    rows = {**{name: (lambda r, n=name: n) for name in refs}, **RECIPES}
    table = {d: {name: {m: np.mean([judge(r["y_test"], test_scores(r, fn(r)))[m] for r in recs]) for m in METRICS}
                 for name, fn in rows.items()} for d, recs in records.items()}
    print(f"{len(table)} datasets; means over datasets (average rank among the rows)\n")
    print("| recipe | " + " | ".join(METRICS) + " |\n|---|" + "---:|" * len(METRICS))
    for name in rows:
        cells = []
        for m in METRICS:
            ranks = [rankdata([-table[d][n][m] for n in rows])[list(rows).index(name)] for d in table]
            cells.append(f"{np.mean([table[d][name][m] for d in table]):.4f} ({np.mean(ranks):.2f})")
        print(f"| {name} | " + " | ".join(cells) + " |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "simulate"))
    parser.add_argument("--out", required=True, help="directory of the recorded scores")
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        if args.step == "collect":
            collect(Path(args.out), args.splits, args.repeats)
        else:
            simulate(Path(args.out))
    except DatasetUnavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

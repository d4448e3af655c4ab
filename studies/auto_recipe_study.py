"""The study behind AutoRanker's recipe: which candidates, which anchor, which selection rule, at what cost.

Two steps, so that many recipes can be compared without refitting:

``collect``
    For every dataset of the folder (``$RANKCORE_DATASETS``; ``--max-train``
    keeps those whose 70 % training part is at most that many rows) and each
    of the first ``--splits`` stratified 70/30 splits of
    ``studies/top_of_list_comparison.py`` (the same splits), fit every
    candidate of :data:`CANDIDATES` on the 5 folds of the training part
    (``--repeats`` times; a 20 % hold-out beyond 7,000 training rows) and once
    on the whole training part, on one thread, and keep the out-of-fold and
    test scores and the process CPU seconds of every fit in
    ``DIR/<dataset>__<split>.npz``, with the test scores of the reference
    learners and the CPU seconds of one ``LGBMClassifier(n_jobs=1)`` fit (the
    cost unit).  Candidates are recorded whatever AutoRanker's row limits (the
    recipes apply them).  Existing files get only the candidates they lack, so
    a run can be resumed or extended with new candidates.
``simulate``
    Replay recipes (:func:`_recipes`) on those scores with AutoRanker's own
    halving and selection code (:func:`rankcore.auto._selection.select`):
    candidate lists, anchors, blend or not, halving points, tie-breaks; each
    judged on the test parts by the metrics of ``top_of_list_comparison.py``
    (computed without rankcore), with its cost in ``LGBMClassifier()`` fits
    (the fold fits the plan runs and the refit of the choice) and its average
    rank against the references.

Usage::

    RANKCORE_DATASETS=/path/to/datasets python studies/auto_recipe_study.py collect --out /tmp/study \
        --splits 5 --max-train 3000
    python studies/auto_recipe_study.py simulate --out /tmp/study
    python studies/auto_recipe_study.py simulate --out /tmp/study --only "AutoRanker now"   # and its choices
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`
from benchmarks._data import DatasetUnavailable, load_dataset  # noqa: E402
from studies.top_of_list_comparison import METRICS, binary_datasets, judge  # noqa: E402

#: Candidate name -> AutoRanker candidate spec (the study's names are the file keys).
CANDIDATES = {
    "trees": "trees", "trees_ss1": "trees:subsample=1", "trees_l2": "trees:n_iter=200,max_leaves=2",
    "trees_slow": "trees:n_iter=300,learning_rate=0.03,max_leaves=8", "stumps": "stumps", "linear": "linear",
    "kernel_lap": "kernel", "kernel_rbf": "kernel:kernel=rbf", "exactboost": "exactboost:n_runs=50",
    # cheaper settings of the costly ones
    "exactboost20": "exactboost:n_runs=20", "exactboost10": "exactboost:n_runs=10",
    "linear10": "linear:n_epochs=10",
    # CatBoost's ideas (docs/benchmarks.md, "CatBoost's defaults, one idea at a time")
    "obl": "trees:growth=oblivious", "obl60": "trees:growth=oblivious,n_iter=60,learning_rate=0.15",
    "obl_reg": "trees:growth=oblivious,leaf_reg=12",
    "long": "trees:schedule=long", "obl_long": "trees:growth=oblivious,schedule=long",
    "obl_cb": "trees:growth=oblivious,schedule=long,leaf_reg=12",
}


def _references():
    import lightgbm
    from sklearn.ensemble import HistGradientBoostingClassifier

    out = {"lightgbm": lambda s: lightgbm.LGBMClassifier(verbose=-1, random_state=s, n_jobs=1),
           "sklearn-hgb": lambda s: HistGradientBoostingClassifier(random_state=s)}
    try:
        import catboost

        out["catboost"] = lambda s: catboost.CatBoostClassifier(verbose=0, random_seed=s, allow_writing_files=False,
                                                                thread_count=1)
    except ImportError:
        pass
    return out


def _fit_scores(make, Xtr, ytr, Xte, score):
    """(scores of Xte, process CPU seconds of the fit); a failure is a NaN column, as AutoRanker records it."""
    start = time.process_time()
    try:
        model = make()
        model.fit(Xtr, ytr)
        elapsed = time.process_time() - start
        values = np.asarray(score(model, Xte), dtype=np.float64)
        return (values if np.isfinite(values).all() else np.full(Xte.shape[0], np.nan)), elapsed
    except Exception:  # noqa: BLE001
        return np.full(Xte.shape[0], np.nan), time.process_time() - start


def _lightgbm_time(Xtr, ytr, seed, repeats=3) -> float:
    """Least process CPU seconds of ``repeats`` one-thread ``LGBMClassifier()`` fits: the cost unit."""
    import lightgbm

    times = []
    for _ in range(repeats):
        start = time.process_time()
        lightgbm.LGBMClassifier(verbose=-1, n_jobs=1, random_state=seed).fit(Xtr, ytr)
        times.append(time.process_time() - start)
    return min(times)


def collect(out: Path, splits: int, repeats: int, names=None, keys=None, max_train=None) -> None:
    """Record out-of-fold and test scores, and the CPU time of every fit (one thread), per dataset and split.

    A file that exists gets only the candidates it lacks (so new candidates
    can be added to a finished study).
    """
    import rankcore
    from rankcore.auto._tasks import make_context
    from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedShuffleSplit

    warnings.filterwarnings("ignore")
    out.mkdir(parents=True, exist_ok=True)
    refs = _references()
    keys = list(CANDIDATES) if keys is None else keys
    # split-major: a run cut short has every dataset's first splits
    for split, name in [(s, n) for s in range(splits) for n in names or binary_datasets()]:
        X, y, _ = load_dataset(name)
        if max_train is not None and round(0.7 * X.shape[0]) > max_train:
            continue
        outer = StratifiedShuffleSplit(n_splits=5, test_size=0.3, random_state=0)
        tr, te = list(outer.split(X, y))[split]
        path = out / f"{name}__{split}.npz"
        Xtr, ytr, Xte = X[tr], y[tr], X[te]
        R = repeats if len(tr) <= 7000 else 0
        folds = (list(RepeatedStratifiedKFold(n_splits=5, n_repeats=R, random_state=split).split(Xtr, ytr)) if R
                 else list(StratifiedShuffleSplit(1, test_size=0.2, random_state=split).split(Xtr, ytr)))
        fold_id = np.full((max(R, 1), len(tr)), -1)
        for j, (_, b) in enumerate(folds):
            fold_id[j // 5 if R else 0, b] = j
        record = dict(np.load(path)) if path.exists() else {"y_train": ytr, "y_test": y[te], "fold_id": fold_id}
        todo = [k for k in keys if f"time__{k}" not in record]
        if not todo and "time__lightgbm" in record:
            continue
        start = time.perf_counter()
        for key in todo:
            candidate = rankcore.resolve("candidate", CANDIDATES[key])
            # recorded whatever AutoRanker's row limits (the recipes apply them: ``cap``); missing values and
            # too many features still skip
            context = replace(make_context("pauc:0.1", Xtr[folds[0][0]], ytr[folds[0][0]], 0, 1), n_rows=1)
            if candidate.skip_reason(context):
                record[f"time__{key}"] = np.full(len(folds) + 1, np.nan)
                continue

            def make(seed, Xf, yf, c=candidate):
                return lambda: c.build(make_context("pauc:0.1", Xf, yf, seed, 1))

            oof = np.full(fold_id.shape, np.nan)
            times = []
            for j, (a, b) in enumerate(folds):
                oof[j // 5 if R else 0, b], elapsed = _fit_scores(make(1000 * split + j, Xtr[a], ytr[a]),
                                                                  Xtr[a], ytr[a], Xtr[b], candidate.scores)
                times.append(elapsed)
            record[f"oof__{key}"] = oof
            record[f"test__{key}"], elapsed = _fit_scores(make(split, Xtr, ytr), Xtr, ytr, Xte, candidate.scores)
            record[f"time__{key}"] = np.array(times + [elapsed])    # the folds' fits, then the refit
        for key, make_ref in refs.items():
            if f"test__{key}" not in record:
                record[f"test__{key}"], record[f"reftime__{key}"] = _fit_scores(
                    lambda m=make_ref: m(split), Xtr, ytr, Xte, lambda m, Z: m.predict_proba(Z)[:, 1])
        if "time__lightgbm" not in record:
            record["time__lightgbm"] = np.array(_lightgbm_time(Xtr, ytr, split))
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


def _available(record, names):
    """The names whose out-of-fold scores are complete (not skipped, not failed)."""
    fid = record["fold_id"][0] >= 0
    return [n for n in names if f"oof__{n}" in record and np.isfinite(record[f"oof__{n}"][0][fid]).all()]


def choose(record, names, *, repeats=1, blend=True, z=1.0, first=2, argmax=False, guard=None):
    """AutoRanker's choice on the recorded scores, and what it cost.

    ``names[0]`` is the anchor.  Successive halving as AutoRanker's search
    (every candidate on the first ``first`` folds, then the better half, at
    least 3, and the anchor), the variance-aware choice and the nested blend
    of :func:`rankcore.auto._selection.select`.  ``guard``, a metric spec:
    a candidate must also be no worse than the anchor in the mean of that
    metric over the folds (a tie-break protecting the very top).  Returns
    (a key or a tuple of keys, the cost in one-thread ``LGBMClassifier()``
    fits on the training part: the fits of the folds each candidate got and
    the refit of the choice).
    """
    import math

    import rankcore
    from rankcore.auto._selection import select

    metric = rankcore.resolve("metric", "pauc:0.1")
    names = _available(record, names)
    units, reps = _units(record, repeats)
    y = record["y_train"]
    preds = {c: [record[f"oof__{n}"][reps[u] if reps else 0, units.rows[u]] for u in range(len(units))]
             for c, n in enumerate(names)}
    labels = [y[r] for r in units.rows]
    scores = {c: np.array([metric(labels[u], p[u]) for u in range(len(units))]) for c, p in preds.items()}
    folds = {c: len(units) for c in scores}
    if argmax:
        best = max(scores, key=lambda c: scores[c].mean())
        return names[best], _cost(record, names, folds, (best,))
    if len(units) > first:            # successive halving on the first folds, as AutoRanker
        means = {c: v[:first].mean() for c, v in scores.items()}
        keep = max(3, math.ceil(len(means) / 2))
        kept = set(sorted(means, key=lambda c: (-means[c], c))[:keep]) | ({0} if 0 in means else set())
        folds = {c: (len(units) if c in kept else first) for c in scores}
        scores = {c: scores[c] for c in kept}
        preds = {c: preds[c] for c in kept}
    if guard is not None:             # drop who loses the guard metric to the anchor on the folds
        gm = rankcore.resolve("metric", guard)
        top = {c: np.mean([gm(labels[u], p[u]) for u in range(len(units))]) for c, p in preds.items()}
        keep_c = [c for c in scores if c == 0 or top[c] >= top[0]]
        scores = {c: scores[c] for c in keep_c}
        preds = {c: preds[c] for c in keep_c}
    chosen = select(scores, preds, labels, units, 0, 1.0, metric, blend=blend, z=z).chosen
    cost = _cost(record, names, folds, chosen)
    return (tuple(names[c] for c in chosen) if len(chosen) > 1 else names[chosen[0]]), cost


def _cost(record, names, folds, chosen):
    """One-thread LGBMClassifier() fits that the fold fits and the refit of ``chosen`` cost."""
    total = sum(float(np.sum(record[f"time__{names[c]}"][:n])) for c, n in folds.items())
    total += sum(float(record[f"time__{names[c]}"][-1]) for c in chosen)
    return total / float(record["time__lightgbm"])


def test_scores(record, choice, repeats=1):
    from rankcore.auto._blend import quantile_position, quantile_reference

    if isinstance(choice, str):
        return record[f"test__{choice}"]
    total = 0.0
    for key in choice:
        oof = record[f"oof__{key}"][:repeats]
        total = total + quantile_position(quantile_reference(oof[np.isfinite(oof)]), record[f"test__{key}"])
    return total / len(choice)


#: The default search before this study, the anchor first.
BEFORE = ["trees", "trees_ss1", "linear", "kernel_lap", "kernel_rbf", "exactboost"]


def _capped(names, cap):
    """``names`` without the kernels when a fold's training part has more than ``cap`` rows (their cost grows as
    n^3)."""
    return lambda r: [n for n in names if not (n.startswith("kernel") and 0.8 * r["y_train"].shape[0] > cap)]


def _recipes():
    """Recipe name -> record -> (choice, cost).  Each is AutoRanker's rule on a candidate list (anchor first)."""
    def auto(names, cap=None, **kw):
        pick = _capped(names, cap) if cap else (lambda r: names)
        return lambda r: choose(r, pick(r), **kw)

    cut = BEFORE[:-1] + ["exactboost10"]
    cut20 = BEFORE[:-1] + ["exactboost20"]
    rest = cut[1:]
    core = [n for n in cut if n != "trees_ss1"]
    return {
        "AutoRanker now ((a), kernels <= 600 fold rows)": auto(cut, cap=600),
        "trees alone": lambda r: ("trees", _cost(r, ["trees"], {}, (0,))),
        "obl alone": lambda r: ("obl", _cost(r, ["obl"], {}, (0,))),
        "best CV mean (before)": auto(BEFORE, argmax=True),
        "AutoRanker before, no blend": auto(BEFORE, blend=False),
        "AutoRanker before": auto(BEFORE),
        "before, exactboost n_runs=20": auto(cut20),
        "before, exactboost n_runs=10": auto(cut),
        "before, linear n_epochs=10": auto(["trees", "trees_ss1", "linear10", "kernel_lap", "kernel_rbf",
                                            "exactboost"]),
        "before, halving after 1 fold": auto(BEFORE, first=1),
        "before, no exactboost": auto(BEFORE[:-1]),
        "before, kernels <= 1500 rows": auto(BEFORE, cap=1500),
        "cut (eb10, kernels <= 1500)": auto(cut, cap=1500),
        "cut20 (eb20, kernels <= 1500)": auto(cut20, cap=1500),
        "cut, halving after 1 fold": auto(cut, cap=1500, first=1),
        "cut, no blend": auto(cut, cap=1500, blend=False),
        "cut, guard prec@1%": auto(cut, cap=1500, guard="prec@k:0.01"),
        "cut, guard prec@5%": auto(cut, cap=1500, guard="prec@k:0.05"),
        "cut, z=0.5": auto(cut, cap=1500, z=0.5),
        "cut, z=2": auto(cut, cap=1500, z=2.0),
        "cut - trees_ss1": auto([n for n in cut if n != "trees_ss1"], cap=1500),
        "cut - linear": auto([n for n in cut if n != "linear"], cap=1500),
        "cut - kernel_lap": auto([n for n in cut if n != "kernel_lap"], cap=1500),
        "cut - kernel_rbf": auto([n for n in cut if n != "kernel_rbf"], cap=1500),
        "cut + obl": auto(cut + ["obl"], cap=1500),
        "cut + obl_reg": auto(cut + ["obl_reg"], cap=1500),
        "cut + long": auto(cut + ["long"], cap=1500),
        "cut + obl_cb": auto(cut + ["obl_cb"], cap=1500),
        "cut, anchor obl (+trees)": auto(["obl"] + cut, cap=1500),
        "cut, anchor obl (trees out)": auto(["obl"] + rest, cap=1500),
        "cut, anchor obl_reg (trees out)": auto(["obl_reg"] + rest, cap=1500),
        "cut, anchor obl (trees out), guard prec@5%": auto(["obl"] + rest, cap=1500, guard="prec@k:0.05"),
        "cut, anchor long (trees out)": auto(["long"] + rest, cap=1500),
        "cut, anchor obl (trees, ss1 out)": auto(["obl"] + rest[1:], cap=1500),
        "A: cut - ss1": auto(core, cap=1500),
        "A, halving after 1 fold": auto(core, cap=1500, first=1),
        "A, guard prec@5%": auto(core, cap=1500, guard="prec@k:0.05"),
        "A, no blend": auto(core, cap=1500, blend=False),
        "B: A + obl": auto(core + ["obl"], cap=1500),
        "B, halving after 1 fold": auto(core + ["obl"], cap=1500, first=1),
        "C: A, anchor obl (+trees)": auto(["obl"] + core, cap=1500),
        "D: A, anchor obl (trees out)": auto(["obl"] + core[1:], cap=1500),
        "D, halving after 1 fold": auto(["obl"] + core[1:], cap=1500, first=1),
        "D, guard prec@5%": auto(["obl"] + core[1:], cap=1500, guard="prec@k:0.05"),
        "D, no blend": auto(["obl"] + core[1:], cap=1500, blend=False),
        "D, no linear": auto(["obl", "kernel_lap", "kernel_rbf", "exactboost10"], cap=1500),
        "E: A, anchor obl_reg (trees out)": auto(["obl_reg"] + core[1:], cap=1500),
        "D60: A, anchor obl60 (trees out)": auto(["obl60"] + core[1:], cap=1500),
        "B60: A + obl60": auto(core + ["obl60"], cap=1500),
        "D60, halving after 1 fold": auto(["obl60"] + core[1:], cap=1500, first=1),
        "D60, no blend": auto(["obl60"] + core[1:], cap=1500, blend=False),
        "D60, guard prec@5%": auto(["obl60"] + core[1:], cap=1500, guard="prec@k:0.05"),
        "D60 - exactboost": auto(["obl60"] + core[1:-1], cap=1500),
        "D60 + trees_ss1": auto(["obl60"] + cut[1:], cap=1500),
        "D60, kernels <= 1000 rows": auto(["obl60"] + core[1:], cap=1000),
        "D60, kernels <= 600 rows": auto(["obl60"] + core[1:], cap=600),
        "D60, kernels <= 400 rows": auto(["obl60"] + core[1:], cap=400),
        "D - exactboost": auto(["obl"] + core[1:-1], cap=1500),
        "D - kernel_lap": auto(["obl", "linear", "kernel_rbf", "exactboost10"], cap=1500),
        "before + obl": auto(BEFORE + ["obl"]),
        "before + obl_cb": auto(BEFORE + ["obl_cb"]),
        "anchor obl": auto(["obl"] + BEFORE),
        "anchor obl_cb": auto(["obl_cb"] + BEFORE),
    }


#: The references every recipe is ranked against (as the nested comparison's learners).
REFERENCES = ("lightgbm", "catboost", "sklearn-hgb", "trees")


def simulate(out: Path, only=None) -> None:
    """Means over datasets of each recipe's test metrics and cost, and its rank against the references."""
    from scipy.stats import rankdata

    records: dict[str, list] = {}
    for path in sorted(out.glob("*__*.npz")):
        records.setdefault(path.name.split("__")[0], []).append(dict(np.load(path)))
    refs = [k for k in REFERENCES if all(f"test__{k}" in r for recs in records.values() for r in recs)]
    recipes = _recipes()
    if only:
        recipes = {k: v for k, v in recipes.items() if any(o in k for o in only)}
    rows = {**{f"ref {name}": (lambda r, n=name: (n, math.nan)) for name in refs}, **recipes}
    table, costs, chosen = {}, {}, {}
    for d, recs in records.items():
        table[d], costs[d] = {}, {}
        for name, fn in rows.items():
            got = [fn(r) for r in recs]
            chosen.setdefault(name, {})[d] = [g[0] for g in got]
            table[d][name] = {m: np.mean([judge(r["y_test"], test_scores(r, g[0]))[m] for r, g in zip(recs, got)])
                              for m in METRICS}
            costs[d][name] = np.mean([g[1] for g in got])
    ref_rows = [f"ref {n}" for n in refs]
    print(f"{len(table)} datasets ({', '.join(table)}); means over datasets; in brackets the average rank "
          f"against {', '.join(refs)} (1 = best of {len(refs) + 1}) / the best reference's rank in that pool\n")
    print("| recipe | " + " | ".join(METRICS) + " | cost: median | max |\n|---|" + "---:|" * (len(METRICS) + 2))
    for name in rows:
        cells = []
        for m in METRICS:
            pool = ref_rows + ([name] if name not in ref_rows else [])
            ranks = np.array([rankdata([-table[d][n][m] for n in pool]) for d in table]).mean(axis=0)
            best_ref = min(ranks[i] for i, n in enumerate(pool) if n != name) if name not in ref_rows else np.nan
            cells.append(f"{np.mean([table[d][name][m] for d in table]):.4f} ({ranks[pool.index(name)]:.2f}"
                         + (f"/{best_ref:.2f})" if np.isfinite(best_ref) else ")"))
        c = np.array([costs[d][name] for d in table])
        cost = f"{np.median(c):.1f}x | {np.max(c):.1f}x" if np.isfinite(c).all() else " | "
        print(f"| {name} | " + " | ".join(cells) + f" | {cost} |")
    if only:
        for name in recipes:
            print(f"\n{name}: " + "; ".join(f"{d} {chosen[name][d]} {costs[d][name]:.0f}x" for d in table))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "simulate"))
    parser.add_argument("--out", required=True, help="directory of the recorded scores")
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--datasets", default=None, help="comma-separated names (default: every binary dataset)")
    parser.add_argument("--candidates", default=None, help="comma-separated study keys (default: all but "
                        "trees_l2, trees_slow and stumps, never chosen in the first study)")
    parser.add_argument("--max-train", type=int, default=None, help="only datasets whose training part "
                        "(70 %%) has at most this many rows")
    parser.add_argument("--only", default=None, help="simulate: recipes whose name contains one of these "
                        "(comma-separated), with their choices per dataset")
    args = parser.parse_args(argv)
    try:
        if args.step == "collect":
            keys = (args.candidates.split(",") if args.candidates else
                    [k for k in CANDIDATES if k not in ("trees_l2", "trees_slow", "stumps")])
            collect(Path(args.out), args.splits, args.repeats, args.datasets.split(",") if args.datasets else None,
                    keys, args.max_train)
        else:
            simulate(Path(args.out), args.only.split(",") if args.only else None)
    except DatasetUnavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

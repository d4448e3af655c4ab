"""Early stopping: the stumps recipe against fixed-length fits, and the large-data defaults against LightGBM.

Protocol
--------
* Datasets: every two-class dataset of ``benchmarks/_data.py``'s folder but
  ijcnn1 (``--datasets`` to choose), 5 stratified 70/30 splits
  (``StratifiedShuffleSplit(random_state=0)``), the same splits for every
  method; split s seeds the models with ``random_state=s``.  Stumps need no
  scaling: raw features.
* Methods, all ``rankcore.boost()`` (exp loss, price pow:4, stumps):

  - ``fixed (n_iter=100)``: no early stopping (the defaults below 10,000
    rows, where ``early_stopping="auto"`` is off).
  - ``old recipe``: the earlier documented recipe,
    ``n_iter=300, early_stopping=True`` with a 10 % stratified hold-out,
    patience 10, the model trained on the other 90 % -- reproduced here with
    ``eval_set`` on the split the old code drew.
  - ``recipe (auc)``: ``n_iter=300, early_stopping=True``: the hold-out
    only when 10 % holds >= 50 rows and ~10 of each class, else 5-fold
    cross-validation; patience max(10, n_iter/5); refit on all rows.
  - ``recipe (pauc:0.1)``: the same, scored by ``scoring="pauc:0.1"``.
* Reported: mean ± sd over the splits of test pAUC over FPR [0, 0.1]
  (``rankcore.evaluate``, unnormalized: at most 0.1) and of test prec@k at
  5 % of the test rows, per dataset and the mean over the datasets; and the
  mean number of iterations kept.

Large data (``--large``)
-----------------------------------------
* Datasets: those with more than 10,000 rows (where ``early_stopping="auto"``
  switches on; ijcnn1 in the shared folder), ``--splits`` stratified 70/30
  splits (``StratifiedShuffleSplit(test_size=0.3, random_state=0)``, as
  ``top_of_list_comparison.py``); split s seeds the models.
* Methods: ``rankcore.boost(learner="trees")`` as it was (100 trees of 31
  leaves at rate 0.1, ``early_stopping=False``) and with today's defaults
  (``"auto"``: a 10 % hold-out, 31 leaves at 0.2 on every row, up to 150
  trees, the best prefix kept), and the same validated on the objective's own
  loss (``scoring="objective"``); stumps before and with the defaults (up to
  300 stumps); ``LGBMClassifier()``.
* Reported: test pAUC@0.1 (normalized, so 1 is perfect) and AUC from
  ``top_of_list_comparison.judge`` (scikit-learn's ROC curve), the number of
  iterations kept, and the whole-fit time as a ratio to LightGBM's, each
  model fitted ``--repeats`` times alternately in the same process, the
  least time kept.

Run::

    python studies/early_stopping_comparison.py                 # 12 datasets, 5 splits
    python studies/early_stopping_comparison.py --datasets wdbc pima-indians-diabetes --splits 2
    python studies/early_stopping_comparison.py --large --splits 5 --repeats 3

Prints a Markdown table; exits cleanly if the datasets are not there.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`

from benchmarks._data import DatasetUnavailable, load_dataset  # noqa: E402

DATASETS = ("pima-indians-diabetes", "wdbc", "tic-tac-toe", "boston-chas", "ionosphere", "german-numeric",
            "heart-cleveland", "heart-statlog", "liver-disorders-bupa", "splice", "svmguide1", "spambase")
METRICS = ("pauc:0.1", "prec@k:0.05")


def _old_recipe(seed):
    """The pre-issue-14 recipe: a 10 % stratified split drawn as the old code drew it, patience 10."""
    from sklearn.model_selection import train_test_split

    import rankcore

    class OldRecipe:
        def fit(self, X, y):
            state = int(np.random.default_rng(seed).integers(0, 2**31 - 1))
            tr, va = train_test_split(np.arange(len(y)), test_size=0.1, stratify=y, random_state=state)
            tr, va = np.sort(tr), np.sort(va)
            self.model = rankcore.boost(n_iter=300, early_stopping=True, n_iter_no_change=10,
                                        random_state=seed).fit(X[tr], y[tr], eval_set=(X[va], y[va]))
            return self

        def decision_function(self, X):
            return self.model.decision_function(X)

        @property
        def n_iter_(self):
            return self.model.n_iter_

    return OldRecipe()


def methods():
    import rankcore

    return {
        "fixed (n_iter=100)": lambda seed: rankcore.boost(n_iter=100, early_stopping=False, random_state=seed),
        "old recipe (10 % hold-out, patience 10)": _old_recipe,
        "recipe (auc)": lambda seed: rankcore.boost(n_iter=300, early_stopping=True, random_state=seed),
        "recipe (pauc:0.1)": lambda seed: rankcore.boost(n_iter=300, early_stopping=True, scoring="pauc:0.1",
                                                         random_state=seed),
    }


def _splits(datasets, n_splits, out, **size):
    """(name, X, y, seed, train, test): ``n_splits`` stratified splits of each available dataset (``size``:
    ``train_size`` or ``test_size`` of ``StratifiedShuffleSplit``)."""
    from sklearn.model_selection import StratifiedShuffleSplit

    for name in datasets:
        try:
            X, y, _ = load_dataset(name)
        except DatasetUnavailable as exc:
            out(f"skipping {name}: {exc}")
            continue
        splitter = StratifiedShuffleSplit(n_splits=n_splits, random_state=0, **size)
        for seed, (train, test) in enumerate(splitter.split(X, y)):
            yield name, X, y, seed, train, test


def run(datasets, n_splits, out=print):
    import rankcore

    results: dict = {}
    for name, X, y, seed, train, test in _splits(datasets, n_splits, out, train_size=0.7):
        for method, make in methods().items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = make(seed).fit(X[train], y[train])
            values = rankcore.evaluate(y[test], model.decision_function(X[test]), list(METRICS))
            row = [values[m] for m in METRICS] + [model.n_iter_]
            results.setdefault((name, method), []).append(row)
        if seed == n_splits - 1:
            out(f"  {name} done")
    return results


def format_table(results) -> str:
    """One Markdown table per figure (pAUC@0.1, prec@5 %, iterations kept): datasets × methods."""
    datasets = list(dict.fromkeys(d for d, _ in results))
    names = list(dict.fromkeys(m for _, m in results))
    blocks = []
    for j, (title, fmt) in enumerate((("test pAUC@0.1", "{:.4f}"), ("test prec@5 %", "{:.3f}"),
                                      ("iterations kept", "{:.0f}"))):
        lines = [f"{title}", "", "| dataset | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        means = {m: [] for m in names}
        for d in datasets:
            cells = []
            for m in names:
                v = np.asarray(results[(d, m)], dtype=float)[:, j]
                means[m].append(v.mean())
                cells.append(f"{fmt.format(v.mean())} ± {fmt.format(v.std())}")
            lines.append(f"| {d} | " + " | ".join(cells) + " |")
        lines.append("| **mean over datasets** | " + " | ".join(f"**{fmt.format(np.mean(means[m]))}**" for m in names)
                     + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


LARGE_DATASETS = ("ijcnn1",)


def large_methods():
    """name -> factory(seed): the trees and stumps before and with the large-data defaults, and LightGBM."""
    import rankcore

    out = {
        "trees before (100 × 31 leaves, no early stopping)": lambda seed: rankcore.boost(
            learner="trees", n_iter=100, early_stopping=False, random_state=seed),
        "trees, defaults (auto)": lambda seed: rankcore.boost(learner="trees", random_state=seed),
        "trees, defaults, scoring='objective'": lambda seed: rankcore.boost(learner="trees", scoring="objective",
                                                                         random_state=seed),
        "stumps before (100, no early stopping)": lambda seed: rankcore.boost(
            n_iter=100, early_stopping=False, random_state=seed),
        "stumps, defaults (auto)": lambda seed: rankcore.boost(random_state=seed),
    }
    try:
        import lightgbm

        out["LGBMClassifier()"] = lambda seed: lightgbm.LGBMClassifier(verbose=-1)
    except ImportError:
        pass
    return out


def _ranking_scores(model, X):
    return model.decision_function(X) if hasattr(model, "n_iter_") else model.predict_proba(X)[:, 1]


def run_large(datasets, n_splits, repeats, out=print):
    """(dataset, method) -> rows of (pAUC@0.1, AUC, iterations, fit seconds, LightGBM's fit seconds)."""
    from studies.top_of_list_comparison import judge

    results: dict = {}
    for name, X, y, seed, train, test in _splits(datasets, n_splits, out, test_size=0.3):
        makers = large_methods()
        best = {m: np.inf for m in makers}
        models = {}
        for _ in range(repeats):          # alternate the methods, keep each one's least time
            for method, make in makers.items():
                model = make(seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    start = time.perf_counter()
                    model.fit(X[train], y[train])
                    best[method] = min(best[method], time.perf_counter() - start)
                models[method] = model
        reference = best.get("LGBMClassifier()", np.nan)
        for method, model in models.items():
            got = judge(y[test], _ranking_scores(model, X[test]))
            results.setdefault((name, method), []).append(
                [got["pauc@0.1"], got["auc"], getattr(model, "n_iter_", 100), best[method], reference])
        out(f"  {name} split {seed} done")
    return results


def format_large(results) -> str:
    lines = ["| dataset | method | pAUC@0.1 | AUC | iterations kept | fit time / LightGBM's |",
             "|---|---|---:|---:|---:|---:|"]
    for (name, method), rows in results.items():
        a = np.asarray(rows, dtype=float)
        ratio = a[:, 3] / a[:, 4]
        lines.append(f"| {name} | {method} | {a[:, 0].mean():.4f} ± {a[:, 0].std():.4f} | "
                     f"{a[:, 1].mean():.4f} ± {a[:, 1].std():.4f} | {a[:, 2].mean():.0f} | "
                     f"{np.nanmean(ratio):.2f}× (min {np.nanmin(ratio):.2f}, max {np.nanmax(ratio):.2f}) |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--large", action="store_true", help="the large-data defaults against LightGBM")
    parser.add_argument("--repeats", type=int, default=3, help="--large: fits per model for the least fit time")
    args = parser.parse_args(argv)
    if args.large:
        results = run_large(args.datasets or list(LARGE_DATASETS), args.splits, args.repeats,
                            out=lambda m: print(m, file=sys.stderr))
        if not results:
            print("no dataset available; set RANKCORE_DATASETS to the datasets folder")
            return 0
        print(f"mean ± sd over {args.splits} stratified 70/30 split(s); pAUC over FPR [0, 0.1] normalized "
              f"(1 is perfect); fit time: least of {args.repeats}, alternating, same process\n")
        print(format_large(results))
        return 0
    args.datasets = args.datasets or list(DATASETS)
    results = run(args.datasets, args.splits, out=lambda m: print(m, file=sys.stderr))
    if not results:
        print("no dataset available; set RANKCORE_DATASETS to the datasets folder")
        return 0
    print(f"boost() with stumps: mean ± sd over {args.splits} stratified 70/30 split(s); pAUC over FPR [0, 0.1] "
          "is unnormalized (at most 0.1)\n")
    print(format_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The trees' two shapes on large data, and AutoRanker choosing between them.

Beyond 10,000 training rows ``rankcore.boost(learner="trees")`` stops early on
a hold-out with its large-data settings: 31 leaves at learning rate 0.2 on
every row, up to 150 trees.  On clean data with interactions they match the
small-data shape (31 leaves at rate 0.1 on 80 % of the rows, up to 300
trees) in fewer trees; on noisy data they lose to it.  AutoRanker validates both (``trees`` and
``trees:n_iter=300,large_data=false,min_rows=10001``) and keeps the better
one for the data at hand.
This script measures the four fits on 70/30 stratified splits, one thread
each, scored with the metrics of ``top_of_list_comparison.py``:

* ``trees``: ``rankcore.boost(learner="trees")`` (the large-data settings);
* ``trees, small-data shape``: what AutoRanker's small-data-shape candidate
  fits, ``rankcore.boost(learner="trees:max_leaves=31,learning_rate=0.1,subsample=0.8", n_iter=300)``
  (still stopped early on a hold-out);
* ``AutoRanker()`` with its defaults;
* ``LGBMClassifier()`` when installed.

Data: named sets from the datasets folder (``RANKCORE_DATASETS``; missing
ones are skipped) and three synthetic ones built here:
``census-shaped`` (as in ``fit_time_comparison.py``), ``credit-shaped``
and ``credit-shaped-weak`` (60,000 rows × 10, 5 % missing cells, 11 % and 6 %
positives, interactions; the weak one's signal is about half as strong).

Usage::

    python studies/large_data_recipes.py                                  # ijcnn1 + synthetic
    RANKCORE_DATASETS=/path/to/folder python studies/large_data_recipes.py --datasets adult letter-vowel
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`
from benchmarks._data import DatasetUnavailable, load_dataset  # noqa: E402
from benchmarks._shapes import census_shaped  # noqa: E402
from studies.top_of_list_comparison import judge  # noqa: E402

SMALL_SHAPE = "trees:max_leaves=31,learning_rate=0.1,subsample=0.8"
METRICS = ("pauc@0.1", "prec@1%", "prec@5%", "auc")


def credit_shaped(strength: float, seed: int, n: int = 60_000):
    """Credit-scoring-like data: skewed and count columns, 5 % missing cells, interactions, 5-11 % positives."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10))
    X[:, 3] = np.round(np.abs(X[:, 3]) * 3)
    X[:, 5] = np.exp(X[:, 5])
    X[rng.random(X.shape) < 0.05] = np.nan
    Z = np.nan_to_num(X)
    signal = (1.6 * np.sin(2 * Z[:, 0]) + 1.4 * Z[:, 1] * Z[:, 2] + np.abs(Z[:, 4]) * Z[:, 6]
              + 1.2 * (Z[:, 3] > 2) + np.cos(3 * Z[:, 7]) * Z[:, 8] + 0.8 * Z[:, 9])
    logit = strength * signal - 4.0 + 0.8 * (1 - strength)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int8)
    return X, y


SYNTHETIC = {
    "census-shaped": census_shaped,
    "credit-shaped": lambda: credit_shaped(1.0, seed=1),
    "credit-shaped-weak": lambda: credit_shaped(0.5, seed=0),
}


def load(name: str):
    if name in SYNTHETIC:
        return SYNTHETIC[name]()
    X, y, _ = load_dataset(name)
    return X, y


def models():
    """name -> fit(X, y, seed) returning (scores function, note)."""
    import rankcore

    def boost(learner, **kw):
        def fit(X, y, seed):
            model = rankcore.boost(learner=learner, random_state=seed, n_jobs=1, **kw).fit(X, y)
            return model.decision_function, f"{model.n_iter_} trees"
        return fit

    def auto(X, y, seed):
        model = rankcore.AutoRanker(random_state=seed, n_jobs=1).fit(X, y)
        return model.decision_function, model.best_candidate_

    out = {"trees": boost("trees"), "trees, small-data shape": boost(SMALL_SHAPE, n_iter=300),
           "AutoRanker()": auto}
    try:
        import lightgbm

        def lgbm(X, y, seed):
            model = lightgbm.LGBMClassifier(n_jobs=1, verbose=-1, random_state=seed).fit(X, y)
            return (lambda Z: model.predict_proba(Z)[:, 1]), "100 trees"
        out["LGBMClassifier()"] = lgbm
    except ImportError:
        print("lightgbm is not installed: left out", file=sys.stderr)
    return out


def run(names, n_splits: int):
    from sklearn.model_selection import StratifiedShuffleSplit

    rows = []
    fits = models()
    for name in names:
        try:
            X, y = load(name)
        except DatasetUnavailable as exc:
            print(f"skipped: {exc}", file=sys.stderr)
            continue
        splits = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.3, random_state=0).split(X, y)
        results = {model: [] for model in fits}
        for s, (tr, te) in enumerate(splits):
            for model, fit in fits.items():
                start = time.process_time()
                scores, note = fit(X[tr], y[tr], s)
                cpu = time.process_time() - start
                results[model].append((judge(y[te], scores(X[te])), cpu, note))
                print(f"{name} split {s} {model}: pAUC@0.1 {results[model][-1][0]['pauc@0.1']:.4f} "
                      f"({note}, {cpu:.2f} s)", file=sys.stderr, flush=True)
        for model, runs in results.items():
            means = {m: float(np.mean([r[0][m] for r in runs])) for m in METRICS}
            notes = sorted({r[2] for r in runs}) if model == "AutoRanker()" else []
            rows.append((f"{name} ({X.shape[0]:,} x {X.shape[1]})", model, means,
                         float(np.mean([r[1] for r in runs])), notes))
    return rows


def table(rows) -> str:
    lines = ["| data set | model | pAUC@0.1 | prec@1% | prec@5% | AUC | CPU s per fit | chose |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for data, model, means, cpu, notes in rows:
        cells = " | ".join(f"{means[m]:.4f}" for m in METRICS)
        lines.append(f"| {data} | {model} | {cells} | {cpu:.2f} | {', '.join(notes)} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+",
                        default=["ijcnn1", "census-shaped", "credit-shaped", "credit-shaped-weak"],
                        help="datasets folder names or " + ", ".join(SYNTHETIC))
    parser.add_argument("--splits", type=int, default=3, help="70/30 stratified splits per data set")
    args = parser.parse_args(argv)
    print(table(run(args.datasets, args.splits)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

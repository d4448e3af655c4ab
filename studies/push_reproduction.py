"""Reproduction of the P-Norm Push experiments (Rudin, "Ranking with a P-Norm Push", 2006, section 5).

Five settings, p ∈ {1, 2, 4, 8, 16, 64}, exponential loss, 200 iterations of
coordinate descent (RankBoost at p = 1):

* pima-indians-diabetes, real features: 300 random training examples, the
  rest for testing; each feature min–max scaled is a weak ranker
  (``learner="features"``; the paper scales to [−1, 1], which only rescales α);
* pima-indians-diabetes, threshold features: the paper's 4 thresholds per
  feature, h = 1[x_j > t] (``learner="thresholds"`` with ``thresholds=``);
* wdbc: the first six features (columns 3–8 of the UCI file), 200 random
  test examples, the rest for training;
* tic-tac-toe: squares coded o = 0, x = 1, b = 2, 500 training examples;
* housing: label = the Charles-river column, the 13 other columns as
  features, 300 training examples.

For each setting and p it reports training and test R_max (positives ranked
above the highest negative -- the leftmost point of the ROC curve, the
paper's experimental R_max) and AUC, on one split (``--seed``, like the
paper's single split) and as means over ``--repeats`` random splits; and it
draws the leftmost portion of the training and test ROC curves (counts).

Run::

    python studies/push_reproduction.py [--out-dir out/push_reproduction] [--repeats 10]

Datasets come from ``$RANKCORE_DATASETS`` (see ``benchmarks/_data.py``); the
script exits cleanly with a message when they are not there.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`

from benchmarks._data import DatasetUnavailable, load_dataset  # noqa: E402

P_VALUES = (1, 2, 4, 8, 16, 64)

#: The paper's threshold features for pima (Rudin 2006, section 5), one list per feature.
PIMA_THRESHOLDS = [
    [2, 3, 6, 7], [100, 130, 150, 160], [60, 65, 72, 90], [1, 10, 20, 30],
    [30, 50, 80, 100], [30, 32, 35, 37], [0.1, 0.2, 0.3, 0.5], [30, 33, 36, 40],
]

# name, dataset, columns (None = all), learner, thresholds, training size (int) or test size (negative int)
SETTINGS = [
    ("pima, real features", "pima-indians-diabetes", None, "features", None, 300),
    ("pima, threshold features", "pima-indians-diabetes", None, "thresholds", PIMA_THRESHOLDS, 300),
    ("wdbc, first six features", "wdbc", list(range(6)), "features", None, -200),
    ("tic-tac-toe", "tic-tac-toe", None, "features", None, 500),
    ("housing (label: Charles river)", "boston-chas", None, "features", None, 300),
]


def split(n: int, size: int, rng: np.random.Generator):
    """Random train/test split: ``size`` training rows (or −size test rows)."""
    order = rng.permutation(n)
    n_train = size if size > 0 else n + size
    return np.sort(order[:n_train]), np.sort(order[n_train:])


def fit_setting(X, y, learner, thresholds, train, test, n_iter):
    import rankcore

    out = {}
    for p in P_VALUES:
        price = "identity" if p == 1 else f"pow:{p}"
        model = rankcore.boost(loss="exp", price=price, learner=learner, thresholds=thresholds, n_iter=n_iter,
                               n_jobs=1).fit(X[train], y[train])
        s_tr, s_te = model.decision_function(X[train]), model.decision_function(X[test])
        m_tr = rankcore.evaluate(y[train], s_tr, ["rmax", "auc"])
        m_te = rankcore.evaluate(y[test], s_te, ["rmax", "auc"])
        out[p] = {"train_rmax": int(m_tr["rmax"]), "train_auc": float(m_tr["auc"]),
                  "test_rmax": int(m_te["rmax"]), "test_auc": float(m_te["auc"]),
                  "iterations": model.n_iter_, "scores": (s_tr, s_te)}
    return out


def markdown_table(name, single, means, n_train, n_test, repeats):
    lines = [f"### {name} ({n_train} train / {n_test} test)", "",
             f"| p | train R_max | test R_max | train AUC | test AUC | mean train R_max | mean test R_max "
             f"| mean train AUC | mean test AUC |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in P_VALUES:
        a, m = single[p], means[p]
        lines.append(f"| {p} | {a['train_rmax']} | {a['test_rmax']} | {a['train_auc']:.3f} | {a['test_auc']:.3f} "
                     f"| {m['train_rmax']:.1f} | {m['test_rmax']:.1f} | {m['train_auc']:.3f} | {m['test_auc']:.3f} |")
    lines.append("")
    lines.append(f"(left: the split of --seed; right: means over {repeats} random splits)")
    return "\n".join(lines)


def plot(name, X_y, single, path, max_fp):
    from rankcore.plotting import roc_figure

    (y_tr, y_te) = X_y
    curves = {"train": {f"p={p}": (y_tr, single[p]["scores"][0]) for p in P_VALUES},
              "test": {f"p={p}": (y_te, single[p]["scores"][1]) for p in P_VALUES}}
    fig = roc_figure(curves, max_fp=max_fp, title=f"{name}: P-Norm Push, ROC in counts")
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", default="out/push_reproduction", help="tables and figures go here")
    parser.add_argument("--n-iter", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0, help="seed of the single split")
    parser.add_argument("--repeats", type=int, default=10, help="random splits averaged")
    parser.add_argument("--max-fp", type=int, default=20, help="width of the leftmost ROC portion")
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sections = [f"# P-Norm Push reproduction (Rudin 2006, section 5): exp loss, {args.n_iter} iterations", ""]
    for name, dataset, columns, learner, thresholds, size in SETTINGS:
        try:
            X, y, _ = load_dataset(dataset)
        except DatasetUnavailable as exc:
            print(f"skipping {name}: {exc}")
            continue
        if columns is not None:
            X = X[:, columns]
        start = time.perf_counter()
        train, test = split(X.shape[0], size, np.random.default_rng(args.seed))
        single = fit_setting(X, y, learner, thresholds, train, test, args.n_iter)
        runs = [fit_setting(X, y, learner, thresholds, *split(X.shape[0], size, np.random.default_rng(1000 + r)),
                            args.n_iter) for r in range(args.repeats)]
        means = {p: {k: float(np.mean([run[p][k] for run in runs]))
                     for k in ("train_rmax", "test_rmax", "train_auc", "test_auc")} for p in P_VALUES}
        table = markdown_table(name, single, means, len(train), len(test), args.repeats)
        print(table)
        print(f"({time.perf_counter() - start:.1f} s)\n")
        sections += [table, ""]
        if not args.no_plots:
            try:
                slug = dataset + ("-thresholds" if learner == "thresholds" else "")
                plot(name, (y[train], y[test]), single, out_dir / f"roc_{slug}.png", args.max_fp)
            except ImportError as exc:                     # matplotlib is optional
                print(f"no figure: {exc}")
    (out_dir / "push_reproduction.md").write_text("\n".join(sections), encoding="utf-8")
    print(f"tables written to {out_dir / 'push_reproduction.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

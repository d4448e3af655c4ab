"""Test precision@k of the precision@k learners and their baselines on real datasets.

Protocol
--------
* Datasets (from ``benchmarks/_data.py``): spambase, svmguide1, german-numeric,
  splice (random stratified 70/30 splits, as in the paper, ``--splits`` of
  them) and ijcnn1 → ijcnn1-test (the LIBSVM train/test pair; ``--splits``
  seeds of the stochastic learners).
* Features standardized on the training part.
* Three targets per dataset: k = 1 %, 5 % of the test set and k = n₊ (the
  number of test positives).  The learners are trained for each target with
  k as the matching fraction κ of every mini-batch (1 %, 5 %, or the
  training base rate for k = n₊).
* Learners: Perceptron@k-avg/max (25 passes, as in the paper), SGD@k-avg/max
  and SGD-struct (25 passes, η₀ = 1 from w = 0, no penalty, the last
  iterate: the paper's algorithms, not the estimators' defaults), batch 500; logistic
  regression (C = 1); and, when the boosting driver exists, rankcore's push
  boosting (``rankcore.PNormPush``, p = 4, 100 stumps) and the boosted avg
  surrogate (``rankcore.boost(objective="prec@k-avg:κ", learner="stumps")``).
  A learner that is not available prints "n/a".
* Reported: mean test prec@k over the splits (``rankcore.metrics.prec_at_k``:
  fractional credit at ties), ± the standard deviation when there are several.

Run::

    python studies/precision_at_k_comparison.py            # all datasets, 5 splits
    python studies/precision_at_k_comparison.py --datasets spambase --splits 2

Defaults, before and after (``--defaults``)
-------------------------------------------------------------
* Datasets: the twelve two-class datasets of the shared folder (70/30
  stratified splits, ``StratifiedShuffleSplit(random_state=0)``, the same for
  every method) and, with ``--with-ijcnn1``, ijcnn1 → ijcnn1-test.
* Methods, each as a user would run it from the docs: SGD@k and Perceptron@k
  with their earlier defaults on ``StandardScaler`` features (the docs'
  advice then), with their new defaults on the raw features (they
  standardize inside), and ``LogisticRegression()`` (default C = 1) on
  ``StandardScaler`` features.  ``k = 0.05``.
* Reported: test prec@k at 5 % of the test rows and pAUC over FPR [0, 0.1]
  (``rankcore.evaluate(y, s, ["prec@k:0.05", "pauc:0.1"])``, pAUC
  unnormalized: at most 0.1), mean ± sd over the splits, and the mean over
  the datasets.

    python studies/precision_at_k_comparison.py --defaults --splits 5 [--with-ijcnn1]

Prints Markdown tables; exits cleanly if the datasets are not there.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`

from benchmarks._data import DatasetUnavailable, load_dataset  # noqa: E402
from studies._report import mean_sd_tables, note, print_results  # noqa: E402

DATASETS = ("spambase", "svmguide1", "german-numeric", "splice", "ijcnn1")
TEST_OF = {"ijcnn1": "ijcnn1-test"}
TARGETS = ("1%", "5%", "n+")
K_FREE = ("logistic regression", "P-Norm Push (p=4, stumps)")  # learners that do not use k
N_EPOCHS = 25
BATCH = 500


def _linear_learners():
    from sklearn.linear_model import LogisticRegression

    from rankcore import PerceptronAtK, SGDAtK

    # the paper's settings (w0 = 0, last iterate; the features are standardized outside)
    paper = dict(average=False, standardize=False, batch_size=BATCH, n_epochs=N_EPOCHS)

    def perceptron(variant):
        return lambda kappa, seed: PerceptronAtK(k=kappa, variant=variant, random_state=seed, **paper)

    def sgd(surrogate):
        return lambda kappa, seed: SGDAtK(k=kappa, surrogate=surrogate, eta0=1.0, init="zero", random_state=seed,
                                          **paper)

    return {
        "Perceptron@k-avg": perceptron("avg"),
        "Perceptron@k-max": perceptron("max"),
        "SGD@k-avg": sgd("avg"),
        "SGD@k-max": sgd("max"),
        "SGD-struct": sgd("struct"),
        "logistic regression": lambda kappa, seed: LogisticRegression(C=1.0, max_iter=2000),
    }


def _boosting_learners():
    """The boosting driver's learners: P-Norm Push and the boosted avg surrogate, seeded per split."""
    import rankcore

    return {
        "P-Norm Push (p=4, stumps)": lambda kappa, seed: rankcore.PNormPush(
            p=4, learner="stumps", n_iter=100, random_state=seed),
        "boosted avg surrogate (stumps)": lambda kappa, seed: rankcore.boost(
            objective=f"prec@k-avg:{kappa:.6g}", learner="stumps", n_iter=100, random_state=seed),
    }


def _splits(name, n_splits):
    from sklearn.model_selection import StratifiedShuffleSplit

    if name in TEST_OF:
        X, y, _ = load_dataset(name)
        X_test, y_test, _ = load_dataset(TEST_OF[name])
        for seed in range(n_splits):
            yield seed, X, y, X_test, y_test
        return
    X, y, _ = load_dataset(name)
    splitter = StratifiedShuffleSplit(n_splits=n_splits, train_size=0.7, random_state=0)
    for seed, (train, test) in enumerate(splitter.split(X, y)):
        yield seed, X[train], y[train], X[test], y[test]


def _available_splits(datasets, n_splits, out):
    """``(name, splits)`` of each dataset that loads; the others are skipped with a note through ``out``."""
    for name in datasets:
        try:
            splits = list(_splits(name, n_splits))
        except DatasetUnavailable as exc:
            out(f"skipping {name}: {exc}")
            continue
        yield name, splits


def run(datasets, n_splits, out=print):
    from sklearn.preprocessing import StandardScaler

    from rankcore.metrics import prec_at_k

    learners = {**_linear_learners(), **_boosting_learners()}
    results: dict = {}
    for name, splits in _available_splits(datasets, n_splits, out):
        for seed, X_train, y_train, X_test, y_test in splits:
            scaler = StandardScaler().fit(X_train)
            X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
            n_test, n_pos_test = len(y_test), int(y_test.sum())
            base_rate = float(y_train.mean())
            fitted: dict = {}  # a learner that does not depend on k is fitted once per split
            for target in TARGETS:
                k_test = {"1%": max(1, round(0.01 * n_test)), "5%": max(1, round(0.05 * n_test)),
                          "n+": n_pos_test}[target]
                kappa = {"1%": 0.01, "5%": 0.05, "n+": base_rate}[target]
                for method, make in learners.items():
                    key = (name, target, method)
                    cache_key = (method, None if method in K_FREE else kappa)
                    if cache_key not in fitted:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            fitted[cache_key] = make(kappa, seed).fit(X_train, y_train)
                    scores = fitted[cache_key].decision_function(X_test)
                    results.setdefault(key, []).append(prec_at_k(y_test, scores, k_test))
            out(f"  {name}: split {seed} done")
    return results


def format_table(results, datasets, n_splits) -> str:
    methods = list(dict.fromkeys(key[2] for key in results))
    header = "| method | " + " | ".join(f"{d} {t}" for d in datasets for t in TARGETS
                                       if (d, t, methods[0]) in results) + " |"
    cols = [(d, t) for d in datasets for t in TARGETS if (d, t, methods[0]) in results]
    lines = [header, "|" + "---|" * (len(cols) + 1)]
    for method in methods:
        cells = []
        for d, t in cols:
            values = results.get((d, t, method))
            if not values:
                cells.append("n/a")
            elif len(values) > 1:
                cells.append(f"{np.mean(values):.3f} ± {np.std(values):.3f}")
            else:
                cells.append(f"{values[0]:.3f}")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


SHARED = ("pima-indians-diabetes", "wdbc", "tic-tac-toe", "boston-chas", "ionosphere", "german-numeric",
          "heart-cleveland", "heart-statlog", "liver-disorders-bupa", "splice", "svmguide1", "spambase")
DEFAULT_METRICS = ("prec@k:0.05", "pauc:0.1")


def _defaults_learners():
    """name -> (factory(seed), whether the learner gets StandardScaler features)."""
    from sklearn.linear_model import LogisticRegression

    from rankcore import PerceptronAtK, SGDAtK

    old = dict(average=False, standardize=False, batch_size=512, n_epochs=10)
    return {
        "SGD@k-avg, old defaults": (lambda seed: SGDAtK(k=0.05, init="zero", eta0=1.0, random_state=seed, **old), True),
        "SGD@k-avg, new defaults": (lambda seed: SGDAtK(k=0.05, random_state=seed), False),
        "Perceptron@k-avg, old defaults": (lambda seed: PerceptronAtK(k=0.05, random_state=seed, **old), True),
        "Perceptron@k-avg, new defaults": (lambda seed: PerceptronAtK(k=0.05, random_state=seed), False),
        "logistic regression": (lambda seed: LogisticRegression(max_iter=5000), True),
    }


def run_defaults(datasets, n_splits, out=print):
    from sklearn.preprocessing import StandardScaler

    import rankcore

    learners = _defaults_learners()
    results: dict = {}
    for name, splits in _available_splits(datasets, n_splits, out):
        for seed, X_train, y_train, X_test, y_test in splits:
            scaler = StandardScaler().fit(X_train)
            Z_train, Z_test = scaler.transform(X_train), scaler.transform(X_test)
            for method, (make, scaled) in learners.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = make(seed).fit(Z_train if scaled else X_train, y_train)
                scores = model.decision_function(Z_test if scaled else X_test)
                values = rankcore.evaluate(y_test, scores, list(DEFAULT_METRICS))
                results.setdefault((name, method), []).append([values[m] for m in DEFAULT_METRICS])
        out(f"  {name} done")
    return results


def format_defaults(results) -> str:
    return mean_sd_tables(results, [(f"test {metric}", "{:.4f}" if j else "{:.3f}")
                                    for j, metric in enumerate(DEFAULT_METRICS)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--defaults", action="store_true",
                        help="the before/after table of the learners' defaults against logistic regression")
    parser.add_argument("--with-ijcnn1", action="store_true", help="with --defaults: add ijcnn1 -> ijcnn1-test")
    args = parser.parse_args(argv)
    if args.defaults:
        datasets = list(args.datasets or SHARED) + (["ijcnn1"] if args.with_ijcnn1 else [])
        results = run_defaults(datasets, args.splits, out=note)
        return print_results(results, f"k = 5 %; mean ± sd over {args.splits} stratified 70/30 split(s) (ijcnn1: "
                             "seeds on its train/test pair)\n", format_defaults)
    datasets = args.datasets or list(DATASETS)
    results = run(datasets, args.splits, out=note)
    present = [d for d in datasets if any(key[0] == d for key in results)]
    return print_results(results, f"test prec@k, mean ± sd over {args.splits} split(s)/seed(s); columns: dataset "
                         "and k (1 % / 5 % of the test set, n+ = number of test positives)\n",
                         lambda results: format_table(results, present, args.splits))


if __name__ == "__main__":
    raise SystemExit(main())

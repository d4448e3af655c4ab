"""Whole-fit wall time of ``rankcore.boost(learner="trees")`` against ``LGBMClassifier()`` and ``XGBClassifier()``.

Each learner is fitted with its defaults (100 trees for all three) and the
same number of threads (``--threads``, default 2) on

* every dataset of the datasets folder (``$RANKCORE_DATASETS``, default
  ``benchmarks._data.datasets_dir()``; skipped with a note when absent),
* synthetic dense data of 10⁵ and 10⁶ rows × 50 float32 features
  (``--synthetic``; 5 % positives, an interaction),
* one-hot data: a census-shaped synthetic set (32,561 rows; 8 categorical
  columns with the UCI Adult census' level counts, one-hot encoded, and 6
  numeric columns, two of them mostly zero: 108 columns), and, when the R
  package kernlab's data and the ``rdata`` package are installed, kernlab's
  ``income`` survey (8,993 rows, 13 categorical columns one-hot encoded to 75;
  the label is an income of $50,000 or more),
* wide sparse counts: 8,190 rows × 1,500 count columns, 2 % of the entries
  nonzero (the shape of modeldata's grant applications, where AutoRanker
  found the trees slower than LightGBM), and the same shape with the
  columns' shares of nonzero entries falling as a power of their rank (as
  word counts do; most columns nonzero on fewer than 20 rows, as in the grant
  applications).  The data are built here and never written.

Timing: the learners are timed in turn within each repeat (ours, LightGBM,
XGBoost, then again), in one process, and the least of ``--repeats`` wall
times is kept -- on a shared machine other processes only ever add time.
The report gives seconds and the ratios ours / LightGBM and ours / XGBoost
(below 1: rankcore is faster).  The whole fit is timed: input validation,
binning and the boosting loop.  On a loaded machine multi-threaded wall
times say more about the scheduler than about the code (a parallel region
waits for its descheduled thread); ``--threads 1 --clock cpu`` times each
fit in CPU time on one thread, which the load barely moves.

``--setup`` times the set-up alone instead of the whole fit: rankcore's
binning and encoding of the training matrix (``Trees().prepare(X)`` then
``layout.encode(X)``: bin edges, bundles, row-major and column-major codes)
against ``lightgbm.Dataset(X, y).construct()`` (its bin mappers and binned
data), same threads, same alternation and least-of-repeats rule.

Usage::

    python studies/fit_time_comparison.py                        # shared sets + one-hot
    python studies/fit_time_comparison.py --setup --synthetic 1000000 --datasets none --no-one-hot
    python studies/fit_time_comparison.py --synthetic 100000,1000000 --repeats 3 --out fit_times.md
    python studies/fit_time_comparison.py --only-one-hot --threads 1 --clock cpu --repeats 5
    python studies/fit_time_comparison.py --datasets ijcnn1 --synthetic '' --no-one-hot --trees-n-iter 120,160
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`
from benchmarks._data import DatasetUnavailable, datasets_dir, load_dataset  # noqa: E402
from benchmarks._shapes import census_shaped, skewed_counts, sparse_counts  # noqa: E402

R_LIBRARY = Path("/usr/lib/R/site-library")


# ----------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------
def synthetic_dense(n: int, d: int = 50, seed: int = 1):
    """n × d float32 normal features, 5 % positives shifted on 10 features, one product feature."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (rng.random(n) < 0.05).astype(np.int8)
    X[y == 1, :10] += 0.3
    X[:, 10] = X[:, 0] * X[:, 1]
    return X, y


def kernlab_income():
    """kernlab's ``income`` survey, one-hot encoded (NaN rows of a column: all zeros); None if unavailable."""
    path = R_LIBRARY / "kernlab" / "data" / "income.rda"
    try:
        import pandas as pd
        import rdata
    except ImportError:
        return None
    if not path.is_file():
        return None
    frame = rdata.conversion.convert(rdata.parser.parse_file(str(path)))["income"]
    income = frame.pop("INCOME")
    y = (income.cat.codes.to_numpy() >= 6).astype(np.int8)          # levels 7-9: $50,000 or more
    X = pd.get_dummies(frame, dummy_na=False).to_numpy(dtype=np.float64)
    keep = income.notna().to_numpy()
    return np.ascontiguousarray(X[keep]), y[keep]


def datasets(args) -> list[tuple[str, np.ndarray, np.ndarray]]:
    out = []
    folder = datasets_dir()
    names = sorted(p.name[: -len(".csv.gz")] for p in folder.glob("*.csv.gz")) if folder.is_dir() else []
    if args.datasets:
        names = [n for n in names if n in args.datasets.split(",")]
    if args.only_one_hot:
        names = []
    for name in names:
        try:
            X, y, _ = load_dataset(name)
        except DatasetUnavailable:
            continue
        out.append((name, X, y))
    if not names and not args.only_one_hot:
        print(f"(no datasets at {folder}: set RANKCORE_DATASETS)", file=sys.stderr)
    if args.one_hot:
        X, y = census_shaped()
        out.append((f"census-shaped one-hot (synthetic)", X, y))
        income = kernlab_income()
        if income is not None:
            out.append(("kernlab income one-hot", *income))
        else:
            print("(kernlab income not available: needs r-cran-kernlab and `pip install rdata`)", file=sys.stderr)
        X, y = sparse_counts()
        out.append(("wide sparse counts (synthetic)", X, y))
        X, y = skewed_counts()
        out.append(("wide skewed counts (synthetic)", X, y))
    for n in [] if args.only_one_hot else [int(v) for v in args.synthetic.split(",") if v]:
        X, y = synthetic_dense(n)
        out.append((f"synthetic {n:,} x 50 float32", X, y))
    return out


# ----------------------------------------------------------------------
# Learners and timing
# ----------------------------------------------------------------------
def learners(threads: int, caps=()) -> dict:
    """name -> a fresh model: rankcore's trees (also with each of ``caps`` as ``n_iter``), LightGBM, XGBoost."""
    import rankcore

    found = {"rankcore trees": lambda: rankcore.boost(learner="trees", random_state=0, n_jobs=threads)}
    for cap in caps:
        found[f"rankcore trees, n_iter={cap}"] = (
            lambda cap=cap: rankcore.boost(learner="trees", n_iter=cap, random_state=0, n_jobs=threads))
    try:
        import lightgbm

        found["LGBMClassifier()"] = lambda: lightgbm.LGBMClassifier(n_jobs=threads, verbose=-1)
    except ImportError:
        print("(LightGBM not installed: left out)", file=sys.stderr)
    try:
        import xgboost

        found["XGBClassifier()"] = lambda: xgboost.XGBClassifier(n_jobs=threads)
    except ImportError:
        print("(XGBoost not installed: left out)", file=sys.stderr)
    return found


class _Setup:
    """A "model" whose fit is a learner's set-up only (binning and encoding), for :func:`least_fit_seconds`."""

    def __init__(self, run):
        self.run = run

    def fit(self, X, y):
        self.run(X, y)
        return self


def setups(threads: int) -> dict:
    """The set-up of each library's trees: rankcore's binning and codes, LightGBM's Dataset construction."""
    from rankcore.learners._trees import Trees

    def ours(X, y):
        layout = Trees().prepare(X, random_state=0, n_threads=threads)
        layout.encode(X)

    found = {"rankcore trees": lambda: _Setup(ours)}
    try:
        import lightgbm

        params = {"num_threads": threads, "verbose": -1}
        found["lightgbm.Dataset"] = lambda: _Setup(lambda X, y: lightgbm.Dataset(X, y, params=params).construct())
    except ImportError:
        print("(LightGBM not installed: left out)", file=sys.stderr)
    return found


def least_fit_seconds(makers: dict, X, y, repeats: int, clock=time.perf_counter) -> dict[str, float]:
    """The least time of each learner's whole fit, the learners alternating within each repeat."""
    best = {name: float("inf") for name in makers}
    for _ in range(repeats):
        for name, make in makers.items():
            model = make()
            gc.collect()
            start = clock()
            model.fit(X, y)
            best[name] = min(best[name], clock() - start)
            del model
    return best


def report(rows, names, threads: int, repeats: int, clock: str = "wall", what: str = "Whole default fit") -> str:
    ours = [n for n in names if n.startswith("rankcore trees")]
    others = [n for n in names if n not in ours]
    pairs = [(o, n) for o in ours for n in others]

    def short(name):
        return "ours" if name == "rankcore trees" else name.replace("rankcore trees, ", "")

    head = (["dataset (rows × features)"] + [f"{n} (s)" for n in names]
            + [f"{short(o)} / {n.split('(')[0]}" for o, n in pairs])
    lines = [f"{what}, {threads} thread(s) each, {clock} time, least of {repeats} alternating repeats, "
             "one process.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * (len(head) - 1)]
    for label, shape, seconds in rows:
        cells = [f"{label} ({shape[0]:,} × {shape[1]})"] + [f"{seconds[n]:.3f}" for n in names]
        cells += [f"{seconds[o] / seconds[n]:.2f}" for o, n in pairs]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time, or CPU time of the process (with --threads 1 only)")
    parser.add_argument("--datasets", default="", help="comma-separated shared dataset names (default: all)")
    parser.add_argument("--synthetic", default="100000,1000000",
                        help="comma-separated row counts of synthetic dense data ('' for none)")
    parser.add_argument("--no-one-hot", dest="one_hot", action="store_false",
                        help="leave out the one-hot and sparse data")
    parser.add_argument("--only-one-hot", action="store_true",
                        help="the one-hot and sparse data alone (no datasets folder, no synthetic dense data)")
    parser.add_argument("--setup", action="store_true",
                        help="time the set-up only (binning, codes) against lightgbm.Dataset(X, y).construct()")
    parser.add_argument("--trees-n-iter", default="",
                        help="also time the trees with these iteration caps (comma-separated, e.g. 120,160): what "
                             "the large-data cap costs")
    parser.add_argument("--out", type=Path, help="also write the Markdown table here")
    args = parser.parse_args(argv)
    if args.only_one_hot and not args.one_hot:
        parser.error("--only-one-hot and --no-one-hot leave nothing to time")
    if args.clock == "cpu" and args.threads != 1:
        parser.error("--clock cpu needs --threads 1 (CPU time adds up every thread's)")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    caps = [int(c) for c in args.trees_n_iter.split(",") if c.strip()]
    if caps and args.setup:
        parser.error("--trees-n-iter times whole fits; --setup times the set-up alone")
    makers = setups(args.threads) if args.setup else learners(args.threads, caps)
    other = "lightgbm.Dataset" if args.setup else "LGBMClassifier()"
    rows = []
    for label, X, y in datasets(args):
        seconds = least_fit_seconds(makers, X, y, args.repeats, clock)
        rows.append((label, X.shape, seconds))
        ratio = seconds["rankcore trees"] / seconds.get(other, float("nan"))
        print(f"{label:40s} " + "  ".join(f"{n} {s:.3f}s" for n, s in seconds.items()) + f"  ours/LightGBM {ratio:.2f}",
              file=sys.stderr, flush=True)
    text = report(rows, list(makers), args.threads, args.repeats, args.clock,
                  "Set-up (binning and codes)" if args.setup else "Whole default fit")
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

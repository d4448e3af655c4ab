"""Top-of-the-list comparison: rankcore's learners against the gradient-boosting defaults.

On every binary dataset of the shared folder (``$RANKCORE_DATASETS``, see
``benchmarks/_data.py``), ``--splits`` stratified 70/30 splits; each learner is
fitted on the training part with the defaults a practitioner would use and
judged on the test part by

* prec@1% and prec@5% (k = ⌈fraction · n_test⌉, ties shared in expectation),
* pAUC over FPR [0, 0.1] (the area under the ROC curve up to FPR 0.1,
  divided by 0.1, so 1 is perfect; *not* McClish-standardised),
* AUC.

The metrics are computed here from scikit-learn's ``roc_curve`` /
``roc_auc_score`` and plain NumPy, independently of rankcore's own metric
kernels, so the judge is not the defendant.  The output is a Markdown report:
per-dataset mean ± sd per learner, and the average rank of each learner per
metric (1 = best; ties share their mean rank).

Usage::

    python studies/top_of_list_comparison.py                      # everything
    python studies/top_of_list_comparison.py --splits 3 --max-rows 20000 \
        --learners rankcore-trees,lightgbm --out report.md
    # one thread per learner; raw per-split results kept, one file per run
    python studies/top_of_list_comparison.py --datasets sonar --threads 1 --json a.json
    python studies/top_of_list_comparison.py --datasets musk --threads 1 --json b.json
    python studies/top_of_list_comparison.py --merge a.json,b.json   # one report of both

Learners whose package is missing (LightGBM, XGBoost, CatBoost, FLAML,
rankcore.gbdt) are left out with a note.  ``auto`` is ``rankcore.AutoRanker()``
with its defaults (choosing by pAUC@0.1 on the training part only: the
comparison is nested); ``flaml`` is FLAML's ``AutoML`` on AUC given the time
AutoRanker took on the same split; ``catboost`` is ``CatBoostClassifier()``.
``ijcnn1-test`` is not used (it is the test half of ``ijcnn1``); data larger
than ``--max-rows`` is subsampled (stratified, seeded) before splitting, and
said so in the report.

``--threads N`` gives every learner N threads (on a shared machine, 1 keeps
the runs repeatable and the other jobs' timings intact); ``--json`` keeps the
raw per-split results of a run, and ``--merge`` reports several such runs as
one (a data set may come from one run only).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `benchmarks`, `studies`
from benchmarks._data import DatasetUnavailable, datasets_dir, load_dataset  # noqa: E402

METRICS = ("prec@1%", "prec@5%", "pauc@0.1", "auc")
SKIP_DATASETS = {"ijcnn1-test"}


# ----------------------------------------------------------------------
# Metrics, independent of rankcore
# ----------------------------------------------------------------------
def precision_at_fraction(y: np.ndarray, scores: np.ndarray, fraction: float) -> float:
    """Expected precision of the top k = ⌈fraction·n⌉ rows, ties broken uniformly at random."""
    n = y.shape[0]
    k = max(1, int(math.ceil(fraction * n)))
    order = np.argsort(-scores, kind="stable")
    kth = scores[order[k - 1]]
    above = scores > kth
    tied = scores == kth
    n_above = int(above.sum())
    pos_above = float(y[above].sum())
    pos_tied = float(y[tied].sum())
    return (pos_above + (k - n_above) * pos_tied / tied.sum()) / k


def partial_auc(y: np.ndarray, scores: np.ndarray, max_fpr: float = 0.1) -> float:
    """Area under the ROC curve for FPR in [0, max_fpr], divided by max_fpr (ties: diagonal segments)."""
    from sklearn.metrics import roc_curve

    fpr, tpr, _ = roc_curve(y, scores)
    stop = np.searchsorted(fpr, max_fpr, side="right")
    x = np.r_[fpr[:stop], max_fpr]
    t = np.r_[tpr[:stop], np.interp(max_fpr, fpr, tpr)]
    return float(np.trapezoid(t, x) / max_fpr)


def judge(y: np.ndarray, scores: np.ndarray) -> dict[str, float]:
    from sklearn.metrics import roc_auc_score

    scores = np.asarray(scores, dtype=np.float64)
    if not np.isfinite(scores).all():
        raise FloatingPointError("non-finite scores")
    return {
        "prec@1%": precision_at_fraction(y, scores, 0.01),
        "prec@5%": precision_at_fraction(y, scores, 0.05),
        "pauc@0.1": partial_auc(y, scores, 0.1),
        "auc": float(roc_auc_score(y, scores)),
    }


# ----------------------------------------------------------------------
# Learners, as a user would write them
# ----------------------------------------------------------------------
def _scores(model, X):
    if hasattr(model, "decision_function"):
        return model.decision_function(X)
    return model.predict_proba(X)[:, 1]


def _learners(threads: int | None = None) -> dict[str, Callable[[int], object] | str]:
    """name -> factory(seed), or name -> reason it is unavailable.

    ``threads``: None leaves every learner its own default (most use every
    core); an integer is passed to each as its thread count (``n_jobs``,
    CatBoost's ``thread_count``), so a run on a shared machine is repeatable
    and leaves the other cores alone.  Thread counts change no model here
    beyond the last bits of floating-point sums.
    """
    import rankcore
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    jobs = {} if threads is None else {"n_jobs": threads}
    out: dict[str, Callable[[int], object] | str] = {}
    try:
        rankcore.resolve("learner", "trees")
        out["rankcore-trees"] = lambda seed: rankcore.boost(learner="trees", random_state=seed, **jobs)
    except Exception as exc:  # noqa: BLE001 - a report, not a library
        out["rankcore-trees"] = f"unavailable ({exc})"
    out["rankcore-stumps"] = lambda seed: rankcore.boost(random_state=seed, **jobs)
    out["exactboost"] = lambda seed: rankcore.ExactBoost(random_state=seed, **jobs)
    try:
        import lightgbm

        out["lightgbm"] = lambda seed: lightgbm.LGBMClassifier(verbose=-1, **jobs)
        try:
            from rankcore.gbdt import lightgbm_objective

            out["lightgbm+push"] = lambda seed: lightgbm.LGBMClassifier(
                objective=lightgbm_objective("push:exp,pow:4", **jobs), verbose=-1, **jobs)
        except ImportError as exc:
            out["lightgbm+push"] = f"unavailable ({exc})"
    except ImportError:
        out["lightgbm"] = out["lightgbm+push"] = "unavailable (lightgbm is not installed)"
    out["sklearn-hgb"] = lambda seed: HistGradientBoostingClassifier(random_state=seed)
    try:
        import xgboost

        out["xgboost"] = lambda seed: xgboost.XGBClassifier(random_state=seed, **jobs)
    except ImportError:
        out["xgboost"] = "unavailable (xgboost is not installed)"
    out["logistic"] = lambda seed: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    out.update(_auto_learners(threads))
    return out


# ----------------------------------------------------------------------
# AutoRanker and the tools it is judged against
# ----------------------------------------------------------------------
class _SameBudget:
    """A learner given the time AutoRanker took on the same split (FLAML's ``time_budget``)."""

    needs_budget = True

    def __init__(self, make):
        self.make = make

    def __call__(self, seed, budget=None):
        return self.make(seed, budget)


def _auto_learners(threads: int | None = None) -> dict[str, Callable[[int], object] | str]:
    """AutoRanker with its defaults, CatBoost's defaults and FLAML at AutoRanker's time, when installed.

    The comparison is nested by construction: each learner (AutoRanker's and
    FLAML's selections included) sees only the training part of a split;
    the test part judges it.
    """
    import rankcore

    jobs = {} if threads is None else {"n_jobs": threads}
    out: dict[str, Callable[[int], object] | str] = {
        "auto": lambda seed: rankcore.AutoRanker(random_state=seed, **jobs)}
    try:
        import catboost

        cores = {} if threads is None else {"thread_count": threads}
        out["catboost"] = lambda seed: catboost.CatBoostClassifier(random_seed=seed, verbose=0,
                                                                   allow_writing_files=False, **cores)
    except ImportError:
        out["catboost"] = "unavailable (catboost is not installed)"
    try:
        import flaml

        out["flaml"] = _SameBudget(lambda seed, budget: _FLAML(flaml, seed, budget, threads))
    except ImportError:
        out["flaml"] = "unavailable (flaml is not installed)"
    return out


class _FLAML:
    """FLAML's ``AutoML`` on AUC with a time budget (default: 10 s when AutoRanker did not run first)."""

    def __init__(self, flaml, seed, budget, threads=None):
        self.automl = flaml.AutoML()
        self.seed, self.budget = seed, 10.0 if budget is None else max(float(budget), 1.0)
        self.jobs = {} if threads is None else {"n_jobs": threads}

    def fit(self, X, y):
        self.automl.fit(X, y, task="classification", metric="roc_auc", time_budget=self.budget, seed=self.seed,
                        verbose=0, **self.jobs)
        return self

    def predict_proba(self, X):
        return self.automl.predict_proba(X)


def _make(factory, seed, budgets):
    """An unfitted learner: FLAML gets the seconds AutoRanker took on this split."""
    if getattr(factory, "needs_budget", False):
        return factory(seed, budgets.get("auto"))
    return factory(seed)


def split_mean(values) -> float:
    """The mean of a learner's per-split values, NaN (without a warning) when it failed on every split."""
    v = np.asarray(values, dtype=np.float64)
    finite = v[np.isfinite(v)]
    return float(finite.mean()) if finite.shape[0] else math.nan


def means_table(results, learners) -> list[str]:
    """Markdown lines: each learner's mean over datasets (each the mean of its splits) per metric.

    A learner that failed on a dataset (NaN) is left out of that metric's mean and marked with its
    number of datasets.
    """
    lines = ["", "## Means over datasets", "", "| learner | " + " | ".join(METRICS) + " |",
             "|---|" + "---:|" * len(METRICS)]
    for n in learners:
        cells = []
        for m in METRICS:
            per = [split_mean(results[d][n][m]) for d in results]
            ok = [v for v in per if np.isfinite(v)]
            cell = f"{np.mean(ok):.3f}" if ok else "-"
            cells.append(cell if len(ok) == len(per) else f"{cell} ({len(ok)} sets)")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return lines


def cost_ratios(times, reference="lightgbm"):
    """dataset -> learner -> least (fit+score seconds) over the splits / the reference's least.

    The least of the repeats, not the mean: on a shared machine one split's
    timing can be off by a large factor (a first fit paying for imports and
    thread pools, other processes taking the cores).
    """
    out = {}
    for d, per_learner in times.items():
        if reference not in per_learner:
            continue
        ref = np.asarray(per_learner[reference])
        out[d] = {n: float(np.min(t) / np.min(ref)) for n, t in per_learner.items() if len(t) == len(ref)}
    return out


def cost_table(times, learners, reference="lightgbm") -> list[str]:
    """Markdown lines: each learner's fit+score time as a multiple of the reference's, per dataset."""
    ratios = cost_ratios(times, reference)
    if not ratios:
        return []
    shown = [n for n in learners if n != reference]
    lines = ["", f"## Fit + score time as a multiple of {reference}'s (least over the splits of each)", "",
             "| dataset | " + " | ".join(shown) + " |", "|---|" + "---:|" * len(shown)]
    for d, per in ratios.items():
        lines.append(f"| {d} | " + " | ".join(f"{per[n]:.1f}" if n in per else "-" for n in shown) + " |")
    return lines


# ----------------------------------------------------------------------
# The run
# ----------------------------------------------------------------------
def binary_datasets() -> list[str]:
    manifest = datasets_dir() / "MANIFEST.json"
    if not manifest.is_file():
        raise DatasetUnavailable(f"no MANIFEST.json in {datasets_dir()}")
    names = [entry["name"] for entry in json.loads(manifest.read_text())]
    return [n for n in names if n not in SKIP_DATASETS]


def _subsample(X, y, max_rows: int, seed: int):
    if X.shape[0] <= max_rows:
        return X, y, False
    from sklearn.model_selection import train_test_split

    keep, _ = train_test_split(np.arange(X.shape[0]), train_size=max_rows, stratify=y, random_state=seed)
    keep = np.sort(keep)
    return X[keep], y[keep], True


def run(datasets, learner_names, n_splits: int, max_rows: int, log=print, test_scores=None, threads=None):
    """Fit and judge every learner; ``test_scores``, a dict, also receives
    ``{dataset: {learner: [(y_test, scores), ...]}}`` (one pair per split) for
    the significance section.  ``threads``: see :func:`_learners`."""
    from sklearn.model_selection import StratifiedShuffleSplit

    factories = _learners(threads)
    unavailable = {n: factories[n] for n in learner_names if isinstance(factories.get(n), str)}
    active = [n for n in learner_names if callable(factories.get(n))]
    results: dict[str, dict[str, dict[str, list[float]]]] = {}
    times: dict[str, dict[str, list[float]]] = {}
    notes: list[str] = []
    for name in datasets:
        X, y, _ = load_dataset(name)
        X, y, cut = _subsample(X, y, max_rows, seed=0)
        if cut:
            notes.append(f"{name}: subsampled to {max_rows} rows (stratified, seed 0)")
        splitter = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.3, random_state=0)
        results[name] = {n: {m: [] for m in METRICS} for n in active}
        times[name] = {n: [] for n in active}
        for split, (tr, te) in enumerate(splitter.split(X, y)):
            budgets: dict[str, float] = {}
            for learner in active:
                model = _make(factories[learner], split, budgets)
                start = time.perf_counter()
                try:
                    model.fit(X[tr], y[tr])
                    scores = _scores(model, X[te])
                    got = judge(y[te], scores)
                except Exception as exc:  # noqa: BLE001 - record and go on
                    notes.append(f"{name} split {split}: {learner} failed: {type(exc).__name__}: {exc}")
                    got = {m: math.nan for m in METRICS}
                    scores = None
                if test_scores is not None:
                    test_scores.setdefault(name, {}).setdefault(learner, []).append((y[te], scores))
                times[name][learner].append(time.perf_counter() - start)
                budgets[learner] = times[name][learner][-1]
                for m in METRICS:
                    results[name][learner][m].append(got[m])
        log(f"{name}: " + ", ".join(
            f"{n} {split_mean(results[name][n]['pauc@0.1']):.3f}" for n in active))
    return results, times, unavailable, notes


def average_ranks(results, learners, metric):
    """Mean over datasets of each learner's rank (1 = best, ties averaged) by mean test metric."""
    from scipy.stats import rankdata

    ranks = {n: [] for n in learners}
    for per_learner in results.values():
        means = np.array([split_mean(per_learner[n][metric]) for n in learners])
        means = np.where(np.isnan(means), -np.inf, means)
        r = rankdata(-means, method="average")
        for n, value in zip(learners, r):
            ranks[n].append(value)
    return {n: float(np.mean(v)) for n, v in ranks.items()}


def head_to_head(results, learners, metric) -> dict[str, tuple[int, int, int]]:
    """The first learner against each other one, data set by data set: (wins, ties, losses) of its mean.

    A learner that failed on every split of a set (a NaN mean) loses there,
    as in :func:`average_ranks`; equal means (within 1e-12) tie.
    """
    first, out = learners[0], {}
    for other in learners[1:]:
        wins = ties = losses = 0
        for per_learner in results.values():
            a, b = (split_mean(per_learner[n][metric]) for n in (first, other))
            a, b = (-np.inf if np.isnan(v) else v for v in (a, b))
            if a == b or abs(a - b) <= 1e-12:
                ties += 1
            elif a > b:
                wins += 1
            else:
                losses += 1
        out[other] = (wins, ties, losses)
    return out


def head_to_head_section(results, learners) -> list[str]:
    """Markdown: the first learner's wins/ties/losses against each other one, and the Wilcoxon p over sets."""
    if len(learners) < 2 or len(results) < 2:
        return []
    first = learners[0]
    counts = {m: head_to_head(results, learners, m) for m in METRICS}
    wil = {m: wilcoxon_over_datasets({d: {n: per[n] for n in learners} for d, per in results.items()}, first, m)
           for m in METRICS}
    lines = ["", f"## {first} against each other learner, over the data sets", "",
             f"Per data set, {first}'s mean test metric against the other's: wins / ties / losses (a learner "
             "that failed on a set loses there); then the Wilcoxon signed-rank test over the data sets "
             "(Demšar, 2006; zero differences split; sets where either failed left out). Per-set means of "
             "a few splits: which of two close learners wins a set is often noise, so the test, not the "
             "counts, says whether a lead is real.", "",
             "| against | " + " | ".join(f"{m} W/T/L | p" for m in METRICS) + " |",
             "|---|" + "---:|---:|" * len(METRICS)]
    for other in learners[1:]:
        cells = [f"{'/'.join(map(str, counts[m][other]))} | {wil[m][other][1]:.3f}" for m in METRICS]
        lines.append(f"| {other} | " + " | ".join(cells) + " |")
    return lines


def report(results, times, unavailable, notes, n_splits) -> str:
    learners = list(next(iter(results.values())).keys()) if results else []
    lines = ["# Top of the list: rankcore against the gradient-boosting defaults", "",
             f"{len(results)} datasets, {n_splits} stratified 70/30 splits each; test metrics computed "
             "independently of rankcore (scikit-learn's ROC curve and NumPy).", "",
             "## Average rank (1 = best)", "",
             "| learner | " + " | ".join(METRICS) + " | mean fit+score time (s) |",
             "|---|" + "---:|" * (len(METRICS) + 1)]
    ranks = {m: average_ranks(results, learners, m) for m in METRICS}
    for n in learners:
        mean_time = np.mean([np.mean(times[d][n]) for d in times])
        lines.append(f"| {n} | " + " | ".join(f"{ranks[m][n]:.2f}" for m in METRICS) + f" | {mean_time:.2f} |")
    for m in METRICS:
        lines += ["", f"## {m}: mean ± sd over splits", "",
                  "| dataset | " + " | ".join(learners) + " |", "|---|" + "---:|" * len(learners)]
        for d, per_learner in results.items():
            best = max(split_mean(per_learner[n][m]) for n in learners)
            cells = []
            for n in learners:
                v = np.asarray(per_learner[n][m], dtype=np.float64)
                finite = v[np.isfinite(v)]
                if not finite.shape[0]:
                    cells.append("failed")
                    continue
                cell = f"{finite.mean():.3f} ± {finite.std():.3f}"
                cells.append(f"**{cell}**" if float(finite.mean()) == best else cell)
            lines.append(f"| {d} | " + " | ".join(cells) + " |")
    lines += means_table(results, learners)
    lines += head_to_head_section(results, learners)
    lines += cost_table(times, learners)
    if unavailable or notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {n}: {why}" for n, why in unavailable.items()]
        lines += [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------
# Significance against a reference learner (paired, on the test rows)
# ----------------------------------------------------------------------
def _specs(n_test: int) -> dict[str, tuple[str, float]]:
    """Each judged metric as a rankcore spec and the factor of the table's scale (pAUC is divided by 0.1)."""
    return {"prec@1%": (f"prec@k:{max(1, math.ceil(0.01 * n_test))}", 1.0),
            "prec@5%": (f"prec@k:{max(1, math.ceil(0.05 * n_test))}", 1.0),
            "pauc@0.1": ("pauc:0.1", 10.0), "auc": ("auc", 1.0)}


def paired_differences(test_scores, reference: str = "lightgbm", n_boot: int = 2000, level: float = 0.95,
                       seed: int = 0) -> dict:
    """Each learner's difference from ``reference``, per dataset and metric, with a paired bootstrap test.

    The statistic is the table's: the mean over splits of the metric's
    difference on each split's test rows.  A replicate resamples every
    split's test rows (multinomial counts, each class on its own) and
    evaluates both learners on the *same* resampled rows -- rankcore's
    paired bootstrap (``rankcore.metrics.compare``), whose agreement with
    pROC is tested -- then averages over the splits.  The interval is the
    replicates' percentile interval; the p-value is two-sided, from
    z = difference / sd(replicates) (as pROC's ``roc.test``).  Caveat: the
    splits' test sets overlap (repeated random splits), which the replicates
    treat as independent, so the test leans liberal; the Wilcoxon test over
    datasets (:func:`wilcoxon_over_datasets`) is the claim to rely on.

    Returns
    -------
    dict
        ``{dataset: {learner: {metric: (difference, lower, upper, p)}}}``;
        ``None`` where a learner failed on a split.
    """
    from scipy.stats import norm

    import rankcore
    from rankcore.metrics._resampling import paired_replicate_values

    out: dict = {}
    for d, (dataset, per_learner) in enumerate(test_scores.items()):
        if reference not in per_learner:
            continue
        out[dataset] = {}
        for learner, splits in per_learner.items():
            if learner == reference:
                continue
            pairs = list(zip(splits, per_learner[reference]))
            if any(a[1] is None or b[1] is None for a, b in pairs):
                out[dataset][learner] = {m: None for m in METRICS}
                continue
            cells = {}
            for m in METRICS:
                diffs, reps = [], []
                for split, ((y, ours), (_, theirs)) in enumerate(pairs):
                    spec, scale = _specs(y.shape[0])[m]
                    metric = rankcore.resolve("metric", spec)
                    values, _ = paired_replicate_values(metric, y.astype(np.int8), [np.asarray(ours, float),
                                                        np.asarray(theirs, float)], seed + 1000 * d + split,
                                                        n_boot, stratified=True, n_threads=2)
                    reps.append(scale * (values[:, 0] - values[:, 1]))
                    diffs.append(scale * (metric(y, ours) - metric(y, theirs)))
                rep = np.mean(reps, axis=0)
                diff = float(np.mean(diffs))
                lower, upper = np.quantile(rep, [(1 - level) / 2, (1 + level) / 2])
                sd = float(np.std(rep, ddof=1))
                p = 2 * norm.sf(abs(diff) / sd) if sd > 0 else (1.0 if diff == 0 else 0.0)
                cells[m] = (diff, float(lower), float(upper), float(p))
            out[dataset][learner] = cells
    return out


def wilcoxon_over_datasets(results, reference: str, metric: str) -> dict[str, tuple[int, float]]:
    """Wilcoxon signed-rank test of each learner against ``reference`` over datasets (Demšar, 2006).

    One paired observation per dataset: the learner's mean test metric and the
    reference's.  Zero differences are kept and their ranks split between the
    two sides (``zero_method="zsplit"``), as Demšar recommends.  Returns
    ``{learner: (datasets used, two-sided p)}``.
    """
    from scipy.stats import wilcoxon

    out = {}
    learners = {n for per in results.values() for n in per} - {reference}
    for learner in sorted(learners):
        a, b = [], []
        for per in results.values():
            if learner in per and reference in per:
                x, y = split_mean(per[learner][metric]), split_mean(per[reference][metric])
                if np.isfinite(x) and np.isfinite(y):
                    a.append(x)
                    b.append(y)
        if len(a) < 2 or np.allclose(a, b):
            out[learner] = (len(a), 1.0)
        else:
            out[learner] = (len(a), float(wilcoxon(a, b, zero_method="zsplit").pvalue))
    return out


def significance_section(results, test_scores, reference: str = "lightgbm", n_boot: int = 2000,
                         level: float = 0.95) -> str:
    """Markdown: wins/ties/losses against ``reference`` by the paired test, and the Wilcoxon test over datasets."""
    if not test_scores or not any(reference in per for per in test_scores.values()):
        return ""
    diffs = paired_differences(test_scores, reference, n_boot=n_boot, level=level)
    alpha = 1 - level
    learners = [n for n in next(iter(test_scores.values())) if n != reference]
    lines = ["", f"## Significance against {reference}", "",
             f"Per dataset, each learner's difference from {reference} (mean over splits of the test metric) is "
             f"tested by a paired stratified bootstrap of the test rows ({n_boot} replicates; both learners on "
             f"the same resampled rows): a **win** or **loss** when the two-sided p < {alpha:g}, a **tie** "
             "otherwise. Over datasets, the Wilcoxon signed-rank test on the per-dataset means (Demšar, 2006, "
             "\"Statistical comparisons of classifiers over multiple data sets\"; zero differences split). "
             "The splits' test sets overlap, so the per-dataset test leans liberal.", "",
             "| learner | " + " | ".join(f"{m} W/T/L" for m in METRICS) + " | "
             + " | ".join(f"{m} Wilcoxon p" for m in METRICS) + " |",
             "|---|" + "---:|" * (2 * len(METRICS))]
    wil = {m: wilcoxon_over_datasets(results, reference, m) for m in METRICS}
    for learner in learners:
        counts = []
        for m in METRICS:
            w = t = lo = 0
            for per in diffs.values():
                cell = per.get(learner, {}).get(m)
                if cell is None:
                    continue
                diff, _, _, p = cell
                if p < alpha:
                    w, lo = w + (diff > 0), lo + (diff < 0)
                else:
                    t += 1
            counts.append(f"{w}/{t}/{lo}")
        pvals = [f"{wil[m].get(learner, (0, math.nan))[1]:.3f}" for m in METRICS]
        lines.append(f"| {learner} | " + " | ".join(counts) + " | " + " | ".join(pvals) + " |")
    lines += ["", f"pAUC@0.1 per dataset: difference from {reference}, {100 * level:g}% interval, p "
              "(bold: p < " + f"{alpha:g})", "",
              "| dataset | " + " | ".join(learners) + " |", "|---|" + "---:|" * len(learners)]
    for dataset, per in diffs.items():
        cells = []
        for learner in learners:
            cell = per.get(learner, {}).get("pauc@0.1")
            if cell is None:
                cells.append("failed")
                continue
            diff, lower, upper, p = cell
            text = f"{diff:+.3f} [{lower:+.3f}, {upper:+.3f}] p={p:.2f}"
            cells.append(f"**{text}**" if p < alpha else text)
        lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def merge_raw(paths) -> tuple[dict, dict, list[str], int]:
    """Results, times, notes and splits of several ``--json`` files, as one run's.

    Each data set must come from one file only (a set run twice is refused,
    not averaged), and every file must hold the same learners.
    """
    results: dict = {}
    times: dict = {}
    notes: list[str] = []
    splits = set()
    learners = None
    for path in paths:
        raw = json.loads(Path(path).read_text())
        for name, per_learner in raw["results"].items():
            if name in results:
                raise ValueError(f"--merge: data set {name!r} is in more than one file")
            if learners is None:
                learners = list(per_learner)
            elif list(per_learner) != learners:
                raise ValueError(f"--merge: {path} has learners {list(per_learner)}, expected {learners}")
            results[name] = per_learner
            times[name] = raw["times"][name]
        notes += [f"{Path(path).name}: {note}" for note in raw.get("notes", [])]
        splits.add(raw["splits"])
    if len(splits) != 1:
        raise ValueError(f"--merge: the files have different numbers of splits {sorted(splits)}")
    return results, times, notes, splits.pop()


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--datasets", default=None, help="comma-separated names (default: every binary dataset)")
    parser.add_argument("--learners", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--max-rows", type=int, default=50_000)
    parser.add_argument("--out", default=None, help="write the Markdown report here (default: stdout)")
    parser.add_argument("--json", default=None, help="also write the raw per-split results and times here")
    parser.add_argument("--merge", default=None,
                        help="comma-separated --json files of earlier runs: report them as one run (no fitting, "
                             "no significance section)")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads of every learner (n_jobs, CatBoost's thread_count; OpenMP and BLAS pools "
                             "limited too); default: each learner's own default")
    parser.add_argument("--reference", default="lightgbm",
                        help="the learner every other is tested against (default lightgbm; 'none' skips the section)")
    parser.add_argument("--n-boot", type=int, default=2000, help="replicates of the paired bootstrap (default 2000)")
    parser.add_argument("--significance-only", action="store_true",
                        help="print only the significance section (the other tables are unchanged by it)")
    return parser, parser.parse_args(argv)


def _write(text: str, out) -> None:
    if out:
        Path(out).write_text(text)
    else:
        print(text)


def main(argv=None) -> int:
    parser, args = _parse_args(argv)
    if args.merge:
        results, times, notes, splits = merge_raw(args.merge.split(","))
        _write(report(results, times, {}, notes, splits), args.out)
        return 0
    try:
        datasets = args.datasets.split(",") if args.datasets else binary_datasets()
        for d in datasets:
            load_dataset(d)
    except DatasetUnavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return 0
    all_learners = list(_learners())
    learners = args.learners.split(",") if args.learners else all_learners
    bad = [n for n in learners if n not in all_learners]
    if bad:
        parser.error(f"unknown learners {bad}; choose from {all_learners}")
    test_scores: dict = {}
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=args.threads):  # scikit-learn's OpenMP pool and BLAS; None: no limit
        results, times, unavailable, notes = run(datasets, learners, args.splits, args.max_rows,
                                                 log=lambda s: print(s, file=sys.stderr), test_scores=test_scores,
                                                 threads=args.threads)
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "times": times, "notes": notes,
                                               "unavailable": unavailable, "splits": args.splits,
                                               "threads": args.threads}))
    section = "" if args.reference == "none" else significance_section(results, test_scores, args.reference,
                                                                        n_boot=args.n_boot)
    text = section if args.significance_only else report(results, times, unavailable, notes, args.splits) + section
    _write(text, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

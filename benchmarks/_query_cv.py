"""Query-level cross-validation of per-query rankers, and the tables that judge them.

:func:`cross_validate` fits every model on the same folds of whole queries
(``rankcore.QueryKFold(shuffle=True)``, one split per seed), in an order that
rotates from fold to fold so that the load of a shared machine falls on every
model alike, and keeps each row's out-of-fold score and each fit's seconds.
Each query is scored by one model fitted without it, so the out-of-fold scores
of all folds, pooled, give one value per query (:func:`summary_table`,
:func:`paired_table`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

import rankcore
from rankcore import QueryKFold
from rankcore.metrics import compare

METRICS = ["ndcg@k:1", "ndcg@k:5", "ndcg@k:10", "map", "mrr"]
PAIRED_METRICS = ["ndcg@k:1", "ndcg@k:5", "ndcg@k:10"]
REFERENCE = "LGBMRanker()"


@dataclass
class CVResult:
    """Out-of-fold scores ``scores[seed][model]`` (one per row) and fit seconds ``seconds[seed][model]``.

    The seconds are the process's CPU time (``time.process_time``) over the
    folds' fits: on a machine other processes share, CPU time moves far less
    than wall time, and a library that used more threads than it was given
    would show it.
    """

    y: np.ndarray
    qid: np.ndarray
    scores: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)


def cross_validate(models, X, y, qid, *, n_splits=5, seeds=(0,), threads=1, log=None) -> CVResult:
    """Fit each of ``models`` (name -> ``fit(X, y, qid, threads) -> predict``) on the same query folds.

    ``X`` is dense.  Training rows reach every fit grouped by query in an
    order that depends on their values only (:func:`_canonical_order`), so
    shuffling the rows of the data changes no model.
    """
    result = CVResult(np.asarray(y, dtype=np.float64), np.asarray(qid))
    names = list(models)
    for seed in seeds:
        scores = {name: np.full(result.y.shape[0], np.nan) for name in names}
        seconds = dict.fromkeys(names, 0.0)
        splitter = QueryKFold(n_splits, shuffle=True, random_state=seed)
        for fold, (train, test) in enumerate(splitter.split(X, qid=result.qid)):
            train = train[_canonical_order(X[train], result.y[train], result.qid[train])]
            for name in names[fold % len(names):] + names[:fold % len(names)]:
                start = time.process_time()
                predict = models[name](X[train], result.y[train], result.qid[train], threads)
                seconds[name] += time.process_time() - start
                scores[name][test] = predict(X[test])
                if log:
                    log(f"seed {seed} fold {fold} {name}: {seconds[name]:.2f} s so far")
        result.scores[seed] = scores
        result.seconds[seed] = seconds
    return result


def _canonical_order(X, y, qid):
    """The rows grouped by query, and inside a query sorted by grade, then by feature values.

    The order depends only on the rows' values, never on where they sit in
    the data: rankers that start from tied scores (LightGBM's lambdarank
    sorts the tie in row order) then fit the same model on shuffled data.
    """
    keys = [X[:, j] for j in range(X.shape[1] - 1, -1, -1)] + [y, qid]
    return np.lexsort(keys)


def _interval(y, s, qid, metric):
    ci = rankcore.evaluate(y, s, [metric], qid=qid, ci=0.95, random_state=0)[metric]
    return ci.estimate, ci.lower, ci.upper


def summary_table(result: CVResult, seed) -> str:
    """Markdown: each model's mean NDCG@1/5/10, MAP, MRR over the queries (95 % bootstrap interval)."""
    scores = result.scores[seed]
    head = "| model | " + " | ".join(METRICS) + " | fit CPU s | × LGBMRanker |"
    lines = [head, "|---" * (len(METRICS) + 3) + "|"]
    reference_time = result.seconds[seed].get(REFERENCE, np.nan)
    for name, s in scores.items():
        cells = []
        for metric in METRICS:
            mean, lower, upper = _interval(result.y, s, result.qid, metric)
            cells.append(f"{mean:.4f} [{lower:.3f}, {upper:.3f}]")
        t = result.seconds[seed][name]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {t:.2f} | {t / reference_time:.2f} |")
    return "\n".join(lines)


def paired_table(result: CVResult, seed) -> str:
    """Markdown: each model minus ``LGBMRanker()``, paired over queries (difference, 95 % interval, p)."""
    scores = result.scores[seed]
    reference = scores[REFERENCE]
    lines = ["| model − LGBMRanker() | " + " | ".join(PAIRED_METRICS) + " |",
             "|---" * (len(PAIRED_METRICS) + 1) + "|"]
    for name, s in scores.items():
        if name == REFERENCE:
            continue
        cells = []
        for metric in PAIRED_METRICS:
            c = compare(result.y, s, reference, metric, qid=result.qid, random_state=0)
            cells.append(f"{c.difference:+.4f} [{c.lower:+.3f}, {c.upper:+.3f}] p={c.p_value:.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def seeds_table(result: CVResult) -> str:
    """Markdown: mean NDCG@10 of each model for each seed's split and over the seeds."""
    seeds = list(result.scores)
    lines = ["| model | " + " | ".join(f"seed {s}" for s in seeds) + " | mean | fit × LGBMRanker |",
             "|---" * (len(seeds) + 3) + "|"]
    for name in result.scores[seeds[0]]:
        values = [rankcore.evaluate(result.y, result.scores[s][name], ["ndcg@k:10"], qid=result.qid)["ndcg@k:10"]
                  for s in seeds]
        reference_time = sum(result.seconds[s].get(REFERENCE, np.nan) for s in seeds)
        ratio = sum(result.seconds[s][name] for s in seeds) / reference_time
        lines.append(f"| {name} | " + " | ".join(f"{v:.4f}" for v in values)
                     + f" | {np.mean(values):.4f} | {ratio:.2f} |")
    return "\n".join(lines)

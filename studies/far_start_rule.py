"""The default per-query fit from initial scores not all 0: its Newton steps against a line search, and the rules.

``python studies/far_start_rule.py`` fits the per-query default (``rankcore.boost(learner="trees")``, objective
None: the exponential push with the QueryRMSE blend) from initial scores of several kinds and scales, once with the
default's Newton steps and once with ``trees:line_search=true``, and records for each start the statistics a rule
could read at the start of a fit:

* ``spread``: the median over queries of the within-query standard deviation of the initial scores;
* ``gap``: the largest within-query range (max − min) of the initial scores over the queries;
* ``curv``: the objective's mean curvature (the bound problem's Hessian diagonal) at the initial scores over its
  mean curvature at 0;
* ``conc``: the number of rows that carry that curvature, (Σh)²/Σh², at the initial scores over the same at 0;
* ``push``: the push's value (the QueryRMSE term left out) at the initial scores over its value at 0;
* ``agree``: the share of the training pairs of different grades within queries that the initial scores order.

Kinds of start (``--kinds``): ``noise`` (scale · a feature unrelated to the grades, the earlier probe's),
``informative`` (scale · the feature the grades follow, a standard normal, or a ridge regression's standardized
scores on the LightGBM set), ``continued`` (scale · the scores of a default fit of 50 trees from 0 on the same
training rows: scale 1 continues that fit), and on the LightGBM set ``lgbm`` (scale · an ``LGBMRanker()``'s raw
scores).  Data (``--data``): ``simulated`` (far_start_probe's queries, seed s, new queries of seed s + 1000) or
``lightgbm`` (LightGBM's LTR example in ``$RANKCORE_DATASETS/lightgbm-lambdarank``, both files pooled, fold s of a
5-fold query-level split).  It prints one Markdown row per kind and scale (means over ``--seeds``: NDCG@10 of the
held-out queries scored from their own initial scores, Newton and searched, the paired difference and how many seeds
the search won, the statistics), then the mean NDCG@10 each rule of :func:`rules` reaches over every run, and writes
every run to ``--out`` (JSON lines).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from far_start_probe import simulated  # noqa: E402

SCALES = [0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0]
STATISTICS = ("spread", "gap", "curv", "conc", "push", "agree")
STEPS = (("trees", "newton"), ("trees:line_search=true", "searched"))


def lightgbm_fold(fold: int, n_folds: int = 5):
    """(X, y, qid) of the training and held-out queries of ``fold`` of LightGBM's LTR example, both files pooled."""
    from _queries import load_lambdarank      # benchmarks/: the data set's folder from RANKCORE_DATASETS

    X, y, qid = load_lambdarank()
    X = X.toarray()
    held = np.random.default_rng(0).permutation(qid.max() + 1) % n_folds == fold
    test = held[qid]
    return (X[~test], y[~test], qid[~test]), (X[test], y[test], qid[test])


def data(source: str, seed: int):
    if source == "simulated":
        return simulated(seed), simulated(seed + 1000)
    return lightgbm_fold(seed)


def base_scores(kind: str, train, test, seed: int):
    """The initial scores of scale 1 of ``kind`` on the training and held-out rows."""
    (X, y, qid), (X_t, _, _) = train, test
    if kind == "noise":
        if X.shape[1] == 5:
            return X[:, 1], X_t[:, 1]
        rng = np.random.default_rng(seed + 77)
        return rng.normal(size=X.shape[0]), rng.normal(size=X_t.shape[0])
    if kind == "informative":
        if X.shape[1] == 5:
            return X[:, 0], X_t[:, 0]
        from sklearn.linear_model import Ridge
        ridge = Ridge(alpha=1.0).fit(X, y)
        a, b = ridge.predict(X), ridge.predict(X_t)
        return (a - a.mean()) / a.std(), (b - a.mean()) / a.std()
    if kind == "lgbm":
        from lightgbm import LGBMRanker
        ranker = LGBMRanker(random_state=seed, verbose=-1, n_jobs=1).fit(X, y, group=np.bincount(qid)[np.unique(qid)])
        return ranker.predict(X, raw_score=True), ranker.predict(X_t, raw_score=True)
    if kind == "continued":
        import rankcore
        model = rankcore.boost(learner="trees", n_iter=50, random_state=seed, n_jobs=1).fit(X, y, qid=qid)
        return model.decision_function(X), model.decision_function(X_t)
    raise ValueError(f"kind must be noise, informative, lgbm or continued, got {kind!r}")


def statistics(init, y, qid, objective_spec: str) -> dict:
    """The spread, the largest within-query range and the mean-curvature ratio of the start ``init``."""
    from rankcore.metrics._queries import check_qid
    from rankcore.registry import resolve

    order = np.argsort(qid, kind="stable")
    sizes = np.bincount(qid)[np.unique(qid)]
    groups = np.split(init[order], np.cumsum(sizes)[:-1])
    spread = float(np.median([g.std() for g in groups]))
    gap = float(max(g.max() - g.min() for g in groups))
    problem = resolve("objective", objective_spec).bind(y, queries=check_qid(qid, y.shape[0]))
    h_init = problem.value_gradient_hessian(np.asarray(init, dtype=float))[2]
    h_zero = problem.value_gradient_hessian(np.zeros(y.shape[0]))[2]
    # the push's curvature is a softmax within each query (its mean hardly moves): how many rows carry it does
    def rows(h):
        return np.sum(h) ** 2 / np.sum(h * h)
    zero = np.zeros(y.shape[0])
    push = getattr(problem, "push", problem)       # the push without the QueryRMSE term
    return {"spread": spread, "gap": gap, "curv": float(np.mean(h_init) / np.mean(h_zero)),
            "conc": float(rows(h_init) / rows(h_zero)),
            "push": float(push.value(np.asarray(init, dtype=float)) / push.value(zero)),
            "agree": agreement(init, y, qid)}


def agreement(init, y, qid) -> float:
    """The share of the pairs of different grades within queries that ``init`` orders as the grades (ties ½)."""
    right = total = 0.0
    for q in np.unique(qid):
        s, g = init[qid == q], y[qid == q]
        above = g[:, None] > g[None, :]
        right += np.sum(above & (s[:, None] > s[None, :])) + 0.5 * np.sum(above & (s[:, None] == s[None, :]))
        total += np.sum(above)
    return float(right / total)


def one_start(source: str, kind: str, scale: float, seed: int, n_iter: int, base) -> dict:
    """The two fits from ``scale`` · ``base`` and the start's statistics."""
    import rankcore

    train, test = data(source, seed)
    (X, y, qid), (X_t, y_t, qid_t) = train, test
    init, init_t = scale * base[0], scale * base[1]
    record = {"data": source, "kind": kind, "scale": scale, "seed": seed}
    for learner, steps in STEPS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = rankcore.boost(learner=learner, n_iter=n_iter, random_state=seed, n_jobs=1).fit(
                X, y, qid=qid, init_score=init)
        record[steps] = float(model.score(X_t, y_t, qid=qid_t, init_score=init_t))
        record[f"{steps}_correction"] = float(np.abs(model.decision_function(X)).max())
    record.update(statistics(init, y, qid, model.objective_spec_))
    return record


def rules(records: list[dict]) -> list[tuple[str, float, int, int]]:
    """For each rule (statistic > threshold searches), the mean NDCG@10 it reaches over ``records`` and its wins."""
    out = []
    candidates = [("spread", t) for t in (0.5, 1, 1.5, 2, 3, 5)] + [("gap", t) for t in (2, 5, 10, 20, 40)] \
        + [("curv", t) for t in (1.5, 2, 5, 10, 100)] + [("conc", t) for t in (-0.9, -0.7, -0.5, -0.3, -0.1)] \
        + [("push", t) for t in (1.5, 2, 3, 5, 10)] + [("far and unordered", t) for t in (0.55, 0.6, 0.7, 0.8)]
    for name, threshold in [("never", 0.0), ("always", 0.0)] + candidates:
        chosen = []
        for r in records:
            # conc: the share of rows carrying the curvature, searched when it falls below −threshold
            # far and unordered: a spread above 1 and fewer than ``threshold`` of the graded pairs in order
            if name == "far and unordered":
                search = r["spread"] > 1 and r["agree"] < threshold
            else:
                value = -r[name] if name == "conc" else r.get(name, 0.0)
                search = name == "always" or (name not in ("never", "always") and value > threshold)
            chosen.append(r["searched"] if search and r["scale"] else r["newton"])
        best = np.maximum([r["newton"] for r in records], [r["searched"] for r in records])
        out.append((name, threshold, float(np.mean(chosen)), int(np.sum(np.isclose(chosen, best)))))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=["simulated", "lightgbm"], default="simulated")
    parser.add_argument("--kinds", nargs="+", default=["noise", "informative", "continued"])
    parser.add_argument("--scales", nargs="+", type=float, default=SCALES)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--n-iter", type=int, default=50)
    parser.add_argument("--out", default=None, help="JSON lines of every run")
    args = parser.parse_args(argv)
    print("| kind | scale | Newton | searched | searched − Newton | search won | " + " | ".join(STATISTICS) + " |")
    print("|---" * (6 + len(STATISTICS)) + "|")
    records = []
    for kind in args.kinds:
        bases = {seed: base_scores(kind, *data(args.data, seed), seed) for seed in args.seeds}
        for scale in args.scales:
            runs = [one_start(args.data, kind, scale, seed, args.n_iter, bases[seed]) for seed in args.seeds]
            records += runs
            diff = [r["searched"] - r["newton"] for r in runs]
            mean = {k: float(np.mean([r[k] for r in runs])) for k in ("newton", "searched") + STATISTICS}
            print(f"| {kind} | {scale:g} | {mean['newton']:.4f} | {mean['searched']:.4f} | {np.mean(diff):+.4f} | "
                  f"{sum(d > 0 for d in diff)}/{len(diff)} | " + " | ".join(f"{mean[k]:.3g}" for k in STATISTICS)
                  + " |", flush=True)
            if args.out:
                with open(args.out, "a") as handle:
                    handle.writelines(json.dumps(r) + "\n" for r in runs)
    print("\n| rule: search when | mean NDCG@10 | runs at the better of the two |\n|---|---|---|")
    for name, threshold, mean, wins in rules(records):
        label = name if name in ("never", "always") else f"{name} > {threshold:g}"
        if name == "far and unordered":
            label = f"spread > 1 and agree < {threshold:g}"
        elif name == "conc":
            label = f"conc < {-threshold:g}"
        print(f"| {label} | {mean:.4f} | {wins}/{len(records)} |")


if __name__ == "__main__":
    main()

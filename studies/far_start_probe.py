"""Per-query objectives started from initial scores far from 0: the trees' default steps against a line search.

``python studies/far_start_probe.py`` simulates queries of ten rows with grades 0-4 that follow the first of five
normal features, and fits ``rankcore.boost(learner=...)`` with each objective of ``--objectives`` from
``init_score = scale · x₂`` (the second feature, unrelated to the grades) for each ``--scales``, once with the
learner's default steps and once with ``trees:line_search=true`` (and, with ``--caps``, once with each cap on the
leaf values, ``trees:max_delta_step=c``).  It prints a Markdown table (``--wide``: one row per objective and
steps, one column per scale): the largest
correction the trees learned (``decision_function`` on the training rows, the initial scores left out) and
NDCG@10 of new queries drawn alike, scored from their own initial scores, as means over ``--seeds``.  A correction
far beyond the initial scores' scale is a fit whose steps overshot.  Simulated data: nothing is read from disk.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

OBJECTIVES = ["push:exp,identity,gain_weighted=true,query_rmse=2", "push:logistic", "mp-squared", "cross-entropy",
              "xendcg", "yetirank", "lambdarank"]


def simulated(seed: int, n_queries: int = 300, size: int = 10):
    """(X, grades, qid) of ``n_queries`` queries of ``size`` rows: grades 0-4 from the first feature plus noise."""
    rng = np.random.default_rng(seed)
    n = n_queries * size
    X = rng.normal(size=(n, 5))
    grades = np.clip((X[:, 0] + 0.5 * rng.normal(size=n)).round() + 1, 0, 4)
    return X, grades, np.repeat(np.arange(n_queries), size)


def one_fit(objective: str, learner: str, scale: float, seed: int, n_iter: int) -> tuple[float, float]:
    """(largest absolute correction on the training rows, NDCG@10 of the test queries) of one fit."""
    import rankcore

    X, y, qid = simulated(seed)
    X_test, y_test, qid_test = simulated(seed + 1000)
    # the cross-entropy takes labels in [0, 1]: the rows graded 3 or 4 are its relevant ones
    labels = (y > 2).astype(float) if objective == "cross-entropy" else y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner=learner, objective=objective, n_iter=n_iter, random_state=seed).fit(
            X, labels, qid=qid, init_score=scale * X[:, 1])
    correction = float(np.abs(model.decision_function(X)).max())
    return correction, float(model.score(X_test, y_test, qid=qid_test, init_score=scale * X_test[:, 1]))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objectives", nargs="+", default=OBJECTIVES)
    parser.add_argument("--scales", nargs="+", type=float, default=[0.0, 1.0, 5.0, 30.0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--n-iter", type=int, default=50)
    parser.add_argument("--caps", nargs="*", type=float, default=[],
                        help="also fit with trees:max_delta_step=c for each c (the learner's default steps)")
    parser.add_argument("--no-line-search", action="store_true", help="leave out the trees:line_search=true fits")
    parser.add_argument("--wide", action="store_true", help="one row per objective and steps, a column per scale")
    args = parser.parse_args(argv)
    variants = [("trees", "default")] + ([] if args.no_line_search else [("trees:line_search=true", "line search")])
    variants += [(f"trees:max_delta_step={c:g}", f"cap {c:g}") for c in args.caps]
    if args.wide:
        print("| objective | steps | " + " | ".join(f"scale {s:g}" for s in args.scales) + " |")
        print("|---|---|" + "---|" * len(args.scales))
    else:
        print("| objective | initial scores' scale | steps | largest correction | NDCG@10 (new queries) |")
        print("|---|---|---|---|---|")
    for objective in args.objectives:
        for learner, steps in variants:
            cells = []
            for scale in args.scales:
                fits = [one_fit(objective, learner, scale, seed, args.n_iter) for seed in args.seeds]
                largest = max(c for c, _ in fits)
                ndcg = float(np.mean([s for _, s in fits]))
                cells.append(f"{largest:.3g} / {ndcg:.4f}")
                if not args.wide:
                    print(f"| `{objective}` | {scale:g} | {steps} | {largest:.3g} | {ndcg:.4f} |", flush=True)
            if args.wide:
                print(f"| `{objective}` | {steps} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()

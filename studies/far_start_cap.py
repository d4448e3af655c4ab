"""A cap on the leaf values from far initial scores: per-query objectives with ``trees:max_delta_step=c`` or none.

``python studies/far_start_cap.py`` fits ``rankcore.boost(learner=..., objective=o)`` for each objective of
``--objectives`` (default ``xendcg``, ``yetirank``, ``push:logistic``) from ``init_score = scale · base`` for each
``--scales``, once without a cap (``trees:max_delta_step=0``: the per-query default's oblivious trees, Newton steps;
the non-exponential push searches its steps from a start not all 0) and once with each cap of ``--caps``
(``trees:max_delta_step=c``), with ``--n-iter`` trees (200, the default's length).  Data (``--data``): LightGBM's LTR
example (``lightgbm``: both files pooled, fold s of a 5-fold query-level split, read from
``$RANKCORE_DATASETS/lightgbm-lambdarank``) with the starts of ``far_start_rule.py`` (``--kinds``: noise,
informative, continued, lgbm), or the simulated queries of ``far_start_probe.py`` (``simulated``: the start is the
second feature, unrelated to the grades; new queries of seed s + 1000).  It prints one Markdown row per objective,
kind and scale: NDCG@10 of the held-out queries scored from their own initial scores, means over ``--seeds``, for no
cap and each cap, and each cap's paired difference from no cap; every run goes to ``--out`` (JSON lines).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from far_start_probe import simulated  # noqa: E402
from far_start_rule import base_scores, lightgbm_fold  # noqa: E402


@functools.lru_cache(maxsize=8)
def data(source: str, seed: int):
    """(train, test) of ``source`` and ``seed``, each (X, y, qid)."""
    if source == "simulated":
        return simulated(seed), simulated(seed + 1000)
    return lightgbm_fold(seed)


def start(source: str, kind: str, seed: int):
    """The initial scores of scale 1 on the training and held-out rows."""
    train, test = data(source, seed)
    if source == "simulated":
        return train[0][:, 1], test[0][:, 1]
    return base_scores(kind, train, test, seed)


def one_fit(source: str, objective: str, learner: str, scale: float, seed: int, n_iter: int, base) -> float:
    """NDCG@10 of the held-out queries of one fit from ``scale`` · ``base``."""
    import rankcore

    (X, y, qid), (X_t, y_t, qid_t) = data(source, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner=learner, objective=objective, n_iter=n_iter, random_state=seed,
                               n_jobs=1).fit(X, y, qid=qid, init_score=scale * base[0])
    return float(model.score(X_t, y_t, qid=qid_t, init_score=scale * base[1]))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=["simulated", "lightgbm"], default="lightgbm")
    parser.add_argument("--kinds", nargs="+", default=["noise", "informative", "continued", "lgbm"])
    parser.add_argument("--objectives", nargs="+", default=["xendcg", "yetirank", "push:logistic"])
    parser.add_argument("--scales", nargs="+", type=float, default=[0.5, 1.0, 2.0, 5.0, 30.0])
    parser.add_argument("--caps", nargs="+", type=float, default=[4.0, 16.0, 64.0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--n-iter", type=int, default=200)
    parser.add_argument("--out", default=None, help="JSON lines of every run")
    args = parser.parse_args(argv)
    kinds = ["noise"] if args.data == "simulated" else args.kinds
    caps = [0.0] + list(args.caps)
    names = ["none"] + [f"cap {c:g}" for c in args.caps]
    print("| objective | start | scale | " + " | ".join(names) + " | "
          + " | ".join(f"{n} − none" for n in names[1:]) + " |")
    print("|---" * (3 + 2 * len(caps) - 1) + "|")
    for kind in kinds:
        bases = {seed: start(args.data, kind, seed) for seed in args.seeds}
        for objective in args.objectives:
            for scale in args.scales:
                # "none" names the option (max_delta_step=0): no cap, whatever a default from far starts would be
                runs = {c: [one_fit(args.data, objective, f"trees:max_delta_step={c:g}",
                                    scale, seed, args.n_iter, bases[seed]) for seed in args.seeds] for c in caps}
                mean = [float(np.mean(runs[c])) for c in caps]
                diff = [float(np.mean(np.subtract(runs[c], runs[0.0]))) for c in caps[1:]]
                print(f"| `{objective}` | {kind} | {scale:g} | " + " | ".join(f"{m:.4f}" for m in mean) + " | "
                      + " | ".join(f"{d:+.4f}" for d in diff) + " |", flush=True)
                if args.out:
                    with open(args.out, "a") as handle:
                        handle.write(json.dumps({"data": args.data, "objective": objective, "kind": kind,
                                                 "scale": scale, "seeds": args.seeds,
                                                 "ndcg": {str(c): runs[c] for c in caps}}) + "\n")


if __name__ == "__main__":
    main()

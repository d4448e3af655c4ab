"""How often a nominal interval of the AUC covers the true AUC on small lists (DeLong and the bootstrap).

Simulated weeks of binormal scores: the negatives' scores N(0, 1), the positives' N(d, 1) with d = √2 Φ⁻¹(AUC), so the
true AUC is known exactly.  For each size (positives / negatives) the script draws ``--weeks`` weeks, computes
``rankcore.metrics.confidence_interval(y, s, "auc", method=...)`` by DeLong and by the stratified bootstrap, and
prints the share of intervals that hold the true AUC.  Needs no data sets; minutes on one core.

    python studies/interval_coverage.py --weeks 5000
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.stats import norm

from rankcore.metrics import confidence_interval

SIZES = ((3, 50), (6, 54), (10, 90), (30, 270))


def coverage(n_pos: int, n_neg: int, weeks: int, auc: float, level: float, seed: int) -> dict[str, float]:
    """The share of ``weeks`` simulated lists whose interval (per method) holds ``auc``."""
    rng = np.random.default_rng(seed)
    shift = np.sqrt(2.0) * norm.ppf(auc)
    y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    held = {"delong": 0, "bootstrap": 0}
    for week in range(weeks):
        scores = np.r_[rng.normal(shift, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)]
        for method in held:
            ci = confidence_interval(y, scores, "auc", level=level, method=method, random_state=week)
            held[method] += ci.lower <= auc <= ci.upper
    return {method: count / weeks for method, count in held.items()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", type=int, default=5000, help="simulated lists per size (default 5000)")
    parser.add_argument("--auc", type=float, default=0.86, help="the true AUC (default 0.86)")
    parser.add_argument("--level", type=float, default=0.95, help="the intervals' nominal level (default 0.95)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"| positives / negatives | {' | '.join(f'{p} / {n}' for p, n in SIZES)} |")
    print("|---|" + "---:|" * len(SIZES))
    found = [coverage(p, n, args.weeks, args.auc, args.level, args.seed) for p, n in SIZES]
    for method, name in (("delong", "DeLong"), ("bootstrap", "stratified bootstrap")):
        print(f"| {name} | {' | '.join(f'{f[method]:.0%}' for f in found)} |")


if __name__ == "__main__":
    main()

"""Monotone constraints (``trees:monotone=...``): the fit time beside the same fit without constraints, same run.

50,000 rows × 20 float64 columns (``rare_positives``), 100 trees of 31 leaves,
one thread, least of 3 alternating fits: constraints on two columns (+1 on
column 0, −1 on column 1) against none.  First checked: all-zero signs fit
the unconstrained model (the same scores), and the constrained model's score
never falls as column 0 rises.  The ratio is printed at the end and stored
in ``extra_info``; on a shared machine compare ratios only.
"""

from __future__ import annotations

import numpy as np

from _shapes import rare_positives
from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns

N, D, N_TREES = 50_000, 20, 100
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "monotone constraints"


def _model(signs: str | None):
    import rankcore

    spec = "trees:subsample=1" + (f",monotone={signs}" if signs else "")
    return rankcore.boost(learner=spec, n_iter=N_TREES, tol=0.0, early_stopping=False, random_state=0, n_jobs=1)


def test_monotone_fit_beside_the_unconstrained_fit(benchmark):
    X, y = rare_positives(N, D)
    X = X.astype(np.float64)
    signs = "/".join(["1", "-1"] + ["0"] * (D - 2))
    zero = _model("/".join(["0"] * D)).fit(X[:5000], y[:5000])
    free = _model(None).fit(X[:5000], y[:5000])
    np.testing.assert_array_equal(zero.decision_function(X[:1000]), free.decision_function(X[:1000]))
    models = {"monotone": _model(signs), "free": _model(None)}
    times = {}
    benchmark.pedantic(lambda: times.update(_least({k: (lambda m=m: m.fit(X, y)) for k, m in models.items()}, 3)),
                       rounds=1, iterations=1)
    rows = X[:200].copy()
    scores = []
    for v in np.linspace(-3, 3, 25):
        rows[:, 0] = v
        scores.append(models["monotone"].decision_function(rows))
    assert (np.diff(np.array(scores), axis=0) >= 0).all()
    ratio = times["monotone"] / times["free"]
    SUMMARY.append(f"fit {N_TREES} trees on {N} x {D}, 1 thread: monotone on 2 columns {times['monotone']:.2f} s, "
                   f"none {times['free']:.2f} s, ratio {ratio:.2f}")
    benchmark.extra_info.update(n=N, d=D, trees=N_TREES, monotone_over_free=ratio)

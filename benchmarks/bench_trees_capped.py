"""A cap on the leaf values (``trees:max_delta_step=c``): the fit time beside the same fit without a cap, same run.

50,000 rows × 20 float64 columns (``rare_positives``), 100 trees, one
thread, least of 3 alternating fits, for each growth (leaf-wise with 31
leaves, depth-wise and oblivious of depth 6): a cap of 0.5 (it binds on
some leaves) against none.  First checked: a cap no leaf reaches fits the
uncapped model (the same scores), and the capped model's trees keep every
leaf within the cap.  A capped split search scores its candidates one at a
time (the uncapped one in vectors): the ratio is that cost.  Printed at the
end and stored in ``extra_info``; on a shared machine compare ratios only.
"""

from __future__ import annotations

import numpy as np
import pytest

from _shapes import rare_positives
from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns

N, D, N_TREES, CAP, RATE = 50_000, 20, 100, 0.5, 0.1
GROWTHS = {"leafwise": "max_leaves=31", "depthwise": "growth=depthwise,max_depth=6",
           "oblivious": "growth=oblivious,max_depth=6"}
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "a cap on the leaf values"


def _model(growth: str, cap: float | None):
    import rankcore

    spec = (f"trees:subsample=1,line_search=false,learning_rate={RATE},{GROWTHS[growth]}"
            + (f",max_delta_step={cap}" if cap else ""))
    return rankcore.boost(learner=spec, n_iter=N_TREES, tol=0.0, early_stopping=False, random_state=0, n_jobs=1)


@pytest.mark.parametrize("growth", list(GROWTHS))
def test_capped_fit_beside_the_uncapped_fit(benchmark, growth):
    X, y = rare_positives(N, D)
    X = X.astype(np.float64)
    unreached = _model(growth, 1e300).fit(X[:5000], y[:5000])
    free = _model(growth, None).fit(X[:5000], y[:5000])
    np.testing.assert_array_equal(unreached.decision_function(X[:1000]), free.decision_function(X[:1000]))
    models = {"capped": _model(growth, CAP), "free": _model(growth, None)}
    times = {}
    benchmark.pedantic(lambda: times.update(_least({k: (lambda m=m: m.fit(X, y)) for k, m in models.items()}, 3)),
                       rounds=1, iterations=1)
    # with line_search=false and rate η, no tree moves a score by more than η·cap
    steps = np.diff(np.stack([np.zeros(200), *models["capped"].staged_decision_function(X[:200])]), axis=0)
    assert np.abs(steps).max() <= RATE * CAP * (1 + 1e-12)
    ratio = times["capped"] / times["free"]
    SUMMARY.append(f"fit {N_TREES} {growth} trees on {N} x {D}, 1 thread: max_delta_step={CAP} "
                   f"{times['capped']:.2f} s, none {times['free']:.2f} s, ratio {ratio:.2f}")
    benchmark.extra_info.update(n=N, d=D, trees=N_TREES, growth=growth, capped_over_free=ratio)

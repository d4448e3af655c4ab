"""rankcore's list metrics as LightGBM's evaluation metric: the binding kept per validation set against rebinding.

LightGBM calls ``feval`` after every boosting round on the same validation
``Dataset``.  The adapter keeps the metric bound to its labels and groups
(the rows grouped by query, the gains, cut-offs and ideal DCG computed once),
so a round costs one sort of the scores inside the queries; the earlier form
recomputed everything from the labels on every call (``per_query``).  Both
run inside one ``lightgbm.train`` each, their values checked equal to the bit
first; the time is that of the metric's calls alone (perf_counter around each
call, one thread), per round.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from rankcore.gbdt import LightGBMMetric

lgb = pytest.importorskip("lightgbm")

SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "gbdt evaluation metric"

#: Validation queries (2..10 rows, about 6 on average: about 120,000 rows with "fast").
VALIDATION_QUERIES = {"fast": 20_000, "full": 80_000}
PARAMS = {"objective": "lambdarank", "metric": "None", "verbose": -1, "num_threads": 1, "deterministic": True,
          "force_col_wise": True, "num_leaves": 15}


class RebindingMetric(LightGBMMetric):
    """The earlier form: every call binds the labels anew (``per_query`` of the labels, groups and scores)."""

    def _bound_mean(self, y, sizes, scores):
        return None


def _grouped(n_queries: int, seed: int):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 11, n_queries)
    X = rng.normal(size=(int(sizes.sum()), 5))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=X.shape[0]) + 1), 0, 4)
    return X, y, sizes


def _timed(metric, calls: list):
    def feval(preds, data):
        start = time.perf_counter()
        result = metric(preds, data)
        calls.append((time.perf_counter() - start, result[1]))
        return result
    return feval


@pytest.mark.benchmark(group="gbdt")
@pytest.mark.parametrize("spec", ["ndcg@k:10", "map@k:10"])
def test_lightgbm_eval_metric_kept_binding_against_rebinding(benchmark, spec, profile):
    X, y, sizes = _grouped(2_000, 0)
    Xv, yv, sizes_v = _grouped(VALIDATION_QUERIES[profile], 1)
    train = lgb.Dataset(X, y, group=sizes, free_raw_data=False)
    valid = lgb.Dataset(Xv, yv, group=sizes_v, reference=train, free_raw_data=False)
    n_rounds = 20
    calls = {"kept": [], "rebinding": []}
    forms = {"kept": LightGBMMetric, "rebinding": RebindingMetric}
    for name in ("rebinding", "kept", "rebinding", "kept"):         # each twice, taking turns; the second counts
        calls[name].clear()
        feval = _timed(forms[name](spec), calls[name])             # a new adapter: its first call binds
        lgb.train(PARAMS, train, num_boost_round=n_rounds, valid_sets=[valid], feval=feval)
    values = {name: [value for _, value in calls[name]] for name in calls}
    assert values["kept"] == values["rebinding"]                      # bit for bit, every round
    # the first call binds: the rounds after it are what a fit repeats
    seconds = {name: float(np.median([t for t, _ in calls[name][1:]])) for name in calls}
    first = calls["kept"][0][0]
    ratio = seconds["rebinding"] / seconds["kept"]
    benchmark.extra_info.update(rows=int(yv.shape[0]), queries=int(sizes_v.shape[0]), rounds=n_rounds,
                                kept_seconds_per_round=seconds["kept"], kept_first_call_seconds=first,
                                rebinding_seconds_per_round=seconds["rebinding"], speedup_vs_rebinding=ratio)
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    SUMMARY.append(f"[{spec} as LightGBM's feval, {yv.shape[0]:,} validation rows in {sizes_v.shape[0]:,} queries] "
                   f"kept binding {seconds['kept'] * 1e3:.1f} ms a round (first call {first * 1e3:.1f} ms), "
                   f"rebinding {seconds['rebinding'] * 1e3:.1f} ms ({ratio:.1f}x)")

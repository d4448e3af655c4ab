"""A scoring service's request: ``decision_function`` on 1 and 100 rows, beside LightGBM's ``Booster.predict``.

A service scoring 1-100 rows per request pays each call's fixed work (input checks, tags, per-member work of a
bag) more than the walk of the trees.  Measured, each on one thread:

* the per-query default model -- ``rankcore.boost(learner="trees", n_iter=100)`` fitted with ``qid`` -- beside
  ``LGBMRanker(n_estimators=100)`` fitted on the same queries, scored through its ``Booster.predict``
  (``raw_score=True``);
* ``AutoRanker()`` (default candidates, 400 rows: a bag or blend of several models) beside the same booster.

Skipped when LightGBM is not installed.  Run with ``pytest benchmarks/bench_serving.py --benchmark-only``; the
ratios (ours / LightGBM, same run) are printed at the end and stored in ``extra_info``.  The timings are noisy on
a shared machine: compare the ratios.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from _ratios import time_ratio

lgb = pytest.importorskip("lightgbm")

N_QUERIES, PER_QUERY, D = 100, 20, 20
N_TREES = 100
ROWS = (1, 100)
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "serving"
_TIMES: dict = {}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(N_QUERIES * PER_QUERY, D))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=X.shape[0]) > 1.2).astype(np.int64)
    qid = np.repeat(np.arange(N_QUERIES), PER_QUERY)
    return X, y, qid


@pytest.fixture(scope="module")
def models(data):
    import rankcore
    from rankcore.auto import AutoRanker

    X, y, qid = data
    per_query = rankcore.boost(learner="trees", n_iter=N_TREES, random_state=0, n_jobs=1).fit(X, y, qid=qid)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = AutoRanker(random_state=0, n_jobs=1).fit(X[:400], y[:400])
    ranker = lgb.LGBMRanker(n_estimators=N_TREES, verbose=-1, n_jobs=1)
    ranker.fit(X, y, group=np.full(N_QUERIES, PER_QUERY))
    return {"per-query trees": per_query, "AutoRanker": auto, "lightgbm": ranker.booster_}


def _time(benchmark, call, rows):
    call(rows)
    benchmark.pedantic(call, args=(rows,), rounds=5, iterations=100 if rows.shape[0] == 1 else 30)
    return benchmark.stats.stats.median


@pytest.mark.parametrize("n_rows", ROWS, ids=lambda n: f"rows={n}")
def test_serving_lightgbm(benchmark, data, models, n_rows):
    booster = models["lightgbm"]
    rows = np.ascontiguousarray(data[0][:n_rows])
    _TIMES[("lightgbm", n_rows)] = _time(benchmark, lambda r: booster.predict(r, raw_score=True, num_threads=1),
                                         rows)
    benchmark.extra_info.update(rows=n_rows, trees=booster.num_trees(), seconds=_TIMES[("lightgbm", n_rows)])


@pytest.mark.parametrize("n_rows", ROWS, ids=lambda n: f"rows={n}")
@pytest.mark.parametrize("name", ["per-query trees", "AutoRanker"])
def test_serving_ours(benchmark, data, models, name, n_rows):
    model = models[name]
    rows = np.ascontiguousarray(data[0][:n_rows])
    seconds = _time(benchmark, model.decision_function, rows)
    theirs = _TIMES.get(("lightgbm", n_rows), math.nan)
    ratio = time_ratio(seconds, theirs)
    benchmark.extra_info.update(rows=n_rows, seconds=seconds, ours_over_lightgbm=ratio)
    SUMMARY.append(f"{name}, {n_rows} row(s): ours {seconds * 1e6:8.1f} us, LightGBM Booster.predict "
                   f"{theirs * 1e6:8.1f} us, ratio ours/LightGBM {ratio:5.2f}")

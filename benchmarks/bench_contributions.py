"""Feature contributions (exact TreeSHAP): rankcore's trees beside LightGBM's ``pred_contrib``, in the same run.

1. ``feature_contributions`` of n rows × 50 float32 with 200 trees:
   rankcore ``trees`` leaf-wise (31 leaves), ``trees:growth=oblivious``
   (depth 6, walked as complete binary trees of 64 leaves) and LightGBM
   (31 leaves, ``Booster.predict(X, pred_contrib=True)``), all trained on the
   same 20,000 rows, one thread each, measured alternately, least of 3
   repeats.  Each model's rows are first checked to sum to its own scores.
2. The Cython kernel against the plain Python reference of the tests
   (enumerating feature subsets) on a tiny model (3 trees of 4 leaves, 20
   rows): checked to agree first, then timed alternately.

``RANKCORE_BENCH_PROFILE=fast`` (default): n = 2,000 rows explained;
``full``: n = 20,000.  Skipped without LightGBM.  The ratios are printed at
the end and stored in ``extra_info``; on a shared machine compare ratios only.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from _shapes import rare_positives
from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns

lgb = pytest.importorskip("lightgbm")

FULL = os.environ.get("RANKCORE_BENCH_PROFILE", "fast") == "full"
N = 20_000 if FULL else 2_000
N_TREES = 200
REPEATS = 3
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "feature contributions (TreeSHAP)"
SPECS = {"leafwise": "trees:subsample=1", "oblivious": "trees:growth=oblivious,subsample=1"}


@pytest.fixture(scope="module")
def fitted():
    import rankcore

    X, y = rare_positives(20_000 + N, 50)
    Xs, ys = X[:20_000], y[:20_000]
    models = {name: rankcore.boost(learner=spec, n_iter=N_TREES, tol=0.0, early_stopping=False, random_state=0,
                                   n_jobs=1).fit(Xs, ys)
              for name, spec in SPECS.items()}
    params = dict(objective="binary", num_leaves=31, learning_rate=0.1, num_threads=1, verbose=-1)
    booster = lgb.train(params, lgb.Dataset(Xs, label=ys, params=params), num_boost_round=N_TREES)
    return models, booster, X[20_000:]


def test_contributions_beside_lightgbm(benchmark, fitted):
    models, booster, X = fitted
    for name, model in models.items():
        assert len(model.rankers_) == N_TREES, name
        np.testing.assert_allclose(model.feature_contributions(X).sum(axis=1), model.decision_function(X),
                                   rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(booster.predict(X, pred_contrib=True, num_threads=1).sum(axis=1),
                               booster.predict(X, raw_score=True, num_threads=1), rtol=1e-6, atol=1e-6)
    times = {}

    def all_three():
        times.update(_least({"leafwise": lambda: models["leafwise"].feature_contributions(X),
                             "oblivious": lambda: models["oblivious"].feature_contributions(X),
                             "lightgbm": lambda: booster.predict(X, pred_contrib=True, num_threads=1)}, REPEATS))

    benchmark.pedantic(all_three, rounds=1, iterations=1)
    lw, ob, lg = times["leafwise"], times["oblivious"], times["lightgbm"]
    SUMMARY.append(f"contributions of {N} rows x 50, {N_TREES} trees, 1 thread: leaf-wise {lw * 1e3:.0f} ms, "
                   f"oblivious {ob * 1e3:.0f} ms, LightGBM pred_contrib {lg * 1e3:.0f} ms; leaf-wise/LightGBM "
                   f"{lw / lg:.2f}, oblivious/LightGBM {ob / lg:.2f}")
    benchmark.extra_info.update(n=N, trees=N_TREES, leafwise_over_lightgbm=lw / lg, oblivious_over_lightgbm=ob / lg)


def test_kernel_beside_the_python_reference(benchmark):
    import rankcore

    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from _treeshap_reference import shapley_reference

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=200) > 0).astype(int)
    model = rankcore.boost(learner="trees:max_leaves=4,min_samples_leaf=10,subsample=1", n_iter=3,
                           random_state=0, n_jobs=1).fit(X, y)
    rows = X[:20]

    def reference():
        return np.array([shapley_reference(model.rankers_, model.alphas_, x, 4) for x in rows])

    np.testing.assert_allclose(model.feature_contributions(rows), reference(), rtol=1e-9, atol=1e-12)
    times = {}
    benchmark.pedantic(lambda: times.update(_least({"kernel": lambda: model.feature_contributions(rows),
                                                    "reference": reference}, 5)), rounds=1, iterations=1)
    SUMMARY.append(f"tiny model (3 trees of 4 leaves, 20 rows x 4): kernel {times['kernel'] * 1e3:.2f} ms, Python "
                   f"subset enumeration {times['reference'] * 1e3:.1f} ms, ratio "
                   f"{times['kernel'] / times['reference']:.3f}")
    benchmark.extra_info.update(kernel_over_reference=times["kernel"] / times["reference"])

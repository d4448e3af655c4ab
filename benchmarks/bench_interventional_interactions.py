"""Interventional SHAP interaction values (``feature_interactions(X, background=Z)``) beside the interventional SHAP
values of the same models (``feature_contributions(X, background=Z)``) and the path-dependent interaction values,
in the same run.

n rows × 50 float32 against 100 background rows with 200 trees: rankcore ``trees`` leaf-wise (31 leaves) and
``trees:growth=oblivious`` (depth 6: pairs of cells walked once, rows looked up), trained on the same 20,000 rows,
one thread each, measured alternately, least of 3 repeats.  The leaf-wise trees' path-dependent interaction
values, tens of times slower, are timed on a tenth of the rows and compared per row.  Each result is first checked:
symmetric, rows sum to the interventional SHAP values and each matrix to the score.

``RANKCORE_BENCH_PROFILE=fast`` (default): n = 200 rows explained; ``full``: n = 2,000.  The rows per second and
the time ratios (interaction values over the values, over the path-dependent interaction values) are printed at
the end and stored in ``extra_info``; on a shared machine compare ratios only.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from _background_models import N_BACKGROUND, N_TREES, background_models
from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns

FULL = os.environ.get("RANKCORE_BENCH_PROFILE", "fast") == "full"
N = 2_000 if FULL else 200
PATH_ROWS = {"leafwise": N // 10, "oblivious": N}      # rows of the path-dependent interaction values
REPEATS = 3
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "interventional SHAP interaction values (background rows)"


@pytest.fixture(scope="module")
def fitted():
    return background_models(N)


def test_interventional_interactions_beside_the_values(benchmark, fitted):
    models, X, Z = fitted
    calls = {}
    for name, model in models.items():
        assert len(model.rankers_) == N_TREES, name
        Phi = model.feature_interactions(X, background=Z, max_bytes=None)
        np.testing.assert_array_equal(Phi, np.swapaxes(Phi, 1, 2))
        np.testing.assert_allclose(Phi.sum(axis=2), model.feature_contributions(X, background=Z), rtol=1e-9,
                                   atol=1e-9)
        np.testing.assert_allclose(Phi.sum(axis=(1, 2)), model.decision_function(X), rtol=1e-9, atol=1e-9)
        calls[f"{name} interactions"] = lambda m=model: m.feature_interactions(X, background=Z, max_bytes=None)
        calls[f"{name} values"] = lambda m=model: m.feature_contributions(X, background=Z)
        calls[f"{name} path-dependent interactions"] = lambda m=model, k=PATH_ROWS[name]: m.feature_interactions(X[:k])
    times = {}
    benchmark.pedantic(lambda: times.update(_least(calls, REPEATS)), rounds=1, iterations=1)
    for name in models:                 # per N rows
        times[f"{name} path-dependent interactions"] *= N / PATH_ROWS[name]
    rates = {name: N / seconds for name, seconds in times.items()}
    SUMMARY.append(f"{N} rows x 50, {N_TREES} trees, {N_BACKGROUND} background rows, 1 thread (rows/s): "
                   + ", ".join(f"{name} {rate:,.0f}" for name, rate in rates.items()))
    ratios = {}
    for name in models:
        ratios[f"{name}_interactions_over_values"] = times[f"{name} interactions"] / times[f"{name} values"]
        ratios[f"{name}_interactions_over_path_dependent"] = (times[f"{name} interactions"]
                                                             / times[f"{name} path-dependent interactions"])
    SUMMARY.append("time ratios: " + ", ".join(f"{name} {value:.2f}" for name, value in ratios.items()))
    benchmark.extra_info.update(n=N, trees=N_TREES, background=N_BACKGROUND, **ratios,
                                **{"rows_per_second " + name: rate for name, rate in rates.items()})

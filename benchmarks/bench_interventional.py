"""Interventional SHAP values (``feature_contributions(X, background=Z)``) beside path-dependent TreeSHAP and, when
installed, the ``shap`` package's ``TreeExplainer(feature_perturbation="interventional")``, in the same run.

``feature_contributions`` of n rows × 50 float32 against 100 background rows with 200 trees: rankcore ``trees``
leaf-wise (31 leaves) and ``trees:growth=oblivious`` (depth 6: pairs of cells walked once, rows looked up), trained
on the same 20,000 rows, one thread each, measured alternately, least of 3 repeats; the path-dependent values of
the same models, and shap's explainer on the leaf-wise model exported to LightGBM (``to_lightgbm``; skipped
without ``shap`` and ``lightgbm``).  Each result is first checked: rows sum to the scores, shap's values agree.

``RANKCORE_BENCH_PROFILE=fast`` (default): n = 200 rows explained; ``full``: n = 2,000.  The rows per second
and the time ratios (interventional over path-dependent, over shap) are printed at the end and stored in
``extra_info``; on a shared machine compare ratios only.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from _background_models import N_BACKGROUND, N_TREES, background_models
from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns

FULL = os.environ.get("RANKCORE_BENCH_PROFILE", "fast") == "full"
N = 2_000 if FULL else 200
REPEATS = 3
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "interventional SHAP values (background rows)"


@pytest.fixture(scope="module")
def fitted():
    return background_models(N)


def test_interventional_beside_path_dependent(benchmark, fitted):
    models, X, Z = fitted
    calls = {}
    for name, model in models.items():
        assert len(model.rankers_) == N_TREES, name
        np.testing.assert_allclose(model.feature_contributions(X, background=Z).sum(axis=1),
                                   model.decision_function(X), rtol=1e-9, atol=1e-9)
        calls[f"{name} interventional"] = lambda model=model: model.feature_contributions(X, background=Z)
        calls[f"{name} path-dependent"] = lambda model=model: model.feature_contributions(X)
    explainer = _shap_explainer(models["leafwise"], Z)
    if explainer is not None:
        np.testing.assert_allclose(explainer.shap_values(X), models["leafwise"].feature_contributions(
            X, background=Z)[:, :-1], rtol=0, atol=1e-6)
        calls["leafwise shap"] = lambda: explainer.shap_values(X)
    times = {}
    benchmark.pedantic(lambda: times.update(_least(calls, REPEATS)), rounds=1, iterations=1)
    rates = {name: N / seconds for name, seconds in times.items()}
    SUMMARY.append(f"{N} rows x 50, {N_TREES} trees, {N_BACKGROUND} background rows, 1 thread (rows/s): "
                   + ", ".join(f"{name} {rate:,.0f}" for name, rate in rates.items()))
    ratios = {f"{name}_interventional_over_path_dependent": times[f"{name} interventional"]
              / times[f"{name} path-dependent"] for name in models}
    if "leafwise shap" in times:
        ratios["leafwise_interventional_over_shap"] = times["leafwise interventional"] / times["leafwise shap"]
    SUMMARY.append("time ratios: " + ", ".join(f"{name} {value:.2f}" for name, value in ratios.items()))
    benchmark.extra_info.update(n=N, trees=N_TREES, background=N_BACKGROUND, **ratios,
                                **{"rows_per_second " + name: rate for name, rate in rates.items()})


def _shap_explainer(model, Z):
    """shap's interventional explainer of the model exported to LightGBM; None without shap or lightgbm."""
    try:
        import lightgbm
        import shap
    except ImportError:
        return None
    booster = lightgbm.Booster(model_str=model.to_lightgbm())
    return shap.TreeExplainer(booster, Z, feature_perturbation="interventional")

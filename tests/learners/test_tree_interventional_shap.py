"""Interventional contributions against the ``shap`` package's ``TreeExplainer(feature_perturbation=
"interventional")`` on the model exported to LightGBM (skipped when ``shap`` or ``lightgbm`` is not installed)."""

import numpy as np
import pytest

import rankcore

shap = pytest.importorskip("shap")
lightgbm = pytest.importorskip("lightgbm")


@pytest.mark.parametrize("learner", ["trees:max_leaves=8", "trees:growth=oblivious,max_depth=4"])
def test_shap_interventional_tree_explainer_agrees(learner):
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(400, 5)) * 2) / 2
    X[rng.random(X.shape) < 0.1] = np.nan
    z = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    y = (z + 0.5 * rng.normal(size=400) > 0).astype(int)
    model = rankcore.boost(learner=learner, n_iter=20, random_state=0).fit(X, y)
    booster = lightgbm.Booster(model_str=model.to_lightgbm())
    Z = X[300:350]
    explainer = shap.TreeExplainer(booster, Z, feature_perturbation="interventional")
    ours = model.feature_contributions(X[:50], background=Z)
    # shap's tree arrays hold float32 thresholds and float64 values: agreement to about 1e-8 of the scores
    scale = np.abs(model.decision_function(X[:50])).max()
    np.testing.assert_allclose(explainer.shap_values(X[:50]), ours[:, :-1], rtol=0, atol=1e-6 * scale)
    assert float(np.ravel(explainer.expected_value)[0]) == pytest.approx(ours[0, -1], rel=1e-9)

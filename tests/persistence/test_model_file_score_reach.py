"""Leaf values each finite whose sum with their coefficients is not: refused on load, and by both XGBoost exports.

Before, such a file loaded and ``decision_function`` raised ``FloatingPointError`` on the first row; the XGBoost
JSON dump wrote it (the XGBoost model file refused it, as does the LightGBM export).
"""

import numpy as np
import pytest

from rankcore.persistence import ModelFormatError, model_from_dict
from rankcore.push import PushBoost

from _model_files import _data, _estimators, tampered


def _huge_leaves(state):
    # every leaf near the largest float64 and every coefficient 1: each finite, three trees' sum is not
    for ranker in state["rankers"]:
        ranker["value"] = [1.7e308 if v != 0 else 0.0 for v in ranker["value"]]
    state["alphas"] = np.ones_like(state["alphas"])


def _large_but_summable(state):
    for ranker in state["rankers"]:
        ranker["value"] = [1e300 if v != 0 else 0.0 for v in ranker["value"]]


def test_load_refuses_leaves_whose_sum_overflows():
    X, y = _data()
    model = _estimators()["PushBoost-trees"].fit(X, y)
    with pytest.raises(ModelFormatError, match=r"rankers\[1\]: the weak rankers' largest values times their "
                                               r"coefficients add up past the largest float64"):
        model_from_dict(tampered(model, _huge_leaves))


def test_load_keeps_large_leaves_whose_sum_is_finite():
    X, y = _data()
    model = _estimators()["PushBoost-trees"].fit(X, y)
    loaded = model_from_dict(tampered(model, _large_but_summable))
    assert np.isfinite(loaded.decision_function(X)).all()


def test_both_xgboost_exports_refuse_leaves_whose_sum_overflows():
    """Two stumps of coefficient 1e308 each: every leaf (0 or 1e308) finite, their sum not."""
    X, y = _data()
    model = PushBoost(n_iter=2, random_state=0).fit(X, y)
    assert len(model.rankers_) == 2
    model.alphas_ = np.array([1e308, 1e308])
    with pytest.raises(ValueError, match="largest leaves add up past the largest float64"):
        model.to_xgboost_json()
    with pytest.raises(ValueError, match="XGBoost holds finite float32 numbers only"):
        model.to_xgboost_model()            # (refused before too: each leaf is beyond float32)

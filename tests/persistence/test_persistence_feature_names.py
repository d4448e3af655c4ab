"""Every model file keeps the column names its model was fitted on, whether its estimator declares them or not."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.validation import check_is_fitted, validate_data

import rankcore
from rankcore.base import Fitted, Ranker
from rankcore.persistence import ModelFormatError, load_model, model_from_dict, model_to_dict
from rankcore.registry import register_plugin, unregister_plugin

from _model_files import resign


class GapRanker(Ranker):
    """A plugin-style estimator whose declaration (as the bundled plugin's did) leaves out ``feature_names_in_``."""

    name = "GapRanker"
    summary = "scores by the difference of the class means"
    parameters = ()
    fitted = (Fitted("coef_", "coef"), Fitted("n_features_in_", "n_features_in"))

    def fit(self, X, y):
        X, y = validate_data(self, X, y, reset=True, dtype=np.float64)
        self.coef_ = X[y == 1].mean(axis=0) - X[y == 0].mean(axis=0)
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64) @ self.coef_

    def _restore_fitted_state(self, state, params):
        self.coef_ = np.asarray(state["coef"], dtype=np.float64)
        self.n_features_in_ = int(state["n_features_in"])


class Plugin:
    rankcore_register_estimators = rankcore.hookimpl(lambda self: [GapRanker])


@pytest.fixture(scope="module", autouse=True)
def registered():
    register_plugin(Plugin(), name="gap-ranker-test")
    yield
    unregister_plugin("gap-ranker-test")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    return X, (X["a"] + 0.3 * rng.normal(size=80) > 0).astype(int)


def test_an_estimator_that_declares_no_names_keeps_them(frame, tmp_path):
    # without the names in its file, `rankcore score` would take a CSV of the same columns in another order by position
    X, y = frame
    model = GapRanker().fit(X, y)
    rankcore.save_model(model, tmp_path / "m.json")
    assert json.loads((tmp_path / "m.json").read_text())["state"]["feature_names_in"] == ["a", "b", "c"]
    loaded = load_model(tmp_path / "m.json")
    assert list(loaded.feature_names_in_) == ["a", "b", "c"]
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    with pytest.raises(ValueError, match="feature names"):
        loaded.decision_function(X[["c", "b", "a"]])


def test_an_array_fit_keeps_no_names(frame):
    X, y = frame
    assert "feature_names_in" not in model_to_dict(GapRanker().fit(X.to_numpy(), y))["state"]


@pytest.mark.parametrize("names", [["a", "a", "c"], ["a", "b"], [1, 2, 3], "abc", []])
def test_names_that_do_not_fit_the_model_are_refused(frame, names):
    X, y = frame
    data = model_to_dict(GapRanker().fit(X, y))
    data["state"]["feature_names_in"] = names
    with pytest.raises(ModelFormatError, match="feature_names_in"):
        model_from_dict(resign(data))


def test_a_builtin_models_names_are_checked_on_loading(frame):
    X, y = frame
    data = model_to_dict(rankcore.boost(n_iter=3).fit(X, y))
    data["state"]["feature_names_in"] = ["a", "a", "c"]
    with pytest.raises(ModelFormatError, match="feature_names_in must hold one distinct name per feature"):
        model_from_dict(resign(data))

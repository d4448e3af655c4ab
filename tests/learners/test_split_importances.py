"""``feature_importances(kind="split")``: how many split nodes use each feature, as LightGBM's
``importance_type="split"``, checked against the trees the model exports (LightGBM's text model) and its saved file."""

import json

import numpy as np
import pytest

import rankcore
from rankcore import PushBoost


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=300) > 0.5).astype(int)
    return X, y


def _exported_split_features(model) -> np.ndarray:
    """Every split node's feature, read from the LightGBM text model (``split_feature=`` of each tree)."""
    text = model.to_lightgbm()
    counts = np.zeros(model.n_features_in_, dtype=np.int64)
    for line in text.splitlines():
        if line.startswith("split_feature="):
            for j in line.split("=", 1)[1].split():
                counts[int(j)] += 1
    return counts


@pytest.mark.parametrize("learner", ["trees:max_leaves=6", "trees:growth=oblivious,max_depth=3", "stumps"])
def test_split_counts_are_the_exported_trees_split_nodes(data, learner):
    X, y = data
    model = PushBoost(learner=learner, n_iter=8, random_state=0).fit(X, y)
    counts = model.feature_importances(kind="split")
    assert counts.dtype == np.int64 and counts.sum() > 0
    np.testing.assert_array_equal(counts, _exported_split_features(model))


def test_split_counts_agree_with_lightgbm_reading_the_export(data):
    lightgbm = pytest.importorskip("lightgbm")
    X, y = data
    for learner in ["trees:max_leaves=6", "trees:growth=oblivious,max_depth=3"]:
        model = PushBoost(learner=learner, n_iter=8, random_state=0).fit(X, y)
        booster = lightgbm.Booster(model_str=model.to_lightgbm())
        np.testing.assert_array_equal(model.feature_importances("split"), booster.feature_importance("split"))


def test_stump_counts_are_the_saved_rankers(data, tmp_path):
    X, y = data
    model = PushBoost(learner="stumps", n_iter=12, random_state=0).fit(X, y)
    rankcore.save_model(model, tmp_path / "m.json")
    text = json.dumps(json.load(open(tmp_path / "m.json"))["state"])
    features = [r.feature for r in model.rankers_]
    assert text.count('"kind": "threshold"') == len(features)
    np.testing.assert_array_equal(model.feature_importances("split"), np.bincount(features, minlength=5))


def test_gain_is_feature_importances_(data):
    X, y = data
    model = PushBoost(learner="trees:max_leaves=4", n_iter=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.feature_importances(), model.feature_importances_)
    np.testing.assert_array_equal(model.feature_importances(kind="gain"), model.feature_importances_)


def test_refusals(data):
    X, y = data
    model = PushBoost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^kind: expected 'gain' or 'split', got 'weight'$"):
        model.feature_importances(kind="weight")
    with pytest.raises(TypeError, match=r"^kind: expected 'gain' or 'split', got int$"):
        model.feature_importances(kind=1)
    features = PushBoost(learner="features", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(AttributeError, match=r"the learner 'features' fits weak rankers without splits"):
        features.feature_importances(kind="split")
    with pytest.raises(AttributeError, match="does not record split gains"):
        features.feature_importances(kind="gain")

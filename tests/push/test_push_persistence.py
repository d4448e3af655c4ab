"""Saving and loading push models: exact round trips, and corrupted or tampered files refused."""

import copy
import json

import numpy as np
import pytest

import rankcore
from rankcore import PNormPush, PushBoost, RankBoost, load_model, save_model
from rankcore.persistence import ModelFormatError, _checksum, model_from_dict, model_to_dict


def _data(seed=0, n=150):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(0, 1, n) > 0.7).astype(int)
    return X, y


MODELS = {
    "stumps": lambda: PushBoost(price="pow:8", learner="stumps", n_iter=15, n_jobs=1),
    "features": lambda: PNormPush(p=4, learner="features", n_iter=15, n_jobs=1),
    "thresholds": lambda: RankBoost(learner="thresholds:q=3", n_iter=10, n_jobs=1),
    "hinge": lambda: PushBoost(loss="hinge", price="exp:0.5", n_iter=8, n_jobs=1),
    "early": lambda: PushBoost(n_iter=200, early_stopping=True, scoring="rmax", n_iter_no_change=3, random_state=0,
                               n_jobs=1),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_round_trip_is_exact(tmp_path, name):
    X, y = _data()
    model = MODELS[name]().fit(X, np.where(y == 1, "pos", "neg"))
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    assert loaded.rankers_ == model.rankers_
    np.testing.assert_array_equal(loaded.alphas_, model.alphas_)
    np.testing.assert_array_equal(loaded.objective_values_, model.objective_values_)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert list(loaded.classes_) == ["neg", "pos"] and loaded.stop_reason_ == model.stop_reason_
    for a, b in zip(loaded.staged_decision_function(X), model.staged_decision_function(X)):
        np.testing.assert_array_equal(a, b)
    if name == "early":
        np.testing.assert_array_equal(loaded.validation_scores_, model.validation_scores_)
        assert loaded.best_iteration_ == model.best_iteration_
    # the file is plain JSON: no pickle anywhere
    assert json.loads(path.read_text())["estimator"] == type(model).__name__


def test_round_trip_keeps_feature_names(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = _data(1)
    df = pd.DataFrame(X, columns=list("abcd"))
    model = PushBoost(n_iter=5, n_jobs=1).fit(df, y)
    save_model(model, tmp_path / "m.json")
    assert list(load_model(tmp_path / "m.json").feature_names_in_) == list("abcd")


@pytest.fixture(scope="module")
def saved():
    X, y = _data(2)
    model = PushBoost(price="pow:4", n_iter=6, n_jobs=1).fit(X, y)
    return model_to_dict(model)


def _tampered(data, edit):
    """Apply an edit and recompute the checksum, as a deliberate forger would."""
    out = copy.deepcopy(data)
    edit(out)
    out["sha256"] = _checksum({k: v for k, v in out.items() if k != "sha256"})
    return out


def test_corrupted_file_is_refused(tmp_path, saved):
    path = tmp_path / "model.json"
    text = json.dumps(saved)
    # a flipped digit in a coefficient, without fixing the checksum
    bad = text.replace('"n_iter": 6', '"n_iter": 7')
    assert bad != text
    path.write_text(bad)
    with pytest.raises(ModelFormatError, match="checksum mismatch"):
        load_model(path)
    path.write_text(text[: len(text) // 2])
    with pytest.raises(ModelFormatError, match="not a valid JSON model file"):
        load_model(path)


def _set_state(key, value):
    def edit(d):
        d["state"][key] = value
    return edit


def _ranker_field(field, value):
    def edit(d):
        d["state"]["rankers"][0][field] = value
    return edit


def _array(values, dtype="<f8"):
    arr = np.asarray(values, dtype=dtype)
    import base64

    return {"__ndarray__": base64.b64encode(arr.tobytes()).decode(), "dtype": arr.dtype.str, "shape": list(arr.shape)}


@pytest.mark.parametrize("edit, message", [
    (_ranker_field("feature", 99), r"rankers\[0\] reads feature 99, but n_features_in=4"),
    (_ranker_field("threshold", "x"), r"threshold must be a finite number"),
    (_ranker_field("kind", "tree"), r"rankers\[0\]: expected a threshold ranker record"),
    (_set_state("alphas", _array([np.nan] * 6)), r"alphas must be finite"),
    (_set_state("alphas", _array([1.0] * 5)), r"rankers must be a list of 5 records"),
    (_set_state("alphas", _array([1, 2, 3, 4, 5, 6], "<i8")), r"alphas must be a float64 vector"),
    (_set_state("objective_values", _array(np.arange(7.0))), r"objective_values must not increase"),
    (_set_state("objective_values", _array(np.zeros(3))), r"objective_values must be a float64 vector of length 7"),
    (_set_state("objective", "push:exp,pow:64"), r"objective 'push:exp,pow:64' does not match the parameters"),
    (_set_state("stop_reason", "magic\nline"), r"stop_reason must be one of"),
    (_set_state("stop_reason", "x" * 101), r"stop_reason must be one of"),
    (_set_state("stop_reason", 7), r"stop_reason must be one of"),
    (_set_state("classes", _array([1, 0], "<i8")), r"classes must be two sorted, distinct labels"),
    (_set_state("n_features_in", 0), r"n_features_in must be a positive integer"),
    (_set_state("surprise", 1), r"unexpected or missing fields \['surprise'\]"),
    (lambda d: d["state"].pop("alphas"), r"unexpected or missing fields \['alphas'\]"),
    (lambda d: d["params"].update(n_iter=2), r"6 iterations stored, but at most 2 for n_iter=2"),
    (lambda d: d["params"].update(price="pow:0"), r"invalid parameters|do not resolve"),
])
def test_tampered_state_is_refused(saved, edit, message):
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(_tampered(saved, edit))


def test_untampered_dict_loads(saved):
    model = model_from_dict(copy.deepcopy(saved))
    assert model.n_iter_ == 6

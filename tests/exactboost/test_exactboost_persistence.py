"""Saving and loading ExactBoost without pickle: round trip and tampered files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.datasets import make_classification

import rankcore
from rankcore import ExactBoost
from rankcore.persistence import ModelFormatError, _checksum, load_model, model_from_dict, model_to_dict, save_model


@pytest.fixture(scope="module")
def fitted():
    X, y = make_classification(n_samples=200, n_features=6, random_state=0)
    model = ExactBoost(metric="prec@k:0.2", n_runs=5, n_rounds=10, random_state=0).fit(X, y)
    return model, X, y


def test_exactboost_round_trip_is_exact(fitted, tmp_path):
    model, X, y = fitted
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert isinstance(loaded, ExactBoost)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.stumps_, model.stumps_)
    np.testing.assert_array_equal(loaded.run_lengths_, model.run_lengths_)
    np.testing.assert_array_equal(loaded.train_loss_, model.train_loss_)
    assert loaded.metric_ == model.metric_
    assert list(loaded.classes_) == list(model.classes_)
    assert loaded.score(X, y) == model.score(X, y)
    # the file is plain JSON, no pickle
    assert json.loads(path.read_text())["estimator"] == "ExactBoost"


def test_exactboost_round_trip_keeps_feature_names(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = make_classification(n_samples=120, n_features=4, random_state=1)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    model = ExactBoost(n_runs=2, n_rounds=5, random_state=0).fit(frame, y)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert list(loaded.feature_names_in_) == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(loaded.decision_function(frame), model.decision_function(frame))


def _tampered(model, edit):
    """The model's dictionary with ``edit(state, params)`` applied and a fresh checksum
    (as a deliberate forger would do), so that only content validation can catch it."""
    data = model_to_dict(model)
    edit(data["state"], data["params"])
    payload = {k: v for k, v in data.items() if k != "sha256"}
    data["sha256"] = _checksum(payload)
    return data


def _set_array(state, key, array):
    from rankcore.persistence import _encode

    state[key] = _encode(np.asarray(array), key)


def _decode_array(state, key):
    from rankcore.persistence import _decode

    return _decode(state[key], key)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s, p: _set_array(s, "stumps", np.where(np.arange(_decode_array(s, "stumps").size).reshape(-1, 4) == 1,
                                                     np.nan, _decode_array(s, "stumps"))), "finite"),
        (lambda s, p: _set_array(s, "stumps", _decode_array(s, "stumps") * np.array([1, 1, 3, 1])), r"\[-1, 1\]"),
        (lambda s, p: _set_array(s, "stumps", _decode_array(s, "stumps") + np.array([99, 0, 0, 0])),
         "features must be integers"),
        (lambda s, p: _set_array(s, "stumps", _decode_array(s, "stumps")[:, :3]), "shape"),
        (lambda s, p: _set_array(s, "run_lengths", _decode_array(s, "run_lengths") + 1), "sum to the number"),
        (lambda s, p: _set_array(s, "run_lengths", _decode_array(s, "run_lengths").astype(np.float64)), "int64"),
        (lambda s, p: _set_array(s, "train_loss", _decode_array(s, "train_loss")[:, :-1]), "train_loss"),
        (lambda s, p: s.update(metric="misrank"), "not monotone"),
        (lambda s, p: s.update(metric="auc"), "does not match"),
        (lambda s, p: s.update(n_features_in=0), "n_features_in"),
        (lambda s, p: s.update(classes=[1, 1]), "classes"),
        (lambda s, p: s.pop("train_loss"), "missing"),
        (lambda s, p: s.update(extra=1), "unexpected"),
        (lambda s, p: p.update(n_runs=4), "runs stored"),
        (lambda s, p: p.update(n_runs=-1), "n_runs"),
        (lambda s, p: s.update(feature_names_in=["x"]), "feature_names_in"),
    ],
    ids=["nan-stump", "value-out-of-range", "feature-out-of-range", "stumps-shape", "run-lengths-sum",
         "run-lengths-dtype", "loss-shape", "non-monotone-metric", "metric-mismatch", "no-features",
         "one-class", "missing-field", "extra-field", "n-runs-mismatch", "bad-param", "feature-names"],
)
def test_exactboost_tampered_state_is_refused(fitted, edit, message):
    model, _, _ = fitted
    data = _tampered(model, edit)
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(data)


def test_exactboost_string_labels_round_trip(tmp_path):
    X, y = make_classification(n_samples=100, n_features=4, random_state=2)
    labels = np.where(y == 1, "spam", "ham")
    model = ExactBoost(n_runs=2, n_rounds=5, random_state=0).fit(X, labels)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert list(loaded.classes_) == ["ham", "spam"]
    assert loaded.score(X, labels) == model.score(X, labels)


def test_exactboost_corrupted_file_is_refused(fitted, tmp_path):
    model, _, _ = fitted
    path = tmp_path / "model.json"
    save_model(model, path)
    text = path.read_text()
    path.write_text(text.replace('"prec@k:0.2"', '"prec@k:0.3"', 1))
    with pytest.raises(ModelFormatError, match="checksum"):
        load_model(path)


def test_exactboost_unfitted_cannot_be_saved(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        save_model(ExactBoost(), tmp_path / "m.json")


def test_exactboost_model_with_no_stumps_round_trips(tmp_path):
    """A run may accept nothing (e.g. pure noise): still a valid, loadable model."""
    rng = np.random.default_rng(0)
    X = np.ones((30, 2))
    y = rng.integers(0, 2, 30)
    y[:2] = [0, 1]
    model = ExactBoost(n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    assert model.stumps_.shape == (0, 4)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.decision_function(X), np.zeros(30))
    assert rankcore.resolve("metric", "auc").loss(y, loaded.decision_function(X)) == 0.5

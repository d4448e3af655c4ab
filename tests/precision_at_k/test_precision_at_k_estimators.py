"""PerceptronAtK and SGDAtK as scikit-learn estimators, and saved models."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

from rankcore import PerceptronAtK, SGDAtK, load_model, save_model
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict

# Checks that fail by design, and why:
EXPECTED_FAILED_CHECKS = {
    # rankcore's validation raises TypeError (the wrong kind of value) for
    # complex input, by the project's error convention; scikit-learn wants ValueError.
    "check_complex_data": "complex X raises TypeError (rankcore convention), not ValueError",
    # 1-D X is refused with rankcore's message ("expected a 2-D array ...; reshape
    # a single feature with X.reshape(-1, 1)"), not the exact text "Reshape your data".
    "check_fit2d_predict1d": "rankcore's own message for 1-D X",
}


@parametrize_with_checks(
    [PerceptronAtK(), PerceptronAtK(variant="max", batch_size=8), SGDAtK(), SGDAtK(surrogate="struct", radius=5.0)],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_precision_at_k_sklearn_compatible(estimator, check):
    check(estimator)


def _data(seed=0, n=300, d=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] - X[:, 1] + rng.standard_normal(n) > 1.2).astype(int)
    return X, y


@pytest.mark.parametrize("estimator", [PerceptronAtK(variant="max", random_state=0),
                                       SGDAtK(surrogate="max", radius=3.0, alpha=1e-3, random_state=0)],
                         ids=["perceptron", "sgd"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_save_load_round_trip(tmp_path, estimator, sparse):
    X, y = _data()
    Xin = sp.csr_matrix(X) if sparse else X
    model = clone(estimator).fit(Xin, np.where(y == 1, "yes", "no"))
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.decision_function(Xin), model.decision_function(Xin))
    assert list(loaded.classes_) == ["no", "yes"]
    for name in ("coef_", "mistakes_per_epoch_", "loss_per_epoch_", "surrogate_per_epoch_"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
    assert (loaded.t_, loaded.n_iter_) == (model.t_, model.n_iter_)
    # a loaded model goes on learning exactly like the original
    model.partial_fit(Xin[:50], np.where(y[:50] == 1, "yes", "no"))
    loaded.partial_fit(Xin[:50], np.where(y[:50] == 1, "yes", "no"))
    np.testing.assert_array_equal(loaded.coef_, model.coef_)


def test_save_load_keeps_feature_names(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = _data()
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    model = SGDAtK(random_state=0).fit(frame, y)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert list(loaded.feature_names_in_) == list(frame.columns)
    np.testing.assert_array_equal(loaded.decision_function(frame), model.decision_function(frame))


def _tampered(model, edit):
    data = model_to_dict(model)
    edit(data)
    # re-sign, so that the estimator's own validation (not the checksum) is tested
    from rankcore.persistence import _checksum

    data["sha256"] = _checksum({k: v for k, v in data.items() if k != "sha256"})
    return data


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda d: d["state"].update(n_features_in_=99), "n_features_in_ = 99"),
        (lambda d: d["state"].update(classes_=[1, 1]), "two distinct labels"),
        (lambda d: d["state"].update(classes_=[1, 0]), "sorted"),
        (lambda d: d["state"].update(t_=-1), r"t_ must be an integer in \[0, "),
        (lambda d: d["state"].update(n_iter_=7), "n_iter_ = 7 entries"),
        (lambda d: d["state"].pop("coef_"), "missing"),
        (lambda d: d["state"].update(extra=1), "unexpected"),
        (lambda d: d["state"].update(coef_={"__float__": "nan"}), "coef_ must be"),
        (lambda d: d["state"].update(feature_names_in_=["a"]), "feature_names_in_"),
        (lambda d: d["params"].update(variant="median"), "invalid parameters|variant"),
    ],
)
def test_load_rejects_tampered_state(edit, match):
    X, y = _data()
    model = PerceptronAtK(random_state=0).fit(X, y)
    data = _tampered(model, edit)
    # parameters from a file are validated on load, as fit validates them
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(data)


def test_load_rejects_nonfinite_weights():
    X, y = _data()
    model = SGDAtK(random_state=0).fit(X, y)

    def edit(d):
        coef = np.array(model.coef_)
        coef[0] = np.inf
        from rankcore.persistence import _encode

        d["state"]["coef_"] = _encode(coef, "coef_")

    with pytest.raises(ModelFormatError, match="non-finite"):
        model_from_dict(_tampered(model, edit))


def test_load_rejects_edited_file(tmp_path):
    X, y = _data()
    path = tmp_path / "m.json"
    save_model(SGDAtK(random_state=0).fit(X, y), path)
    data = json.loads(path.read_text())
    data["state"]["t_"] += 1
    path.write_text(json.dumps(data))
    with pytest.raises(ModelFormatError, match="checksum"):
        load_model(path)


def test_decision_function_and_score():
    X, y = _data()
    model = PerceptronAtK(k=0.1, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), X @ model.coef_)
    np.testing.assert_allclose(model.decision_function(sp.csr_matrix(X)), X @ model.coef_)
    assert 0.0 <= model.score(X, y) <= 1.0
    with pytest.raises(ValueError, match="features"):
        model.decision_function(X[:, :3])
    with pytest.raises(ValueError, match="labels"):
        model.score(X, y[:-1])
    with pytest.raises(Exception, match="not fitted"):
        SGDAtK().decision_function(X)


def test_grid_search_uses_prec_at_k_score():
    X, y = _data(n=400)
    search = GridSearchCV(SGDAtK(k=0.1, n_epochs=3, random_state=0), {"eta0": [0.1, 1.0]}, cv=3).fit(X, y)
    assert 0.0 <= search.best_score_ <= 1.0


@pytest.mark.parametrize("cls", ["SGDAtK", "PerceptronAtK"])
@pytest.mark.parametrize("y", [[1, "a", 0, 1, "a", 0], [None, 1, 0, 1, 0, 1]], ids=["text-and-int", "none"])
def test_partial_fit_names_labels_of_mixed_types(cls, y):
    # NumPy's own "'<' not supported between instances" named no argument
    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(TypeError, match=r"^y: labels of mixed types cannot be ordered"):
        {"SGDAtK": SGDAtK, "PerceptronAtK": PerceptronAtK}[cls]().partial_fit(X, np.array(y, dtype=object))


@pytest.mark.parametrize("cls", [PerceptronAtK, SGDAtK])
@pytest.mark.parametrize("n_epochs", [2**31, 2**63, 10**308])
def test_epochs_beyond_a_c_int_are_refused_by_name(cls, n_epochs):
    # every pass runs (no convergence stop): 10**308 passes never ended
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=r"^n_epochs: expected a positive integer, at most 2147483647, got "):
        cls(n_epochs=n_epochs).fit(X, y)

"""KernelRanker models round-trip through rankcore.persistence (JSON, no pickle) and tampering is refused."""

import json

import numpy as np
import pytest

from rankcore import KernelRanker, load_model, save_model
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict, _checksum

rng = np.random.default_rng(0)
X = rng.normal(size=(60, 3))
y = np.floor(X[:, 0] * 2 + X[:, 1])


@pytest.mark.parametrize("params", [
    {},
    {"lam": [0.1, 0.01], "filter": ["tikhonov", "landweber:0.5"]},
    {"lam": "holdout", "random_state": 0, "refit": False},
    {"lam": "apriori", "apriori_sizes": (12, 16, 20), "random_state": 0},
    {"solver": "nystroem", "n_components": 20, "random_state": 1, "kernel": "laplacian"},
    {"kernel": "poly:2", "gamma": 3.0, "filter": "iterated:4"},
], ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_round_trip(params, tmp_path):
    model = KernelRanker(**params).fit(X, y)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert type(loaded) is KernelRanker
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    def plain(params):  # JSON gives tuples back as lists
        return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}

    assert plain(loaded.get_params()) == plain(model.get_params())
    assert loaded.kernel_ == model.kernel_ and loaded.filters_ == model.filters_
    assert (loaded.lam_ == model.lam_) and loaded.target_type_ == model.target_type_
    if model.lam_ is not None:
        assert loaded.score(X, y) == model.score(X, y)


def test_round_trip_string_labels_and_feature_names(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    labels = np.where(y > 0, "high", "low")
    model = KernelRanker().fit(frame, labels)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert list(loaded.classes_) == ["high", "low"]
    assert list(loaded.feature_names_in_) == ["a", "b", "c"]
    np.testing.assert_array_equal(loaded.decision_function(frame), model.decision_function(frame))


def test_callable_kernel_cannot_be_saved(tmp_path):
    model = KernelRanker(kernel=lambda A, B: A @ B.T).fit(X, y)
    with pytest.raises(TypeError, match="kernel"):
        save_model(model, tmp_path / "m.json")
    with pytest.raises(TypeError, match="callable kernel"):
        model._get_fitted_state()


def _resigned(data):
    payload = {k: v for k, v in data.items() if k != "sha256"}
    data["sha256"] = _checksum(payload)
    return data


def test_edited_file_is_refused(tmp_path):
    model = KernelRanker(lam=[0.1, 0.01]).fit(X, y)
    save_model(model, tmp_path / "m.json")
    text = (tmp_path / "m.json").read_text()
    data = json.loads(text)
    data["state"]["target_type"] = "bipartite" if data["state"]["target_type"] == "graded" else "graded"
    (tmp_path / "m.json").write_text(json.dumps(data))
    with pytest.raises(ModelFormatError, match="checksum"):
        load_model(tmp_path / "m.json")


@pytest.mark.parametrize("tamper, match", [
    (lambda s: s.update(kernel="rbf"), "depends on the training data"),
    (lambda s: s.update(kernel="nonsense"), "nonsense"),
    (lambda s: s.update(filters=[]), "filters"),
    (lambda s: s.update(n_features_in=7), "support"),
    (lambda s: s.update(single_lam=True), "lams"),
    (lambda s: s.update(solver="qr"), "solver"),
    (lambda s: s.update(target_type="ordinal"), "target_type"),
    (lambda s: s.pop("spectrum"), "missing"),
    (lambda s: s.update(extra=1), "unexpected"),
    (lambda s: s["lams"].update(shape=[3]), "bytes"),
])
def test_crafted_state_is_validated(tamper, match):
    model = KernelRanker(lam=[0.1, 0.01]).fit(X, y)
    data = model_to_dict(model)
    tamper(data["state"])
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(_resigned(data))


def test_crafted_non_finite_coefficients_are_refused():
    import base64

    model = KernelRanker().fit(X, y)
    data = model_to_dict(model)
    coef = model.dual_coef_.copy()
    coef[3] = np.nan
    data["state"]["dual_coef"]["__ndarray__"] = base64.b64encode(coef.astype("<f8").tobytes()).decode()
    with pytest.raises(ModelFormatError, match="NaN"):
        model_from_dict(_resigned(data))
    data = model_to_dict(model)
    spec = np.array([-1.0, 0.5])
    data["state"]["spectrum"] = {"__ndarray__": base64.b64encode(spec.tobytes()).decode(), "dtype": "<f8", "shape": [2]}
    with pytest.raises(ModelFormatError, match="spectrum"):
        model_from_dict(_resigned(data))


@pytest.mark.parametrize("change, match", [
    (dict(kernel="linear"), r"kernel 'rbf:.*' does not match the parameters \(kernel 'linear'\)"),
    (dict(filter="cutoff"), r"filters \['tikhonov'\] are not among the parameters' filters \['cutoff'\]"),
    (dict(kernel="poly", degree=3), r"does not match the parameters"),
])
def test_stored_kernel_and_filters_must_be_the_parameters(tmp_path, change, match):
    # set_params after the fit saved a file whose parameters said linear/cutoff while it scored with rbf/tikhonov
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    model = KernelRanker(kernel="rbf", filter="tikhonov", lam=0.1).fit(X, y)
    model.set_params(**change)
    with pytest.raises(ValueError, match=match):
        save_model(model, tmp_path / "m.json")
    data = model_to_dict(KernelRanker(kernel="rbf", filter="tikhonov", lam=0.1).fit(X, y))
    data["params"].update(change)                         # an edited file, its checksum recomputed
    data.pop("sha256")
    data["sha256"] = _checksum(data)
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(data)

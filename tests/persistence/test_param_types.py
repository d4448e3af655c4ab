"""A loaded model's ``get_params()`` equals the fitted one's: tuples stay tuples and component objects stay
objects (JSON has lists and strings only), and the file's header fields are checked."""

import json

import numpy as np
import pytest
from sklearn.base import clone

import rankcore
from rankcore import persistence
from rankcore.cli.info import describe_model
from rankcore.persistence import ModelFormatError, load_model_file, model_from_dict, model_to_dict
from rankcore.registry import resolve

_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(200, 4))
_X[:, 3] = _RNG.integers(0, 4, 200)
_Y = (_X[:, 0] + _RNG.normal(size=200) > 0.8).astype(int)


def _resigned(data: dict) -> dict:
    data["sha256"] = persistence._checksum({k: v for k, v in data.items() if k != "sha256"})
    return data


def _same_params(a: dict, b: dict) -> bool:
    return a == b and all(type(a[k]) is type(b[k]) for k in a)


@pytest.mark.parametrize("model", [
    rankcore.boost(learner="trees", categorical_features=(3,), n_iter=3, random_state=0),
    rankcore.boost(learner=resolve("learner", "trees:max_depth=3"), n_iter=3, random_state=0),
    rankcore.boost(loss=resolve("loss", "logistic"), price=resolve("price", "pow:4"), n_iter=3),
    rankcore.ExactBoost(metric=resolve("metric", "ks"), n_rounds=2, n_runs=3, random_state=0),
], ids=["tuple", "learner-object", "loss-and-price-objects", "metric-object"])
def test_loaded_params_equal_the_fitted_ones_with_their_types(tmp_path, model):
    model.fit(_X, _Y)
    rankcore.save_model(model, tmp_path / "m.json")
    loaded = rankcore.load_model(tmp_path / "m.json")
    assert _same_params(loaded.get_params(deep=False), model.get_params(deep=False))
    assert _same_params(clone(loaded).get_params(deep=False), model.get_params(deep=False))
    assert loaded.decision_function(_X).tobytes() == model.decision_function(_X).tobytes()


def test_info_says_marked_parameters_plainly(tmp_path):
    model = rankcore.boost(learner=resolve("learner", "trees:max_depth=3"), categorical_features=(3,), n_iter=3,
                           random_state=0).fit(_X, _Y)
    rankcore.save_model(model, tmp_path / "m.json")
    params = describe_model(*load_model_file(tmp_path / "m.json"))["params"]
    assert params["learner"] == model.learner.spec and params["categorical_features"] == [3]


def test_a_string_parameter_stays_a_string():
    model = rankcore.boost(learner="trees:max_depth=3", n_iter=2, random_state=0).fit(_X, _Y)
    assert model_from_dict(model_to_dict(model)).get_params()["learner"] == "trees:max_depth=3"


@pytest.mark.parametrize("record, said", [
    ({"__tuple__": 3}, "params.categorical_features: malformed tuple record"),
    ({"__tuple__": [3], "x": 1}, "params.categorical_features: malformed tuple record"),
    ({"__component__": "learner"}, "params.learner: malformed component record"),
    ({"__component__": "nonsense", "spec": "trees"}, "params.learner: 'nonsense' is not a component family"),
    ({"__component__": "learner", "spec": "no-such-learner"}, "params.learner: learner 'no-such-learner' cannot"),
])
def test_a_malformed_marked_parameter_is_refused_by_name(record, said):
    model = rankcore.boost(learner="trees", categorical_features=(3,), n_iter=2, random_state=0).fit(_X, _Y)
    data = model_to_dict(model)
    key = "categorical_features" if "__tuple__" in record else "learner"
    data["params"][key] = record
    with pytest.raises(ModelFormatError, match=rf"^m\.json: {said}"):
        model_from_dict(_resigned(data), source="m.json")


@pytest.mark.parametrize("version", [5, None, "banana", "", ["0.1.0"]])
def test_a_file_whose_rankcore_version_is_no_version_is_refused(version):
    data = model_to_dict(rankcore.boost(n_iter=2).fit(_X, _Y))
    data["rankcore_version"] = version
    with pytest.raises(ModelFormatError, match=r"^m\.json: rankcore_version .* is not a rankcore version"):
        model_from_dict(_resigned(data), source="m.json")


@pytest.mark.parametrize("version", ["0.1.0", "1.2.0rc1", "0.2.0.dev3+g1234abc"])
def test_a_release_version_loads(version):
    data = model_to_dict(rankcore.boost(n_iter=2).fit(_X, _Y))
    data["rankcore_version"] = version
    assert model_from_dict(json.loads(json.dumps(_resigned(data)))).n_iter == 2

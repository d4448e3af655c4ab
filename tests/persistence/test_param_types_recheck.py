"""A model file's typed parameters, attacked: components the file cannot rebuild as they were are refused at save,
a component's parameters cannot drift from its spec, a list where the default is a tuple stays a list, and a
hand-made component record names its parameter."""

import json

import numpy as np
import pytest

import rankcore
from rankcore import persistence
from rankcore.metrics import Metric
from rankcore.persistence import ModelFormatError, model_from_dict, model_text, model_to_dict
from rankcore.prices._builtin import Power
from rankcore.registry import resolve

_RNG = np.random.default_rng(2)
_X = _RNG.normal(size=(150, 3))
_Y = (_X[:, 0] + _RNG.normal(size=150) > 0.8).astype(int)


def _resigned(data: dict) -> dict:
    data["sha256"] = persistence._checksum({k: v for k, v in data.items() if k != "sha256"})
    return data


def test_a_built_components_parameter_cannot_change_under_its_spec():
    price = resolve("price", "pow:4")
    with pytest.raises(AttributeError, match=r"price 'pow': parameter p cannot be changed after it is built "
                                             r"\(its spec 'pow:4'"):
        price.p = 8.0                       # else a model fitted with p = 8 was saved, and loaded, as pow:4
    assert price.p == 4.0 and price.spec == "pow:4" and price == resolve("price", "pow:4")
    price.note = "kept"                     # an attribute that is no parameter is the caller's
    assert price.note == "kept"


class _Unregistered(Metric):
    name = "unregistered_auc"
    greater_is_better = True

    def __call__(self, y_true, y_score, **kwargs):
        return float(np.mean(y_score[y_true == 1]) > np.mean(y_score[y_true == 0]))


def test_an_unregistered_metric_object_is_refused_at_save_by_its_parameter():
    model = rankcore.boost(n_iter=2, scoring=_Unregistered()).fit(_X, _Y)
    with pytest.raises(ValueError, match=r"^params\.scoring: the metric 'unregistered_auc' \(_Unregistered\) cannot "
                                         r"be saved: .* register its class"):
        model_text(model)


class _PowerLookalike(Power):
    """A subclass that keeps its parent's name: its spec rebuilds the parent, not it."""


def test_a_component_its_spec_rebuilds_as_another_class_is_refused_at_save():
    model = rankcore.boost(n_iter=2, price=_PowerLookalike(p=4.0)).fit(_X, _Y)
    with pytest.raises(ValueError, match=r"^params\.price: the price 'pow:4' \(_PowerLookalike\) cannot be saved: "
                                         r"its spec rebuilds a Power, another component"):
        model_text(model)


def test_a_list_where_the_default_is_a_tuple_loads_as_a_list():
    model = rankcore.KernelRanker(apriori_sizes=[20, 30], random_state=0).fit(_X, _Y)
    text = model_text(model)
    loaded = model_from_dict(json.loads(text))
    assert type(loaded.apriori_sizes) is list and loaded.apriori_sizes == [20, 30]
    assert model_text(loaded) == text
    as_tuple = model_from_dict(json.loads(model_text(rankcore.KernelRanker(apriori_sizes=(20, 30)).fit(_X, _Y))))
    assert type(as_tuple.apriori_sizes) is tuple


@pytest.mark.parametrize("key, record, said", [
    ("learner", {"__component__": "estimator", "spec": "PushBoost"},
     "params.learner: 'estimator' is not a component family a parameter holds"),
    ("price", {"__component__": "price", "spec": "not_installed_price"},
     "params.price: price 'not_installed_price' cannot be rebuilt: unknown price .* install the plugin"),
    ("price", {"__component__": "loss", "spec": "exp"}, "invalid parameters: price: expected a spec string or a Price"),
    ("categorical_features", {"__list__": 3}, "params.categorical_features: malformed list record"),
])
def test_a_hand_made_component_record_is_refused_naming_its_parameter(key, record, said):
    data = model_to_dict(rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(_X, _Y))
    data["params"][key] = record
    with pytest.raises(ModelFormatError, match=rf"^m\.json: .*{said}"):
        model_from_dict(_resigned(data), source="m.json")


def test_a_file_that_marks_nothing_loads_to_the_same_scores():
    # the files written before tuples and components were marked: plain lists, spec strings
    model = rankcore.boost(learner=resolve("learner", "trees:max_depth=2"), categorical_features=(2,), n_iter=3,
                           random_state=0).fit(np.column_stack([_X[:, :2], _RNG.integers(0, 3, 150)]), _Y)
    data = model_to_dict(model)
    data["params"] = persistence._encode(model.get_params(deep=False), "params")
    assert data["params"]["learner"] == "trees:31,0.1,2" and data["params"]["categorical_features"] == [2]
    loaded = model_from_dict(_resigned(data))
    X = np.column_stack([_X[:, :2], _RNG.integers(0, 3, 150)])
    assert loaded.decision_function(X).tobytes() == model.decision_function(X).tobytes()


@pytest.mark.parametrize("record", [
    {"__tuple__": [{"__ndarray__": "AQAAAAAAAAA=", "dtype": "<i8", "shape": [1]}]},
    {"__tuple__": [{"__component__": "metric", "spec": "auc"}]},
    [1.0],
])
def test_categorical_features_a_fit_would_refuse_are_refused_at_load(record):
    # the fit's check was made only when the file had no category columns of its own and ranked within queries
    model = rankcore.boost(learner="trees", categorical_features=(2,), n_iter=2, random_state=0).fit(
        np.column_stack([_X[:, :2], _RNG.integers(0, 3, 150)]), _Y)
    data = model_to_dict(model)
    data["params"]["categorical_features"] = record
    with pytest.raises(ModelFormatError, match=r"^m\.json: PushBoost state: categorical_features: expected column "
                                               r"indices, a boolean mask or column names, not a mix"):
        model_from_dict(_resigned(data), source="m.json")

"""Every estimator resolves its spec parameters once per fit, and prediction and the tags resolve nothing.

Resolutions are counted by wrapping ``Registry.resolve`` (every spec string
or component resolved anywhere goes through it), per (family, spec).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone

import rankcore
from rankcore._estimators import BUILTIN_ESTIMATORS
from _resolutions import resolutions  # noqa: F401  (the fixture)
from rankcore.registry import registry


def _data(n=90, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.4).astype(int)
    return X, y


def _examples():
    """(id, unfitted estimator) for every example spec of every built-in estimator but AutoRanker."""
    out = []
    for target in BUILTIN_ESTIMATORS:
        cls = registry().get("estimator", target.partition(":")[2])
        if cls.name == "AutoRanker":
            continue
        for spec in cls.example_specs():
            out.append(pytest.param(spec, id=spec))
    out.append(pytest.param("PushBoost:learner=trees,loss=logistic,price=pow:8,n_iter=3,random_state=0",
                            id="PushBoost-every-spec-parameter"))
    out.append(pytest.param("KernelRanker:lam=holdout,filter=iterated:2,metric=auc,random_state=0",
                            id="KernelRanker-holdout"))
    return out


def _estimator(spec: str):
    return registry().resolve("estimator", spec)


@pytest.mark.parametrize("spec", _examples())
def test_a_fit_resolves_each_spec_once_and_scoring_resolves_nothing(spec, resolutions):
    X, y = _data()
    estimator = _estimator(spec)
    resolutions.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X, y)
    again = {key: count for key, count in resolutions.items() if count > 1}
    assert not again, f"{spec}: resolved more than once in one fit: {again}"
    resolutions.clear()
    estimator.decision_function(X)
    estimator.__sklearn_tags__()
    assert not resolutions, f"{spec}: decision_function and the tags resolved {dict(resolutions)}"


@pytest.mark.parametrize("spec", _examples())
def test_the_tags_of_an_unfitted_estimator_resolve_nothing(spec, resolutions):
    estimator = _estimator(spec)
    resolutions.clear()
    estimator.__sklearn_tags__()
    assert not resolutions


def test_auto_ranker_resolves_each_candidate_at_most_twice(resolutions):
    X, y = _data(n=150)
    auto = rankcore.AutoRanker(candidates=["trees", "linear", "kernel"], random_state=0)
    resolutions.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto.fit(X, y)
    candidates = {spec: count for (family, spec), count in resolutions.items() if family == "candidate"}
    assert set(candidates) == {"trees", "linear", "kernel"}
    assert max(candidates.values()) <= 2, candidates
    resolutions.clear()
    auto.decision_function(X)
    assert not resolutions


def test_the_setup_record_is_kept_per_parameter_state_and_never_a_parameter(resolutions):
    model = rankcore.boost(price="pow:8", n_iter=3)
    first = model._setup_record()
    assert model._setup_record() is first
    assert "_setup_cache" not in model.get_params() and not hasattr(clone(model), "_setup_cache")
    model.set_params(price="pow:2")
    assert model._setup_record().objective.price_component.p == 2.0
    model.price = "pow:16"                      # an assignment changes the state too
    assert model._setup_record().objective.price_component.p == 16.0
    X, y = _data()
    model.fit(X, y)
    assert model._setup_record().objective.price_component.p == 16.0


def test_the_push_objective_takes_resolved_components_without_resolving_them(resolutions):
    from rankcore.objectives._push import PushObjective

    loss, price = registry().resolve("loss", "logistic"), registry().resolve("price", "pow:8")
    resolutions.clear()
    objective = PushObjective(loss=loss, price=price)
    assert not resolutions
    assert objective.spec == "push:logistic,pow:8"
    assert objective.loss_component is loss and objective.price_component is price


@pytest.mark.parametrize("spec", _examples())
def test_loading_a_model_file_resolves_each_spec_once(spec, resolutions, tmp_path):
    X, y = _data()
    estimator = _estimator(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X, y)
    rankcore.save_model(estimator, tmp_path / "model.json")
    resolutions.clear()
    loaded = rankcore.load_model(tmp_path / "model.json")
    again = {key: count for key, count in resolutions.items() if count > 1}
    assert not again, f"{spec}: resolved more than once in one load: {again}"
    np.testing.assert_array_equal(loaded.decision_function(X), estimator.decision_function(X))

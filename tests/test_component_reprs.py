"""A registered component prints as Python that rebuilds it (``rankcore.resolve('loss', 'exp')``), so an estimator
holding one prints as scikit-learn's reprs do; messages keep naming components by their specs."""

import numpy as np
import pytest

import rankcore
from rankcore import PushBoost
from rankcore.registry import registry
from rankcore.spec import Component, show_value


def _examples():
    for entry in registry().all_entries():
        if not issubclass(entry.cls, Component):      # estimators print as scikit-learn's do
            continue
        for spec in entry.cls.example_specs():
            yield pytest.param(entry.family, spec, id=f"{entry.family}-{spec}")


@pytest.mark.parametrize("family, spec", list(_examples()))
def test_every_registered_example_prints_as_python_that_rebuilds_it(family, spec):
    component = rankcore.resolve(family, spec)
    text = repr(component)
    assert text.startswith("rankcore.resolve(")
    assert eval(text, {"rankcore": rankcore}) == component      # the repr printed "<loss exp>" before


def test_a_class_no_registry_entry_names_prints_a_form_that_is_not_python():
    exp = type(rankcore.resolve("loss", "exp"))

    class MyExp(exp):
        pass

    text = repr(MyExp())
    assert text == "<unregistered loss exp (test_a_class_no_registry_entry_names_prints_a_form_that_is_not_python." \
                   "<locals>.MyExp)>"
    with pytest.raises(SyntaxError):
        eval(text, {"rankcore": rankcore})


def test_an_estimator_holding_components_prints_as_python():
    model = PushBoost(loss=rankcore.resolve("loss", "exp"), price=rankcore.resolve("price", "pow:4"), n_iter=5)
    text = repr(model)
    assert "loss=rankcore.resolve('loss', 'exp')" in text and "price=rankcore.resolve('price', 'pow:4')" in text
    again = eval(text, {"rankcore": rankcore, "PushBoost": PushBoost})
    assert again.get_params() == model.get_params()
    assert "rankcore.resolve(&#x27;price&#x27;, &#x27;pow:4&#x27;)" in model._repr_html_()


def test_messages_name_a_component_by_its_spec():
    price = rankcore.resolve("price", "pow:4")
    assert show_value(price) == "'pow:4'"
    with pytest.raises(TypeError, match=r"^loss: expected a spec string or a Loss, got the price 'pow:4'$"):
        rankcore.resolve("loss", price)
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1, 0, 1, 0, 1])
    model = PushBoost(objective=rankcore.resolve("objective", "push:exp,pow:2"), loss="logistic", n_iter=2)
    with pytest.raises(ValueError, match=r"^objective='push:exp,pow:2' replaces loss and price; got also "
                                         r"loss='logistic' \(leave them"):
        model.fit(X, y)
    # only what was set: boost's loss='exp' is the default, no conflict to name (a search over objective and price)
    with pytest.raises(ValueError, match=r"^objective='lambdarank' replaces loss and price; got also "
                                         r"price='pow:4' \(leave them"):
        rankcore.boost(objective="lambdarank", price="pow:4", n_iter=2).fit(X, y, qid=[0, 0, 0, 1, 1, 1])


def test_refusals_of_a_component_of_another_family_name_it_by_family_and_spec():
    X, y = np.arange(24.0).reshape(12, 2), np.array([0, 1] * 6)
    loss = rankcore.resolve("loss", "exp")
    with pytest.raises(TypeError, match=r"^kernel: expected a kernel spec .* got the loss 'exp'$"):
        rankcore.KernelRanker(kernel=loss).fit(X, y)
    with pytest.raises(TypeError, match=r"^filter: expected a filter spec .* got the loss 'exp'$"):
        rankcore.KernelRanker(filter=loss).fit(X, y)


def test_position_bias_em_names_a_component_objective_by_its_spec():
    X, y = np.arange(24.0).reshape(12, 2), np.array([0, 1] * 6)
    model = rankcore.boost(objective=rankcore.resolve("objective", "lambdarank"), position_bias="em",
                           learner="trees")
    with pytest.raises(ValueError, match=r"^objective='lambdarank': position_bias='em' refits"):
        model.fit(X, y, qid=np.repeat([0, 1], 6), position=np.tile(np.arange(6), 2))


def test_a_repr_while_the_registry_is_built_does_not_build_it_again():
    from rankcore import registry as registry_module

    component = rankcore.resolve("price", "pow:4")
    saved = registry_module._state["registry"]
    registry_module._state["registry"], registry_module._state["building"] = None, __import__("threading").get_ident()
    try:
        assert repr(component).startswith("<unregistered price pow:4 (")   # no second build, no recursion
    finally:
        registry_module._state["registry"], registry_module._state["building"] = saved, None
    assert repr(component) == "rankcore.resolve('price', 'pow:4')"

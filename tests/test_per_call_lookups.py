"""A fitted estimator's scores do not look its components up again on every call (a scoring service's requests)."""
import numpy as np
import pytest

import rankcore
import rankcore.spec
from rankcore.base import declared_attribute
from rankcore.registry import registry


def test_scoring_again_parses_no_spec(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + rng.normal(size=300) > 0.5).astype(int)
    model = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(X, y)
    first = model.decision_function(X[:1])
    parsed = []
    real = rankcore.spec.parse_spec
    monkeypatch.setattr(rankcore.spec, "parse_spec", lambda *a, **k: parsed.append(a) or real(*a, **k))
    for _ in range(3):
        np.testing.assert_array_equal(model.decision_function(X[:1]), first)
    # before, the estimator's tags (asked twice a call) parsed the learner's spec each time to read allow_nan
    assert parsed == []


def test_a_declaration_read_once_still_answers_each_callers_default():
    assert declared_attribute("learner", "trees:max_leaves=8", "allow_nan", None) is True
    assert declared_attribute("learner", "trees:max_leaves=8", "no_such_declaration", "a") == "a"
    assert declared_attribute("learner", "trees:max_leaves=8", "no_such_declaration", "b") == "b"
    assert declared_attribute("learner", "no-such-learner", "allow_nan", 7) == 7
    assert declared_attribute("learner", "no-such-learner", "allow_nan", 8) == 8
    assert registry().declared("learner", "stumps", "allow_nan", "x") == getattr(
        registry().get("learner", "stumps"), "allow_nan", "x")


def test_a_missing_attribute_still_says_where_a_property_failed():
    model = rankcore.KernelRanker()
    # a property that raises AttributeError is run again for its own message: found among the class's names
    with pytest.raises(AttributeError, match="training_curve_: KernelRanker is not iterative"):
        model.training_curve_
    with pytest.raises(AttributeError, match="'KernelRanker' object has no attribute 'no_such_attribute'"):
        model.no_such_attribute


def test_a_class_made_at_run_time_is_not_kept_by_the_names_cache():
    import gc
    import weakref

    made = type("MadeAtRunTime", (rankcore.KernelRanker,), {})
    with pytest.raises(AttributeError, match="no attribute 'no_such_attribute'"):
        made().no_such_attribute
    alive = weakref.ref(made)
    del made
    gc.collect()
    # before, an unbounded lru_cache keyed on the class held every such class (and its own cache) for good
    assert alive() is None


def test_a_declaration_changed_at_run_time_is_read_again(monkeypatch):
    learner = registry().get("learner", "trees")
    assert declared_attribute("learner", "trees:max_leaves=8", "allow_nan", False) is True
    # before, the first answer was kept for the registry's life: a test monkeypatching a declaration saw the old one
    monkeypatch.setattr(learner, "allow_nan", False)
    assert declared_attribute("learner", "trees:max_leaves=8", "allow_nan", True) is False


def test_many_spec_strings_do_not_grow_the_declarations_without_bound(monkeypatch):
    import rankcore.registry as registry_module

    monkeypatch.setattr(registry_module, "DECLARED_SPECS", 8)
    reg = registry()
    for k in range(50):          # a random search names every configuration once
        assert reg.declared("learner", f"trees:max_leaves={k + 2}", "allow_nan", None) is True
        assert reg.declared("learner", f"no-such-learner-{k}", "allow_nan", k) == k
    assert len(reg._declared) <= 8


def test_a_property_set_on_the_class_after_a_first_lookup_still_gives_its_own_message(monkeypatch):
    model = rankcore.KernelRanker()
    with pytest.raises(AttributeError, match="no attribute 'made_later_'"):
        model.made_later_

    def fails(self):
        raise AttributeError("made_later_: its own message")

    monkeypatch.setattr(rankcore.KernelRanker, "made_later_", property(fails), raising=False)
    # before, the class's names were copied at the first lookup, without the property: the generic message
    with pytest.raises(AttributeError, match="made_later_: its own message"):
        model.made_later_


def test_a_declaration_made_a_property_is_read_on_the_configured_component(monkeypatch):
    learner = registry().get("learner", "trees")
    # a plugin whose declaration depends on its parameters; before, the class gave the property object (truthy)
    monkeypatch.setattr(learner, "allow_nan", property(lambda self: self.max_leaves > 8))
    assert declared_attribute("learner", "trees:max_leaves=8", "allow_nan", None) is False
    assert declared_attribute("learner", "trees:max_leaves=16", "allow_nan", None) is True
    # a spec the class refuses answers the caller's default, as an unknown name does
    assert declared_attribute("learner", "trees:max_leaves=-3", "allow_nan", "d") == "d"

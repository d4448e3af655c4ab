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

"""The exports' ``feature_names`` (an ordered sequence of strings, for ``to_xgboost_json`` and ``to_lightgbm``),
a model without trees written as one leaf of 0, with a warning, and the dump's refusal of a numeric split of a
column coded by its categories' positions."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.learners import checked_feature_names


def _fitted(n_iter=3, learner="trees:max_leaves=4"):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    return rankcore.boost(learner=learner, n_iter=n_iter, random_state=0).fit(X, (X[:, 0] + X[:, 1] > 0).astype(int))


def _splits(text):
    found, stack = set(), list(json.loads(text))
    while stack:
        node = stack.pop()
        if "split" in node:
            found.add(node["split"])
        stack.extend(node.get("children", ()))
    return found


@pytest.mark.parametrize("names", [["a", "b", "c"], ("a", "b", "c"), np.array(["a", "b", "c"]),
                                   pd.Index(["a", "b", "c"]), pd.Series(["a", "b", "c"])])
def test_ordered_sequences_of_names_are_taken(names):
    assert checked_feature_names(names, 3) == ["a", "b", "c"]
    model = _fitted()
    assert _splits(model.to_xgboost_json(feature_names=names)) <= {"a", "b", "c"}
    assert "feature_names=a b c" in model.to_lightgbm(feature_names=names)


@pytest.mark.parametrize("names, message", [
    ({"a", "b", "c"}, "got a set (unordered: its names would land on columns in hash order)"),
    (frozenset("abc"), "got a frozenset (unordered"),
    ({"a": 0, "b": 1, "c": 2}.keys(), "got a dict_keys"),
    ((name for name in "abc"), "got a generator"),
    (3, "got the int 3"),
    ("abc", "got the str 'abc'"),
    (b"abc", "got the bytes b'abc'"),
])
def test_unordered_or_non_sequences_are_refused_naming_the_argument(names, message):
    model = _fitted()
    for export in (model.to_xgboost_json, model.to_lightgbm):
        with pytest.raises(TypeError, match=r"^feature_names: expected a sequence of strings .*" + message.replace(
                "(", r"\(").replace(")", r"\)")):
            export(feature_names=names)


def test_lightgbm_names_are_checked_as_the_xgboost_names_are():
    model = _fitted()
    with pytest.raises(ValueError, match=r"feature_names: expected 3 names \(one per feature\), got 2"):
        model.to_lightgbm(feature_names=["a", "b"])
    with pytest.raises(ValueError, match="feature_names: expected a 1-D sequence of names, got an array of shape"):
        model.to_lightgbm(feature_names=np.array([["a", "b", "c"]]))
    with pytest.raises(ValueError, match="columns 0 and 1 are both named 'a'"):
        model.to_lightgbm(feature_names=["a", "a", "c"])
    with pytest.raises(ValueError, match="both 'a_b' in LightGBM's format"):       # distinct, but not once written
        model.to_lightgbm(feature_names=["a b", "a_b", "c"])
    lightgbm = pytest.importorskip("lightgbm")
    text = model.to_lightgbm(feature_names=["title bm25", "price", "age"])
    assert lightgbm.Booster(model_str=text).feature_name() == ["title_bm25", "price", "age"]


def test_a_model_without_trees_is_one_leaf_of_zero_with_a_warning(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                    # the fit's own "stopped ... (no_split)"
        model = rankcore.boost(learner="trees:min_samples_leaf=150", n_iter=5, random_state=0).fit(
            X, (X[:, 0] > 0).astype(int))
    assert len(model.rankers_) == 0
    with pytest.warns(UserWarning, match=r"PushBoost.to_xgboost_json: the model has no trees \(the fit stopped "
                                         r"before its first tree: stop_reason_ 'no_split'\), so it scores every row 0"):
        text = model.to_xgboost_json(tmp_path / "m.json")
    assert json.loads(text) == [{"nodeid": 0, "leaf": 0.0}]
    assert (tmp_path / "m.json").read_text(encoding="utf-8") == text
    np.testing.assert_array_equal(model.decision_function(X), np.zeros(X.shape[0]))


def test_a_model_with_trees_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(json.loads(_fitted().to_xgboost_json())) == 3


def test_the_shared_dump_writer_refuses_a_split_of_a_position_coded_column():
    from rankcore.learners import ThresholdRanker, numeric_split_on, xgboost_json_string

    stump = ThresholdRanker(feature=1, threshold=1.5)
    assert numeric_split_on(stump, [1]) == (0, 1) and numeric_split_on(stump, [0]) is None
    categories = [None, np.array([10, 20, 30, 40])]
    with pytest.raises(ValueError, match=r"^PushBoost: tree 0 splits feature 'f1' \(column 1\), a pandas 'category' "
                                         r"column at fit, as numbers at node 0: .*categories_\[1\]"):
        xgboost_json_string([stump], [1.0], 2, owner="PushBoost", categories=categories)
    assert json.loads(xgboost_json_string([stump], [1.0], 2, categories=[np.array([1, 2]), None]))

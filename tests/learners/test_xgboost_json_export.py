"""``to_xgboost_json``: the XGBoost JSON dump scores as ``decision_function`` on float32 features.

A plain-Python evaluator of the dump format (float32 semantics: features and
conditions read as float32, ``x < c`` to ``yes``, missing to ``missing``) is
first checked against XGBoost itself -- its own dumps, its ``pred_leaf`` and
its margins -- then used on rankcore's exports: the leaves reached are the
leaves ``apply`` names, and the sums of leaves are ``decision_function``.
"""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

import rankcore
from rankcore.learners import ThresholdRanker, xgboost_json_string
from rankcore.learners._lightgbm_trees import lightgbm_tree
from rankcore.learners._xgboost_json import FLOAT32_MAX, float32_condition, xgboost_feature_names, xgboost_node_ids
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import load_model, save_model
from _export_data import GROWTHS, SMALL, UNSPLIT_OBLIVIOUS, category_frame_model, grid_data, with_probe_values

INTERNAL_KEYS = ["nodeid", "depth", "split", "split_condition", "yes", "no", "missing", "children"]


# ----------------------------------------------------------------------------------------------------------------
# A plain-Python evaluator of the dump format
# ----------------------------------------------------------------------------------------------------------------
def _leaf_of(tree: dict, row, column: dict) -> dict:
    """The leaf object a row reaches: x and the condition as float32, x < c to yes, NaN to missing."""
    node = tree
    while "leaf" not in node:
        x = np.float32(row[column[node["split"]]])
        if math.isnan(x):
            target = node["missing"]
        else:
            target = node["yes"] if x < np.float32(node["split_condition"]) else node["no"]
        node = next(child for child in node["children"] if child["nodeid"] == target)
    return node


def evaluate(text: str, X, names) -> tuple[np.ndarray, np.ndarray]:
    """(leaf ids (rows × trees), Σ of the leaves in float64, trees in order) of the dump ``text`` on rows X."""
    trees = json.loads(text)
    column = {name: j for j, name in enumerate(names)}
    X = np.asarray(X)
    ids = np.zeros((X.shape[0], len(trees)), dtype=np.int64)
    sums = np.zeros(X.shape[0])
    for i, row in enumerate(X):
        s = 0.0
        for t, tree in enumerate(trees):
            leaf = _leaf_of(tree, row, column)
            ids[i, t] = leaf["nodeid"]
            s = s + float(leaf["leaf"])
        sums[i] = s
    return ids, sums


def _nodes(tree: dict):
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in node.get("children", ()))


# ----------------------------------------------------------------------------------------------------------------
# the evaluator against XGBoost itself
# ----------------------------------------------------------------------------------------------------------------
def _xgboost_probe(booster, X, seed=2):
    """X plus rows holding each split condition, its float32 neighbours and the float64 values around it."""
    rng = np.random.default_rng(seed)
    values = {np.nan, 0.0}
    for tree in booster.get_dump(dump_format="json"):
        for node, _ in _nodes(json.loads(tree)):
            if "split_condition" in node:
                c = np.float32(node["split_condition"])
                values.update(float(v) for v in (c, np.nextafter(c, np.float32(-np.inf)),
                                                 np.nextafter(c, np.float32(np.inf))))
                values.update((np.nextafter(float(c), -np.inf), np.nextafter(float(c), np.inf)))
    values = np.array(sorted(values, key=lambda v: (math.isnan(v), v)))
    extra = rng.choice(values, size=(max(100, 2 * len(values)), X.shape[1]))
    return np.vstack([X, extra])


@pytest.mark.parametrize("names", [None, ["a b", "c", "score(title)"]])
@pytest.mark.parametrize("params", [{"max_depth": 3}, {"grow_policy": "lossguide", "max_leaves": 6, "max_depth": 0}])
def test_evaluator_reproduces_xgboost(names, params):
    xgboost = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(400, 3)) * 4) / 4
    X[rng.random(X.shape) < 0.15] = np.nan
    y = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 + np.isnan(X[:, 2]) + 0.1 * rng.normal(size=400)
    booster = xgboost.train({"objective": "reg:squarederror", "base_score": 0.0, "tree_method": "hist",
                             "max_bin": 16, **params},
                            xgboost.DMatrix(X, label=y, feature_names=names), num_boost_round=6)
    dumps = booster.get_dump(dump_format="json")
    text = "[" + ",".join(dumps) + "]"
    probe = _xgboost_probe(booster, X)
    ids, sums = evaluate(text, probe, names or [f"f{j}" for j in range(3)])
    matrix = xgboost.DMatrix(probe, feature_names=names)
    np.testing.assert_array_equal(ids, booster.predict(matrix, pred_leaf=True).reshape(ids.shape))
    np.testing.assert_allclose(sums, booster.predict(matrix, output_margin=True), rtol=1e-6, atol=1e-6)


def test_the_dump_has_xgboosts_layout():
    xgboost = pytest.importorskip("xgboost")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    booster = xgboost.train({"max_depth": 2}, xgboost.DMatrix(X, label=X[:, 0] - X[:, 1]), num_boost_round=1)
    theirs = json.loads(booster.get_dump(dump_format="json")[0])
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=1, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    ours = json.loads(model.to_xgboost_json())[0]
    assert list(theirs) == list(ours) == INTERNAL_KEYS
    assert {tuple(node) for node, _ in _nodes(theirs) if "leaf" in node} == {("nodeid", "leaf")}
    assert {tuple(node) for node, _ in _nodes(ours) if "leaf" in node} == {("nodeid", "leaf")}


# ----------------------------------------------------------------------------------------------------------------
# the condition: x <= t as x < c, exact on float32 x
# ----------------------------------------------------------------------------------------------------------------
def _check_condition(t: float, xs) -> None:
    c, swapped = float32_condition(t)
    assert float(np.float32(c)) == c and float(repr(c)) == c and math.isfinite(c)
    for x in np.asarray(xs, dtype=np.float32):
        if swapped:
            assert float(x) <= t and not x < np.float32(c), (t, x)
        else:
            assert (float(x) <= t) == (x < np.float32(c)), (t, x, c)


def _float32_around(t: float) -> list:
    """The float32 values next to t (the two closest on each side), ±0 and the extremes."""
    up, down = np.float32(np.inf), np.float32(-np.inf)
    with np.errstate(over="ignore"):
        near = np.float32(t)
        values = [near, np.nextafter(near, up), np.nextafter(near, down), np.nextafter(np.nextafter(near, up), up),
                  np.nextafter(np.nextafter(near, down), down), 0.0, -0.0, FLOAT32_MAX, -FLOAT32_MAX]
    return [v for v in values if np.isfinite(v)]


EDGE_THRESHOLDS = [0.0, -0.0, 0.1, -0.1, 1.0, -1.0, 0.5 + 1e-12, 5e-324, -5e-324, 1e-45, 7e-46, -1e-45, 1e-38,
                   float(np.float32(1e-40)), FLOAT32_MAX, float(np.nextafter(FLOAT32_MAX, 0.0)),
                   float(np.nextafter(FLOAT32_MAX, np.inf)), 1e39, 1e300, -FLOAT32_MAX,
                   float(np.nextafter(-FLOAT32_MAX, -np.inf)), -3.5e38, -1e300, 16777217.0, 1e20]


@pytest.mark.parametrize("t", EDGE_THRESHOLDS)
def test_condition_at_the_edges(t):
    _check_condition(t, _float32_around(t))


def test_condition_values():
    tiny = float(np.nextafter(np.float32(0), np.float32(1)))
    assert float32_condition(0.0) == float32_condition(-0.0) == (tiny, False)
    assert float32_condition(1.0) == (float(np.nextafter(np.float32(1), np.float32(2))), False)
    assert float32_condition(0.1) == (float(np.float32(0.1)), False)           # float32(0.1) > 0.1
    assert float32_condition(1e39) == float32_condition(FLOAT32_MAX) == (-FLOAT32_MAX, True)
    assert float32_condition(-1e300) == (-FLOAT32_MAX, False)
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match="threshold: expected a finite number"):
            float32_condition(bad)


@settings(max_examples=300, deadline=None)
@given(t=st.floats(allow_nan=False, allow_infinity=False),
       xs=st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), max_size=20))
def test_condition_on_random_thresholds(t, xs):
    _check_condition(t, xs + _float32_around(t))


# ----------------------------------------------------------------------------------------------------------------
# rankcore's exports: the evaluator gives decision_function of float32 X, reaching the leaves apply names
# ----------------------------------------------------------------------------------------------------------------
def _probe_rows(model, X, seed=1):
    """Float32 rows: X, and each threshold t, float32(t), c and the float32 values next to c, NaN, ±0."""
    values = set()
    for r in model.rankers_:
        for t in np.atleast_1d(np.asarray(r.threshold, dtype=np.float64)):
            c = np.float32(float32_condition(t)[0])
            values.update(float(v) for v in (np.float32(t), c, np.nextafter(c, np.float32(-np.inf)),
                                             np.nextafter(c, np.float32(np.inf))))
            values.add(float(t))
    values = np.array(sorted(values) + [np.nan, 0.0, -0.0])
    return with_probe_values(X, values, seed).astype(np.float32)


def _rankcore_leaves(model, ids):
    """The evaluator's leaf ids mapped to rankcore's leaves (``apply``'s numbering)."""
    out = np.zeros_like(ids)
    for t, (ranker, alpha) in enumerate(zip(model.rankers_, model.alphas_)):
        tree = lightgbm_tree(ranker, alpha)
        source = dict(zip(xgboost_node_ids(tree)[1], tree.leaf_source))
        out[:, t] = [source[i] for i in ids[:, t]]
    return out


def _assert_same(model, X, names=None, text=None):
    text = model.to_xgboost_json() if text is None else text
    names = names if names is not None else getattr(model, "feature_names_in_", None)
    names = [f"f{j}" for j in range(model.n_features_in_)] if names is None else list(names)
    X32 = np.asarray(X, dtype=np.float32)
    ids, sums = evaluate(text, X32, names)
    rows = pd.DataFrame(X32, columns=model.feature_names_in_) if hasattr(model, "feature_names_in_") else X32
    np.testing.assert_allclose(sums, model.decision_function(rows), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(_rankcore_leaves(model, ids), model.apply(rows))
    return text


@pytest.mark.parametrize("learner", GROWTHS + [UNSPLIT_OBLIVIOUS])
def test_scores_and_leaves_equal_decision_function_and_apply(learner):
    X, y = grid_data()
    model = rankcore.boost(learner=learner, n_iter=8, random_state=0).fit(X, y)
    probe = _probe_rows(model, X)
    assert np.isnan(probe).any() and any(np.float32(float32_condition(r.threshold[0])[0]) in probe
                                         for r in model.rankers_)
    _assert_same(model, probe)


def test_stumps_and_thresholds():
    X, y = grid_data(nan=0.0)
    for learner in ("stumps", "thresholds"):
        model = rankcore.RankBoost(learner=learner, n_iter=12).fit(X, y)
        probe = np.nan_to_num(_probe_rows(model, X))
        text = model.to_xgboost_json()
        ids, sums = evaluate(text, probe, [f"f{j}" for j in range(4)])
        np.testing.assert_allclose(sums, model.decision_function(probe), rtol=1e-12, atol=1e-12)
        # each stump 1[x > t]: leaf 1 (yes) scores 0, leaf 2 scores α
        assert set(np.unique(ids)) <= {1, 2}


def test_within_queries_saved_and_loaded(tmp_path):
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(400, 3)), 1)
    X[rng.random(X.shape) < 0.05] = np.nan
    qid = np.repeat(np.arange(20), 20)
    grades = np.clip(np.round(np.nan_to_num(X[:, 0]) + rng.normal(size=400) * 0.5 + 1), 0, 3).astype(int)
    model = rankcore.PushBoost(learner="trees:max_leaves=5", n_iter=6, random_state=0).fit(X, grades, qid=qid)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.to_xgboost_json() == model.to_xgboost_json()
    _assert_same(loaded, _probe_rows(loaded, X))
    path = tmp_path / "m.dump.json"
    assert loaded.to_xgboost_json(path) == path.read_text(encoding="utf-8")


def test_float64_values_between_t_and_c_may_differ():
    # the documented limit: a float64 value float32 cannot hold, strictly between t and c
    t = 0.5 + 1e-12
    text = xgboost_json_string([ThresholdRanker(0, t)], [1.0], 1)
    c = json.loads(text)[0]["split_condition"]
    assert c == float(np.nextafter(np.float32(0.5), np.float32(1)))
    x = np.array([[0.5 + 2e-12]])                     # t < x < c: rankcore sends it right
    assert ThresholdRanker(0, t).predict(x)[0] == 1.0
    assert evaluate(text, x, ["f0"])[1][0] == 0.0     # as float32 it is 0.5 <= t: left
    assert x[0, 0] < c                                # and a double comparison (Vespa) sends it left too
    x32 = x.astype(np.float32)                        # the float32 value agrees
    assert ThresholdRanker(0, t).predict(x32)[0] == evaluate(text, x32, ["f0"])[1][0] == 0.0


def test_thresholds_beyond_float32():
    rows = np.array([[0.0], [FLOAT32_MAX], [-FLOAT32_MAX], [np.nan], [1.0]], dtype=np.float32)
    for t, nan_left in ((1e39, 0), (1e39, 1), (FLOAT32_MAX, 0), (-1e39, 0), (-1e39, 1)):
        tree = TreeRanker([0, -1, -1], [t, 0.0, 0.0], [nan_left, 0, 0], [1, -1, -1], [2, -1, -1],
                          [0.0, 1.0, 2.0], [1.0, 0.0, 0.0])
        text = xgboost_json_string([tree], [1.0], 1)
        node = json.loads(text)[0]
        assert node["children"][0]["nodeid"] == node["yes"] and node["missing"] in (node["yes"], node["no"])
        np.testing.assert_array_equal(evaluate(text, rows, ["f0"])[1], tree.predict(rows))


def test_single_leaf_and_empty_models():
    X, _ = grid_data()
    single = TreeRanker([0], [0.0], [0], [-1], [-1], [0.25], [0.0], cover=[10.0])
    text = xgboost_json_string([single], [2.0], 4)
    assert json.loads(text) == [{"nodeid": 0, "leaf": 0.5}]
    np.testing.assert_array_equal(evaluate(text, X, [f"f{j}" for j in range(4)])[1], np.full(X.shape[0], 0.5))
    assert json.loads(xgboost_json_string([], [], 4)) == [{"nodeid": 0, "leaf": 0.0}]   # engines refuse []


# ----------------------------------------------------------------------------------------------------------------
# the layout the engines need
# ----------------------------------------------------------------------------------------------------------------
def test_nodes_are_well_formed():
    X, y = grid_data()
    model = rankcore.boost(learner=f"trees:{SMALL}", n_iter=5, random_state=0).fit(X, y)
    for tree in json.loads(model.to_xgboost_json()):
        ids = []
        for node, depth in _nodes(tree):
            ids.append(node["nodeid"])
            if "leaf" in node:
                assert list(node) == ["nodeid", "leaf"]
                continue
            # Elasticsearch's parser needs every key and the children in the order yes, no
            assert list(node) == INTERNAL_KEYS and node["depth"] == depth
            assert [child["nodeid"] for child in node["children"]] == [node["yes"], node["no"]]
            assert node["missing"] in (node["yes"], node["no"])
        assert sorted(ids) == list(range(len(ids)))       # breadth first from 0: no gaps


def test_feature_names():
    X, y = grid_data()
    frame = pd.DataFrame(X, columns=["title bm25", 'body "tf"', "fieldMatch(title)", "price"])
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(frame, y)
    used = {node["split"] for tree in json.loads(model.to_xgboost_json()) for node, _ in _nodes(tree)
            if "split" in node}
    assert used and used <= set(frame.columns)
    _assert_same(model, frame.to_numpy(), names=list(frame.columns))
    renamed = ["q0", "q1", "q2", "q3"]
    _assert_same(model, X, names=renamed, text=model.to_xgboost_json(feature_names=renamed))
    bare = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y)
    assert '"split": "f0"' in bare.to_xgboost_json()
    assert xgboost_feature_names(None, 2) == ["f0", "f1"]
    with pytest.raises(ValueError, match="feature_names: expected 4 names .*got 2"):
        model.to_xgboost_json(feature_names=["a", "b"])
    with pytest.raises(ValueError, match="columns 0 and 2 are both named 'a'"):
        model.to_xgboost_json(feature_names=["a", "b", "a", "c"])
    with pytest.raises(ValueError, match="column 1 has an empty name"):
        model.to_xgboost_json(feature_names=["a", "", "c", "d"])
    with pytest.raises(TypeError, match="feature_names: expected strings, got int 3"):
        model.to_xgboost_json(feature_names=["a", "b", "c", 3])


def test_refusals():
    X, y = grid_data(nan=0.0)
    with pytest.raises(NotFittedError):
        rankcore.boost(learner="trees").to_xgboost_json()
    linear = rankcore.boost(learner="features", n_iter=3).fit(X, y)
    with pytest.raises(TypeError, match=r"PushBoost.to_xgboost_json: the learner 'features' .*XGBoost's JSON dump"):
        linear.to_xgboost_json()
    _, model = category_frame_model()
    with pytest.raises(ValueError, match=r"splits feature 'shop' \(column 0\) by categories .*test numbers only: "
                                         r"export with to_xgboost_model"):
        model.to_xgboost_json()
    odd = TreeRanker([0, -1, -1], [0.5, 0.0, 0.0], [0, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, math.inf],
                     [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="leaf value inf; JSON holds finite numbers only"):
        xgboost_json_string([odd], [1.0], 1)
    with pytest.raises(ValueError, match="splits feature 3, but the model has 2 features"):
        xgboost_json_string([ThresholdRanker(3, 0.5)], [1.0], 2)

"""``to_lightgbm`` at the edges: counts near int32, deep chains, NaN-left categorical splits (complement or copy, the
size known first), category columns read by value, initial scores, large category ids, names LightGBM's JSON dump
cannot hold, atomic writes."""

import os
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.learners import ThresholdRanker, lightgbm_feature_names, lightgbm_model_string
from rankcore.learners._lightgbm_trees import LightGBMTree, lightgbm_tree
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import ModelFormatError, load_model, model_from_dict, save_model

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _model_files import tampered  # noqa: E402
from test_lightgbm_export import read_model, read_scores  # noqa: E402

MAX_INT32 = 2 ** 31 - 1
FINITE_LEFT = float(np.finfo(np.float64).max)


def _assert_counts_add_up(tree: dict):
    """LightGBM's TreeSHAP reads counts as int32 and weighs each branch by child / parent: sums must hold."""
    leaf, internal = tree.get("leaf_count", []), tree.get("internal_count", [])
    for k in range(len(internal)):
        children = [internal[c] if c >= 0 else leaf[~c] for c in (tree["left_child"][k], tree["right_child"][k])]
        assert internal[k] == sum(children), f"node {k}: {internal[k]} != {children}"
    assert all(0 <= c <= MAX_INT32 for c in leaf + internal)
    if internal:
        assert internal[0] == sum(leaf)


def _nested_nan_left(depth: int, cover_leaf: float) -> TreeRanker:
    """A chain of ``depth`` categorical splits (feature k sends category 1 and NaN left to the next split), each with
    a leaf on its right; the last split's children are leaves."""
    feature, left, right, value, cats, nan_left = [], [], [], [], [], []
    n_nodes = 2 * depth + 1
    for k in range(depth):
        node = 2 * k
        feature += [k, 0]
        left += [node + 2, -1]          # the next split, or the last leaf
        right += [node + 1, -1]
        value += [0.0, float(k + 1)]
        cats += [[1.0], None]
        nan_left += [1, 0]
    feature.append(0)
    left.append(-1)
    right.append(-1)
    value.append(-1.0)
    cats.append(None)
    nan_left.append(0)
    cover = np.zeros(n_nodes)
    for node in range(n_nodes - 1, -1, -1):
        cover[node] = cover_leaf if left[node] < 0 else cover[left[node]] + cover[right[node]]
    return TreeRanker(feature, [0.0] * n_nodes, nan_left, left, right, value, [1.0] * n_nodes, categories=cats,
                      cover=cover)


# ----------------------------------------------------------------------------------------------------------------
# counts (F3)
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cover_leaf", [2.0 ** 28, 3.0, 1e9 / 7])
def test_counts_fit_int32_and_internal_counts_are_sums_of_children(cover_leaf):
    tree = _nested_nan_left(4, cover_leaf)
    text = lightgbm_model_string([tree], [1.0], 4)
    (written,) = read_model(text)[1]
    _assert_counts_add_up(written)
    # each copy under a NaN test keeps half of its subtree's count: the shares of the ranker's leaves
    sources = lightgbm_tree(tree, 1.0).leaf_source
    share = {s: 0.0 for s in sources}
    for s, c in zip(sources, written["leaf_count"]):
        share[s] += c / written["internal_count"][0]
    leaves = np.flatnonzero(np.asarray(tree.left) < 0)
    expected = tree.cover[leaves] / tree.cover[leaves].sum()
    np.testing.assert_allclose([share[s] for s in leaves], expected, rtol=1e-6)


def test_oblivious_and_fitted_counts_add_up():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    for learner in ("trees:growth=oblivious,max_depth=4,min_samples_leaf=30", "trees:max_leaves=8"):
        model = rankcore.boost(learner=learner, n_iter=4, random_state=0).fit(X, y)
        for tree in read_model(model.to_lightgbm())[1]:
            _assert_counts_add_up(tree)


# ----------------------------------------------------------------------------------------------------------------
# deep chains (F4)
# ----------------------------------------------------------------------------------------------------------------
def _chain(depth: int) -> TreeRanker:
    """A leaf-wise chain: internal node 2i tests x0 <= i (leaf 2i + 1 of value i on the left), the next node right."""
    n = 2 * depth + 1
    feature, threshold, left, right, value = [0] * n, [0.0] * n, [-1] * n, [-1] * n, [0.0] * n
    for i in range(depth):
        threshold[2 * i] = float(i)
        left[2 * i], right[2 * i] = 2 * i + 1, 2 * i + 2
        value[2 * i + 1] = float(i)
    value[n - 1] = -1.0
    cover = np.zeros(n)
    for node in range(n - 1, -1, -1):
        cover[node] = 2.0 if left[node] < 0 else cover[left[node]] + cover[right[node]]
    return TreeRanker(feature, threshold, [0] * n, left, right, value, [1.0] * n, cover=cover)


def test_a_chain_deeper_than_the_recursion_limit():
    depth = 3000
    assert depth > sys.getrecursionlimit()
    tree = _chain(depth)
    text = lightgbm_model_string([tree], [0.5], 1)
    (written,) = read_model(text)[1]
    assert written["num_leaves"] == depth + 1
    _assert_counts_add_up(written)
    X = np.array([[-1.0], [0.0], [0.5], [1234.0], [2999.0], [3000.5], [np.nan]])
    np.testing.assert_array_equal(read_scores(text, X), 0.5 * tree.predict(X))
    rankcore.learners.xgboost_json_string([tree], [0.5], 1)          # the dump walks it without recursion too


# ----------------------------------------------------------------------------------------------------------------
# categorical splits sending NaN left (F5)
# ----------------------------------------------------------------------------------------------------------------
def test_a_tree_too_large_once_written_is_refused_before_anything_is_built(monkeypatch):
    tree = _nested_nan_left(21, 1.0)           # 2^21 + ... leaves once every left subtree is copied

    def building(*args, **kwargs):
        raise AssertionError("the tree was being built before its size was checked")

    monkeypatch.setattr(LightGBMTree, "add_internal", building)
    with pytest.raises(ValueError, match=r"would have \d+ leaves, more than 1048576"):
        lightgbm_model_string([tree], [1.0], 21)


def _frame_with_nan_relevant(seed=3, n=500):
    rng = np.random.default_rng(seed)
    shop = rng.choice(np.array(["a", "b", "c", "d", "e", "f"], dtype=object), n)
    shop[rng.random(n) < 0.2] = None
    x = np.round(rng.normal(size=n), 1)
    frame = pd.DataFrame({"shop": pd.Categorical(shop, categories=["a", "b", "c", "d", "e", "f"]), "x": x})
    y = (frame["shop"].isin(["b", "e"]) | frame["shop"].isna() | (frame["x"] > 1)).astype(int)
    return frame, y


def _codes(frame):
    """The frame as rankcore codes it: a category's position, NaN for a missing one."""
    codes = frame["shop"].cat.codes.to_numpy().astype(float)
    codes[codes < 0] = np.nan
    return np.column_stack([codes, frame["x"].to_numpy()])


def test_nan_left_categorical_split_of_a_frame_is_written_as_the_complement():
    frame, y = _frame_with_nan_relevant()
    model = rankcore.boost(learner="trees:max_leaves=6,min_samples_leaf=5", n_iter=6, random_state=0).fit(frame, y)
    assert any(c is not None and r.nan_left[i] for r in model.rankers_ for i, c in enumerate(r.categories)), \
        "no categorical split sends NaN left: the test lost its point"
    text = model.to_lightgbm()
    for written, ranker in zip(read_model(text)[1], model.rankers_):
        assert written["num_leaves"] == int(np.sum(ranker.left < 0))          # no copies
        assert FINITE_LEFT not in written["threshold"]                        # no NaN tests
        _assert_counts_add_up(written)
    np.testing.assert_array_equal(read_scores(text, _codes(frame)), model.decision_function(frame))
    lightgbm = pytest.importorskip("lightgbm")
    booster = lightgbm.Booster(model_str=text)
    np.testing.assert_array_equal(booster.predict(frame, raw_score=True), model.decision_function(frame))
    # other codes, an unseen category (NaN for both) and missing values
    later = frame.iloc[::-1].copy()
    later["shop"] = pd.Categorical(later["shop"].astype(object).where(later["x"] < 1.5, "zz"),
                                   categories=["zz", "f", "e", "d", "c", "b", "a"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)          # LightGBM's and pandas' notes on the new category
        np.testing.assert_array_equal(booster.predict(later, raw_score=True), model.decision_function(later))
    np.testing.assert_allclose(booster.predict(frame, pred_contrib=True), model.feature_contributions(frame),
                               rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# a DataFrame's category columns read by value (F1)
# ----------------------------------------------------------------------------------------------------------------
def _graded_frame():
    rng = np.random.default_rng(0)
    grade = rng.choice([10, 20, 30, 40], 300)
    frame = pd.DataFrame({"grade": pd.Categorical(grade), "x": rng.normal(size=300)})
    return frame, (grade >= 30).astype(int)


@pytest.mark.parametrize("learner", ["stumps", "thresholds"])
def test_stumps_warn_about_category_columns_read_by_value(learner, tmp_path):
    frame, y = _graded_frame()
    model = rankcore.boost(learner=learner, n_iter=6, random_state=0).fit(frame, y)
    assert model.category_columns_read_as_values_ == (0,)
    with pytest.warns(UserWarning, match=r"'grade' was a pandas 'category' column at fit, .*by its codes.*astype"):
        text = model.to_lightgbm()
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.category_columns_read_as_values_ == (0,)
    with pytest.warns(UserWarning, match="'grade' was a pandas 'category' column"):
        assert loaded.to_lightgbm() == text
    # what the warning asks for is exact: the values as numbers
    numbers = frame.astype({"grade": float})
    np.testing.assert_array_equal(read_scores(text, numbers.to_numpy()), model.decision_function(frame))
    # the engines of the XGBoost dump take a feature's value by name: the values, as the fit read them
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.to_xgboost_json()
        rankcore.boost(learner=learner, n_iter=3).fit(numbers, y).to_lightgbm()
        rankcore.boost(learner="trees:max_leaves=4", n_iter=3).fit(frame, y).to_lightgbm()


def test_a_bad_category_columns_field_is_refused():
    frame, y = _graded_frame()
    model = rankcore.boost(learner="stumps", n_iter=3, random_state=0).fit(frame, y)
    for bad in ([2], [0, 0], [True], [1, 0]):
        data = tampered(model, lambda state, bad=bad: state.__setitem__("category_columns_read_as_values", bad))
        with pytest.raises(ModelFormatError, match="category_columns_read_as_values must be distinct column"):
            model_from_dict(data)


# ----------------------------------------------------------------------------------------------------------------
# initial scores (F6), large category ids (F8), names (F11), writing (F9), messages
# ----------------------------------------------------------------------------------------------------------------
def test_a_model_fitted_from_initial_scores_warns_that_the_file_is_the_correction():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y, init_score=X[:, 0])
    with pytest.warns(UserWarning, match=r"to_lightgbm: .*from initial scores \(from_init_score_\).*correction"):
        model.to_lightgbm()
    with pytest.warns(UserWarning, match=r"to_xgboost_json: .*from initial scores"):
        model.to_xgboost_json()


def test_large_category_ids_warn():
    def split(category):
        return TreeRanker([0, 0, 0], [0.0] * 3, [0] * 3, [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0], [1.0] * 3,
                          categories=[[float(category)], None, None])
    with pytest.warns(UserWarning, match=r"column 'id' .*ids up to 70000.*renumber"):
        lightgbm_model_string([split(70_000)], [1.0], 1, feature_names=["id"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lightgbm_model_string([split(65_535)], [1.0], 1)


def test_backslash_and_control_characters_in_names():
    assert lightgbm_feature_names(["C:\\data\\x", "path\\b", "a\x01", "del\x7f"], 4) == \
        ["C__data_x", "path_b", "a_", "del_"]
    with pytest.raises(ValueError, match="both 'a_b'"):
        lightgbm_feature_names(["a\\b", "a_b"], 2)
    lightgbm = pytest.importorskip("lightgbm")
    text = lightgbm_model_string([ThresholdRanker(0, 0.5)], [1.0], 2, feature_names=["C:\\data\\x", "a\x01"])
    assert lightgbm.Booster(model_str=text).dump_model()["feature_names"] == ["C__data_x", "a_"]


def test_the_file_is_replaced_atomically(tmp_path, monkeypatch):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 2))
    model = rankcore.boost(learner="stumps", n_iter=3).fit(X, (X[:, 0] > 0).astype(int))
    path = tmp_path / "m.txt"
    path.write_text("the old model")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="m.txt"):
        model.to_lightgbm(path)
    assert path.read_text() == "the old model"
    assert os.listdir(tmp_path) == ["m.txt"]                  # no temporary file left behind
    monkeypatch.undo()
    assert model.to_lightgbm(path) == path.read_text(encoding="utf-8")


def test_a_model_without_weak_rankers_names_its_learner_not_a_kind():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 2))
    model = rankcore.boost(learner="features", n_iter=2).fit(X, (X[:, 0] > 0).astype(int))
    model.rankers_, model.alphas_ = [], np.zeros(0)
    with pytest.raises(TypeError, match=r"learner 'features' fits weak rankers that are not trees or stumps"):
        model.to_lightgbm()

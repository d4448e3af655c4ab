"""``to_xgboost_model``: ``xgboost.Booster`` loads the file, its margins are ``decision_function`` (to float32
rounding) and its ``pred_leaf`` the leaves ``apply`` names -- numeric splits of every growth, stumps, and categorical
splits on category ids and on a DataFrame's ``category`` column (many categories, ties, NaN, categories unseen at
fit)."""

import json
import math

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.learners import ThresholdRanker, xgboost_leaf_sources, xgboost_model_string
from rankcore.learners._xgboost_json import float32_condition
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import load_model, save_model
from _export_data import GROWTHS, UNSPLIT_OBLIVIOUS, grid_data, with_probe_values

xgboost = pytest.importorskip("xgboost")


def _booster(text):
    return xgboost.Booster(model_file=bytearray(text, "utf-8"))


def _tolerance(model) -> float:
    """Float32 rounding of every leaf and of each partial sum: 2^-22 of the sum of the trees' largest leaves."""
    largest = sum(abs(float(a)) * float(np.max(np.abs(getattr(r, "value", 1.0))))
                  for r, a in zip(model.rankers_, model.alphas_))
    return 2.0 ** -22 * max(largest, 1.0)


def _leaves(model, ids):
    """XGBoost's ``pred_leaf`` node ids mapped to rankcore's leaves (``apply``'s numbering)."""
    ids = np.asarray(ids, dtype=np.int64).reshape(ids.shape[0], -1)
    out = np.zeros_like(ids)
    for t, (ranker, alpha) in enumerate(zip(model.rankers_, model.alphas_)):
        source = xgboost_leaf_sources(ranker, alpha)
        out[:, t] = [source[i] for i in ids[:, t]]
    return out


def _assert_same(model, matrix, rows, leaves=True):
    booster = _booster(model.to_xgboost_model())
    margin = booster.predict(matrix, output_margin=True)
    np.testing.assert_allclose(margin, model.decision_function(rows), rtol=0, atol=_tolerance(model))
    if leaves:
        np.testing.assert_array_equal(_leaves(model, booster.predict(matrix, pred_leaf=True)), model.apply(rows))
    return booster


def _check_layout(text):
    """Each tree: right child = left child + 1 (XGBoost's predictor reads it so), parents consistent, sets sliced."""
    for tree in json.loads(text)["learner"]["gradient_booster"]["model"]["trees"]:
        left, right, parents = tree["left_children"], tree["right_children"], tree["parents"]
        for v, (a, b) in enumerate(zip(left, right)):
            if a >= 0:
                assert b == a + 1 and a > v and parents[a] == parents[b] == v
        cats = [v for v, kind in enumerate(tree["split_type"]) if kind == 1]
        assert tree["categories_nodes"] == cats and len(tree["categories_sizes"]) == len(cats)


# ----------------------------------------------------------------------------------------------------------------
# numeric splits
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("learner", GROWTHS + [UNSPLIT_OBLIVIOUS])
def test_numeric_growths(learner):
    X, y = grid_data()
    model = rankcore.boost(learner=learner, n_iter=6, random_state=0).fit(X, y)
    values = set()
    for r in model.rankers_:
        for t in np.atleast_1d(np.asarray(r.threshold, dtype=np.float64)):
            c = np.float32(float32_condition(t)[0])
            values.update(float(v) for v in (np.float32(t), c, np.nextafter(c, np.float32(-np.inf))))
    probe = with_probe_values(X, np.array(sorted(values) + [np.nan, 0.0]), 1).astype(np.float32)
    text = model.to_xgboost_model()
    _check_layout(text)
    _assert_same(model, xgboost.DMatrix(probe), probe)
    assert json.loads(text)["learner"]["feature_types"] == ["float"] * 4


def test_stumps_thresholds_beyond_float32_and_empty():
    X, y = grid_data(nan=0.0)
    model = rankcore.RankBoost(learner="stumps", n_iter=10).fit(X, y)
    _assert_same(model, xgboost.DMatrix(X.astype(np.float32)), X.astype(np.float32), leaves=False)
    rows = np.array([[0.0], [3e38], [-3e38], [np.nan], [1.0]], dtype=np.float32)
    for t, nan_left in ((1e39, 0), (1e39, 1), (-1e39, 1)):      # written with c = −max float32, children swapped
        tree = TreeRanker([0, -1, -1], [t, 0.0, 0.0], [nan_left, 0, 0], [1, -1, -1], [2, -1, -1],
                          [0.0, 1.0, 2.0], [1.0, 0.0, 0.0])
        margin = _booster(xgboost_model_string([tree], [1.0], 1)).predict(xgboost.DMatrix(rows), output_margin=True)
        np.testing.assert_array_equal(margin, tree.predict(rows))
    empty = _booster(xgboost_model_string([], [], 2, offset=0.25))
    np.testing.assert_array_equal(empty.predict(xgboost.DMatrix(np.zeros((3, 2))), output_margin=True), 0.25)


# ----------------------------------------------------------------------------------------------------------------
# categorical splits
# ----------------------------------------------------------------------------------------------------------------
def _category_ids(seed=0, n=1500, k=100):
    """Column 0: ids 0..k − 1 (more than 64: sets cross bitset words), NaN; column 1 on a grid (ties), NaN."""
    rng = np.random.default_rng(seed)
    cat = rng.integers(0, k, n).astype(float)
    cat[rng.random(n) < 0.08] = np.nan
    x = np.round(rng.normal(size=n) * 2) / 2
    x[rng.random(n) < 0.05] = np.nan
    effect = rng.normal(size=k)
    y = (np.where(np.isnan(cat), 0.5, effect[np.nan_to_num(cat).astype(int)]) + 0.5 * np.nan_to_num(x)
         + 0.5 * rng.normal(size=n) > 0).astype(int)
    return np.column_stack([cat, x]), y


@pytest.mark.parametrize("growth", ["max_leaves=12", "growth=depthwise,max_depth=4"])
def test_category_ids(growth):
    X, y = _category_ids()
    model = rankcore.boost(learner=f"trees:categorical=0,min_samples_leaf=10,{growth}", n_iter=8,
                           random_state=0).fit(X, y)
    sets = [c for r in model.rankers_ for c in r.categories if c is not None]
    assert sets and max(c.max(initial=0) for c in sets) > 64      # the sets reach past the first 64-bit words
    # ids unseen at fit, negative, beyond XGBoost's 2^24 − 1, NaN: where rankcore sends a value outside the set
    unseen = [100.0, 127.0, 128.0, 5000.0, -1.0, -70.0, 2.0 ** 24, 2.0 ** 25, 1e30, np.nan]
    probe = with_probe_values(X, np.array(unseen + list(range(0, 100, 3)), dtype=float), 2).astype(np.float32)
    text = model.to_xgboost_model()
    _check_layout(text)
    assert json.loads(text)["learner"]["feature_types"] == ["c", "float"]
    _assert_same(model, xgboost.DMatrix(probe, feature_types=["c", "float"], enable_categorical=True), probe)


def _shop_frame(seed=3, n=1500, k=90):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, k, n)
    shop = pd.Categorical([f"s{v:02d}" for v in values])
    frame = pd.DataFrame({"shop": shop, "x": np.round(rng.normal(size=n), 1)})
    frame.loc[rng.random(n) < 0.1, "shop"] = np.nan
    y = (np.isin(values % 7, [1, 3]) ^ (frame["x"] > 1)).astype(int)
    return frame, y


def test_category_frame_and_unseen_categories():
    frame, y = _shop_frame()
    model = rankcore.boost(learner="trees:max_leaves=8,min_samples_leaf=10", n_iter=8, random_state=0).fit(frame, y)
    assert any(c is not None and c.max(initial=0) > 64 for r in model.rankers_ for c in r.categories)
    text = model.to_xgboost_model()
    learner = json.loads(text)["learner"]
    assert learner["feature_names"] == ["shop", "x"] and learner["feature_types"] == ["c", "float"]
    _assert_same(model, xgboost.DMatrix(frame, enable_categorical=True), frame)
    # later rows, reordered categories and values the fit did not see: given the fit's categories, the values
    # unseen become missing, where rankcore sends them
    rng = np.random.default_rng(9)
    values = rng.choice([f"s{v:02d}" for v in range(95)] + [None], 400)
    later = pd.DataFrame({"shop": pd.Categorical(values, categories=sorted({v for v in values if v}, reverse=True)),
                          "x": np.round(rng.normal(size=400), 1)})
    known = later["shop"].astype(object).where(later["shop"].isin(model.categories_[0]))   # unseen: missing
    recoded = later.assign(shop=pd.Categorical(known, categories=model.categories_[0]))
    assert later["shop"].notna().sum() > recoded["shop"].notna().sum()
    _assert_same(model, xgboost.DMatrix(recoded, enable_categorical=True), later)


def test_push_within_queries_with_categories(tmp_path):
    X, y = _category_ids(seed=4, n=1200, k=70)
    qid = np.repeat(np.arange(60), 20)
    model = rankcore.PushBoost(learner="trees:categorical=0,max_leaves=6", n_iter=5, random_state=0).fit(X, y, qid=qid)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    path = tmp_path / "m.xgb.json"
    assert loaded.to_xgboost_model(path) == model.to_xgboost_model() == path.read_text(encoding="utf-8")
    X32 = X.astype(np.float32)
    booster = xgboost.Booster(model_file=str(path))
    margin = booster.predict(xgboost.DMatrix(X32, feature_types=["c", "float"], enable_categorical=True),
                             output_margin=True)
    np.testing.assert_allclose(margin, model.decision_function(X32), rtol=0, atol=_tolerance(model))


def test_refusals():
    tree = TreeRanker([0, -1, -1], [0.0, 0.0, 0.0], [0, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0],
                      [1.0, 0.0, 0.0], categories=[np.array([1.0, 1.5]), None, None])
    with pytest.raises(ValueError, match=r"node 0 sends category 1\.5 left; XGBoost's categories are integers"):
        xgboost_model_string([tree], [1.0], 1)
    big = TreeRanker([0, -1, -1], [0.0, 0.0, 0.0], [0, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0],
                     [1.0, 0.0, 0.0], categories=[np.array([2.0 ** 24]), None, None])
    with pytest.raises(ValueError, match="from 0 to 16777215"):
        xgboost_model_string([big], [1.0], 1)
    with pytest.raises(ValueError, match=r"leaf value 2e\+39; XGBoost holds finite float32"):
        xgboost_model_string([ThresholdRanker(0, 0.5)], [2e39], 1)
    stump = ThresholdRanker(0, 0.5)           # leaves 0 and α: the largest leaves add up to 3e38, then 4.5e38
    xgboost_model_string([stump, stump], [1.5e38, 1.5e38], 1)
    with pytest.raises(ValueError, match=r"largest leaves add up to 4\.5e\+38, beyond float32's 3\.403e\+38"):
        xgboost_model_string([stump, stump, stump], [1.5e38, 1.5e38, 1.5e38], 1)
    with pytest.raises(ValueError, match=r"largest leaves add up to 4e\+38"):
        xgboost_model_string([stump, stump], [1.5e38, 1.5e38], 1, offset=-1e38)
    empty = TreeRanker([0, -1, -1], [0.0, 0.0, 0.0], [1, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0],
                       [1.0, 0.0, 0.0], categories=[np.array([]), None, None])
    rows = np.array([[0.0], [3.0], [np.nan], [-1.0]], dtype=np.float32)      # NaN alone goes left
    margin = _booster(xgboost_model_string([empty], [1.0], 1)).predict(
        xgboost.DMatrix(rows, feature_types=["c"], enable_categorical=True), output_margin=True)
    np.testing.assert_array_equal(margin, empty.predict(rows))
    with pytest.raises(ValueError, match="offset is inf"):
        xgboost_model_string([], [], 1, offset=math.inf)
    X, y = grid_data(nan=0.0)
    linear = rankcore.boost(learner="features", n_iter=2).fit(X, y)
    with pytest.raises(TypeError, match=r"to_xgboost_model: the learner 'features' .*an XGBoost model"):
        linear.to_xgboost_model()

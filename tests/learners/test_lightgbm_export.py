"""``to_lightgbm``: the exported LightGBM text model scores as ``decision_function`` -- read by a plain-Python
reader of the format (always) and by LightGBM itself (when installed) -- and its leaves and counts agree with
``apply`` and ``feature_contributions``."""

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import rankcore
from rankcore.learners import ThresholdRanker, lightgbm_feature_names, lightgbm_model_string
from rankcore.learners._lightgbm_trees import integer_counts, lightgbm_tree
from rankcore.learners._lightgbm_text import ZERO_THRESHOLD
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import load_model, save_model
from _export_data import GROWTHS, SMALL, UNSPLIT_OBLIVIOUS, category_frame_model, grid_data, with_probe_values


# ----------------------------------------------------------------------------------------------------------------
# A plain-Python reader of LightGBM's text format (what the exported file means, without LightGBM)
# ----------------------------------------------------------------------------------------------------------------
def read_model(text: str) -> tuple[dict, list[dict]]:
    """(header, trees) of a LightGBM text model: each tree a dict of its ``key=value`` lines as lists."""
    head, _, rest = text.partition("\n\nTree=") if "Tree=" in text else (text.split("end of trees")[0], "", "")
    header = dict(line.split("=", 1) for line in head.strip().splitlines()[1:])
    trees = []
    body = ("Tree=" + rest).split("end of trees")[0] if rest else ""
    for block in filter(None, body.split("Tree=")):
        fields = dict(line.split("=", 1) for line in block.strip().splitlines()[1:])
        tree = {}
        for key, raw in fields.items():
            if key in ("num_leaves", "num_cat", "is_linear"):
                tree[key] = int(raw)
            elif key in ("split_feature", "decision_type", "left_child", "right_child", "leaf_count",
                         "internal_count", "cat_boundaries", "cat_threshold"):
                tree[key] = [int(v) for v in raw.split()]
            else:
                tree[key] = [float(v) for v in raw.split()]
        trees.append(tree)
    return header, trees


def _child(tree: dict, node: int, x: float) -> int:
    decision = tree["decision_type"][node]
    if decision & 1:                                            # categorical: its integer part in the bitset
        if math.isnan(x) or x < 0:
            return tree["right_child"][node]
        c = int(x)
        k = int(tree["threshold"][node])
        lo, hi = tree["cat_boundaries"][k], tree["cat_boundaries"][k + 1]
        inside = c // 32 < hi - lo and tree["cat_threshold"][lo + c // 32] >> (c % 32) & 1
        return tree["left_child"][node] if inside else tree["right_child"][node]
    if math.isnan(x):
        assert decision >> 2 & 3 == 2                           # every numeric node: missing type NaN
        return tree["left_child"][node] if decision & 2 else tree["right_child"][node]
    return tree["left_child"][node] if x <= tree["threshold"][node] else tree["right_child"][node]


def leaf_of(tree: dict, row) -> int:
    """The leaf index a row reaches (values of magnitude at most 1e-35 read as 0, as LightGBM reads them)."""
    if tree["num_leaves"] == 1:
        return 0
    node = 0
    while node >= 0:
        x = float(row[tree["split_feature"][node]])
        node = _child(tree, node, 0.0 if abs(x) <= ZERO_THRESHOLD else x)
    return ~node


def read_scores(text: str, X) -> np.ndarray:
    """Σ over the trees of the leaf values, added in tree order from 0 (LightGBM's raw score)."""
    _, trees = read_model(text)
    X = np.asarray(X)
    out = np.zeros(X.shape[0])
    for i, row in enumerate(X):
        s = 0.0
        for tree in trees:
            s = s + tree["leaf_value"][leaf_of(tree, row)]
        out[i] = s
    return out


# ----------------------------------------------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------------------------------------------
def _probe_rows(model, X, seed=1):
    """X, plus rows holding each split's threshold exactly, its float64 and float32 neighbours, and NaN."""
    values = set()
    for r in model.rankers_:
        for t in np.atleast_1d(np.asarray(r.threshold, dtype=np.float64)):
            if abs(t) < 1e300:
                f32 = float(np.float32(t))
                values.update([t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf), f32,
                               float(np.nextafter(np.float32(t), np.float32(np.inf)))])
    # (not the nonzero values LightGBM reads as 0: test_lightgbm_reads_tiny_values_as_zero)
    values = np.array(sorted(v for v in values if not 0 < abs(v) <= ZERO_THRESHOLD) + [np.nan, 0.0, -0.0])
    return with_probe_values(X, values, seed)


def _assert_same(model, X):
    text = model.to_lightgbm()
    expected = model.decision_function(X)
    np.testing.assert_array_equal(read_scores(text, X), expected)
    return text


# ----------------------------------------------------------------------------------------------------------------
# the scores (plain reader; every growth, float32, thresholds and their neighbours, NaN)
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("learner", GROWTHS)
def test_reader_scores_equal_decision_function(learner):
    X, y = grid_data()
    model = rankcore.boost(learner=learner, n_iter=8, random_state=0).fit(X, y)
    probe = _probe_rows(model, X)
    text = _assert_same(model, probe)
    # float32 rows: widened exactly by both walks
    _assert_same(model, probe.astype(np.float32))
    # the leaves: each written leaf stands for the rankcore leaf apply() names
    _, trees = read_model(text)
    for t, (tree, ranker) in enumerate(zip(trees, model.rankers_)):
        source = lightgbm_tree(ranker, model.alphas_[t]).leaf_source
        reached = [source[leaf_of(tree, row)] for row in probe]
        np.testing.assert_array_equal(reached, model.apply(probe)[:, t])


def test_stumps_and_thresholds_float32_and_float64():
    X, y = grid_data(nan=0.0)
    for learner in ("stumps", "thresholds"):
        model = rankcore.RankBoost(learner=learner, n_iter=12).fit(X, y)
        probe = np.nan_to_num(_probe_rows(model, X))
        _assert_same(model, probe)
        _assert_same(model, probe.astype(np.float32))


def test_stump_compares_float32_rows_in_float64():
    # as the fit bins them: a float32 value above a float64 threshold goes right, even when the threshold
    # rounds to that value in float32
    ranker = ThresholdRanker(0, 0.1)
    x = np.array([[np.float32(0.1)]], dtype=np.float32)
    assert ranker.predict(x)[0] == ranker.predict(x.astype(np.float64))[0] == 1.0


def test_categorical_splits_with_missing_values():
    rng = np.random.default_rng(3)
    n = 500
    X = np.column_stack([rng.integers(0, 9, n).astype(float), np.round(rng.normal(size=n), 1)])
    X[rng.random(n) < 0.15, 0] = np.nan
    y = (np.isin(X[:, 0], [1, 4, 7]) | np.isnan(X[:, 0]) | (X[:, 1] > 1)).astype(int)
    model = rankcore.boost(learner="trees:max_leaves=6,min_samples_leaf=5,categorical=0", n_iter=8,
                           random_state=0).fit(X, y)
    assert any(r.categorical and any(c is not None and r.nan_left[i] for i, c in enumerate(r.categories))
               for r in model.rankers_), "no categorical split sends NaN left: the test lost its point"
    probe = np.vstack([X, [[np.nan, 0.0], [11.0, 0.0], [-1.0, 2.0], [0.0, np.nan]]])
    _assert_same(model, probe)
    _assert_same(model, probe.astype(np.float32))


def test_within_queries_saved_and_loaded(tmp_path):
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(400, 3)), 1)
    qid = np.repeat(np.arange(20), 20)
    grades = np.clip(np.round(X[:, 0] + rng.normal(size=400) * 0.5 + 1), 0, 3).astype(int)
    model = rankcore.PushBoost(learner="trees:max_leaves=5", n_iter=6, random_state=0).fit(X, grades, qid=qid)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.to_lightgbm() == model.to_lightgbm()
    _assert_same(loaded, X)
    path = tmp_path / "m.txt"
    assert loaded.to_lightgbm(path) == path.read_text(encoding="utf-8")


def test_one_list_model_without_trees_and_single_leaf():
    X, y = grid_data()
    single = TreeRanker([0], [0.0], [0], [-1], [-1], [0.25], [0.0], cover=[10.0])
    text = lightgbm_model_string([single], [2.0], 4)
    np.testing.assert_array_equal(read_scores(text, X), np.full(X.shape[0], 0.5))
    empty = lightgbm_model_string([], [], 4)
    assert "tree_sizes=\n" in empty
    np.testing.assert_array_equal(read_scores(empty, X), np.zeros(X.shape[0]))


# ----------------------------------------------------------------------------------------------------------------
# the file's layout
# ----------------------------------------------------------------------------------------------------------------
def test_header_tree_sizes_and_names():
    X, y = grid_data()
    frame = pd.DataFrame(X, columns=["a b", "c:d", "e", "f"])
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(frame, y)
    text = model.to_lightgbm()
    header, trees = read_model(text)
    assert header["version"] == "v4" and header["num_class"] == "1" and header["max_feature_idx"] == "3"
    assert header["feature_names"] == "a_b c_d e f"
    assert len(trees) == len(model.rankers_)
    start = text.index("Tree=0")
    for size in map(int, header["tree_sizes"].split()):       # each block's bytes, up to the next one
        assert text[start + size:].startswith(("Tree=", "end of trees"))
        start += size
    assert text.endswith("pandas_categorical:null\n")


def test_feature_names_that_collide_or_are_empty():
    assert lightgbm_feature_names(None, 2) == ["Column_0", "Column_1"]
    with pytest.raises(ValueError, match="columns 0 .* and 1 .*both 'a_b'"):
        lightgbm_feature_names(["a b", "a:b"], 2)
    with pytest.raises(ValueError, match="column 1 has an empty name"):
        lightgbm_feature_names(["a", ""], 2)


def test_refusals():
    X, y = grid_data(nan=0.0)
    with pytest.raises(NotFittedError):
        rankcore.boost(learner="trees").to_lightgbm()
    linear = rankcore.boost(learner="features", n_iter=3).fit(X, y)
    with pytest.raises(TypeError, match=r"PushBoost.to_lightgbm: the learner 'features' .*kind 'feature'"):
        linear.to_lightgbm()
    odd = TreeRanker([0, -1, -1], [0.0, 0.0, 0.0], [0, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0],
                     [1.0, 0.0, 0.0], categories=[[2.5], None, None])
    with pytest.raises(ValueError, match="category 2.5 left; LightGBM categories are integer codes"):
        lightgbm_model_string([odd], [1.0], 1)
    with pytest.raises(ValueError, match="splits feature 3, but the model has 2 features"):
        lightgbm_model_string([ThresholdRanker(3, 0.5)], [1.0], 2)


def test_lightgbm_reads_tiny_values_as_zero():
    # the one documented difference: |x| <= 1e-35 reaches LightGBM's trees as 0
    text = lightgbm_model_string([ThresholdRanker(0, 0.0)], [1.0], 1)
    rows = np.array([[5e-324], [1e-36], [ZERO_THRESHOLD], [np.nextafter(ZERO_THRESHOLD, 1.0)], [-1e-36]])
    np.testing.assert_array_equal(read_scores(text, rows), [0.0, 0.0, 0.0, 1.0, 0.0])
    assert ThresholdRanker(0, 0.0).predict(rows).tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]
    if _has_lightgbm():
        np.testing.assert_array_equal(_booster(text).predict(rows, raw_score=True), read_scores(text, rows))


def _has_lightgbm() -> bool:
    return importlib.util.find_spec("lightgbm") is not None


def test_integer_counts_scale_shared_oblivious_cells():
    np.testing.assert_array_equal(integer_counts([2.5, 2.5, 3.0, 4.0]), [5, 5, 6, 8])
    np.testing.assert_array_equal(integer_counts([1.0, 2.0]), [1, 2])
    assert integer_counts(None) is None
    assert integer_counts([1e10, 3e10]).max() <= 2 ** 31 - 1


# ----------------------------------------------------------------------------------------------------------------
# LightGBM itself
# ----------------------------------------------------------------------------------------------------------------
def _booster(text):
    lightgbm = pytest.importorskip("lightgbm")
    return lightgbm.Booster(model_str=text)


def _lightgbm_leaves(model, booster, X):
    """LightGBM's pred_leaf mapped to rankcore's leaves (``apply``'s numbering) by each written leaf's source."""
    leaves = booster.predict(X, pred_leaf=True).astype(np.int64).reshape(X.shape[0], -1)
    source = [np.asarray(lightgbm_tree(r, a).leaf_source) for r, a in zip(model.rankers_, model.alphas_)]
    return np.column_stack([source[t][leaves[:, t]] for t in range(len(source))])


@pytest.mark.parametrize("learner", GROWTHS + [f"trees:{SMALL},categorical=3", UNSPLIT_OBLIVIOUS])
def test_lightgbm_predicts_decision_function(learner):
    X, y = grid_data()
    if "categorical" in learner:
        X[:, 3] = np.where(np.isnan(X[:, 3]), np.nan, np.abs(X[:, 3] * 2))
    model = rankcore.boost(learner=learner, n_iter=8, random_state=0).fit(X, y)
    booster = _booster(model.to_lightgbm())
    probe = _probe_rows(model, X)
    if "categorical" in learner:
        probe[:, 3] = np.where(np.isnan(probe[:, 3]), np.nan, np.abs(np.round(probe[:, 3])))
    for rows in (probe, probe.astype(np.float32)):
        np.testing.assert_array_equal(booster.predict(rows, raw_score=True), model.decision_function(rows))
    np.testing.assert_array_equal(_lightgbm_leaves(model, booster, probe), model.apply(probe))
    np.testing.assert_allclose(booster.predict(probe, pred_contrib=True), model.feature_contributions(probe),
                               rtol=1e-12, atol=1e-12)


def test_lightgbm_stumps_within_queries_and_frames(tmp_path):
    X, y = grid_data(nan=0.0)
    stumps = rankcore.boost(learner="stumps", n_iter=10).fit(X, y)
    path = tmp_path / "stumps.txt"
    stumps.to_lightgbm(path)
    lightgbm = pytest.importorskip("lightgbm")
    booster = lightgbm.Booster(model_file=str(path))
    for rows in (X, X.astype(np.float32)):
        np.testing.assert_array_equal(booster.predict(rows, raw_score=True), stumps.decision_function(rows))
    # a DataFrame's category columns: written as pandas_categorical, so LightGBM codes them as the fit did
    frame, model = category_frame_model()
    booster = lightgbm.Booster(model_str=model.to_lightgbm())
    later = frame.iloc[::-1].copy()
    later["shop"] = pd.Categorical(later["shop"].astype(str), categories=["d", "c", "b", "a"])   # other codes
    np.testing.assert_array_equal(booster.predict(later, raw_score=True), model.decision_function(later))

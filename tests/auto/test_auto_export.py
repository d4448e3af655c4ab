"""``AutoRanker.to_lightgbm`` / ``to_xgboost_json``: a refit's trees bit for bit, a fold bag's models' weighted trees
and its constant in one file -- read by the plain readers of the format tests and by LightGBM (when installed) --
and the refusals."""

import json
import os
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import rankcore
from rankcore.auto import FoldBag, RankAverage
from rankcore.persistence import load_model, save_model

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "learners"))
from test_lightgbm_export import leaf_of, read_model, read_scores  # noqa: E402
from test_xgboost_json_export import evaluate  # noqa: E402

TREES = "trees:max_leaves=4,n_iter=12"


def _data(seed=0, n=300, nan=0.05):
    """Rows with ties (a coarse grid) and NaN; labels from the first features."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)) * 4) / 4
    X[rng.random(X.shape) < nan] = np.nan
    y = (np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) + 0.5 * rng.normal(size=n) > 0.3).astype(int)
    return X, y


def _auto(X, y, candidates=(TREES,), **fit):
    params = {k: fit.pop(k) for k in ("bag_folds", "blend") if k in fit}
    return rankcore.AutoRanker(candidates=list(candidates), random_state=0, n_jobs=1, **params).fit(X, y, **fit)


def _close(actual, expected):
    """Agreement to rounding, relative to the scores' scale (a bag sums each model's score before weighing it)."""
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12 * float(np.max(np.abs(expected))))


def _names(auto):
    names = getattr(auto, "feature_names_in_", None)
    return [f"f{j}" for j in range(auto.n_features_in_)] if names is None else list(names)


def _assert_exports_score(auto, X):
    """The LightGBM text (plain reader, LightGBM) and the XGBoost dump (float32 rows) score as the AutoRanker."""
    expected = auto.decision_function(X)
    text = auto.to_lightgbm()
    bag = isinstance(auto.best_estimator_, FoldBag)
    if bag:
        _close(read_scores(text, X), expected)
    else:
        np.testing.assert_array_equal(read_scores(text, X), expected)
    X32 = np.asarray(X, dtype=np.float32)
    _, sums = evaluate(auto.to_xgboost_json(), X32, _names(auto))
    _close(sums, auto.decision_function(X32.astype(np.float64)))
    return text


# ----------------------------------------------------------------------------------------------------------------
# a refit: its own trees, bit for bit
# ----------------------------------------------------------------------------------------------------------------
def test_a_refit_is_its_estimators_export_bit_for_bit():
    X, y = _data()
    auto = _auto(X, y, bag_folds=False)
    best = auto.best_estimator_
    assert not isinstance(best, (FoldBag, RankAverage))
    text = _assert_exports_score(auto, X)
    assert text == best.to_lightgbm()
    assert auto.to_xgboost_json() == best.to_xgboost_json()
    lightgbm = pytest.importorskip("lightgbm")
    booster = lightgbm.Booster(model_str=text)
    np.testing.assert_array_equal(booster.predict(X, raw_score=True), auto.decision_function(X))


# ----------------------------------------------------------------------------------------------------------------
# a fold bag: every model's trees, weighted, fold by fold, then the constant
# ----------------------------------------------------------------------------------------------------------------
def _partial_scores(trees, X):
    return np.array([sum(tree["leaf_value"][leaf_of(tree, row)] for tree in trees) for row in X])


def test_a_fold_bag_is_one_file_of_its_models_weighted_trees():
    X, y = _data(1)
    auto = _auto(X, y)
    bag = auto.best_estimator_
    assert isinstance(bag, FoldBag) and len(bag.estimators) == 6
    text = _assert_exports_score(auto, X)
    _, trees = read_model(text)
    counts = [len(m.rankers_) for m in bag.estimators]
    assert len(trees) == sum(counts) + 1
    # tree order: the refit's, then fold by fold; each model's trees score w_k f_k, w_k = 1 / (M s_k)
    start, M = 0, len(bag.estimators)
    for model, count, scale in zip(bag.estimators, counts, bag.scales):
        _close(_partial_scores(trees[start:start + count], X), model.decision_function(X) / (M * scale))
        start += count
    constant = trees[-1]
    assert constant["num_leaves"] == 1
    assert constant["leaf_value"][0] == pytest.approx(-np.sum(bag.centers / bag.scales) / M, rel=1e-14)
    dump = json.loads(auto.to_xgboost_json())
    assert len(dump) == len(trees) and dump[-1] == {"nodeid": 0, "leaf": constant["leaf_value"][0]}


def test_lightgbm_scores_and_contributions_of_a_fold_bag():
    lightgbm = pytest.importorskip("lightgbm")
    X, y = _data(2)
    auto = _auto(X, y)
    assert isinstance(auto.best_estimator_, FoldBag)
    booster = lightgbm.Booster(model_str=auto.to_lightgbm())
    _close(booster.predict(X, raw_score=True), auto.decision_function(X))
    _close(booster.predict(X.astype(np.float32), raw_score=True), auto.decision_function(X.astype(np.float32)))
    # the constant tree is in the expected value, as feature_contributions puts the bag's constant
    _close(booster.predict(X, pred_contrib=True), auto.feature_contributions(X))


def test_within_queries_refit_and_fold_bag(tmp_path):
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(400, 3)), 1)
    X[rng.random(X.shape) < 0.05] = np.nan
    qid = np.repeat(np.arange(40), 10)
    grades = np.clip(np.round(np.nan_to_num(X[:, 0]) + rng.normal(size=400) * 0.5 + 1), 0, 3).astype(int)
    for bag_folds in (False, True):
        auto = _auto(X, grades, qid=qid, bag_folds=bag_folds)
        assert auto.ranks_within_queries_ and isinstance(auto.best_estimator_, FoldBag) == bag_folds
        _assert_exports_score(auto, X)
    # saved and loaded: the same files, written atomically to a path
    save_model(auto, tmp_path / "auto.json")
    loaded = load_model(tmp_path / "auto.json")
    path = tmp_path / "auto.txt"
    assert loaded.to_lightgbm(path) == auto.to_lightgbm() == path.read_text(encoding="utf-8")
    assert loaded.to_xgboost_json(tmp_path / "auto.dump.json") == auto.to_xgboost_json()


def _frame(seed=4, n=400):
    rng = np.random.default_rng(seed)
    shop = rng.choice(np.array(["a", "b", "c", "d", "e"], dtype=object), n)
    shop[rng.random(n) < 0.1] = None
    frame = pd.DataFrame({"shop": pd.Categorical(shop, categories=["a", "b", "c", "d", "e"]),
                          "price": np.round(rng.normal(size=n), 1)})
    y = ((frame["shop"].isin(["b", "d"]) | frame["shop"].isna()) ^ (frame["price"] > 1)).astype(int)
    return frame, y


def _codes(frame):
    codes = frame["shop"].cat.codes.to_numpy().astype(float)
    codes[codes < 0] = np.nan
    return np.column_stack([codes, frame["price"].to_numpy()])


def test_a_frame_with_a_category_column():
    frame, y = _frame()
    auto = _auto(frame, y)
    bag = auto.best_estimator_
    assert isinstance(bag, FoldBag)
    assert any(c is not None for m in bag.estimators for r in m.rankers_ for c in r.categories), \
        "no categorical split: the test lost its point"
    text = auto.to_lightgbm()
    assert "feature_names=shop price" in text and 'pandas_categorical:[["a", "b", "c", "d", "e"]]' in text
    expected = auto.decision_function(frame)
    _close(read_scores(text, _codes(frame)), expected)
    with pytest.raises(ValueError, match=r"'trees.*' splits 'shop' \(column 0\) by categories \(model \d of the fold "
                                         r"bag, tree \d+, node \d+\).*to_lightgbm"):
        auto.to_xgboost_json()
    # oblivious trees split the category column as numbers, its positions: the LightGBM file codes a frame so, the
    # dump (whose engines hold values) refuses them -- tests/auto/test_auto_export_categories.py
    oblivious = _auto(frame, y, candidates=["trees:growth=oblivious,max_leaves=4,n_iter=8"])
    _close(read_scores(oblivious.to_lightgbm(), _codes(frame)), oblivious.decision_function(frame))
    lightgbm = pytest.importorskip("lightgbm")
    _close(lightgbm.Booster(model_str=text).predict(frame, raw_score=True), expected)


def test_xgboost_models_of_a_frame_with_a_category_column():
    # the fold bag's categorical splits as category sets, the oblivious trees' splits of the positions as numeric
    # tests of XGBoost's codes: both read the frame's codes, which are the positions (the fit's categories)
    xgboost = pytest.importorskip("xgboost")
    frame, y = _frame()
    for candidate in (TREES, "trees:growth=oblivious,max_leaves=4,n_iter=8"):
        auto = _auto(frame, y, candidates=[candidate])
        booster = xgboost.Booster(model_file=bytearray(auto.to_xgboost_model(), "utf-8"))
        margin = booster.predict(xgboost.DMatrix(frame, enable_categorical=True), output_margin=True)
        expected = auto.decision_function(frame)
        np.testing.assert_allclose(margin, expected, rtol=1e-6, atol=1e-6 * float(np.max(np.abs(expected))))


def test_a_fold_bag_of_stumps():
    X, y = _data(5, nan=0.0)
    auto = _auto(X, y, candidates=["stumps:n_iter=15"])
    assert isinstance(auto.best_estimator_, FoldBag)
    _assert_exports_score(auto, X)


# ----------------------------------------------------------------------------------------------------------------
# refusals
# ----------------------------------------------------------------------------------------------------------------
def test_refusals_name_the_choice_and_the_way_out():
    with pytest.raises(NotFittedError):
        rankcore.AutoRanker().to_lightgbm()
    X, y = _data(6, n=100, nan=0.0)
    small = rankcore.AutoRanker(random_state=0, n_jobs=1).fit(X, y)          # small data: the fixed blend
    assert isinstance(small.best_estimator_, RankAverage)
    for method in ("to_lightgbm", "to_xgboost_json"):
        with pytest.raises(TypeError, match=rf"AutoRanker.{method}: the chosen model 'blend\(.*\)' is a rank-average "
                                            r"blend.*blend=False"):
            getattr(small, method)()
    X, y = _data(7, nan=0.0)
    linear = _auto(X, y, candidates=["linear:n_epochs=2"])
    with pytest.raises(TypeError, match=r"'linear.*' \(model 0 of its fold bag\): an SGDAtK is not boosted trees"):
        linear.to_lightgbm()
    X, y = _data(8, nan=0.1)
    imputed = _auto(X, y, candidates=["stumps:n_iter=5"], bag_folds=False)
    with pytest.raises(TypeError, match=r"its trees read X through the missing-value imputer, .* because the data "
                                        r"have missing values: .*refit with candidates=\['trees'\]"):
        imputed.to_xgboost_json()
    kernel = _auto(X, y, candidates=["kernel"], bag_folds=False)          # a Pipeline: scaler, then the kernel
    with pytest.raises(TypeError, match=r"'kernel': a KernelRanker is not boosted trees or stumps"):
        kernel.to_lightgbm()


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_lightgbm_and_xgboost_candidates_point_to_their_booster(library):
    pytest.importorskip(library)
    X, y = _data(9, nan=0.0)
    refit = _auto(X, y, candidates=[library], bag_folds=False)
    booster = "model.booster_" if library == "lightgbm" else r"model.get_booster\(\)"
    with pytest.raises(TypeError, match=rf"auto.best_estimator_.{booster}"):
        refit.to_lightgbm()
    # the advice holds: the booster's raw margin is the AutoRanker's score
    if library == "lightgbm":
        margin = refit.best_estimator_.model.booster_.predict(X, raw_score=True)
    else:
        import xgboost

        margin = refit.best_estimator_.model.get_booster().predict(xgboost.DMatrix(X), output_margin=True)
    np.testing.assert_allclose(margin, refit.decision_function(X), rtol=1e-6, atol=1e-6)
    bagged = _auto(X, y, candidates=[library])
    with pytest.raises(TypeError, match=rf"each model k's own booster is a model file, "
                                        rf"auto.best_estimator_.estimators\[k\].{booster}.*bag_folds=False"):
        bagged.to_xgboost_json()


def test_the_writers_offset_is_a_last_tree_of_one_leaf():
    from rankcore.learners import lightgbm_model_string, xgboost_json_string

    X = np.array([[0.0, 1.0], [np.nan, -2.0]])
    assert json.loads(xgboost_json_string([], [], 2, offset=-0.25)) == [{"nodeid": 0, "leaf": -0.25}]
    text = lightgbm_model_string([], [], 2, offset=0.1)
    np.testing.assert_array_equal(read_scores(text, X), [0.1, 0.1])
    for writer in (lightgbm_model_string, xgboost_json_string):
        with pytest.raises(ValueError, match="the constant offset is nan; expected a finite number"):
            writer([], [], 2, offset=float("nan"))
    lightgbm = pytest.importorskip("lightgbm")
    np.testing.assert_array_equal(lightgbm.Booster(model_str=text).predict(X, raw_score=True), [0.1, 0.1])

"""``AutoRanker.to_lightgbm`` / ``to_xgboost_json`` on category columns and the refusals' reasons: a split of a
category column's positions refused by the dump, categories JSON cannot hold refused by name, each Pipeline step's
own reason, advice that leads to an exported model, ``feature_names`` in both methods, and the messages' details."""

import json
import os
import sys

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.auto import Candidate, FoldBag, RankAverage

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "learners"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _plugin_registration import components_registered  # noqa: E402
from test_lightgbm_export import read_model, read_scores  # noqa: E402


def _auto(X, y, candidates, **params):
    return rankcore.AutoRanker(candidates=list(candidates), random_state=0, n_jobs=1, **params).fit(X, y)


def _close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12 * float(np.max(np.abs(expected))))


def _store_frame(n_stores=4, n=400, seed=0):
    """A numeric category column ``store`` (ids 10, 20, ...) that matters, and a numeric column."""
    rng = np.random.default_rng(seed)
    ids = rng.choice(np.arange(1, n_stores + 1) * 10, size=n)
    frame = pd.DataFrame({"a": np.round(rng.normal(size=n), 1), "store": pd.Categorical(ids)})
    y = ((frame["a"] + 2.0 * (ids > 5 * n_stores) + 0.5 * rng.normal(size=n)) > 1).astype(int)
    return frame, y, ids


def _positions(frame):
    return np.column_stack([frame["a"].to_numpy(), frame["store"].cat.codes.to_numpy().astype(float)])


# ----------------------------------------------------------------------------------------------------------------
# 1. a category column split as numbers: its positions, which an engine fed values would misread
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, n_stores, where", [
    ("trees:n_iter=6,max_leaves=4,growth=oblivious", 4, r"level \d+"),     # oblivious trees split no groups
])
def test_the_dump_refuses_a_numeric_split_of_a_category_column(spec, n_stores, where):
    frame, y, _ = _store_frame(n_stores, n=1500)
    auto = _auto(frame, y, [spec])
    models = auto.best_estimator_.estimators if isinstance(auto.best_estimator_, FoldBag) else [auto.best_estimator_]
    assert any(1 in np.atleast_1d(r.feature) for m in models for r in m.rankers_), "no split of 'store': pointless"
    with pytest.raises(ValueError, match=rf"^AutoRanker.to_xgboost_json: the chosen model '{spec}' splits 'store' "
                                         rf"\(column 1\), a pandas 'category' column at fit, as numbers \(model \d of "
                                         rf"the fold bag, tree \d+, {where};.*position in auto.categories_\[1\].*"
                                         r"export with to_lightgbm.*refit with the column as numbers") as refused:
        auto.to_xgboost_json()
    assert "candidates=['trees:growth=oblivious']" not in str(refused.value)
    # the LightGBM file codes a frame by position, as the fit did: exact
    _close(read_scores(auto.to_lightgbm(), _positions(frame)), auto.decision_function(frame))
    # the way out the message gives: the column as numbers, whose values the dump's conditions are then on
    numbers = frame.astype({"store": float})
    plain = _auto(numbers, y, [spec])
    from test_xgboost_json_export import evaluate

    _, sums = evaluate(plain.to_xgboost_json(), numbers.to_numpy(np.float32), ["a", "store"])
    _close(sums, plain.decision_function(numbers.astype(np.float32).astype(np.float64)))


def test_the_group_split_refusal_no_longer_advises_oblivious_trees():
    frame, y, _ = _store_frame()
    auto = _auto(frame, y, ["trees:n_iter=6,max_leaves=4"])
    with pytest.raises(ValueError, match=r"splits 'store' \(column 1\) by categories .*export with "
                                         r"to_xgboost_model or to_lightgbm, or refit with the column as numbers") \
            as refused:
        auto.to_xgboost_json()
    assert "oblivious" not in str(refused.value)


# ----------------------------------------------------------------------------------------------------------------
# 2. categories pandas_categorical's JSON cannot hold: a ValueError naming the column, before anything is written
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("values", [
    pd.to_datetime(["2024-01-01", "2024-02-01", "2024-03-01"]),
    pd.to_timedelta([1, 2, 3], unit="D"),
    pd.interval_range(0, 3),
], ids=["datetime", "timedelta", "interval"])
def test_categories_json_cannot_hold_are_refused_by_column(values, tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    pick = rng.integers(0, 3, size=n)
    frame = pd.DataFrame({"a": rng.normal(size=n), "when": pd.Categorical(np.asarray(values, dtype=object)[pick])})
    y = ((frame["a"] + (pick == 1)) > 0.5).astype(int)
    auto = _auto(frame, y, ["trees:n_iter=4,max_leaves=4"])
    push = rankcore.boost(learner="trees:max_leaves=4", n_iter=4, random_state=0).fit(frame, y)
    for model, owner in ((auto, r"AutoRanker 'trees:n_iter=4,max_leaves=4'"), (push, "PushBoost")):
        with pytest.raises(ValueError, match=rf"^{owner}: 'when' \(column 1\) was a pandas 'category' column at fit "
                                             r"whose categories are of type .*pandas_categorical.*\.astype\(str\)"):
            model.to_lightgbm(tmp_path / "m.txt")
    assert not (tmp_path / "m.txt").exists()
    # converted before fit, as the message says: written
    text = _auto(frame.astype({"when": str}).astype({"when": "category"}), y, ["trees:n_iter=4,max_leaves=4"]
                 ).to_lightgbm()
    assert "pandas_categorical:[[" in text


# ----------------------------------------------------------------------------------------------------------------
# 3. trees behind a Pipeline: each step's own reason
# ----------------------------------------------------------------------------------------------------------------
def test_stumps_behind_the_imputer_for_a_category_column_blame_the_column_not_missing_values():
    frame, y, _ = _store_frame()
    assert not frame.isna().any().any()
    auto = _auto(frame, y, ["stumps:n_iter=5"], bag_folds=False)
    with pytest.raises(TypeError, match=r"its trees read X through the missing-value imputer, which its candidate is "
                                        r"fitted behind \(it takes no missing values\) because the category column "
                                        r"'store' scores a category the fit did not list as a missing value: "
                                        r".*refit with candidates=\['trees'\]") as refused:
        auto.to_lightgbm()
    assert "data have missing values" not in str(refused.value)
    # with NaN too, both reasons
    frame.loc[::7, "a"] = np.nan
    both = _auto(frame, y, ["stumps:n_iter=5"], bag_folds=False)
    with pytest.raises(TypeError, match=r"because the data have missing values and the category column 'store' scores"):
        both.to_xgboost_json()
    # the advice holds: the trees candidate reads the frame itself
    assert _auto(frame, y, ["trees:n_iter=4,max_leaves=4"]).to_lightgbm()


class _ScaledTrees(Candidate):
    """A plugin candidate whose estimator is a Pipeline: a scaler, then trees (``Candidate.build`` allows it)."""

    name = "test_scaled_trees"
    default_specs = ()

    def build(self, context):
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), rankcore.boost(learner="trees:max_leaves=4", n_iter=3,
                                                              random_state=context.random_state))


def test_a_plugin_pipelines_steps_are_named_as_its_own():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0.5).astype(int)
    with components_registered("rankcore_register_auto_candidates", [_ScaledTrees], "test_scaled_trees_plugin"):
        auto = _auto(X, y, ["test_scaled_trees"], bag_folds=False)
        with pytest.raises(TypeError, match=r"its trees read X through StandardScaler, a step of its candidate's own "
                                            r"estimator: a file of trees holds splits of X's own columns") as refused:
            auto.to_lightgbm()
    assert "missing" not in str(refused.value).split("refit with")[0]


# ----------------------------------------------------------------------------------------------------------------
# 4. the blend's and the non-trees' advice leads to a model that is exported
# ----------------------------------------------------------------------------------------------------------------
def test_the_small_data_advice_leads_to_an_exported_model():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] + rng.normal(size=100) > 0.3).astype(int)
    small = rankcore.AutoRanker(random_state=0, n_jobs=1).fit(X, y)
    assert isinstance(small.best_estimator_, RankAverage)
    with pytest.raises(TypeError, match=r"refit with candidates=\['trees'\] to choose one trees candidate "
                                        r"\(blend=False alone may choose a model without trees"):
        small.to_lightgbm()
    alone = rankcore.AutoRanker(random_state=0, n_jobs=1, blend=False).fit(X, y)
    if alone.best_candidate_.split(":")[0] not in ("trees", "stumps"):
        with pytest.raises(TypeError, match=r"is not boosted trees or stumps; .*refit with candidates=\['trees'\]$"):
            alone.to_lightgbm()
    advised = rankcore.AutoRanker(candidates=["trees"], random_state=0, n_jobs=1).fit(X, y)
    _close(read_scores(advised.to_lightgbm(), X), advised.decision_function(X))


def test_an_exactboost_choice_says_an():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 2))
    auto = _auto(X, (X[:, 0] > 0).astype(int), ["exactboost:n_runs=2"], bag_folds=False)
    with pytest.raises(TypeError, match=r"'exactboost:n_runs=2': an ExactBoost is not boosted trees"):
        auto.to_lightgbm()


# ----------------------------------------------------------------------------------------------------------------
# 5. feature_names: both methods take it, a single string is refused
# ----------------------------------------------------------------------------------------------------------------
def test_feature_names_in_both_methods():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0.5).astype(int)
    auto = _auto(X, y, ["trees:n_iter=4,max_leaves=4"])
    text = auto.to_lightgbm(feature_names=["price", "bm25 title", "age"])
    assert "feature_names=price bm25_title age" in text
    np.testing.assert_array_equal(read_scores(text, X), read_scores(auto.to_lightgbm(), X))
    for method in ("to_lightgbm", "to_xgboost_json"):
        with pytest.raises(TypeError, match=r"^feature_names: expected a sequence of strings .*got the str 'abc'"):
            getattr(auto, method)(feature_names="abc")
        with pytest.raises(ValueError, match=r"^feature_names: expected 3 names"):
            getattr(auto, method)(feature_names=["a", "b"])
    with pytest.raises(ValueError, match=r"^feature_names: columns 0 \('a b'\) and 1 \('a_b'\) are both 'a_b'.*"
                                         r"rename one$"):
        auto.to_lightgbm(feature_names=["a b", "a_b", "c"])


# ----------------------------------------------------------------------------------------------------------------
# 6. the messages' and the files' details
# ----------------------------------------------------------------------------------------------------------------
def test_a_name_collision_of_the_frames_own_names_names_the_owner():
    rng = np.random.default_rng(9)
    frame = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a b", "a_b"])
    auto = _auto(frame, (frame["a b"] > 0.5).astype(int), ["trees:n_iter=3,max_leaves=4"])
    with pytest.raises(ValueError, match=r"^AutoRanker 'trees:n_iter=3,max_leaves=4': feature_names_in_: columns 0 "
                                         r"\('a b'\) and 1 \('a_b'\) .*rename one, or pass feature_names$"):
        auto.to_lightgbm()
    assert "feature_names=a_b b" in auto.to_lightgbm(feature_names=["a_b", "b"])


def test_a_subclass_names_itself_and_a_zero_constant_is_written_0():
    class MyAuto(rankcore.AutoRanker):
        pass

    rng = np.random.default_rng(10)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0.5).astype(int)
    linear = MyAuto(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(X, y)
    with pytest.raises(TypeError, match=r"^MyAuto.to_lightgbm: the chosen model 'linear:n_epochs=2'"):
        linear.to_lightgbm()
    auto = _auto(X, y, ["trees:n_iter=3,max_leaves=4"])
    bag = auto.best_estimator_
    bag.centers = -np.zeros_like(bag.centers)        # centres summing to 0: the constant −Σ c / (M s) is −0.0
    _, trees = read_model(auto.to_lightgbm())
    assert np.copysign(1.0, trees[-1]["leaf_value"][0]) == 1.0
    assert json.loads(auto.to_xgboost_json())[-1] == {"nodeid": 0, "leaf": 0.0}
    assert "\"leaf\": -0.0 }" not in auto.to_xgboost_json() and "leaf_value=-0.0\n" not in auto.to_lightgbm()

"""AutoRanker on small data: the default search keeps a fixed rank-average blend (rankcore.auto._small_data)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata

from rankcore import AutoRanker
from rankcore.auto import SMALL_DATA_ROWS, Candidate, RankAverage, small_data_specs
from rankcore.auto._estimator import _base_seed
from rankcore.auto._folds import plan_folds
from rankcore.auto._selection import fixed_blend
from rankcore.persistence import load_model, save_model
from rankcore.registry import resolve

from _candidate_plugins import registered_candidate

BLEND = "blend(linear+kernel+exactboost)"


def _data(n, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.8, size=n) > 0.4).astype(int)
    return X, y


@pytest.fixture(scope="module")
def small():
    X, y = _data(80)
    return X, y, AutoRanker(random_state=0, n_jobs=1).fit(X, y)


def test_the_small_data_blend_is_linear_kernel_and_exactboost():
    assert small_data_specs() == ["linear", "kernel", "exactboost"]
    assert SMALL_DATA_ROWS == 120


def test_small_data_keep_the_blend_of_the_small_data_candidates(small):
    X, y, model = small
    assert model.best_candidate_ == BLEND
    assert isinstance(model.best_estimator_, RankAverage)
    assert model.best_estimator_.names == ["linear", "kernel", "exactboost"]
    assert "small data (at most 120 rows)" in model.selection_reason_
    rows = {row.name: row for row in model.leaderboard_.rows}
    assert rows[BLEND].status == "chosen"
    for member in ("linear", "kernel", "exactboost"):
        assert rows[member].status == "evaluated" and "blend member" in rows[member].note
    # the other default candidates are not fitted at all, and say why
    for spec in ("trees", "trees:max_leaves=8", "kernel:kernel=rbf"):
        assert rows[spec].status == "skipped" and "small data" in rows[spec].note
    scores = model.decision_function(X)
    assert scores.shape == (80,) and np.isfinite(scores).all()


def test_small_data_blend_score_is_the_rank_average_on_each_validation_part(small):
    # reference: the members' out-of-fold scores, mid-ranked within each fold's validation part and averaged
    X, y, model = small
    plan = plan_folds(y, "auto", _base_seed(0))
    metric = resolve("metric", "pauc:0.1")
    expected = []
    for _, validation in plan.folds[:plan.n_splits]:
        quantiles = [(rankdata(model.cv_predictions_[m][validation]) - 0.5) / validation.shape[0]
                     for m in ("linear", "kernel", "exactboost")]
        expected.append(metric(y[validation], np.mean(quantiles, axis=0)))
    row = model.leaderboard_[BLEND]
    np.testing.assert_allclose(row.fold_scores[:plan.n_splits], expected, rtol=1e-12)
    assert model.best_score_ == pytest.approx(np.mean(expected), rel=1e-12)


@pytest.mark.parametrize("n", [SMALL_DATA_ROWS, SMALL_DATA_ROWS + 1])
def test_the_rule_stops_at_small_data_rows(n):
    X, y = _data(n, seed=1)
    model = AutoRanker(random_state=0, n_jobs=1).fit(X, y)
    trees = model.leaderboard_["trees"]
    if n <= SMALL_DATA_ROWS:
        assert model.best_candidate_ == BLEND and trees.status == "skipped"
    else:
        assert trees.status != "skipped" and "small data" not in model.selection_reason_


def test_blend_false_or_a_candidate_list_search_and_choose_on_small_data():
    X, y = _data(80)
    no_blend = AutoRanker(random_state=0, n_jobs=1, blend=False).fit(X, y)
    assert "small data" not in no_blend.selection_reason_
    assert no_blend.leaderboard_["trees"].status != "skipped"
    assert not no_blend.best_candidate_.startswith("blend(")
    listed = AutoRanker(candidates=["trees", "linear", "kernel"], random_state=0, n_jobs=1).fit(X, y)
    assert "small data" not in listed.selection_reason_
    assert listed.leaderboard_["trees"].status != "skipped"


def test_small_data_blend_leaves_out_a_member_that_does_not_apply():
    # more than 50 features: ExactBoost does not apply, the blend is the other two
    X, y = _data(90, d=55, seed=2)
    model = AutoRanker(random_state=0, n_jobs=1).fit(X, y)
    assert model.best_candidate_ == "blend(linear+kernel)"
    assert model.leaderboard_["exactboost"].status == "skipped"


def test_small_data_blend_is_deterministic_and_saved(small, tmp_path):
    X, y, model = small
    again = AutoRanker(random_state=0, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    path = tmp_path / "small.json"
    save_model(model, path)
    loaded = load_model(path)
    assert loaded.best_candidate_ == BLEND
    np.testing.assert_allclose(loaded.decision_function(X), model.decision_function(X), rtol=1e-12)


class _Scaled(Candidate):
    """A plugin candidate in the small-data blend: the first feature's value."""

    name = "first-feature-for-tests"
    default_specs = ()
    small_data_specs = ("first-feature-for-tests",)
    relative_cost = 0.01
    priority = 1

    def build(self, context):
        return _FirstFeature()


class _FirstFeature:
    def fit(self, X, y):
        return self

    def decision_function(self, X):
        return np.asarray(X)[:, 0]


def test_a_plugin_candidate_joins_the_small_data_blend():
    X, y = _data(70, seed=3)
    with registered_candidate(_Scaled, "auto-small-data-test"):
        assert small_data_specs()[0] == "first-feature-for-tests"
        model = AutoRanker(random_state=0, n_jobs=1).fit(X, y)
    assert model.best_candidate_ == "blend(first-feature-for-tests+linear+kernel+exactboost)"


def test_fixed_blend_by_hand():
    class Mean:
        greater_is_better = True

        def __call__(self, labels, scores):
            return float(np.mean(scores[labels == 1]))

    labels = [np.array([1, 0, 0, 1]), np.array([0, 1, 1, 0])]
    predictions = {0: [np.array([4.0, 3, 2, 1]), np.array([1.0, 2, 3, 4])],
                   1: [np.array([1.0, 2, 3, 4]), np.array([4.0, 3, 2, 1])]}
    scores = {0: np.array([0.2, 0.9]), 1: np.array([0.5, 0.4])}
    selection = fixed_blend(scores, predictions, labels, (1, 0), 1.0, Mean(), "why")
    assert selection.chosen == (0, 1) and selection.blend_members == (0, 1) and selection.fixed
    assert selection.single == 0                                   # the better mean: 0.55 against 0.45
    # both units: every row's two quantiles sum to 1, so each blended score is 0.5
    np.testing.assert_allclose(selection.blend_nested, [0.5, 0.5])
    one = fixed_blend(scores, predictions, labels, (1,), 1.0, Mean(), "why")
    assert one.chosen == (1,) and one.blend_nested is None and not one.is_blend


def test_small_data_blend_with_a_budget_gives_every_member_the_same_folds():
    # a budget adds repeats of the folds for the leaders on larger data; the fixed blend needs none
    X, y = _data(80)
    model = AutoRanker(random_state=0, n_jobs=1, time_budget=60).fit(X, y)
    assert model.best_candidate_ == BLEND
    assert model.cv_description_ == "5-fold stratified cross-validation"
    assert {model.leaderboard_[m].n_folds for m in ("linear", "kernel", "exactboost")} == {5}

"""AutoRanker.feature_contributions: the chosen model's TreeSHAP values, composed with its score's linear weights."""

import copy

import numpy as np
import pytest

import rankcore
from rankcore import AutoRanker
from rankcore.auto import Candidate, FoldBag, MissingValueImputer, RankAverage
from rankcore.persistence import _decode, _encode, load_model, model_from_dict, model_to_dict, save_model

from _candidate_plugins import registered_candidate
from _model_files import resign
from _query_data import graded_queries
from _auto_explained import TREES, fit_auto as _fit, toy_data as _data

RTOL = 1e-9


def _assert_sums(model, X, rtol=RTOL):
    phi = model.feature_contributions(X)
    scores = model.decision_function(X)
    assert phi.shape == (scores.shape[0], model.n_features_in_ + 1) and phi.dtype == np.float64
    np.testing.assert_allclose(phi.sum(axis=1), scores, rtol=rtol, atol=rtol * np.abs(scores).max())
    assert np.all(phi[:, -1] == phi[0, -1])              # the expected score: one value
    return phi


@pytest.fixture(scope="module")
def bagged():
    X, y = _data()
    return _fit(X, y), X, y


def test_a_single_refit_is_explained_by_its_own_values():
    X, y = _data()
    model = _fit(X, y, bag_folds=False)
    assert isinstance(model.best_estimator_, rankcore.PushBoost)
    phi = _assert_sums(model, X)
    np.testing.assert_array_equal(phi, model.best_estimator_.feature_contributions(X))


def test_a_fold_bag_composes_its_models_standardized(bagged):
    model, X, _ = bagged
    bag = model.best_estimator_
    assert isinstance(bag, FoldBag) and len(bag.estimators) == 6
    phi = _assert_sums(model, X)
    # by hand: the mean over the models of (values - center on the expected column) / scale
    reference = np.zeros_like(phi)
    for estimator, center, scale in zip(bag.estimators, bag.centers, bag.scales):
        values = estimator.feature_contributions(X)
        values[:, -1] -= center
        reference += values / scale
    np.testing.assert_allclose(phi, reference / len(bag.estimators), rtol=1e-12, atol=1e-12)


def test_within_queries():
    X, y, qid = graded_queries(seed=2, n_queries=30)
    model = AutoRanker(candidates=[TREES], random_state=0, n_jobs=1).fit(X, y, qid=qid)
    assert model.ranks_within_queries_ and isinstance(model.best_estimator_, FoldBag)
    _assert_sums(model, X)


def test_missing_values_routed_by_the_trees():
    X, y = _data(nan=True, seed=3)
    model = _fit(X, y)
    assert isinstance(model.best_estimator_.estimators[0], rankcore.PushBoost)        # no imputer: NaN routed
    _assert_sums(model, X)


class _ImputedTrees(Candidate):
    """Trees that take no NaN: AutoRanker fits them behind the missing-value imputer."""

    name = "imputed-trees-for-tests"
    relative_cost = 0.01
    accepts_missing = False

    def build(self, context):
        return rankcore.PushBoost(learner="trees:min_samples_leaf=5", n_iter=5, random_state=context.random_state)


def test_a_model_behind_the_imputer_is_explained_on_the_original_columns():
    X, y = _data(nan=True, seed=4)
    with registered_candidate(_ImputedTrees, "auto-imputed-trees-test"):
        model = _fit(X, y, candidates=["imputed-trees-for-tests"])
        phi = _assert_sums(model, X)
    refit = model.best_estimator_.estimators[0]
    imputer, trees = refit.steps[0][1], refit.steps[1][1]
    assert isinstance(imputer, MissingValueImputer) and imputer.indicator_features_.size == X.shape[1]
    # the refit's values by hand: each indicator's value added to the column it indicates
    wide = trees.feature_contributions(imputer.transform(X))
    d = X.shape[1]
    by_column = wide[:, :d].copy()
    by_column[:, imputer.indicator_features_] += wide[:, d:-1]
    bag = model.best_estimator_
    expected = np.zeros_like(phi)
    for estimator, center, scale in zip(bag.estimators, bag.centers, bag.scales):
        imp, inner = estimator.steps[0][1], estimator.steps[1][1]
        values = inner.feature_contributions(imp.transform(X))
        folded = np.column_stack([values[:, :d], values[:, -1] - center])
        folded[:, imp.indicator_features_] += values[:, d:-1]
        expected += folded / scale
    np.testing.assert_allclose(phi, expected / len(bag.estimators), rtol=1e-12, atol=1e-12)
    assert np.abs(by_column).sum() > 0


class _ScaledTrees(_ImputedTrees):
    """Trees behind a standard scaler (a plugin's Pipeline, savable as the kernel candidate's)."""

    name = "scaled-trees-for-tests"
    accepts_missing = True

    def build(self, context):
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), super().build(context))


def test_a_model_behind_a_scaler_is_explained_on_the_same_columns():
    X, y = _data(seed=7)
    with registered_candidate(_ScaledTrees, "auto-scaled-trees-test"):
        model = _fit(X, y, candidates=["scaled-trees-for-tests"], bag_folds=False)
        phi = _assert_sums(model, X)
    scaler, trees = model.best_estimator_.steps[0][1], model.best_estimator_.steps[1][1]
    np.testing.assert_array_equal(phi, trees.feature_contributions(scaler.transform(X)))


def test_pandas_category_columns_are_explained_as_positions():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    levels = ["amber", "blue", "coral", "dune"]
    colour = rng.choice(levels, 240)
    x = rng.normal(size=240)
    y = (np.isin(colour, ["blue", "dune"]) + 0.4 * x + 0.4 * rng.normal(size=240) > 0.8).astype(int)
    frame = pd.DataFrame({"colour": pd.Categorical(colour, categories=levels), "x": x})
    model = _fit(frame, y)
    assert list(model.categories_[0]) == levels
    phi = _assert_sums(model, frame)
    assert np.abs(phi[:, 0]).max() > 0
    # a frame listing the categories in another order: matched by value, the same values
    shuffled = frame.assign(colour=pd.Categorical(colour, categories=levels[::-1]))
    np.testing.assert_array_equal(model.feature_contributions(shuffled), phi)


def test_the_values_survive_save_and_load(bagged, tmp_path):
    model, X, _ = bagged
    save_model(model, tmp_path / "auto.json")
    loaded = load_model(tmp_path / "auto.json")
    np.testing.assert_array_equal(loaded.feature_contributions(X), model.feature_contributions(X))
    _assert_sums(loaded, X)


@pytest.mark.parametrize("package", ["lightgbm", "xgboost"])
def test_lightgbm_and_xgboost_candidates(package):
    pytest.importorskip(package)
    X, y = _data(nan=True, seed=6)
    model = _fit(X, y, candidates=[package])
    # XGBoost's values are float32, as its margin is
    _assert_sums(model, X, rtol=RTOL if package == "lightgbm" else 1e-5)


# ----------------------------------------------------------------------
# Refusals
# ----------------------------------------------------------------------
@pytest.mark.parametrize("spec, nan", [("linear:n_epochs=2", False), ("linear:n_epochs=2", True)])
def test_a_candidate_without_tree_values_is_refused_by_name(spec, nan):
    X, y = _data(n=120, nan=nan)
    model = _fit(X, y, candidates=[spec])
    with pytest.raises(TypeError, match=r"candidate 'linear:n_epochs=2' \(SGDAtK\).*no exact feature contributions"):
        model.feature_contributions(X)


def test_stumps_are_refused_by_name():
    X, y = _data(n=120)
    model = _fit(X, y, candidates=["stumps:n_iter=5"])
    with pytest.raises(TypeError, match=r"the chosen candidate 'stumps:n_iter=5' \(PushBoost\) has no exact "
                                        r"contributions \(.*learner 'stumps' has no TreeSHAP values.*\); only tree "
                                        r"boosters \('trees' candidates"):
        model.feature_contributions(X)


def test_a_blend_is_refused_its_map_is_not_linear(bagged):
    """Even of tree members only: the blend's quantile map is not linear (the small-data blend has no trees)."""
    model, X, _ = bagged
    blended = copy.deepcopy(model)
    bag = blended.best_estimator_
    blended.best_estimator_ = RankAverage(["a", "b"], [bag, bag], [np.sort(bag.decision_function(X))] * 2)
    blended.best_candidate_ = "blend(a+b)"
    with pytest.raises(TypeError, match="'blend\\(a\\+b\\)' is a rank-average blend.*not linear"):
        blended.feature_contributions(X)


class _Probability:
    """Trees whose scores are P(relevant): no decision_function."""

    def fit(self, X, y):
        self.trees_ = rankcore.PushBoost(learner="trees:min_samples_leaf=5", n_iter=3, random_state=0).fit(X, y)
        return self

    def predict_proba(self, X):
        p = 1.0 / (1.0 + np.exp(-self.trees_.decision_function(X)))
        return np.column_stack([1.0 - p, p])

    def feature_contributions(self, X):
        return self.trees_.feature_contributions(X)


class _ProbabilityTrees(Candidate):
    name = "probability-trees-for-tests"
    relative_cost = 0.01
    accepts_missing = True

    def build(self, context):
        return _Probability()


class _SquashedTrees(_ImputedTrees):
    """Trees scored through the candidate's own (nonlinear) ``scores``."""

    name = "squashed-trees-for-tests"

    def scores(self, estimator, X):
        return np.tanh(estimator.decision_function(X))


@pytest.mark.parametrize("cls, bag_folds, message", [
    (_ProbabilityTrees, True, r"\(_Probability\).*scored by P\(relevant\)"),
    (_SquashedTrees, True, "scores its model by its own scores method"),
    (_SquashedTrees, False, "scores its model by its own scores method"),
])
def test_a_nonlinear_scorer_is_refused(cls, bag_folds, message):
    X, y = _data(n=120)
    with registered_candidate(cls, "auto-nonlinear-scorer-test"):
        model = _fit(X, y, candidates=[cls.name], bag_folds=bag_folds)
        with pytest.raises(TypeError, match=f"'{cls.name}'.*" + message):
            model.feature_contributions(X)


def test_a_model_file_without_covers_says_to_refit(bagged):
    model, X, _ = bagged
    data = model_to_dict(model)
    state = _decode(data["state"], "state")
    member = state["best"]["members"][2]                 # a fold model, as an old file holds it
    inner = member["model"]
    for record in inner["state"]["rankers"]:
        record.pop("cover")
    member["model"] = _decode(resign(_encode(inner, "model")), "model")
    data["state"] = _encode(state, "state")
    old = model_from_dict(resign(data))
    np.testing.assert_array_equal(old.decision_function(X), model.decision_function(X))
    with pytest.raises(ValueError, match=r"candidate 'trees:.*' \(model 2 of its fold bag\).*no covers.*refit"):
        old.feature_contributions(X)


@pytest.mark.parametrize("bad, error, message", [
    (np.zeros(4), ValueError, "2-D|1-D|2D"),
    (np.zeros((3, 5)), ValueError, "features"),
    (np.full((3, 4), np.inf), ValueError, "inf|finite"),
])
def test_bad_X_is_refused_as_decision_function_refuses_it(bagged, bad, error, message):
    model, _, _ = bagged
    with pytest.raises(error, match=message) as by_scores:
        model.decision_function(bad)
    with pytest.raises(error) as by_values:
        model.feature_contributions(bad)
    assert str(by_values.value) == str(by_scores.value)


def test_unfitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        AutoRanker().feature_contributions(np.zeros((2, 3)))

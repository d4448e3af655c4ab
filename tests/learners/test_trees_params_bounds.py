"""The trees' parameters at the ends of their ranges: a clear error, or a model that saves and loads."""

import numpy as np
import pytest

import rankcore
from rankcore.persistence import load_model, save_model
from rankcore.spec import SpecError


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + 0.5 * rng.normal(size=n) > 0.3).astype(int)


@pytest.mark.parametrize("rate", [2.0, 30.0])
def test_a_learning_rate_above_one_saves_and_loads(tmp_path, rate):
    # a step past the line's minimum can raise the objective: the file's check took that for tampering
    X, y = _data()
    model = rankcore.boost(learner=f"trees:learning_rate={rate}", n_iter=8, random_state=0).fit(X, y)
    save_model(model, tmp_path / "m.json")
    np.testing.assert_array_equal(load_model(tmp_path / "m.json").decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("depth", [2**31, 2**63])
def test_a_depth_beyond_any_tree_is_refused_by_name(depth):
    # 2**63 reached the C kernel as an OverflowError
    X, y = _data()
    with pytest.raises(SpecError, match=r"max_depth must be an integer >= -1 and <= 2147483647"):
        rankcore.boost(learner=f"trees:max_depth={depth}", n_iter=2).fit(X, y)


def _categorical_data(n=200, seed=0):
    X, y = _data(n, seed)
    return np.column_stack([X, np.arange(n) % 5]), y


@pytest.mark.parametrize("threshold", ["2147483648", "9223372036854775808", "1e308"])
def test_a_category_count_beyond_any_column_is_refused_by_name(threshold):
    # 2**63 and 1e308 reached the split kernel as an OverflowError (Python int too large to convert to C ssize_t)
    X, y = _categorical_data()
    with pytest.raises(SpecError, match=r"max_cat_threshold must be an integer >= 1 and <= 2147483647"):
        rankcore.boost(learner=f"trees:max_cat_threshold={threshold}", categorical_features=[3], n_iter=2).fit(X, y)


def test_the_largest_category_count_fits_as_every_category(tmp_path):
    X, y = _categorical_data()
    fits = [rankcore.boost(learner=f"trees:max_cat_threshold={t}", categorical_features=[3], n_iter=3,
                           random_state=0).fit(X, y) for t in (5, 2**31 - 1)]
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))
    save_model(fits[1], tmp_path / "m.json")
    np.testing.assert_array_equal(load_model(tmp_path / "m.json").decision_function(X), fits[1].decision_function(X))


@pytest.mark.parametrize("steps", ["101", "2147483648", "1e308"])
def test_leaf_newton_steps_beyond_100_are_refused_by_name(steps):
    # each step evaluates the objective once per tree and none stops early: 1e308 never finished its first tree
    X, y = _data()
    with pytest.raises(SpecError, match=r"leaf_newton_steps must be an integer >= 1 and <= 100"):
        rankcore.boost(learner=f"trees:leaf_newton_steps={steps}", n_iter=2).fit(X, y)
    rankcore.boost(learner="trees:leaf_newton_steps=100,max_leaves=4", n_iter=2, random_state=0).fit(X, y)

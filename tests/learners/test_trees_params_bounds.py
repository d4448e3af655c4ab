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

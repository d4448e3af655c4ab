"""LightGBM's, XGBoost's and CatBoost's names for the categorical settings name rankcore's.

(Before, ``rankcore.boost(categorical_feature=[0])`` -- LGBMRanker's constructor parameter -- and the learner spec's
``max_cat_to_onehot``, ``one_hot_max_size``, ``min_data_per_group`` and ``cat_l2`` listed the parameters without a
word of what to use instead.)
"""

import re

import numpy as np
import pytest

import rankcore
from rankcore.spec import SpecError


@pytest.mark.parametrize("name", ["categorical_feature", "cat_feature", "categorical_column", "cat_column"])
def test_boost_names_categorical_features_for_lightgbms_parameter(name):
    with pytest.raises(TypeError, match=rf"^{name}: rankcore.boost takes no parameter '{name}'; other libraries' "
                                        rf"{name} is {re.escape('categorical_features=[...]')}"):
        rankcore.boost(learner="trees", **{name: [0]})


@pytest.mark.parametrize("name, spelled", [
    ("max_cat_to_onehot", "trees:max_cat_threshold=1"), ("one_hot_max_size", "trees:max_cat_threshold=1"),
    ("min_data_per_group", "trees:min_samples_leaf=M"), ("cat_l2", "trees:l2=V"),
])
def test_learner_spec_names_the_trees_parameter(name, spelled):
    X = np.column_stack([np.arange(20) % 4, np.arange(20.0)])
    with pytest.raises(SpecError, match=rf"other libraries' {name} is {re.escape(spelled)} here"):
        rankcore.boost(learner=f"trees:{name}=4", n_iter=2).fit(X, np.arange(20) % 2)
    with pytest.raises(TypeError, match=rf"other libraries' {name} is learner=\"{re.escape(spelled)}\""):
        rankcore.boost(learner="trees", **{name: 4})


def test_one_category_against_the_rest_is_what_the_hint_says():
    """The hint's ``max_cat_threshold=1``: every categorical split's left group is one category."""
    rng = np.random.default_rng(0)
    level = rng.integers(0, 8, 400)
    y = np.isin(level, [1, 4, 6]).astype(int)
    X = np.column_stack([level, rng.normal(size=400)])
    model = rankcore.boost(learner="trees:categorical=0,max_cat_threshold=1,max_leaves=4", n_iter=5,
                           random_state=0).fit(X, y)
    sizes = [len(left) for tree in model.rankers_ for left in tree.categories if left is not None]
    assert sizes and set(sizes) == {1}

"""A candidate spec with LightGBM's or XGBoost's name for a parameter the candidate takes under another name
(``trees:num_leaves=31``): the refusal names rankcore's, as the push's learner spec does."""

import numpy as np
import pytest

import rankcore
from rankcore.spec import SpecError


def _rows():
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 3)), np.arange(60) % 2


@pytest.mark.parametrize("spec, hint", [
    ("trees:num_leaves=31", "other libraries' num_leaves is trees:max_leaves=L here; "),
    ("trees:eta=0.1", "other libraries' eta is trees:learning_rate=R here; "),
    ("trees:feature_fraction=0.5", "other libraries' feature_fraction is trees:colsample=F here; "),
])
def test_candidate_spec_names_rankcores_parameter(spec, hint):
    """(Before: the unknown name and the candidate's own list, with no word of which one it is.)"""
    X, y = _rows()
    with pytest.raises(SpecError, match="unknown parameter") as info:
        rankcore.AutoRanker(candidates=[spec]).fit(X, y)
    assert hint in str(info.value)


@pytest.mark.parametrize("spec", ["trees:max_depth=3", "trees:reg_lambda=1", "linear:num_leaves=3"])
def test_candidate_spec_gets_no_hint_naming_a_parameter_it_does_not_take(spec):
    """The trees learner's max_depth and l2 are not the trees candidate's: no hint sends the user to them."""
    X, y = _rows()
    with pytest.raises(SpecError, match="unknown parameter") as info:
        rankcore.AutoRanker(candidates=[spec]).fit(X, y)
    assert "other libraries'" not in str(info.value)

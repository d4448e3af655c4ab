"""Bad specs of the built-in components: a SpecError whose message names the parameter and its rule."""

import pytest

import rankcore
from rankcore.spec import SpecError

BAD_SPECS = [
    ("kernel", "rbf:1e-320", r"gamma must be 'scale' or a number in \[1e-100, 1e\+100\]"),
    ("kernel", "laplacian:1e-320", r"gamma must be 'scale' or a number in \[1e-100, 1e\+100\]"),
    ("kernel", "rbf:1e300", r"gamma must be"),
    ("kernel", "poly:degree=1e9", r"degree must be an integer >= 1 and <= 100"),
    ("kernel", "poly:101", r"degree must be"),
    ("price", "pow:x", r"price 'pow': p must be a number >= 1 and <= 1e\+06, got 'x'"),
    ("price", "pow:0.5", r"price 'pow': p must be a number >= 1 and <= 1e\+06, got '0.5'"),
    ("price", "pow", r"missing parameter p"),
    ("price", "exp:0", r"price 'exp': beta must be a number > 0 and <= 1000, got '0'"),
    ("price", "exp:-1", r"beta must be a number > 0"),
    ("price", "pow:nan", r"p must be a number"),
    ("price", "identity:3", r"too many arguments"),
    ("price", "cube", r"unknown price 'cube'"),
    ("objective", "prec@k-avg", "missing parameter k"),
    ("objective", "prec@k-avg:x", "k must be a count, a fraction or n"),
    ("objective", "prec@k-avg:0", "k must be"),
    ("objective", "prec@k-avg:2.5", "whole count"),
    ("objective", "prec@k-avg:1,0.1,2", "too many arguments"),
    ("objective", "prec@k-avg:5,tie_break=-0.1", "tie_break must be a number >= 0"),
    ("objective", "prec@k-avg:5,tie_break=x", "tie_break must be a number"),
    ("objective", "prec@k-max:5,tie_break=inf", "tie_break must be a number"),
    ("candidate", "trees:growth=symmetric", "growth"),
    ("candidate", "trees:random_strength=-1", "random_strength"),
    ("candidate", "trees:leaf_reg=-1", "leaf_reg"),
    ("candidate", "trees:schedule=short", "schedule"),
    ("candidate", "trees:min_rows=-1", "min_rows must be an integer >= 0"),
    ("candidate", "trees:min_rows=2.5", "min_rows must be an integer >= 0"),
    ("candidate", "trees:large_data=maybe", "large_data must be true or false"),
    ("candidate", "trees:large_data=2", "large_data must be true or false"),
]


@pytest.mark.parametrize("family, spec, match", BAD_SPECS)
def test_bad_spec_is_a_spec_error_naming_the_rule(family, spec, match):
    with pytest.raises(SpecError, match=match):
        rankcore.resolve(family, spec)


@pytest.mark.parametrize("spec, match", [
    ("trees:num_leaves=31", r"unknown parameter\(s\) num_leaves; other libraries' num_leaves is "
                            r"trees:max_leaves=L here; expected max_leaves"),
    ("trees:colsample_bytree=0.5", r"other libraries' colsample_bytree is trees:colsample=F here; expected"),
    ("trees:min_child_samples=5", r"other libraries' min_child_samples is trees:min_samples_leaf=M here; expected"),
])
def test_a_learner_spec_with_lightgbms_name_says_the_name_here(spec, match):
    # someone coming from LGBMRanker writes its names in the trees' spec: the refusal says which one is meant
    with pytest.raises(SpecError, match=match):
        rankcore.resolve("learner", spec)


def test_an_unknown_learner_parameter_without_a_peer_name_lists_the_parameters_only():
    with pytest.raises(SpecError, match=r"unknown parameter\(s\) nonsense; expected max_leaves") as info:
        rankcore.resolve("learner", "trees:nonsense=3")
    assert "other libraries'" not in str(info.value)
    with pytest.raises(SpecError, match=r"learner 'stumps': unknown parameter\(s\) num_leaves; expected max_bins"):
        rankcore.resolve("learner", "stumps:num_leaves=3")

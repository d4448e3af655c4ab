"""LightGBM's parameters that rankcore's trees have no equivalent of: refused with a hint saying so and naming the
nearest setting, not the generic "unexpected keyword argument" (the constructor, rankcore.boost, set_params and a
learner spec alike); every setting a hint names exists."""

import re

import pytest

import rankcore
from rankcore._peer_names import PEER_NAMES_WITHOUT
from rankcore.spec import SpecError

NAMES = ["reg_alpha", "lambda_l1", "min_split_gain", "min_gain_to_split", "boosting_type", "extra_trees",
         "linear_tree", "max_position"]
SAID = r"other libraries' {name} has no equivalent here: "


@pytest.mark.parametrize("name", NAMES)
def test_each_name_is_refused_with_its_hint_everywhere(name):
    # before: PushBoost.__init__() got an unexpected keyword argument 'reg_alpha' (and the bare lists elsewhere)
    said = SAID.format(name=name) + re.escape(PEER_NAMES_WITHOUT[name])
    with pytest.raises(TypeError, match=said):
        rankcore.PushBoost(**{name: 1})
    with pytest.raises(TypeError, match=said):
        rankcore.boost(learner="trees", **{name: 1})
    with pytest.raises(ValueError, match=said):
        rankcore.PushBoost().set_params(**{name: 1})
    with pytest.raises(SpecError, match=said):
        rankcore.resolve("learner", f"trees:{name}=1")


@pytest.mark.parametrize("name", sorted(PEER_NAMES_WITHOUT))
def test_every_setting_a_hint_names_is_accepted(name):
    # the hints' claims checked against the trees' actual parameters and the objectives
    hint = PEER_NAMES_WITHOUT[name]
    for spec in re.findall(r'learner="([^"]+)"', hint) + re.findall(r'"(trees:[^"]+)"', hint):
        filled = re.sub(r"=[A-Z]\b", "=1", spec).replace("subsample=1", "subsample=0.5").replace(
            "colsample=1", "colsample=0.5")
        rankcore.resolve("learner", filled)
    for spec in re.findall(r'objective="([^"]+)"', hint):
        rankcore.resolve("objective", spec.replace("=T", "=10"))
    for spec in re.findall(r'scoring="([^"]+)"', hint):
        rankcore.resolve("metric", spec.replace(":T", ":10"))


def test_names_with_an_equivalent_keep_theirs():
    with pytest.raises(TypeError, match=r"other libraries' reg_lambda is learner=\"trees:l2=V\" here$"):
        rankcore.PushBoost(reg_lambda=1.0)


@pytest.mark.parametrize("words, hint", [
    (["--reg-alpha", "0.1"], "other libraries' --reg-alpha has no equivalent here: the trees have no L1 penalty on "
                             "leaf values; the nearest is the L2 penalty, --learner trees:l2=V"),
    (["--boosting-type=dart"], "other libraries' --boosting-type has no equivalent here: the trees are always plain "
                               "gradient boosting"),
])
def test_the_command_line_says_so_too(tmp_path, capsys, words, hint):
    # before: "unrecognized arguments: --reg-alpha 0.1" alone
    from _cli_run import usage_error, write_binary_csv

    data = write_binary_csv(tmp_path / "d.csv")
    line = usage_error(capsys, "fit", data, *words, "-o", tmp_path / "m.json").strip().splitlines()[-1]
    assert line.startswith(f"rankcore: error: unrecognized arguments: {' '.join(words)}") and hint in line, line


@pytest.mark.parametrize("words, flag", [(["--max-position", "5"], "--max-position"),
                                         (["--min-split-gain", "0.1"], "--min-split-gain")])
def test_the_command_line_prefers_the_hint_to_a_near_spelling(tmp_path, capsys, words, flag):
    # before: --max-position got "did you mean --position?" (the click positions), its hint lost; and a learner's
    # setting written as Python ("trees:min_samples_leaf=M") beside the --learner of the same hint
    from _cli_run import usage_error, write_binary_csv

    data = write_binary_csv(tmp_path / "d.csv")
    line = usage_error(capsys, "fit", data, *words, "-o", tmp_path / "m.json").strip().splitlines()[-1]
    assert f"other libraries' {flag} has no equivalent here: " in line and "did you mean" not in line, line
    assert '"trees:' not in line and 'learner="' not in line, line

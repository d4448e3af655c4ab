"""Command-line parameters: a learner's parameter given to the model points to ``--learner``, and numbers are read by
the rule of spec strings (ASCII digits; rankcore.spec.read_float)."""

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from rankcore.cli import CommandError, main
from rankcore.cli._common import parse_value

FIT = ("--n-iter", "3", "--quiet")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("hints")
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(40, 2)), 1)
    y = (X[:, 0] > 0).astype(int)
    path = d / "d.csv"
    path.write_text("a,b,label\n" + "".join(f"{a!r},{b!r},{int(t)}\n" for (a, b), t in zip(X.tolist(), y)))
    return path


def _trees_only() -> list[str]:
    """The trees learner's parameters that neither push nor its default learner (stumps) takes, from the registry."""
    registry = rankcore.get_registry()
    push = set(rankcore.PushBoost().get_params(deep=False))
    stumps = {p.name for p in registry.get("learner", "stumps").parameters}
    return [p.name for p in registry.get("learner", "trees").parameters if p.name not in push | stumps]


def test_the_registry_gives_trees_parameters_to_check():
    assert {"max_delta_step", "max_depth", "line_search"} <= set(_trees_only())


@pytest.mark.parametrize("key", _trees_only())
def test_a_trees_parameter_given_to_push_points_to_the_learner(data, tmp_path, key):
    status, _, err = run_main("fit", data, "--param", f"{key}=1", *FIT, "-o", tmp_path / "m.json")
    one_line_error(status, err, f"--param {key}: push has no such parameter",
                   f"{key} is a parameter of the learner 'trees': --learner \"trees:{key}=1\"")


def test_the_hint_keeps_the_learner_given_and_prefers_it(data, tmp_path):
    out = tmp_path / "m.json"
    status, _, err = run_main("fit", data, "--learner", "trees:max_leaves=7", "--param", "max_depth=3", *FIT, "-o", out)
    one_line_error(status, err, '--learner "trees:max_leaves=7,max_depth=3"')
    # max_bins is the default learner's (stumps) as well as the trees': the model's own learner is named
    status, _, err = run_main("fit", data, "--param", "max_bins=16", *FIT, "-o", out)
    one_line_error(status, err, "the learner 'stumps': --learner \"stumps:max_bins=16\"")
    status, _, err = run_main("fit", data, "--model", "push:max_depth=3", *FIT, "-o", out)
    one_line_error(status, err, "--model push: no parameter 'max_depth'", '--learner "trees:max_depth=3"')
    status, _, err = run_main("fit", data, "--model", "rankboost", "--param", "line_search=false", *FIT, "-o", out)
    one_line_error(status, err, '--learner "trees:line_search=false"')


@pytest.mark.parametrize("learner, hinted", [
    ("trees:max_depth=2", "trees:max_depth=3"),                            # by keyword: replaced, not given twice
    ("trees:max_depth=2,max_leaves=7", "trees:max_depth=3,max_leaves=7"),
    ("trees:31,0.1,2", "trees:31,0.1,3"),                                  # by position (max_leaves, lr, depth)
    (" trees : max_leaves = 7 ", "trees:max_leaves=7,max_depth=3"),
])
def test_the_hint_sets_a_parameter_the_learner_s_spec_gives_once(data, tmp_path, learner, hinted):
    out = tmp_path / "m.json"
    status, _, err = run_main("fit", data, "--learner", learner, "--param", "max_depth=3", *FIT, "-o", out)
    one_line_error(status, err, f'--learner "{hinted}"')
    assert run_main("fit", data, "--learner", hinted, *FIT, "-o", out)[0] == 0     # the hint is a spec that fits


def test_no_hint_without_a_learner_or_a_learner_s_parameter(data, tmp_path):
    out = tmp_path / "m.json"
    status, _, err = run_main("fit", data, "--model", "exactboost", "--param", "max_depth=3", *FIT, "-o", out)
    one_line_error(status, err, "--param max_depth: exactboost has no such parameter")
    assert "--learner" not in err
    status, _, err = run_main("fit", data, "--param", "bogus=1", *FIT, "-o", out)
    one_line_error(status, err, "--param bogus: push has no such parameter (its parameters:")
    assert "learner '" not in err


@pytest.mark.parametrize("text, expected", [("10", 10), ("-3", -3), ("0.5", 0.5), ("1e3", 1000.0), (" 2 ", 2),
                                            ("true", True), ("None", None), ("auto", "auto"), ("pauc:0.1", "pauc:0.1"),
                                            ("1" + "0" * 30, 10**30), ("inf", float("inf"))])
def test_param_values_read_as_before(text, expected):
    value = parse_value(text)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("text, reason", [("1_0", "'_' does not separate digits"), ("\u0661\u0660", "ASCII 0-9"),
                                          ("\uff11\uff10", "ASCII 0-9"), ("1e400", "overflows"),
                                          ("1e-400", "underflows to 0")])
def test_param_values_float_would_read_are_refused_naming_the_option(text, reason):
    with pytest.raises(CommandError, match=f"--param n_iter: .*{reason}"):
        parse_value(text, "--param n_iter")


def test_numbers_on_the_command_line_follow_the_spec_rule(data, tmp_path, capsys):
    out = tmp_path / "m.json"
    for argv, fragments in (
            (["--param", "n_iter=1_0"], ["--param n_iter: '1_0'", "'_' does not separate digits"]),
            (["--n-iter", "\u0661\u0660"], ["--n-iter: '\u0661\u0660'", "ASCII 0-9"]),
            (["--model", "push:n_iter=1e400"], ["n_iter: '1e400'", "overflows"])):
        one_line_error(*run_main("fit", data, *argv, "--quiet", "-o", out)[::2], *fragments)
    for option, text in (("--random-state", "1_0"), ("--n-jobs", "\uff12")):     # argparse's own types too
        with pytest.raises(SystemExit) as exit:
            main(["fit", str(data), option, text, "--quiet", "-o", str(out)])
        assert exit.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {option}: expected an integer" in err and f"got '{text}' (" in err
    assert run_main("fit", data, "--param", "n_iter=3", "--random-state", "7", "--quiet", "-o", out)[0] == 0

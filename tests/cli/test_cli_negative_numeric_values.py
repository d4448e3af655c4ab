"""A negative number given to an option as the next word -- ``--margin -inf``, ``--lam -1e-3``, ``--eta0 -1E3``,
``--margin -1,2`` -- is the option's value, as ``--margin=-inf`` is, for every option of every subcommand (argparse
took such words for options: "expected one argument"); the value then meets the option's own validation, and such
a word anywhere else is still an error."""

import argparse

import numpy as np
import pytest

from _cli_run import one_line_error, run_main
from rankcore.cli import build_parser
from rankcore.cli._models import OPTIONS
from rankcore.cli._negative_values import join_negative_values

#: Negative numbers argparse's own pattern (``-1``, ``-.5``) misses.
VALUES = ["-inf", "-Infinity", "-nan", "-1e-3", "-1E3", "-2.5e+2", "-1,2", "-0.1,0.05"]


def _parsers():
    """(subcommand, its parser) of ``rankcore``'s parser (argparse keeps them in a private table: a test may look)."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(subparsers.choices.items())


def _positionals(sub) -> list[str]:
    """Words for a subcommand's positional arguments (a sub-subcommand: its first)."""
    words = []
    for action in sub._actions:
        if action.option_strings:
            continue
        if action.nargs == argparse.PARSER:
            words.append(next(iter(action.choices)))
        elif action.nargs in (None, "+"):
            words.append(f"{action.dest}.x")
    return words


def _options():
    """(subcommand, option, positional words) of every option taking a value."""
    for name, sub in _parsers():
        for action in sub._actions:
            if action.option_strings and action.nargs != 0 and action.option_strings[0].startswith("--") \
                    and not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                yield name, action.option_strings[0], _positionals(sub)


OPTIONS_TAKING_VALUES = sorted(_options())


def _outcome(capsys, argv):
    """What parsing ``argv`` gives: the parsed values, or argparse's message."""
    try:
        ns = build_parser().parse_args(argv)
    except SystemExit:
        return "error", capsys.readouterr().err.strip().splitlines()[-1]
    return "ok", {k: v for k, v in vars(ns).items() if not k.startswith("_")}


def test_every_numeric_option_is_among_those_checked():
    checked = {(name, option) for name, option, _ in OPTIONS_TAKING_VALUES}
    numeric = {o.flag for o in OPTIONS if o.number}
    assert {("fit", flag) for flag in numeric} <= checked and {("compare", flag) for flag in numeric} <= checked
    for expected in [("fit", "--n-jobs"), ("fit", "--random-state"), ("compare", "--ci"), ("compare", "--n-boot"),
                     ("compare", "--test-size"), ("demo", "--test-size"), ("auto", "--time"), ("auto", "--cv"),
                     ("explain", "--top"), ("explain", "--repeats"), ("evaluate", "--ci")]:
        assert expected in checked, expected


@pytest.mark.parametrize("name,option,positionals", OPTIONS_TAKING_VALUES)
def test_a_negative_number_as_the_next_word_is_the_options_value(capsys, name, option, positionals):
    for value in VALUES:
        spaced = _outcome(capsys, [name, *positionals, option, value])
        joined = _outcome(capsys, [name, *positionals, f"{option}={value}"])
        assert spaced == joined, (value, spaced, joined)
        assert "expected one argument" not in str(spaced) and "unrecognized arguments" not in str(spaced)


@pytest.mark.parametrize("argv,fragments", [
    (["--model", "exactboost", "--margin", "-inf"], ["--margin: expected a finite number >= 0, got -inf"]),
    (["--model", "exactboost", "--margin", "-1e-3"], ["--margin: expected a finite number >= 0, got -0.001"]),
    (["--model", "kernel", "--lam", "-1E3"], ["lam: expected a finite number > 0, got -1000.0"]),
])
def test_the_value_meets_the_options_own_validation(tmp_path, argv, fragments):
    data = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    data.write_text("a,b,label\n" + "".join(f"{a:.3f},{b:.3f},{i % 2}\n" for i, (a, b) in
                                           enumerate(rng.random((20, 2)))))
    status, _, err = run_main("fit", data, *argv, "--quiet", "-o", tmp_path / "m.json")
    one_line_error(status, err, *fragments)
    assert not (tmp_path / "m.json").exists()


def test_such_a_word_elsewhere_is_still_an_error(capsys):
    kind, message = _outcome(capsys, ["fit", "d.csv", "-inf"])
    assert kind == "error" and "unrecognized arguments: -inf" in message
    kind, message = _outcome(capsys, ["fit", "d.csv", "--force", "-1e3"])      # a flag takes no value
    assert kind == "error" and "--force" in message and "-1e3" in message


def test_the_rewrite_leaves_everything_else_as_it_is():
    words = ["fit", "d.csv", "--margin", "-1", "--lam", "-.5", "--label", "y", "--force", "x", "--k=-inf",
             "-o", "-1e3", "--", "--margin", "-inf"]
    assert join_negative_values(words) == words                        # argparse's own, short options, after --
    assert join_negative_values(["--margin", "-inf", "--lam", "-1E3"]) == ["--margin=-inf", "--lam=-1E3"]
    assert join_negative_values(["--margin"]) == ["--margin"]
    assert join_negative_values(["--margin", "-x1"]) == ["--margin", "-x1"]

"""The command line as scripts run it: the same -q on every command, progress fit for a log or a narrow or dumb
terminal, --help wrapped to 80 columns, and hints where a script's words were misread."""

import io

import pytest

from _cli_run import run_main, usage_error, write_data_and_model
from rankcore._progress import Task, choose_mode
from rankcore.cli import SUBCOMMANDS, build_parser


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return action.choices


@pytest.fixture
def files(tmp_path):
    return write_data_and_model(tmp_path)


def test_dumb_terminal_gets_plain_lines(monkeypatch):
    # TERM=dumb cannot go back over a line: a bar there printed every redraw with its escape codes
    monkeypatch.setenv("TERM", "dumb")
    assert choose_mode("auto", False, FakeTerminal()) == "lines"
    assert choose_mode("bar", False, FakeTerminal()) == "bar"          # asked for: given
    monkeypatch.setenv("TERM", "xterm-256color")
    assert choose_mode("auto", False, FakeTerminal()) == "bar"


def test_bar_redraws_stay_within_the_terminal(monkeypatch):
    # a redraw longer than the terminal wraps, and the next \r returns to its last piece only: a wall of lines
    monkeypatch.setenv("COLUMNS", "40")
    stream = FakeTerminal()
    task = Task("push trees:max_depth=3 pow:16", 200, "valid pauc:0.1", "bar", stream)
    for i in range(1, 200):
        task.update(i, objective=123.456789, score=0.0351)
    task.close("stopped: n_iter")
    redraws = stream.getvalue().split("\r")[1:-1]             # every draw but the last, which ends the line
    assert redraws
    assert all(len(r.replace("\x1b[K", "")) <= 39 for r in redraws), redraws


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_help_paragraphs_fit_80_columns(monkeypatch, name):
    monkeypatch.setenv("COLUMNS", "80")
    text = _subparsers()[name].format_help()
    # indented lines are examples and tables, kept whole to be copied; running text is wrapped
    long = [line for line in text.splitlines() if len(line) > 80 and not line[:1].isspace()]
    assert not long, long


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_command_takes_quiet(name):
    options = _subparsers()[name]._option_string_actions
    assert "--quiet" in options and "-q" in options, name


def test_evaluate_quiet_prints_the_table_alone(files):
    status, out, err = run_main("evaluate", files / "m.json", files / "d.csv", "--metrics", "ndcg@k:5", "-q",
                                "--table-format", "csv")
    assert status == 0 and err == "" and out.startswith("metric,value\nndcg@k:5,")
    status, _, err = run_main("evaluate", files / "m.json", files / "d.csv", "--metrics", "ndcg@k:5")
    assert status == 0 and "as one list" in err                  # said without -q


def test_plugins_new_quiet_prints_the_folder_alone(tmp_path):
    status, out, err = run_main("plugins", "new", "price", "hush", "--dir", tmp_path, "-q")
    assert status == 0 and err == "" and out.strip().endswith("rankcore-hush")
    status, out, err = run_main("plugins", "-q", "new", "price", "hush2", "--dir", tmp_path)
    assert status == 0 and err == ""


def test_info_quiet(files):
    status, out, err = run_main("info", files / "m.json", "-q", "--json")
    assert status == 0 and err == "" and '"estimator"' in out


def test_format_json_points_to_table_format(capsys, files):
    err = usage_error(capsys, "evaluate", files / "m.json", files / "d.csv", "--format", "json")
    assert "the output table's is --table-format json" in err
    err = usage_error(capsys, "score", files / "m.json", files / "d.csv", "--format", "json")
    assert "--table-format" not in err.splitlines()[-1]           # score has no table format to point to


def test_file_name_with_a_leading_dash_gets_a_hint(capsys, files, monkeypatch):
    monkeypatch.chdir(files)
    (files / "-day.csv").write_text((files / "d.csv").read_text())
    err = usage_error(capsys, "score", "m.json", "-day.csv")
    assert "'-day.csv' was read as an option" in err and "./-day.csv" in err
    err = usage_error(capsys, "score", "m.json", "d.csv", "--out", "-scores.csv")
    assert "./-scores.csv" in err
    status, out, _ = run_main("score", "m.json", "./-day.csv", "-q")
    assert status == 0 and out.startswith("score\n")


def test_help_command(capsys):
    # `rankcore help fit`, as git and pip read it, was "invalid choice: 'help'"
    from rankcore.cli import main

    with pytest.raises(SystemExit) as exit:
        main(["help", "fit"])
    assert exit.value.code == 0 and capsys.readouterr().out.startswith("usage: rankcore fit ")
    with pytest.raises(SystemExit) as exit:
        main(["help"])
    assert exit.value.code == 0 and "rankcore help COMMAND" in capsys.readouterr().out


@pytest.mark.skipif(__import__("sys").getfilesystemencoding().lower() not in ("utf-8", "utf8"),
                    reason="a file system encoding of UTF-8 reads the byte 0xe9 as a surrogate")
def test_a_name_that_is_not_utf8_is_said_by_its_bytes(files, monkeypatch):
    # Python reads the byte 0xe9 of a name as the surrogate U+DCE9: said as `\udce9`, or failing to print at all
    monkeypatch.chdir(files)
    data, out = "caf\udce9.csv", "o\udce9.csv"
    (files / data).write_text((files / "d.csv").read_text())
    status, _, err = run_main("score", "m.json", data, "-o", out)
    assert status == 0 and "o\\xe9.csv" in err and "\udce9" not in err and "udce9" not in err
    status, _, err = run_main("score", "m.json", "n\udce9.csv")
    assert status == 2 and "n\\xe9.csv" in err and "udce9" not in err


def test_help_after_a_global_option_and_help_help(capsys):
    # `rankcore --debug help fit` and `rankcore help help` were "invalid choice: 'help'"; `help fit extra` dropped
    # `extra` without a word
    from rankcore.cli import main

    with pytest.raises(SystemExit) as exit:
        main(["--debug", "help", "fit"])
    assert exit.value.code == 0 and capsys.readouterr().out.startswith("usage: rankcore fit ")
    with pytest.raises(SystemExit) as exit:
        main(["help", "help"])
    assert exit.value.code == 0 and "rankcore help COMMAND" in capsys.readouterr().out
    err = usage_error(capsys, "help", "fit", "extra")
    assert "help takes one command's name, got 'fit extra'" in err
    with pytest.raises(SystemExit) as exit:
        main(["help", "plugins", "new"])                      # a subcommand's subcommand: its own help
    assert exit.value.code == 0 and capsys.readouterr().out.startswith("usage: rankcore plugins new ")


def test_an_option_with_its_value_attached_is_said_as_read(capsys, files, monkeypatch):
    # `-oout.csv` is `-o out.csv`, no unknown option: the hint said it "was read as an option" it is not
    monkeypatch.chdir(files)
    err = usage_error(capsys, "score", "m.json", "-oout.csv")
    assert "required: DATA" in err and "was read as an option" not in err and "was read as -o out.csv" in err
    # the option's value missing, the next word another option's: no hint about a word it did not take
    err = usage_error(capsys, "score", "m.json", "d.csv", "--id", "-oout.csv")
    assert "expected one argument" in err and "was read as an option" not in err


def test_dash_name_hints_for_a_value_and_for_an_unrecognized_name(capsys, files, monkeypatch):
    monkeypatch.chdir(files)
    err = usage_error(capsys, "score", "m.json", "d.csv", "--id", "-day.csv")
    assert "'-day.csv' was read as an option: write --id=-day.csv" in err       # a value: the option's = form
    # evaluate's positionals are optional: the name is an unrecognized argument, with the hint too
    err = usage_error(capsys, "evaluate", "m.json", "-day.csv")
    assert "unrecognized arguments: -day.csv" in err and "./-day.csv" in err
    err = usage_error(capsys, "fit", "d.csv", "-lr=0.5")                      # an option's spelling, not a name
    assert "was read as an option" not in err


@pytest.mark.parametrize("argv", [("info", "M", "--format", "json"), ("plugins", "--format", "json"),
                                  ("info", "M", "--table-format=json")])
def test_format_json_points_to_json_where_json_is_a_switch(capsys, files, argv):
    # plugins said "argument new: invalid choice: 'json'", info "unrecognized arguments", neither naming --json
    err = usage_error(capsys, *[files / "m.json" if a == "M" else a for a in argv])
    assert "JSON output is --json here" in err.splitlines()[-1]


def test_a_repr_quoted_name_is_said_by_its_bytes():
    from rankcore.cli import undecoded_bytes

    name = "o\udce9.csv"
    assert undecoded_bytes(f"--out: {name!r} exists") == "--out: 'o\\xe9.csv' exists"
    assert undecoded_bytes(repr("a\\udce9")) == repr("a\\udce9")          # a backslash of the name, escaped
    assert undecoded_bytes(repr("a\\\udce9")) == "'a\\\\\\xe9'"


@pytest.mark.skipif(__import__("sys").getfilesystemencoding().lower() not in ("utf-8", "utf8"),
                    reason="a file system encoding of UTF-8 reads the byte 0xe9 as a surrogate")
def test_names_quoted_in_errors_and_plugins_new_are_said_by_their_bytes(files, monkeypatch):
    monkeypatch.chdir(files)
    (files / "o\udce9.csv").write_text("score\n")
    status, _, err = run_main("score", "m.json", "d.csv", "-o", "o\udce9.csv")
    assert status == 2 and "'o\\xe9.csv' already exists" in err and "udce9" not in err
    (files / "d\udce9").mkdir()
    status, out, err = run_main("plugins", "new", "price", "hush", "--dir", "d\udce9")
    assert status == 0 and "d\\xe9" in err and "udce9" not in err


@pytest.mark.parametrize("columns, name", [("10", "push trees"), ("40", "推し木 trees:max_depth=3 pow:16 more")])
def test_bar_redraws_fit_in_cells(monkeypatch, columns, name):
    # a 10-column terminal got 19-column lines (at least 20 were assumed), a wide character counted one cell
    import unicodedata

    def cells(text):
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    monkeypatch.setenv("COLUMNS", columns)
    stream = FakeTerminal()
    task = Task(name, 50, "valid pauc:0.1", "bar", stream)
    for i in range(1, 50):
        task.update(i, objective=123.456789, score=0.0351)
    task.close()
    redraws = [r.replace("\x1b[K", "") for r in stream.getvalue().split("\r")[1:-1]]
    assert redraws and all(cells(r) <= int(columns) - 1 for r in redraws), redraws


def test_help_keeps_list_items_and_headings_on_their_lines():
    import argparse

    from rankcore.cli import _Parser

    parser = _Parser(prog="x", formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="What it does, said at some length.\n- a first item\n* a second item\n"
                                 "--option words are running text\nexamples:\n  x --option\n")
    text = parser.format_help()
    assert "\n- a first item\n* a second item --option words are running text\nexamples:\n  x --option" in text


def test_a_short_option_before_the_command_is_said_to_go_after_it(capsys):
    # `rankcore -q plugins` said "unrecognized arguments: -q" alone, where `--quiet plugins` named the place
    err = usage_error(capsys, "-q", "plugins")
    assert "-q: an option of plugins, given after it" in err

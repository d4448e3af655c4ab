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

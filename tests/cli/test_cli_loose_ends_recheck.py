"""A re-check of the command line's loose ends: another library's option name that argparse would take as an
abbreviation of a rankcore option of another meaning, words after ``--``, cells the checking parser strips to a
number or a missing value, ``1_000`` in a LIBSVM file, and labels only Python's ``float()`` reads as numbers."""

import tracemalloc
from unittest import mock

import numpy as np
import pytest
from _cli_run import usage_error, write_binary_csv

import rankcore.cli.datasets._csv as csv_module
from rankcore.cli import main
from rankcore.cli.datasets import DataError, load_data, same_label
from rankcore.cli.datasets._csv_fast import plain_numbers


@pytest.fixture(scope="module")
def binary_csv(tmp_path_factory):
    return write_binary_csv(tmp_path_factory.mktemp("recheck") / "d.csv")


def _usage_error(capsys, *argv) -> str:
    """The last line of stderr of a command argparse refuses (exit status 2)."""
    return usage_error(capsys, *argv).strip().splitlines()[-1]


# other libraries' option names -----------------------------------------------------------------------------------

@pytest.mark.parametrize("words", [["--eta", "0.1"], ["--eta=0.1"]])
def test_xgboosts_eta_is_not_taken_for_eta0(binary_csv, tmp_path, capsys, words):
    # argparse read --eta as an abbreviation of --eta0 (sgd@k's first step size): a learning rate fitted as another
    # parameter without a word
    line = _usage_error(capsys, "fit", binary_csv, "--model", "sgd@k", *words, "-o", tmp_path / "m.json")
    assert line.startswith(f"rankcore: error: unrecognized arguments: {' '.join(words)}"), line
    assert "other libraries' --eta is here --learner trees:learning_rate=R" in line
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("words", [["--metric", "auc"], ["--metric=auc"]])
def test_a_plural_option_still_takes_its_singular(binary_csv, tmp_path, capsys, words):
    # options are not abbreviated, but a plural's singular names the same option
    model = tmp_path / "m.json"
    assert main(["fit", str(binary_csv), "--n-iter", "3", "-o", str(model)]) == 0
    assert main(["evaluate", str(model), str(binary_csv), *words]) == 0     # --metrics
    assert "auc" in capsys.readouterr().out


def test_no_hint_for_words_after_the_end_of_options(binary_csv, tmp_path, capsys):
    line = _usage_error(capsys, "fit", binary_csv, "-o", tmp_path / "m.json", "--", "--n-estimators")
    assert "other libraries'" not in line, line


# cells the checking parser strips ----------------------------------------------------------------------------------

def _outcome(path, **kwargs):
    try:
        data = load_data(str(path), **kwargs)
    except DataError as error:
        return type(error).__name__, str(error)
    return (np.where(np.isnan(data.X), -1.5, data.X).tolist(), {k: list(v) for k, v in data.categories.items()},
            data.y.tolist())


_CELLS = ["1", ".5", "+3", "-2", "1e5", "NaN", "inf", "1_000", "\u0663", "\u00e9", "abc", "", " 2 ", "0x10", "NA",
          "null", "\u00a01", "1\u00a0", "\u2007", " NA ", "\tnan", " none", "1.", "TRUE"]


@pytest.mark.parametrize("categorical", [None, "auto"])
def test_pandas_route_and_checking_parser_agree_on_every_cell(tmp_path, categorical):
    rng = np.random.default_rng(4)
    path = tmp_path / "c.csv"
    kwargs = {} if categorical is None else {"categorical": categorical}
    for _ in range(60):
        rows = [[str(v) for v in rng.integers(0, 9, size=3)] for _ in range(8)]
        for _ in range(2):
            rows[rng.integers(8)][rng.integers(3)] = _CELLS[rng.integers(len(_CELLS))]
        path.write_text("a,b,c,label\n" + "".join(",".join(r) + f",{i % 2}\n" for i, r in enumerate(rows)),
                        encoding="utf-8")
        fast = _outcome(path, **kwargs)
        with mock.patch.object(csv_module, "_csv_fast_path", lambda *args, **kw: None):
            checked = _outcome(path, **kwargs)
        assert fast == checked, path.read_text(encoding="utf-8")


def test_a_no_break_space_beside_a_number_is_read_as_the_checking_parser_reads_it(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("a,b,label\n" + "".join(f"{i % 7},{i},{i % 2}\n" for i in range(50)) + "\u00a03,\u2007,1\n",
                    encoding="utf-8")
    data = load_data(str(path), categorical="auto")
    assert data.categories == {} and data.X[-1, 0] == 3.0 and np.isnan(data.X[-1, 1])


def test_plain_numbers_reads_a_long_column_a_block_at_a_time():
    cells = np.full(2_000_000, "0.12345678901234567890", dtype=object)      # 44 MB of text joined at once
    tracemalloc.start()
    try:
        assert plain_numbers(cells)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000, peak
    cells[1_500_000] = "1_0"
    assert not plain_numbers(cells)


# LIBSVM ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, what", [
    ("1 1:1_000 2:0.5", "'1:1_000' holds an underscore or a character beyond ASCII"),
    ("1 1:\u0663", "'1:\u0663' holds an underscore"),
    ("1 1_0:3", "'1_0:3' holds an underscore"),
    ("1_0 1:3", "'1_0' holds an underscore"),
])
def test_a_libsvm_number_only_pythons_float_reads_is_refused(tmp_path, line, what):
    path = tmp_path / "d.svm"
    path.write_text(f"{line}\n0 1:2\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"line 1: {what}"):
        load_data(str(path))


def test_a_libsvm_file_of_plain_numbers_is_read(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text("1 1:1e5 2:.5 3:+3 4:-0.5\n0 1:2\n", encoding="utf-8")
    data = load_data(str(path))
    assert data.X.tolist() == [[1e5, 0.5, 3.0, -0.5], [2.0, 0.0, 0.0, 0.0]] and data.y.tolist() == [1.0, 0.0]


# labels ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, same", [
    ("1_0", 10, False), ("\u0661", 1, False), ("1_000", "1000", False),
    ("1.0", 1, True), ("01", 1, True), (" 1", 1, True), (True, 1, True), ("yes", "Yes", False), ("1", 1.0, True),
])
def test_same_label_reads_numbers_as_a_data_file_does(a, b, same):
    assert same_label(a, b) is same and same_label(b, a) is same


def _subcommands():
    import argparse

    from rankcore.cli import build_parser

    parser = build_parser()
    chosen = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(chosen.choices.items())


#: A peer's name argparse may still read as a longer option: the plural of the same word.
_SAME_WORD = {("--metric", "--metrics"), ("--feature-name", "--feature-names")}


def test_no_other_librarys_name_is_read_as_a_longer_option_of_another_meaning():
    # every subcommand's options against every name the hints know: no option is abbreviated (--eta is no --eta0,
    # --group no explain's --groups), and a name is read as another option only as the plural of the same word
    from rankcore._peer_names import PEER_FIT_NAMES, PEER_NAMES

    names = set(PEER_NAMES) | set(PEER_FIT_NAMES) | {"group"}
    checked, taken = 0, []
    for command, sub in _subcommands():
        assert sub.allow_abbrev is False, command
        options = {o for action in sub._actions for o in action.option_strings if o.startswith("--")}
        for name in sorted(names):
            flag = "--" + name.replace("_", "-")
            if flag in options or not any(o.startswith(flag) for o in options):
                continue
            checked += 1
            read = sub._plural_meant(flag)
            if read != flag and (flag, read) not in _SAME_WORD:
                taken.append((command, flag, read))
    assert checked >= 4 and taken == []


def test_a_plural_is_read_for_its_singular_only():
    # --metric is evaluate's --metrics; --metr, an abbreviation, stays unrecognized; --group is never --groups
    subs = dict(_subcommands())
    assert subs["evaluate"]._plural_meant("--metric=auc") == "--metrics=auc"
    assert subs["evaluate"]._plural_meant("--metr") == "--metr"
    assert subs["explain"]._plural_meant("--group") == "--group"


def test_lightgbms_group_is_not_taken_for_explains_groups(binary_csv, tmp_path, capsys):
    # `explain --group q` (LightGBM's query sizes) was read as --groups (columns played as one)
    model = tmp_path / "m.json"
    assert main(["fit", str(binary_csv), "--n-iter", "3", "-o", str(model), "-q"]) == 0
    line = _usage_error(capsys, "explain", model, binary_csv, "--group", "a")
    assert line.startswith("rankcore: error: unrecognized arguments: --group a"), line
    assert "other libraries' --group is here --qid COLUMN" in line

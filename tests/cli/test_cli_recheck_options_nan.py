"""A hostile re-check of whole option names, signed NaN and the report of ``rankcore auto``: the words after ``--``
are positional, a word ending in s is no singular, a peer's plural in the singular gets its hint, ``-nan`` is a
missing query id, and the report says the lines the terminal says about skipped candidates and stops."""

import html
import re

import pytest
from _cli_run import run_main, usage_error, write_binary_csv, write_data_and_model, write_kept_sparse_libsvm

import rankcore.cli.datasets._csv as csv_module
from rankcore.cli.datasets import DataError, load_data


@pytest.fixture(scope="module")
def binary_csv(tmp_path_factory):
    return write_binary_csv(tmp_path_factory.mktemp("recheck") / "d.csv")


# options ---------------------------------------------------------------------------------------------------------

def test_a_word_after_a_bare_double_dash_is_a_file_name_as_written(tmp_path, monkeypatch):
    # `--metric` after `--` was read as `--metrics`: the file `--metrics` was looked for
    write_data_and_model(tmp_path)
    model, data = tmp_path / "m.json", tmp_path / "d.csv"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--metric").write_bytes(data.read_bytes())
    status, printed, err = run_main("evaluate", model, "--format", "csv", "--", "--metric")
    assert status == 0, err
    assert "--metrics" not in err


@pytest.mark.parametrize("between", [["--metrics", "auc"], ["--table-format", "csv", "--metrics", "auc"]])
def test_evaluate_reads_data_given_after_options(tmp_path, between):
    # MODEL is optional (evaluate DATA --scores COLUMN): argparse filled both positionals at the first word, and
    # DATA after an option was an unrecognized argument
    write_data_and_model(tmp_path)
    model, data = tmp_path / "m.json", tmp_path / "d.csv"
    in_order = run_main("evaluate", model, data, *between)
    interleaved = run_main("evaluate", model, *between, data)
    assert interleaved[0] == 0, interleaved[2]
    assert interleaved[1] == in_order[1]


def test_a_nested_subcommand_gets_the_hint_of_its_own_options(tmp_path, capsys):
    # `plugins new`'s options were looked for among `plugins`' own: no hint
    line = usage_error(capsys, "plugins", "new", "metric", "recall@k", "--di", str(tmp_path)).strip().splitlines()[-1]
    assert line == f"rankcore: error: unrecognized arguments: --di {tmp_path} (did you mean --dir?)", line
    assert not any(tmp_path.iterdir())


def test_explain_group_names_its_groups_option_too(tmp_path, capsys):
    write_data_and_model(tmp_path)
    model, data = tmp_path / "m.json", tmp_path / "d.csv"
    line = usage_error(capsys, "explain", str(model), str(data), "--group", "x1+x2").strip().splitlines()[-1]
    assert line.startswith("rankcore: error: unrecognized arguments: --group x1+x2 (did you mean --groups? other "
                           "libraries' --group is here --qid COLUMN"), line


def test_a_singular_ending_in_y_is_its_plural_in_ies(tmp_path):
    write_data_and_model(tmp_path)
    model, data = tmp_path / "m.json", tmp_path / "d.csv"
    status, printed, err = run_main("explain", model, data, "--within-query")
    assert status == 2 and "--within-queries: only with --permutation" in err, err


# signed NaN in a query-id column -----------------------------------------------------------------------------------

@pytest.mark.parametrize("route", ["fast", "checking"])
@pytest.mark.parametrize("spelling", ["-nan", "+NaN", '"-NaN"'])
def test_a_signed_nan_query_id_is_missing_as_nan_is(tmp_path, monkeypatch, route, spelling):
    # "NaN" was refused as a missing query id, "-nan" read as a query of that name
    if route == "checking":
        monkeypatch.setattr(csv_module, "_csv_fast_path", lambda *args: None)
    path = tmp_path / "q.csv"
    path.write_text(f"label,a,q\n1,1.5,x\n0,2,{spelling}\n1,3,y\n")
    with pytest.raises(DataError, match=r"q\.csv, line 3: missing query id in column 'q' \(--qid\)"):
        load_data(path, qid="q")


# the report says what the terminal says ----------------------------------------------------------------------------

def _report_text(path) -> str:
    text = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text)))


def test_auto_report_says_the_skipped_candidates_and_the_stops(tmp_path, monkeypatch):
    import rankcore.cli.auto as auto_module

    train = write_kept_sparse_libsvm(tmp_path, monkeypatch)
    stop = "refit of linear: stopped: no_split after 3 iterations"
    monkeypatch.setattr(auto_module, "stop_lines", lambda estimator, last=None: [stop])
    status, printed, err = run_main("auto", train, "--candidates", "linear,exactboost", "--cv", "2", "--no-blend",
                                    "--out", tmp_path / "m.json", "--progress", "none",
                                    "--report", tmp_path / "r.html")
    assert status == 0, err
    assert stop in err
    text = _report_text(tmp_path / "r.html")
    assert "Skipped exactboost: it reads dense rows only, and " in text
    assert "(--candidates exactboost): the file is then read dense" in text
    assert "Refit of linear: stopped: no_split after 3 iterations." in text


# a missing-value word in many rows of numbers written with a comma --------------------------------------------------

@pytest.mark.parametrize("route", ["fast", "checking"])
def test_one_missing_value_word_in_many_rows_of_comma_numbers_is_refused(tmp_path, monkeypatch, route):
    # `k.A.` (German "no answer") in one row in ten of 150 distinct numbers written with a comma: refused before the
    # rule counted rows; then split by category without a word, each number a category of its own
    if route == "checking":
        monkeypatch.setattr(csv_module, "_csv_fast_path", lambda *args: None)
    lines = ["price;x;label"] + [f"{'k.A.' if i % 10 == 3 else f'{i % 150},{i % 7}5'};{i};{i % 2}" for i in range(300)]
    path = tmp_path / "p.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"p\.csv, line 2, column 'price': '0,05' is a number written with a comma.*"
                                        r"but 'k\.A\.' at lines 5, 15, 25 and 27 more \(a missing value or a typo\?\)"):
        load_data(path, categorical="auto")


def test_many_distinct_words_in_many_rows_stay_a_column_of_text(tmp_path):
    lines = ["price;x;label"] + [f"{f'w{i % 9}' if i % 10 == 3 else f'{i % 150},{i % 7}5'};{i};{i % 2}"
                                 for i in range(300)]
    path = tmp_path / "p.csv"
    path.write_text("\n".join(lines) + "\n")
    assert "w3" in set(load_data(path, categorical="auto").categories["price"])

"""``fit --validation`` of the training file (fitted as the Python API fits an eval_set of the training data), one
reading of the terminal's width, and ``info --json`` of a file name that is not UTF-8."""

import io
import json
import os

import numpy as np
import pytest

import rankcore
from rankcore.cli._terminal import DEFAULT_WIDTH, terminal_width
from _cli_run import run_main


@pytest.fixture()
def train(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    path = tmp_path / "train.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,label", comments="", fmt="%.6g")
    return path


def test_a_validation_file_that_is_the_training_file_fits_as_the_python_api(train, tmp_path):
    """Before: the fit watched the training rows as a hold-out (named validation_0), and the warning said its early
    stopping followed them."""
    out = tmp_path / "m.json"
    status, _, err = run_main("fit", train, "--label", "label", "--validation", train, "--param", "early_stopping=True",
                              "--n-iter", "8", "--out", out, "-q")
    assert status == 0, err
    assert "early stopping is off for this fit, as in LightGBM" in err
    assert "eval_set" not in err and err.count("warning:") == 1      # the command's words only, once
    model = rankcore.load_model(out)
    assert list(model.evals_result_) == ["training"] and model.n_iter_ == 8


@pytest.mark.parametrize("columns", [None, "", "abc", "-3", "0", "37", "250"])
def test_the_progress_bar_and_the_tables_read_one_width(monkeypatch, columns):
    """Before: rankcore._progress read COLUMNS on its own (no terminal_columns to share)."""
    from rankcore._progress import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    given = int(columns) if columns and columns.lstrip("-").isdigit() and int(columns) > 0 else None
    assert terminal_columns(io.StringIO(), 80) == (given or 80)
    if given is not None or not os.isatty(1):
        assert terminal_width() == max(20, given or DEFAULT_WIDTH)


def test_info_json_writes_a_name_that_is_not_utf8_as_its_bytes(tmp_path):
    """Before: "file" held the surrogate escape \\udcff, a lone surrogate that strict JSON parsers refuse."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    model = rankcore.PushBoost(n_iter=2).fit(X, (X[:, 0] > 0).astype(int))
    path = os.fsdecode(os.fsencode(str(tmp_path)) + b"/m\xff.json")
    rankcore.save_model(model, path)
    status, out, err = run_main("info", "--json", path)
    assert status == 0, err
    assert "\\udc" not in out
    out.encode("utf-8")                                  # no lone surrogate either
    assert json.loads(out)["file"].endswith("/m\\xff.json")


def test_json_output_keeps_a_name_whose_own_text_reads_like_an_escape(tmp_path):
    """Before: a non-ASCII name holding the text \\udc81 (a backslash and five letters: a Windows folder 'udc81')
    was rewritten to \\x81, as if it were a surrogate's escape in an error message."""
    from rankcore.cli._common import Table

    names = ["café", "C:\\udc81\\é.csv", "a\udcffb"]
    table = json.loads(Table(["name"], [[n] for n in names]).render("json"))
    assert [row["name"] for row in table] == ["café", "C:\\udc81\\é.csv", "a\\xffb"]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    folder = tmp_path / "é\\udc81"
    folder.mkdir()
    rankcore.save_model(rankcore.PushBoost(n_iter=2).fit(X, (X[:, 0] > 0).astype(int)), folder / "m.json")
    status, out, err = run_main("info", "--json", folder / "m.json")
    assert status == 0, err
    assert json.loads(out)["file"] == str(folder / "m.json")


@pytest.mark.parametrize("other, held", [(lambda q: q + 1000, True), (lambda q: q // 3, False)])
def test_a_validation_file_of_the_training_rows_in_queries_fits_as_its_warning_says(tmp_path, other, held):
    """Before: ids relabelled (the same queries) were a validation set that stopped the fit early, and the training
    rows in other queries were one too while the warning said early stopping was off."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=300)), 0, 2)
    q = np.repeat(np.arange(30), 10)
    for name, ids in (("t.csv", q), ("v.csv", other(q))):
        np.savetxt(tmp_path / name, np.column_stack([X, y, ids]), delimiter=",", header="a,b,c,label,q",
                   comments="", fmt="%.6g")
    out = tmp_path / "m.json"
    status, _, err = run_main("fit", tmp_path / "t.csv", "--label", "label", "--qid", "q", "--validation",
                              tmp_path / "v.csv", "--param", "early_stopping=True", "--n-iter", "30", "--out", out,
                              "-q")
    assert status == 0, err
    assert err.count("warning:") == 1 and ("early stopping is off" in err) == held
    model = rankcore.load_model(out)
    assert list(model.evals_result_) == (["training"] if held else ["validation_0"])
    assert (model.n_iter_ == 30) if held else "in other queries" in err

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

"""``rankcore fit --metric SPEC`` (exactboost, kernel) without ``--monitor`` watches that metric, not AUC."""

import re

import numpy as np
import pandas as pd
import pytest

import rankcore
from _cli_run import run_main


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit_metric_monitor")
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(90, 3)), 3)
    y = (X[:, 0] + rng.normal(size=90) > 0.5).astype(int)
    with open(d / "train.csv", "w") as fh:
        fh.write("a,b,c,label\n")
        for row, label in zip(X, y):
            fh.write(",".join(map(repr, row.tolist())) + f",{label}\n")
    return d, X, y


def _saved(err):
    return next(line for line in err.splitlines() if line.startswith("saved "))


@pytest.mark.parametrize("model", [["--model", "exactboost", "--metric", "ks"], ["--model", "exactboost:metric=ks"],
                                   ["--model", "exactboost", "--param", "metric=ks"]])
def test_exactboost_fit_shows_the_metric_it_boosts(data, tmp_path, model):
    d, X, y = data
    status, _, err = run_main("fit", d / "train.csv", *model, "--n-runs", "2", "--progress", "lines",
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    fitted = rankcore.load_model(tmp_path / "m.json")
    value = float(re.search(r"train ks ([0-9.]+)\]", _saved(err)).group(1))
    scores = fitted.decision_function(pd.DataFrame(X, columns=["a", "b", "c"]))
    assert value == pytest.approx(rankcore.resolve("metric", "ks")(y, scores), abs=1e-4)
    assert "monitoring train ks" in err and "auc" not in err


def test_kernel_fit_shows_the_metric_choosing_lambda(data, tmp_path):
    d, _, _ = data
    status, _, err = run_main("fit", d / "train.csv", "--model", "kernel", "--metric", "ks", "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "train ks " in _saved(err)


def test_monitor_given_still_wins(data, tmp_path):
    d, _, _ = data
    status, _, err = run_main("fit", d / "train.csv", "--model", "exactboost", "--metric", "ks", "--n-runs", "2",
                              "--monitor", "auc", "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "train auc " in _saved(err)


def test_without_metric_the_monitor_is_auc(data, tmp_path):
    d, _, _ = data
    status, _, err = run_main("fit", d / "train.csv", "--model", "exactboost", "--n-runs", "2",
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "train auc " in _saved(err)


def test_compare_watches_the_metric_fit_watches(data, tmp_path):
    d, _, _ = data
    status, _, err = run_main("compare", d / "train.csv", "--model", "exactboost", "--metric", "ks", "--n-runs", "2",
                              "--progress", "lines", "--out-dir", tmp_path)
    assert status == 0, err
    assert "monitoring test ks" in err and "monitoring test auc" not in err


def test_compare_of_models_that_boost_different_metrics_watches_auc(data, tmp_path):
    d, _, _ = data
    status, _, err = run_main("compare", d / "train.csv", "--model", "exactboost:metric=ks,n_runs=2",
                              "--model", "exactboost:metric=auc,n_runs=2", "--progress", "lines", "--out-dir", tmp_path)
    assert status == 0, err
    assert "monitoring test auc" in err and "monitoring test ks" not in err


def test_compare_watches_auc_when_the_metric_cannot_be_computed_on_the_test_rows(data, tmp_path):
    # prec@k:40 counts 40 of the ~67 training rows; the ~23 test rows have no 40th place: watched there, the
    # comparison failed once the model was fitted
    d, _, _ = data
    status, _, err = run_main("compare", d / "train.csv", "--model", "exactboost", "--metric", "prec@k:40",
                              "--n-runs", "2", "--progress", "lines", "--out-dir", tmp_path)
    assert status == 0, err
    assert "monitoring test auc: --metric prec@k:40" in err


def test_fit_watches_auc_when_the_metric_cannot_be_computed_on_the_validation_rows(data, tmp_path):
    d, _, _ = data
    with open(d / "train.csv") as fh:
        lines = fh.readlines()
    (tmp_path / "val.csv").write_text("".join(lines[:21]))
    status, _, err = run_main("fit", d / "train.csv", "--validation", tmp_path / "val.csv", "--model", "exactboost",
                              "--metric", "prec@k:40", "--n-runs", "2", "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "validation auc " in _saved(err)


def test_fit_watches_the_metric_on_validation_rows_that_can_compute_it(data, tmp_path):
    d, _, _ = data
    with open(d / "train.csv") as fh:
        lines = fh.readlines()
    (tmp_path / "val.csv").write_text("".join(lines[:41]))
    status, _, err = run_main("fit", d / "train.csv", "--validation", tmp_path / "val.csv", "--model", "exactboost",
                              "--metric", "prec@k:10", "--n-runs", "2", "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "validation prec@k:10 " in _saved(err) and "cannot be computed" not in err

"""``rankcore compare`` with models asked for a metric (``--metric ks``, ``exactboost:metric=ks``) watches it, as
``rankcore fit`` does, not AUC; models asked for different metrics leave the default."""

import re

import numpy as np
import pytest

from _cli_run import run_main


@pytest.fixture(scope="module")
def train(tmp_path_factory):
    path = tmp_path_factory.mktemp("compare_metric_monitor") / "train.csv"
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(90, 3)), 3)
    y = (X[:, 0] + rng.normal(size=90) > 0.5).astype(int)
    with open(path, "w") as fh:
        fh.write("a,b,c,label\n")
        for row, label in zip(X, y):
            fh.write(",".join(map(repr, row.tolist())) + f",{label}\n")
    return path


def _watched(err):
    return set(re.findall(r"monitoring test (\S+)", err))


@pytest.mark.parametrize("model", [["--model", "exactboost", "--metric", "ks"], ["--model", "exactboost:metric=ks"],
                                   ["--model", "exactboost", "--param", "metric=ks"],
                                   ["--model", "exactboost:metric=ks", "--model", "kernel:metric=ks"]])
def test_compare_watches_the_metric_the_models_are_asked_for(train, model):
    status, _, err = run_main("compare", train, *model, "--n-runs", "2", "--progress", "lines", "--no-plots")
    assert status == 0, err
    assert _watched(err) == {"ks"}                  # "monitoring test auc" before


def test_models_asked_for_different_metrics_keep_the_default(train):
    status, _, err = run_main("compare", train, "--model", "exactboost", "--metric", "ks,auc", "--n-runs", "2",
                              "--progress", "lines", "--no-plots")
    assert status == 0, err
    assert _watched(err) == {"auc"}


def test_monitor_given_still_wins(train):
    status, _, err = run_main("compare", train, "--model", "exactboost:metric=ks", "--monitor", "prec@k:10",
                              "--n-runs", "2", "--progress", "lines", "--no-plots")
    assert status == 0, err
    assert _watched(err) == {"prec@k:10"}

"""``rankcore fit`` monitoring its own training rows: scored after every iteration only when a value is shown.

Without ``--validation`` the monitor is the training data.  With nothing shown per iteration (``--quiet``,
``--progress none``) the fit runs without an ``eval_set`` and the metric is computed once, after it: the same
model, the same parameters, the same reported value, only no per-iteration curve of the training rows in the
model.  With ``--validation`` the curve is the user's and is kept whatever is shown.
"""

import io
import re

import numpy as np
import pandas as pd
import pytest

import rankcore
from _cli_run import run_main
from rankcore._progress import Task

N_ITER = "6"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit_monitor")
    rng = np.random.default_rng(0)
    sizes = rng.integers(3, 12, size=30)
    sizes[0] = sizes[-1] = 11                 # ndcg@k:10 reads both files' longest queries
    qid = np.repeat(np.arange(sizes.size), sizes)
    X = np.round(rng.normal(size=(qid.size, 3)), 2)
    grade = np.clip(np.round(X[:, 0] + rng.normal(scale=0.7, size=qid.size) + 1), 0, 3)
    for name, rows in (("train.svm", slice(0, 200)), ("valid.svm", slice(200, None))):
        with open(d / name, "w") as fh:
            for q, row, g in zip(qid[rows], X[rows], grade[rows]):
                fh.write(f"{g:g} qid:{q} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row.tolist())) + "\n")
    with open(d / "binary.csv", "w") as fh:
        fh.write("a,b,c,label\n")
        for row, g in zip(X, grade):
            fh.write(",".join(map(repr, row.tolist())) + f",{int(g >= 2)}\n")
    return d, X[:200]


def _saved_line(err):
    line = next(line for line in err.splitlines() if line.startswith("saved "))
    return re.sub(r" to \S+ \[[0-9.]+s; ", " [", line)       # the file and the seconds differ from run to run


@pytest.mark.parametrize("data", ["train.svm", "binary.csv"])
def test_unshown_training_monitor_is_computed_after_the_fit(files, tmp_path, data):
    d, X = files
    argv = ["fit", d / data, "--n-iter", N_ITER, "--force"] + (["--label", "label"] if data.endswith(".csv") else [])
    status, _, shown = run_main(*argv, "--progress", "lines", "-o", tmp_path / "shown.json")
    assert status == 0, shown
    status, _, unshown = run_main(*argv, "--progress", "none", "-o", tmp_path / "unshown.json")
    assert status == 0, unshown
    assert run_main(*argv, "--quiet", "-o", tmp_path / "quiet.json") == (0, "", "")
    assert _saved_line(unshown) == _saved_line(shown)       # the same final training metric, reported
    watched = rankcore.load_model(tmp_path / "shown.json")
    X = pd.DataFrame(X, columns=watched.feature_names_in_)    # the columns it was fitted on, by name
    assert list(watched.evals_result_) == ["training"]      # the progress showed it after every iteration
    for name in ("unshown", "quiet"):
        model = rankcore.load_model(tmp_path / f"{name}.json")
        assert model.get_params() == watched.get_params()
        np.testing.assert_array_equal(model.decision_function(X), watched.decision_function(X))
        np.testing.assert_array_equal(model.training_curve_.objective, watched.training_curve_.objective)
        assert not hasattr(model, "evals_result_") and not hasattr(model, "validation_scores_")


def test_a_validation_files_curve_is_kept_when_quiet(files, tmp_path):
    d, _ = files
    status, _, err = run_main("fit", d / "train.svm", "--validation", d / "valid.svm", "--n-iter", N_ITER, "-q",
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    assert model.validation_scores_.shape == (int(N_ITER),)
    assert model.evals_result_["validation_0"]["ndcg@k:10"].shape == (int(N_ITER),)


@pytest.mark.parametrize("mode", ["none", "lines"])
def test_fit_one_watches_the_monitor_only_when_shown_or_kept(mode):
    from rankcore.cli._models import ModelConfig, fit_one, kind_named

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    seen = []

    class RecordingProgress:
        def task(self, name, total, metric):
            task = Task(name, total, metric, mode, io.StringIO())
            task.update = lambda iteration, objective=None, score=None: seen.append(score)
            return task

    config = ModelConfig(label="push", kind=kind_named("push"), params={"n_iter": 4})
    for keep in (False, True):
        seen.clear()
        outcome = fit_one(config, X, y, progress=RecordingProgress(), monitor=("auc", X, y), keep_monitor_curve=keep)
        watched = keep or mode != "none"
        assert hasattr(outcome.estimator, "validation_scores_") == watched
        assert (None not in seen) == watched and len(seen) == 4
        assert outcome.monitor_score == rankcore.evaluate(y, outcome.estimator.decision_function(X), "auc")["auc"]


@pytest.mark.parametrize("given", [("--param", "scoring=pauc:0.1"), ("--model", "push:scoring=pauc:0.1")])
def test_a_scoring_set_by_param_is_the_metric_watched_not_replaced(files, tmp_path, given):
    d = files[0]
    out = tmp_path / "m.json"
    status, _, err = run_main("fit", d / "binary.csv", *given, "--n-iter", N_ITER, "--out", out, "-q", "-f")
    assert status == 0, err
    assert rankcore.load_model(out).get_params()["scoring"] == "pauc:0.1"
    status, _, err = run_main("fit", d / "binary.csv", *given, "--monitor", "pauc:0.1", "--validation",
                              d / "binary.csv", "--n-iter", N_ITER, "--out", out, "-q", "-f")
    assert status == 0, err
    assert rankcore.load_model(out).get_params()["scoring"] == "pauc:0.1"
    status, _, err = run_main("fit", d / "binary.csv", *given, "--monitor", "auc", "--n-iter", N_ITER,
                              "--out", out, "-q", "-f")
    assert status == 2 and "--param scoring=pauc:0.1: also set by --monitor auc" in err and "set it once" in err
    status, _, err = run_main("compare", d / "binary.csv", *given, "--monitor", "auc", "--no-plots", "-q",
                              "--out-dir", tmp_path / "cmp")
    assert status == 2 and "also set by --monitor auc" in err


def test_a_monitor_of_the_training_rows_is_named_so_in_the_model_and_by_info(files, tmp_path):
    # without --validation the monitored rows are the training rows: not "validation_0" (LightGBM's "training")
    d, _ = files
    out = tmp_path / "m.json"
    status, _, err = run_main("fit", d / "binary.csv", "--label", "label", "--n-iter", N_ITER, "--progress", "lines",
                              "-o", out)
    assert status == 0, err
    model = rankcore.load_model(out)
    assert list(model.evals_result_) == list(model.best_score_) == ["training"]
    status, said, err = run_main("info", out)
    assert status == 0, err
    assert f"best score training rows auc {model.best_score_['training']['auc']:.6g}; " in said, said
    assert "validation" not in said


def test_the_python_api_names_a_set_that_is_the_training_data_training():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0.5).astype(int)
    model = rankcore.boost(n_iter=3).fit(X, y, eval_set=[(X[:60], y[:60]), (X, y), (X[60:], y[60:])])
    assert list(model.evals_result_) == ["validation_0", "training", "validation_2"]
    named = rankcore.boost(n_iter=3).fit(X, y, eval_set=[(X, y)], eval_names=["mine"])
    assert list(named.evals_result_) == ["mine"]                # the names given are kept

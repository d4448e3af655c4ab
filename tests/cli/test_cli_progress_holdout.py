"""Honest progress: the early-stopping hold-out's score is labelled as such, and auto says what it scored."""

import contextlib
import io
import math
import types

import numpy as np
import pytest

from rankcore.auto import Leaderboard, LeaderboardRow
from rankcore.base import TrainingCurve
from rankcore.cli import main
from rankcore.cli._advice import iterations_advice
from rankcore.cli.auto import build_report, imputation_note, scored_parts
from rankcore.cli.datasets import load_data
from rankcore.push import AUTO_MIN_ROWS


def run_main(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def large_csv(tmp_path_factory):
    """Just over AUTO_MIN_ROWS rows, so that early_stopping='auto' holds out a validation split."""
    rng = np.random.default_rng(0)
    n = AUTO_MIN_ROWS + 500
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 1.0).astype(int)
    path = tmp_path_factory.mktemp("large") / "large.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,label", comments="", fmt="%.5f")
    return path


def test_fit_labels_the_holdout_score_and_prints_one_line_in_ten(large_csv, tmp_path):
    status, _, err = run_main("fit", large_csv, "--learner", "stumps", "--progress", "lines",
                              "--out", tmp_path / "m.json")
    assert status == 0, err
    lines = [line for line in err.splitlines() if line.startswith("[push]")]
    iterations = [line for line in lines if " iter " in line and "done in" not in line]
    assert iterations and all("valid pauc:0.1" in line and "train" not in line for line in iterations)
    planned = int(iterations[0].split("iter ")[1].split()[0].split("/")[1])
    assert len(iterations) <= planned // (planned // 10) + 1          # about one line in ten of the planned
    done = lines[-1]
    assert "valid pauc:0.1" in done and "train auc" in done           # the monitored metric, computed on train


def test_advice_names_each_models_held_out_record():
    rising = np.linspace(0.5, 0.9, 20)
    curves = [("a", TrainingCurve(np.arange(20), np.zeros(20), rising, validation_name="auc"), "test auc"),
              ("b", TrainingCurve(np.arange(20), np.zeros(20), rising / 10, validation_name="pauc:0.1"),
               "valid pauc:0.1")]
    text = iterations_advice(curves)
    assert "its held-out metric (right)" in text
    assert "a: test auc still improved" in text and "b: valid pauc:0.1 still improved" in text
    assert "its test auc (right)" in iterations_advice(curves[:1])


def leaderboard(*rows):
    return Leaderboard([LeaderboardRow(name, status, 0.5, 0.1, scores) for name, status, scores in rows], "auc",
                       "5-fold stratified cross-validation")


def test_scored_parts_counts_the_folds_the_choice_was_scored_on():
    nan = math.nan
    partial = types.SimpleNamespace(cv_description_="5-fold stratified cross-validation", leaderboard_=leaderboard(
        ("trees", "chosen", [0.5, nan, nan, nan, nan]), ("linear", "halved", [0.4, 0.5, nan, nan, nan])))
    assert scored_parts(partial) == "1 fold of 5-fold stratified cross-validation"
    whole = types.SimpleNamespace(cv_description_="5-fold stratified cross-validation",
                                  leaderboard_=leaderboard(("trees", "chosen", [0.5] * 5 + [nan] * 10)))
    assert scored_parts(whole) == "5 folds of 5-fold stratified cross-validation"


def test_imputation_note_names_the_candidates_that_saw_filled_values(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("a,b,label\n1,,0\n2,3,1\nNA,4,0\n")
    missing = load_data(path).missing()
    estimator = types.SimpleNamespace(leaderboard_=leaderboard(
        ("trees", "chosen", [0.5]), ("linear", "evaluated", [0.4]), ("kernel", "skipped", [])))
    note = imputation_note(estimator, missing)
    assert note.startswith("missing values: 2 in 2 rows and 2 columns")
    assert "indicator per column for linear" in note and "used as they are by trees" in note
    assert "kernel" not in note
    assert imputation_note(estimator, None) == ""


def test_a_report_without_figure_says_why(tmp_path):
    import rankcore

    path = tmp_path / "d.csv"
    path.write_text("a,label\n" + "".join(f"{i},{i % 2}\n" for i in range(20)))
    data = load_data(path)
    model = rankcore.boost(n_iter=2, random_state=0).fit(data.X, data.binary_target())
    estimator = types.SimpleNamespace(
        leaderboard_=leaderboard(("linear", "chosen", [0.5, math.nan])), cv_predictions_={},
        best_candidate_="linear", best_estimator_=model, selection_reason_="the default", metric="auc", metric_="auc",
        cv_description_="2-fold stratified cross-validation", time_budget=1.0, candidates="auto", blend=True,
        bag_folds=True, random_state=0)
    args = types.SimpleNamespace(positive=None, _argv=["auto", str(path)])
    report = build_report(args, estimator, data, data.binary_target())
    assert report.figures == []
    assert any(note.startswith("No ROC figure: no candidate was scored on the whole first pass of folds")
               for note in report.notes)

"""``rankcore auto DATA --validation V --eval-metric SPECS``: each candidate's value of more metrics on the whole
validation file, AutoRanker's ``eval_metric``: in the model file, the leaderboard, the report and the summary."""

import contextlib
import io
import json

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from _init_score_data import ranked, read, write
from rankcore.auto import AutoRanker
from rankcore.cli import build_parser

WITHIN = "trees:n_iter=8,stumps:n_iter=8"
BASE = ("--qid", "query", "--label", "grade", "--drop", "prior", "--candidates", WITHIN, "--progress", "none")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("auto_eval_metric")
    write(d / "train.csv", *ranked(0))
    write(d / "valid.csv", *ranked(1, n_queries=8))
    return d


def _expected(files, eval_metric, **fit):
    X, y, qid, _ = read(files / "train.csv")
    X_val, y_val, qid_val, _ = read(files / "valid.csv")
    return AutoRanker(candidates=WITHIN.split(","), random_state=0).fit(
        X, y, qid=qid, eval_set=(X_val, y_val, qid_val), eval_names=["validation"], eval_metric=eval_metric, **fit)


def test_the_values_reach_the_model_file_the_leaderboard_the_report_and_the_summary(files, tmp_path):
    report = tmp_path / "auto.html"
    status, out, err = run_main("auto", files / "train.csv", *BASE, "--validation", files / "valid.csv",
                                "--eval-metric", "ndcg@k:1,map", "--eval-metric", "mrr", "--table-format", "json",
                                "--report", report, "-o", tmp_path / "m.json")
    assert status == 0, err
    expected = _expected(files, ["ndcg@k:1", "map", "mrr"])
    model = rankcore.load_model(tmp_path / "m.json")
    assert model.evals_result_ == expected.evals_result_
    assert sorted(model.evals_result_["validation"]) == ["map", "mrr", "ndcg@k:1", "ndcg@k:10"]
    table = json.loads(out)
    assert [c for c in table[0] if c.startswith("whole_file")] == ["whole_file", *(f"whole_file:{spec}" for spec in
                                                                                 ("ndcg@k:1", "map", "mrr"))]
    rows = {row["candidate"]: row for row in table}
    for spec in ("ndcg@k:1", "map", "mrr"):
        values = expected.evals_result_["validation"][spec]
        assert set(values) <= set(rows)
        for name, row in rows.items():
            assert row[f"whole_file:{spec}"] == values.get(name)
        best = expected.best_candidate_
        line = f"valid.csv (61 rows): {spec} {values[best]:.4f} of {best} on the whole file"
        assert any(shown.endswith(line) for shown in err.splitlines()), (line, err)
    assert "map (whole file)" in report.read_text()
    assert ("the columns ndcg@k:1 (whole file), map (whole file), mrr (whole file) its values of the --eval-metric "
            "metrics there, which do not change the choice.") in " ".join(report.read_text().split())
    # the choice is the same as without the extra metrics
    plain = _expected(files, None)
    X_val = read(files / "valid.csv")[0]
    assert model.best_candidate_ == plain.best_candidate_
    np.testing.assert_array_equal(model.decision_function(X_val), plain.decision_function(X_val))


def test_a_repeat_or_the_chosen_metric_is_kept_once(files, tmp_path):
    status, out, err = run_main("auto", files / "train.csv", *BASE, "--validation", files / "valid.csv",
                                "--metric", "map", "--eval-metric", "map,ndcg@k:3", "--eval-metric", "ndcg@k:k=3",
                                "-o", tmp_path / "m.json")
    assert status == 0, err
    assert sorted(rankcore.load_model(tmp_path / "m.json").evals_result_["validation"]) == ["map", "ndcg@k:3"]
    header = out.splitlines()[0]
    assert header.count("(whole file)") == 2 and "ndcg@k:3 (whole file)" in header
    assert sum(": ndcg@k:3 " in line for line in err.splitlines()) == 1


@pytest.mark.parametrize("options, message", [
    (("--eval-metric", "map"), "--eval-metric: needs --validation DATA, the file each candidate is scored on"),
    (("--eval-metric", "bogus", "--validation", "V"), "--eval-metric 'bogus': unknown metric 'bogus'"),
    (("--eval-metric", "ndcg@k:x", "--validation", "V"), "--eval-metric 'ndcg@k:x': metric 'ndcg@k': k must be"),
    (("--eval-metric", "roc", "--validation", "V"), "--eval-metric 'roc': the metric is not a scalar score"),
])
def test_bad_uses_are_fits_errors_before_the_data_are_read(tmp_path, options, message):
    status, _, err = run_main("auto", tmp_path / "absent.csv", *options, "-o", tmp_path / "m.json")
    one_line_error(status, err, message)
    status, _, fit_err = run_main("fit", tmp_path / "absent.csv", *options, "-o", tmp_path / "m.json")
    if "needs --validation" not in message:          # the same spelling and the same checks as fit's
        assert fit_err == err


def test_a_metric_of_two_labels_on_grades_is_the_metrics_error(files, tmp_path):
    status, _, err = run_main("auto", files / "train.csv", *BASE, "--validation", files / "valid.csv",
                              "--eval-metric", "auc", "-o", tmp_path / "m.json")
    one_line_error(status, err, "--eval-metric: auc judges 0/1 labels, but the rows in queries (--qid query) have "
                                "the grades 0, 1, 2, 3")



@pytest.mark.parametrize("spec", ["ndcg@k:11", "ndcg@k:1,ndcg@k:2,ndcg@k:100000"])
def test_a_metric_the_file_cannot_score_is_said_as_the_options_given(files, tmp_path, spec):
    """The library's refusal (``eval_metric: ... cannot score eval_set``) is said as ``--eval-metric`` and
    ``--validation``, the names the command line gave, before any candidate is fitted."""
    status, _, err = run_main("auto", files / "train.csv", *BASE, "--validation", files / "valid.csv",
                              "--eval-metric", spec, "--quiet", "-o", tmp_path / "m.json")
    bad = spec.rpartition(",")[2]
    one_line_error(status, err, f"--eval-metric {bad}: cannot score --validation {files / 'valid.csv'}: k = "
                                f"{bad.rpartition(':')[2]} is larger than every query", "choose k <=")
    assert "eval_metric:" not in err and "score eval_set" not in err
    assert not (tmp_path / "m.json").exists()

def test_one_list(files, tmp_path):
    status, _, err = run_main("auto", files / "train.csv", "--drop", "query,prior", "--label", "grade", "--positive",
                              "3", "--candidates", "trees:n_iter=8,linear", "--validation", files / "valid.csv",
                              "--eval-metric", "prec@k:5", "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    X, y, _, _ = read(files / "train.csv")
    X_val, y_val, _, _ = read(files / "valid.csv")
    expected = AutoRanker(candidates=["trees:n_iter=8", "linear"], random_state=0).fit(
        X, (y == 3).astype(int), eval_set=(X_val, (y_val == 3).astype(int)), eval_names=["validation"],
        eval_metric=["prec@k:5"])
    model = rankcore.load_model(tmp_path / "m.json")
    assert model.evals_result_ == expected.evals_result_
    assert sorted(model.evals_result_["validation"]) == ["pauc:0.1", "prec@k:5"]


def test_help_lists_the_option():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args(["auto", "--help"])
    text = " ".join(out.getvalue().split())
    assert "--eval-metric SPECS" in text and "specs like --metrics (ndcg@k:1,map)" in text
    assert "--eval-metric ndcg@k:1,map" in text

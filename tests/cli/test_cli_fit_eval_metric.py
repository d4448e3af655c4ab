"""``rankcore fit DATA --validation V --eval-metric SPECS``: more curves on the validation rows, in the model file."""

import contextlib
import io

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from rankcore.cli import build_parser
from _init_score_data import N_ITER, ranked, read, write

BASE = ("--qid", "query", "--label", "grade", "--n-iter", N_ITER)
FIT = (*BASE, "--drop", "prior")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit_eval_metric")
    write(d / "train.csv", *ranked(0))
    write(d / "valid.csv", *ranked(1, n_queries=8))
    return d


def _expected(files, eval_metric, **fit):
    X, y, qid, prior = read(files / "train.csv")
    X_val, y_val, qid_val, prior_val = read(files / "valid.csv")
    if fit.pop("from_init", False):
        fit.update(init_score=prior, eval_init_score=prior_val)
    return rankcore.boost(learner="trees", n_iter=int(N_ITER), random_state=0, scoring="ndcg@k:10").fit(
        X, y, qid=qid, eval_set=(X_val, y_val, qid_val), eval_metric=eval_metric, **fit)


@pytest.mark.parametrize("from_init", [False, True])
def test_the_curves_in_the_model_file_are_the_estimators_evals_result(files, tmp_path, from_init):
    options = (*BASE, "--init-score", "prior") if from_init else FIT
    status, _, err = run_main("fit", files / "train.csv", *options, "--validation", files / "valid.csv",
                              "--eval-metric", "ndcg@k:1,map", "--eval-metric", "mrr", "--progress", "none",
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    expected = _expected(files, ["ndcg@k:1", "map", "mrr"], from_init=from_init)
    (name,) = expected.evals_result_
    assert list(model.evals_result_) == [name]
    assert list(model.evals_result_[name]) == ["ndcg@k:10", "ndcg@k:1", "map", "mrr"]
    for spec, curve in expected.evals_result_[name].items():
        assert len(curve) == int(N_ITER)
        np.testing.assert_allclose(model.evals_result_[name][spec], curve, rtol=0, atol=1e-12)
    # the summary: one line per extra metric, its value after the last iteration
    lines = err.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("saved push"))
    assert lines[start + 1:start + 4] == [f"validation {spec} {expected.evals_result_[name][spec][-1]:.4f}"
                                          for spec in ("ndcg@k:1", "map", "mrr")]
    # the model is the same as without the extra curves
    plain = _expected(files, None, from_init=from_init)
    X = read(files / "train.csv")[0]
    np.testing.assert_array_equal(model.decision_function(X), plain.decision_function(X))


def test_a_repeat_or_the_monitored_metric_is_recorded_once(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", *FIT, "--validation", files / "valid.csv",
                              "--monitor", "map", "--eval-metric", "map,ndcg@k:3", "--eval-metric", "ndcg@k:k=3",
                              "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    (curves,) = rankcore.load_model(tmp_path / "m.json").evals_result_.values()
    assert list(curves) == ["map", "ndcg@k:3"]
    assert [line.split()[1] for line in err.splitlines() if line.startswith("validation ")] == ["map", "ndcg@k:3"]


def test_quiet_prints_nothing_and_keeps_the_curves(files, tmp_path):
    status, out, err = run_main("fit", files / "train.csv", *FIT, "--validation", files / "valid.csv",
                                "--eval-metric", "err@k:5", "--quiet", "-o", tmp_path / "m.json")
    assert (status, out, err) == (0, "", "")
    (curves,) = rankcore.load_model(tmp_path / "m.json").evals_result_.values()
    assert list(curves) == ["ndcg@k:10", "err@k:5"]


@pytest.mark.parametrize("options, message", [
    (("--eval-metric", "map"), "--eval-metric: needs --validation DATA"),
    (("--eval-metric", "bogus", "--validation", "V"), "--eval-metric 'bogus': unknown metric 'bogus'"),
    (("--eval-metric", "ndcg@k:x", "--validation", "V"), "--eval-metric 'ndcg@k:x': metric 'ndcg@k': k must be"),
    (("--eval-metric", "roc", "--validation", "V"), "--eval-metric 'roc': the metric is not a scalar score"),
    (("--eval-metric", "map", "--validation", "V", "--model", "exactboost"),
     "--eval-metric: exactboost (ExactBoost) records no metric per iteration (its fit takes no eval_metric); use "
     "--model push or rankboost"),
])
def test_bad_uses_are_refused_before_the_data_areread(tmp_path, options, message):
    status, _, err = run_main("fit", tmp_path / "absent.csv", *options, "-o", tmp_path / "m.json")
    one_line_error(status, err, message)


def test_a_metric_of_two_labels_on_grades_is_the_monitors_error(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", *FIT, "--validation", files / "valid.csv",
                              "--eval-metric", "auc", "-o", tmp_path / "m.json")
    one_line_error(status, err, "--eval-metric: auc judges 0/1 labels, but the rows in queries (--qid query) have "
                                "the grades 0, 1, 2, 3")



@pytest.mark.parametrize("spec", ["ndcg@k:11", "err@k:50"])
def test_a_metric_the_file_cannot_score_is_said_as_the_options_given(files, tmp_path, spec):
    """The library's refusal (``eval_metric: ... cannot score eval_set y``) is said as ``--eval-metric`` and
    ``--validation``, the names the command line gave."""
    status, _, err = run_main("fit", files / "train.csv", *FIT, "--validation", files / "valid.csv",
                              "--eval-metric", spec, "--quiet", "-o", tmp_path / "m.json")
    one_line_error(status, err, f"--eval-metric {spec}: cannot score --validation {files / 'valid.csv'}: k = "
                                f"{spec.rpartition(':')[2]} is larger than every query", "choose k <=")
    assert "eval_metric:" not in err and "score eval_set" not in err

def test_one_list_records_the_curves_too(files, tmp_path):
    one_list = ("--drop", "query,prior", "--label", "grade", "--positive", "3", "--n-iter", N_ITER)
    status, _, err = run_main("fit", files / "train.csv", *one_list, "--validation", files / "valid.csv",
                              "--eval-metric", "prec@k:5,pauc:0.1", "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    X, y, _, _ = read(files / "train.csv")
    X_val, y_val, _, _ = read(files / "valid.csv")
    expected = rankcore.boost(n_iter=int(N_ITER), random_state=0, scoring="auc").fit(
        X, (y == 3).astype(int), eval_set=(X_val, (y_val == 3).astype(int)), eval_metric=["prec@k:5", "pauc:0.1"])
    (curves,) = rankcore.load_model(tmp_path / "m.json").evals_result_.values()
    (wanted,) = expected.evals_result_.values()
    assert list(curves) == list(wanted) == ["auc", "prec@k:5", "pauc:0.1"]
    for spec in wanted:
        np.testing.assert_allclose(curves[spec], wanted[spec], rtol=0, atol=1e-12)
    assert f"validation pauc:0.1 {wanted['pauc:0.1'][-1]:.4f}" in err.splitlines()


def test_help_lists_the_option():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args(["fit", "--help"])
    text = " ".join(out.getvalue().split())
    assert "--eval-metric SPECS" in text and "comma-separated specs like --metrics" in text
    assert "--eval-metric ndcg@k:1,map" in text         # the example


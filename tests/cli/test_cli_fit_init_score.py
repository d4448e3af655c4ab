"""``rankcore fit DATA --init-score COLUMN``: the scores a fit starts from, on the command line; ``score`` and
``evaluate`` adding them back."""

import contextlib
import csv
import io

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from _init_score_data import HEADER, N_ITER, ranked, read, write
from rankcore.cli import build_parser
from rankcore.cli.datasets import DataError, load_data

FIT = ("--qid", "query", "--label", "grade", "--init-score", "prior", "--n-iter", N_ITER)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit_init_score")
    write(d / "train.csv", *ranked(0))
    write(d / "valid.csv", *ranked(1, n_queries=8))
    write(d / "valid_no_prior.csv", *ranked(1, n_queries=8), header=["query", "a", "b", "c", "grade"])
    return d


def _boost():
    return rankcore.boost(learner="trees", n_iter=int(N_ITER), random_state=0)


def test_fit_with_initial_scores_is_the_estimators_fit_with_init_score(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", *FIT, "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    X, y, qid, prior = read(files / "train.csv")
    assert f"initial scores {prior.min():.4g} to {prior.max():.4g} (prior) (label: grade)" in err
    model = rankcore.load_model(tmp_path / "m.json")
    # the column of initial scores is neither a feature nor the label
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    expected = _boost().fit(X, y, qid=qid, init_score=prior)
    X_val, y_val, qid_val, prior_val = read(files / "valid.csv")
    for frame in (X, X_val):
        np.testing.assert_allclose(model.decision_function(frame), expected.decision_function(frame),
                                   rtol=0, atol=1e-12)
    # the training score reported is that of the model's scores plus the initial scores
    score = rankcore.evaluate(y, expected.decision_function(X) + prior, ["ndcg@k:10"], qid=qid)["ndcg@k:10"]
    assert f"train ndcg@k:10 {score:.4f}]" in err
    # the initial scores change the model: without them it is another one
    plain = _boost().fit(X, y, qid=qid)
    assert not np.allclose(plain.decision_function(X), expected.decision_function(X))


def test_one_list_takes_initial_scores_too(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", "--drop", "query", "--label", "grade", "--positive", "3",
                              "--init-score", "prior", "--n-iter", N_ITER, "--quiet", "-o", tmp_path / "m.json")
    assert (status, err) == (0, "")
    X, y, _, prior = read(files / "train.csv")
    expected = rankcore.boost(n_iter=int(N_ITER), random_state=0).fit(X, (y == 3).astype(int), init_score=prior)
    np.testing.assert_allclose(rankcore.load_model(tmp_path / "m.json").decision_function(X),
                               expected.decision_function(X), rtol=0, atol=1e-12)


def test_validation_rows_are_scored_from_their_own_initial_scores(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", *FIT, "--validation", files / "valid.csv",
                              "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    X, y, qid, prior = read(files / "train.csv")
    X_val, y_val, qid_val, prior_val = read(files / "valid.csv")
    expected = _boost().set_params(scoring="ndcg@k:10").fit(X, y, qid=qid, init_score=prior,
                                                          eval_set=(X_val, y_val, qid_val), eval_init_score=prior_val)
    np.testing.assert_allclose(model.validation_scores_, expected.validation_scores_, rtol=0, atol=1e-12)
    final = rankcore.evaluate(y_val, expected.decision_function(X_val) + prior_val, ["ndcg@k:10"], qid=qid_val)
    assert f"validation ndcg@k:10 {final['ndcg@k:10']:.4f}]" in err
    np.testing.assert_allclose(model.validation_scores_[-1], final["ndcg@k:10"], rtol=0, atol=1e-12)


def test_a_validation_file_without_the_column_is_named_before_any_reading(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", *FIT, "--validation", files / "valid_no_prior.csv",
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, "--validation: ", "valid_no_prior.csv has no column 'prior' (--init-score): the "
                   "validation rows are scored from their own initial scores")
    assert not (tmp_path / "m.json").exists()


def _with_cell(files, tmp_path, value):
    """train.csv with the initial score of its third data row (line 4) replaced by ``value``."""
    lines = (files / "train.csv").read_text().splitlines()
    cells = lines[3].split(",")
    cells[HEADER.index("prior")] = value
    lines[3] = ",".join(cells)
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("value, message", [
    ("", "missing initial score"),
    ("NA", "missing initial score"),
    ("nan", "missing initial score"),
    ("inf", "expected the row's initial score, a finite number, got 'inf'"),
    ("-1e400", "expected the row's initial score, a finite number, got '-1e400'"),
    ("high", "expected the row's initial score, a finite number, got 'high'"),
    ("1_0", "expected the row's initial score, a finite number, got '1_0'"),
])
def test_bad_initial_scores_name_the_line_the_column_and_the_option(files, tmp_path, value, message):
    status, _, err = run_main("fit", _with_cell(files, tmp_path, value), *FIT, "-o", tmp_path / "m.json")
    one_line_error(status, err, "bad.csv, line 4, column 'prior' (--init-score): " + message)
    assert not (tmp_path / "m.json").exists()


def test_initial_scores_are_read_as_floats_exactly(files, tmp_path):
    data = load_data(_with_cell(files, tmp_path, " -2.5e-3 "), label="grade", qid="query", init_score="prior")
    assert data.init_score.dtype == np.float64 and data.init_score[2] == -2.5e-3
    np.testing.assert_array_equal(np.delete(data.init_score, 2), np.delete(read(files / "train.csv")[3], 2))
    assert data.init_score_name == "prior" and "prior" not in data.feature_names and not data.kept


@pytest.mark.parametrize("options, message", [
    (["--init-score", "prir"], "no initial-score column 'prir' (--init-score) in the header (columns: query, a, b, "
                               "prior, c, grade); did you mean 'prior'?"),
    (["--init-score", "query"], "the column 'query' cannot be both the query ids (--qid) and the initial scores "
                                "(--init-score)"),
    (["--init-score", "grade"], "the initial-score column 'grade' (--init-score) is the label or dropped"),
    (["--init-score", "prior", "--drop", "prior"], "the initial-score column 'prior' (--init-score) is the label "
                                                   "or dropped"),
])
def test_the_column_is_checked_as_the_other_columns_aside_are(files, tmp_path, options, message):
    status, _, err = run_main("fit", files / "train.csv", "--qid", "query", "--label", "grade", *options,
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, message)


def test_files_without_named_columns_have_no_initial_scores(tmp_path):
    svm = tmp_path / "rows.svm"
    svm.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    status, _, err = run_main("fit", svm, "--init-score", "prior", "-o", tmp_path / "m.json")
    one_line_error(status, err, "rows.svm: only CSV files name a column of initial scores (--init-score); this is a "
                                "libsvm file")


@pytest.mark.parametrize("model", ["exactboost", "sgd@k", "kernel"])
def test_a_model_that_cannot_start_from_initial_scores_is_refused_before_the_data_areread(tmp_path, model):
    status, _, err = run_main("fit", tmp_path / "absent.csv", "--init-score", "prior", "--model", model,
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, f"--init-score prior: {model} (", "cannot start from initial scores (its fit takes "
                   "no init_score); use --model push or rankboost, or leave out --init-score and pass --drop prior")


@pytest.mark.parametrize("command", ["score", "evaluate"])
def test_score_and_evaluate_add_the_rows_initial_scores(files, tmp_path, command):
    model_path = tmp_path / "m.json"
    assert run_main("fit", files / "train.csv", *FIT, "--quiet", "-o", model_path)[0] == 0
    model = rankcore.load_model(model_path)
    X_val, y_val, qid_val, prior_val = read(files / "valid.csv")
    scores = model.decision_function(X_val) + prior_val
    status, out, err = run_main(command, model_path, files / "valid.csv", "--qid", "query", "--label", "grade",
                                "--init-score", "prior", *(["--metrics", "ndcg@k:5,map"] * (command == "evaluate")))
    assert status == 0, err
    if command == "score":
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0] == ["query", "score"]
        np.testing.assert_array_equal([float(r[1]) for r in rows[1:]], scores)
    else:
        expected = rankcore.evaluate(y_val, scores, ["ndcg@k:5", "map"], qid=qid_val)
        assert model.score(X_val, y_val, qid=qid_val, init_score=prior_val) == pytest.approx(
            rankcore.evaluate(y_val, scores, ["ndcg@k:10"], qid=qid_val)["ndcg@k:10"], abs=1e-12)
        assert f"ndcg@k:5  {expected['ndcg@k:5']:.4f}" in out and f"map       {expected['map']:.4f}" in out
    # without --init-score (even with the column dropped) the model would rank by its correction alone
    for drop in ((), ("--drop", "prior")):
        status, _, err = run_main(command, model_path, files / "valid.csv", "--qid", "query", "--label", "grade",
                                  *drop)
        one_line_error(status, err, f"the model {model_path} was fitted from initial scores (rankcore fit "
                                    "--init-score): its scores are a correction to them; give the rows' initial "
                                    "scores with --init-score COLUMN")


@pytest.mark.parametrize("command", ["score", "evaluate"])
def test_initial_scores_are_refused_for_a_model_fitted_without_them(files, tmp_path, command):
    model_path = tmp_path / "plain.json"
    assert run_main("fit", files / "train.csv", "--qid", "query", "--label", "grade", "--drop", "prior",
                    "--n-iter", N_ITER, "--quiet", "-o", model_path)[0] == 0
    assert not hasattr(rankcore.load_model(model_path), "from_init_score_")
    status, _, err = run_main(command, model_path, files / "valid.csv", "--qid", "query", "--label", "grade",
                              "--init-score", "prior")
    one_line_error(status, err, f"--init-score prior: the model {model_path} (PushBoost) was not fitted from initial "
                                "scores (its model file records no initial scores); leave out --init-score and pass "
                                "--drop prior")


def test_scoring_with_initial_scores_needs_a_model_that_can_be_fitted_from_them(files, tmp_path):
    model_path = tmp_path / "sgd.json"
    status, _, err = run_main("fit", files / "train.csv", "--drop", "query,prior", "--label", "grade", "--positive",
                              "3", "--model", "sgd@k", "--quiet", "-o", model_path)
    assert status == 0, err
    status, _, err = run_main("score", model_path, files / "train.csv", "--drop", "query", "--init-score", "prior")
    one_line_error(status, err, f"--init-score prior: the model {model_path} (SGDAtK) was not fitted from initial "
                                "scores (its fit takes no init_score); leave out --init-score and pass --drop prior")


def test_compare_refuses_initial_scores_with_what_to_do(files):
    status, _, err = run_main("compare", files / "train.csv", "--qid", "query", "--label", "grade",
                              "--init-score", "prior")
    one_line_error(status, err, "--init-score: `rankcore compare` takes no initial scores (here the column would "
                                "be read as a feature); `rankcore fit DATA --init-score prior` fits a model from "
                                "them (and `rankcore auto` chooses one)", "pass --drop prior")


@pytest.mark.parametrize("command", ["fit", "score", "evaluate", "compare", "auto"])
def test_help_lists_the_option(command):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = " ".join(out.getvalue().split())
    assert "--init-score COLUMN" in text
    if command == "fit":
        assert "the scores the fit starts from" in text and "eval_init_score" in text
    elif command == "auto":
        assert "every candidate learns a correction to them (init_score" in text and "eval_init_score" in text
    elif command in ("score", "evaluate"):
        assert "added to the model's scores" in text
    else:
        assert "not here: only `rankcore fit`, `auto`, `score`, `explain` and `evaluate` take initial scores" in text


def test_an_absent_initial_score_column_is_an_error_of_the_reader(files):
    with pytest.raises(DataError, match=r"no initial-score column 'prior' \(--init-score\)"):
        load_data(files / "valid_no_prior.csv", label="grade", qid="query", init_score="prior")

"""``rankcore auto`` with ``--init-score``, ``--position`` and ``--validation``: each is ``AutoRanker.fit``'s
``init_score``, ``position`` and ``eval_set`` (``eval_init_score``) on the same data, and each bad input is one
error of the command line."""

import contextlib
import csv
import io
import json
import re

import numpy as np
import pandas as pd
import pytest

import rankcore
from _candidate_plugins import registered_candidate
from _cli_run import one_line_error, run_main
from _init_score_data import ranked
from rankcore.auto import AutoRanker, Candidate, FoldBag
from rankcore.cli import build_parser

HEADER = ["query", "place", "a", "b", "prior", "c", "grade"]
#: Two quick candidates ranking within queries, and their specs as AutoRanker takes them.
WITHIN = "trees:n_iter=8,stumps:n_iter=8"
#: A quick candidate taking initial scores, and one taking none, on one list.
ONE_LIST = "trees:n_iter=8,linear"
QUIET = ("--progress", "none")


def _write(path, query, X, prior, grade, header=HEADER, seed=0):
    """The rows as CSV (floats by their repr), each query's rows shown at the places 0, 1, ... in a random order."""
    rng = np.random.default_rng(seed)
    place = np.empty(query.size, dtype=int)
    for q in np.unique(query):
        rows = np.flatnonzero(query == q)
        place[rows] = rng.permutation(rows.size)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        for i in range(query.size):
            row = {"query": f"q{query[i]}", "place": str(place[i]), "prior": repr(float(prior[i])),
                   "grade": str(grade[i]), "d": "0.5", **{n: repr(float(v)) for n, v in zip("abc", X[i])}}
            writer.writerow([row[name] for name in header])
    return path


def _read(path):
    """(frame of a, b, c; grades; query ids; initial scores; places), read with the csv module."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    frame = pd.DataFrame({name: [float(r[name]) for r in rows] for name in "abc"})
    column = lambda name, kind: np.array([kind(r[name]) for r in rows])      # noqa: E731
    return frame, column("grade", float), column("query", str), column("prior", float), column("place", int)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("auto_fit_inputs")
    _write(d / "train.csv", *ranked(0))
    valid = ranked(1, n_queries=8)
    _write(d / "valid.csv", *valid, seed=1)
    _write(d / "valid_no_prior.csv", *valid, header=[h for h in HEADER if h != "prior"])
    _write(d / "valid_extra.csv", *valid, header=HEADER[:-1] + ["d", "grade"])
    _write(d / "valid_no_query.csv", *valid, header=HEADER[1:])
    query, X, prior, grade = valid
    _write(d / "valid_no_3.csv", query, X, prior, np.minimum(grade, 2))       # no row of the relevant grade 3
    _write(d / "valid_one_grade.csv", query, X, prior, np.ones_like(grade))   # nothing to order in any query
    return d


def _auto(specs, **params):
    return AutoRanker(candidates=specs.split(","), random_state=0, **params)


def _same_model(model, expected, *frames):
    assert model.best_candidate_ == expected.best_candidate_
    assert model.best_score_ == pytest.approx(expected.best_score_, abs=1e-12)
    for frame in frames:
        np.testing.assert_allclose(model.decision_function(frame), expected.decision_function(frame),
                                   rtol=0, atol=1e-12)


# ----------------------------------------------------------------------
# --init-score
# ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def stage_model(files, tmp_path_factory):
    """An auto model fitted within queries from the initial scores 'prior': (path, status, stderr)."""
    path = tmp_path_factory.mktemp("stage") / "m.json"
    status, _, err = run_main("auto", files / "train.csv", "--qid", "query", "--drop", "place", "--label", "grade",
                              "--init-score", "prior", "--candidates", WITHIN, "--cv", "3", *QUIET, "-o", path)
    return path, status, err


def test_init_score_is_the_auto_rankers_fit_with_init_score(files, stage_model):
    path, status, err = stage_model
    assert status == 0, err
    X, y, qid, prior, _ = _read(files / "train.csv")
    assert f"initial scores {prior.min():.4g} to {prior.max():.4g} (prior) (label: grade)" in err
    model = rankcore.load_model(path)
    # the column of initial scores is neither a feature nor the label; the model is the correction alone
    assert list(model.feature_names_in_) == ["a", "b", "c"] and model.from_init_score_ is True
    expected = _auto(WITHIN, cv=3).fit(X, y, qid=qid, init_score=prior)
    _same_model(model, expected, X, _read(files / "valid.csv")[0])
    assert "from init_score: a single model" in model.selection_reason_
    # the initial scores change the choice's model: without them it is another one
    plain = _auto(WITHIN, cv=3).fit(X, y, qid=qid)
    assert not np.allclose(plain.decision_function(X), expected.decision_function(X))


def test_init_score_on_one_list_skips_the_candidates_that_take_none(files, tmp_path):
    status, out, err = run_main("auto", files / "train.csv", "--drop", "query,place", "--label", "grade",
                                "--positive", "3", "--init-score", "prior", "--candidates", ONE_LIST, "--cv", "3",
                                "--quiet", "-o", tmp_path / "m.json")
    assert (status, err) == (0, "")
    X, y, _, prior, _ = _read(files / "train.csv")
    expected = _auto(ONE_LIST, cv=3).fit(X, (y == 3).astype(int), init_score=prior)
    _same_model(rankcore.load_model(tmp_path / "m.json"), expected, X)
    (linear,) = [line for line in out.splitlines() if line.startswith("linear")]
    assert linear.split()[1] == "skipped" and linear.endswith("takes no init_score")


@pytest.mark.parametrize("command", ["score", "evaluate"])
def test_score_and_evaluate_add_the_initial_scores_to_an_auto_models(files, stage_model, command):
    path, status, err = stage_model
    assert status == 0, err
    model = rankcore.load_model(path)
    X_val, y_val, qid_val, prior_val, _ = _read(files / "valid.csv")
    scores = model.decision_function(X_val) + prior_val
    options = ("--qid", "query", "--drop", "place", "--label", "grade")
    status, out, err = run_main(command, path, files / "valid.csv", *options, "--init-score", "prior",
                                *(["--metrics", "ndcg@k:5"] * (command == "evaluate")))
    assert status == 0, err
    if command == "score":
        np.testing.assert_array_equal([float(r[1]) for r in list(csv.reader(io.StringIO(out)))[1:]], scores)
    else:
        expected = rankcore.evaluate(y_val, scores, ["ndcg@k:5"], qid=qid_val)["ndcg@k:5"]
        assert f"ndcg@k:5  {expected:.4f}" in out
    # without them the model would rank by its correction alone
    status, _, err = run_main(command, path, files / "valid.csv", *options, "--drop", "place,prior")
    one_line_error(status, err, f"the model {path} was fitted from initial scores (rankcore auto --init-score): its "
                                "scores are a correction to them; give the rows' initial scores with --init-score")


def test_an_auto_model_fitted_without_initial_scores_refuses_them(files, tmp_path):
    path = tmp_path / "plain.json"
    assert run_main("auto", files / "train.csv", "--qid", "query", "--drop", "place,prior", "--label", "grade",
                    "--candidates", "trees:n_iter=4", "--cv", "2", "--quiet", "-o", path)[0] == 0
    status, _, err = run_main("score", path, files / "valid.csv", "--qid", "query", "--drop", "place", "--label",
                              "grade", "--init-score", "prior")
    one_line_error(status, err, f"--init-score prior: the model {path} (AutoRanker) was not fitted from initial "
                                "scores (its model file records no initial scores); leave out --init-score")


# ----------------------------------------------------------------------
# --position
# ----------------------------------------------------------------------
def test_positions_are_the_auto_rankers_fit_with_position(files, tmp_path):
    status, _, err = run_main("auto", files / "train.csv", "--qid", "query", "--position", "place", "--drop", "prior",
                              "--label", "grade", "--candidates", WITHIN, "--cv", "3", *QUIET,
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    X, y, qid, _, place = _read(files / "train.csv")
    places = np.unique(place)
    assert f"positions 0 to {places[-1]} ({places.size} places) (label: grade)" in err
    model = rankcore.load_model(tmp_path / "m.json")
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    expected = _auto(WITHIN, cv=3).fit(X, y, qid=qid, position=place)
    _same_model(model, expected, X)
    plain = _auto(WITHIN, cv=3).fit(X, y, qid=qid)
    assert not np.allclose(plain.decision_function(X), expected.decision_function(X))
    # the chosen model's effects per place follow, as `fit` prints them (a fold bag's: its refit's)
    refit = expected.best_estimator_.estimators[0] if isinstance(expected.best_estimator_, FoldBag) else \
        expected.best_estimator_
    (line,) = [line for line in err.splitlines() if line.startswith("position effects")]
    shown = line.split(": ", 1)[1].split(";")[0].split(", ")
    assert [int(pair.split()[0]) for pair in shown] == places.tolist()
    np.testing.assert_allclose([float(pair.split()[1]) for pair in shown], refit.position_effects_, atol=5e-4)


class _NoPositions:
    """Ranks within queries by the first column, and takes no display positions."""

    def fit(self, X, y, *, qid=None):
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0]


class _NoPositionsCandidate(Candidate):
    name = "no-positions-for-tests"
    ranks_within_queries = True

    def build(self, context):
        return _NoPositions()


def test_no_candidate_that_takes_positions_says_what_to_do(files, tmp_path):
    with registered_candidate(_NoPositionsCandidate, "auto-cli-no-positions"):
        status, _, err = run_main("auto", files / "train.csv", "--qid", "query", "--position", "place", "--drop",
                                  "prior", "--label", "grade", "--candidates", "no-positions-for-tests", "--quiet",
                                  "-o", tmp_path / "m.json")
    one_line_error(status, err, "--position place: candidates: none applies to these data (no-positions-for-tests: "
                                "takes no position); list candidates that learn position effects (trees, stumps), "
                                "or leave out --position and pass --drop place")
    assert not (tmp_path / "m.json").exists()


# ----------------------------------------------------------------------
# --validation
# ----------------------------------------------------------------------
def test_the_choice_on_a_validation_file_is_the_auto_rankers_on_its_eval_set(files, tmp_path):
    model_path, report = tmp_path / "m.json", tmp_path / "auto.html"
    status, out, err = run_main("auto", files / "train.csv", "--qid", "query", "--drop", "place", "--label", "grade",
                                "--init-score", "prior", "--validation", files / "valid.csv", "--candidates", WITHIN,
                                "--table-format", "json", "--report", report, *QUIET, "-o", model_path)
    assert status == 0, err
    X, y, qid, prior, _ = _read(files / "train.csv")
    X_val, y_val, qid_val, prior_val, _ = _read(files / "valid.csv")
    expected = _auto(WITHIN).fit(X, y, qid=qid, init_score=prior, eval_set=(X_val, y_val, qid_val),
                                 eval_init_score=prior_val, eval_names=["validation"])
    model = rankcore.load_model(model_path)
    _same_model(model, expected, X, X_val)
    assert model.cv_description_ == expected.cv_description_ and model.cv_description_.startswith(
        "the eval_set 'validation' (61 rows in whole queries)")
    assert model.evals_result_ == expected.evals_result_
    # each candidate's value on the whole file beside its mean over the file's parts
    values = expected.evals_result_["validation"]["ndcg@k:10"]
    rows = {row["candidate"]: row for row in json.loads(out)}
    assert set(values) <= set(rows) and rows[expected.best_candidate_]["status"] == "chosen"
    for name, row in rows.items():
        assert row["metric"] == "ndcg@k:10" and row["whole_file"] == values.get(name)
    chosen = values[expected.best_candidate_]
    assert "over 5 parts of the eval_set 'validation'" in err
    assert (f"valid.csv (61 rows): ndcg@k:10 {chosen:.4f} of {expected.best_candidate_} on the whole file (its mean "
            f"over the file's parts: {expected.best_score_:.4f})") in err
    # the scores are the file's initial scores plus the model's: what `evaluate` finds
    assert chosen == pytest.approx(rankcore.evaluate(y_val, model.decision_function(X_val) + prior_val,
                                                     ["ndcg@k:10"], qid=qid_val)["ndcg@k:10"], abs=1e-12)
    page = report.read_text()
    assert "validation file" in page and "ndcg@k:10 (whole file)" in page and "data:image/svg+xml" in page
    assert "scores of the validation file valid.csv" in page and "initial scores" in page


def test_a_validation_file_on_one_list(files, tmp_path):
    status, out, err = run_main("auto", files / "train.csv", "--drop", "query,place,prior", "--label", "grade",
                                "--positive", "3", "--validation", files / "valid.csv", "--cv", "auto",
                                "--candidates", ONE_LIST, *QUIET, "-o", tmp_path / "m.json")
    assert status == 0, err
    X, y, _, _, _ = _read(files / "train.csv")
    X_val, y_val, _, _, _ = _read(files / "valid.csv")
    expected = _auto(ONE_LIST).fit(X, (y == 3).astype(int), eval_set=(X_val, (y_val == 3).astype(int)),
                                   eval_names=["validation"])
    model = rankcore.load_model(tmp_path / "m.json")
    _same_model(model, expected, X_val)
    assert model.evals_result_ == expected.evals_result_
    assert re.split(r"\s{2,}", out.splitlines()[0])[:5] == ["candidate", "status", "pauc:0.1 (mean ± sd)", "parts",
                                                          "pauc:0.1 (whole file)"]
    assert "choosing by pauc:0.1 on " in err and "valid.csv" in err


def _svm(path, csv_path):
    """The CSV file's rows as a LIBSVM file (grade, qid:n, the features a, b, c as 1, 2, 3); its query ids."""
    frame, grade, query, _, _ = _read(csv_path)
    qid = np.array([int(q[1:]) for q in query])          # q7 -> 7
    path.write_text("".join(f"{g:g} qid:{q} 1:{a!r} 2:{b!r} 3:{c!r}\n"
                            for g, q, (a, b, c) in zip(grade, qid, frame.to_numpy().tolist())))
    return path, qid


def test_libsvm_files_and_their_query_ids(files, tmp_path):
    (train, qid), (valid, qid_val) = _svm(tmp_path / "train.svm", files / "train.csv"), _svm(
        tmp_path / "valid.svm", files / "valid.csv")
    status, _, err = run_main("auto", train, "--validation", valid, "--candidates", WITHIN, "--quiet",
                              "-o", tmp_path / "m.json")
    assert (status, err) == (0, "")
    X, y, _, _, _ = _read(files / "train.csv")
    X_val, y_val, _, _, _ = _read(files / "valid.csv")
    model = rankcore.load_model(tmp_path / "m.json")
    assert list(model.feature_names_in_) == ["f1", "f2", "f3"]          # a LIBSVM file's columns: its indices
    X, X_val = X.set_axis(["f1", "f2", "f3"], axis=1), X_val.set_axis(["f1", "f2", "f3"], axis=1)
    expected = _auto(WITHIN).fit(X, y, qid=qid, eval_set=(X_val, y_val, qid_val), eval_names=["validation"])
    _same_model(model, expected, X_val)
    assert model.evals_result_ == expected.evals_result_


@pytest.mark.parametrize("cv", ["3", "5,2", "0.3"])
def test_cv_is_refused_with_a_validation_file_before_any_reading(files, tmp_path, cv):
    status, _, err = run_main("auto", tmp_path / "absent.csv", "--validation", files / "valid.csv", "--cv", cv,
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, f"--cv {cv}: the candidates are chosen on --validation ",
                   "not by cross-validation", "leave out --cv, or leave out --validation to cross-validate")


# ----------------------------------------------------------------------
# Errors: one line each, no model written
# ----------------------------------------------------------------------
WITHIN_QUERIES = ("--qid", "query", "--label", "grade")
BY_GRADE_3 = ("--label", "grade", "--positive", "3")


@pytest.mark.parametrize("options, fragments", [
    (("--drop", "query,prior", *BY_GRADE_3, "--position", "place"),
     ["--position place: display positions are places within each query's list; name the rows' query-id column "
      "with --qid COLUMN"]),
    ((*WITHIN_QUERIES, "--drop", "prior", "--position", "plac"),
     ["no display-position column 'plac' (--position)", "did you mean 'place'?"]),
    ((*WITHIN_QUERIES, "--drop", "place", "--init-score", "prio"),
     ["no initial-score column 'prio' (--init-score)", "did you mean 'prior'?"]),
    ((*WITHIN_QUERIES, "--drop", "place", "--init-score", "query"),
     ["cannot be both the query ids (--qid) and the initial scores"]),
    (("--drop", "query,place", *BY_GRADE_3, "--init-score", "prior", "--candidates", "linear"),
     ["--init-score prior: candidates: none applies to these data (linear: takes no init_score); list candidates "
      "that start from initial scores (trees, stumps, lightgbm, xgboost), or leave out --init-score and pass --drop "
      "prior"]),
    ((*WITHIN_QUERIES, "--drop", "place", "--init-score", "prior", "--validation", "valid_no_prior.csv"),
     ["--validation: ", "valid_no_prior.csv has no column 'prior' (--init-score): the validation rows are scored "
      "from their own initial scores"]),
    ((*WITHIN_QUERIES, "--drop", "place,prior", "--validation", "valid_no_query.csv"),
     ["valid_no_query.csv: no query-id column 'query' (--qid)"]),
    ((*WITHIN_QUERIES, "--drop", "place,prior", "--validation", "valid_extra.csv"),
     ["valid_extra.csv: the column 'd' is not a feature of the training data", "--drop d"]),
    (("--drop", "query,place,prior", *BY_GRADE_3, "--validation", "valid_no_3.csv"),
     ["--validation: no row of ", "valid_no_3.csv has the relevant label 3; the candidates are chosen on it: it "
      "needs relevant and other rows"]),
    ((*WITHIN_QUERIES, "--drop", "place,prior", "--validation", "valid_one_grade.csv"),
     ["--validation ", "valid_one_grade.csv: no query of the set holds two grades"]),
    (("--drop", "query,place,prior", *BY_GRADE_3, "--validation", "valid.csv", "--metric", "prec@k:50"),
     ["--validation ", "valid.csv: metric 'prec@k:50' cannot be computed on the eval_set 'validation' (61 rows)",
      "or larger validation parts (a larger file)"]),
])
def test_bad_inputs_are_one_error_of_the_command_line(files, tmp_path, options, fragments):
    options = [str(files / o) if o.startswith("valid") else o for o in options]
    candidates = [] if "--candidates" in options else ["--candidates", ONE_LIST]
    status, _, err = run_main("auto", files / "train.csv", *options, *candidates, "--quiet", "-o", tmp_path / "m.json")
    one_line_error(status, err, *fragments)
    assert not (tmp_path / "m.json").exists()


def test_help_lists_the_options():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args(["auto", "--help"])
    text = " ".join(out.getvalue().split())
    assert "--init-score COLUMN" in text and "(eval_init_score)" in text
    assert "--position COLUMN with --qid" in text and "candidates that take none are skipped" in text
    assert "--validation DATA labelled data to choose the candidates on instead of cross-validation" in text
    assert "not with --validation" in text

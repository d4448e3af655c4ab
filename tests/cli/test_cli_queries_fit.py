"""Fitting within queries on the command line: ``fit`` and ``compare`` with LIBSVM ``qid:`` and CSV ``--qid``."""

import csv
import json
import re

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from rankcore.cli._queries import query_split
from rankcore.metrics import evaluate

N_ITER = "8"


def grouped(seed, n_queries=24):
    """Graded rows of queries of 4..11 rows, in query order; features rounded to one decimal (ties)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 12, size=n_queries)
    qid = np.repeat(np.arange(200, 200 + n_queries), sizes)
    X = np.round(rng.normal(size=(qid.size, 3)), 1)
    grade = np.clip(np.round(X[:, 0] + rng.normal(scale=0.7, size=qid.size) + 1), 0, 3)
    return qid, X, grade


def write_csv(path, qid, X, grade, order):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["query", "a", "b", "c", "grade"])
        for i in order:
            writer.writerow([f"q{qid[i]}", *map(repr, X[i].tolist()), repr(float(grade[i]))])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit_queries")
    qid, X, grade = grouped(0)
    shuffled = np.random.default_rng(1).permutation(qid.size)
    write_csv(d / "in_order.csv", qid, X, grade, range(qid.size))
    write_csv(d / "shuffled.csv", qid, X, grade, shuffled)
    with open(d / "data.svm", "w") as fh:
        for q, row, g in zip(qid, X, grade):
            fh.write(f"{g:g} qid:{q} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row.tolist()) if v) + "\n")
    return d, qid, X, grade


def test_fit_within_queries_is_the_estimators_fit_and_ignores_the_row_order(files, tmp_path):
    d, qid, X, grade = files
    models = {}
    for name, argv in (("svm", [d / "data.svm"]), ("csv", [d / "in_order.csv", "--qid", "query", "--label", "grade"]),
                       ("shuffled", [d / "shuffled.csv", "--qid", "query", "--label", "grade"])):
        status, _, err = run_main("fit", *argv, "--n-iter", N_ITER, "--learner", "stumps",
                                  "-o", tmp_path / f"{name}.json")
        assert status == 0, err
        assert "24 queries (4 to 11 rows), grades 0 to 3" in err and "ndcg@k:10" in err
        models[name] = rankcore.load_model(tmp_path / f"{name}.json")
    frame = models["csv"].decision_function(_frame(X))
    np.testing.assert_array_equal(models["svm"].decision_function(X), frame)
    direct = type(models["svm"])(**models["svm"].get_params()).fit(X, grade, qid=qid)
    np.testing.assert_array_equal(direct.decision_function(X), frame)
    # rows in another order: the same model, up to the order of floating-point sums
    np.testing.assert_allclose(models["shuffled"].decision_function(_frame(X)), frame, rtol=0, atol=1e-9)


def test_the_learner_within_queries_is_the_trees_unless_one_is_given(files, tmp_path):
    # the library's per-query default ranker; the stumps, the default for one list, stop learning early here
    d, qid, X, grade = files
    for extra, learner in (([], "trees"), (["--learner", "stumps"], "stumps")):
        status, _, err = run_main("fit", d / "data.svm", "--n-iter", N_ITER, *extra, "-o", tmp_path / "m.json",
                                  "--force")
        assert status == 0, err
        model = rankcore.load_model(tmp_path / "m.json")
        assert model.get_params()["learner"] == learner
    expected = rankcore.boost(learner="trees", n_iter=int(N_ITER), random_state=0).fit(X, grade, qid=qid)
    status, _, err = run_main("fit", d / "data.svm", "--n-iter", N_ITER, "-o", tmp_path / "t.json")
    assert status == 0, err
    np.testing.assert_array_equal(rankcore.load_model(tmp_path / "t.json").decision_function(X),
                                  expected.decision_function(X))
    # a model of one list keeps the push's own default
    status, _, err = run_main("fit", d / "in_order.csv", "--drop", "query", "--label", "grade", "--positive", "3",
                              "--n-iter", N_ITER, "-o", tmp_path / "one.json")
    assert status == 0, err
    assert rankcore.load_model(tmp_path / "one.json").get_params()["learner"] == "stumps"


def test_integer_query_ids_in_a_csv_give_the_estimators_fit_with_integer_ids(tmp_path):
    # ids of one to three digits: read as text, '10' would sort before '9', and the default trees' random draws
    # follow the queries' order
    qid, X, grade = grouped(3, n_queries=30)
    qid = qid - 195                                   # 5 .. 34, and 0-padded forms stay text
    path = tmp_path / "ids.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["query", "a", "b", "c", "grade"])
        for i in range(qid.size):
            writer.writerow([qid[i], *map(repr, X[i].tolist()), repr(float(grade[i]))])
    status, _, err = run_main("fit", path, "--qid", "query", "--label", "grade", "--n-iter", N_ITER, "--quiet",
                              "-o", tmp_path / "m.json")
    assert (status, err) == (0, "")
    expected = rankcore.boost(learner="trees", n_iter=int(N_ITER), random_state=0).fit(X, grade, qid=qid)
    as_text = rankcore.boost(learner="trees", n_iter=int(N_ITER), random_state=0).fit(X, grade, qid=qid.astype(str))
    got = rankcore.load_model(tmp_path / "m.json").decision_function(_frame(X))
    np.testing.assert_array_equal(got, expected.decision_function(X))
    assert not np.array_equal(got, as_text.decision_function(X))        # the order of the ids mattered


def _frame(X):
    import pandas as pd

    return pd.DataFrame(X, columns=["a", "b", "c"])


def test_fit_refuses_a_model_that_ranks_one_list(files, tmp_path):
    d, *_ = files
    status, _, err = run_main("fit", d / "in_order.csv", "--qid", "query", "--label", "grade", "--model", "exactboost",
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, "--qid query: exactboost (ExactBoost) ranks one list and cannot fit within queries",
                   "use --model push or rankboost", "leave out --qid and pass --drop query to fit one list")
    assert not (tmp_path / "m.json").exists()
    status, _, err = run_main("compare", d / "data.svm", "--model", "push,sgd@k", "--no-plots")
    one_line_error(status, err, "data.svm: the rows have query ids (qid:), and sgd@k (SGDAtK) ranks one list")


def without_qid(d, tmp_path):
    path = tmp_path / "plain.svm"
    path.write_text("".join(line.replace(line.split()[1] + " ", "", 1) + "\n"
                            for line in (d / "data.svm").read_text().splitlines()))
    return path


def test_fit_validation_file_needs_query_ids(files, tmp_path):
    d, *_ = files
    status, _, err = run_main("fit", d / "data.svm", "--validation", without_qid(d, tmp_path),
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, "--validation:", "has no query ids, but the training rows are in queries (qid:)")


def test_compare_within_queries_scores_whole_test_queries_and_draws_their_figures(files, tmp_path):
    d, qid, X, grade = files
    out = tmp_path / "figures"
    status, table, err = run_main("compare", d / "data.svm", "--price", "identity,pow:4", "--n-iter", N_ITER,
                                  "--out-dir", out, "--report", tmp_path / "r.html", "--save-models",
                                  tmp_path / "models", "--table-format", "json", "--ci", "--n-boot", "200")
    assert status == 0, err
    parts = json.loads(table)
    rows = parts["metrics"]
    assert {r["model"] for r in rows} == {"push identity", "push pow:4"}
    assert set(rows[0]) == {"model", "split", "ndcg@k:10", "map", "mrr"}
    train, test = query_split(qid, 0.3, 0)
    assert not set(qid[train]) & set(qid[test])
    for row in rows:
        model = rankcore.load_model(tmp_path / "models" / f"{re.sub(r'[^A-Za-z0-9_.@-]', '_', row['model'])}.json")
        part = train if row["split"] == "train" else test
        found = evaluate(grade[part], model.decision_function(X[part]), ["ndcg@k:10", "map", "mrr"], qid=qid[part])
        for spec, value in found.items():
            assert row[spec] == pytest.approx(value, abs=1e-12)
    assert {r["method"] for r in parts["intervals"]} == {"bootstrap over queries"}
    assert len(parts["differences"]) == 3
    assert sorted(p.name for p in out.iterdir()) == ["ndcg_at_k.svg", "objective.svg", "query_differences.svg"]
    assert 'data-series="at-k:push pow:4"' in (out / "ndcg_at_k.svg").read_text()
    html = (tmp_path / "r.html").read_text()
    assert "ndcg@k against k" in html and "each test query&#x27;s ndcg@k difference" in html


def test_compare_is_the_same_on_shuffled_rows(files, tmp_path):
    d, *_ = files
    tables = []
    for name in ("in_order.csv", "shuffled.csv"):
        status, table, err = run_main("compare", d / name, "--qid", "query", "--label", "grade", "--n-iter", N_ITER,
                                      "--learner", "stumps", "--no-plots", "--table-format", "csv")
        assert status == 0, err
        tables.append(table)
    assert tables[0] == tables[1]


def test_compare_test_file_needs_query_ids(files, tmp_path):
    d, *_ = files
    status, _, err = run_main("compare", d / "data.svm", "--test", without_qid(d, tmp_path), "--no-plots")
    one_line_error(status, err, "--test:", "has no query ids, but the training rows are in queries (qid:)")


@pytest.mark.parametrize("command", ["fit", "compare"])
@pytest.mark.parametrize("objective", ["lambdarank", "xendcg", "yetirank:5"])
def test_a_query_objective_without_query_ids_names_the_objective_and_qid(files, tmp_path, command, objective):
    # graded labels without --qid: the missing query ids are the error, not the labels or the default learner
    d, _, _, _ = files
    out = ["-o", tmp_path / "m.json"] if command == "fit" else []
    status, _, err = run_main(command, d / "in_order.csv", "--label", "grade", "--drop", "query",
                              "--objective", objective, "--n-iter", "2", *out)
    one_line_error(status, err, f"--objective '{objective}' ranks within queries", "in_order.csv has no query ids",
                   "--qid COLUMN")


def test_a_query_objective_without_query_ids_is_refused_on_0_1_labels_and_by_param(files, tmp_path):
    d, _, _, _ = files
    status, _, err = run_main("fit", d / "in_order.csv", "--label", "grade", "--drop", "query", "--positive", "3",
                              "--param", "objective=lambdarank:3", "-o", tmp_path / "m.json")
    # the option the user wrote is the one named (it said "--objective", which the command line was not given)
    one_line_error(status, err, "--param objective=lambdarank:3 ranks within queries", "--qid COLUMN")


def test_a_plotted_objective_must_have_a_value(files, tmp_path):
    # lambdarank and yetirank give gradients only: the figure would be empty, refused before the data are read
    d, _, _, _ = files
    for given in (["--objective", "lambdarank"], ["--param", "objective=yetirank"]):
        status, _, err = run_main("fit", d / "in_order.csv", "--label", "grade", "--qid", "query", *given,
                                  "--n-iter", "2", "-o", tmp_path / "m.json", "--plot-objective", tmp_path / "o.svg")
        one_line_error(status, err, "--plot-objective: the objective", "gives gradients but no value to plot")
        assert not (tmp_path / "m.json").exists() and not (tmp_path / "o.svg").exists()


def test_the_progress_shows_no_objective_for_one_without_a_value(files, tmp_path):
    # lambdarank's value is NaN (it has none): the progress line said "objective nan"
    d, _, _, _ = files
    status, _, err = run_main("fit", d / "in_order.csv", "--label", "grade", "--qid", "query", "--objective",
                              "lambdarank", "--n-iter", "3", "-o", tmp_path / "m.json", "--progress", "lines")
    assert status == 0, err
    assert "nan" not in err.lower() and "ndcg@k:10" in err


@pytest.mark.parametrize("objective, fragment", [
    (None, "weighs rows by the gain 2^grade, so grades must be <= 1023, got the grade 1100.0"),
    ("lambdarank:gain=0/1/3/7", "has gains for the grades 0..3 only"),
])
def test_a_grade_beyond_the_objectives_gains_is_named_by_its_line(tmp_path, objective, fragment):
    # the library counts rows from 0; the file's line of that row is what the user can find
    qid, X, grade = grouped(3)
    grade[17] = 1100.0
    order = np.random.default_rng(2).permutation(qid.size)
    write_csv(tmp_path / "big.csv", qid, X, grade, order)
    line = 2 + int(np.flatnonzero(order == 17)[0])          # the header is line 1
    more = [] if objective is None else ["--objective", objective]
    status, _, err = run_main("fit", tmp_path / "big.csv", "--qid", "query", "--label", "grade", *more, "--quiet",
                              "--n-iter", "2", "-o", tmp_path / "m.json")
    one_line_error(status, err, f"big.csv, line {line}: the objective", fragment)


def _big_grade_file(tmp_path, seed=3):
    """A file whose row 17 (of the query order) has a grade beyond 2^grade's range, rows shuffled; its line."""
    qid, X, grade = grouped(seed)
    grade[17] = 1100.0
    order = np.random.default_rng(2).permutation(qid.size)
    write_csv(tmp_path / "big.csv", qid, X, grade, order)
    return 2 + int(np.flatnonzero(order == 17)[0])          # the header is line 1


@pytest.mark.parametrize("random_state", ["0", "1", "2", "3"])
def test_compare_names_an_oversized_grade_by_its_line_in_either_split(tmp_path, random_state):
    # the fit counted the row among the training split's rows (or the monitored test split's: eval_set y), so the
    # message named a row of neither the file nor the split the user sees
    line = _big_grade_file(tmp_path)
    status, _, err = run_main("compare", tmp_path / "big.csv", "--qid", "query", "--label", "grade", "--model",
                              "push", "--n-iter", "2", "--random-state", random_state, "--quiet",
                              "--out-dir", tmp_path / "figures")
    one_line_error(status, err, "rankcore: error: push: ", f"big.csv, line {line}: the objective",
                   "got the grade 1100.0")
    assert "at row" not in err


def test_compare_names_an_oversized_grade_of_the_test_file_by_its_line(files, tmp_path):
    d, _, _, _ = files
    line = _big_grade_file(tmp_path)
    status, _, err = run_main("compare", d / "in_order.csv", "--qid", "query", "--label", "grade", "--test",
                              tmp_path / "big.csv", "--model", "push", "--n-iter", "2", "--quiet",
                              "--out-dir", tmp_path / "figures")
    one_line_error(status, err, "rankcore: error: push: ", f"big.csv, line {line}: the objective",
                   "got the grade 1100.0")


@pytest.mark.parametrize("more", [[], ["--ci", "0.9"]])
def test_evaluate_names_an_oversized_grade_by_its_line(files, tmp_path, more):
    d, _, _, _ = files
    status, _, err = run_main("fit", d / "in_order.csv", "--qid", "query", "--label", "grade", "--n-iter", "2",
                              "--quiet", "-o", tmp_path / "m.json")
    assert status == 0, err
    line = _big_grade_file(tmp_path)
    status, _, err = run_main("evaluate", tmp_path / "m.json", tmp_path / "big.csv", "--qid", "query", "--label",
                              "grade", *more)
    one_line_error(status, err, f"big.csv, line {line}: metric 'ndcg@k:", "got the grade 1100.0; use gain=linear")

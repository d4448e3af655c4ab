"""Rankings within queries on the command line: LIBSVM ``qid:``, CSV ``--qid``, ``evaluate``, ``score``, ``auto``."""

import csv
import io
import json

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from rankcore.cli.datasets import DataError, load_data


def grouped(seed, n_queries=30):
    """Graded rows of queries of 3..12 rows, shuffled so that no query is contiguous; scores with ties."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 13, size=n_queries)
    qid = np.repeat(np.arange(100, 100 + n_queries), sizes)
    X = np.round(rng.normal(size=(qid.size, 3)), 1)
    grade = np.clip(np.round(X[:, 0] + rng.normal(scale=0.7, size=qid.size) + 1), 0, 4)
    order = rng.permutation(qid.size)
    return qid[order], X[order], grade[order]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("queries")
    qid, X, grade = grouped(0)
    with open(d / "test.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["query", "a", "b", "c", "grade"])
        for q, row, g in zip(qid, X, grade):
            writer.writerow([f"q{q}", *map(repr, row.tolist()), repr(float(g))])
    with open(d / "test.svm", "w") as fh:
        for q, row, g in zip(qid, X, grade):
            features = " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row.tolist()) if v != 0)
            fh.write(f"{g:g} qid:{q} {features}\n")
    # a model of one list: fitted by the command line without the query ids, relevant = grade >= 2
    with open(d / "train.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["query", "a", "b", "c", "label"])
        for q, row, g in zip(qid, X, grade):
            writer.writerow([f"q{q}", *map(repr, row.tolist()), int(g >= 2)])
    status, _, err = run_main("fit", d / "train.csv", "--drop", "query", "--n-iter", "20", "-o", d / "m.json", "-q")
    assert status == 0, err
    return d, qid, X, grade


def scores_of(d, data, *options):
    status, out, err = run_main("score", d / "m.json", d / data, *options)
    assert status == 0, err
    return list(csv.reader(io.StringIO(out)))


# --------------------------------------------------------------------------
# reading query ids
# --------------------------------------------------------------------------


def test_libsvm_qid_is_the_rows_query_not_a_feature_and_grades_are_kept(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text("2.5 qid:7 1:0.5 3:2\n0 qid:3 2:1 # comment\n4 qid:7 1:1\n")
    data = load_data(path)
    np.testing.assert_array_equal(data.X, [[0.5, 0, 2], [0, 1, 0], [1, 0, 0]])
    np.testing.assert_array_equal(data.y, [2.5, 0, 4])
    np.testing.assert_array_equal(data.qid, [7, 3, 7])
    assert data.qid_name == "qid" and data.feature_names == ["f1", "f2", "f3"] and data.qid.dtype == np.int64


@pytest.mark.parametrize("text, message", [
    ("1 qid:1 1:2\n0 1:1\n", "d.svm, line 2: the row has no qid:, but the rows before it do"),
    ("1 1:2\n0 qid:4 1:1\n", "d.svm, line 2: the row has qid:4, but the rows before it do not"),
    ("1 qid:a 1:2\n", "d.svm, line 1: malformed query id 'qid:a' (expected qid:n, an integer)"),
    ("1 qid:1 qid:2 1:2\n", "d.svm, line 1: two qid: fields on one row"),
])
def test_libsvm_bad_query_ids_name_the_line(tmp_path, text, message):
    path = tmp_path / "d.svm"
    path.write_text(text)
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_data(path)


def test_a_libsvm_file_without_qid_has_no_queries(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text("1 1:2\n0 2:1\n")
    assert load_data(path).qid is None


def test_csv_qid_column_is_read_aside(files):
    d, qid, X, grade = files
    data = load_data(d / "test.csv", label="grade", qid="query")
    assert data.feature_names == ["a", "b", "c"] and data.kept == {}
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.qid, [f"q{q}" for q in qid])
    assert data.qid_name == "query"
    both = load_data(d / "test.csv", label="grade", qid="query", keep=["query"])
    np.testing.assert_array_equal(both.kept["query"], both.qid)


@pytest.mark.parametrize("cell", ["", "NA", "nan", " "])
def test_csv_missing_query_id_names_the_line_and_option(tmp_path, cell):
    path = tmp_path / "d.csv"
    path.write_text(f"q,a,label\n1,0.5,1\n{cell},0.1,0\n")
    with pytest.raises(DataError, match=r"d.csv, line 3: missing query id in column 'q' \(--qid\)"):
        load_data(path, qid="q")


def test_csv_qid_errors(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("query,a,label\n1,0.5,1\n2,0.1,0\n")
    with pytest.raises(DataError, match=r"no query-id column 'qry' \(--qid\) in the header .*did you mean 'query'"):
        load_data(path, qid="qry")
    with pytest.raises(DataError, match=r"the query-id column 'label' \(--qid\) is the label or dropped"):
        load_data(path, qid="label")
    with pytest.raises(DataError, match=r"the query-id column 'query' \(--qid\) is the label or dropped"):
        load_data(path, qid="query", drop=["query"])
    np.save(tmp_path / "d.npy", np.ones((3, 3)))
    with pytest.raises(DataError, match=r"only CSV files name a column of query ids \(--qid\); this is a npy"):
        load_data(tmp_path / "d.npy", qid="q")


# --------------------------------------------------------------------------
# evaluate
# --------------------------------------------------------------------------

SPECS = ["ndcg@k:5", "ndcg@k:3,convention=lightgbm", "map", "mrr", "err@k:4", "map@k:3"]


@pytest.mark.parametrize("data, options", [("test.csv", ["--qid", "query", "--label", "grade"]), ("test.svm", [])])
def test_evaluate_within_queries_equals_the_library(files, data, options):
    d, qid, X, grade = files
    rows = scores_of(d, data, *options)
    assert rows[0] == ["query" if data.endswith(".csv") else "qid", "score"]
    ids = [r[0] for r in rows[1:]]
    scores = np.array([float(r[1]) for r in rows[1:]])
    expected = rankcore.evaluate(grade, scores, SPECS, qid=ids)
    status, out, err = run_main("evaluate", d / "m.json", d / data, *options, "--metrics", ",".join(SPECS),
                                "--table-format", "json")
    assert status == 0, err
    assert {row["metric"]: row["value"] for row in json.loads(out)} == expected
    # one list (the query ids ignored) gives other numbers: the queries are used
    assert rankcore.evaluate(grade, scores, "map")["map"] != expected["map"]


def test_evaluate_intervals_resample_queries(files):
    d, qid, X, grade = files
    options = ["--qid", "query", "--label", "grade"]
    rows = scores_of(d, "test.csv", *options)
    ids, scores = [r[0] for r in rows[1:]], np.array([float(r[1]) for r in rows[1:]])
    status, out, err = run_main("evaluate", d / "m.json", d / "test.csv", *options, "--metrics", "ndcg@k:5,mrr",
                                "--ci", "0.9", "--n-boot", "300", "--random-state", "4", "--table-format", "json")
    assert status == 0, err
    expected = rankcore.evaluate(grade, scores, ["ndcg@k:5", "mrr"], qid=ids, ci=0.9, n_boot=300, random_state=4)
    for row in json.loads(out):
        ci = expected[row["metric"]]
        assert (row["value"], row["lower"], row["upper"], row["method"]) == (ci.estimate, ci.lower, ci.upper,
                                                                              "bootstrap over queries")


def test_evaluate_with_queries_defaults_to_list_metrics(files):
    d, *_ = files
    status, out, err = run_main("evaluate", d / "m.json", d / "test.svm", "--table-format", "json")
    assert status == 0, err
    assert [row["metric"] for row in json.loads(out)] == ["ndcg@k:10", "map", "mrr"]


def test_evaluate_positive_judges_one_grade_relevant_within_queries(files):
    d, qid, X, grade = files
    rows = scores_of(d, "test.svm")
    scores = np.array([float(r[1]) for r in rows[1:]])
    status, out, err = run_main("evaluate", d / "m.json", d / "test.svm", "--positive", "4", "--metrics", "auc,map",
                                "--table-format", "json")
    assert status == 0, err
    expected = rankcore.evaluate((grade == 4).astype(int), scores, ["auc", "map"], qid=qid)
    assert {row["metric"]: row["value"] for row in json.loads(out)} == expected


def test_evaluate_bipartite_metric_on_grades_names_the_options(files):
    d, *_ = files
    status, _, err = run_main("evaluate", d / "m.json", d / "test.csv", "--qid", "query", "--label", "grade",
                              "--metrics", "ndcg@k:5,auc")
    one_line_error(status, err, "--metrics: auc judges 0/1 labels", "(--qid query) have the grades 0, 1, 2",
                   "--positive LABEL")


def test_evaluate_negative_or_text_grades_name_the_line(tmp_path, files):
    d, *_ = files
    path = tmp_path / "neg.svm"
    path.write_text("1 qid:1 1:0.5\n-1 qid:1 2:1\n")
    status, _, err = run_main("evaluate", d / "m.json", path, "--metrics", "map")
    one_line_error(status, err, "neg.svm, line 2: with query ids (qid:) the labels are relevance grades >= 0, got -1")
    path = tmp_path / "text.csv"
    path.write_text("query,a,b,c,label\n1,0,0,0,good\n1,1,1,1,bad\n")
    status, _, err = run_main("evaluate", d / "m.json", path, "--qid", "query", "--metrics", "map")
    one_line_error(status, err, "with query ids (--qid query) the labels are relevance grades", "--positive")


def test_evaluate_of_a_model_within_queries_without_query_ids_names_qid(files, tmp_path):
    # the graded labels were refused as a bipartite ranking's with advice for --positive alone
    d, *_ = files
    status, _, err = run_main("fit", d / "test.csv", "--qid", "query", "--label", "grade", "--n-iter", "5", "-o",
                              tmp_path / "q.json", "-q")
    assert status == 0, err
    status, _, err = run_main("evaluate", tmp_path / "q.json", d / "test.csv", "--drop", "query", "--label", "grade")
    one_line_error(status, err, "q.json was fitted within queries and ranks each query's rows by their grades; give "
                   "the rows' query ids (--qid COLUMN", "or --positive LABEL to judge all the rows as one list")
    status, out, err = run_main("evaluate", tmp_path / "q.json", d / "test.csv", "--drop", "query", "--label", "grade",
                                "--positive", "4", "--metrics", "auc")
    assert status == 0, err


def test_evaluate_of_a_model_within_queries_on_0_1_labels_without_query_ids_names_qid(files, tmp_path):
    # 0/1 labels were judged as one list of every query's rows, whose scores are not comparable across queries
    d, *_ = files
    status, _, err = run_main("fit", d / "train.csv", "--qid", "query", "--n-iter", "5", "-o", tmp_path / "q01.json",
                              "-q")
    assert status == 0, err
    assert rankcore.load_model(tmp_path / "q01.json").ranks_within_queries_
    status, _, err = run_main("evaluate", tmp_path / "q01.json", d / "train.csv", "--drop", "query")
    one_line_error(status, err, "q01.json was fitted within queries", "give the rows' query ids (--qid COLUMN",
                   "or --positive LABEL to judge all the rows as one list")
    status, out, err = run_main("evaluate", tmp_path / "q01.json", d / "train.csv", "--qid", "query",
                                "--metrics", "map")
    assert status == 0 and "map" in out, err
    status, out, err = run_main("evaluate", tmp_path / "q01.json", d / "train.csv", "--drop", "query",
                                "--positive", "1", "--metrics", "auc")           # one list, asked for
    assert status == 0 and "auc" in out, err


def test_evaluate_missing_qid_column_names_the_option(files):
    d, *_ = files
    status, _, err = run_main("evaluate", d / "m.json", d / "test.csv", "--qid", "session", "--label", "grade")
    one_line_error(status, err, "no query-id column 'session' (--qid)")


# --------------------------------------------------------------------------
# score
# --------------------------------------------------------------------------


def test_score_copies_the_query_ids_and_ranks_within_queries(files):
    d, qid, X, grade = files
    rows = scores_of(d, "test.csv", "--qid", "query", "--label", "grade", "--rank", "--with-label")
    assert rows[0] == ["query", "score", "grade", "rank"]
    ids = np.array([r[0] for r in rows[1:]])
    scores = np.array([float(r[1]) for r in rows[1:]])
    ranks = np.array([int(r[3]) for r in rows[1:]])
    np.testing.assert_array_equal(ids, [f"q{q}" for q in qid])
    for q in np.unique(ids):
        mine = ids == q
        expected = [1 + np.count_nonzero(scores[mine] > v) for v in scores[mine]]   # ties share the best rank
        np.testing.assert_array_equal(ranks[mine], expected)
    # the same scores as without query ids
    plain = scores_of(d, "test.csv", "--drop", "query", "--label", "grade")
    np.testing.assert_array_equal([float(r[0]) for r in plain[1:]], scores)


def test_score_top_writes_each_querys_best_rows_best_first(files):
    d, qid, X, grade = files
    every = scores_of(d, "test.csv", "--qid", "query", "--label", "grade")
    ids = np.array([r[0] for r in every[1:]])
    scores = np.array([float(r[1]) for r in every[1:]])
    rows = scores_of(d, "test.csv", "--qid", "query", "--label", "grade", "--top", "3", "--rank")
    assert rows[0] == ["query", "score", "rank"]
    # the queries in the order of their first row, each its 3 best rows (all of a shorter one), best first
    expected = []
    for q in dict.fromkeys(ids):
        mine = np.flatnonzero(ids == q)
        best = mine[np.lexsort((mine, -scores[mine]))][:3]
        expected += [[q, repr(float(scores[i])), str(1 + np.count_nonzero(scores[mine] > scores[i]))] for i in best]
    assert rows[1:] == expected
    # without query ids: the whole file's best rows
    top = scores_of(d, "test.csv", "--drop", "query", "--label", "grade", "--top", "2")
    assert [float(r[0]) for r in top[1:]] == sorted(scores, reverse=True)[:2]


@pytest.mark.parametrize("count", ["0", "-1", "ten"])
def test_score_top_refuses_a_count_below_one(files, count, capsys):
    d, *_ = files
    with pytest.raises(SystemExit):
        rankcore.cli.main(["score", str(d / "m.json"), str(d / "test.csv"), "--qid", "query", "--label", "grade",
                           "--top", count])
    assert f"--top: expected a count of rows >= 1 (e.g. --top 10), got '{count}'" in capsys.readouterr().err


def test_score_libsvm_with_qid_and_id_column_order(files, tmp_path):
    d, qid, *_ = files
    rows = scores_of(d, "test.svm")
    assert rows[0] == ["qid", "score"]
    np.testing.assert_array_equal([int(r[0]) for r in rows[1:]], qid)
    rows = scores_of(d, "test.csv", "--id", "query", "--qid", "query", "--label", "grade")
    assert rows[0] == ["query", "score"]                # one column, both the identifier and the query
    lines = (d / "test.csv").read_text().splitlines()
    (tmp_path / "docs.csv").write_text("\n".join(f"{'doc' if i == 0 else f'd{i}'},{line}"
                                                 for i, line in enumerate(lines)) + "\n")
    status, out, err = run_main("score", d / "m.json", tmp_path / "docs.csv", "--id", "doc", "--qid", "query",
                                "--label", "grade")
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["doc", "query", "score"] and rows[1][:2] == ["d1", f"q{qid[0]}"]


# --------------------------------------------------------------------------
# commands that fit
# --------------------------------------------------------------------------


AUTO = ["--candidates", "trees:n_iter=15,stumps:n_iter=15", "--cv", "3", "--no-blend", "--no-bag-folds"]


def test_auto_chooses_within_queries_by_ndcg_on_csv_and_libsvm(files, tmp_path):
    d, qid, X, grade = files
    status, out, err = run_main("auto", d / "test.csv", "--qid", "query", "--label", "grade", *AUTO,
                                "-o", tmp_path / "csv.json", "--report", tmp_path / "auto.html",
                                "--progress", "none")
    assert status == 0, err
    assert "queries" in err and "choosing by ndcg@k:10" in err, err
    assert "ndcg@k:10 (mean ± sd)" in out
    status, _, err = run_main("auto", d / "test.svm", *AUTO, "-o", tmp_path / "svm.json", "-q")
    assert status == 0, err
    by_csv, by_svm = (rankcore.load_model(tmp_path / f"{n}.json") for n in ("csv", "svm"))
    assert by_csv.ranks_within_queries_ and by_csv.metric_ == "ndcg@k:10"
    assert by_csv.n_queries_ == np.unique(qid).size
    np.testing.assert_allclose(by_csv.decision_function(X), by_svm.decision_function(X), rtol=0, atol=1e-9)
    assert "ndcg@k against k" in (tmp_path / "auto.html").read_text()


def test_auto_within_queries_is_the_same_on_shuffled_rows(files, tmp_path):
    d, qid, X, grade = files
    lines = (d / "test.csv").read_text().splitlines()
    order = np.random.default_rng(3).permutation(len(lines) - 1)
    (tmp_path / "shuffled.csv").write_text("\n".join([lines[0], *(lines[1 + i] for i in order)]) + "\n")
    for name, path in (("a", d / "test.csv"), ("b", tmp_path / "shuffled.csv")):
        status, _, err = run_main("auto", path, "--qid", "query", "--label", "grade", *AUTO, "--metric", "map",
                                  "-o", tmp_path / f"{name}.json", "-q")
        assert status == 0, err
    a, b = (rankcore.load_model(tmp_path / f"{n}.json") for n in "ab")
    assert a.best_candidate_ == b.best_candidate_ and a.metric_ == "map"
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=0, atol=1e-9)


def test_auto_with_query_ids_refuses_negative_grades(files, tmp_path):
    d, *_ = files
    text = (d / "test.csv").read_text().splitlines()
    first = text[1].rsplit(",", 1)[0] + ",-1.0"
    (tmp_path / "neg.csv").write_text("\n".join([text[0], first, *text[2:]]) + "\n")
    status, _, err = run_main("auto", tmp_path / "neg.csv", "--qid", "query", "--label", "grade", *AUTO,
                              "-o", tmp_path / "out.json")
    one_line_error(status, err, "relevance grades >= 0, got -1")
    assert not (tmp_path / "out.json").exists()


def test_evaluate_is_the_same_on_shuffled_rows_with_float_grades(files, tmp_path):
    d, *_ = files
    lines = (d / "test.svm").read_text().splitlines()
    rng = np.random.default_rng(11)
    halves = [f"{float(line.split(' ', 1)[0]) / 2!r} {line.split(' ', 1)[1]}" for line in lines]   # grades 0..2
    (tmp_path / "a.svm").write_text("\n".join(halves) + "\n")
    (tmp_path / "b.svm").write_text("\n".join(halves[i] for i in rng.permutation(len(halves))) + "\n")
    found, specs = [], ",".join(spec for spec in SPECS if "ties" not in spec and "lightgbm" not in spec)
    for name in ("a.svm", "b.svm"):
        status, out, err = run_main("evaluate", d / "m.json", tmp_path / name, "--metrics", specs,
                                    "--table-format", "json")
        assert status == 0, err
        found.append({row["metric"]: row["value"] for row in json.loads(out)})
    assert found[0].keys() == found[1].keys()
    for key in found[0]:
        assert found[0][key] == pytest.approx(found[1][key], abs=1e-12)


def test_compare_within_queries_on_large_data_monitors_the_test_split(tmp_path):
    # within queries early_stopping="auto" never stops: compare above 10,000 rows announced a hold-out ("valid
    # ndcg@k:10") no fit computed, and drew no test curve
    rng = np.random.default_rng(5)
    query = np.repeat(np.arange(1, 2001), 8)          # 16,000 rows: the training split above 10,000
    X = rng.normal(size=(query.size, 3)).round(2)
    g = np.clip(np.round(X[:, 0] + rng.normal(scale=0.8, size=query.size)), 0, 3).astype(int)
    path = tmp_path / "large.svm"
    path.write_text("".join(f"{g[i]} qid:{query[i]} 1:{X[i, 0]} 2:{X[i, 1]} 3:{X[i, 2]}\n" for i in range(query.size)))
    status, out, err = run_main("compare", path, "--price", "identity", "--n-iter", "3", "--out-dir", tmp_path / "out",
                                "--progress", "lines", "--learner", "stumps")
    assert status == 0, err
    assert "monitoring test ndcg@k:8" in out + err and "valid ndcg" not in out + err


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_qid_names_the_query_column_of_a_csv_file_beside_a_libsvm_one(files, tmp_path, command):
    # a LIBSVM file's queries are its qid: fields, a CSV file's its --qid column: with --qid refused for the
    # LIBSVM file, a CSV --validation or --test file beside it had no way to give its queries
    d, qid, X, grade = files
    with open(tmp_path / "named.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["query", "f1", "f2", "f3", "grade"])
        for q, row, g in zip(qid, X, grade):
            writer.writerow([q, *map(repr, row.tolist()), repr(float(g))])
    option = "--validation" if command == "fit" else "--test"
    common = ("--learner", "stumps", "--n-iter", "5", "--random-state", "0", "-q", "-f")
    outputs = {}
    for train, other, extra in ((d / "test.svm", d / "test.svm", ()),
                                (d / "test.svm", tmp_path / "named.csv", ("--qid", "query", "--label", "grade")),
                                (tmp_path / "named.csv", d / "test.svm", ("--qid", "query", "--label", "grade"))):
        out = tmp_path / f"{train.suffix}{other.suffix}"
        target = ("--out", out.with_suffix(".json")) if command == "fit" else ("--out-dir", out, "--no-plots")
        status, stdout, err = run_main(command, train, option, other, *extra, *common, *target)
        assert status == 0, err
        outputs[train.suffix, other.suffix] = (
            rankcore.load_model(out.with_suffix(".json")).validation_scores_ if command == "fit" else stdout)
    first, *rest = outputs.values()
    for other in rest:
        if command == "fit":
            np.testing.assert_allclose(other, first)
        else:
            assert other == first
    # a --qid that no CSV file beside it has is still the LIBSVM file's refusal
    status, _, err = run_main(command, d / "test.svm", option, tmp_path / "named.csv", "--qid", "nope",
                              "--label", "grade", *common, *target)
    assert status == 2 and "only CSV files name a column of query ids" in err, err


def test_score_with_label_of_a_libsvm_file_names_the_column_label(files):
    # the label of a LIBSVM row is its first field, which messages call so; a column "first field" is no name
    # another tool looks for
    d, qid, X, grade = files
    rows = scores_of(d, "test.svm", "--with-label", "--rank")
    assert rows[0] == ["qid", "score", "label", "rank"]
    np.testing.assert_array_equal([float(row[2]) for row in rows[1:]], grade)
    assert scores_of(d, "test.csv", "--qid", "query", "--label", "grade", "--with-label")[0] == \
        ["query", "score", "grade"]


@pytest.mark.parametrize("label", ["rank", "score"])
def test_score_names_a_label_column_called_as_an_output_column_label(files, tmp_path, label):
    # a grade column called "rank" (or "score") beside the written rank and score would be a header naming one of
    # them twice, which a CSV reader reads as its first column
    d, qid, X, grade = files
    renamed = tmp_path / "renamed.csv"
    renamed.write_text((d / "test.csv").read_text().replace(",grade\n", f",{label}\n", 1))
    status, out, err = run_main("score", d / "m.json", renamed, "--qid", "query", "--label", label, "--with-label",
                                "--rank")
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["query", "score", "label", "rank"]
    np.testing.assert_array_equal([float(row[2]) for row in rows[1:]], grade)


def test_score_refuses_query_ids_named_as_the_score_column(files, tmp_path):
    d, qid, X, grade = files
    renamed = tmp_path / "renamed.csv"
    renamed.write_text((d / "test.csv").read_text().replace("query,", "score,", 1))
    status, _, err = run_main("score", d / "m.json", renamed, "--qid", "score", "--label", "grade")
    assert status == 2 and "would name two columns 'score'" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("command", ["score", "explain"])
def test_id_of_a_libsvm_file_names_the_option_and_the_comment(files, command):
    # a LETOR row's document id is in its comment: --id docid said "text columns to read by category or to copy"
    d, *_ = files
    one_line_error(*run_main(command, d / "m.json", d / "test.svm", "--id", "docid")[::2],
                   "test.svm: --id docid: only CSV files have a column to copy as the rows' identifier",
                   "a LIBSVM row's comment after # is not read", "leave out --id")


@pytest.mark.parametrize("command", ["fit", "compare", "auto"])
def test_qid_of_a_csv_file_beside_a_libsvm_file_without_queries_is_one_error_naming_both(files, tmp_path, command):
    # --qid went to the CSV file alone: the training rows were one list and the CSV file's read was refused with
    # "`rankcore fit` does not fit within queries; `rankcore fit DATA --qid query` ... do"
    d, *_ = files
    one_list = tmp_path / "one_list.svm"
    one_list.write_text("".join(" ".join(f for f in line.split() if not f.startswith("qid:")) + "\n"
                                for line in (d / "test.svm").read_text().splitlines()))
    option = "--test" if command == "compare" else "--validation"
    target = ("--out-dir", tmp_path / "c", "--no-plots") if command == "compare" else ("--out", tmp_path / "m.json")
    one_line_error(*run_main(command, one_list, option, d / "test.csv", "--qid", "query", "--label", "grade",
                             "-q", *target)[::2],
                   "--qid query: names the query ids of the CSV file beside", "one_list.svm, which gives none",
                   "--drop query")


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_a_missing_csv_file_beside_a_libsvm_one_is_said_before_the_options_naming_its_columns(files, tmp_path,
                                                                                               command):
    # --label grade was the LIBSVM file's refusal ("leave it out for this file"): a typo in the other file's name
    # read as a wrong option
    d, *_ = files
    option = "--test" if command == "compare" else "--validation"
    target = ("--out-dir", tmp_path / "c", "--no-plots") if command == "compare" else ("--out", tmp_path / "m.json")
    one_line_error(*run_main(command, d / "test.svm", option, tmp_path / "nmaed.csv", "--qid", "query", "--label",
                             "grade", "-q", *target)[::2], "nmaed.csv: no such file")


def test_compare_over_too_few_test_queries_keeps_the_intervals_and_leaves_the_test_out(tmp_path):
    # 3 test queries: the paired bootstrap gave p-values near 0 (no paired test reaches 5% on so few); the intervals
    # of each model stood or fell with it (the whole --ci tables were dropped)
    qid, X, grade = grouped(1, n_queries=23)
    with open(tmp_path / "data.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["query", "a", "b", "c", "grade"])
        for q, row, g in zip(qid, X, grade):
            writer.writerow([f"q{q}", *map(repr, row.tolist()), repr(float(g))])
    test = ["q120", "q121", "q122"]
    with open(tmp_path / "data.csv") as fh, open(tmp_path / "train.csv", "w") as tr, open(tmp_path / "test.csv",
                                                                                        "w") as te:
        header = fh.readline()
        tr.write(header), te.write(header)
        for line in fh:
            (te if line.split(",")[0] in test else tr).write(line)
    status, out, err = run_main("compare", tmp_path / "train.csv", "--test", tmp_path / "test.csv", "--qid", "query",
                                "--label", "grade", "--price", "identity,pow:4", "--n-iter", "3", "--no-plots",
                                "--ci", "--n-boot", "100", "--table-format", "json", "--out-dir", tmp_path / "out")
    assert status == 0, err
    assert "differences have no interval or p-value" in err and "at least 6 queries" in err
    found = json.loads(out)
    assert found["intervals"] and all(row["lower"] is not None for row in found["intervals"])
    assert found["differences"] and all(row["p"] is None and row["delta"] is not None
                                        for row in found["differences"])


def test_compare_csv_with_intervals_is_one_parseable_csv(tmp_path):
    # three tables one after the other, titled by "# ..." lines, were no CSV a reader parses
    import io

    path = tmp_path / "data.svm"
    qid, X, grade = grouped(2, n_queries=40)
    order = np.argsort(qid, kind="stable")
    path.write_text("".join(f"{int(grade[i])} qid:{qid[i]} 1:{X[i, 0]} 2:{X[i, 1]} 3:{X[i, 2]}\n" for i in order))
    status, out, err = run_main("compare", path, "--price", "identity,pow:4", "--n-iter", "3", "--no-plots",
                                "--metrics", "ndcg@3", "--ci", "0.9", "--n-boot", "100", "--table-format", "csv",
                                "--out-dir", tmp_path / "out", "--quiet")
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["table"] for r in rows} == {"metrics", "intervals", "differences"}
    assert all(set(r) == set(rows[0]) and None not in r for r in rows)      # one header for every row

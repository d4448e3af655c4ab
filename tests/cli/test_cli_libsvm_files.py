"""LIBSVM files as the learning-to-rank collections and LightGBM ship them: indices matched by number across
files, ``.txt`` and extension-less names recognized by their first row, query sizes in a ``.query`` file."""

import contextlib
import gzip
import io
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import rankcore
from rankcore.cli import main
from rankcore.cli.datasets import DataError, detect_format, load_data


def run_main(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def write(path, text: str):
    path.write_text(text)
    return path


def scores_of(out_file) -> np.ndarray:
    lines = out_file.read_text().splitlines()
    column = lines[0].split(",").index("score")
    return np.array([float(line.split(",")[column]) for line in lines[1:]])


def _files(tmp_path, zero_based: bool, seed: int):
    """A training file with every feature, and a test file whose first feature is zero on every row (so it never
    appears in the test file, whose lowest index then says nothing of the base)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(240, 4))
    y = (X @ [1.0, -2.0, 0.5, 1.5] + rng.normal(size=240) > 0).astype(int)
    X_test = rng.normal(size=(60, 4))
    X_test[:, 0] = 0.0
    y_test = (X_test[:, 1] > 0).astype(int)
    dump_svmlight_file(X, y, str(tmp_path / "train.svm"), zero_based=zero_based)
    dump_svmlight_file(X_test, y_test, str(tmp_path / "test.svm"), zero_based=zero_based)
    return X_test


@pytest.mark.parametrize("zero_based", [True, False], ids=["zero-based", "one-based"])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_test_file_without_the_first_index_is_scored_on_the_right_columns(tmp_path, zero_based, seed):
    X_test = _files(tmp_path, zero_based, seed)
    status, _, err = run_main("fit", tmp_path / "train.svm", "--n-iter", "30", "--out", tmp_path / "m.json", "-q")
    assert status == 0, err
    status, _, err = run_main("score", tmp_path / "m.json", tmp_path / "test.svm", "--out", tmp_path / "s.csv")
    assert status == 0, err
    # the rows as scikit-learn reads them when told the base
    X_sk, _ = load_svmlight_file(str(tmp_path / "test.svm"), n_features=4, zero_based=zero_based)
    np.testing.assert_allclose(X_sk.toarray(), X_test, rtol=1e-15)
    model = rankcore.load_model(tmp_path / "m.json")
    expected = model.decision_function(pd.DataFrame(X_sk.toarray(), columns=model.feature_names_in_))
    np.testing.assert_array_equal(scores_of(tmp_path / "s.csv"), expected)


def test_the_model_keeps_the_indices_as_its_feature_names(tmp_path):
    _files(tmp_path, True, 0)
    assert run_main("fit", tmp_path / "train.svm", "--n-iter", "5", "--out", tmp_path / "m.json", "-q")[0] == 0
    assert list(rankcore.load_model(tmp_path / "m.json").feature_names_in_) == ["f0", "f1", "f2", "f3"]


def test_a_validation_file_is_read_into_the_training_files_columns(tmp_path):
    _files(tmp_path, True, 2)
    train = load_data(tmp_path / "train.svm")
    alone = load_data(tmp_path / "test.svm")
    beside = load_data(tmp_path / "test.svm", feature_names=train.feature_names)
    assert alone.feature_names == ["f1", "f2", "f3"]          # one file alone looks one-based
    assert beside.feature_names == ["f0", "f1", "f2", "f3"]
    np.testing.assert_array_equal(beside.X[:, 0], 0.0)
    np.testing.assert_array_equal(beside.X[:, 1:], alone.X)
    status, _, err = run_main("fit", tmp_path / "train.svm", "--n-iter", "5", "--validation", tmp_path / "test.svm",
                              "--out", tmp_path / "m.json", "-q")
    assert status == 0, err


def test_an_index_the_model_never_saw_is_an_error_unless_its_value_is_zero(tmp_path):
    write(tmp_path / "train.svm", "1 1:0.5 2:1\n0 1:-1 2:0.5\n1 1:2 2:-1\n0 1:0 2:2\n")
    assert run_main("fit", tmp_path / "train.svm", "--n-iter", "5", "--out", tmp_path / "m.json", "-q")[0] == 0
    write(tmp_path / "zeros.svm", "1 1:0.5 2:1 3:0 7:0\n0 2:3\n")
    assert run_main("score", tmp_path / "m.json", tmp_path / "zeros.svm", "--out", tmp_path / "s.csv")[0] == 0
    write(tmp_path / "unseen.svm", "1 1:0.5 2:1\n0 0:0.25 2:3\n")
    status, _, err = run_main("score", tmp_path / "m.json", tmp_path / "unseen.svm", "--out", tmp_path / "t.csv")
    assert status == 2
    assert "unseen.svm, line 2: feature index 0 (value 0.25) names no feature the rows were fitted on" in err
    assert "f1, f2" in err


def test_index_names_are_the_only_names_read_by_index(tmp_path):
    path = write(tmp_path / "d.svm", "1 1:2 3:1\n")
    np.testing.assert_array_equal(load_data(path, feature_names=["f3", "f1"]).X, [[1, 2]])
    # names that are not indices (a CSV model's) say nothing of a LIBSVM file's: its own columns, by position
    assert load_data(path, feature_names=["a", "b", "c"]).feature_names == ["f1", "f2", "f3"]
    assert load_data(path, feature_names=["f1", "f01"]).feature_names == ["f1", "f2", "f3"]


LETOR_ROWS = ("2 qid:10 1:0.031310 2:0.666667 3:0.500000 #docid = GX008-86-4444840 inc = 1 prob = 0.086622\n"
              "0 qid:10 1:0.078682 2:0.166667 3:0.500000 #docid = GX037-06-11625428 inc = 0.0 prob = 0.0314\n"
              "1 qid:11 1:0.004920 2:0.000000 3:0.000000 #docid = GX044-65-4346315 inc = 1 prob = 0.4\n"
              "0 qid:11 1:0.900000 2:1.000000 3:0.250000 #docid = GX044-65-4346316 inc = 1 prob = 0.1\n")


@pytest.mark.parametrize("name, text, fmt", [
    ("train.txt", LETOR_ROWS, "libsvm"),
    ("Fold1.dat", "\n\n" + LETOR_ROWS, "libsvm"),
    ("dumped.txt", "# Generated by dump_svmlight_file\n# query_id\n" + LETOR_ROWS, "libsvm"),
    ("rank.train", "0 1:0.5 7:1\n1 2:3\n", "libsvm"),
    ("rank.train", "-1 qid:4\n", "libsvm"),
    ("d.txt", "a,b,label\n1,2,0\n", "csv"),
    ("d.txt", "a b label\n1 2 0\n", "csv"),
    ("d.txt", "1.5\n2\n", "libsvm"),
    ("lab.txt", "1\n0 1:0.3\n1 1:0.9\n", "libsvm"),
    ("d.dat", "", "csv"),
], ids=["letor-txt", "blank-lines-first", "comments-first", "lightgbm-example", "qid-only", "csv-txt", "spaced-header",
        "one-number", "label-only-row", "empty"])
def test_text_names_are_told_apart_by_their_first_row(tmp_path, name, text, fmt):
    assert detect_format(write(tmp_path / name, text)) == fmt


def test_a_gzipped_letor_file_is_read_as_libsvm(tmp_path):
    with gzip.open(tmp_path / "train.txt.gz", "wt") as fh:
        fh.write(LETOR_ROWS)
    data = load_data(tmp_path / "train.txt.gz")
    assert data.format == "libsvm" and data.qid.tolist() == [10, 10, 11, 11]


def test_a_name_without_a_known_extension_and_no_libsvm_row_is_still_an_error(tmp_path):
    with pytest.raises(DataError, match="cannot tell the format from the name"):
        load_data(write(tmp_path / "rank.train", "a,b\n1,2\n"))


ROWS = "".join(f"{g} 1:{v} 2:{(7 * i) % 5}\n" for i, (g, v) in enumerate(zip([2, 0, 1, 0, 0, 1, 0, 2, 1, 0],
                                                                             range(10))))


@pytest.mark.parametrize("suffix", [".query", ".group"])
def test_query_sizes_beside_the_file_are_its_queries(tmp_path, suffix):
    write(tmp_path / "rank.train", ROWS)
    write(tmp_path / f"rank.train{suffix}", "3\n4\n\n3\n")
    data = load_data(tmp_path / "rank.train")
    assert data.qid.tolist() == [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    assert data.query_file == str(tmp_path / f"rank.train{suffix}")


def test_a_gzipped_files_query_file_may_drop_the_gz(tmp_path):
    with gzip.open(tmp_path / "rank.train.gz", "wt") as fh:
        fh.write(ROWS)
    write(tmp_path / "rank.train.query", "5\n5\n")
    assert load_data(tmp_path / "rank.train.gz").qid.tolist() == [0] * 5 + [1] * 5


@pytest.mark.parametrize("text, message", [
    ("3\n4\n", "its 2 query sizes add up to 7 rows, but"),
    ("3\n4\n4\n", "its 3 query sizes add up to 11 rows"),
    ("3\n0\n7\n", "line 2: expected a query size (a whole number >= 1, of at most 18 digits), got '0'"),
    ("3\n2.5\n", "line 2: expected a query size"),
    ("3\n\u00b2\n", "line 2: expected a query size"),
    ("3\n-4\n", "line 2: expected a query size"),
], ids=["short", "long", "zero", "fraction", "superscript", "negative"])
def test_a_query_file_that_does_not_fit_the_rows_is_an_error_naming_it(tmp_path, text, message):
    write(tmp_path / "rank.train", ROWS)
    write(tmp_path / "rank.train.query", text)
    with pytest.raises(DataError, match="rank.train.query") as info:
        load_data(tmp_path / "rank.train")
    assert message in str(info.value)


def test_qid_fields_beside_a_query_file_that_agrees_are_kept(tmp_path):
    write(tmp_path / "d.svm", "1 qid:7 1:1\n0 qid:7 1:2\n1 qid:3 1:0\n")
    write(tmp_path / "d.svm.query", "2\n1\n")
    data = load_data(tmp_path / "d.svm")
    assert data.qid.tolist() == [7, 7, 3] and data.query_file is None


@pytest.mark.parametrize("sizes, row", [("1\n2\n", 2), ("3\n", 3), ("1\n1\n1\n", 2)],
                         ids=["moved", "merged", "split"])
def test_a_query_file_contradicting_the_qid_fields_is_an_error(tmp_path, sizes, row):
    write(tmp_path / "d.svm", "1 qid:7 1:1\n0 qid:7 1:2\n1 qid:3 1:0\n")
    write(tmp_path / "d.svm.query", sizes)
    with pytest.raises(DataError, match=f"d.svm.query: its query sizes contradict the qid: fields of .*near row {row}"):
        load_data(tmp_path / "d.svm")


def test_lightgbms_layout_fits_and_scores_within_queries(tmp_path):
    rng = np.random.default_rng(5)
    sizes = rng.integers(3, 12, size=30)
    X = rng.normal(size=(sizes.sum(), 3))
    y = np.clip(np.round(X[:, 0] + 0.5 * rng.normal(size=len(X)) + 1), 0, 3).astype(int)
    dump_svmlight_file(X, y, str(tmp_path / "rank.train"), zero_based=False)
    (tmp_path / "rank.train.query").write_text("".join(f"{s}\n" for s in sizes))
    status, _, err = run_main("fit", tmp_path / "rank.train", "--learner", "trees", "--n-iter", "10",
                              "--out", tmp_path / "m.json", "-q")
    assert status == 0, err
    assert rankcore.load_model(tmp_path / "m.json").ranks_within_queries_
    status, out, err = run_main("evaluate", tmp_path / "m.json", tmp_path / "rank.train")
    assert status == 0, err
    assert "ndcg@k:10" in out
    assert run_main("score", tmp_path / "m.json", tmp_path / "rank.train", "--out", tmp_path / "s.csv")[0] == 0
    header = (tmp_path / "s.csv").read_text().splitlines()[0]
    assert header == "qid,score"
    qid = np.repeat(np.arange(len(sizes)), sizes)
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "s.csv", delimiter=",", skiprows=1)[:, 0], qid)


def test_one_list_commands_say_where_the_ignored_queries_came_from(tmp_path):
    from rankcore.cli._common import load

    class Args:
        label = positive = data_format = qid = categorical = None
        drop = ""
        command = "auto"

    write(tmp_path / "rank.train", ROWS)
    write(tmp_path / "rank.train.query", "3\n4\n3\n")
    with pytest.warns(UserWarning, match=r"the query ids \(.*rank\.train\.query\) are ignored"):
        data = load(Args(), str(tmp_path / "rank.train"))
    assert data.qid is None


def _csv_copy(path_svm, path_csv, header):
    data = load_data(path_svm)
    rows = [",".join(header + ["label"])] + [",".join([repr(float(v)) for v in x] + [str(int(label))])
                                             for x, label in zip(data.X, data.y)]
    path_csv.write_text("\n".join(rows) + "\n")
    return data


def test_a_csv_file_is_matched_by_name_whatever_the_model_and_a_libsvm_one_by_index_or_position(tmp_path):
    _files(tmp_path, False, 3)
    train = _csv_copy(tmp_path / "train.svm", tmp_path / "train.csv", ["a", "b", "c", "d"])
    _csv_copy(tmp_path / "train.svm", tmp_path / "named.csv", ["f1", "f2", "f3", "f4"])
    assert run_main("fit", tmp_path / "train.svm", "--n-iter", "10", "--out", tmp_path / "svm.json", "-q")[0] == 0
    assert run_main("fit", tmp_path / "train.csv", "--n-iter", "10", "--out", tmp_path / "csv.json", "-q")[0] == 0
    for model, data in [("svm.json", "named.csv"), ("csv.json", "train.svm")]:
        status, _, err = run_main("score", tmp_path / model, tmp_path / data, "--out", tmp_path / "s.csv", "--force")
        assert status == 0, (model, data, err)
        fitted = rankcore.load_model(tmp_path / model)
        expected = fitted.decision_function(pd.DataFrame(train.X, columns=fitted.feature_names_in_))
        np.testing.assert_array_equal(scores_of(tmp_path / "s.csv"), expected)
    # a CSV file's names are its own: never taken by position because they look like indices, or do not
    swapped = pd.read_csv(tmp_path / "named.csv")[["f2", "f1", "f4", "f3", "label"]]
    swapped.columns = ["f1", "f2", "f3", "f4", "label"]
    swapped.to_csv(tmp_path / "renamed.csv", index=False)
    status, _, err = run_main("score", tmp_path / "csv.json", tmp_path / "named.csv", "--out", tmp_path / "t.csv")
    assert status == 2 and "no column 'a', 'b', 'c', 'd', a feature of the model" in err
    status, _, err = run_main("score", tmp_path / "svm.json", tmp_path / "train.csv", "--out", tmp_path / "t.csv")
    assert status == 2 and "no column 'f1', 'f2', 'f3', 'f4', a feature of the model" in err
    status, _, err = run_main("score", tmp_path / "svm.json", tmp_path / "renamed.csv", "--out", tmp_path / "r.csv")
    assert status == 0, err
    fitted = rankcore.load_model(tmp_path / "svm.json")
    expected = fitted.decision_function(swapped.drop(columns="label"))
    np.testing.assert_array_equal(scores_of(tmp_path / "r.csv"), expected)
    # a validation file: a LIBSVM one beside a CSV training file by position; a CSV one beside a LIBSVM one by name
    status, _, err = run_main("fit", tmp_path / "train.csv", "--n-iter", "5", "--validation", tmp_path / "train.svm",
                              "--out", tmp_path / "v.json", "-q")
    assert status == 0, err
    status, _, err = run_main("fit", tmp_path / "train.svm", "--n-iter", "5", "--validation", tmp_path / "train.csv",
                              "--out", tmp_path / "w.json", "-q")
    assert status == 2 and "no column 'f1', 'f2', 'f3', 'f4', a feature of the training data" in err
    status, _, err = run_main("fit", tmp_path / "train.svm", "--n-iter", "5", "--validation", tmp_path / "named.csv",
                              "--out", tmp_path / "w.json", "-q")
    assert status == 0, err


@pytest.mark.parametrize("command", ["fit", "score"])
def test_an_output_never_overwrites_the_query_file_of_an_input(tmp_path, command):
    # the query sizes are read with the data: an input, which --force does not make an output
    write(tmp_path / "rank.train", ROWS)
    write(tmp_path / "rank.train.query", "3\n4\n3\n")
    if command == "fit":
        argv = ["fit", tmp_path / "rank.train", "--n-iter", "3", "--out", tmp_path / "rank.train.query", "--force"]
    else:
        assert run_main("fit", tmp_path / "rank.train", "--n-iter", "3", "--out", tmp_path / "m.json", "-q")[0] == 0
        argv = ["score", tmp_path / "m.json", tmp_path / "rank.train", "--out", tmp_path / "rank.train.query",
                "--force"]
    status, _, err = run_main(*argv)
    assert status == 2 and "is the input DATA's query file; write the output to another file" in err
    assert (tmp_path / "rank.train.query").read_text() == "3\n4\n3\n"


def test_numbers_beyond_their_range_are_named_by_line(tmp_path):
    write(tmp_path / "b.svm", "1 qid:99999999999999999999 1:0.5\n0 qid:99999999999999999999 1:0.2\n")
    with pytest.raises(DataError, match=r"b\.svm, line 1: query id 'qid:99999999999999999999' is beyond the 64-bit"):
        load_data(tmp_path / "b.svm")
    write(tmp_path / "q.svm", "1 1:0.5\n0 1:0.2\n")
    write(tmp_path / "q.svm.query", "9" * 5000 + "\n")
    with pytest.raises(DataError, match=r"q\.svm\.query, line 1: expected a query size \(a whole number >= 1, of at "
                                        r"most 18 digits\)"):
        load_data(tmp_path / "q.svm")


def test_a_first_row_longer_than_what_is_read_is_judged_on_its_whole_fields(tmp_path):
    # the sniff reads 64 KiB: wherever that cuts the row, the cut field must not decide the format
    row = "1 0:11111 " + " ".join(f"{k}:0.25" for k in range(1, 12000))
    for cut in range(0, 12):
        path = write(tmp_path / f"long{cut}.txt", " " * cut + row + "\n0 1:0.5\n")
        assert detect_format(path) == "libsvm"


def test_a_long_header_name_is_cut_in_messages(tmp_path):
    path = write(tmp_path / "wide.txt", "x" * 5000 + "\n1\n")
    with pytest.raises(DataError) as info:
        load_data(path)
    assert len(str(info.value)) < 600


def test_query_ids_of_a_validation_file_beside_one_list_are_ignored_saying_why(tmp_path):
    # the reason given is the training file's, which forms one list, not the command's
    write(tmp_path / "tr.svm", "1 1:0.5\n0 1:0.2\n1 1:0.3\n0 1:0.1\n")
    write(tmp_path / "vq.svm", "1 qid:1 1:0.5\n0 qid:1 1:0.2\n")
    status, _, err = run_main("fit", tmp_path / "tr.svm", "--validation", tmp_path / "vq.svm", "--learner",
                              "stumps", "--n-iter", "3", "--out", tmp_path / "m.json", "-q")
    assert status == 0, err
    assert re.search(r"vq\.svm: the query ids \(qid:\) are ignored: the training data \S*tr\.svm has none, so the "
                     r"rows are one list\n", err), err


@pytest.mark.parametrize("layout", ["qid", "query-file"])
def test_compare_on_queries_is_not_stopped_by_figures_of_one_list(tmp_path, monkeypatch, layout):
    # the outputs checked before the file is read are those of queries, which include no roc figure
    rows = "".join(f"{g} {'qid:%d ' % (i // 2) if layout == 'qid' else ''}1:{v} 2:{i % 3}\n"
                   for i, (g, v) in enumerate(zip([1, 0, 2, 0, 1, 0, 2, 0, 1, 0], range(10))))
    write(tmp_path / "q.svm", rows)
    if layout == "query-file":
        write(tmp_path / "q.svm.query", "2\n" * 5)
    write(tmp_path / "roc.svg", "<svg/>")
    monkeypatch.chdir(tmp_path)
    status, _, err = run_main("compare", "q.svm", "--n-iter", "3", "--test-size", "0.4", "--quiet")
    assert status == 0, err
    assert (tmp_path / "roc.svg").read_text() == "<svg/>" and (tmp_path / "ndcg_at_k.svg").exists()


@pytest.mark.parametrize("first, said", [
    ("a qid:1 1:0.5 2:0.3", "line 1: expected a numeric label first, got 'a'"),
    ("1 qid:1 -1:0.5 2:0.3", "line 1: negative feature index in '-1:0.5'"),
    ("1 qid:1 1.5:0.5 2:0.3", "line 1: malformed feature '1.5:0.5'"),
    ("1 qid:1 1:0.5 2:0.3 qid:2", "line 1: two qid: fields on one row"),
], ids=["text-label", "negative-index", "fractional-index", "two-qids"])
@pytest.mark.parametrize("name", ["train.txt", "Fold1.dat", "rank.train"])
def test_a_letor_file_with_a_fault_in_its_first_row_is_read_as_libsvm_naming_the_field(tmp_path, first, said, name):
    # read as a CSV header, such a row was an error about a missing label column 'label'
    path = write(tmp_path / name, first + "\n0 qid:1 1:0.2 2:0.1\n")
    assert detect_format(path) == "libsvm"
    status, _, err = run_main("fit", path, "--out", tmp_path / "m.json", "--progress", "none")
    assert status == 2
    assert said in err and "label column" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("text", ["a b label\n1 2 0\n", "user name\nx\n", "a:b,c\n1,2\n", "x\ty:1 z:2\n1\t2\n"])
def test_a_header_with_a_field_without_a_colon_or_a_delimiter_stays_csv(tmp_path, text):
    assert detect_format(write(tmp_path / "d.txt", text)) == "csv"


@pytest.mark.parametrize("text", ["grade time:stamp url:x\n1 2 3\n", "label f:1 f:2\n1 2 3\n",
                                  "page http://a.b/c https://x.y/z\n1 2 3\n"])
def test_a_header_split_by_spaces_of_names_with_a_colon_stays_csv(tmp_path, text):
    # `time:stamp`, `f:1`, a URL are no LIBSVM field (`qid:`, `3:`): read as LIBSVM, the file was said to lack
    # "a numeric label first, got 'grade'"
    assert detect_format(write(tmp_path / "d.txt", text)) == "csv"


def test_a_letor_first_row_with_a_fault_and_a_comma_in_its_comment_is_read_as_libsvm(tmp_path):
    # the comment's comma was taken for a CSV delimiter: an error about a missing label column
    path = write(tmp_path / "train.txt", "a qid:1 1:0.5 2:0.3 # docid = 7, rel = 1\n0 qid:1 1:0.2 2:0.1\n")
    assert detect_format(path) == "libsvm"
    status, _, err = run_main("fit", path, "--out", tmp_path / "m.json", "--progress", "none")
    assert status == 2 and "line 1: expected a numeric label first, got 'a'" in err, err
    assert len(err.strip().splitlines()) == 1, err

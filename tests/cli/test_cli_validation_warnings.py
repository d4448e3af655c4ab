"""``--validation`` of ``rankcore fit`` and ``rankcore auto``: a file that is the training file itself, and a file of
fewer than 2 queries, are each one clear warning (the run goes on); a file held out of the training rows is none."""

import os
import shutil

import pytest

from _cli_run import run_main
from _init_score_data import ranked, write

FIT = ("fit", "--qid", "query", "--label", "grade", "--drop", "prior", "--n-iter", "4", "--progress", "none")
AUTO = ("auto", "--qid", "query", "--label", "grade", "--drop", "prior", "--candidates",
        "trees:n_iter=4,stumps:n_iter=4", "--progress", "none")
COMMANDS = {"fit": FIT, "auto": AUTO}
SAME = "is the training file"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("validation_warnings")
    write(d / "train.csv", *ranked(0))
    write(d / "valid.csv", *ranked(1, n_queries=8))
    query, X, prior, grade = ranked(2, n_queries=1)
    write(d / "one.csv", query, X, prior, grade)
    shutil.copyfile(d / "train.csv", d / "copy.csv")
    lines = (d / "train.csv").read_text().splitlines()
    (d / "train.tsv").write_text("".join(line.replace(",", "\t") + "\n" for line in lines))
    # the same numbers written otherwise (another number of digits), and the training rows of a shorter copy
    (d / "respelled.csv").write_text("".join(line.replace(",0.", ",.") + "\n" for line in lines))
    (d / "fewer.csv").write_text("".join(line + "\n" for line in lines[:-1]))
    os.symlink(d / "train.csv", d / "link.csv")
    # the training rows shuffled (each with its query id), and as many rows, half of them the training rows'
    rows = lines[1:]
    order = [(7 * i + 3) % len(rows) for i in range(len(rows))]
    assert sorted(order) == list(range(len(rows))) and order != sorted(order)
    (d / "shuffled.csv").write_text("".join(line + "\n" for line in [lines[0]] + [rows[i] for i in order]))
    others = (d / "valid.csv").read_text().splitlines()[1:]
    half = rows[:len(rows) // 2] + (others * 3)[:len(rows) - len(rows) // 2]
    (d / "overlap.csv").write_text("".join(line + "\n" for line in [lines[0]] + half))
    return d


def _run(command, files, tmp_path, validation, *extra):
    name, *options = COMMANDS[command]
    status, _, err = run_main(name, files / "train.csv", *options, "--validation", validation, *extra,
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    return [line for line in err.splitlines() if line.startswith("rankcore: warning:")]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("validation, how", [("train.csv", "the same file"), ("link.csv", "the same file"),
                                             ("copy.csv", "the same content")])
def test_the_training_file_itself_is_one_warning(files, tmp_path, command, validation, how):
    given = files / validation
    if validation == "train.csv":        # the same file by another spelling of its path
        given = os.path.join(files, ".", "..", files.name, "train.csv")
    (warning,) = _run(command, files, tmp_path, given, "--quiet")
    assert f"rankcore: warning: --validation {given} {SAME} {files / 'train.csv'} itself ({how}): its scores are " \
           "of rows" in warning
    assert "not a hold-out; give rows held out of the training file" in warning
    assert ("every candidate is fitted on" if command == "auto" else "the model is fitted on") in warning


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_file_of_one_query_is_one_warning(files, tmp_path, command):
    monitor = ("--monitor", "ndcg@k:3") if command == "fit" else ("--metric", "ndcg@k:3")
    (warning,) = _run(command, files, tmp_path, files / "one.csv", *monitor)
    assert f"--validation {files / 'one.csv'} holds 1 query: " in warning
    assert warning.endswith("; give a file of more queries")
    assert ("compared on that one ranking" if command == "auto" else "ndcg@k:3 (and its early stopping)") in warning


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_held_out_file_of_several_queries_is_no_warning(files, tmp_path, command):
    assert _run(command, files, tmp_path, files / "valid.csv") == []


def test_a_file_of_one_query_on_one_list_is_no_warning(files, tmp_path):
    """Without query ids the rows are one list: no query to count."""
    status, _, err = run_main("fit", files / "train.csv", "--drop", "query,prior", "--label", "grade", "--positive",
                              "3", "--n-iter", "4", "--validation", files / "one.csv", "--progress", "none",
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "rankcore: warning" not in err


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("validation", ["train.tsv", "respelled.csv"])
def test_the_training_rows_in_another_file_are_one_warning(files, tmp_path, command, validation):
    """Another format, or the numbers spelled otherwise: other bytes, the same rows once read."""
    assert (files / validation).read_bytes() != (files / "train.csv").read_bytes()
    (warning,) = _run(command, files, tmp_path, files / validation, "--quiet")
    assert f"rankcore: warning: --validation {files / validation} {SAME} {files / 'train.csv'} itself (the same " \
           "rows, read from another file): its scores are of rows" in warning
    assert ("every candidate is fitted on" if command == "auto" else "the model is fitted on") in warning


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_some_of_the_training_rows_are_no_warning(files, tmp_path, command):
    """A part of the training rows is not the training file (the same-rows check compares every row)."""
    assert _run(command, files, tmp_path, files / "fewer.csv", "--quiet") == []


def test_rows_are_compared_by_blocks_nan_as_nan_dense_or_sparse(monkeypatch):
    import numpy as np
    import scipy.sparse as sp

    from rankcore.cli import _validation_checks

    monkeypatch.setattr(_validation_checks, "_BLOCK_ROWS", 3)     # blocks of 3 rows: a difference in the last one
    a = np.arange(20.0).reshape(10, 2)
    a[4, 1] = np.nan
    b = a.copy()
    assert _validation_checks._same_matrix(a, b)
    b[9, 0] += 1
    assert not _validation_checks._same_matrix(a, b)
    assert _validation_checks._same_matrix(sp.csr_matrix(np.eye(3)), sp.csr_matrix(np.eye(3)))
    assert not _validation_checks._same_matrix(sp.csr_matrix(np.eye(3)), sp.csr_matrix(np.eye(3)[::-1]))
    assert not _validation_checks._same_matrix(sp.csr_matrix(np.eye(3)), np.eye(3))


def test_a_monitor_k_beyond_every_query_of_the_file_names_the_file_and_the_monitor(files, tmp_path):
    """fit's default --monitor ndcg@k:10 on a file of one 9-row query: the library's 'larger than the input' is
    said as the options given."""
    status, _, err = run_main("fit", files / "train.csv", *FIT[1:], "--validation", files / "one.csv", "--quiet",
                              "-o", tmp_path / "m.json")
    assert status == 2, err
    error = err.strip().splitlines()[-1]
    assert error.startswith(f"rankcore: error: --validation {files / 'one.csv'}: --monitor ndcg@k:10: k = 10 is "
                            "larger than every query of the file (the largest has 9 rows)")


def test_a_monitor_that_counts_no_query_of_the_file_names_the_file_and_the_monitor(files, tmp_path):
    """The library's ``scoring='ndcg@k:3' on eval_set: counts none ...`` said as the options given: the command line
    named neither ``scoring`` nor ``eval_set``."""
    import numpy as np

    query, X, prior, grade = ranked(3, n_queries=3)
    write(tmp_path / "zero.csv", query, X, prior, np.zeros_like(grade))       # no relevant row in any query
    status, _, err = run_main(*FIT, "--monitor", "ndcg@k:3", files / "train.csv", "--validation",
                              tmp_path / "zero.csv", "--quiet", "-o", tmp_path / "m.json")
    assert status == 2, err
    error = err.strip().splitlines()[-1]
    assert error.startswith(f"rankcore: error: --validation {tmp_path / 'zero.csv'}: --monitor ndcg@k:3: counts "
                            "none of the 3 queries"), error
    assert "scoring" not in err and "eval_set" not in err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_training_rows_in_another_order_are_the_training_file(files, tmp_path, command):
    """Before: the training rows shuffled were no warning, and a validation set to the fit.  Now the same warning
    as a copy in order, and (fit) the fit of the training data itself: early stopping off."""
    (warning,) = _run(command, files, tmp_path, files / "shuffled.csv", "--quiet")
    assert f"rankcore: warning: --validation {files / 'shuffled.csv'} {SAME} {files / 'train.csv'} itself (the " \
           "same rows in another order, read from another file): its scores are of rows" in warning
    if command == "fit":
        assert "early stopping is off for this fit" in warning


def test_half_the_training_rows_are_no_warning(files, tmp_path):
    """A file as long as the training file that shares half its rows is a validation set (documented)."""
    assert _run("fit", files, tmp_path, files / "overlap.csv", "--quiet") == []


def test_rows_in_another_order_are_matched_exactly_not_by_hash_alone(monkeypatch):
    import numpy as np

    from rankcore import _same_rows

    monkeypatch.setattr(_same_rows, "_BLOCK_ROWS", 3)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(10, 2)), np.array(list("ab" * 5))
    X[4, 1] = np.nan
    order = rng.permutation(10)
    lined_up = _same_rows.matching_rows(X, y, X[order], y[order])
    assert lined_up is not None and np.array_equal(_same_rows.rows_in_order_of(order, lined_up), np.arange(10))
    assert _same_rows.matching_rows(X, y, X[order], y[::-1][order]) is None           # other labels
    other = X[order].copy()
    other[9, 0] += 1e-12
    assert _same_rows.matching_rows(X, y, other, y[order]) is None
    # every row hashed alike (a collision): the rows themselves still decide
    monkeypatch.setattr(_same_rows, "_row_hashes", lambda A, labels: np.zeros(A.shape[0], dtype=np.uint64))
    assert _same_rows.matching_rows(X, y, other, y[order]) is None


COMPARE = ("compare", "--qid", "query", "--label", "grade", "--drop", "prior", "--model", "push,rankboost",
           "--n-iter", "3", "--no-plots", "--progress", "none")


@pytest.mark.parametrize("test, how", [("train.csv", "the same file"), ("copy.csv", "the same content"),
                                       ("respelled.csv", "the same rows, read from another file"),
                                       ("shuffled.csv", "the same rows in another order, read from another file")])
def test_compare_on_a_test_file_of_the_training_rows_warns_once_in_its_words(files, tmp_path, test, how):
    """Before: no word of the file, and the Python API's ``eval_set holds the training data ... X and y given to
    fit`` once per model (the monitored test rows are each fit's eval_set)."""
    name, *options = COMPARE
    status, _, err = run_main(name, files / "train.csv", "--test", files / test, *options,
                              "--out-dir", tmp_path / "out")
    assert status == 0, err
    (warning,) = [line for line in err.splitlines() if line.startswith("rankcore: warning:")]
    assert warning.startswith(f"rankcore: warning: --test {files / test} {SAME} {files / 'train.csv'} itself "
                              f"({how}): its scores are of rows every model is fitted on"), warning
    assert "eval_set" not in err


def test_compare_on_a_held_out_test_file_says_nothing_of_the_training_rows(files, tmp_path):
    name, *options = COMPARE
    status, _, err = run_main(name, files / "train.csv", "--test", files / "overlap.csv", *options,
                              "--out-dir", tmp_path / "out")
    assert status == 0, err
    assert SAME not in err and "eval_set" not in err

"""A LIBSVM file kept sparse (CSR) for its size, given to a model that reads dense rows only (push with stumps, the
binary default; kernel; exactboost; a saved model of them): made dense where it fits the memory, with the dense
read's numbers, else refused in one line naming the options that read it sparse."""

import numpy as np
import pytest

import rankcore._sparse_checks
import rankcore.validation
from _cli_run import one_line_error, run_main
from rankcore.cli.datasets import _libsvm, load_data


def _lines(rng, n_rows, n_features=20, per_row=4):
    out = []
    for r in range(n_rows):
        idx = np.sort(rng.choice(n_features, per_row, replace=False)) + 1
        values = ["0" if r % 4 == 0 and k == 0 else f"{rng.normal():.3f}" for k in range(per_row)]   # explicit 0s
        out.append(f"{r % 2} " + " ".join(f"{i}:{v}" for i, v in zip(idx, values)))
    return "\n".join(out) + "\n"


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(5)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text(_lines(rng, 160))
    test.write_text(_lines(rng, 60))
    return train, test


def _as_if_large(monkeypatch):
    """The file kept sparse, and the estimators refusing its CSR matrix, as at the sizes where it is kept sparse."""
    monkeypatch.setattr(_libsvm, "SPARSE_FROM_BYTES", 0)
    monkeypatch.setattr(rankcore._sparse_checks, "DENSE_BYTES_LIMIT", 0)
    monkeypatch.setattr(rankcore.validation, "DENSE_BYTES_LIMIT", 0)


def _scores(tmp_path, train, test, tag, options):
    model, scores = tmp_path / f"{tag}.json", tmp_path / f"{tag}.csv"
    status, _, err = run_main("fit", train, "--out", model, "-q", *options)
    assert status == 0, err
    status, _, err = run_main("score", model, test, "--out", scores, "-q")
    assert status == 0, err
    status, printed, err = run_main("evaluate", model, test)
    assert status == 0, err
    return scores.read_text(), printed


@pytest.mark.parametrize("options", [[], ["--model", "kernel"], ["--model", "exactboost", "--n-runs", "3"]],
                         ids=["push-stumps", "kernel", "exactboost"])
def test_a_dense_only_model_gets_the_dense_reads_numbers(files, tmp_path, monkeypatch, options):
    train, test = files
    dense = _scores(tmp_path, train, test, "dense", options)
    _as_if_large(monkeypatch)
    assert not isinstance(load_data(train).X, np.ndarray)
    assert _scores(tmp_path, train, test, "sparse", options) == dense


def test_a_saved_dense_only_model_scores_a_sparse_file_and_compare_runs(files, tmp_path, monkeypatch):
    train, test = files
    model, dense_scores, sparse_scores = tmp_path / "m.json", tmp_path / "d.csv", tmp_path / "s.csv"
    assert run_main("fit", train, "--out", model, "-q")[0] == 0
    assert run_main("score", model, test, "--out", dense_scores, "-q")[0] == 0
    dense_compare = run_main("compare", train, "--test", test, "--no-plots", "-q")
    _as_if_large(monkeypatch)
    status, _, err = run_main("score", model, test, "--out", sparse_scores, "-q")
    assert status == 0, err
    assert sparse_scores.read_text() == dense_scores.read_text()
    assert run_main("compare", train, "--test", test, "--no-plots", "-q") == dense_compare


def test_past_the_memory_a_dense_only_model_is_refused_in_command_line_words(files, tmp_path, monkeypatch):
    train, test = files
    model = tmp_path / "m.json"
    assert run_main("fit", train, "--out", model, "-q")[0] == 0
    _as_if_large(monkeypatch)
    monkeypatch.setattr(_libsvm, "available_memory", lambda: 2000)     # half of it: 1000 bytes
    status, _, err = run_main("fit", train, "--out", tmp_path / "again.json", "-q")
    one_line_error(status, err, "push reads dense rows only", "--learner trees", "--model sgd@k")
    assert "to_numpy" not in err and "toarray" not in err
    status, _, err = run_main("score", model, test, "--out", tmp_path / "s.csv", "-q")
    one_line_error(status, err, f"the model {model}", "dense rows only", "split its rows")
    status, _, err = run_main("compare", train, "--test", test, "--no-plots", "-q")
    one_line_error(status, err, "dense rows only", "--learner trees")
    # a model that reads the file sparse is fitted as it is
    status, _, err = run_main("fit", train, "--learner", "trees", "--n-iter", "3", "--out", tmp_path / "t.json", "-q")
    assert status == 0, err


def test_a_saved_auto_model_that_chose_a_dense_only_candidate_gets_the_dense_reads_numbers(files, tmp_path,
                                                                                          monkeypatch):
    # AutoRanker's sparse tag is true whatever it chose: the CLI must ask the chosen model, not the tag, else
    # exactboost's rows are left to the Python API's dense copy and refused past its bound in Python words
    train, test = files
    model, dense_scores, sparse_scores = tmp_path / "auto.json", tmp_path / "d.csv", tmp_path / "s.csv"
    status, _, err = run_main("auto", train, "--candidates", "exactboost", "--out", model, "-q")
    assert status == 0, err
    assert run_main("score", model, test, "--out", dense_scores, "-q")[0] == 0
    _as_if_large(monkeypatch)
    status, _, err = run_main("score", model, test, "--out", sparse_scores, "-q")
    assert status == 0, err
    assert sparse_scores.read_text() == dense_scores.read_text()


@pytest.mark.parametrize("validation", [False, True], ids=["no-validation", "validation"])
def test_auto_with_dense_only_candidates_gets_the_dense_reads_numbers(files, tmp_path, monkeypatch, validation):
    # every candidate refused the CSR matrix with the Python API's advice ("pass a dense X (X.toarray() ...)")
    train, test = files
    options = ["--candidates", "exactboost", "-q", *(["--validation", test] if validation else ["--cv", "3"])]

    def chosen_scores(tag):
        model, scores = tmp_path / f"{tag}.json", tmp_path / f"{tag}.csv"
        status, _, err = run_main("auto", train, "--out", model, *options)
        assert status == 0, err
        assert run_main("score", model, test, "--out", scores, "-q")[0] == 0
        return scores.read_text()

    dense = chosen_scores("dense")
    _as_if_large(monkeypatch)
    assert chosen_scores("sparse") == dense
    monkeypatch.setattr(_libsvm, "available_memory", lambda: 2000)     # half of it: 1000 bytes
    status, _, err = run_main("auto", train, "--out", tmp_path / "again.json", *options)
    one_line_error(status, err, "--candidates exactboost reads dense rows only", "trees, linear")
    assert "--learner" not in err           # fit's option, not auto's

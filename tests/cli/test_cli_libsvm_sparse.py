"""A LIBSVM file big and sparse enough is kept as a CSR matrix end to end: every command gives what the dense read
gives on the same file (scores, metrics, models)."""

import re

import numpy as np
import pytest
import scipy.sparse as sp

from _cli_run import run_main
from rankcore.cli.datasets import load_data
from rankcore.cli.datasets import _libsvm


def _lines(rng, n_rows, n_features=40, per_row=5, query=40):
    out = []
    for r in range(n_rows):
        idx = np.sort(rng.choice(n_features, per_row, replace=False)) + 1
        label = int(rng.integers(0, 3))
        out.append(f"{label} qid:{r // query} " + " ".join(f"{i}:{rng.normal():.3f}" for i in idx))
    return "\n".join(out) + "\n"


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(3)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text(_lines(rng, 400))
    test.write_text(_lines(rng, 120))
    return train, test


def _run_all(tmp_path, train, test, tag):
    """Every command's output on the files: the scores written, the metrics printed."""
    out = {}
    for name, options in [("default", []), ("trees", ["--learner", "trees", "--n-iter", "5"])]:
        model, scores = tmp_path / f"{tag}_{name}.json", tmp_path / f"{tag}_{name}.csv"
        assert run_main("fit", train, "--out", model, "-q", *options)[0] == 0
        assert run_main("score", model, test, "--out", scores, "-q")[0] == 0
        out[f"{name} score"] = scores.read_text()
        status, printed, err = run_main("evaluate", model, test)
        assert status == 0, err
        out[f"{name} evaluate"] = printed
    status, printed, err = run_main("compare", train, "--learner", "trees,linear", "--n-iter", "3", "--test", test,
                                    "--out-dir", tmp_path / f"{tag}_compare", "-q")
    assert status == 0, err
    out["compare"] = printed
    # a validation file, a continuation, explanations
    model = tmp_path / f"{tag}_val.json"
    assert run_main("fit", train, "--learner", "trees", "--n-iter", "4", "--validation", test, "--out", model,
                    "-q")[0] == 0
    more = tmp_path / f"{tag}_more.json"
    assert run_main("fit", train, "--learner", "trees", "--n-iter", "2", "--init-model", model, "--out", more,
                    "-q")[0] == 0
    status, printed, err = run_main("evaluate", more, test)
    out["continued evaluate"] = printed
    status, printed, err = run_main("explain", model, test)
    assert status == 0, err
    out["explain"] = printed
    # a model that reads dense rows only (one list: the rows without their query ids)
    flat_train, flat_test = tmp_path / f"{tag}_flat.svm", tmp_path / f"{tag}_flat_test.svm"
    flat_train.write_text(re.sub(r" qid:\d+", "", train.read_text()))
    flat_test.write_text(re.sub(r" qid:\d+", "", test.read_text()))
    model, scores = tmp_path / f"{tag}_kernel.json", tmp_path / f"{tag}_kernel.csv"
    status, _, err = run_main("fit", flat_train, "--model", "kernel", "--positive", "2", "--out", model, "-q")
    assert status == 0, err
    assert run_main("score", model, flat_test, "--out", scores, "-q")[0] == 0
    out["kernel score"] = scores.read_text()
    model, scores = tmp_path / f"{tag}_auto.json", tmp_path / f"{tag}_auto.csv"
    assert run_main("auto", train, "--out", model, "-q")[0] == 0
    assert run_main("score", model, test, "--out", scores, "-q")[0] == 0
    out["auto score"] = scores.read_text()
    return out


def test_every_command_gives_the_dense_reads_results_on_a_sparse_read(files, tmp_path, monkeypatch):
    train, test = files
    assert isinstance(load_data(train).X, np.ndarray)        # 400 x 40: far below SPARSE_FROM_BYTES
    dense = _run_all(tmp_path, train, test, "dense")
    monkeypatch.setattr(_libsvm, "SPARSE_FROM_BYTES", 0)
    X = load_data(train).X
    assert sp.isspmatrix_csr(X) and X.nnz == 400 * 5
    sparse = _run_all(tmp_path, train, test, "sparse")
    for key in dense:
        assert sparse[key] == dense[key], key


def test_the_csr_matrix_holds_the_dense_values(files, monkeypatch):
    train, _ = files
    dense = load_data(train)
    monkeypatch.setattr(_libsvm, "SPARSE_FROM_BYTES", 0)
    sparse = load_data(train)
    np.testing.assert_array_equal(sparse.X.toarray(), dense.X)
    assert sparse.feature_names == dense.feature_names and sparse.n_samples == 400
    np.testing.assert_array_equal(sparse.qid, dense.qid)
    assert sparse.missing() is None
    # dropping an index between others keeps the matrix sparse
    dropped = load_data(train, drop=["f7"])
    assert sp.isspmatrix_csr(dropped.X) and "f7" not in dropped.feature_names
    np.testing.assert_array_equal(dropped.X.toarray(), np.delete(dense.X, 6, axis=1))


def test_a_dense_file_stays_dense_whatever_its_size(tmp_path, monkeypatch):
    monkeypatch.setattr(_libsvm, "SPARSE_FROM_BYTES", 0)
    path = tmp_path / "full.svm"
    path.write_text("1 1:1 2:2 3:3\n0 1:4 2:5 3:6\n")      # CSR larger than dense
    assert isinstance(load_data(path).X, np.ndarray)


def test_the_models_compared_are_not_constant(files, tmp_path):
    # the equality above says something only if the fits split on the features
    train, test = files
    for options in ([], ["--learner", "trees", "--n-iter", "5"]):
        model, scores = tmp_path / "m.json", tmp_path / "s.csv"
        assert run_main("fit", train, "--out", model, "-q", "--force", *options)[0] == 0
        assert run_main("score", model, test, "--out", scores, "-q", "--force")[0] == 0
        lines = scores.read_text().splitlines()
        column = lines[0].split(",").index("score")
        assert len({line.split(",")[column] for line in lines[1:]}) > 10

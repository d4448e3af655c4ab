"""``--drop`` takes a LIBSVM file's columns by their index names (``f3``), an .npz file's by its feature_names, and
is refused for an .npy file; ``--label`` is refused for a LIBSVM file (its label is each row's first field)."""

import numpy as np
import pytest

import rankcore
from _cli_run import run_main, one_line_error


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] - X[:, 2] > 0).astype(int)
    d = tmp_path_factory.mktemp("drop")
    with open(d / "data.svm", "w") as fh:
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(f"{label} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n")
    with open(d / "data.csv", "w") as fh:
        fh.write("f1,f2,f3,f4,label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    np.save(d / "data.npy", np.column_stack([X, y]))
    np.savez(d / "data.npz", X=X, y=y, feature_names=np.array(["f1", "f2", "f3", "f4"]))
    return d


def test_drop_leaves_out_a_libsvm_column_by_its_index_name(files, tmp_path):
    status, _, err = run_main("fit", files / "data.svm", "--drop", "f2,f4", "--n-iter", "4", "--random-state", "0",
                              "--out", tmp_path / "svm.json", "-q")
    assert status == 0, err
    status, _, err = run_main("fit", files / "data.csv", "--drop", "f2,f4", "--n-iter", "4", "--random-state", "0",
                              "--out", tmp_path / "csv.json", "-q")
    assert status == 0, err
    svm, csv = rankcore.load_model(tmp_path / "svm.json"), rankcore.load_model(tmp_path / "csv.json")
    assert list(svm.feature_names_in_) == list(csv.feature_names_in_) == ["f1", "f3"]
    np.testing.assert_array_equal(svm.alphas_, csv.alphas_)
    # a file read for the model takes the same --drop; without it the dropped index is named
    status, out, err = run_main("evaluate", tmp_path / "svm.json", files / "data.svm", "--drop", "f2,f4")
    assert status == 0, err
    assert out == run_main("evaluate", tmp_path / "svm.json", files / "data.csv", "--drop", "f2,f4")[1]
    one_line_error(*run_main("evaluate", tmp_path / "svm.json", files / "data.svm")[::2],
                   "feature index 2", "leave it out with --drop f2")
    # and a validation file beside the training file
    status, _, err = run_main("fit", files / "data.svm", "--drop", "f2", "--validation", files / "data.svm",
                              "--n-iter", "3", "--out", tmp_path / "v.json", "-q")
    assert status == 0, err
    assert list(rankcore.load_model(tmp_path / "v.json").feature_names_in_) == ["f1", "f3", "f4"]


def test_drop_of_a_first_or_last_libsvm_index_keeps_the_others_names(files, tmp_path):
    status, _, err = run_main("fit", files / "data.svm", "--drop", "f1", "--n-iter", "3", "--out",
                              tmp_path / "m.json", "-q")
    assert status == 0, err
    assert list(rankcore.load_model(tmp_path / "m.json").feature_names_in_) == ["f2", "f3", "f4"]


@pytest.mark.parametrize("drop, said", [
    ("x2", "--drop x2: a LIBSVM file's columns are named by their indices (f1, f2, ...; f0 for index 0)"),
    ("f9", "--drop f9: no value of index 9 in the file"),
])
def test_drop_of_no_libsvm_column_is_refused(files, tmp_path, drop, said):
    one_line_error(*run_main("fit", files / "data.svm", "--drop", drop, "--out", tmp_path / "m.json", "-q")[::2],
                   said)


def test_drop_for_array_files(files, tmp_path):
    one_line_error(*run_main("fit", files / "data.npy", "--drop", "f2", "--out", tmp_path / "m.json", "-q")[::2],
                   "--drop f2: the columns of an .npy file have no names to drop by")
    status, _, err = run_main("fit", files / "data.npz", "--drop", "f2", "--n-iter", "3", "--out",
                              tmp_path / "z.json", "-q")
    assert status == 0, err
    assert list(rankcore.load_model(tmp_path / "z.json").feature_names_in_) == ["f1", "f3", "f4"]
    one_line_error(*run_main("fit", files / "data.npz", "--drop", "zz", "--out", tmp_path / "y.json", "-q")[::2],
                   "--drop zz: no such column")


@pytest.mark.parametrize("command", ["fit", "evaluate", "score", "explain"])
def test_label_is_refused_for_a_libsvm_file_by_every_command(files, tmp_path, command):
    model = tmp_path / "trees.json"
    assert run_main("fit", files / "data.svm", "--learner", "trees", "--n-iter", "3", "--out", model, "-q")[0] == 0
    argv = {"fit": ("fit", files / "data.svm", "--out", tmp_path / "m.json"),
            "evaluate": ("evaluate", model, files / "data.svm"), "score": ("score", model, files / "data.svm"),
            "explain": ("explain", model, files / "data.svm")}[command]
    one_line_error(*run_main(*argv, "--label", "y")[::2],
                   "a LIBSVM file carries its label first on each row; --label y names a CSV column")


@pytest.fixture(scope="module")
def beside(files):
    """CSV files of the same rows with an extra ``id`` column: ``valid.csv`` (label column ``label``) and
    ``target.csv`` (label column ``target``)."""
    rows = np.loadtxt(files / "data.csv", delimiter=",", skiprows=1)
    for name, label in (("valid.csv", "label"), ("target.csv", "target")):
        with open(files / name, "w") as fh:
            fh.write(f"id,f1,f2,f3,f4,{label}\n")
            for i, row in enumerate(rows.tolist()):
                fh.write(f"{i}," + ",".join(map(repr, row[:4])) + f",{int(row[4])}\n")
    return files


def _beside_argv(files, tmp_path, command, train, other):
    if command == "fit":
        return ("fit", files / train, "--validation", files / other, "--n-iter", "3", "--out", tmp_path / "m.json",
                "-q", "-f")
    return ("compare", files / train, "--test", files / other, "--model", "push", "--n-iter", "3", "--no-plots",
            "--out-dir", tmp_path / "cmp", "-q", "-f")


@pytest.mark.parametrize("train", ["data.svm", "data.npz", "data.csv"])
@pytest.mark.parametrize("command", ["fit", "compare"])
def test_drop_of_a_column_only_in_a_csv_file_beside_any_training_file(beside, tmp_path, train, command):
    argv = _beside_argv(beside, tmp_path, command, train, "valid.csv")
    one_line_error(*run_main(*argv)[::2], "the column 'id' is not a feature of the training data",
                   "leave it out with --drop id")
    status, _, err = run_main(*argv, "--drop", "id")             # as that error advises
    assert status == 0, err
    if command == "fit":
        assert list(rankcore.load_model(tmp_path / "m.json").feature_names_in_) == ["f1", "f2", "f3", "f4"]
        # a name of the training file is still dropped there, and one in no file is still its error
        status, _, err = run_main(*argv, "--drop", "id,f2")
        assert status == 0, err
        assert list(rankcore.load_model(tmp_path / "m.json").feature_names_in_) == ["f1", "f3", "f4"]
    assert run_main(*argv, "--drop", "id,nope")[0] == 2


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_label_of_a_csv_file_beside_a_libsvm_training_file_is_accepted(beside, tmp_path, command):
    argv = _beside_argv(beside, tmp_path, command, "data.svm", "target.csv")
    status, _, err = run_main(*argv, "--drop", "id", "--label", "target")
    assert status == 0, err
    # a --label no file beside it has is still the LIBSVM file's refusal
    one_line_error(*run_main(*argv, "--drop", "id", "--label", "y")[::2],
                   "a LIBSVM file carries its label first on each row; --label y names a CSV column")


def test_drop_of_every_npz_column_is_the_command_line_s_error(files, tmp_path):
    one_line_error(*run_main("fit", files / "data.npz", "--drop", "f1,f2,f3,f4", "--out", tmp_path / "m.json",
                             "-q")[::2],
                   "data.npz: no feature columns: --drop f1,f2,f3,f4 leaves out every one of its feature_names")

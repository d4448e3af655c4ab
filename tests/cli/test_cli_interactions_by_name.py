"""``trees:interactions=...`` by the data file's column names on the command line (CSV headers, LIBSVM indices)."""

import numpy as np
import pytest

import rankcore
from _cli_run import run_main

pytestmark = pytest.mark.filterwarnings("ignore:interactions=.*in no group:UserWarning")


@pytest.fixture(scope="module")
def small_data(tmp_path_factory):
    """200 rows of 8 features x0..x7 as CSV, 1-based LIBSVM and .npy (the label last)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8))
    y = ((X[:, 0] > 0) ^ (X[:, 2] * X[:, 7] > 0.1)).astype(int)
    d = tmp_path_factory.mktemp("names")
    with open(d / "data.csv", "w") as fh:
        fh.write(",".join(f"x{j}" for j in range(X.shape[1])) + ",label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    with open(d / "data.svm", "w") as fh:
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(f"{label} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n")
    np.save(d / "data.npy", np.column_stack([X, y]))
    return d, X, y


def test_interaction_groups_by_the_file_s_column_names(small_data, tmp_path):
    d = small_data[0]
    by_name, by_index = tmp_path / "names.json", tmp_path / "indices.json"
    status, _, err = run_main("fit", d / "data.csv", "--learner", "trees:interactions=x0+x1/x2+x7", "--n-iter", "5",
                              "--out", by_name, "-q")
    assert status == 0, err
    status, _, err = run_main("fit", d / "data.csv", "--learner", "trees:interactions=0+1/2+7", "--n-iter", "5",
                              "--out", by_index, "-q")
    assert status == 0, err
    named, indexed = rankcore.load_model(by_name), rankcore.load_model(by_index)
    assert named.get_params()["learner"] == "trees:interactions=x0+x1/x2+x7"
    assert named.learner_spec_ == indexed.learner_spec_ and named.learner_spec_.endswith("interactions=0+1/2+7")
    assert run_main("evaluate", by_name, d / "data.csv")[1] == run_main("evaluate", by_index, d / "data.csv")[1]
    # a LIBSVM file's columns are named by their indices (f1, f2, ... for a 1-based file)
    status, _, err = run_main("fit", d / "data.svm", "--learner", "trees:interactions=f1+f2/f3+f8", "--n-iter", "5",
                              "--out", tmp_path / "svm.json", "-q")
    assert status == 0, err
    assert rankcore.load_model(tmp_path / "svm.json").learner_spec_.endswith("interactions=0+1/2+7")
    status, _, err = run_main("compare", d / "data.csv", "--learner", "trees:interactions=x0+x11", "--no-plots", "-q")
    assert status == 2 and "interactions: 'x11' is not a column of X (the closest: 'x1'" in err
    assert "a column may also be given by its name" in err
    # an array file has no names to resolve
    status, _, err = run_main("fit", d / "data.npy", "--learner", "trees:interactions=x0+x1", "--n-iter", "5",
                              "--out", tmp_path / "npy.json", "-q")
    assert status == 2 and "are given by name, but X has no column names" in err


def test_auto_candidates_naming_columns_take_the_file_s_column_indices(small_data, tmp_path):
    d = small_data[0]
    spec = "trees:n_iter=3,interactions=x0+x1/x2"
    status, _, err = run_main("auto", d / "data.csv", "--candidates", spec, "--cv", "2",
                              "--out", tmp_path / "auto.json", "-q")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "auto.json")
    assert model.best_candidate_ == spec and model.leaderboard_.rows[0].name == spec    # shown as given
    assert all(m.learner_spec_.endswith("interactions=0+1/2") for m in model.best_estimator_.estimators)
    status, _, err = run_main("auto", d / "data.csv", "--candidates", "trees:n_iter=3,interactions=x0+x11",
                              "--cv", "2", "--out", tmp_path / "bad.json", "-q")
    assert status == 2
    assert "candidates: 'trees:n_iter=3,interactions=x0+x11': interactions: 'x11' is not a column of X" in err

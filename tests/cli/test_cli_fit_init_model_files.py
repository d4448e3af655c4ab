"""``rankcore fit DATA --init-model MODEL`` reads DATA as ``rankcore score`` reads a file for the model (by name, a
LIBSVM file by index), and its refusals speak the command line's options."""

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main


def _csv(path, order=("x0", "x1", "x2"), extra=False, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 3)).round(3)
    y = (X[:, 0] + rng.normal(size=200) > 0.5).astype(int)
    columns = {"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2]}
    names = list(order) + (["x9"] if extra else [])
    with open(path, "w") as f:
        f.write(",".join(names) + ",label\n")
        for i in range(200):
            values = [columns[n][i] for n in order] + ([rng.normal()] if extra else [])
            f.write(",".join(f"{v:.3f}" for v in values) + f",{y[i]}\n")
    return X, y


def _svm(path, n_features, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 4)).astype(np.float32)
    X[:, n_features:] = 0
    y = (X[:, 0] > 0).astype(int)
    with open(path, "w") as f:
        for i in range(200):
            f.write(f"{y[i]} qid:{i // 10} " + " ".join(f"{k + 1}:{float(v)}" for k, v in
                                                         enumerate(X[i, :n_features])) + "\n")
    return X, y, np.arange(200) // 10


TREES = ("--learner", "trees", "--n-iter", "3", "--quiet")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("init_model_files")
    _csv(d / "d.csv")
    status, _, err = run_main("fit", d / "d.csv", *TREES, "-o", d / "m.json")
    assert status == 0, err
    return d


def test_a_csv_of_the_models_columns_in_another_order_is_read_by_name(model, tmp_path):
    X, y = _csv(tmp_path / "r.csv", order=("x2", "x0", "x1"), seed=1)
    status, _, err = run_main("fit", tmp_path / "r.csv", *TREES, "--init-model", model / "m.json",
                              "-o", tmp_path / "c.json")
    assert (status, err) == (0, "")
    more = rankcore.load_model(tmp_path / "c.json")
    assert list(more.feature_names_in_) == ["x0", "x1", "x2"] and more.n_iter_ == 6
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2"])
    expected = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(
        frame, y, init_model=rankcore.load_model(model / "m.json"))
    np.testing.assert_allclose(more.decision_function(frame), expected.decision_function(frame), rtol=0, atol=1e-12)


@pytest.mark.parametrize("extra, expected", [
    (True, ("the column 'x9' is not a feature of the model", "(--init-model); leave it out with --drop x9")),
    (False, ("no column 'x2', a feature of the model", "(--init-model)")),
])
def test_an_extra_or_missing_column_is_named(model, tmp_path, extra, expected):
    _csv(tmp_path / "e.csv", order=("x0", "x1", "x2") if extra else ("x0", "x1"), extra=extra, seed=2)
    status, _, err = run_main("fit", tmp_path / "e.csv", *TREES, "--init-model", model / "m.json",
                              "-o", tmp_path / "c.json")
    one_line_error(status, err, *expected)


def test_a_libsvm_batch_lacking_an_index_is_read_into_the_models_features(tmp_path):
    _svm(tmp_path / "q.svm", 4)
    X, y, qid = _svm(tmp_path / "batch.svm", 3, seed=1)    # feature 4 is 0 on every row: no row writes index 4
    options = ("--n-iter", "3", "--quiet")
    status, _, err = run_main("fit", tmp_path / "q.svm", *options, "-o", tmp_path / "q.json")
    assert status == 0, err
    status, _, err = run_main("fit", tmp_path / "batch.svm", *options, "--init-model", tmp_path / "q.json",
                              "-o", tmp_path / "c.json")
    assert (status, err) == (0, "")
    more = rankcore.load_model(tmp_path / "c.json")
    assert list(more.feature_names_in_) == ["f1", "f2", "f3", "f4"]
    status, _, err = run_main("score", tmp_path / "c.json", tmp_path / "batch.svm", "-o", tmp_path / "s.csv", "-q")
    assert status == 0, err


def test_a_continuation_dropping_the_models_category_column_names_init_model(tmp_path):
    rng = np.random.default_rng(3)
    with open(tmp_path / "c.csv", "w") as f:
        f.write("x0,x1,city,label\n")
        for _ in range(200):
            x, city = rng.normal(size=2).round(3), rng.choice(["Lyon", "Nice", "Paris"])
            f.write(f"{x[0]},{x[1]},{city},{int(x[0] + (city == 'Paris') > 0.5)}\n")
    status, _, err = run_main("fit", tmp_path / "c.csv", "--categorical", "city", *TREES, "-o", tmp_path / "m.json")
    assert status == 0, err
    status, _, err = run_main("fit", tmp_path / "c.csv", "--drop", "city", *TREES, "--init-model",
                              tmp_path / "m.json", "-o", tmp_path / "x.json")
    one_line_error(status, err, "no feature column 'city' to read by category",
                   "(--init-model) was fitted with --categorical city")
    status, _, err = run_main("fit", tmp_path / "c.csv", "--categorical", "city", "--learner",
                              "trees:growth=oblivious", "--n-iter", "2", "-q", "-o", tmp_path / "o.json")
    one_line_error(status, err, "--categorical city: --learner 'trees:growth=oblivious' grows oblivious trees",
                   "use --learner trees:growth=depthwise (or leafwise), or leave city out of --categorical")
    assert "categorical_features" not in err


def test_an_auto_model_is_refused_before_the_data_are_read(model, tmp_path):
    status, _, err = run_main("auto", model / "d.csv", "--candidates", "trees:n_iter=2", "--cv", "2", "-q",
                              "-o", tmp_path / "auto.json")
    assert status == 0, err
    status, _, err = run_main("fit", tmp_path / "nosuch.csv", *TREES, "--init-model", tmp_path / "auto.json",
                              "-o", tmp_path / "x.json")
    one_line_error(status, err, "--init-model:", "is a `rankcore auto` model (AutoRanker), which cannot be continued")


def test_a_growth_change_is_refused_and_n_iter_is_named(model, tmp_path):
    status, _, err = run_main("fit", model / "d.csv", "--learner", "trees:growth=depthwise", "--n-iter", "2", "-q",
                              "--init-model", model / "m.json", "-o", tmp_path / "x.json")
    one_line_error(status, err, "--init-model: the model's trees are leafwise, this fit's learner grows depthwise "
                   "trees", "continue it with growth=leafwise")
    status, _, err = run_main("fit", model / "d.csv", "--learner", "trees", "--n-iter", "0", "-q",
                              "-o", tmp_path / "x.json")
    one_line_error(status, err, "--n-iter: expected an integer in [1, 2147483647], got 0")


def test_unused_interaction_columns_are_named_once_at_fit(tmp_path):
    _svm(tmp_path / "q.svm", 4)
    status, _, err = run_main("fit", tmp_path / "q.svm", "--learner", "trees:interactions=1+2/3", "--n-iter", "3",
                              "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    warned = [line for line in err.splitlines() if "in no group" in line]
    assert len(warned) == 1 and "the feature column f1 (column 0) in no group" in warned[0], err

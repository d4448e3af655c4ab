"""Text columns on the command line: one error naming them all, or ``--categorical`` for the trees."""

import contextlib
import csv
import io
import json

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.cli import main
from rankcore.cli.datasets import DataError, load_data
from rankcore.cli.datasets import _csv


def run_main(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


CITIES = np.array(["Paris", "Lyon", "Nice", "Lille"])
COLOURS = np.array(["red", "blue", "green"])


def text_table(n, seed):
    rng = np.random.default_rng(seed)
    city, colour = rng.choice(CITIES, n), rng.choice(COLOURS, n)
    age = rng.integers(20, 60, n)
    signal = 2.0 * (city == "Paris") + 1.0 * (colour == "red") - 1.5 * (city == "Lille") + age / 40
    y = (signal + rng.normal(size=n) > 1.5).astype(int)
    colour = colour.astype(object)
    colour[rng.random(n) < 0.05] = ""                   # a few missing categories
    return {"id": [f"r{i}" for i in range(n)], "city": city, "age": age, "colour": colour, "label": y}


def write_csv(path, table, order, rows=None):
    rows = range(len(table["label"])) if rows is None else rows
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(order)
        writer.writerows([[table[name][i] for name in order] for i in rows])
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("text")
    train, test = text_table(300, 0), text_table(200, 1)
    write_csv(d / "train.csv", train, ["id", "city", "age", "colour", "label"])
    write_csv(d / "test.csv", test, ["id", "city", "age", "colour", "label"])
    # the test rows of every city but Lille, columns swapped: the categories present differ from training's
    write_csv(d / "no_lille.csv", test, ["colour", "label", "age", "id", "city"],
              rows=[i for i in range(200) if test["city"][i] != "Lille"])
    status, _, err = run_main("fit", d / "train.csv", "--drop", "id", "--categorical", "auto", "--learner", "trees",
                              "--n-iter", "30", "--out", d / "m.json", "-q")
    assert status == 0, err
    return d


def test_text_columns_are_refused_in_one_error_naming_them_all(files):
    status, out, err = run_main("fit", files / "train.csv", "--out", files / "never.json")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "text in 3 columns: id, city, colour" in err
    assert "--categorical auto" in err and "--learner trees" in err and "--drop id,city,colour" in err
    # auto has no --learner: its tree candidates split them
    status, _, err = run_main("auto", files / "train.csv", "--out", files / "never.json")
    assert status == 2 and "text in 3 columns" in err and "--drop id,city,colour" in err
    assert "--categorical auto" in err and "--learner" not in err


def test_a_text_csv_fits_and_scores_with_categorical_auto(files):
    model = json.loads((files / "m.json").read_text())
    assert model["params"]["categorical_features"] == ["city", "colour"]
    assert model["state"]["feature_names_in"] == ["city", "age", "colour"]
    status, out, err = run_main("evaluate", files / "m.json", files / "test.csv", "--drop", "id", "-m", "auc",
                                "--table-format", "json")
    assert status == 0, err
    assert json.loads(out)[0]["value"] > 0.75


def test_scores_follow_the_python_api_on_category_columns(files):
    from rankcore import load_model

    model = load_model(files / "m.json")
    data = load_data(files / "test.csv", drop=["id"], categorical="auto")
    frame = data.frame()
    assert isinstance(frame["city"].dtype, pd.CategoricalDtype)
    assert list(frame["city"].cat.categories) == sorted(CITIES)
    status, out, _ = run_main("score", files / "m.json", files / "test.csv", "--drop", "id")
    assert status == 0
    assert [float(v) for v in out.splitlines()[1:]] == model.decision_function(frame).tolist()


def _maps_categories_by_value() -> bool:
    """Whether the estimators map a frame's categories by value (else by their codes)."""
    import rankcore

    X = pd.DataFrame({"c": pd.Categorical(["a", "b", "c"] * 20)})
    y = np.array([0, 0, 1] * 20)
    model = rankcore.boost(learner="trees:min_samples_leaf=1", n_iter=5, random_state=0).fit(X, y)
    shifted = pd.DataFrame({"c": pd.Categorical(["a", "c"])})             # code 1 meant b in fit, now c
    aligned = pd.DataFrame({"c": pd.Categorical(["a", "c"], categories=["a", "b", "c"])})
    return np.array_equal(model.decision_function(shifted), model.decision_function(aligned))


def test_categories_at_score_time_are_matched_by_value(files):
    if not _maps_categories_by_value():
        pytest.skip("the estimators map category codes, not values, in this build")
    full = run_main("score", files / "m.json", files / "test.csv", "--id", "id")[1]
    part = run_main("score", files / "m.json", files / "no_lille.csv", "--id", "id")[1]
    by_id = dict(row for row in csv.reader(io.StringIO(full)))
    rows = list(csv.reader(io.StringIO(part)))[1:]
    assert rows and all(by_id[key] == score for key, score in rows)


def test_categorical_is_refused_for_learners_that_do_not_split_by_category(files):
    status, _, err = run_main("fit", files / "train.csv", "--drop", "id", "--categorical", "auto",
                              "--out", files / "never.json")
    assert status == 2
    assert "--categorical: push (learner stumps) cannot split by category" in err and "--learner trees" in err
    status, _, err = run_main("compare", files / "train.csv", "--drop", "id", "--categorical", "city,colour",
                              "--model", "exactboost", "--no-plots")
    assert status == 2 and "cannot split by category" in err


def test_categorical_names_columns_and_refuses_unknown_ones(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", "--drop", "id,colour", "--categorical", "city,age",
                              "--learner", "trees", "--n-iter", "5", "--out", tmp_path / "m.json", "-q")
    assert status == 0, err
    assert json.loads((tmp_path / "m.json").read_text())["params"]["categorical_features"] == ["city", "age"]
    status, _, err = run_main("fit", files / "train.csv", "--drop", "id", "--categorical", "city,nosuch",
                              "--learner", "trees", "--out", tmp_path / "n.json")
    assert status == 2 and "no feature column 'nosuch' to read by category" in err
    # text left in a column not named is still refused, by name
    status, _, err = run_main("fit", files / "train.csv", "--drop", "id", "--categorical", "city",
                              "--learner", "trees", "--out", tmp_path / "n.json")
    assert status == 2 and "text in 1 column: colour" in err


def test_auto_splits_text_columns_and_its_model_reads_them_by_value(files, tmp_path):
    from rankcore import load_model

    status, _, err = run_main("auto", files / "train.csv", "--drop", "id", "--categorical", "auto",
                              "--candidates", "trees", "--cv", "3", "--out", tmp_path / "auto.json", "-q")
    assert status == 0, err
    model = load_model(tmp_path / "auto.json")
    assert [c is not None for c in model.categories_] == [True, False, True]       # city, age, colour
    frame = load_data(files / "test.csv", drop=["id"], categorical="auto").frame()
    status, out, err = run_main("score", tmp_path / "auto.json", files / "test.csv", "--drop", "id")
    assert status == 0, err
    assert [float(v) for v in out.splitlines()[1:]] == model.decision_function(frame).tolist()
    # the categories present in a file need not be the training file's: matched by value, columns by name
    part = load_data(files / "no_lille.csv", drop=["id"], categorical="auto").frame()
    status, out, err = run_main("score", tmp_path / "auto.json", files / "no_lille.csv", "--drop", "id")
    assert status == 0, err
    assert [float(v) for v in out.splitlines()[1:]] == model.decision_function(part[["city", "age", "colour"]]).tolist()
    status, out, err = run_main("evaluate", tmp_path / "auto.json", files / "test.csv", "--drop", "id", "-m", "auc",
                                "--table-format", "json")
    assert status == 0, err
    assert json.loads(out)[0]["value"] > 0.75


def test_compare_splits_text_columns_with_the_trees(files):
    status, out, err = run_main("compare", files / "train.csv", "--drop", "id", "--categorical", "auto",
                                "--learner", "trees", "--test", files / "test.csv", "--n-iter", "10", "--no-plots",
                                "-m", "auc", "--table-format", "json", "-q")
    assert status == 0, err
    assert {row["split"] for row in json.loads(out)} == {"train", "test"}


# --------------------------------------------------------------------------
# The reader
# --------------------------------------------------------------------------


def test_text_columns_read_as_category_codes_with_both_readers(tmp_path, monkeypatch):
    text = 'a,city,label\n1,"Paris",1\n2, Lyon ,0\n3,NA,1\n4,Lyon,0\n'
    path = tmp_path / "t.csv"
    path.write_text(text)
    fast = load_data(path, categorical="auto")
    monkeypatch.setattr(_csv, "_csv_fast_path", lambda *args: None)      # the checking parser
    checking = load_data(path, categorical=["city"])
    for data in (fast, checking):
        assert list(data.categories["city"]) == ["Lyon", "Paris"]
        np.testing.assert_array_equal(data.X[:, 1], [1, 0, np.nan, 0])
        assert data.missing().columns == ["city"]
        assert data.named


def test_checking_parser_finds_text_after_the_first_chunk(tmp_path, monkeypatch):
    monkeypatch.setattr(_csv, "_CHUNK_ROWS", 2)
    monkeypatch.setattr(_csv, "_csv_fast_path", lambda *args: None)
    path = tmp_path / "late.csv"
    path.write_text("a,b,label\n1,2,0\n3,4,1\n5,6,0\n7,x,1\n8,y,0\n")
    data = load_data(path, categorical="auto")
    assert list(data.categories) == ["b"] and list(data.categories["b"]) == ["2", "4", "6", "x", "y"]
    np.testing.assert_array_equal(data.X[:, 1], [0, 1, 2, 3, 4])
    path.write_text("a,b,c,label\n1,2,3,0\n3,4,u,1\n5,6,7,0\n7,x,8,1\n")
    with pytest.raises(DataError, match=r"line 3, column 'c': expected a number, got 'u'; text in 2 columns: b, c"):
        load_data(path)


def test_keep_reads_a_column_aside(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("key,a,label\nNA,1,0\nb2,2,1\n")
    data = load_data(path, keep=["key"])
    assert data.feature_names == ["a"] and list(data.kept["key"]) == ["NA", "b2"]
    with pytest.raises(DataError, match="only CSV files"):
        np.save(tmp_path / "k.npy", np.ones((2, 2)))
        load_data(tmp_path / "k.npy", keep=["key"])


@pytest.mark.parametrize("categories", [[3, 1, 2, 10], [0.5, 1.5, 2.5], [True, False], [2**63 + 1, 7]])
def test_score_reads_a_files_categories_as_the_model_was_fitted_on_them(tmp_path, categories):
    # a model fitted in Python on a category column of numbers (store ids) or booleans, scored from a CSV: the file's
    # text '1' matched none of 1, 2, 3 and every row took the unseen side, exit 0
    import pandas as pd

    rng = np.random.default_rng(0)
    store = pd.Categorical(rng.choice(np.array(categories, dtype=object), size=300))
    frame = pd.DataFrame({"a": rng.normal(size=300), "store": store})
    y = ((frame["store"] == categories[1]).astype(int) + 0.3 * frame["a"] > 0.5).astype(int).to_numpy()
    model = rankcore.boost(learner="trees", n_iter=10, random_state=0).fit(frame, y)
    rankcore.save_model(model, tmp_path / "m.json")
    frame.head(20).to_csv(tmp_path / "rows.csv", index=False)
    status, out, err = run_main("score", tmp_path / "m.json", tmp_path / "rows.csv")
    assert status == 0 and "none of the categories" not in err, err
    scores = np.array([float(v) for v in out.split()[1:]])
    np.testing.assert_array_equal(scores, model.decision_function(frame.head(20)))


def test_a_category_that_does_not_read_as_the_fits_type_is_refused(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=100), "store": pd.Categorical(rng.choice([3, 1, 2], size=100))})
    model = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(frame, (frame["a"] > 0).astype(int))
    rankcore.save_model(model, tmp_path / "m.json")
    (tmp_path / "rows.csv").write_text("a,store\n0.5,3\n0.1,north\n")
    status, _, err = run_main("score", tmp_path / "m.json", tmp_path / "rows.csv")
    assert status == 2 and "column 'store': the category 'north' is not an integer" in err, err


@pytest.mark.parametrize("categorical_features", [None, ["num_id"], [2]], ids=["none", "by-name", "by-index"])
def test_score_reads_the_columns_a_python_fit_kept_categories_of(tmp_path, categorical_features):
    # fitted in Python on a frame with a category column 'c' and a numeric column given in categorical_features:
    # the file's 'c' is read as categories (the model kept them), 'num_id' as the numbers that fit read
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abcd"), 300)), "x": rng.normal(size=300),
                          "num_id": rng.choice([-3.0, 0.0, 5.0, 12.0], 300)})
    y = ((frame["c"].isin(["b", "d"])) ^ (frame["num_id"] == 5) ^ (frame["x"] > 1)).astype(int).to_numpy()
    model = rankcore.PushBoost(learner="trees:max_leaves=8", n_iter=5, random_state=0,
                               categorical_features=categorical_features).fit(frame, y)
    rankcore.save_model(model, tmp_path / "m.json")
    frame.head(40).to_csv(tmp_path / "rows.csv", index=False)
    status, out, err = run_main("score", tmp_path / "m.json", tmp_path / "rows.csv")
    assert status == 0, err
    scores = np.array([float(v) for v in out.split()[1:]])
    np.testing.assert_allclose(scores, model.decision_function(frame.head(40)), rtol=1e-12, atol=1e-12)


def test_a_text_column_of_more_levels_than_the_bins_is_folded(tmp_path):
    # an item id of 600 possible levels: the fit keeps the 255 most frequent, the others score as missing values
    rng = np.random.default_rng(3)
    n = 2000
    table = {"item": np.array([f"i{v}" for v in rng.zipf(1.3, n) % 600]), "x": rng.normal(size=n)}
    table["label"] = (table["x"] + rng.normal(size=n) > 0).astype(int)
    write_csv(tmp_path / "t.csv", table, ["item", "x", "label"])
    status, _, err = run_main("fit", tmp_path / "t.csv", "--categorical", "auto", "--learner", "trees",
                              "--n-iter", "5", "--out", tmp_path / "m.json", "-q")
    assert status == 0, err
    assert "column 'item' holds" in err and "the fit keeps the 255 most frequent" in err
    model = rankcore.load_model(tmp_path / "m.json")
    assert len(model.categories_[0]) == 255
    frame = load_data(tmp_path / "t.csv", categorical="auto").frame()
    missing = frame.assign(item=frame["item"].where(frame["item"].isin(model.categories_[0])))
    status, out, _ = run_main("score", tmp_path / "m.json", tmp_path / "t.csv")
    assert status == 0
    assert [float(v) for v in out.splitlines()[1:]] == model.decision_function(missing).tolist()

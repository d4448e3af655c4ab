"""The command line matches a file's columns to a model's features by name, and copies an identifier column."""

import contextlib
import csv
import io
import json

import numpy as np
import pytest

from rankcore.cli import main


def run_main(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def write_csv(path, columns: dict, order: list[str]):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(order)
        writer.writerows(zip(*(columns[name] for name in order)))
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Train and test files of the same columns (an id, four features, the label), the test one also swapped."""
    rng = np.random.default_rng(3)
    d = tmp_path_factory.mktemp("columns")

    def table(n):
        X = rng.normal(size=(n, 4)) * [1.0, 3.0, 0.5, 2.0]
        y = (X @ [1.0, -0.5, 2.0, 0.2] + rng.normal(size=n) > 0.3).astype(int)
        columns = {name: [repr(float(v)) for v in X[:, j]] for j, name in enumerate(["a", "b", "c", "d"])}
        columns["label"] = y.tolist()
        columns["id"] = [f"row-{i}" for i in range(n)]
        return columns

    train, test = table(200), table(120)
    write_csv(d / "train.csv", train, ["id", "a", "b", "c", "d", "label"])
    write_csv(d / "test.csv", test, ["id", "a", "b", "c", "d", "label"])
    write_csv(d / "swapped.csv", test, ["label", "d", "b", "id", "c", "a"])
    write_csv(d / "no_c.csv", test, ["id", "a", "b", "d", "label"])
    test["e"] = test["a"]
    write_csv(d / "extra.csv", test, ["id", "a", "b", "c", "d", "e", "label"])
    status, _, err = run_main("fit", d / "train.csv", "--drop", "id", "--n-iter", "20", "--out", d / "m.json", "-q")
    assert status == 0, err
    return d


def metric_of(out: str) -> float:
    (row,) = json.loads(out)
    return row["value"]


def test_fit_keeps_the_feature_names_in_the_model_file(files):
    state = json.loads((files / "m.json").read_text())["state"]
    assert state["feature_names_in"] == ["a", "b", "c", "d"]


def test_swapped_columns_give_the_same_metric(files):
    runs = [run_main("evaluate", files / "m.json", files / name, "--drop", "id", "-m", "auc",
                     "--table-format", "json") for name in ("test.csv", "swapped.csv")]
    assert [r[0] for r in runs] == [0, 0], runs
    assert metric_of(runs[0][1]) == metric_of(runs[1][1])
    # the scores themselves, row by row
    scores = [run_main("score", files / "m.json", files / name, "--drop", "id")[1] for name in ("test.csv",
                                                                                               "swapped.csv")]
    assert scores[0] == scores[1]


def test_a_missing_column_is_refused_by_name(files):
    status, out, err = run_main("evaluate", files / "m.json", files / "no_c.csv", "--drop", "id")
    assert status == 2 and out == ""
    assert "no_c.csv: no column 'c', a feature of the model" in err
    assert len(err.strip().splitlines()) == 1


def test_an_unknown_column_is_refused_by_name_with_the_way_out(files):
    status, _, err = run_main("score", files / "m.json", files / "extra.csv", "--drop", "id")
    assert status == 2
    assert "the column 'e' is not a feature of the model" in err and "--drop e" in err
    status, out, _ = run_main("score", files / "m.json", files / "extra.csv", "--drop", "id,e")
    assert status == 0 and out.startswith("score\n")


def test_score_id_copies_the_identifier_column(files):
    status, out, err = run_main("score", files / "m.json", files / "swapped.csv", "--id", "id", "--with-label")
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["id", "score", "label"]
    assert [r[0] for r in rows[1:4]] == ["row-0", "row-1", "row-2"]
    plain = list(csv.reader(io.StringIO(run_main("score", files / "m.json", files / "test.csv", "--drop", "id")[1])))
    assert [r[1] for r in rows[1:]] == [r[0] for r in plain[1:]]
    status, _, err = run_main("score", files / "m.json", files / "test.csv", "--id", "nosuch")
    assert status == 2 and "no column 'nosuch'" in err


def test_score_id_copies_a_feature_the_model_reads(files):
    # a recommender's item id is both a feature and what a top-10 list must name: --id copies it, the model
    # still reads it (it was refused as "a feature of the model")
    status, out, err = run_main("score", files / "m.json", files / "test.csv", "--id", "b", "--drop", "id")
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["b", "score"]
    with open(files / "test.csv", newline="") as fh:
        written = list(csv.DictReader(fh))
    assert [float(r[0]) for r in rows[1:]] == [float(r["b"]) for r in written]
    plain = list(csv.reader(io.StringIO(run_main("score", files / "m.json", files / "test.csv", "--drop", "id")[1])))
    assert [r[1] for r in rows[1:]] == [r[0] for r in plain[1:]]


@pytest.mark.parametrize("spell", [lambda i: f"00{i}", lambda i: str(10**17 + 2 * i + 1)],
                         ids=["zeros", "beyond-2**53"])
def test_score_id_copies_a_feature_as_written(files, tmp_path, spell):
    # item ids with leading zeros, or beyond 2**53, were copied from the feature's float64 value: 0042 as 42, and
    # 100000000000000001 as 100000000000000000; the model still reads them as numbers
    with open(files / "test.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    ids = [spell(i) for i in range(len(rows))]
    for row, item in zip(rows, ids):
        row["b"] = item
    path = write_csv(tmp_path / "items.csv", {name: [r[name] for r in rows] for name in rows[0]}, list(rows[0]))
    with open(path, "a") as fh:
        fh.write("\n")                                            # a blank line at the end: no row
    status, out, err = run_main("score", files / "m.json", path, "--id", "b", "--drop", "id")
    assert status == 0, err
    written = list(csv.reader(io.StringIO(out)))
    assert written[0] == ["b", "score"]
    assert [r[0] for r in written[1:]] == ids
    plain = list(csv.reader(io.StringIO(run_main("score", files / "m.json", path, "--drop", "id")[1])))
    assert [r[1] for r in written[1:]] == [r[0] for r in plain[1:]]


def test_a_model_without_names_scores_by_position(files, tmp_path):
    import rankcore
    from rankcore.cli.datasets import load_data

    train = load_data(files / "train.csv", drop=["id"])
    model = rankcore.boost(n_iter=20, random_state=0).fit(train.X, train.binary_target())
    rankcore.save_model(model, tmp_path / "old.json")
    assert "feature_names_in" not in json.loads((tmp_path / "old.json").read_text())["state"]
    status, out, err = run_main("score", tmp_path / "old.json", files / "test.csv", "--drop", "id")
    assert status == 0, err
    test = load_data(files / "test.csv", drop=["id"])
    expected = model.decision_function(test.X)
    assert [float(v) for v in out.splitlines()[1:]] == expected.tolist()


def test_a_file_without_names_scores_a_named_model_by_position(files, tmp_path):
    from rankcore.cli.datasets import load_data

    test = load_data(files / "test.csv", drop=["id"])
    np.save(tmp_path / "test.npy", np.column_stack([test.X, test.y]))
    by_position = run_main("score", files / "m.json", tmp_path / "test.npy")
    by_name = run_main("score", files / "m.json", files / "test.csv", "--drop", "id")
    assert by_position[0] == 0 and by_position[2] == "", by_position
    assert by_position[1] == by_name[1]


def test_fit_validation_file_is_matched_by_name(files, tmp_path):
    runs = [run_main("fit", files / "train.csv", "--drop", "id", "--n-iter", "5", "--validation", files / name,
                     "--out", tmp_path / f"{name}.json") for name in ("test.csv", "swapped.csv")]
    assert [r[0] for r in runs] == [0, 0], runs
    shown = [r[2].strip().splitlines()[-1].split("validation auc")[1] for r in runs]
    assert shown[0] == shown[1]
    status, _, err = run_main("fit", files / "train.csv", "--drop", "id", "--validation", files / "no_c.csv",
                              "--out", tmp_path / "x.json")
    assert status == 2 and "no column 'c', a feature of the training data" in err


def test_a_validation_file_without_a_dropped_column_is_read_without_it(files, tmp_path):
    # --drop names the training file's columns; the validation file may not have them (say, an id column)
    with open(files / "test.csv", newline="") as fh:
        ids = list(csv.reader(fh))
    write_csv(tmp_path / "valid.csv", {name: [row[k] for row in ids[1:]] for k, name in enumerate(ids[0])},
              ["a", "b", "c", "d", "label"])
    status, _, err = run_main("fit", files / "train.csv", "--drop", "id", "--n-iter", "5", "--validation",
                              tmp_path / "valid.csv", "--out", tmp_path / "m.json", "-q")
    assert status == 0, err
    # a typo in --drop is still an error on the training file itself
    status, _, err = run_main("fit", files / "train.csv", "--drop", "idd", "--n-iter", "5", "--validation",
                              tmp_path / "valid.csv", "--out", tmp_path / "m2.json", "-q")
    assert status != 0 and "no column 'idd' to drop" in err


@pytest.mark.parametrize("command", [["fit", "--validation"], ["compare", "--no-plots", "--test"]])
def test_a_column_of_the_held_out_file_alone_is_left_out_with_drop_as_advised(files, tmp_path, command):
    name, option = command[0], command[-1]
    out = ["--out", tmp_path / "m.json", "--force"] if name == "fit" else []
    base = [name, files / "train.csv", "--n-iter", "3", *command[1:-1], option, files / "extra.csv", *out, "-q"]
    status, _, err = run_main(*base, "--drop", "id")
    assert status == 2 and "leave it out with --drop e" in err
    status, _, err = run_main(*base, "--drop", "id,e")
    assert status == 0, err
    # a name in no file stays an error, on the training file
    status, _, err = run_main(*base, "--drop", "id,zz")
    assert status == 2 and "train.csv: no column 'zz' to drop" in err

"""``rankcore explain --background FILE``: interventional contributions against FILE's rows, read as DATA is."""

import csv
import io

import numpy as np
import pandas as pd
import pytest

import rankcore
from _cli_run import one_line_error, run_main

TREES = "trees:max_leaves=5,min_samples_leaf=5"
COLORS = np.array(["red", "green", "blue"])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """d.csv (an id, three numbers with a few missing, a text column, a label), a model of trees fitted on it by the
    command line; sample.csv: some of its rows as they are; features.csv: the same rows' features alone."""
    d = tmp_path_factory.mktemp("background")
    rng = np.random.default_rng(5)
    n = 120
    X = np.round(rng.normal(size=(n, 3)), 2)
    X[rng.random(X.shape) < 0.05] = np.nan
    color = rng.integers(0, 3, size=n)
    z = np.nan_to_num(X[:, 0]) + 0.8 * np.nan_to_num(X[:, 1]) + 0.7 * (color == 0)
    y = (z + 0.5 * rng.normal(size=n) > 0).astype(int)
    frame = pd.DataFrame({"name": [f"id{i:03d}" for i in range(n)], "a": X[:, 0], "b": X[:, 1], "c": X[:, 2],
                          "color": COLORS[color], "label": y})
    frame.to_csv(d / "d.csv", index=False)
    frame.iloc[::8].to_csv(d / "sample.csv", index=False)
    frame.iloc[::8][["color", "a", "b", "c"]].to_csv(d / "features.csv", index=False)      # other column order
    frame.iloc[:0].to_csv(d / "empty.csv", index=False)
    frame.iloc[::8][["a", "b", "color"]].to_csv(d / "narrow.csv", index=False)
    status, _, err = run_main("fit", d / "d.csv", "--drop", "name", "--categorical", "color", "--learner", TREES,
                              "--n-iter", "12", "--quiet", "--out", d / "trees.json")
    assert status == 0, err
    return d


def _frame(path):
    """The features of a file as the model was fitted on them (read with pandas, not rankcore's reader)."""
    frame = pd.read_csv(path)
    frame["color"] = pd.Categorical(frame["color"], categories=sorted(COLORS))
    return frame[["a", "b", "c", "color"]]


def _table(files, background, *extra):
    status, out, err = run_main("explain", files / "trees.json", files / "d.csv", "--id", "name", "--background",
                                files / background, "--table-format", "csv", *extra)
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    return rows[0], rows[1:]


@pytest.mark.parametrize("background", ["sample.csv", "features.csv"])
def test_the_csv_holds_the_librarys_interventional_contributions(files, background):
    header, rows = _table(files, background)
    assert header == ["name", "rank", "score", "expected", "contribution:a", "contribution:b", "contribution:c",
                      "contribution:color"]
    model = rankcore.load_model(files / "trees.json")
    X, Z = _frame(files / "d.csv"), _frame(files / "sample.csv")
    phi = model.feature_contributions(X, background=Z)
    index = np.array([int(r[0][2:]) for r in rows])
    values = np.array([[float(v) for v in r[2:]] for r in rows])
    np.testing.assert_allclose(values[:, 1], phi[index, -1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 2:], phi[index, :-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 1], model.decision_function(Z).mean(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 1:].sum(axis=1), values[:, 0], rtol=0, atol=1e-9)
    assert not np.allclose(phi, model.feature_contributions(X))


def test_text_and_summary_outputs_take_the_background(files):
    status, out, err = run_main("explain", files / "trees.json", files / "d.csv", "--id", "name", "--background",
                                files / "sample.csv", "--top", "3")
    assert status == 0, err
    model = rankcore.load_model(files / "trees.json")
    expected = model.decision_function(_frame(files / "sample.csv")).mean()
    shown = float(out.split("expected score ", 1)[1].split(";", 1)[0])
    assert shown == pytest.approx(expected, abs=5e-3)
    plain = run_main("explain", files / "trees.json", files / "d.csv", "--id", "name", "--top", "3")[1]
    assert float(plain.split("expected score ", 1)[1].split(";", 1)[0]) != shown
    status, summary, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--summary",
                                    "--background", files / "features.csv", "--table-format", "csv")
    assert status == 0, err
    status, plain, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--summary",
                                  "--table-format", "csv")
    assert status == 0 and summary != plain


@pytest.mark.parametrize("background, fragments", [
    ("narrow.csv", ["narrow.csv", "c"]),
    ("empty.csv", ["empty.csv"]),
    ("missing.csv", ["missing.csv"]),
])
def test_a_bad_background_file_is_one_line_error(files, background, fragments):
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--background",
                              files / background)
    one_line_error(status, err, *fragments)


def test_permutation_importance_refuses_a_background(files):
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--permutation",
                              "--background", files / "sample.csv")
    one_line_error(status, err, "--background: not with --permutation")


def test_groups_give_one_contribution_per_group(files):
    """--groups a+c: columns a and c one player, b and color alone; players in the order of their first columns."""
    header, rows = _table(files, "sample.csv", "--groups", "c + a")
    assert header == ["name", "rank", "score", "expected", "contribution:a+c", "contribution:b",
                      "contribution:color"]
    model = rankcore.load_model(files / "trees.json")
    X, Z = _frame(files / "d.csv"), _frame(files / "sample.csv")
    phi = model.feature_contributions(X, background=Z, groups=[0, 1, 0, 2])
    index = np.array([int(r[0][2:]) for r in rows])
    values = np.array([[float(v) for v in r[2:]] for r in rows])
    np.testing.assert_allclose(values[:, 1], phi[index, -1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 2:], phi[index, :-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 1:].sum(axis=1), values[:, 0], rtol=0, atol=1e-9)
    status, out, err = run_main("explain", files / "trees.json", files / "d.csv", "--id", "name", "--background",
                                files / "sample.csv", "--groups", "a+c,b+color", "--top", "2", "--features", "2")
    assert status == 0, err
    first = np.argmax(model.decision_function(X))
    shown = [line for line in out.splitlines() if f"id{first:03d}" in line][0]
    a, c = X.iloc[first]["a"], X.iloc[first]["c"]
    assert f"a+c={'missing' if np.isnan(a) else repr(float(a))}/{'missing' if np.isnan(c) else repr(float(c))} (" \
        in shown
    assert f"b+color={float(X.iloc[first]['b'])!r}/{X.iloc[first]['color']} (" in shown
    status, summary, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--summary",
                                    "--background", files / "sample.csv", "--groups", "a+b+c", "--table-format", "csv")
    assert status == 0, err
    assert sorted(line.split(",")[0] for line in summary.splitlines()[1:]) == ["a+b+c", "color"]


@pytest.mark.parametrize("extra, fragments", [
    (["--groups", "a+b"], ["--groups: only with --background FILE"]),
    (["--background", "sample.csv", "--groups", "a+zz"], ["--groups: no column 'zz'", "a, b, c, color"]),
    (["--background", "sample.csv", "--groups", "a+b,b+c"], ["--groups: column 'b' is named twice"]),
    (["--background", "sample.csv", "--groups", "a+,b"], ["--groups 'a+,b': an empty group or column name"]),
])
def test_bad_groups_are_one_line_errors(files, extra, fragments):
    extra = [files / e if e.endswith(".csv") else e for e in extra]
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", *extra)
    one_line_error(status, err, *fragments)


@pytest.mark.parametrize("background", ["sample.csv", "features.csv"])
def test_interactions_per_row_are_the_librarys_interventional_interaction_values(files, background, tmp_path):
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--id", "name", "--interactions",
                              "--per-row", "--background", files / background, "--out", tmp_path / "tidy.csv")
    assert status == 0, err
    records = list(csv.DictReader(open(tmp_path / "tidy.csv")))
    model = rankcore.load_model(files / "trees.json")
    X, Z = _frame(files / "d.csv"), _frame(files / "sample.csv")
    Phi = model.feature_interactions(X, background=Z)
    names = ["a", "b", "c", "color"]
    got = {(r["name"], r["feature_i"], r["feature_j"]): float(r["interaction"]) for r in records}
    expected = {(f"id{row:03d}", names[i], names[j]): Phi[row, i, j]
                for row in range(X.shape[0]) for i in range(4) for j in range(i, 4) if Phi[row, i, j] != 0}
    assert got.keys() == expected.keys()
    np.testing.assert_allclose([got[k] for k in expected], list(expected.values()), rtol=0, atol=0)
    assert not np.allclose(Phi, model.feature_interactions(X))


def test_the_interaction_summary_takes_the_background(files):
    args = ("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--interactions", "--table-format",
            "csv")
    status, out, err = run_main(*args, "--background", files / "sample.csv")
    assert status == 0, err
    model = rankcore.load_model(files / "trees.json")
    Phi = model.feature_interactions(_frame(files / "d.csv"), background=_frame(files / "sample.csv"))
    names = ["a", "b", "c", "color"]
    for record in csv.DictReader(io.StringIO(out)):
        i, j = names.index(record["feature_i"]), names.index(record["feature_j"])
        assert float(record["mean_abs_interaction"]) == pytest.approx(np.abs(Phi[:, i, j]).mean(), rel=1e-12)
    assert out != run_main(*args)[1]


def test_interactions_of_groups_of_columns(files, tmp_path):
    """--interactions --background --groups: the pairs are of players, named by their columns joined by '+'."""
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--id", "name", "--interactions",
                              "--per-row", "--background", files / "sample.csv", "--groups", "c+a", "--out",
                              tmp_path / "tidy.csv")
    assert status == 0, err
    records = list(csv.DictReader(open(tmp_path / "tidy.csv")))
    model = rankcore.load_model(files / "trees.json")
    Phi = model.feature_interactions(_frame(files / "d.csv"), background=_frame(files / "sample.csv"),
                                     groups=[0, 1, 0, 2])
    names = ["a+c", "b", "color"]
    got = {(r["name"], r["feature_i"], r["feature_j"]): float(r["interaction"]) for r in records}
    expected = {(f"id{row:03d}", names[i], names[j]): Phi[row, i, j]
                for row in range(Phi.shape[0]) for i in range(3) for j in range(i, 3) if Phi[row, i, j] != 0}
    assert got == expected

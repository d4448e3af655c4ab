"""``rankcore explain --groups``: column names holding '+', ',' or a backslash, written behind a backslash."""

import csv
import io

import numpy as np
import pandas as pd
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from rankcore.cli._background import escape_name, read_groups, split_groups

NAMES = ["a", "c+d", "e,f", "g\\h", "k"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """d.csv whose columns are named a, c+d, e,f, g\\h and k, and a model of trees fitted on it."""
    d = tmp_path_factory.mktemp("groups_names")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({name: rng.normal(size=80).round(3) for name in NAMES})
    frame["label"] = (frame["a"] + frame["c+d"] - frame["e,f"] + rng.normal(size=80) > 0).astype(int)
    frame.to_csv(d / "d.csv", index=False)
    status, _, err = run_main("fit", d / "d.csv", "--learner", "trees:max_leaves=5,min_samples_leaf=5", "--n-iter",
                              "6", "--quiet", "--out", d / "m.json")
    assert status == 0, err
    return d


def _contributions(files, spec):
    status, out, err = run_main("explain", files / "m.json", files / "d.csv", "--background", files / "d.csv",
                                "--groups", spec, "--table-format", "csv")
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    return rows[0], np.array([[float(v) for v in row[3:]] for row in rows[1:]]), [int(row[0]) - 1 for row in rows[1:]]


@pytest.mark.parametrize("spec, labels, player", [
    ("c\\+d+a", [0, 0, 1, 2, 3], "contribution:a+c\\+d"),
    ("e\\,f + k", [0, 1, 2, 3, 2], "contribution:e\\,f+k"),
    ("g\\\\h+c\\+d, e\\,f+a", [0, 1, 0, 1, 2], "contribution:a+e\\,f"),
])
def test_escaped_names_are_the_librarys_groups(files, spec, labels, player):
    """Each escaped name is its column: the values are the library's for the same groups, the header names a
    group's columns escaped as they are written."""
    header, values, rows = _contributions(files, spec)
    assert player in header
    model = rankcore.load_model(files / "m.json")
    X = pd.read_csv(files / "d.csv")[NAMES]
    phi = model.feature_contributions(X, background=X, groups=labels)
    np.testing.assert_allclose(values[:, 0], phi[rows, -1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 1:], phi[rows, :-1], rtol=0, atol=1e-12)


def test_the_plain_form_still_splits_on_plus_and_comma():
    assert split_groups("a+b,c") == [["a", "b"], ["c"]]
    assert split_groups(" a + b , c ") == [["a", "b"], ["c"]]
    assert split_groups("a\\+b,c\\,d") == [["a+b"], ["c,d"]]
    # a backslash before any other character is itself: names with backslashes are written as before
    assert split_groups("C:\\x+y\\") == [["C:\\x", "y\\"]]
    assert split_groups("a\\\\+b") == [["a\\", "b"]]


@pytest.mark.parametrize("name", ["a+b", "a,b", "a\\b", "a\\+b", "a\\", "+,\\\\", "plain"])
def test_escape_name_is_read_back_as_the_name(name):
    assert split_groups(escape_name(name)) == [[name]]
    labels, players, _ = read_groups(escape_name(name), [name, "z"])
    assert labels.tolist() == [0, 1] and players == [name, "z"]


@pytest.mark.parametrize("spec, unknown", [("c+d+a", "c"), ("e,f", "e"), ("zz", "zz")])
def test_a_name_not_in_the_data_is_a_one_line_error_that_says_how_to_escape(files, spec, unknown):
    status, _, err = run_main("explain", files / "m.json", files / "d.csv", "--background", files / "d.csv",
                              "--groups", spec)
    one_line_error(status, err, f"--groups: no column {unknown!r}", "the columns are a, c+d, e,f, g\\h, k",
                   "write a name's '+', ',' and backslash as \\+, \\, and \\\\: 'c+d' as c\\+d, 'e,f' as e\\,f")


def test_an_escaped_name_not_in_the_data_is_refused(files):
    status, _, err = run_main("explain", files / "m.json", files / "d.csv", "--background", files / "d.csv",
                              "--groups", "a\\+k")
    one_line_error(status, err, "--groups: no column 'a+k'")


def test_a_column_named_as_a_group_keeps_every_player_name_distinct_and_readable_back():
    """Column 'a+b' beside the group of 'a' and 'b': both would be shown 'a+b'; then every column alone is
    written escaped, so that the names are distinct and each, given as SPEC, names that player again."""
    names = ["a", "b", "a+b", "c,d", "e\\"]
    labels, players, columns = read_groups("a+b", names)
    assert labels.tolist() == [0, 0, 1, 2, 3]
    assert players == ["a+b", "a\\+b", "c\\,d", "e\\\\"]
    for player, members in zip(players, columns):
        _, _, again = read_groups(player, names)
        assert members in again
    # without such a collision a column alone keeps its name as the output shows it
    assert read_groups("a+c\\,d", names)[1] == ["a+c\\,d", "b", "a+b", "e\\"]


def test_the_header_of_a_column_named_as_a_group_is_distinct(tmp_path):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({name: rng.normal(size=60).round(3) for name in ("a", "b", "a+b")})
    frame["label"] = (frame.sum(axis=1) + rng.normal(size=60) > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run_main("fit", tmp_path / "d.csv", "--learner", "trees:max_leaves=4", "--n-iter", "4",
                              "--quiet", "--out", tmp_path / "m.json")
    assert status == 0, err
    status, out, err = run_main("explain", tmp_path / "m.json", tmp_path / "d.csv", "--background", tmp_path / "d.csv",
                                "--groups", "a+b", "--table-format", "csv")
    assert status == 0, err
    header = next(csv.reader(io.StringIO(out)))
    assert [c for c in header if c.startswith("contribution:")] == ["contribution:a+b", "contribution:a\\+b"]


def test_a_name_with_surrounding_spaces_is_found_by_its_stripped_name():
    """SPEC's names are stripped: a column ' lead' is found as 'lead' when no column is named so."""
    labels, players, _ = read_groups(" lead +a", ["a", "b", " lead"])
    assert labels.tolist() == [0, 1, 0] and players == ["a+ lead", "b"]
    # the exact name first: 'x' is the column x, not ' x'
    assert read_groups("x+b", ["x", "b", " x"])[0].tolist() == [0, 0, 1]
    with pytest.raises(Exception, match="no column 'x'"):
        read_groups("x+b", [" x", "b", "x "])          # two columns strip to it: neither is guessed

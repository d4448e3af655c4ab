"""``rankcore explain MODEL DATA --interactions``: the pairs of features by mean |SHAP interaction value|, and each
row's values (``--per-row``), equal to the library's ``feature_interactions``."""

import csv
import io
import json

import numpy as np
import pandas as pd
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from rankcore.cli import _interaction_output

COLORS = np.array(["red", "green", "blue"])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A CSV file of an id column, three numbers (a few missing), a text column and a label; a model of trees fitted
    on it by the command line, and one of stumps."""
    d = tmp_path_factory.mktemp("explain_interactions")
    rng = np.random.default_rng(3)
    n = 120
    X = np.round(rng.normal(size=(n, 3)), 2)
    X[rng.random(X.shape) < 0.05] = np.nan
    color = rng.integers(0, 3, size=n)
    z = np.nan_to_num(X[:, 0]) * np.nan_to_num(X[:, 1]) + 0.7 * (color == 0)
    y = (z + 0.3 * rng.normal(size=n) > 0).astype(int)
    with open(d / "d.csv", "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["name", "a", "b", "c", "color", "label"])
        for i in range(n):
            writer.writerow([f"id{i:03d}"] + ["" if np.isnan(v) else repr(float(v)) for v in X[i]]
                            + [COLORS[color[i]], y[i]])
    status, _, err = run_main("fit", d / "d.csv", "--drop", "name", "--categorical", "color", "--learner",
                              "trees:max_leaves=5,min_samples_leaf=5", "--n-iter", "12", "--quiet",
                              "--out", d / "trees.json")
    assert status == 0, err
    rankcore.save_model(rankcore.PushBoost(n_iter=3).fit(np.nan_to_num(X), y), d / "stumps.json")
    return d


def _library(files):
    model = rankcore.load_model(files / "trees.json")
    frame = pd.read_csv(files / "d.csv")
    frame["color"] = pd.Categorical(frame["color"], categories=sorted(COLORS))
    X = frame[["a", "b", "c", "color"]]
    return model, X, model.feature_interactions(X), model.decision_function(X), frame["name"].to_numpy()


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_the_summary_ranks_the_pairs_by_mean_absolute_value(files, fmt):
    _, _, Phi, _, _ = _library(files)
    status, out, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--interactions",
                                "--table-format", fmt)
    assert status == 0, err
    records = list(csv.DictReader(io.StringIO(out))) if fmt == "csv" else json.loads(out)
    names = ["a", "b", "c", "color"]
    assert len(records) == 6                                  # every pair i < j
    means = [float(r["mean_abs_interaction"]) for r in records]
    assert means == sorted(means, reverse=True) and means[0] > 0
    for record in records:
        i, j = names.index(record["feature_i"]), names.index(record["feature_j"])
        assert i < j
        assert float(record["mean_abs_interaction"]) == pytest.approx(np.abs(Phi[:, i, j]).mean(), rel=1e-12)
        assert float(record["mean_interaction"]) == pytest.approx(Phi[:, i, j].mean(), rel=1e-9, abs=1e-15)


def test_the_text_summary_and_the_top_rows(files):
    status, out, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--interactions",
                                "--features", "2")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("mean SHAP interaction value of each pair of features over 120 rows")
    assert "(2 of 6 pairs shown)" in lines[0] and len(lines) == 4
    status, out, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--interactions",
                                "--top", "5")
    assert status == 0 and "over 5 rows" in out.splitlines()[0], err


def test_per_row_gives_every_nonzero_value_to_the_last_bit(files, tmp_path):
    _, _, Phi, scores, ids = _library(files)
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--id", "name", "--interactions",
                              "--per-row", "--top", "3", "--out", tmp_path / "tidy.csv")
    assert status == 0, err
    records = list(csv.DictReader(open(tmp_path / "tidy.csv")))
    assert list(records[0]) == ["name", "rank", "feature_i", "feature_j", "interaction"]
    top = np.argsort(-scores, kind="stable")[:3]
    names = ["a", "b", "c", "color"]
    expected = [(ids[r], str(k + 1), names[i], names[j], repr(float(Phi[r, i, j])))
                for k, r in enumerate(top) for i in range(4) for j in range(i, 4) if Phi[r, i, j] != 0]
    assert [tuple(r.values()) for r in records] == expected


def test_blocks_of_rows_give_the_same_output(files, monkeypatch):
    args = ("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--interactions", "--per-row",
            "--table-format", "json")
    whole = run_main(*args)
    monkeypatch.setattr(_interaction_output, "BLOCK_BYTES", 1)              # one row a block
    assert run_main(*args) == whole and whole[0] == 0


@pytest.mark.parametrize("options, fragment", [
    (["--per-row"], "--per-row: only with --interactions"),
    (["--interactions", "--summary"], "--summary: not with --interactions"),
    (["--interactions", "--per-row", "--features", "2"], "--features: not with --interactions --per-row"),
    (["--interactions", "--permutation"], "--interactions: not with --permutation"),
])
def test_option_conflicts(files, options, fragment):
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", *options)
    one_line_error(status, err, fragment)


def test_a_model_of_stumps_is_refused(files):
    status, _, err = run_main("explain", files / "stumps.json", files / "d.csv", "--drop", "name,color",
                              "--interactions")
    one_line_error(status, err, "cannot explain its scores", "learner 'stumps'")


def test_wide_data_sums_and_writes_only_the_features_the_trees_split_on(tmp_path):
    """200 columns of which the trees split a few: the CSV holds only the pairs that are not 0, each equal to the
    library's value, and the values of the unsplit features are never summed (a block is sliced to the split ones)."""
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(150, 200)), 1)
    y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(int)
    pd.DataFrame(X, columns=[f"f{j}" for j in range(200)]).assign(label=y).to_csv(tmp_path / "w.csv", index=False)
    status, _, err = run_main("fit", tmp_path / "w.csv", "--learner", "trees:max_leaves=4,min_samples_leaf=5",
                              "--n-iter", "5", "--quiet", "--out", tmp_path / "m.json")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    used = _interaction_output.split_features(model, 200)
    assert 2 <= used.size < 20
    Phi = model.feature_interactions(X)
    features = Phi[:, :200, :200]
    assert not np.any(np.delete(features, used, axis=1)) and not np.any(np.delete(features, used, axis=2))
    status, out, err = run_main("explain", tmp_path / "m.json", tmp_path / "w.csv", "--interactions",
                                "--table-format", "csv")
    assert status == 0, err
    records = list(csv.DictReader(io.StringIO(out)))
    mean_abs = np.abs(Phi[:, :200, :200]).mean(axis=0)
    assert len(records) == int(np.count_nonzero(np.triu(mean_abs, 1))) < 200
    for record in records:
        i, j = int(record["feature_i"][1:]), int(record["feature_j"][1:])
        assert float(record["mean_abs_interaction"]) == pytest.approx(mean_abs[i, j], rel=1e-12) != 0

"""``rankcore explain MODEL DATA``: the top rows' feature contributions, equal to the library's, in text, CSV, JSON."""

import contextlib
import csv
import io
import json
import re

import numpy as np
import pandas as pd
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from _init_score_data import N_ITER, ranked, write
from _model_files import resign
from rankcore.cli import main
from rankcore.persistence import model_to_dict

TREES = "trees:max_leaves=5,min_samples_leaf=5"
COLORS = np.array(["red", "green", "blue"])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A CSV file of an id column, three numbers (a few missing), a text column and a label; a model of trees
    fitted on it by the command line, and one of stumps."""
    d = tmp_path_factory.mktemp("explain")
    rng = np.random.default_rng(3)
    n = 120
    X = np.round(rng.normal(size=(n, 3)), 2)
    X[rng.random(X.shape) < 0.05] = np.nan
    color = rng.integers(0, 3, size=n)
    z = np.nan_to_num(X[:, 0]) + 0.8 * np.nan_to_num(X[:, 1]) + 0.7 * (color == 0)
    y = (z + 0.5 * rng.normal(size=n) > 0).astype(int)
    with open(d / "d.csv", "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["name", "a", "b", "c", "color", "label"])
        for i in range(n):
            writer.writerow([f"id{i:03d}"] + ["" if np.isnan(v) else repr(float(v)) for v in X[i]]
                            + [COLORS[color[i]], y[i]])
    status, _, err = run_main("fit", d / "d.csv", "--drop", "name", "--categorical", "color", "--learner", TREES,
                              "--n-iter", "12", "--quiet", "--out", d / "trees.json")
    assert status == 0, err
    rankcore.save_model(rankcore.PushBoost(n_iter=3).fit(np.nan_to_num(X), y), d / "stumps.json")
    return d


def _frame(path):
    """The features of d.csv as the model was fitted on them (read with pandas, not rankcore's reader)."""
    frame = pd.read_csv(path)
    frame["color"] = pd.Categorical(frame["color"], categories=sorted(COLORS))
    return frame[["a", "b", "c", "color"]]


def _library(files):
    model = rankcore.load_model(files / "trees.json")
    X = _frame(files / "d.csv")
    return model, X, model.feature_contributions(X), model.decision_function(X)


def _csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def _explain(files, *extra):
    """``rankcore explain`` of the model of trees on d.csv, its names dropped unless they are the ``--id``."""
    names = () if "--id" in extra else ("--drop", "name")
    status, out, err = run_main("explain", files / "trees.json", files / "d.csv", *names, *extra)
    assert status == 0, err
    return out, err


# ----------------------------------------------------------------------
# The contributions: the library's
# ----------------------------------------------------------------------


def test_the_csv_holds_every_row_from_the_top_with_the_librarys_contributions(files):
    out, _ = _explain(files, "--table-format", "csv")
    model, X, phi, scores = _library(files)
    header, rows = _csv(out)
    assert header == ["row", "rank", "score", "expected", "contribution:a", "contribution:b", "contribution:c",
                      "contribution:color"]
    assert len(rows) == X.shape[0]
    index = np.array([int(r[0]) - 1 for r in rows])                 # row numbers from 1
    assert sorted(index) == list(range(X.shape[0]))
    values = np.array([[float(v) for v in r[2:]] for r in rows])
    np.testing.assert_allclose(values[:, 0], scores[index], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 1], phi[index, -1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 2:], phi[index, :-1], rtol=0, atol=1e-12)
    # each row's score is the expected score plus its contributions
    np.testing.assert_allclose(values[:, 1:].sum(axis=1), values[:, 0], rtol=0, atol=1e-9)
    # from the top, with the ranks of `rankcore score --rank`
    assert np.all(np.diff(values[:, 0]) <= 0)
    status, scored, err = run_main("score", files / "trees.json", files / "d.csv", "--drop", "name", "--rank")
    assert status == 0, err
    ranks = [int(r[1]) for r in _csv(scored)[1]]
    assert [int(r[1]) for r in rows] == [ranks[i] for i in index]


def test_json_is_the_csv_as_records(files):
    records = json.loads(_explain(files, "--table-format", "json", "--top", "7")[0])
    header, rows = _csv(_explain(files, "--table-format", "csv", "--top", "7")[0])
    assert len(records) == len(rows) == 7
    for record, row in zip(records, rows):
        assert list(record) == header
        assert record["row"] == int(row[0]) and record["rank"] == int(row[1])
        assert [record[name] for name in header[2:]] == [float(v) for v in row[2:]]


def test_top_keeps_the_first_rows_of_the_ranking(files):
    header, every = _csv(_explain(files, "--table-format", "csv")[0])
    _, top = _csv(_explain(files, "--table-format", "csv", "--top", "5")[0])
    assert top == every[:5]
    _, more = _csv(_explain(files, "--table-format", "csv", "--top", "100000")[0])
    assert more == every


def test_rows_are_explained_a_block_at_a_time(files, monkeypatch):
    from rankcore.cli import _explanations

    whole = [_explain(files, "--table-format", fmt)[0] for fmt in ("csv", "json")]
    monkeypatch.setattr(_explanations, "BLOCK_ROWS", 7)                 # 120 rows: 17 full blocks and one of 1
    assert [_explain(files, "--table-format", fmt)[0] for fmt in ("csv", "json")] == whole


def test_out_writes_the_csv_and_refuses_to_overwrite_without_force(files, tmp_path):
    target = tmp_path / "contributions.csv"
    out, err = _explain(files, "--out", target)
    assert out == "" and f"wrote the contributions of 120 rows to {target}" in err
    assert target.read_text() == _explain(files, "--table-format", "csv")[0]
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--drop", "name", "--out", target)
    one_line_error(status, err, "already exists; pass --force")
    _explain(files, "--out", target, "--force", "--top", "2", "--quiet")
    assert len(target.read_text().splitlines()) == 3
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--out", files / "d.csv", "--force")
    one_line_error(status, err, "is the input DATA")


# ----------------------------------------------------------------------
# The text output
# ----------------------------------------------------------------------

_LINE = re.compile(r"^ *(?P<rank>\d+)  (?P<id>\S+) +(?P<score>-?\d+\.\d{3})  (?P<terms>.*)$")
_TERM = re.compile(r"(?P<feature>\w+)=(?P<value>\S+) \((?P<phi>[+-]\d+\.\d{3})\)")


def _shown(text):
    """The text output's lines: (header line, [(rank, id, score, [(feature, value, contribution)])])."""
    lines = text.rstrip("\n").split("\n")
    rows = []
    for line in lines[2:]:
        match = _LINE.match(line)
        assert match, line
        terms = [(m["feature"], m["value"], float(m["phi"])) for m in _TERM.finditer(match["terms"])]
        assert "  ".join(f"{f}={v} ({p:+.3f})" for f, v, p in terms) == match["terms"], line
        rows.append((int(match["rank"]), match["id"], float(match["score"]), terms))
    return lines, rows


def test_text_shows_the_top_ten_rows_and_their_three_largest_contributions(files):
    out, err = _explain(files)
    # the file's missing values are said as score and evaluate say them: one status line, nothing else
    assert len(err.splitlines()) == 1 and err.endswith("; the model scores them as missing values\n"), err
    model, X, phi, scores = _library(files)
    lines, rows = _shown(out)
    assert lines[0] == (f"expected score {phi[0, -1]:.3f}; each score = expected + the row's feature contributions "
                        "(the 3 largest non-zero shown)")
    assert re.fullmatch(r"rank  row +score  contributions", lines[1]), lines[1]
    assert len(rows) == 10
    order = np.lexsort((np.arange(len(scores)), -scores))[:10]
    names = ["a", "b", "c", "color"]
    frame = pd.read_csv(files / "d.csv")
    for (rank, shown_id, score, terms), i in zip(rows, order):
        assert int(shown_id) == i + 1 and score == pytest.approx(scores[i], abs=5e-4)
        largest = [j for j in np.argsort(-np.abs(phi[i, :-1]), kind="stable")[:3] if phi[i, j] != 0]
        assert [t[0] for t in terms] == [names[j] for j in largest]
        for (feature, value, contribution), j in zip(terms, largest):
            assert contribution == pytest.approx(phi[i, j], abs=5e-4)
            cell = frame.loc[i, feature]
            assert value == ("missing" if pd.isna(cell) else cell if feature == "color" else f"{cell:.6g}")
    assert [r[0] for r in rows] == sorted(r[0] for r in rows) and rows[0][0] == 1


def test_text_line_format(files):
    out, _ = _explain(files, "--top", "2", "--features", "1", "--id", "name")
    lines = out.splitlines()
    assert len(lines) == 4
    assert lines[1].split() == ["rank", "name", "score", "contributions"]
    for line in lines[2:]:
        assert re.fullmatch(r"   [12]  id\d{3}  +-?\d+\.\d{3}  \w+=\S+ \([+-]\d+\.\d{3}\)", line), line


def test_features_and_id(files):
    out, _ = _explain(files, "--features", "10", "--top", "4", "--id", "name")
    _, rows = _shown(out)
    model, X, phi, scores = _library(files)
    for _, shown_id, _, terms in rows:
        i = int(shown_id[2:])
        assert len(terms) == np.count_nonzero(phi[i, :-1])             # every non-zero one, no more than 4
    header, records = _csv(_explain(files, "--table-format", "csv", "--top", "3", "--id", "name")[0])
    assert header[:2] == ["name", "rank"]
    assert all(re.fullmatch(r"id\d{3}", r[0]) for r in records)


def _shared_ranks(scores):
    """Ranks of scores listed from the top: 1 for the first, tied scores sharing the best rank."""
    return [1 + sum(s > score for s in scores) for score in scores]


# ----------------------------------------------------------------------
# Queries and initial scores
# ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def queries(tmp_path_factory):
    d = tmp_path_factory.mktemp("explain_queries")
    write(d / "train.csv", *ranked(0, n_queries=12))
    for name, extra in (("plain", ("--drop", "prior")), ("init", ("--init-score", "prior"))):
        status, _, err = run_main("fit", d / "train.csv", "--qid", "query", "--label", "grade", "--learner", TREES,
                                  "--n-iter", N_ITER, "--quiet", "--out", d / f"{name}.json", *extra)
        assert status == 0, err
    return d


def test_qid_lists_the_top_of_each_query_in_the_order_queries_appear(queries):
    status, out, err = run_main("explain", queries / "plain.json", queries / "train.csv", "--qid", "query",
                                "--label", "grade", "--drop", "prior", "--top", "3", "--table-format", "csv")
    assert status == 0, err
    header, rows = _csv(out)
    assert header[:4] == ["row", "query", "rank", "score"]
    frame = pd.read_csv(queries / "train.csv")
    model = rankcore.load_model(queries / "plain.json")
    scores = model.decision_function(frame[["a", "b", "c"]])
    first_seen = list(dict.fromkeys(frame["query"]))
    assert [r[1] for r in rows[::3]] == first_seen
    for q in first_seen:
        mine = [r for r in rows if r[1] == q]
        best = np.sort(scores[frame["query"].to_numpy() == q])[::-1][:3]
        np.testing.assert_allclose([float(r[3]) for r in mine], best, rtol=0, atol=1e-12)
        assert [int(r[2]) for r in mine] == _shared_ranks([float(r[3]) for r in mine])
    status, text, err = run_main("explain", queries / "plain.json", queries / "train.csv", "--qid", "query",
                                 "--label", "grade", "--drop", "prior", "--top", "2")
    assert status == 0, err
    lines = text.splitlines()
    assert lines[1].split() == ["rank", "row", "query", "score", "contributions"]
    assert len(lines) == 2 + 2 * len(first_seen)
    assert [line.split()[2] for line in lines[2:4]] == [first_seen[0]] * 2


def test_init_score_is_one_more_term(queries):
    base = ("explain", queries / "init.json", queries / "train.csv", "--qid", "query", "--label", "grade")
    status, _, err = run_main(*base)
    one_line_error(status, err, "fitted from initial scores", "--init-score COLUMN")
    status, out, err = run_main(*base, "--init-score", "prior", "--table-format", "csv")
    assert status == 0, err
    header, rows = _csv(out)
    assert header[:6] == ["row", "query", "rank", "score", "init_score", "expected"]
    values = np.array([[float(v) for v in r[3:]] for r in rows])
    # the score is the initial score + the expected score + the contributions, which explain the correction
    np.testing.assert_allclose(values[:, 1:].sum(axis=1), values[:, 0], rtol=0, atol=1e-9)
    frame = pd.read_csv(queries / "train.csv")
    index = [int(r[0]) - 1 for r in rows]
    np.testing.assert_allclose(values[:, 1], frame["prior"].to_numpy()[index], rtol=0, atol=0)
    phi = rankcore.load_model(queries / "init.json").feature_contributions(frame[["a", "b", "c"]])
    np.testing.assert_allclose(values[:, 2], phi[index, -1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 3:], phi[index, :-1], rtol=0, atol=1e-12)
    status, text, err = run_main(*base, "--init-score", "prior", "--top", "1")
    assert status == 0, err
    assert "each score = init_score + expected + the row's feature contributions" in text.splitlines()[0]
    assert text.splitlines()[1].split() == ["rank", "row", "query", "score", "init_score", "contributions"]


# ----------------------------------------------------------------------
# Refusals
# ----------------------------------------------------------------------


def test_a_model_of_stumps_is_refused_with_what_explains(files):
    # it has the method, which says why it cannot: the file's rows are read first, missing values and all
    status, out, err = run_main("explain", files / "stumps.json", files / "d.csv", "--drop", "name,color")
    one_line_error(status, err, "stumps.json (PushBoost (learner stumps)) cannot explain its scores",
                   "fit with --learner trees")
    assert out == ""


@pytest.mark.parametrize("kind", ["KernelRanker"])
def test_models_without_contributions_are_refused_before_reading_data(kind, tmp_path):
    from rankcore.rkhs import KernelRanker

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    model = {"KernelRanker": KernelRanker(lam=0.1, random_state=0)}[kind].fit(X, y)
    rankcore.save_model(model, tmp_path / "m.json")
    status, _, err = run_main("explain", tmp_path / "m.json", tmp_path / "no-such-file.csv")
    one_line_error(status, err, f"({kind}", "cannot explain its scores", "fit with --learner trees")


def _exactboost_file(files, tmp_path, **params):
    """An ExactBoost fitted on d.csv's numeric columns (missing values as 0, as written to e.csv), saved."""
    frame = pd.read_csv(files / "d.csv")[["a", "b", "c", "label"]].fillna(0.0)
    frame.to_csv(tmp_path / "e.csv", index=False)
    model = rankcore.ExactBoost(n_runs=3, n_rounds=6, random_state=0, **params).fit(frame[["a", "b", "c"]],
                                                                                    frame["label"])
    rankcore.save_model(model, tmp_path / "eb.json")
    return model, frame[["a", "b", "c"]]


def test_an_exactboost_model_is_explained_with_the_librarys_contributions(files, tmp_path):
    model, X = _exactboost_file(files, tmp_path)
    for extra, background in (((), None), (("--background", tmp_path / "e.csv"), X)):
        status, out, err = run_main("explain", tmp_path / "eb.json", tmp_path / "e.csv", "--label", "label",
                                    "--table-format", "csv", *extra)
        assert status == 0, err
        header, rows = _csv(out)
        phi = model.feature_contributions(X, background=background)
        got = {int(r[header.index("row")]) - 1: [float(r[header.index(f"contribution:{f}")]) for f in "abc"]
               + [float(r[header.index("expected")])] for r in rows}
        assert len(got) == X.shape[0]
        for row, values in got.items():
            np.testing.assert_allclose(values, phi[row], rtol=1e-9, atol=1e-12)


def test_an_exactboost_model_with_a_head_is_refused_with_how_to_refit(files, tmp_path):
    _exactboost_file(files, tmp_path, metric="prec@k:10")
    status, out, err = run_main("explain", tmp_path / "eb.json", tmp_path / "e.csv", "--label", "label")
    one_line_error(status, err, "(ExactBoost) cannot explain its scores", "not a sum over features",
                   "--model 'exactboost:metric=prec@k:10,head=None'")
    assert out == ""


def test_a_model_file_without_covers_says_to_refit(files, tmp_path):
    data = model_to_dict(rankcore.load_model(files / "trees.json"))
    for record in data["state"]["rankers"]:
        record.pop("cover")
    (tmp_path / "old.json").write_text(json.dumps(resign(data)))
    status, _, err = run_main("explain", tmp_path / "old.json", files / "d.csv", "--drop", "name")
    one_line_error(status, err, "has no covers", "refit the model")


def test_columns_the_model_does_not_know(files, tmp_path):
    frame = pd.read_csv(files / "d.csv").drop(columns="name")
    frame.assign(extra=1.5).to_csv(tmp_path / "extra.csv", index=False)
    status, _, err = run_main("explain", files / "trees.json", tmp_path / "extra.csv")
    one_line_error(status, err, "the column 'extra' is not a feature of the model", "--drop extra")
    status, _, err = run_main("explain", files / "trees.json", files / "d.csv", "--id", "a", "--drop", "name")
    one_line_error(status, err, "--id a: a feature of the model")
    frame.drop(columns="b").to_csv(tmp_path / "no_b.csv", index=False)
    status, _, err = run_main("explain", files / "trees.json", tmp_path / "no_b.csv")
    one_line_error(status, err, "no column 'b', a feature of the model")


@pytest.mark.parametrize("option", ["--top", "--features"])
@pytest.mark.parametrize("value", ["0", "-2", "x"])
def test_top_and_features_must_be_at_least_one(files, option, value, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["explain", str(files / "trees.json"), str(files / "d.csv"), "--drop", "name", option, value])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: expected an integer >= 1, got '{value}'" in err and "Traceback" not in err


def _help_of(*argv):
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit, contextlib.redirect_stdout(out):
        main([*argv, "--help"])
    assert exit.value.code == 0
    return " ".join(out.getvalue().split())


def test_help():
    assert "explain the features that put the top rows" in _help_of()
    text = _help_of("explain")
    for option in ("--top N", "--features K", "--id COLUMN", "--qid COLUMN", "--init-score COLUMN",
                   "--table-format {text,csv,json}", "--out FILE.csv", "--force", "--drop COLS"):
        assert option in text, option


def test_id_and_query_columns_named_as_output_columns_are_prefixed(queries, tmp_path):
    frame = pd.read_csv(queries / "train.csv").rename(columns={"query": "rank"})
    frame.insert(0, "score", [f"s{i}" for i in range(len(frame))])
    frame.to_csv(tmp_path / "named.csv", index=False)
    base = ("explain", queries / "plain.json", tmp_path / "named.csv", "--qid", "rank", "--label", "grade",
            "--drop", "prior", "--id", "score", "--top", "2")
    status, out, err = run_main(*base, "--table-format", "csv")
    assert status == 0, err
    header, rows = _csv(out)
    assert header[:5] == ["id:score", "query:rank", "rank", "score", "expected"]
    assert len(set(header)) == len(header)
    status, out, err = run_main(*base, "--table-format", "json")
    records = json.loads(out)
    assert records[0]["id:score"].startswith("s") and records[0]["query:rank"] == rows[0][1]


def test_values_are_shown_as_the_file_gives_them(tmp_path):
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(120, 2)) * 1e6, 3)
    y = (X[:, 0] > 0).astype(int)
    pd.DataFrame({"amount": X[:, 0], "other": X[:, 1], "y": y}).to_csv(tmp_path / "a.csv", index=False)
    assert run_main("fit", tmp_path / "a.csv", "--label", "y", "--learner", TREES, "--n-iter", "5", "--quiet",
                    "--out", tmp_path / "m.json")[0] == 0
    status, out, err = run_main("explain", tmp_path / "m.json", tmp_path / "a.csv", "--label", "y", "--top", "1")
    assert status == 0, err
    top = int(np.argmax(rankcore.load_model(tmp_path / "m.json").decision_function(X)))
    assert f"amount={float(X[top, 0])!r} (" in out


def test_an_auto_model_that_cannot_explain_says_how_auto_can(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0.5).astype(int)
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "y": y}).to_csv(tmp_path / "d.csv", index=False)
    assert run_main("auto", tmp_path / "d.csv", "--label", "y", "--candidates", "linear", "--quiet",
                    "--out", tmp_path / "auto.json")[0] == 0
    status, _, err = run_main("explain", tmp_path / "auto.json", tmp_path / "d.csv", "--label", "y")
    one_line_error(status, err, "cannot explain its scores",
                   "refit with rankcore auto DATA --candidates trees --no-blend")


def test_a_feature_named_label_read_as_the_labels_is_said(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 2))
    pd.DataFrame({"label": X[:, 0], "b": X[:, 1], "y": (X[:, 0] > 0).astype(int)}).to_csv(tmp_path / "l.csv",
                                                                                        index=False)
    assert run_main("fit", tmp_path / "l.csv", "--label", "y", "--learner", TREES, "--n-iter", "3", "--quiet",
                    "--out", tmp_path / "m.json")[0] == 0
    for command in ("explain", "score"):
        status, _, err = run_main(command, tmp_path / "m.json", tmp_path / "l.csv", "--drop", "y")
        one_line_error(status, err, "no column 'label', a feature of the model",
                       "a column named 'label' is read as the labels unless --label COLUMN names the label column")
        assert run_main(command, tmp_path / "m.json", tmp_path / "l.csv", "--label", "y")[0] == 0


def test_summary_is_the_mean_contributions_over_the_rows_listed(files):
    model, X, phi, scores = _library(files)
    names = list(X.columns)
    out, _ = _explain(files, "--summary", "--table-format", "csv")
    header, rows = _csv(out)
    assert header == ["feature", "mean_abs_contribution", "mean_contribution"]
    means = {r[0]: (float(r[1]), float(r[2])) for r in rows}
    for j, name in enumerate(names):
        np.testing.assert_allclose(means[name], (np.abs(phi[:, j]).mean(), phi[:, j].mean()), rtol=1e-12, atol=1e-15)
    assert [float(r[1]) for r in rows] == sorted((float(r[1]) for r in rows), reverse=True)
    # the top rows only: their means
    out, _ = _explain(files, "--summary", "--top", "5", "--table-format", "json")
    top = np.argsort(-scores, kind="stable")[:5]
    records = {r["feature"]: r for r in json.loads(out)}
    for j, name in enumerate(names):
        assert records[name]["mean_contribution"] == pytest.approx(phi[top, j].mean(), abs=1e-12)
    text, _ = _explain(files, "--summary")
    lines = text.splitlines()
    assert lines[0] == f"mean contribution of each feature over {X.shape[0]} rows, by mean |contribution|"
    assert lines[1].split() == ["feature", "mean", "|contribution|", "mean", "contribution"]
    assert len(lines) == 2 + len(names)

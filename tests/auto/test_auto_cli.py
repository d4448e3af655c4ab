"""`rankcore auto`: leaderboard, saved model, report, errors."""

import json

import numpy as np
import pytest

import rankcore
from rankcore.cli import main

FAST = "trees:n_iter=8,linear:n_epochs=2,stumps:n_iter=10"


@pytest.fixture
def data_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.6 * rng.normal(size=150) > 0.5).astype(int)
    path = tmp_path / "d.csv"
    with open(path, "w") as fh:
        fh.write("a,b,c,d,label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    return path, X, y


def test_auto_cli_prints_the_leaderboard_saves_the_choice_and_writes_the_report(data_csv, tmp_path, capsys):
    path, X, y = data_csv
    out, report = tmp_path / "m.json", tmp_path / "auto.html"
    code = main(["auto", str(path), "--metric", "prec@k:0.1", "--candidates", FAST, "--out", str(out),
                 "--report", str(report), "--table-format", "json", "--progress", "lines"])
    assert code == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert rows[0]["status"] == "chosen"
    assert {r["candidate"] for r in rows} >= {"trees:n_iter=8", "linear:n_epochs=2", "stumps:n_iter=10"}
    assert "auto: " in captured.err and "fold 1/5" in captured.err and "chose " in captured.err
    model = rankcore.load_model(out)
    library = rankcore.AutoRanker(metric="prec@k:0.1", candidates=FAST.split(","), random_state=0).fit(X, y)
    assert model.best_candidate_ == library.best_candidate_ == rows[0]["candidate"]
    np.testing.assert_allclose(model.decision_function(X), library.decision_function(X), rtol=1e-12)
    page = report.read_text()
    assert "leading candidates" in page and rows[0]["candidate"] in page and "data:image/svg+xml" in page


def test_auto_cli_no_bag_folds_saves_the_refit_alone(data_csv, tmp_path):
    from rankcore.auto import FoldBag

    path, X, y = data_csv
    bagged, plain = tmp_path / "bag.json", tmp_path / "plain.json"
    assert main(["auto", str(path), "--candidates", FAST, "--out", str(bagged), "--quiet"]) == 0
    assert main(["auto", str(path), "--candidates", FAST, "--no-bag-folds", "--out", str(plain), "--quiet"]) == 0
    assert rankcore.load_model(plain).bag_folds is False
    best, alone = rankcore.load_model(bagged).best_estimator_, rankcore.load_model(plain).best_estimator_
    members = best.estimators if hasattr(best, "names") else [best]
    assert all(isinstance(m, FoldBag) for m in members)
    assert not isinstance(alone, FoldBag) and not any(isinstance(m, FoldBag) for m in getattr(alone, "estimators", []))


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--metric", "prec@k:100"], "cannot be computed on the validation folds"),
    (["--metric", "roc"], "not a scalar metric"),
    (["--candidates", "trees,nothing-like-this"], "unknown candidate"),
    (["--cv", "x"], "--cv"),
    (["--time", "-2"], "--time"),
    # said as the option (before: "time_budget: ...; give at least that, or time_budget=None")
    (["--time", "0.000001"], "error: --time: 1e-06 s is too small for even one candidate: the default"),
    (["--time", "0.000001"], "give at least that, or leave out --time"),
])
def test_auto_cli_errors_are_one_line(data_csv, tmp_path, capsys, argv, fragment):
    path, _, _ = data_csv
    base = ["auto", str(path), "--out", str(tmp_path / "m.json"), "--quiet"]
    try:
        code = main(base + ([] if "--candidates" in argv else ["--candidates", FAST]) + argv)
    except SystemExit as exc:           # argparse's own usage errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and err.splitlines()[-1].startswith(("rankcore: error: ", "rankcore auto: error: ")), err
    assert not (tmp_path / "m.json").exists()


def test_auto_cli_refuses_to_overwrite_the_data(data_csv, capsys):
    path, _, _ = data_csv
    before = path.read_bytes()
    assert main(["auto", str(path), "--candidates", FAST, "--out", str(path), "--quiet", "--force"]) == 2
    assert "is the input DATA" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_auto_cli_keeps_the_small_data_blend_unless_no_blend(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.7 * rng.normal(size=60) > 0.3).astype(int)
    path = tmp_path / "small.csv"
    path.write_text("a,b,c,label\n" + "".join(",".join(map(repr, row)) + f",{label}\n"
                                             for row, label in zip(X.tolist(), y.tolist())))
    assert main(["auto", str(path), "--table-format", "json", "--quiet", "--out", str(tmp_path / "a.json")]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["candidate"] == "blend(linear+kernel+exactboost)" and rows[0]["status"] == "chosen"
    assert any(r["status"] == "skipped" and r["candidate"] == "trees" for r in rows)
    assert main(["auto", str(path), "--table-format", "json", "--quiet", "--no-blend",
                 "--out", str(tmp_path / "b.json")]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert not rows[0]["candidate"].startswith("blend(")
    assert not any(r["status"] == "skipped" and r["candidate"] == "trees" for r in rows)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_auto_cli_json_and_csv_give_the_leaderboard_as_numbers_under_stable_names(data_csv, tmp_path, capsys, fmt):
    # the text table's cells ("0.0352 ± 0.0148", "-") are not for scripts: numbers, and null for a missing one
    path, X, y = data_csv
    assert main(["auto", str(path), "--candidates", FAST, "--cv", "3", "--quiet", "--table-format", fmt,
                 "--out", str(tmp_path / "m.json")]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        rows = json.loads(out)
    else:
        import csv
        import io

        rows = [{k: (v if k in ("candidate", "status", "metric", "note") else None if v == "" else float(v))
                 for k, v in row.items()} for row in csv.DictReader(io.StringIO(out))]
    assert list(rows[0]) == ["candidate", "status", "metric", "mean", "sd", "n_folds", "fit_seconds",
                             "score_seconds", "note"]
    board = rankcore.load_model(tmp_path / "m.json").leaderboard_
    assert [r["candidate"] for r in rows] == [r.name for r in board]
    for row, expected in zip(rows, board):
        assert row["metric"] == "pauc:0.1" and row["n_folds"] == expected.n_folds
        for key, value in (("mean", expected.mean), ("sd", expected.sd)):
            assert row[key] == (value if np.isfinite(value) else None)
        # the model file keeps no timings; a nested estimate (the blend) has no fit of its own
        assert (row["fit_seconds"] is None) == row["candidate"].startswith("blend(")
        assert row["fit_seconds"] is None or row["fit_seconds"] > 0

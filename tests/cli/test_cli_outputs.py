"""The CLI never writes over its inputs, nor over an existing file without --force."""

import os

import numpy as np
import pytest

from rankcore.cli import main


@pytest.fixture
def data_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    path = tmp_path / "d.csv"
    with open(path, "w") as fh:
        fh.write("a,b,c,label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    return path


def _fit(data, out, *extra):
    return main(["fit", str(data), "--n-iter", "3", "--quiet", "--out", str(out), *extra])


def _one_line_error(capsys, *fragments):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("rankcore: error: ")
    for fragment in fragments:
        assert fragment in err, err
    return err


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_fit_never_overwrites_its_data(data_csv, capsys, force):
    before = data_csv.read_bytes()
    assert _fit(data_csv, data_csv, *(["--force"] if force else [])) == 2
    _one_line_error(capsys, "--out", "is the input DATA")
    assert data_csv.read_bytes() == before


def test_fit_never_overwrites_its_data_through_a_link_or_another_spelling(data_csv, tmp_path, capsys):
    before = data_csv.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(data_csv)
    assert _fit(data_csv, link, "--force") == 2
    _one_line_error(capsys, "is the input DATA")
    other_spelling = tmp_path / "sub" / ".." / "d.csv"
    (tmp_path / "sub").mkdir()
    assert _fit(data_csv, other_spelling, "--force") == 2
    _one_line_error(capsys, "is the input DATA")
    assert data_csv.read_bytes() == before


def test_fit_refuses_an_existing_out_unless_forced(data_csv, tmp_path, capsys):
    out = tmp_path / "m.json"
    out.write_text("keep me")
    assert _fit(data_csv, out) == 2
    _one_line_error(capsys, "--out", "already exists; pass --force")
    assert out.read_text() == "keep me"
    assert _fit(data_csv, out, "--force") == 0
    assert out.read_text().startswith("{")


def test_fit_refuses_the_validation_file_and_a_shared_output(data_csv, tmp_path, capsys):
    val = tmp_path / "v.csv"
    val.write_bytes(data_csv.read_bytes())
    assert _fit(data_csv, val, "--validation", str(val), "--force") == 2
    _one_line_error(capsys, "is the input --validation")
    pytest.importorskip("matplotlib")
    out = tmp_path / "same"
    assert _fit(data_csv, out, "--plot-objective", str(out)) == 2
    _one_line_error(capsys, "--plot-objective", "choose distinct files")


def test_score_never_overwrites_the_model_or_the_data(data_csv, tmp_path, capsys):
    model = tmp_path / "m.json"
    assert _fit(data_csv, model) == 0
    saved = model.read_bytes()
    for out, name in ((model, "MODEL"), (data_csv, "DATA")):
        assert main(["score", str(model), str(data_csv), "--out", str(out), "--force", "-q"]) == 2
        _one_line_error(capsys, "--out", f"is the input {name}")
    assert model.read_bytes() == saved
    scores = tmp_path / "s.csv"
    assert main(["score", str(model), str(data_csv), "--out", str(scores), "-q"]) == 0
    assert main(["score", str(model), str(data_csv), "--out", str(scores), "-q"]) == 2
    _one_line_error(capsys, "already exists; pass --force")
    assert main(["score", str(model), str(data_csv), "--out", str(scores), "-q", "--force"]) == 0


def test_compare_report_figures_and_saved_models_are_not_overwritten(data_csv, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    common = ["compare", str(data_csv), "--n-iter", "3", "-q", "--progress", "none"]
    assert main([*common, "--no-plots", "--report", str(data_csv), "--force"]) == 2
    _one_line_error(capsys, "--report", "is the input DATA")
    report = tmp_path / "r.html"
    report.write_text("old report")
    assert main([*common, "--no-plots", "--report", str(report)]) == 2
    _one_line_error(capsys, "--report", "already exists")
    assert report.read_text() == "old report"
    figures = tmp_path / "figs"
    figures.mkdir()
    (figures / "roc.svg").write_text("my own figure")
    assert main([*common, "--out-dir", str(figures)]) == 2
    _one_line_error(capsys, "roc.svg", "already exists; pass --force")
    # --no-plots with --report needs the figures, not the files: the user's file is untouched
    assert main([*common, "--out-dir", str(figures), "--no-plots", "--report", str(report), "--force"]) == 0
    assert (figures / "roc.svg").read_text() == "my own figure"
    models = tmp_path / "models"
    assert main([*common, "--no-plots", "--save-models", str(models)]) == 0
    saved = sorted(os.listdir(models))
    assert main([*common, "--no-plots", "--save-models", str(models)]) == 2
    _one_line_error(capsys, "--save-models", "already exists")
    assert main([*common, "--no-plots", "--save-models", str(models), "--force"]) == 0
    assert sorted(os.listdir(models)) == saved


def test_compare_run_twice_by_cron_is_told_how_to_run_again(data_csv, tmp_path, capsys, monkeypatch):
    """A second run in the same directory (a cron job) meets the first one's figures, written into the current
    directory by default: the refusal names every way out, not --force alone."""
    monkeypatch.chdir(tmp_path)
    common = ["compare", str(data_csv), "--n-iter", "2", "-q", "--table-format", "csv"]
    assert main(common) == 0 and (tmp_path / "roc.svg").exists()
    capsys.readouterr()
    assert main(common) == 2
    _one_line_error(capsys, "roc.svg' already exists; pass --force to overwrite it, --out-dir DIR to write the "
                            "figures into another directory, or --no-plots to write none (without --out-dir the "
                            "figures are written into the current directory)")
    assert main([*common, "--no-plots"]) == 0
    figures = tmp_path / "figs"
    assert main([*common, "--out-dir", str(figures)]) == 0 and main([*common, "--out-dir", str(figures)]) == 2
    err = _one_line_error(capsys, "or --no-plots to write none")
    assert "current directory" not in err


def test_demo_refuses_to_overwrite_an_earlier_run_unless_forced(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out_dir = tmp_path / "demo"
    out_dir.mkdir()
    (out_dir / "objective.svg").write_text("earlier")
    args = ["demo", "--n-iter", "2", "--out-dir", str(out_dir), "-q"]
    assert main(args) == 2
    _one_line_error(capsys, "objective.svg", "already exists; pass --force")
    assert (out_dir / "objective.svg").read_text() == "earlier"
    assert main([*args, "--force"]) == 0
    assert b"<svg" in (out_dir / "objective.svg").read_bytes()[:400]


@pytest.mark.parametrize("extra, fragment", [
    (["--plot-objective", "obj.txt"], "--plot-objective: expected a file name ending in .svg, .png or .pdf, got"),
    (["--plot-objective", "obj"], "--plot-objective: expected a file name ending in .svg, .png or .pdf, got"),
    (["--model", "kernel", "--plot-objective", "k.svg"], "--plot-objective: kernel records no objective per iteration"),
], ids=["extension", "no-extension", "one-step-model"])
def test_fit_refuses_a_figure_it_cannot_draw_before_training(data_csv, tmp_path, capsys, monkeypatch, extra, fragment):
    # a name or model that cannot give the figure is known before any training, and nothing is written
    monkeypatch.chdir(tmp_path)
    assert main(["fit", str(data_csv), "--quiet", "--out", "m.json", *extra]) == 2
    _one_line_error(capsys, fragment)
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("out", ["", "newdir/", " "])
def test_an_output_that_is_no_file_name_is_refused_before_training(data_csv, tmp_path, capsys, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    assert _fit(data_csv, out) == 2
    _one_line_error(capsys, f"--out: expected a file name, got {out!r}")


def test_a_report_inside_a_new_out_dir_is_written(data_csv, tmp_path, capsys):
    # --out-dir is created if missing, so a report in it was refused ("the directory does not exist") for nothing
    out_dir = tmp_path / "figs"
    common = ["compare", str(data_csv), "--n-iter", "3", "-q", "--progress", "none"]
    assert main([*common, "--out-dir", str(out_dir), "--report", str(out_dir / "report.html")]) == 0
    assert (out_dir / "report.html").is_file() and (out_dir / "roc.svg").is_file()
    capsys.readouterr()
    assert main([*common, "--no-plots", "--report", str(tmp_path / "nowhere" / "report.html")]) == 2
    _one_line_error(capsys, "--report", "does not exist")

"""`rankcore evaluate --ci`, `rankcore compare --ci` (tables, JSON, report, ROC band) and the band itself."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from rankcore.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("ci")
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.35).astype(int)
    X = rng.normal(size=(300, 4)) + 0.7 * y[:, None] * np.array([1.0, 0.5, 0.0, 0.2])
    np.savetxt(d / "data.csv", np.c_[X, y], delimiter=",", header="a,b,c,d,label", comments="")
    assert _run("fit", d / "data.csv", "--model", "push", "--n-iter", "10", "-o", d / "m.json", "-q")[0] == 0
    return d


def _run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def test_evaluate_ci_adds_interval_columns(files):
    status, out, _ = _run("evaluate", files / "m.json", files / "data.csv", "--metrics", "auc,pauc:0.1,rmax",
                          "--ci", "--n-boot", "200", "--table-format", "json")
    assert status == 0
    rows = json.loads(out)
    assert [r["metric"] for r in rows] == ["auc", "pauc:0.1", "rmax"]
    assert [r["method"] for r in rows] == ["delong", "bootstrap", "bootstrap"]
    assert all(r["lower"] <= r["value"] <= r["upper"] for r in rows)
    status, text, _ = _run("evaluate", files / "m.json", files / "data.csv", "--ci", "0.9", "--n-boot", "200")
    assert status == 0 and text.splitlines()[0].split() == ["metric", "value", "lower", "upper", "method"]
    plain = _run("evaluate", files / "m.json", files / "data.csv", "--table-format", "json")[1]
    assert set(json.loads(plain)[0]) == {"metric", "value"}


@pytest.mark.parametrize("argv, message", [
    (["--ci", "1.5"], "confidence level in (0, 1)"),
    (["--ci", "0.95", "--n-boot", "50"], ">= 100"),
    (["--ci", "0.95", "--n-boot", str(2**62)], ">= 100 and <= 1,000,000, got '4611686018427387904'"),
])
def test_evaluate_ci_bad_options(files, argv, message, capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", str(files / "m.json"), str(files / "data.csv"), *argv])
    assert message in capsys.readouterr().err


def test_compare_ci_tables_report_and_band(files, tmp_path):
    status, out, _ = _run("compare", files / "data.csv", "--model", "push,rankboost", "--n-iter", "10",
                          "--metrics", "auc,pauc:0.2,prec@k:10", "--ci", "--n-boot", "200", "-q",
                          "--out-dir", tmp_path / "figs", "--report", tmp_path / "r.html", "--table-format", "json")
    assert status == 0
    tables = json.loads(out)
    assert set(tables) == {"metrics", "intervals", "differences"}
    assert len(tables["intervals"]) == 2 * 3
    assert len(tables["differences"]) == 3 and {r["metric"] for r in tables["differences"]} == {
        "auc", "pauc:0.2", "prec@k:10"}
    assert all(0 <= r["p"] <= 1 and r["lower"] <= r["delta"] <= r["upper"] for r in tables["differences"])
    page = (tmp_path / "r.html").read_text()
    assert "Δ against the best" in page and "95% intervals" in page
    svg = (tmp_path / "figs" / "roc.svg").read_text()
    assert svg.count("data-band=") == 4  # two models, two splits
    status, text, _ = _run("compare", files / "data.csv", "--model", "push,rankboost", "--n-iter", "5",
                           "--ci", "0.9", "--n-boot", "100", "-q", "--no-plots")
    assert status == 0 and "Δ against the best, 90% interval, paired p-value" in text


def test_roc_band_reads_the_replicate_curves():
    from rankcore.metrics import roc_band
    from rankcore.metrics._roc_band import _tp_at

    fp = np.array([0.0, 2.0, 2.0, 5.0])
    tp = np.array([3.0, 3.0, 6.0, 7.0])
    grid = np.arange(7.0)
    naive = []
    for x in grid:  # the polyline through (0,0) and the points, the top of vertical steps
        xs, ys = np.r_[0.0, fp], np.r_[0.0, tp]
        at = max(i for i in range(len(xs)) if xs[i] <= x)
        nxt = min(at + 1, len(xs) - 1)
        naive.append(ys[at] + (ys[nxt] - ys[at]) * (x - xs[at]) / (xs[nxt] - xs[at]) if xs[nxt] > xs[at] else ys[at])
    np.testing.assert_allclose(_tp_at(fp, tp, grid), naive)
    rng = np.random.default_rng(1)
    y = (rng.random(400) < 0.3).astype(int)
    s = np.round(y + rng.normal(size=400), 1)
    x, lower, upper = roc_band(y, s, max_fp=20, n_boot=200, random_state=0)
    assert x.tolist() == list(range(21))
    assert (lower <= upper).all() and (np.diff(lower) >= -1e-9).all() and (np.diff(upper) >= -1e-9).all()
    with pytest.raises(ValueError, match="y: a confidence interval needs at least two rows"):
        roc_band([0, 0, 0, 1], [1, 2, 3, 4], max_fp=2)


def test_roc_bands_drawn_by_matplotlib():
    pytest.importorskip("matplotlib")
    from rankcore.plotting import add_roc_bands, roc_data, to_matplotlib

    rng = np.random.default_rng(2)
    y = (rng.random(300) < 0.3).astype(int)
    curves = {"a": (y, y + rng.normal(size=300)), "b": (y, rng.normal(size=300))}
    figure = add_roc_bands(roc_data(curves), curves, n_boot=100)
    fig = to_matplotlib(figure)
    gids = {c.get_gid() for ax in fig.axes for c in ax.collections}
    assert {"roc-band:a", "roc-band:b"} <= gids


def test_compare_without_ci_prints_the_table_alone(files):
    status, out, _ = _run("compare", files / "data.csv", "--model", "push", "--n-iter", "5", "-q", "--no-plots",
                          "--table-format", "json")
    assert status == 0 and isinstance(json.loads(out), list)

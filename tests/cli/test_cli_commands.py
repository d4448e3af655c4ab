"""The `rankcore` command line, run as users run it.

What only a real process shows goes through the console script and `python -m rankcore`: the entry points, the
exit status of argparse's own errors, a real pipe and a real terminal, the terminal's encoding, `--debug`'s
traceback, a missing matplotlib.  The rest runs the same `main()` in-process (`in_process`), with the test's
directory as the working directory, so that relative paths and the messages naming them are what users see.
"""

import csv
import json
import os
import re
import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import numpy as np
import pytest

import rankcore
from _cli_run import run_main
from rankcore.cli import main, version_line

pytest.importorskip("matplotlib")

SCRIPT = Path(sys.executable).with_name("rankcore")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_cli(*args, cwd, env=None, module=False, timeout=600):
    """Run the real entry point in a fresh process; returns the CompletedProcess."""
    if module or not SCRIPT.exists():
        command = [sys.executable, "-m", "rankcore", *map(str, args)]
    else:
        command = [str(SCRIPT), *map(str, args)]
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(command, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout)


def in_process(*args):
    """``rankcore ARGS...`` through ``main()`` in this process (run from the current directory: tests call
    ``monkeypatch.chdir``); a CompletedProcess like :func:`run_cli`'s, so that the checks read alike."""
    status, out, err = run_main(*args)
    return subprocess.CompletedProcess(args, status, out, err)


@pytest.fixture(scope="module")
def wdbc_csv(tmp_path_factory):
    """scikit-learn's bundled breast-cancer data as a CSV with a header; label 1 = malignant."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    path = tmp_path_factory.mktemp("data") / "wdbc.csv"
    names = [n.replace(" ", "_") for n in data.feature_names]
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(names + ["diagnosis"])
        for row, target in zip(data.data.tolist(), data.target.tolist()):
            writer.writerow([repr(v) for v in row] + ["M" if target == 0 else "B"])
    return path


def load_wdbc():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X, (y == 0).astype(int)


def assert_one_line_error(done, *fragments):
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("rankcore: error: "), lines[0]
    assert "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# --------------------------------------------------------------------------
# The entry points
# --------------------------------------------------------------------------


def test_console_script_and_module_show_every_subcommand(tmp_path):
    assert SCRIPT.exists(), "the rankcore console script is not installed next to the interpreter"
    for module in (False, True):
        done = run_cli("--help", cwd=tmp_path, module=module)
        assert done.returncode == 0, done.stderr
        for command in ("fit", "score", "explain", "evaluate", "compare", "plugins", "demo"):
            assert command in done.stdout
    done = run_cli("--version", cwd=tmp_path, module=True)
    assert done.stdout.strip() == version_line(rankcore.__version__)
    assert done.stdout.startswith(f"rankcore {rankcore.__version__}")



def test_no_subcommand_is_a_usage_error(tmp_path):
    done = run_cli(cwd=tmp_path)
    assert done.returncode == 2
    assert "usage: rankcore" in done.stdout


def test_unknown_option_is_a_usage_error(tmp_path):
    done = run_cli("fit", "x.csv", "--no-such-option", cwd=tmp_path)
    assert done.returncode == 2
    assert "unrecognized arguments: --no-such-option" in done.stderr


# --------------------------------------------------------------------------
# fit -> score -> evaluate
# --------------------------------------------------------------------------


def test_fit_score_evaluate_round_trip(tmp_path, wdbc_csv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = in_process("fit", wdbc_csv, "--label", "diagnosis", "--loss", "exp", "--price", "pow:16",
                      "--learner", "stumps", "--n-iter", "40", "--out", "model.json")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # results only; status and progress go to stderr
    assert "saved push (PushBoost) to model.json" in done.stderr
    model = rankcore.load_model(tmp_path / "model.json")
    assert model.get_params()["price"] == "pow:16" and model.n_iter_ == 40
    assert model.get_params()["verbose"] == 0

    X, y = load_wdbc()
    expected = rankcore.PushBoost(loss="exp", price="pow:16", learner="stumps", n_iter=40, random_state=0).fit(X, y)

    done = in_process("score", "model.json", wdbc_csv, "--label", "diagnosis", "--out", "scores.csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(open(tmp_path / "scores.csv")))
    assert rows[0] == ["score"] and len(rows) == X.shape[0] + 1
    scores = np.array([float(r[0]) for r in rows[1:]])
    np.testing.assert_array_equal(scores, expected.decision_function(X))

    done = in_process("evaluate", "model.json", wdbc_csv, "--label", "diagnosis",
                      "--metrics", "auc,rmax,prec@k:50,pauc:0.1,mcclish", "--table-format", "json")
    assert done.returncode == 0, done.stderr
    values = {r["metric"]: r["value"] for r in json.loads(done.stdout)}
    reference = rankcore.evaluate(y, scores, ["auc", "rmax", "prec@k:50", "pauc:0.1,mcclish"])
    assert values == pytest.approx(reference)


def test_score_to_stdout_with_label_and_rank(tmp_path, wdbc_csv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["fit", str(wdbc_csv), "--label", "diagnosis", "--n-iter", "5", "--out", str(tmp_path / "m.json"),
                 "--quiet"]) == 0
    done = in_process("score", "m.json", wdbc_csv, "--label", "diagnosis", "--with-label", "--rank")
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(done.stdout.splitlines()))
    assert rows[0] == ["score", "diagnosis", "rank"]
    scores = np.array([float(r[0]) for r in rows[1:]])
    ranks = np.array([int(r[2]) for r in rows[1:]])
    assert ranks.min() == 1 and ranks[np.argmax(scores)] == 1
    assert all((scores > s).sum() + 1 == r for s, r in zip(scores, ranks))  # tied scores share a rank
    assert {r[1] for r in rows[1:]} == {"M", "B"}


# --------------------------------------------------------------------------
# compare: table, figures, report
# --------------------------------------------------------------------------


def test_compare_table_figures_and_report(tmp_path, wdbc_csv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = in_process("compare", wdbc_csv, "--label", "diagnosis", "--price", "identity,pow:4,pow:16,pow:64",
                      "--n-iter", "30", "--test-size", "0.3", "--metrics", "rmax,prec@k:10,auc",
                   "--out-dir", "figs", "--image-format", "png", "--report", "report.html")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split() == ["model", "split", "rmax", "prec@k:10", "auc"]
    labels = [" ".join(line.split()[:2]) for line in lines[1:]]
    assert labels == [f"push {p}" for p in ("identity", "pow:4", "pow:16", "pow:64") for _ in (0, 1)]
    assert [line.split()[2] for line in lines[1:]][:2] == ["train", "test"]

    for name in ("roc", "precision_at_k", "objective"):
        data = (tmp_path / "figs" / f"{name}.png").read_bytes()
        assert data.startswith(PNG_MAGIC), name
        assert f"wrote {os.path.join('figs', name + '.png')}: " in done.stderr  # and what to look at

    html = (tmp_path / "report.html").read_text()
    assert html.count("data:image/svg+xml;base64,") == 3
    assert not re.search(r"""(src|href)=["'](https?:)?//""", html), "the report must not load anything"
    for fragment in ("push pow:64", "rankcore compare", "--price identity,pow:4,pow:16,pow:64", "scikit-learn",
                     f"<td>{rankcore.__version__}</td>", "sha256", "&quot;price&quot;: &quot;pow:16&quot;"):
        assert fragment in html, fragment


def test_compare_values_match_the_library(tmp_path, wdbc_csv):
    from sklearn.model_selection import train_test_split

    args = ["compare", str(wdbc_csv), "--label", "diagnosis", "--price", "identity,pow:8", "--n-iter", "20",
            "--no-plots", "--quiet", "--table-format", "json", "--metrics", "rmax,auc,prec@k:0.05"]
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(args) == 0
    table = json.loads(buffer.getvalue())
    X, y = load_wdbc()
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    for price in ("identity", "pow:8"):
        model = rankcore.PushBoost(price=price, n_iter=20, random_state=0).fit(X_tr, y_tr)
        for split, X_s, y_s in (("train", X_tr, y_tr), ("test", X_te, y_te)):
            row = next(r for r in table if r["model"] == f"push {price}" and r["split"] == split)
            expected = rankcore.evaluate(y_s, model.decision_function(X_s), ["rmax", "auc", "prec@k:0.05"])
            assert {k: row[k] for k in expected} == pytest.approx(expected)


def test_compare_several_model_kinds_and_saved_models(tmp_path, wdbc_csv):
    test_file = tmp_path / "test.csv"
    lines = wdbc_csv.read_text().splitlines()
    (tmp_path / "train.csv").write_text("\n".join(lines[:400]) + "\n")
    test_file.write_text("\n".join([lines[0]] + lines[400:]) + "\n")
    code = main(["compare", str(tmp_path / "train.csv"), "--test", str(test_file), "--label", "diagnosis",
                 "--model", "push,exactboost", "--model", "sgd@k:k=0.1,eta0=0.01", "--n-iter", "10",
                 "--n-runs", "4", "--no-plots", "--quiet", "--save-models", str(tmp_path / "models")])
    assert code == 0
    saved = sorted(p.name for p in (tmp_path / "models").iterdir())
    assert saved == ["exactboost.json", "push.json", "sgd@k.json"]
    sgd = rankcore.load_model(tmp_path / "models" / "sgd@k.json")
    assert (sgd.k, sgd.eta0, sgd.n_epochs) == (0.1, 0.01, 10)
    eb = rankcore.load_model(tmp_path / "models" / "exactboost.json")
    assert (eb.n_runs, eb.n_rounds) == (4, 10)


# --------------------------------------------------------------------------
# Errors: one line, exit status 2, no traceback unless --debug
# --------------------------------------------------------------------------


def test_malformed_csv_names_file_and_line(tmp_path):
    (tmp_path / "bad.csv").write_text("a,b,label\n1,2,0\n3,oops,1\n")
    done = run_cli("fit", "bad.csv", cwd=tmp_path)
    assert_one_line_error(done, "bad.csv, line 3, column 'b': expected a number, got 'oops'")


def test_missing_values_through_the_command_line(tmp_path, wdbc_csv, monkeypatch):
    """The breast-cancer CSV with gaps: trees fit and score it; the default learner is refused in one line."""
    monkeypatch.chdir(tmp_path)
    rows = wdbc_csv.read_text().splitlines()
    gapped = [rows[0]] + [",".join("NA" if (i + j) % 13 == 0 else cell for j, cell in enumerate(row.split(",")[:-1]))
                          + "," + row.split(",")[-1] for i, row in enumerate(rows[1:])]
    (tmp_path / "gaps.csv").write_text("\n".join(gapped) + "\n")
    done = in_process("fit", "gaps.csv", "--label", "diagnosis", "--learner", "trees", "--n-iter", "20",
                      "--out", "trees.json")
    assert done.returncode == 0, done.stderr
    assert "missing values in 569 rows" in done.stderr
    done = in_process("score", "trees.json", "gaps.csv", "--label", "diagnosis")
    assert done.returncode == 0, done.stderr
    scores = np.array(done.stdout.split()[1:], dtype=float)
    assert scores.shape == (569,) and np.isfinite(scores).all()
    done = in_process("fit", "gaps.csv", "--label", "diagnosis", "--n-iter", "5", "--out", "stumps.json")
    assert_one_line_error(done, "gaps.csv has ", "missing values in 569 of 569 rows and 30 of 30 columns",
                          "push (learner stumps) cannot use missing values", "--learner trees", "impute")
    assert not (tmp_path / "stumps.json").exists()


def test_missing_label_column(tmp_path, wdbc_csv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = in_process("fit", wdbc_csv, "--label", "target")
    assert_one_line_error(done, "wdbc.csv: no label column 'target'", "diagnosis")


def test_non_binary_label_names_its_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "three.csv").write_text("a,label\n1,0\n2,1\n3,2\n")
    done = in_process("compare", "three.csv", "--no-plots")
    assert_one_line_error(done, "three.csv, line 4: the label column 'label' has a third value 2")


def test_bad_specs_and_options(tmp_path, wdbc_csv):
    cases = [
        (["evaluate", "nope.json", wdbc_csv, "--metrics", "auc,nosuch"], "unknown metric 'nosuch'"),
        (["fit", wdbc_csv, "--label", "diagnosis", "--price", "pow:x"], "pow"),
        (["fit", wdbc_csv, "--label", "diagnosis", "--model", "exactboost", "--price", "pow:4"],
         "--price applies to --model push, not exactboost"),
        (["fit", wdbc_csv, "--model", "forest"], "unknown model 'forest'"),
        (["fit", wdbc_csv, "--label", "diagnosis", "--param", "nosuch=1"], "--param nosuch"),
        (["score", "missing.json", wdbc_csv], "missing.json"),
    ]
    # the first through the real entry point, the rest in-process (same code path, no interpreter start-up)
    assert_one_line_error(run_cli(*cases[0][0], cwd=tmp_path), cases[0][1])
    import io
    from contextlib import redirect_stderr, redirect_stdout

    for args, fragment in cases[1:]:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main([str(a) for a in args])
        done = subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())
        assert_one_line_error(done, fragment)


def test_tampered_model_file(tmp_path, wdbc_csv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["fit", str(wdbc_csv), "--label", "diagnosis", "--n-iter", "3", "--quiet",
                 "--out", str(tmp_path / "m.json")]) == 0
    saved = (tmp_path / "m.json").read_text()
    text = saved.replace('"n_iter":3', '"n_iter":4')
    assert text != saved                                  # the file is compact JSON: the edit took
    (tmp_path / "m.json").write_text(text)
    done = in_process("score", "m.json", wdbc_csv, "--label", "diagnosis")
    assert_one_line_error(done, "m.json: checksum mismatch")


def test_debug_shows_the_traceback(tmp_path):
    (tmp_path / "bad.csv").write_text("a,b\n1,0\n")          # no label column: the reader's DataError
    done = run_cli("--debug", "fit", "bad.csv", cwd=tmp_path)
    assert done.returncode != 0
    assert "Traceback" in done.stderr and "DataError" in done.stderr
    done = run_cli("fit", "bad.csv", "--debug", cwd=tmp_path)
    assert "Traceback" in done.stderr


def test_without_matplotlib_svg_figures_and_report_still_work(tmp_path, wdbc_csv):
    blocker = tmp_path / "blocker" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('matplotlib is blocked for this test')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(blocker.parent), os.environ.get("PYTHONPATH", "")])}
    done = run_cli("compare", wdbc_csv, "--label", "diagnosis", "--n-iter", "3", "--image-format", "png",
                   cwd=tmp_path, env=env)
    assert_one_line_error(done, 'pip install "rankcore[plot]"')
    assert done.stdout == ""  # refused before any training
    done = run_cli("compare", wdbc_csv, "--label", "diagnosis", "--n-iter", "3", "--out-dir", "figs",
                   "--report", "r.html", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    for name in ("roc", "precision_at_k", "objective"):
        assert (tmp_path / "figs" / f"{name}.svg").read_text().startswith("<?xml"), name
    assert (tmp_path / "r.html").read_text().count("data:image/svg+xml;base64,") == 3


# --------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------


def test_progress_lines_when_not_a_terminal_and_silence_when_quiet(tmp_path, wdbc_csv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = run_cli("fit", wdbc_csv, "--label", "diagnosis", "--n-iter", "20", "--monitor", "prec@k:10",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr
    iteration_lines = [l for l in done.stderr.splitlines() if re.match(r"\[push\] +iter \d+/20 ", l)]
    assert len(iteration_lines) >= 5
    assert all("objective" in l and "train prec@k:10" in l and l.endswith("s") for l in iteration_lines)
    assert re.search(r"iter 20/20 .*train prec@k:10 \d\.\d{4}", done.stderr)

    done = in_process("fit", wdbc_csv, "--label", "diagnosis", "--n-iter", "20", "--quiet", "--force")
    assert done.returncode == 0 and done.stderr == "" and done.stdout == ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses a pseudo-terminal")
def test_progress_bar_in_a_terminal(tmp_path, wdbc_csv):
    import pty

    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "rankcore", "fit", str(wdbc_csv), "--label", "diagnosis", "--n-iter", "30",
               "--out", str(tmp_path / "m.json")]
    proc = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=600) == 0
    text = b"".join(chunks).decode()
    assert "\r[push] |" in text
    assert re.search(r"\|#{24}\| 30/30 +objective -?\d+\.\d+ +train auc \d\.\d{4}", text)
    # one kept line for the bar, plus the status lines (which label is ranked first, the data, the model saved)
    assert text.count("\n") <= 4


def test_library_is_quiet_by_default(capsys):
    X, y = load_wdbc()
    rankcore.PushBoost(n_iter=5).fit(X, y)
    assert capsys.readouterr() == ("", "")


# --------------------------------------------------------------------------
# plugins
# --------------------------------------------------------------------------


def test_plugins_lists_components_with_their_distribution(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = in_process("plugins", "--family", "price")
    assert done.returncode == 0, done.stderr
    # a wrapped row continues on lines that start with spaces
    rows = [line.split() for line in done.stdout.splitlines()[1:] if not line.startswith(" ")]
    assert {r[1] for r in rows} >= {"identity", "pow:p"}
    assert all(r[0] == "price" for r in rows)
    assert any("rankcore" in r for r in rows)
    done = in_process("plugins", "--json")
    records = json.loads(done.stdout)["components"]
    assert {"auc", "exp", "stumps"} <= {r["name"] for r in records}
    assert all(r["distribution"] for r in records)


# --------------------------------------------------------------------------
# demo: the README's main job
# --------------------------------------------------------------------------


def test_demo_prints_top_of_list_metrics_and_draws_the_figures(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = in_process("demo")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for fragment in ("rmax", "prec@k", "pauc", "auc", "train", "test"):
        assert fragment in out, fragment
    for name in ("roc", "precision_at_k", "objective"):
        text = (tmp_path / "rankcore-demo" / f"{name}.svg").read_text()
        assert xml.dom.minidom.parseString(text).documentElement.tagName == "svg"
        # one sentence per figure says what to look at
        (line,) = [ln for ln in done.stderr.splitlines()
                   if ln.startswith(f"wrote {os.path.join('rankcore-demo', name)}")]
        assert len(line.split(": ", 1)[1]) > 40, line
    assert "leftmost part is what the push family changes" in done.stderr


def test_demo_without_matplotlib_draws_the_same_svg_figures(tmp_path, monkeypatch):
    """The README's first command: a plain `pip install .` has no matplotlib, and the figures are still drawn."""
    monkeypatch.chdir(tmp_path)
    blocker = tmp_path / "blocker" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('matplotlib is blocked for this test')\n")
    done = run_cli("demo", "--n-iter", "20", cwd=tmp_path,
                   env={"PYTHONPATH": os.pathsep.join([str(blocker.parent), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 0, done.stderr
    assert "auc" in done.stdout and "Traceback" not in done.stderr
    with_matplotlib = in_process("demo", "--n-iter", "20", "--out-dir", "again")
    assert with_matplotlib.returncode == 0, with_matplotlib.stderr
    for name in ("roc", "precision_at_k", "objective"):
        assert ((tmp_path / "rankcore-demo" / f"{name}.svg").read_bytes()
                == (tmp_path / "again" / f"{name}.svg").read_bytes())


def test_demo_figures_show_the_models_of_its_table(tmp_path):
    """`rankcore demo` prints run_demo's table; its figures are drawn from the same four models."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from rankcore.cli import demo

    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert main(["demo", "--n-iter", "30", "--out-dir", str(tmp_path / "figs"), "--report",
                     str(tmp_path / "demo.html")]) == 0
    reference = io.StringIO()
    demo.run_demo(reference, n_iter=30)
    strip_times = lambda text: [re.sub(r"\s+\d+\.\d\d$", "", line) for line in text.strip().splitlines()]
    assert strip_times(out.getvalue()) == strip_times(reference.getvalue())  # all but the fit seconds
    html = (tmp_path / "demo.html").read_text()
    assert "push pow:64" in html and html.count("data:image/svg+xml;base64,") == 3


def test_a_terminal_that_cannot_show_the_tables_symbols_still_gets_them_and_the_model(tmp_path, wdbc_csv):
    # '±' in the leaderboard and 'ℓ' in the plugin table raised UnicodeEncodeError after the search: exit 2 and no
    # model saved
    env = {"PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0"}
    done = run_cli("auto", wdbc_csv, "--label", "diagnosis", "--candidates", "linear", "--out", tmp_path / "m.json",
                   "--progress", "none", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "m.json").exists()
    done = run_cli("plugins", "--family", "loss", cwd=tmp_path, env=env)
    # the signs it cannot show are spelled in ASCII ('ℓ' as 'l', '−' as '-'), not failed on
    assert done.returncode == 0 and "max(0, 1 - z)" in done.stdout, done.stderr

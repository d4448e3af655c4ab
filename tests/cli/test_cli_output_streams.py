"""Output targets of every command: a stream (``/dev/stdout`` under a shell's ``>>``) is appended to, never
truncated; ``-`` is the standard output."""

import contextlib
import json
import os

import numpy as np
import pytest

from _cli_run import run_main, write_data_and_model

proc_fd = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd (Linux)")
EARLIER = "an earlier day's line\n"


@pytest.fixture
def files(tmp_path):
    return write_data_and_model(tmp_path)


@contextlib.contextmanager
def appended_log(tmp_path):
    """A file opened as a shell's ``>> log.txt`` opens it, and a link to its descriptor's entry, as ``/dev/stdout``
    is a link to ``/proc/self/fd/1`` (the real /dev nodes are never touched)."""
    log = tmp_path / "log.txt"
    log.write_text(EARLIER)
    with open(log, "a", encoding="utf-8") as handle:
        link = tmp_path / "stdout"
        link.symlink_to(f"/proc/self/fd/{handle.fileno()}")
        yield link, log
    link.unlink()


@proc_fd
@pytest.mark.parametrize("command", [
    ["score", "{m}", "{d}", "-o", "{out}"],
    ["explain", "{m}", "{d}", "--top", "2", "-o", "{out}"],
    ["explain", "{m}", "{d}", "--permutation", "--repeats", "2", "-o", "{out}"],
    ["compare", "{d}", "--learner", "trees", "--n-iter", "2", "--no-plots", "--report", "{out}"],
    ["fit", "{d}", "--learner", "trees", "--n-iter", "2", "--progress", "none", "-o", "{out}"],
], ids=["score", "explain", "permutation", "compare-report", "fit"])
def test_a_descriptor_entry_is_appended_to_not_truncated(files, command):
    with appended_log(files) as (link, log):
        argv = [a.format(m=files / "m.json", d=files / "d.csv", out=link) for a in command]
        status, _, err = run_main(*argv, "-q")
        assert status == 0, err
    text = log.read_text(encoding="utf-8")
    assert text.startswith(EARLIER) and len(text) > len(EARLIER)


@proc_fd
def test_save_figure_appends_to_a_descriptor_entry(tmp_path):
    from rankcore.plotting import roc_data, save_figure

    with appended_log(tmp_path) as (link, log):
        svg = tmp_path / "plot.svg"
        svg.symlink_to(link)
        save_figure(roc_data({"m": (np.array([0, 1, 1, 0]), np.array([0.1, 0.9, 0.4, 0.3]))}), svg)
    text = log.read_text(encoding="utf-8")
    assert text.startswith(EARLIER) and "<svg" in text


def test_open_output_truncates_a_regular_file(tmp_path):
    from rankcore.persistence import open_output

    target = tmp_path / "f.txt"
    target.write_text("old text that is longer\n")
    with open_output(target) as fh:
        fh.write("new\n")
    with open_output(tmp_path / "b.bin", binary=True) as fh:
        fh.write(b"\x00")
    assert target.read_text() == "new\n" and (tmp_path / "b.bin").read_bytes() == b"\x00"


@pytest.mark.parametrize("command, check", [
    (["score", "{m}", "{d}"], lambda out: out.splitlines()[0] == "score" and len(out.splitlines()) == 61),
    (["explain", "{m}", "{d}", "--top", "2"], lambda out: out.startswith("row,")),
    (["fit", "{d}", "--learner", "trees", "--n-iter", "2", "--progress", "none"],
     lambda out: json.loads(out)["format"] == "rankcore-model"),
], ids=["score", "explain", "fit"])
def test_dash_is_the_standard_output(files, command, check, monkeypatch):
    monkeypatch.chdir(files)
    argv = [a.format(m=files / "m.json", d=files / "d.csv") for a in command]
    status, out, err = run_main(*argv, "-o", "-")
    assert status == 0, err
    assert check(out) and not (files / "-").exists()
    assert "to standard output" in err


def test_fit_model_on_stdout_loads_as_the_saved_file(files, monkeypatch):
    monkeypatch.chdir(files)
    argv = ["fit", files / "d.csv", "--learner", "trees", "--n-iter", "2", "--progress", "none", "-q"]
    _, out, _ = run_main(*argv, "-o", "-")
    run_main(*argv, "-o", files / "saved.json")
    assert out == (files / "saved.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("command, option", [
    (["compare", "{d}", "--n-iter", "2", "--no-plots", "--report", "-"], "--report"),
    (["auto", "{d}", "-o", "-"], "--out"),
])
def test_dash_is_refused_where_the_table_takes_the_standard_output(files, command, option, monkeypatch):
    monkeypatch.chdir(files)                    # a version that took '-' for a file name writes it there
    status, _, err = run_main(*[a.format(d=files / "d.csv") for a in command])
    assert status == 2
    assert f"{option}: '-' (standard output) already carries the command's table; name a file" in err

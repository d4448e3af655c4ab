"""Progress on the command line: a bar in a terminal, plain lines otherwise, nothing when quiet."""

import io
import time
from types import SimpleNamespace

import pytest

from rankcore._progress import Progress, Task, choose_mode


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_mode_choice():
    assert choose_mode("auto", False, FakeTerminal()) == "bar"
    assert choose_mode("auto", False, io.StringIO()) == "lines"
    assert choose_mode("auto", True, FakeTerminal()) == "none"
    assert choose_mode("lines", False, FakeTerminal()) == "lines"
    assert choose_mode("bar", True, FakeTerminal()) == "none"  # --quiet wins
    assert choose_mode("none", False, FakeTerminal()) == "none"


def test_lines_mode_reports_about_every_tenth():
    stream = io.StringIO()
    task = Task("m", 100, "test auc", "lines", stream)
    for i in range(1, 101):
        task.update(i, objective=100.0 - i, score=0.5 + i / 1000)
    task.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[m] 100 iterations, monitoring test auc"
    progress_lines = [l for l in lines if " iter " in l and "done" not in l]
    assert [int(l.split("iter ")[1].split("/")[0]) for l in progress_lines] == [1] + list(range(10, 101, 10))
    assert "objective 0.000000" in progress_lines[-1] or "objective 0" in progress_lines[-1]
    assert "test auc 0.6000" in progress_lines[-1]
    assert lines[-1].startswith("[m] done in ") and "iter 100/100" in lines[-1]
    assert "\r" not in stream.getvalue()


def test_bar_mode_redraws_in_place_and_throttles():
    stream = FakeTerminal()
    task = Task("m", 1000, "auc", "bar", stream)
    for i in range(1, 1001):
        task.update(i, objective=float(i), score=0.9)
    task.close()
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    redraws = text.count("\r")
    assert 2 <= redraws < 50  # a thousand fast updates, a handful of redraws
    assert "|########################| 1000/1000" in text
    assert "\x1b[K" in text  # erases what a longer previous line left


def test_none_mode_prints_nothing():
    stream = FakeTerminal()
    task = Progress("auto", quiet=True, stream=stream).task("m", 10)
    task.keep_alive()
    for i in range(1, 11):
        task.update(i, 1.0)
    task.close("x")
    assert stream.getvalue() == ""


def test_keep_alive_spins_without_a_stuck_bar():
    stream = FakeTerminal()
    task = Task("slow", 50, None, "bar", stream).keep_alive()
    time.sleep(0.6)
    task.iteration, task.objective = 50, 0.25
    task.close()
    text = stream.getvalue()
    assert "fitting (50 iterations)" in text
    assert "| 0/50" not in text
    final = text.rstrip("\n").split("\r")[-1]
    assert final.startswith("[slow] |########################| 50/50  objective 0.250000  ")


def test_abort_ends_the_bar_line():
    stream = FakeTerminal()
    task = Task("m", 10, None, "bar", stream)
    task.update(1, 1.0)
    task.abort()
    assert stream.getvalue().endswith("\n")
    quiet = io.StringIO()
    Task("m", 10, None, "lines", quiet).abort()
    assert quiet.getvalue().count("\n") == 1  # only the start line: the error message follows


@pytest.mark.parametrize("with_monitor", [False, True])
def test_push_fits_report_every_iteration_through_callbacks(with_monitor):
    """fit_one drives the task from the push estimators' callbacks (no stdout parsing)."""
    import numpy as np

    from rankcore.cli._models import ModelConfig, fit_one, kind_named

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    seen = []

    class RecordingTask(Task):
        def update(self, iteration, objective=None, score=None):
            seen.append((iteration, objective, score))
            super().update(iteration, objective, score)

    class RecordingProgress:
        def task(self, name, total, metric):
            return RecordingTask(name, total, metric, "none", io.StringIO())

    config = ModelConfig(label="push", kind=kind_named("push"), params={"n_iter": 4, "price": "pow:4"})
    monitor = ("auc", X, y) if with_monitor else None
    outcome = fit_one(config, X, y, progress=RecordingProgress(), monitor=monitor, monitor_is_validation=True)
    model = outcome.estimator
    assert [it for it, _, _ in seen] == list(range(1, model.n_iter_ + 1))
    assert [obj for _, obj, _ in seen] == list(model.objective_values_[1:])
    scores = [score for _, _, score in seen]
    if with_monitor:
        assert scores == list(model.validation_scores_)
    else:
        assert scores == [None] * model.n_iter_


@pytest.mark.parametrize("quiet", [False, True, "none"])
def test_an_estimators_own_verbose_lines_never_reach_stdout(tmp_path, quiet):
    """--param verbose=2 prints the push table: on stderr (stdout carries the model with --out /dev/stdout), and
    nowhere with --quiet; --progress none hides the progress display alone, not the table asked for by name."""
    import json

    import numpy as np

    from _cli_run import run_main

    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(int)
    data = tmp_path / "train.csv"
    data.write_text("a,b,c,label\n" + "".join(f"{r[0]},{r[1]},{r[2]},{v}\n" for r, v in zip(X, y)))
    model = tmp_path / "model.json"
    status, out, err = run_main("fit", data, "--n-iter", "3", "--param", "verbose=2", "--out", model,
                                *{False: ["--progress", "lines"], True: ["--quiet"],
                                  "none": ["--progress", "none"]}[quiet])
    assert status == 0 and out == ""
    assert ("iter       objective" in err) is (quiet is not True) and (err == "") is (quiet is True)
    if quiet == "none":
        assert "[push" not in err               # the table, without the progress display's lines
    json.loads(model.read_text())               # the file is the model alone


@pytest.mark.parametrize("mode", ["lines", "bar"])
def test_a_line_the_stream_cannot_encode_is_written_in_ascii_words_not_dropped(mode):
    """AutoRanker(verbose=1) on an ASCII stream (cron, PYTHONIOENCODING=ascii): a name with a sign the encoding
    lacks is written with that sign spelled out, not lost with its whole line (a UnicodeEncodeError is a
    ValueError, the closed stream's error the display drops)."""
    from rankcore.auto import SearchEvent, SearchProgress

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    display = SearchProgress("auc", mode=mode, stream=stream)
    display(SearchEvent("push:\u03bb=0.5", 1, 5, 1, 10, 0.75, None, "push:\u03bb=0.5", 0.75, 0.1))
    display.close("chose push:\u03bb=0.5 (auc 0.7500)")
    text = raw.getvalue().decode("ascii")
    assert "push:lambda=0.5, fold 1/5" in text and "chose push:lambda=0.5" in text


def test_a_closed_stream_still_drops_the_line_silently():
    stream = io.StringIO()
    task = Task("m", 10, None, "lines", stream)
    stream.close()
    task.update(10)
    task.close()                # nothing raised: a closed pipe must not end the fit

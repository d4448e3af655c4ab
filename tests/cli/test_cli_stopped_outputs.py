"""A command stopped while it writes an output (Ctrl-C, a full disk, an error in the rows) leaves no half-written
file: the earlier file, or none, stays, and no temporary file is left beside it."""

import os

import pytest

from _cli_run import run_main, write_data_and_model

EARLIER = "score\n0.5\n"


@pytest.fixture
def files(tmp_path):
    return write_data_and_model(tmp_path)


def stop_after(calls: int, exc: BaseException):
    """A stand-in for the score command's cell formatter that raises ``exc`` on its ``calls``-th call."""
    from rankcore.cli import score

    real, seen = score._cell, [0]

    def cell(value):
        seen[0] += 1
        if seen[0] == calls:
            raise exc
        return real(value)

    return cell


@pytest.mark.parametrize("earlier", [True, False], ids=["over-an-earlier-file", "new-file"])
def test_score_interrupted_mid_write_leaves_no_half_file(files, monkeypatch, earlier):
    out = files / "scores.csv"
    if earlier:
        out.write_text(EARLIER)
    monkeypatch.setattr("rankcore.cli.score._cell", stop_after(30, KeyboardInterrupt()))
    code, _, err = run_main("score", str(files / "m.json"), str(files / "d.csv"), "--with-label", "-o", str(out),
                            "--force")
    assert code == 130 and err.strip() == "rankcore: interrupted"
    assert (out.read_text() == EARLIER) if earlier else not out.exists()
    assert sorted(os.listdir(files)) == sorted(["d.csv", "m.json"] + (["scores.csv"] if earlier else []))


def test_score_write_error_names_the_output_and_keeps_the_earlier_file(files, monkeypatch):
    out = files / "scores.csv"
    out.write_text(EARLIER)
    # a full disk fails a write with an OSError that names no file
    monkeypatch.setattr("rankcore.cli.score._cell", stop_after(30, OSError(28, "No space left on device")))
    code, _, err = run_main("score", str(files / "m.json"), str(files / "d.csv"), "--with-label", "-o", str(out),
                            "--force")
    assert code == 2 and "No space left on device" in err and "scores.csv" in err
    assert out.read_text() == EARLIER and sorted(os.listdir(files)) == ["d.csv", "m.json", "scores.csv"]


def test_a_complete_write_replaces_the_earlier_file(files):
    out = files / "scores.csv"
    out.write_text(EARLIER)
    code, _, _ = run_main("score", str(files / "m.json"), str(files / "d.csv"), "-o", str(out), "--force", "-q")
    assert code == 0 and len(out.read_text().splitlines()) == 61
    assert sorted(os.listdir(files)) == ["d.csv", "m.json", "scores.csv"]


@pytest.mark.skipif(not os.access("/dev/full", os.W_OK), reason="needs a writable /dev/full")
def test_a_full_device_is_named(files):
    code, _, err = run_main("score", str(files / "m.json"), str(files / "d.csv"), "-o", "/dev/full")
    assert code == 2 and err.startswith("rankcore: error:") and "/dev/full" in err and "No space left" in err


def test_a_private_output_rewritten_stays_private(files):
    # `score -o scores.csv --force` over a 0600 file used to truncate it in place; replacing it must keep 0600
    out = files / "scores.csv"
    out.write_text(EARLIER)
    os.chmod(out, 0o600)
    code, _, _ = run_main("score", str(files / "m.json"), str(files / "d.csv"), "-o", str(out), "--force", "-q")
    assert code == 0 and len(out.read_text().splitlines()) == 61 and os.stat(out).st_mode & 0o777 == 0o600


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_score_ended_by_a_signal_mid_write_leaves_no_temporary_file(files, monkeypatch, name):
    # `kill` or `timeout` while the scores are written: the default action would end the process on the spot and
    # leave .scores.csv.XXXX.tmp behind; the handler is called as the kernel would (the default action is not
    # run in the test process)
    import signal

    signum = getattr(signal, name)
    from rankcore.cli import score

    real, seen = score._cell, [0]

    def cell(value):
        seen[0] += 1
        if seen[0] == 30:
            handler = signal.getsignal(signum)
            assert callable(handler), f"{name} would end the process with its temporary file left"
            handler(signum, None)
        return real(value)

    out = files / "scores.csv"
    out.write_text(EARLIER)
    monkeypatch.setattr("rankcore.cli.score._cell", cell)
    earlier = signal.signal(signum, signal.SIG_DFL)     # a run under nohup ignores SIGHUP: the command keeps that
    try:
        with pytest.raises(SystemExit) as ended:     # the process's exit status, as for a copy of standard input
            run_main("score", str(files / "m.json"), str(files / "d.csv"), "--with-label", "-o", str(out), "--force",
                     "-q")
        code = ended.value.code
        assert signal.getsignal(signum) is signal.SIG_DFL
    finally:
        signal.signal(signum, earlier)
    assert seen[0] >= 30 and code == 128 + signum and out.read_text() == EARLIER
    assert sorted(os.listdir(files)) == ["d.csv", "m.json", "scores.csv"]

"""Data read from standard input (a data-file argument ``-``): the same results as the file, and clear errors."""

import csv
import gzip
import io
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from _cli_run import PipedStdin, one_line_error, run_main
from rankcore.cli.datasets import DataError, detect_content_format

FIT = ("--n-iter", "6", "--learner", "stumps", "--quiet")


def _rows(seed=0, n=120):
    """Binary rows with ties (features rounded to one decimal)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 1)
    y = (X[:, 0] + rng.normal(scale=0.8, size=n) > 0.3).astype(int)
    return X, y


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The same rows as CSV, TSV, gzipped CSV, .npy and .npz; graded rows in queries as LIBSVM with qid."""
    d = tmp_path_factory.mktemp("stdin")
    X, y = _rows()
    with open(d / "d.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b", "c", "y"])
        writer.writerows([*map(repr, row), int(label)] for row, label in zip(X.tolist(), y))
    text = (d / "d.csv").read_bytes()
    (d / "d.tsv").write_bytes(text.replace(b",", b"\t"))
    (d / "d.csv.gz").write_bytes(gzip.compress(text, mtime=0))
    np.save(d / "d.npy", np.column_stack([X, y]))
    np.savez(d / "d.npz", X=X, y=y.astype(float), feature_names=np.array(["a", "b", "c"]))
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(10, 22), 8)
    grade = np.clip(np.round(X[:qid.size, 0] + rng.normal(scale=0.6, size=qid.size) + 1), 0, 3)
    with open(d / "q.svm", "w") as fh:
        for q, row, g in zip(qid, X[:qid.size].tolist(), grade):
            fh.write(f"{g:g} qid:{q} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n")
    return d


def _fit_both(d, name, tmp_path, *extra):
    """Fit on the file and on its bytes piped in; both model files' bytes."""
    path = d / name
    status, _, err = run_main("fit", path, *extra, *FIT, "-o", tmp_path / "file.json")
    assert status == 0, err
    status, _, err = run_main("fit", "-", *extra, *FIT, "-o", tmp_path / "piped.json", stdin=path.read_bytes())
    assert status == 0, err
    return (tmp_path / "file.json").read_bytes(), (tmp_path / "piped.json").read_bytes()


@pytest.mark.parametrize("name, extra", [("d.csv", ["--label", "y"]), ("d.tsv", ["--label", "y"]),
                                         ("d.csv.gz", ["--label", "y"]), ("d.npy", []), ("d.npz", []),
                                         ("q.svm", [])])
def test_fit_from_standard_input_is_the_fit_on_the_file(files, tmp_path, name, extra):
    from_file, piped = _fit_both(files, name, tmp_path, *extra)
    assert piped == from_file
    # and the scores of the two, bit for bit, on the file
    scored = [run_main("score", tmp_path / m, files / name, *extra) for m in ("file.json", "piped.json")]
    assert scored[0][0] == 0 and scored[0][1] and scored[0] == scored[1]


def test_libsvm_queries_come_through_the_pipe(files, tmp_path):
    status, _, err = run_main("fit", "-", "--n-iter", "6", "--learner", "stumps", "-o", tmp_path / "m.json",
                              stdin=(files / "q.svm").read_bytes())
    assert status == 0, err
    assert "standard input: 96 rows" in err and "12 queries" in err
    assert "rankcore-stdin" not in err


def test_score_from_standard_input_to_standard_output(files, tmp_path):
    assert run_main("fit", files / "d.csv", "--label", "y", *FIT, "-o", tmp_path / "m.json")[0] == 0
    expected = run_main("score", tmp_path / "m.json", files / "d.csv", "--label", "y", "--with-label", "--rank")
    for name in ("d.csv", "d.csv.gz", "d.tsv"):
        got = run_main("score", tmp_path / "m.json", "-", "--label", "y", "--with-label", "--rank", "-o", "-",
                       stdin=(files / name).read_bytes())
        assert got[:2] == expected[:2] and expected[0] == 0
        assert got[2] == "wrote 120 scores to standard output\n"
    lines = expected[1].splitlines()
    assert lines[0] == "score,y,rank" and len(lines) == 121


def test_evaluate_and_validation_from_standard_input(files, tmp_path):
    assert run_main("fit", files / "d.csv", "--label", "y", *FIT, "-o", tmp_path / "m.json")[0] == 0
    expected = run_main("evaluate", tmp_path / "m.json", files / "d.npz")
    assert expected[0] == 0
    assert run_main("evaluate", tmp_path / "m.json", "-", stdin=(files / "d.npz").read_bytes()) == expected
    # --validation - : the same bytes as the training file are said to be it, by the name "standard input"
    status, _, err = run_main("fit", files / "d.csv", "--label", "y", "--validation", "-", "--n-iter", "6",
                              "--learner", "stumps", "-o", tmp_path / "v.json", stdin=(files / "d.csv").read_bytes())
    assert status == 0, err
    assert "--validation standard input is the training file" in err and "the same content" in err


def test_two_arguments_cannot_both_read_standard_input(files, tmp_path):
    stdin = PipedStdin((files / "d.csv").read_bytes())
    one_line_error(*run_main("fit", "-", "--label", "y", "--validation", "-", stdin=stdin)[::2],
                   "DATA and --validation are both - (standard input)")
    assert stdin.buffer.tell() == 0                        # refused before a byte is read
    one_line_error(*run_main("compare", "-", "--label", "y", "--test", "-", stdin=stdin)[::2],
                   "DATA and --test are both -")


def test_empty_standard_input(tmp_path):
    one_line_error(*run_main("fit", "-", "--label", "y", stdin=b"")[::2], "standard input is empty")


def test_a_terminal_is_refused_without_reading_it():
    terminal = PipedStdin(b"a,y\n1,0\n", terminal=True)
    one_line_error(*run_main("fit", "-", "--label", "y", stdin=terminal)[::2],
                   "DATA -: standard input is a terminal", "pipe the data in")
    assert terminal.buffer.tell() == 0


def test_no_standard_input_at_all(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    one_line_error(*run_main("fit", "-", "--label", "y")[::2], "no standard input")


def test_content_without_a_format_names_format(files, tmp_path):
    status, _, err = run_main("fit", "-", stdin=b"1 2 3\n4 5 6\n")
    one_line_error(status, err, "standard input (DATA -): cannot tell the format", "--format")
    # --format csv reads a file of one column
    assert run_main("fit", files / "d.csv", "--label", "y", "--drop", "b,c", *FIT, "-o", tmp_path / "a.json")[0] == 0
    one_column = b"a\n" + b"\n".join(str(v).encode() for v in range(5)) + b"\n"
    status, out, err = run_main("score", tmp_path / "a.json", "-", "--format", "csv", stdin=one_column)
    assert status == 0, err
    assert len(out.splitlines()) == 6
    status, _, err = run_main("score", tmp_path / "a.json", "-", stdin=one_column)
    one_line_error(status, err, "--format")


def test_errors_name_standard_input_not_the_copy(tmp_path):
    status, _, err = run_main("fit", "-", "--label", "y", stdin=b"a,b,y\n1,2,0\n3,x,1\n")
    one_line_error(status, err, "standard input, line 3")
    assert "rankcore-stdin" not in err and "stdin.csv" not in err
    one_line_error(*run_main("fit", "-", stdin=b"\x1f\x8b\x08\x00garbage")[::2], "standard input: damaged gzip")


def test_the_copy_is_removed_after_the_command(files, tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert run_main("fit", "-", "--label", "y", *FIT, "-o", tmp_path / "m.json",
                    stdin=(files / "d.csv").read_bytes())[0] == 0
    assert run_main("fit", "-", "--label", "nosuch", stdin=(files / "d.csv").read_bytes())[0] == 2
    assert os.listdir(scratch) == []


def test_report_names_standard_input(files, tmp_path):
    pytest.importorskip("matplotlib")
    status, out, err = run_main("compare", "-", "--label", "y", "--model", "push", "--n-iter", "4", "--no-plots",
                                "--report", tmp_path / "r.html", "--quiet", stdin=(files / "d.csv").read_bytes())
    assert status == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "<h1>standard input</h1>" in page and "<td>standard input</td>" in page
    assert "rankcore-stdin" not in page and "rankcore-stdin" not in out


@pytest.mark.parametrize("content, expected", [
    (b"a,b,label\n1,2,0\n", "csv"), (b"a\tb\tlabel\n1\t2\t0\n", "csv"), (b"a;b;label\n1;2;0\n", "csv"),
    (b"# made by a script\n\n2 qid:1 1:0.5 3:1\n", "libsvm"), (b"1 1:0.5\n", "libsvm"), (b"0\n", "libsvm"),
    (b"\x93NUMPY\x01\x00", "npy"), (b"PK\x03\x04rest", "npz"), (b"PK\x05\x06" + bytes(18), "npz"),
    (b"label\n1\n", None), (b"1 2 3\n", None), (b"\xff\xfe\x00\x01", None), (b"\n# only a comment\n", None),
])
def test_detect_content_format(tmp_path, content, expected):
    for name, data in (("plain", content), ("gzipped", gzip.compress(content))):
        path = tmp_path / name
        path.write_bytes(data)
        assert detect_content_format(path) == expected, (name, content)


def test_detect_content_format_of_damaged_gzip(tmp_path):
    path = tmp_path / "bad"
    path.write_bytes(b"\x1f\x8b\x08\x00" + b"x" * 20)
    with pytest.raises(DataError, match="damaged gzip"):
        detect_content_format(path)


def test_through_a_real_pipe(files, tmp_path):
    """The installed entry point, fed by a pipe: the scores of the file, bit for bit."""
    assert run_main("fit", files / "q.svm", *FIT, "-o", tmp_path / "m.json")[0] == 0
    expected = run_main("score", tmp_path / "m.json", files / "q.svm")
    done = subprocess.run([sys.executable, "-m", "rankcore", "score", str(tmp_path / "m.json"), "-"],
                          input=gzip.compress((files / "q.svm").read_bytes()), capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == expected[1] and expected[0] == 0
    # and a terminal-less empty pipe is an error, not a hang
    done = subprocess.run([sys.executable, "-m", "rankcore", "score", str(tmp_path / "m.json"), "-"],
                          input=b"", capture_output=True, timeout=300)
    assert done.returncode == 2 and b"standard input is empty" in done.stderr


def test_reading_standard_input_streams_it_in_blocks(monkeypatch, files, tmp_path):
    """A stream read in blocks (no whole read into memory): the copy is byte-identical across many blocks."""
    from rankcore.cli import _stdin

    monkeypatch.setattr(_stdin, "_BLOCK", 7)
    reads = []

    class Counting(io.BytesIO):
        def read(self, size=-1):
            reads.append(size)
            return super().read(size)

    piped = PipedStdin()
    piped.buffer = Counting((files / "d.csv").read_bytes())
    assert run_main("fit", "-", "--label", "y", *FIT, "-o", tmp_path / "m.json", stdin=piped)[0] == 0
    assert len(reads) > 100 and all(0 < size <= 7 for size in reads)
    assert run_main("fit", files / "d.csv", "--label", "y", *FIT, "-o", tmp_path / "f.json")[0] == 0
    assert (tmp_path / "m.json").read_bytes() == (tmp_path / "f.json").read_bytes()


# -- hostile input: what a stream can be that a named file rarely is ------------------------------------------------

def test_a_gzip_stream_cut_short_is_damaged_not_of_unknown_format(files, tmp_path):
    whole = gzip.compress((files / "d.csv").read_bytes(), mtime=0)
    for cut in (whole[:len(whole) // 2], whole[:-10]):
        one_line_error(*run_main("fit", "-", "--label", "y", stdin=cut)[::2], "standard input: damaged gzip data")
        (tmp_path / "cut").write_bytes(cut)
        with pytest.raises(DataError, match="damaged gzip"):
            detect_content_format(tmp_path / "cut")
    twice = gzip.compress(whole, mtime=0)
    one_line_error(*run_main("fit", "-", "--label", "y", stdin=twice)[::2], "standard input: gzip data inside gzip",
                   "compressed twice")


class _Planted:
    """Unpickled, it writes a file: a pickle that must never be loaded."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_bytes_that_are_no_numpy_file_are_refused_without_unpickling(files, tmp_path):
    import pickle

    planted = tmp_path / "planted"
    payload = pickle.dumps(_Planted(planted))
    (tmp_path / "p.npy").write_bytes(payload)
    cases = [(["-", "--format", "npy"], payload), (["-", "--format", "npz"], payload), ([tmp_path / "p.npy"], None),
             (["-", "--label", "y", "--format", "npy"], (files / "d.csv").read_bytes()),
             ([files / "d.csv", "--label", "y", "--format", "npz"], None)]
    for argv, stdin in cases:
        status, _, err = run_main("fit", *argv, *FIT, "-o", tmp_path / "m.json", stdin=stdin)
        one_line_error(status, err, "not a NumPy file", "starts with", "give --format")
        assert "pickle" not in err                     # no advice to load the bytes unsafely
    assert not planted.exists()
    np.save(tmp_path / "o.npy", np.array([_Planted(planted)], dtype=object), allow_pickle=True)
    one_line_error(*run_main("fit", "-", stdin=(tmp_path / "o.npy").read_bytes())[::2], "standard input",
                   "pickled Python objects")
    assert not planted.exists()


@pytest.mark.parametrize("name", ["d.npy", "d.npz"])
def test_gzipped_numpy_files_are_read_by_name_and_by_pipe(files, tmp_path, name):
    # (tests/cli/test_cli_numpy_gzip.py reads them in detail: the arrays bit for bit, damaged gzip data)
    gzipped = tmp_path / (name + ".gz")
    gzipped.write_bytes(gzip.compress((files / name).read_bytes(), mtime=0))
    models = []
    for i, (data, stdin) in enumerate(((files / name, None), (gzipped, None), ("-", gzipped.read_bytes()))):
        status, _, err = run_main("fit", data, *FIT, "-o", tmp_path / f"m{i}.json", stdin=stdin)
        assert status == 0, err
        models.append((tmp_path / f"m{i}.json").read_bytes())
    assert models[1] == models[0] and models[2] == models[0]


def test_a_model_argument_is_never_standard_input(files, tmp_path, monkeypatch):
    assert run_main("fit", files / "d.csv", "--label", "y", *FIT, "-o", tmp_path / "m.json")[0] == 0
    model = (tmp_path / "m.json").read_bytes()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(model)        # a file named "-" is not read for it either
    for argv in (["score", "-", files / "d.csv", "--label", "y"], ["evaluate", "-", files / "d.csv", "--label", "y"],
                 ["export", "-", "--out", "x.txt"], ["fit", files / "d.csv", "--label", "y", "--init-model", "-"]):
        stdin = PipedStdin(model)
        one_line_error(*run_main(*argv, stdin=stdin)[::2], "-: a model is read from its file", "./-")
        assert stdin.buffer.tell() == 0
    assert run_main("score", "./-", files / "d.csv", "--label", "y")[0] == 0


def test_a_file_named_dash_is_read_as_dot_slash_dash(files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes((files / "d.csv").read_bytes())
    status, _, err = run_main("fit", "-", "--label", "y", *FIT, "-o", "a.json", stdin=b"")
    one_line_error(status, err, "standard input is empty", "the file named - here is read as ./-")
    assert run_main("fit", "./-", "--format", "csv", "--label", "y", *FIT, "-o", "b.json")[0] == 0
    assert run_main("fit", files / "d.csv", "--label", "y", *FIT, "-o", "c.json")[0] == 0
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "c.json").read_bytes()


def test_closed_or_text_standard_input(files, tmp_path):
    closed = io.TextIOWrapper(io.BytesIO(b"a,y\n1,0\n"))
    closed.close()
    one_line_error(*run_main("fit", "-", "--label", "y", stdin=closed)[::2], "no standard input to read",
                   "closed")
    # a sys.stdin replaced by a text stream (no bytes beneath): its text, as UTF-8
    text = io.StringIO((files / "d.csv").read_text())
    assert run_main("fit", "-", "--label", "y", *FIT, "-o", tmp_path / "t.json", stdin=text)[0] == 0
    assert run_main("fit", files / "d.csv", "--label", "y", *FIT, "-o", tmp_path / "f.json")[0] == 0
    assert (tmp_path / "t.json").read_bytes() == (tmp_path / "f.json").read_bytes()


def test_a_copy_that_cannot_be_written_names_the_directory_not_the_copy(files, tmp_path, monkeypatch):
    import errno

    from rankcore.cli import _stdin

    def full(stream, out):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), out.name)

    monkeypatch.setattr(_stdin, "_copy", full)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    status, _, err = run_main("fit", "-", "--label", "y", stdin=(files / "d.csv").read_bytes())
    one_line_error(status, err, "cannot copy standard input to a temporary file in", os.strerror(errno.ENOSPC),
                   "TMPDIR")
    assert "rankcore-stdin" not in err and os.listdir(tmp_path) == []


def test_names_of_copies_do_not_outlive_their_command(files, tmp_path, monkeypatch):
    """A process calling main() again: a later command's own path, even the old copy's, is named as given."""
    from rankcore.cli import _stdin

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    copies = []
    spool = _stdin._spool
    monkeypatch.setattr(_stdin, "_spool", lambda *a: copies.append(spool(*a)) or copies[-1])
    bad = b"a,b,y\n1,2,0\n3,x,1\n"
    one_line_error(*run_main("fit", "-", "--label", "y", stdin=bad)[::2], "standard input, line 3")
    assert _stdin._SPOOLED == {} and os.listdir(tmp_path) == []
    old = copies[0]
    os.makedirs(os.path.dirname(old))
    for path in (old, os.path.join(os.path.dirname(old), "stdin_real.csv")):
        with open(path, "wb") as fh:
            fh.write(bad)
        status, _, err = run_main("fit", path, "--label", "y")
        one_line_error(status, err, "line 3")
        assert "standard input" not in err          # the path (long: shortened in the middle) is not renamed


def _default_handlers():
    """In a child before it runs: SIGTERM and SIGHUP back to their default action (not what the parent ignores)."""
    import signal

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def test_termination_signals_remove_the_copy_in_process_and_through_a_pipe(files, tmp_path, monkeypatch):
    signal = pytest.importorskip("signal")
    if not hasattr(signal, "SIGHUP"):
        pytest.skip("no SIGHUP here")
    from rankcore.cli import _stdin

    handlers = []

    class Watching(io.BytesIO):
        def read(self, size=-1):
            handlers.append(signal.getsignal(signal.SIGTERM))
            return super().read(size)

    before = signal.getsignal(signal.SIGTERM)
    piped = PipedStdin()
    piped.buffer = Watching((files / "d.csv").read_bytes())
    assert run_main("fit", "-", "--label", "y", *FIT, "-o", tmp_path / "m.json", stdin=piped)[0] == 0
    if before is signal.SIG_DFL:
        assert set(handlers) == {_stdin._exit_on_signal}
    assert signal.getsignal(signal.SIGTERM) is before
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        # the pipe is held open: the command is copying standard input when the signal comes
        # the child starts with the default handlers: one run under nohup (SIGHUP ignored, inherited) would
        # otherwise ignore the signal and wait on the open pipe
        proc = subprocess.Popen([sys.executable, "-m", "rankcore", "fit", "-", "--label", "y", "-o",
                                 str(tmp_path / "s.json")], stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=dict(os.environ, TMPDIR=str(scratch)), preexec_fn=_default_handlers)
        proc.stdin.write((files / "d.csv").read_bytes())
        proc.stdin.flush()
        try:
            for _ in range(3000):                    # until the copy exists (a safety bound, not a timing claim)
                if os.listdir(scratch) or proc.poll() is not None:
                    break
                time.sleep(0.1)
            assert os.listdir(scratch), proc.stderr.read()
            proc.send_signal(signum)
            assert proc.wait(timeout=300) == 128 + signum
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdin.close()
            proc.stderr.close()
        assert os.listdir(scratch) == []

"""Standard output under encodings that are not plain UTF-8: the result tables in a data format (CSV, JSON,
Markdown) are the same UTF-8 bytes whatever ``PYTHONIOENCODING`` says, a file name that is not UTF-8 never fails a
command, and ``rankcore.cli.main()`` called from a program leaves that program's streams as they were."""

import io
import os
import subprocess
import sys

import numpy as np
import pytest
from test_cli_cron_encodings import run_cron

FEATURE = "gr\u00f6\u00dfe\u2192"
# UTF-8 mode: the arguments (a column named größe) are read as UTF-8 whatever the machine's locale; the standard
# streams follow PYTHONIOENCODING all the same
BASE_ENV = {"PYTHONUTF8": "1", "TERM": "dumb", "NO_COLOR": "1"}


def run(*args, cwd, encoding):
    """``python -m rankcore ARGS`` in a fresh process whose standard streams use ``encoding``; its result."""
    return run_cron(*args, cwd=cwd, env={**BASE_ENV, "PYTHONIOENCODING": encoding})


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A CSV whose score column has a name neither ASCII nor Latin-1 can write, and a model fitted on it."""
    where = tmp_path_factory.mktemp("encodings")
    rng = np.random.default_rng(5)
    lines = [f"{FEATURE},b,label"]
    for _ in range(80):
        a, b = rng.normal(size=2)
        lines.append(f"{a:.3f},{b:.3f},{int(a + 0.5 * rng.normal() > 0)}")
    (where / "d.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run("fit", "d.csv", "--learner", "trees", "--n-iter", "2", "--out", "m.json", "--quiet", cwd=where,
               encoding="utf-8")
    assert done.returncode == 0, done.stderr
    return where


COMMANDS = {
    "evaluate-csv": ["evaluate", "d.csv", "--scores", f"{FEATURE},b", "--table-format", "csv", "-q"],
    "info-json": ["info", "m.json", "--json"],
}


@pytest.mark.parametrize("command, encoding", [("evaluate-csv", "ascii"), ("evaluate-csv", "latin-1:strict"),
                                               ("info-json", "utf-16"), ("info-json", "utf-8-sig")])
def test_data_tables_are_utf8_bytes_whatever_the_encoding(folder, command, encoding):
    # fails before the fix: printed through sys.stdout, the CSV's column read 'gr??e->' under ascii and was Latin-1
    # bytes under latin-1; the JSON came out in UTF-16 under utf-16 and began with a BOM under utf-8-sig
    done = run(*COMMANDS[command], cwd=folder, encoding=encoding)
    assert done.returncode == 0, done.stderr
    if command == "evaluate-csv":
        assert done.stdout.decode("utf-8").splitlines()[1].startswith(f"metrics,{FEATURE},rmax,"), done.stdout
    else:
        assert done.stdout.startswith(b'{\n  "file": "m.json",\n'), done.stdout[:40]


@pytest.mark.skipif(sys.platform != "linux", reason="a file name that is not UTF-8 (other systems refuse one)")
@pytest.mark.parametrize("encoding", ["utf-8:strict", "ascii"])
def test_a_file_name_that_is_not_utf8_is_printed_as_its_bytes(folder, encoding):
    # fails before the fix: under utf-8:strict (a desktop's en_US.UTF-8, PYTHONIOENCODING=utf-8) `info` stopped
    # with "'utf-8' codec can't encode character '\udcff'" and printed nothing; under ascii the name was 'm?.json'
    name = os.path.join(os.fsencode(folder), b"m\xff.json")
    with open(name, "wb") as handle:
        handle.write((folder / "m.json").read_bytes())
    done = run("info", name, cwd=folder, encoding=encoding)        # the name as bytes, as a shell passes it
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(os.fsencode(folder) + b"/m\\xff.json: "), done.stdout[:200]


def _ascii_stream():
    return io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict", newline="\n")


def test_main_called_from_a_program_leaves_its_streams_as_they_were(folder, monkeypatch):
    # fails before the fix: after main() the caller's stdout and stderr kept rankcore's error handler, so the
    # program's own print('\u00e9') wrote '?' instead of failing as its strict stream said
    from rankcore.cli import main

    out, err = _ascii_stream(), _ascii_stream()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.chdir(folder)
    out.write("before\n")
    assert main(["evaluate", "d.csv", "--scores", f"{FEATURE},b", "--table-format", "csv", "-q"]) == 0
    assert main(["plugins", "--family", "loss"]) == 0
    assert out.errors == "strict" and err.errors == "strict"
    with pytest.raises(UnicodeEncodeError):
        out.write("\u00e9")
    out.write("after\n")
    out.flush()
    written = out.buffer.getvalue()
    # the lines in the order they were written: the caller's, the CSV (UTF-8), the loss table (ASCII words)
    assert written.startswith(b"before\ntable,") and written.endswith(b"after\n")
    assert f"metrics,{FEATURE},rmax,".encode() in written and b"l(z) = max(0, 1 - z)" in written


def test_main_into_a_string_buffer_keeps_the_names(folder, monkeypatch):
    # (a notebook's or a test's stream has no bytes underneath: the text is written to it as it is)
    from rankcore.cli import main

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.chdir(folder)
    assert main(["evaluate", "d.csv", "--scores", f"{FEATURE},b", "--table-format", "csv", "-q"]) == 0
    assert out.getvalue().splitlines()[1].startswith(f"metrics,{FEATURE},rmax,")


def test_nested_runs_restore_the_handlers_once_the_last_ends(monkeypatch):
    from rankcore.cli._terminal import PLAIN_ERRORS, plain_streams

    out = _ascii_stream()
    monkeypatch.setattr(sys, "stdout", out)
    with plain_streams():
        with plain_streams():           # a second main() in another thread of the process
            assert out.errors == PLAIN_ERRORS
        assert out.errors == PLAIN_ERRORS
    assert out.errors == "strict"


def test_importing_rankcore_registers_no_error_handler():
    # (passes before the fix too: kept so that only the command line registers it)
    code = ("import codecs, rankcore, rankcore.cli, rankcore.cli._outputs\n"
            "try:\n    codecs.lookup_error('rankcore-plain')\nexcept LookupError:\n    print('none')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "none", done.stderr


def test_utf8_data_writer_counts_the_characters_given(monkeypatch):
    # fails before the fix: with Windows line ends it returned the length after '\n' became '\r\n'
    from rankcore.cli._outputs import _Utf8Stdout

    buffer = io.BytesIO()
    monkeypatch.setattr(os, "linesep", "\r\n")
    assert _Utf8Stdout(buffer).write("\u00e9\nb\n") == 4
    assert buffer.getvalue() == "\u00e9\r\nb\r\n".encode("utf-8")


def test_a_surrogate_is_written_as_its_byte_and_a_lone_one_as_a_question_mark():
    from rankcore.cli._terminal import plain_errors

    assert "m\udcff.json \ud800".encode("utf-8", plain_errors()) == b"m\\xff.json ?"

"""A data file that is a pipe (``<(zcat rank.train.gz)``, ``/dev/stdin``, a FIFO) is refused by name: a data file is
opened more than once, and every open of a pipe starts where the last one stopped (rows read without the first
bytes).  Standard input given as ``-`` is copied to a file and read as one."""

import os

import pytest

from _cli_run import one_line_error, run_main

ROWS = "".join(f"{r % 2} 1:{r * 0.37 % 1:.3f} 2:{r * 0.61 % 1:.3f} 4:{r * 0.13 % 1:.3f}\n" for r in range(400))


@pytest.fixture
def piped():
    """``/dev/fd/N`` of a pipe holding :data:`ROWS` (under the pipe's 64 kB buffer: written at once, then closed)."""
    read_end, write_end = os.pipe()
    os.write(write_end, ROWS.encode())
    os.close(write_end)
    yield f"/dev/fd/{read_end}"
    os.close(read_end)


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
@pytest.mark.parametrize("options", [["--format", "libsvm"], []], ids=["format-given", "format-sniffed"])
def test_a_pipe_is_refused_not_read_without_its_first_bytes(piped, tmp_path, options):
    status, _, err = run_main("fit", piped, *options, "-o", tmp_path / "m.json", "-q")
    one_line_error(status, err, piped, "not a regular file", "standard input as -")
    assert not (tmp_path / "m.json").exists()


def test_the_same_rows_on_standard_input_are_read(tmp_path):
    status, _, err = run_main("fit", "-", "--format", "libsvm", "-o", tmp_path / "m.json", "-q", stdin=ROWS.encode())
    assert status == 0, err


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
@pytest.mark.parametrize("command", ["score", "evaluate", "explain", "compare"])
def test_every_command_refuses_a_pipe_alike_and_names_no_other_command(piped, tmp_path, command):
    # the advice was "... | rankcore fit - ...", whatever the command: a score user told to pipe into fit
    train = tmp_path / "train.svm"
    train.write_text(ROWS)
    model = tmp_path / "m.json"
    assert run_main("fit", train, "--learner", "trees", "-o", model, "-q")[0] == 0
    args = [train, "--test", piped, "--no-plots"] if command == "compare" else [model, piped]
    status, _, err = run_main(command, *args, *([] if command == "evaluate" else ["-q"]))
    one_line_error(status, err, piped, "not a regular file", "standard input as -")
    assert "rankcore fit" not in err

"""Running the command line in-process for the tests: its status, standard output and standard error."""

import contextlib
import io
import warnings

from rankcore.cli import main


def run_main(*argv):
    """``rankcore ARGV...`` in this process: (exit status, stdout, stderr); warnings go to stderr as the CLI writes them."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def one_line_error(status, err, *fragments):
    """A usage error: exit status 2 and one ``rankcore: error:`` line holding every fragment."""
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankcore: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])

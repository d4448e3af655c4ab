"""Where a command writes its output: standard output for ``-``, a stream appended to, a file replaced."""

from __future__ import annotations

import contextlib
import sys

#: An output path meaning the standard output, as in most command-line tools.
STDOUT = "-"


@contextlib.contextmanager
def output_file(path: str, newline: str | None = None):
    """A text handle writing the output ``path``: standard output for ``-``, a stream appended to, a regular file
    replaced atomically (:func:`rankcore.persistence.atomic_output`).

    A command stopped while it writes (Ctrl-C, SIGTERM or SIGHUP, a full disk, an error in the rows) leaves no
    half-written file: the earlier file at ``path``, or none, stays.
    """
    if path == STDOUT:
        yield sys.stdout
        sys.stdout.flush()
        return
    from ..persistence import atomic_output
    from ._stdin import ended_by_signals

    # SIGTERM's default action ends the process at once, leaving the temporary file (half an output) behind
    with ended_by_signals(), atomic_output(path, newline=newline) as handle:
        yield handle


def save_model_output(estimator, path: str) -> None:
    """Save a model to the output ``path`` (``-``: its text to standard output)."""
    from ..persistence import model_text, save_model

    if path != STDOUT:
        from ._stdin import ended_by_signals

        with ended_by_signals():
            save_model(estimator, path)
        return
    sys.stdout.write(model_text(estimator))
    sys.stdout.flush()


def output_name(path: str) -> str:
    """``path`` in a status message: "standard output" for ``-``."""
    return "standard output" if path == STDOUT else path


def refuse_stdout(path: str | None, option: str) -> None:
    """A command printing its table on standard output cannot also write ``option`` there (``-``)."""
    if path == STDOUT:
        from . import CommandError

        raise CommandError(f"{option}: '-' (standard output) already carries the command's table; name a file")

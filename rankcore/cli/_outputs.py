"""Where a command writes its output: standard output for ``-``, a stream appended to, a file replaced."""

from __future__ import annotations

import contextlib
import os
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
        with stdout_data() as handle:
            yield handle
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
    with stdout_data() as handle:
        handle.write(model_text(estimator))


class _Utf8Stdout:
    """Text written to standard output's bytes as UTF-8, the lines ended as ``sys.stdout`` ends them."""

    def __init__(self, buffer):
        self._buffer = buffer

    def write(self, text: str) -> int:
        ended = text.replace("\n", os.linesep) if os.linesep != "\n" else text
        self._buffer.write(ended.encode("utf-8", "surrogateescape"))
        return len(text)        # the characters given, as TextIOWrapper.write counts them

    def flush(self) -> None:
        self._buffer.flush()


@contextlib.contextmanager
def stdout_data():
    """Standard output for data (CSV rows, JSON records, a model's text): written in UTF-8, as the same output
    written to a file is, whatever the locale's encoding.

    ``sys.stdout`` follows the locale (``PYTHONIOENCODING=ascii``, ``latin-1``) and, for the messages and text
    tables people read, writes what it cannot encode as ``?``: in data that turned an id ``été`` or a feature
    ``größe`` into ``?t?`` and ``gr??e`` without a word, and ``score --out - > f.csv`` differed from
    ``score --out f.csv``.  A stream without bytes underneath (a StringIO in tests, a notebook's) is used as it is.
    """
    stream = sys.stdout
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    buffer = getattr(stream, "buffer", None)
    if buffer is None or encoding == "utf8":
        yield stream
        stream.flush()
        return
    stream.flush()              # what was printed before goes first
    handle = _Utf8Stdout(buffer)
    yield handle
    handle.flush()


def print_result(text: str, table_format: str) -> None:
    """Print a command's result: a ``text`` table, for people, in the terminal's encoding (its signs spelled in
    ASCII where that encoding lacks them); any other format (CSV, JSON, Markdown) is data, written in UTF-8 as a
    file is (:func:`stdout_data`).

    Printed through ``sys.stdout``, ``evaluate --scores größe --table-format csv`` under ``PYTHONIOENCODING=ascii``
    wrote the column ``gr??e``, and a JSON record under ``utf-16`` or ``utf-8-sig`` was not the bytes the same
    record is under any other encoding.
    """
    if table_format == "text":
        print(text, flush=True)
        return
    with stdout_data() as handle:
        handle.write(text + "\n")


def output_name(path: str) -> str:
    """``path`` in a status message: "standard output" for ``-``."""
    return "standard output" if path == STDOUT else path


def refuse_stdout(path: str | None, option: str) -> None:
    """A command printing its table on standard output cannot also write ``option`` there (``-``)."""
    if path == STDOUT:
        from . import CommandError

        raise CommandError(f"{option}: '-' (standard output) already carries the command's table; name a file")

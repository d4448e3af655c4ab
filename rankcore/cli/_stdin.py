"""Data read from standard input: a data-file argument ``-`` (``cat train.csv | rankcore fit - --label y``).

Standard input can be read once, but the readers open a data file by its
path several times: the format is sniffed from the first line, the CSV
header is read before the rows, the fast CSV reader may fall back to the
checking parser (reading again from the start) and counts delimiters in a
pass of its own, an ``.npy`` file's width is read from its header, a
report hashes the file, ``--validation`` is compared with the training file
byte for byte.  So the stream is copied, as it comes and before the command
runs, to a file in a private temporary directory, and the command reads
that file as it reads any other; the directory is removed when the command
ends.

A file on disk rather than the bytes in memory: data piped in may be
gigabytes (the learning-to-rank collections), and the readers take paths --
pandas, NumPy's ``load``, :mod:`gzip` -- so bytes in memory would still
have to become a file for some of them.  The copy costs one pass over the
bytes, in blocks of :data:`_BLOCK` bytes; a gzipped stream (``1f 8b``) is
kept compressed, as the readers read a ``.gz`` file.

The copy is named for its format -- ``--format``, else detected from the
content (:func:`rankcore.cli.datasets.detect_content_format`): the rest of
the command line detects formats from names.  It has no query file
(``DATA.query``) or weight file beside it: a stream is one file.  Messages
name it "standard input" (:func:`shown`), never its temporary path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile

from . import CommandError

__all__ = ["STDIN", "SHOWN", "DATA_OPTIONS", "stdin_inputs", "shown", "source_name"]

#: The data-file argument that means standard input.
STDIN = "-"
#: What messages call the data read from standard input.
SHOWN = "standard input"
#: Every argument that names a data file (each read by :func:`rankcore.cli._common.load`): argparse dest, and
#: how messages name it.  A command has some of them.
DATA_OPTIONS = (("data", "DATA"), ("validation", "--validation"), ("test", "--test"),
                ("background", "--background"))
#: The name the copy gets for each format, so that :func:`~rankcore.cli.datasets.detect_format` reads it back.
_EXTENSIONS = {"csv": ".csv", "libsvm": ".svm", "npy": ".npy", "npz": ".npz"}
#: Bytes copied at a time.
_BLOCK = 1 << 20
#: The copies made in this process (path -> what messages call it).  Kept after a copy is removed: the error
#: that ended a command is printed after its input's directory is gone.  One entry per command run.
_SPOOLED: dict[str, str] = {}


@contextlib.contextmanager
def stdin_inputs(args):
    """While the command runs: the data-file argument ``-`` of ``args`` (at most one) replaced by the path of a
    copy of standard input, removed afterwards.

    Raises
    ------
    CommandError
        Two arguments read ``-`` (both would read one stream), or standard
        input is a terminal (the command would wait for typing) or absent.
    DataError
        Standard input is empty, or its format cannot be told from its
        content without ``--format``.
    """
    readers = [(dest, option) for dest, option in DATA_OPTIONS if getattr(args, dest, None) == STDIN]
    if not readers:
        yield
        return
    if len(readers) > 1:
        both = " and ".join(option for _, option in readers)
        raise CommandError(f"{both} are both - (standard input), which can be read once; give all but one of them "
                           "as a file")
    dest, option = readers[0]
    directory = tempfile.mkdtemp(prefix="rankcore-stdin-")
    try:
        path = _spool(option, directory, getattr(args, "data_format", None))
        setattr(args, dest, path)
        yield
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _spool(option: str, directory: str, fmt: str | None) -> str:
    """Copy standard input to ``directory``; the copy's path, named for its format (``fmt``, or detected)."""
    from .datasets import DataError

    stream = _input_stream(option)
    path = os.path.join(directory, "stdin")
    _SPOOLED[path] = SHOWN                      # a damaged gzip stream is named before the copy has its name
    with open(path, "wb") as out:
        shutil.copyfileobj(stream, out, _BLOCK)
    if os.path.getsize(path) == 0:
        raise DataError(f"{SHOWN} is empty: {option} - reads the data piped in (cat train.csv | rankcore fit - ...), "
                        "and none came")
    with open(path, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
    if fmt is None:
        fmt = _content_format(path, option)
    named = path + _EXTENSIONS[fmt] + (".gz" if gzipped else "")
    os.replace(path, named)
    _SPOOLED[named] = SHOWN
    return named


def _input_stream(option: str):
    """Standard input as a binary stream; refused when there is none or it is a terminal."""
    stream = sys.stdin
    if stream is None:
        raise CommandError(f"{option} -: there is no standard input to read; pipe the data in "
                           "(cat train.csv | rankcore fit - ...) or name a file")
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):       # a closed stream, or an object without isatty
        terminal = False
    if terminal:
        raise CommandError(f"{option} -: {SHOWN} is a terminal, not data; pipe the data in "
                           "(cat train.csv | rankcore fit - ...) or name a file")
    return getattr(stream, "buffer", stream)


def _content_format(path: str, option: str) -> str:
    """The copy's format from its content, or a DataError naming ``--format`` when the content does not tell."""
    from .datasets import DataError, detect_content_format

    fmt = detect_content_format(path)
    if fmt is None:
        raise DataError(f"{SHOWN} ({option} -): cannot tell the format from the content: its first line is "
                        "neither a LIBSVM row nor a CSV header (names split by commas, tabs or semicolons), and it "
                        "is no .npy or .npz file; name the format with --format csv, libsvm, npy or npz")
    return fmt


def shown(text: str) -> str:
    """``text`` with the path of every copy of standard input replaced by "standard input"."""
    for path, name in sorted(_SPOOLED.items(), key=lambda item: -len(item[0])):     # the copy before its prefix
        if path in text:
            text = text.replace(path, name)
    return text


def source_name(source: str) -> str:
    """A data file's name for a title: its base name, or "standard input" for the copy of standard input."""
    return _SPOOLED.get(source) or os.path.basename(source)

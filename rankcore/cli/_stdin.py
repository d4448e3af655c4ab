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
name it "standard input" (:func:`shown`), never its temporary path; the
name goes with the copy, so a later command in the same process (one that
calls :func:`rankcore.cli.main` again) has its own paths named as given.
``SIGTERM`` and ``SIGHUP`` (``kill``, ``timeout``, a closed terminal) end a
command reading standard input through its clean-up, as Ctrl-C does, rather
than leaving a copy of gigabytes behind.  A command killed outright
(``SIGKILL``, a power loss) cannot clean up: its copy's directory is named
for its process, and the next command that copies standard input removes
such leftovers first (:mod:`rankcore.cli._stdin_leftovers`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import threading

from . import CommandError
from ._stdin_leftovers import make_copy_directory, remove_leftovers

__all__ = ["STDIN", "SHOWN", "DATA_OPTIONS", "stdin_inputs", "shown", "source_name"]

#: The data-file argument that means standard input.
STDIN = "-"
#: What messages call the data read from standard input.
SHOWN = "standard input"
#: Every argument that names a data file (each read by :func:`rankcore.cli._common.load`): argparse dest, and
#: how messages name it.  A command has some of them.
DATA_OPTIONS = (("data", "DATA"), ("validation", "--validation"), ("test", "--test"),
                ("background", "--background"))
#: The arguments that name a model file, by command: read from a file only, so ``-`` there is refused rather than
#: looked for as a file named "-" (``cat model.json | rankcore score - data.csv``).
_MODEL_OPTIONS = {"score": ("model", "MODEL"), "evaluate": ("model", "MODEL"), "explain": ("model", "MODEL"),
                  "export": ("model", "MODEL"), "fit": ("init_model", "--init-model")}
#: The name the copy gets for each format, so that :func:`~rankcore.cli.datasets.detect_format` reads it back.
_EXTENSIONS = {"csv": ".csv", "libsvm": ".svm", "npy": ".npy", "npz": ".npz"}
#: Bytes copied at a time.
_BLOCK = 1 << 20
#: The copies of standard input that exist (path -> what messages call it): added when a copy is made, removed
#: with it.  :func:`rankcore.cli.main` removes a copy after printing the message that ended its command.
_SPOOLED: dict[str, str] = {}
#: The signals that end a command through its clean-up (exit status 128 + the signal's number), where they exist.
_ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def stdin_inputs(args):
    """While the command runs: the data-file argument ``-`` of ``args`` (at most one) replaced by the path of a
    copy of standard input, removed afterwards.

    Raises
    ------
    CommandError
        Two arguments read ``-`` (both would read one stream), a model
        argument is ``-``, standard input is a terminal, closed or absent,
        or the copy cannot be written.
    DataError
        Standard input is empty, or its format cannot be told from its
        content without ``--format``.
    """
    _refuse_model_from_stdin(args)
    readers = [(dest, option) for dest, option in DATA_OPTIONS if getattr(args, dest, None) == STDIN]
    if not readers:
        yield
        return
    if len(readers) > 1:
        both = " and ".join(option for _, option in readers)
        raise CommandError(f"{both} are both - (standard input), which can be read once; give all but one of them "
                           "as a file")
    dest, option = readers[0]
    with ended_by_signals():
        # before this command's own directory: on a disk filled by leftovers even that directory cannot be made
        remove_leftovers(tempfile.gettempdir())
        directory = _private_directory(option)
        try:
            path = _spool(option, directory, getattr(args, "data_format", None))
            setattr(args, dest, path)
            yield
        finally:
            shutil.rmtree(directory, ignore_errors=True)
            for copy in [p for p in _SPOOLED if os.path.dirname(p) == directory]:
                del _SPOOLED[copy]


def _refuse_model_from_stdin(args) -> None:
    """A model argument ``-``: a clear error, not "-: No such file" (and not a file named "-" read silently)."""
    dest, option = _MODEL_OPTIONS.get(getattr(args, "command", None), (None, None))
    if dest is not None and getattr(args, dest, None) == STDIN:
        raise CommandError(f"{option} -: a model is read from its file, not from standard input (- reads data: "
                           "DATA, --validation, --test, --background); name the model file (./- for a file named -)")


@contextlib.contextmanager
def ended_by_signals():
    """Within the block, SIGTERM and SIGHUP raise SystemExit (status 128 + the signal) so that a copy of standard
    input, or an output's temporary file, is removed on the way out; set only from the main thread (the only one
    signal handlers can be set from), over the default action (a program that calls :func:`rankcore.cli.main` with
    handlers of its own keeps them)."""
    saved = {}
    if threading.current_thread() is threading.main_thread():
        for signum in _ENDING_SIGNALS:
            if signal.getsignal(signum) is signal.SIG_DFL:
                saved[signum] = signal.signal(signum, _exit_on_signal)
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)


def _private_directory(option: str) -> str:
    """A new directory for the copy, private to this process and named for it, in the temporary directory
    (``TMPDIR``)."""
    try:
        return make_copy_directory(tempfile.gettempdir())
    except OSError as exc:
        raise CommandError(f"{option} -: cannot make a temporary directory in {tempfile.gettempdir()} to copy "
                           f"{SHOWN} to ({exc.strerror or exc}); set TMPDIR to a writable directory") from None


def _spool(option: str, directory: str, fmt: str | None) -> str:
    """Copy standard input to ``directory``; the copy's path, named for its format (``fmt``, or detected)."""
    from .datasets import DataError

    stream = _input_stream(option)
    path = os.path.join(directory, "stdin")
    _SPOOLED[path] = SHOWN                      # a damaged gzip stream is named before the copy has its name
    try:
        with open(path, "wb") as out:
            _copy(stream, out)
    except OSError as exc:                      # a full disk: name the directory to free, not the copy
        raise CommandError(f"{option} -: cannot copy {SHOWN} to a temporary file in {tempfile.gettempdir()} "
                           f"({exc.strerror or exc}); free room there or set TMPDIR to a directory with room for "
                           "the data") from None
    if os.path.getsize(path) == 0:
        raise DataError(f"{SHOWN} is empty: {option} - reads the data piped in (cat train.csv | rankcore fit - ...), "
                        f"and none came{_dash_file_hint()}")
    with open(path, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
    if fmt is None:
        try:
            fmt = _content_format(path, option)
        except DataError as exc:
            raise DataError(shown(str(exc))) from None
    named = path + _EXTENSIONS[fmt] + (".gz" if gzipped else "")
    os.replace(path, named)
    del _SPOOLED[path]                          # the copy's name alone: its prefix names no file now
    _SPOOLED[named] = SHOWN
    return named


def _copy(stream, out) -> None:
    """``stream`` to ``out`` in blocks of :data:`_BLOCK`; text (a ``sys.stdin`` replaced by a text stream without
    bytes beneath, as some embedding programs do) is written as UTF-8."""
    while True:
        block = stream.read(_BLOCK)
        if not block:
            return
        out.write(block.encode("utf-8") if isinstance(block, str) else block)


def _input_stream(option: str):
    """Standard input as a binary stream; refused when there is none, it is closed, or it is a terminal."""
    stream = sys.stdin
    closed = stream is not None and (getattr(stream, "closed", False) is True
                                     or getattr(getattr(stream, "buffer", None), "closed", False) is True)
    if stream is None or closed:
        raise CommandError(f"{option} -: there is no standard input to read{' (it is closed)' if closed else ''}; "
                           f"pipe the data in (cat train.csv | rankcore fit - ...) or name a file{_dash_file_hint()}")
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):       # an object without isatty
        terminal = False
    if terminal:
        raise CommandError(f"{option} -: {SHOWN} is a terminal, not data; pipe the data in "
                           f"(cat train.csv | rankcore fit - ...) or name a file{_dash_file_hint()}")
    return getattr(stream, "buffer", stream)


def _dash_file_hint() -> str:
    """When a file named "-" is in the current directory: how to read it (``-`` alone is standard input)."""
    return "; the file named - here is read as ./-" if os.path.isfile(STDIN) else ""


def _content_format(path: str, option: str) -> str:
    """The copy's format from its content, or a DataError naming ``--format`` when the content does not tell."""
    from .datasets import DataError, detect_content_format
    from .datasets import other_compression

    fmt = detect_content_format(path)
    compressed = other_compression(path) if fmt in (None, "npz") else None
    if compressed is not None and (fmt is None or _zip_of_text(path)):
        raise DataError(compressed)
    if fmt is None:
        raise DataError(f"{SHOWN} ({option} -): cannot tell the format from the content: its first line is "
                        "neither a LIBSVM row nor a CSV header (names split by commas, tabs or semicolons), and it "
                        "is no .npy or .npz file; name the format with --format csv, libsvm, npy or npz")
    return fmt


def _zip_of_text(path: str) -> bool:
    """Whether a zip archive holds no ``.npy`` array: a zipped text file (a CSV), not an ``.npz`` archive."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            return not any(name.endswith(".npy") for name in archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def shown(text: str) -> str:
    """``text`` with the path of every copy of standard input replaced by "standard input"."""
    for path, name in sorted(_SPOOLED.items(), key=lambda item: -len(item[0])):     # the copy before its prefix
        if path in text:
            text = text.replace(path, name)
    return text


def source_name(source: str) -> str:
    """A data file's name for a title: its base name, or "standard input" for the copy of standard input."""
    return _SPOOLED.get(source) or os.path.basename(source)

"""A progress display of long fits for people: a bar redrawn in place, or plain lines in a log.

Three modes (the command line chooses one with ``--progress`` and ``--quiet``):

``bar``
    in a terminal: one line redrawn in place (at most ten times a second) with
    a bar, the iteration, the objective, a validation metric and the elapsed
    time; the line is kept, completed, when the fit ends.
``lines``
    when stderr is not a terminal (a log file, CI): a plain line about every
    tenth of the iterations and one at the end.
``none``
    nothing (``--quiet``).

The command line draws it on stderr so that stdout carries only results
(tables, scores) and stays pipeable.  The library itself prints nothing
unless its estimators are given ``verbose=``, and then on stdout, as
LightGBM, XGBoost and scikit-learn do: ``AutoRanker(verbose=...)`` draws this
display there, as the push family and the trees print their tables.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
import unicodedata
from typing import TextIO

MODES = ("auto", "bar", "lines", "none")
_BAR_WIDTH = 24
_REDRAW_SECONDS = 0.1
_TICK_SECONDS = 0.25


def choose_mode(requested: str, quiet: bool, stream: TextIO) -> str:
    """The mode to use: ``none`` if quiet, the requested one, else bar in a terminal and lines otherwise.

    A terminal declared ``TERM=dumb`` (Emacs' shell, some CI consoles) gets lines too: it does not move the cursor
    back or erase a line, so a bar redrawn in place would print every redraw, escape codes included.
    """
    if quiet or requested == "none":
        return "none"
    if requested in ("bar", "lines"):
        return requested
    if os.environ.get("TERM", "").strip().lower() == "dumb":
        return "lines"
    isatty = getattr(stream, "isatty", None)
    return "bar" if isatty is not None and isatty() else "lines"


def terminal_columns(stream: TextIO | None = None, default: int = 80) -> int:
    """The width of the terminal ``stream`` (default ``sys.stdout``) writes to: ``COLUMNS`` when it is a positive
    integer, else the terminal's, else ``default`` (a file, a pipe, a StringIO).

    The one reading of the width: the progress bar's and the command line's tables (``rankcore.cli``) both ask here,
    so ``COLUMNS`` means one thing everywhere.
    """
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size((sys.stdout if stream is None else stream).fileno()).columns
        except (AttributeError, ValueError, OSError):       # no descriptor (a StringIO), or not a terminal
            columns = 0
    return columns if columns > 0 else int(default)


def _columns(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to (:func:`terminal_columns`, else 80)."""
    columns = terminal_columns(stream)
    return max(columns, 2)      # room for one cell and the last column, which is left empty


#: The handler :func:`plain_errors` registers with :mod:`codecs`.
PLAIN_ERRORS = "rankcore-plain"

#: ASCII spellings of the signs rankcore's tables and messages use, for a stream whose encoding lacks them.
_PLAIN = {
    "\u2212": "-", "\u2013": "-", "\u2014": "--", "\u00d7": "x", "\u00b7": "*", "\u00b1": "+/-",
    "\u2192": "->", "\u2190": "<-", "\u2264": "<=", "\u2265": ">=", "\u2260": "!=", "\u2248": "~",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2026": "...", "\u00a0": " ",
    "\u2016": "||", "\u27e8": "<", "\u27e9": ">", "\u230a": "floor(", "\u230b": ")", "\u221a": "sqrt",
    "\u2211": "sum", "\u03a3": "sum", "\u2113": "l", "\u221e": "inf",
    "\u00b2": "^2", "\u00b3": "^3", "\u2076": "^6", "\u207b": "^-", "\u2081": "_1", "\u2082": "_2", "\u208a": "_+",
    "\u03b1": "alpha", "\u03b2": "beta", "\u03b3": "gamma", "\u03b4": "delta", "\u0394": "Delta",
    "\u03b5": "epsilon", "\u03bb": "lambda", "\u03bc": "mu", "\u03bd": "nu", "\u03c3": "sigma", "\u03a6": "Phi",
    "\u03c6": "phi", "\u03c0": "pi",
}


def _plain_replacement(error: UnicodeError):
    """The codec error handler behind :data:`PLAIN_ERRORS`: each character the stream cannot encode as its ASCII
    spelling (``−`` as ``-``, ``≥`` as ``>=``, ``λ`` as ``lambda``), else ``?``."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    bad = error.object[error.start:error.end]
    return "".join(_plain_char(char) for char in bad), error.end


def _plain_char(char: str) -> str:
    """One character an encoding cannot hold: its ASCII spelling; a byte of a file name that was not UTF-8 (read as
    a surrogate, U+DC80 to U+DCFF) as ``\\xff``, as the messages on stderr write it; else ``?``."""
    if "\udc80" <= char <= "\udcff":
        return f"\\x{ord(char) - 0xDC00:02x}"
    return _PLAIN.get(char, "?")


def plain_errors() -> str:
    """The name of a codec error handler writing what an encoding cannot hold in ASCII words, registered once.

    Under ``PYTHONIOENCODING=ascii`` or ``latin-1`` (cron, CI, a Windows code page) a loss ``ℓ(z) = max(0, 1 − z)``
    printed as ``?(z) = max(0, 1 ? z)``: a script, or a screen reader reading the log, got a question mark for a
    minus sign.  The handler writes ``l(z) = max(0, 1 - z)`` instead; a character without a spelling here (a name's
    ``é`` on an ASCII stream) is still ``?``.
    """
    import codecs

    try:
        codecs.lookup_error(PLAIN_ERRORS)
    except LookupError:
        codecs.register_error(PLAIN_ERRORS, _plain_replacement)
    return PLAIN_ERRORS


def _cells(char: str) -> int:
    """The terminal cells ``char`` takes: 2 for a wide East Asian character, 0 for a combining mark, else 1."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _fitted(text: str, stream: TextIO) -> str:
    """``text`` cut to one line shorter than the terminal: a longer line wraps, and the ``\\r`` of the next redraw
    goes back to the start of its last piece only, so that each redraw would leave a line on the screen.  Widths
    are counted in cells, as the terminal draws them (a character of a CJK name takes two)."""
    width = _columns(stream) - 1
    if sum(map(_cells, text)) <= width:
        return text
    ellipsis = "..." if width > 3 else ""
    kept, used = [], len(ellipsis)
    for char in text:
        used += _cells(char)
        if used > width:
            break
        kept.append(char)
    return "".join(kept) + ellipsis


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{value:.4e}"
    return f"{value:.6f}"


class Task:
    """The progress of one fit: ``update`` per iteration, ``close`` at the end.

    Parameters
    ----------
    name : str
        What is being fitted (shown first).
    total : int or None
        Planned iterations; None when unknown (then only the elapsed time moves).
    metric : str or None
        Name of the validation metric shown with each update (e.g. ``"test auc"``).
    mode : {"bar", "lines", "none"}
    stream : text stream
    unit : str, default "iterations"
        What is counted (its first four letters label the count: ``iter 3/100``).

    Attributes
    ----------
    quiet : bool
        Whether the command asked for silence (``--quiet``): an estimator's own prints are then dropped too, while
        ``--progress none`` hides this display alone.  A task made directly is quiet when its mode is ``none``.
    """

    def __init__(self, name: str, total: int | None, metric: str | None, mode: str, stream: TextIO,
                 unit: str = "iterations"):
        self.name = name
        self.unit = unit
        self.total = total
        self.metric = metric
        self.mode = mode
        self.stream = stream
        self.iteration = 0
        self.objective: float | None = None
        self.score: float | None = None
        self.t0 = time.perf_counter()
        self._last_draw = -1.0
        self._last_line_step = -1
        self._width = 0
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
        self.quiet = mode == "none"     # whether the command asked for silence (--quiet); Progress.task sets it
        if mode == "lines":
            what = f"{total} {unit}" if total else "fitting"
            self._write(f"[{name}] {what}" + (f", monitoring {metric}" if metric else "") + "\n")

    # -- public -----------------------------------------------------------
    def update(self, iteration: int, objective: float | None = None, score: float | None = None) -> None:
        """Record iteration ``iteration`` (1-based) with its objective and validation score."""
        with self._lock:
            self.iteration = int(iteration)
            # an objective with no value (lambdarank, yetirank: gradients only) reports NaN: nothing to show
            if objective is not None and not math.isnan(objective):
                self.objective = float(objective)
            if score is not None:
                self.score = float(score)
            if self.mode == "bar":
                now = time.perf_counter()
                if now - self._last_draw >= _REDRAW_SECONDS or iteration == self.total:
                    self._draw_bar()
                    self._last_draw = now
            elif self.mode == "lines":
                step = max(1, (self.total or 10) // 10)
                if self.iteration // step != self._last_line_step or iteration == self.total:
                    self._last_line_step = self.iteration // step
                    self._write(self._status_line() + "\n")

    def keep_alive(self) -> "Task":
        """For fits without per-iteration reports: redraw the elapsed time while they run (bar mode)."""
        if self.mode == "bar" and self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="rankcore-progress", daemon=True)
            self._ticker.start()
        return self

    def abort(self) -> None:
        """End the task without a summary (an error message follows on its own line)."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            if self.mode == "bar" and self._width:
                self._write("\n")

    def close(self, summary: str = "") -> float:
        """End the task; returns the elapsed seconds."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        elapsed = time.perf_counter() - self.t0
        with self._lock:
            if self.mode == "bar":
                self._draw_bar(done=True, summary=summary)
                self._write("\n")
            elif self.mode == "lines":
                details = self._details()
                if summary:
                    details.append(summary)
                self._write(f"[{self.name}] done in {elapsed:.2f}s" + (": " + "  ".join(details) if details else "")
                            + "\n")
        return elapsed

    # -- drawing ------------------------------------------------------------
    def _tick(self) -> None:
        while not self._stop.wait(_TICK_SECONDS):
            with self._lock:
                self._draw_bar()

    def _details(self) -> list[str]:
        parts = []
        short = self.unit[:4]
        if self.total and self.iteration:
            parts.append(f"{short} {self.iteration}/{self.total}")
        elif self.iteration:
            parts.append(f"{short} {self.iteration}")
        if self.objective is not None:
            parts.append(f"objective {_number(self.objective)}")
        if self.metric and self.score is not None:
            parts.append(f"{self.metric} {self.score:.4f}")
        return parts

    def _status_line(self) -> str:
        return "  ".join([f"[{self.name}]", *self._details(), f"{time.perf_counter() - self.t0:.1f}s"])

    def _draw_bar(self, done: bool = False, summary: str = "") -> None:
        if self._ticker is not None and not done:
            # no per-iteration reports: a spinner and the clock, not a bar stuck at 0
            spinner = "|/-\\"[int((time.perf_counter() - self.t0) / _TICK_SECONDS) % 4]
            planned = f" ({self.total} iterations)" if self.total else ""
            text = _fitted(f"[{self.name}] {spinner} fitting{planned}  {time.perf_counter() - self.t0:.1f}s",
                           self.stream)
            self._write("\r" + text + "\x1b[K")
            self._width = len(text)
            return
        if self.total:
            fraction = 1.0 if done else min(1.0, self.iteration / self.total)
            filled = int(round(fraction * _BAR_WIDTH))
            bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
            head = f"[{self.name}] |{bar}| {self.iteration}/{self.total}"
        else:
            spinner = "|/-\\"[int((time.perf_counter() - self.t0) / _TICK_SECONDS) % 4]
            head = f"[{self.name}] {'done' if done else spinner}"
        parts = [head]
        if self.objective is not None:
            parts.append(f"objective {_number(self.objective)}")
        if self.metric and self.score is not None:
            parts.append(f"{self.metric} {self.score:.4f}")
        parts.append(f"{time.perf_counter() - self.t0:.1f}s")
        if summary:
            parts.append(summary)
        text = "  ".join(parts)
        if not done:                # the last draw ends the line: it may wrap, no redraw follows it
            text = _fitted(text, self.stream)
        # \r back to the start, then erase what a longer previous line left behind
        self._write("\r" + text + "\x1b[K")
        self._width = len(text)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except UnicodeEncodeError as exc:
            # a candidate's or a metric's name on an ASCII stream (cron, PYTHONIOENCODING=ascii): the line in ASCII
            # words (``lambda`` for ``λ``), not dropped -- a UnicodeEncodeError is a ValueError, caught below
            self._write(text.encode(exc.encoding, plain_errors()).decode(exc.encoding))
        except (OSError, ValueError):  # a closed pipe must not break the fit
            pass


class Progress:
    """Makes :class:`Task` objects for one command invocation."""

    def __init__(self, mode: str = "auto", *, quiet: bool = False, stream: TextIO | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.mode = choose_mode(mode, quiet, self.stream)
        # --quiet silences everything but results; --progress none the display alone (an estimator's own
        # verbose= table, asked for by name, is still shown)
        self.quiet = bool(quiet)

    def task(self, name: str, total: int | None, metric: str | None = None, unit: str = "iterations") -> Task:
        task = Task(name, total, metric, self.mode, self.stream, unit)
        task.quiet = self.quiet
        return task


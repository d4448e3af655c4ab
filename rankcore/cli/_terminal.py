"""Text for a terminal: its width, plain text from docstrings, tables that fit.

Tables are laid out for the width of the terminal (``COLUMNS`` when set, else
the terminal's own width, else :data:`DEFAULT_WIDTH` when the output is not a
terminal), so that no line wraps on screen:

* :func:`wrap_table` keeps short columns whole and wraps the long, free-text
  ones (summaries, parameter lists) inside their cells;
* :func:`column_groups` splits a table of many numeric columns into stacked
  blocks that each fit, repeating the leading label column.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
from typing import Sequence

# the codec error handler lives with the progress display, which the core's estimators use too
from .._progress import PLAIN_ERRORS, plain_errors, terminal_columns

__all__ = ["DEFAULT_WIDTH", "PLAIN_ERRORS", "plain_errors", "terminal_width", "plain_text", "wrap_text", "wrap_table",
           "column_groups"]

#: Width used when the output is not a terminal and ``COLUMNS`` is not set.
DEFAULT_WIDTH = 100
#: A table column is never made narrower than this (a very narrow terminal overflows instead).
_MIN_COLUMN = 12

# :data:`MAX_RATE`, :class:`rankcore.Price`, :meth:`~x.y`: Sphinx roles
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def terminal_width() -> int:
    """Columns of the terminal standard output goes to (``COLUMNS`` first); :data:`DEFAULT_WIDTH` when there is none.

    Read by the core's :func:`rankcore._progress.terminal_columns`, as the progress bar reads it.
    """
    return max(20, terminal_columns(sys.__stdout__, DEFAULT_WIDTH))


def plain_text(text: str) -> str:
    """``text`` without Sphinx markup: ``:data:`MAX_RATE``` becomes ``MAX_RATE``, ````x```` becomes ``x``."""
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if m.group(0).count("~") else m.group(1), text)
    return _LITERAL.sub(r"\1", text)


def wrap_text(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` characters, broken after spaces or commas (a longer word is cut)."""
    width = max(1, int(width))
    lines: list[str] = []
    current = ""
    for piece in re.split(r"(?<=[ ,])", text.strip()):
        if len(current) + len(piece.rstrip()) <= width or not current:
            current += piece
        else:
            lines.append(current.rstrip())
            current = piece.lstrip()
        while len(current.rstrip()) > width:                 # a single word longer than the cell
            lines.append(current[:width])
            current = current[width:]
    if current.strip() or not lines:
        lines.append(current.rstrip())
    return lines


def wrap_table(header: Sequence[str], rows: Sequence[Sequence[str]], *, width: int | None = None,
               wrap: Sequence[int] = (), gap: str = "  ") -> list[str]:
    """The table as lines of at most ``width`` characters (when the minimum column widths allow).

    Parameters
    ----------
    header : sequence of str
    rows : sequence of sequences of str
    width : int, optional
        Default :func:`terminal_width`.
    wrap : sequence of int
        The columns that may be narrowed and wrapped (free text); the others
        keep their full width.
    gap : str
        Between columns.

    Returns
    -------
    list of str
        The header line, then each row (a wrapped row takes several lines).
    """
    width = terminal_width() if width is None else int(width)
    table = [list(header)] + [list(r) for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    wrapped = sorted(set(wrap), key=lambda i: widths[i])
    budget = width - len(gap) * (len(header) - 1) - sum(w for i, w in enumerate(widths) if i not in wrapped)
    # share the budget among the wrapped columns: the narrow ones keep their width, the
    # others get equal shares of what is left (never below the minimum)
    for count, i in enumerate(wrapped):
        share = budget // (len(wrapped) - count)
        widths[i] = max(min(widths[i], share), min(widths[i], _MIN_COLUMN))
        budget -= widths[i]
    lines = []
    for row in table:
        cells = [wrap_text(cell, widths[i]) if i in wrap else [cell] for i, cell in enumerate(row)]
        for k in range(max(len(c) for c in cells)):
            parts = [(c[k] if k < len(c) else "").ljust(widths[i]) for i, c in enumerate(cells)]
            lines.append(gap.join(parts).rstrip())
    return lines


def column_groups(widths: Sequence[int], *, width: int | None = None, lead: int = 1, gap: int = 2) -> list[list[int]]:
    """Split columns ``lead..`` into groups that fit ``width`` next to the ``lead`` leading columns.

    Returns lists of column indices, each starting with the leading ones; a
    table printed group by group (a blank line between) never exceeds the
    width unless a single column does.
    """
    width = terminal_width() if width is None else int(width)
    head = list(range(lead))
    base = sum(widths[:lead]) + gap * max(0, lead - 1)
    groups, current, used = [], list(head), base
    for i in range(lead, len(widths)):
        need = gap + widths[i]
        if len(current) > lead and used + need > width:
            groups.append(current)
            current, used = list(head), base
        current.append(i)
        used += need
    groups.append(current)
    return groups


#: The streams :func:`plain_streams` changed and their own error handlers, while any ``main()`` runs (a count, as
#: ``main()`` may run in several threads of one process at once; the last to end restores them).
_CHANGED: dict = {"depth": 0, "streams": []}
_CHANGED_LOCK = threading.Lock()


def _needs_plain(stream) -> bool:
    """Whether ``stream`` could fail on a character (or a file name's byte that was not UTF-8) it cannot encode."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    errors = getattr(stream, "errors", None)
    # a UTF-8 stream encodes every character but a surrogate: only "strict" (``PYTHONIOENCODING=utf-8``, a desktop
    # en_US.UTF-8 locale) fails on one, a name's byte \xff; its "surrogateescape" writes the byte back
    return getattr(stream, "reconfigure", None) is not None and (encoding != "utf8" or errors == "strict")


@contextlib.contextmanager
def plain_streams():
    """Within it, ``sys.stdout`` and ``sys.stderr`` write what their encoding cannot hold as :func:`plain_errors`
    does instead of failing; on leaving, their own handlers are back.

    The command line's tables and messages use ``±``, ``ℓ``, ``≥``: under an ASCII or Latin-1 locale (``LC_ALL=C``,
    a Windows code page) printing them raised UnicodeEncodeError after the work was done.  ``rankcore.cli.main()``
    called from a program leaves that program's streams as they were: its own ``print("é")`` still fails, or
    writes bytes, as the program chose.
    """
    with _CHANGED_LOCK:
        if _CHANGED["depth"] == 0:
            _CHANGED["streams"] = []
            for stream in (sys.stdout, sys.stderr):
                if _needs_plain(stream):
                    with contextlib.suppress(ValueError, OSError):
                        errors = stream.errors
                        stream.reconfigure(errors=plain_errors())
                        _CHANGED["streams"].append((stream, errors))
        _CHANGED["depth"] += 1
    try:
        yield
    finally:
        with _CHANGED_LOCK:
            _CHANGED["depth"] -= 1
            if _CHANGED["depth"] == 0:
                for stream, errors in _CHANGED["streams"]:
                    with contextlib.suppress(ValueError, OSError):      # a closed stream, a reader gone
                        stream.reconfigure(errors=errors)
                _CHANGED["streams"] = []

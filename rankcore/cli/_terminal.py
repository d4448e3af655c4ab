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

import re
import sys
from typing import Sequence

from .._progress import terminal_columns

__all__ = ["DEFAULT_WIDTH", "terminal_width", "plain_text", "wrap_text", "wrap_table", "column_groups"]

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
    return "".join(_PLAIN.get(char, "?") for char in bad), error.end


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

"""What a push fit reports while it runs: the text display (``verbose``) and user callbacks."""

from __future__ import annotations

import math
import sys
import time
from typing import Sequence, TextIO

# Shared by every iterative estimator (rankcore.base); kept importable from here.
from ..base import IterationInfo, check_callbacks, run_callbacks

__all__ = ["IterationInfo", "check_callbacks", "run_callbacks", "Progress", "say"]


def say(text: str, stream: TextIO | None = None) -> None:
    """Print a ``verbose`` line to ``stream`` (None: ``sys.stdout`` now, as ``print`` finds it).

    A closed pipe (``python fit.py | head``) or stream must not end the fit it reports on: the line is dropped.
    Any other failure is the caller's to see (a full disk); a character the stream cannot encode (an
    ``eval_names`` entry on an ASCII terminal) is written escaped, not dropped with its line.  A line is one
    write, whole.
    """
    out = sys.stdout if stream is None else stream
    if out is None:                 # no stdout at all (pythonw): print would write nowhere either
        return
    try:
        # one write a line, not print's text then newline: two fits' lines in two threads do not cut into each other
        out.write(text + "\n")
        out.flush()
    except BrokenPipeError:
        pass
    except UnicodeEncodeError as exc:
        _say_escaped(text, out, exc.encoding)
    except ValueError:
        if not getattr(out, "closed", False):       # only "I/O operation on closed file" is a stream gone
            raise


def _say_escaped(text: str, stream: TextIO, encoding: str) -> None:
    """:func:`say` of ``text`` with what ``encoding`` cannot write as backslash escapes (``validaci\\xf3n``)."""
    say(text.encode(encoding, "backslashreplace").decode(encoding), stream)


class Progress:
    """Prints one line per reported iteration: iteration, objective, α, validation scores, time.

    ``verbose=0`` prints nothing; ``1`` about ten lines per fit (every
    ``n_iter // 10`` iterations, and the last); ``2`` every iteration.
    ``columns``: the validation scores' labels, one a set (``"val auc"``
    for one set; ``"train auc"``, ``"valid auc"`` for an ``eval_set`` of
    several, as LightGBM logs every set), each column as wide as its label
    (a spec cut short would read as another metric: ``prec@k:0.3`` for
    ``prec@k:0.35``).  ``first``: the weak rankers before the fit's first
    (a continuation's init model): the lines number the iterations after
    them, as the callbacks and ``best_iteration_`` do.
    """

    def __init__(self, verbose: int, n_iter: int, columns: Sequence[str] = (), *, stream: TextIO, first: int = 0):
        self.verbose = int(verbose)
        self.n_iter = int(n_iter)
        self.columns = tuple(columns)
        self.widths = tuple(max(14, len(label)) for label in self.columns)
        self.stream = stream
        self.first = int(first)
        self.every = 1 if self.verbose >= 2 else max(1, self.n_iter // 10)
        self.t0 = 0.0

    def _print(self, text: str) -> None:
        say(text, self.stream)

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def start(self) -> None:
        self.t0 = time.perf_counter()
        if self.verbose:
            head = f"{'iter':>7}  {'objective':>14}  {'alpha':>11}"
            head += "".join(f"  {label:>{width}}" for label, width in zip(self.columns, self.widths))
            self._print(head + f"  {'elapsed':>9}")

    def update(self, record, scores: Sequence[float | None] = ()) -> None:
        """Print ``record``'s line (when due) with ``scores``, one per column (None: left blank)."""
        if not self.verbose:
            return
        if record.iteration % self.every and record.iteration != self.n_iter:
            return
        # an objective with no value (lambdarank, yetirank: gradients only) reports NaN: a dash, not "nan"
        value = f"{'-':>14}" if math.isnan(record.value) else f"{record.value:>14.6f}"
        line = f"{self.first + record.iteration:>7d}  {value}  {record.alpha:>11.4g}"
        for score, width in zip(scores, self.widths):
            line += f"  {score:>{width}.6f}" if score is not None else f"  {'':>{width}}"
        self._print(line + f"  {time.perf_counter() - self.t0:>8.2f}s")

    def finish(self, n_kept: int, reason: str, n_run: int | None = None) -> None:
        """The last line: why the fit stopped and the weak rankers kept; ``n_run`` the iterations run, when early
        stopping kept fewer (LightGBM's "best iteration is" line: the table's last lines are past the model)."""
        if not self.verbose:
            return
        kept = f"{self.first + n_kept} weak rankers" + (f" ({self.first} of the init model)" if self.first else "")
        seconds = f"{time.perf_counter() - self.t0:.2f}s"
        if n_run is not None and n_run != n_kept:
            self._print(f"stopped ({reason}) after iteration {self.first + n_run} in {seconds}, keeping the best "
                        f"{kept}")
        else:
            self._print(f"stopped ({reason}) with {kept} in {seconds}")

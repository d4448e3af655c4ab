"""What a push fit reports while it runs: the text display (``verbose``) and user callbacks."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TextIO


@dataclass(frozen=True)
class IterationInfo:
    """What a ``callbacks=`` function of a push ``fit`` receives after each iteration.

    Attributes
    ----------
    iteration : int
        1-based number of the iteration just completed.
    n_iter : int
        The planned number of iterations (the fit may stop earlier).
    objective : float
        The objective after the step (the value ``objective_values_`` records).
    alpha : float
        The step taken along the chosen weak ranker.
    ranker : WeakRanker
        The weak ranker chosen at this iteration.
    validation_score : float or None
        The ``scoring`` metric on the validation data (``eval_set`` or the
        early-stopping split); None when nothing is monitored.
    elapsed : float
        Seconds since the fit started iterating.
    """

    iteration: int
    n_iter: int
    objective: float
    alpha: float
    ranker: Any
    validation_score: float | None
    elapsed: float


def check_callbacks(callbacks) -> tuple[Callable[[IterationInfo], Any], ...]:
    """Validate ``fit(callbacks=...)``: None, one callable, or a sequence of callables."""
    if callbacks is None:
        return ()
    if callable(callbacks):
        return (callbacks,)
    if isinstance(callbacks, (str, bytes)) or not isinstance(callbacks, Sequence):
        raise TypeError(f"callbacks: expected a callable or a list of callables, got {type(callbacks).__name__}")
    for i, cb in enumerate(callbacks):
        if not callable(cb):
            raise TypeError(f"callbacks[{i}]: expected a callable taking an IterationInfo, got {cb!r}")
    return tuple(callbacks)


def run_callbacks(callbacks, info: IterationInfo) -> str | None:
    """Call every callback; the first truthy return value stops the fit.

    A returned string becomes ``stop_reason_``; any other truthy value stops
    with the reason ``"callback"``.
    """
    for cb in callbacks:
        answer = cb(info)
        if answer:
            return answer if isinstance(answer, str) else "callback"
    return None


class Progress:
    """Prints one line per reported iteration: iteration, objective, validation score, time.

    ``verbose=0`` prints nothing; ``1`` about ten lines per fit (every
    ``n_iter // 10`` iterations, and the last); ``2`` every iteration.
    """

    def __init__(self, verbose: int, n_iter: int, metric: str | None, *, stream: TextIO):
        self.verbose = int(verbose)
        self.n_iter = int(n_iter)
        self.metric = metric
        self.stream = stream
        self.every = 1 if self.verbose >= 2 else max(1, self.n_iter // 10)
        self.t0 = 0.0

    def _print(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def start(self) -> None:
        self.t0 = time.perf_counter()
        if self.verbose:
            head = f"{'iter':>7}  {'objective':>14}  {'alpha':>11}"
            if self.metric:
                head += f"  {('val ' + self.metric)[:14]:>14}"
            self._print(head + f"  {'elapsed':>9}")

    def update(self, record, score) -> None:
        if not self.verbose:
            return
        if record.iteration % self.every and record.iteration != self.n_iter:
            return
        line = f"{record.iteration:>7d}  {record.value:>14.6f}  {record.alpha:>11.4g}"
        if self.metric:
            line += f"  {score:>14.6f}" if score is not None else f"  {'':>14}"
        self._print(line + f"  {time.perf_counter() - self.t0:>8.2f}s")

    def finish(self, n_kept: int, reason: str) -> None:
        if self.verbose:
            self._print(f"stopped ({reason}) with {n_kept} weak rankers in {time.perf_counter() - self.t0:.2f}s")

"""What a push fit reports while it runs: the text display (``verbose``) and user callbacks."""

from __future__ import annotations

import math
import time
from typing import TextIO

# Shared by every iterative estimator (rankcore.base); kept importable from here.
from ..base import IterationInfo, check_callbacks, run_callbacks

__all__ = ["IterationInfo", "check_callbacks", "run_callbacks", "Progress"]


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
        # an objective with no value (lambdarank, yetirank: gradients only) reports NaN: a dash, not "nan"
        value = f"{'-':>14}" if math.isnan(record.value) else f"{record.value:>14.6f}"
        line = f"{record.iteration:>7d}  {value}  {record.alpha:>11.4g}"
        if self.metric:
            line += f"  {score:>14.6f}" if score is not None else f"  {'':>14}"
        self._print(line + f"  {time.perf_counter() - self.t0:>8.2f}s")

    def finish(self, n_kept: int, reason: str) -> None:
        if self.verbose:
            self._print(f"stopped ({reason}) with {n_kept} weak rankers in {time.perf_counter() - self.t0:.2f}s")

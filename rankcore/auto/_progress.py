"""Progress of a search: events for callbacks, and a bar (candidate, fold, best so far) for people.

Every recorded task produces a :class:`SearchEvent`; ``AutoRanker.fit``
passes it to the user's ``callbacks`` and, with ``verbose``, to a
:class:`SearchProgress` that draws the progress display
(:mod:`rankcore._progress`: a bar redrawn in place in a terminal, plain
lines in a log).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any, Callable

from .._callbacks import peer_callback

__all__ = ["SearchEvent", "SearchProgress", "check_callbacks"]


@dataclass(frozen=True)
class SearchEvent:
    """One task of the search has finished.

    Attributes
    ----------
    candidate : str
        The candidate's spec.
    fold : int
        The fold (1-based, in the plan's order) it was fitted on.
    n_splits : int
        Folds per repeat (1 for a hold-out): fold f is fold ``(f - 1) % n_splits + 1``
        of repeat ``(f - 1) // n_splits + 1``.
    done, planned : int
        Tasks finished so far, and planned in all (an upper bound: successive
        halving and a time budget may run fewer).
    score : float or None
        Its validation score (None if it failed).
    error : str or None
    best, best_score :
        The leading candidate so far (by mean over the folds it has) and its mean.
    elapsed : float
        Seconds since ``fit`` started.
    """

    candidate: str
    fold: int
    n_splits: int
    done: int
    planned: int
    score: float | None
    error: str | None
    best: str | None
    best_score: float
    elapsed: float


def where(event: SearchEvent) -> str:
    """``"fold 3/5"``, ``"fold 2/5 of repeat 2"`` or ``"hold-out"``."""
    if event.n_splits <= 1:
        return "hold-out" if event.fold == 1 else f"hold-out {event.fold}"
    repeat, fold = divmod(event.fold - 1, event.n_splits)
    text = f"fold {fold + 1}/{event.n_splits}"
    return text + (f" of repeat {repeat + 1}" if repeat else "")


def check_callbacks(callbacks: Any) -> list[Callable]:
    """None, one callable or a list of callables -> a list; anything else is a TypeError."""
    if callbacks is None:
        return []
    items = [callbacks] if callable(callbacks) else callbacks
    if not isinstance(items, (list, tuple)) or not all(callable(c) for c in items):
        raise TypeError(f"callbacks: expected a callable or a list of callables, got {callbacks!r}")
    for i, callback in enumerate(items):
        # LightGBM's early_stopping(...) is callable too, but would fail on the first SearchEvent, after a fit
        peer = peer_callback(callback)
        if peer is not None:
            raise TypeError(f"callbacks[{i}]: {peer[1]} is {peer[0]}'s callback, which AutoRanker's fit cannot run "
                            f"(AutoRanker's callbacks are callables taking a rankcore.auto.SearchEvent after each "
                            f"task; verbose=1 shows the search, time_budget= bounds it)")
    return list(items)


class SearchProgress:
    """A progress display of the search, drawn by :class:`rankcore._progress.Task`.

    Parameters
    ----------
    metric : str
    mode : {"auto", "bar", "lines", "none"}
    stream : text stream, default sys.stdout
        Standard output as every estimator's ``verbose`` output (push, trees, and LightGBM's, XGBoost's,
        scikit-learn's); the command line passes its own stream (stderr: stdout carries its results).
    """

    def __init__(self, metric: str, mode: str = "auto", stream=None):
        from .._progress import Progress

        self.metric = metric
        self.progress = Progress(mode, stream=sys.stdout if stream is None else stream)
        self.task = None

    def __call__(self, event: SearchEvent) -> None:
        if self.task is None:
            self.task = self.progress.task("auto", event.planned, None, unit="tasks (candidate x fold)")
        self.task.total = max(event.planned, event.done)
        self.task.name = f"auto: {event.candidate}, {where(event)}"
        if event.best is not None and not math.isnan(event.best_score):
            self.task.metric = f"best {event.best} {self.metric}"
        self.task.update(event.done, None, None if math.isnan(event.best_score) else event.best_score)

    def close(self, summary: str) -> None:
        """End the progress line with ``summary`` (the chosen model and its score)."""
        if self.task is not None:
            self.task.name = "auto"
            self.task.total = self.task.iteration
            self.task.close(summary)

"""The ``callbacks=`` of an iterative estimator's ``fit``: checked once, then called after every iteration.

Every iterative estimator (the push family, ExactBoost, the precision@k
learners, a plugin's) runs its callbacks through :func:`run_callbacks`, which
each receives a :class:`rankcore.base.IterationInfo`; a truthy return stops the
fit, and an exception one raises carries a note naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Callable

__all__ = ["check_callbacks", "run_callbacks", "callback_name", "CountedCallbacks"]


class CountedCallbacks(tuple):
    """Callbacks that see the iterations counted after ``first`` earlier ones (a continuation's: the init model's
    weak rankers come first, as LightGBM's ``env.iteration`` counts them); the progress display counts so too."""

    first: int

    def __new__(cls, callbacks, first: int):
        counted = super().__new__(cls, callbacks)
        counted.first = int(first)
        return counted

    def __getnewargs__(self) -> tuple:
        # pickle and copy rebuild a tuple subclass by calling __new__ with these: ``first`` too, not the tuple alone
        return tuple(self), self.first


def check_callbacks(callbacks) -> tuple[Callable[[Any], Any], ...]:
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


def run_callbacks(callbacks, info: Any) -> str | None:
    """Call every callback; the first truthy return value stops the fit.

    A returned string is the reason (``stop_reason_`` where the estimator
    records one); any other truthy value stops with the reason ``"callback"``.
    The callbacks after the one that stops are still called with this
    iteration, which the model keeps (a logger after a stopper sees it).
    An exception a callback raises ends the fit as it is (its type kept, so
    that the caller's ``except`` still catches it), with a note naming the
    callback and the iteration: a traceback from deep in a fit says whose
    code failed.  ``callbacks`` may be :class:`CountedCallbacks`: each then
    sees ``iteration`` and ``n_iter`` counted after its ``first``.
    """
    first = getattr(callbacks, "first", 0)
    if first:
        info = replace(info, iteration=info.iteration + first, n_iter=info.n_iter + first)
    reason = None
    for i, cb in enumerate(callbacks):
        try:
            answer = cb(info)
        except Exception as exc:
            _note_callback_failure(exc, i, cb, info.iteration)
            raise
        if answer and reason is None:
            reason = answer if isinstance(answer, str) else "callback"
    return reason


def callback_name(callback: Any) -> str:
    """How messages name a callback: its qualified name, or its type's for a callable object."""
    name = getattr(callback, "__qualname__", None) or getattr(callback, "__name__", None)
    return str(name) if name else type(callback).__qualname__


def _note_callback_failure(exc: Exception, index: int, callback: Any, iteration: int) -> None:
    """Add to ``exc`` (Python 3.11+: ``add_note``) which callback raised it and after which iteration."""
    add_note = getattr(exc, "add_note", None)
    if add_note is not None:
        add_note(f"raised by callbacks[{index}] ({callback_name(callback)}) after iteration {iteration}; "
                 f"the fit was abandoned")

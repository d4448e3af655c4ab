"""The ``callbacks=`` of an iterative estimator's ``fit``: checked once, then called after every iteration.

Every iterative estimator (the push family, ExactBoost, the precision@k
learners, a plugin's) runs its callbacks through :func:`run_callbacks`, which
each receives a :class:`rankcore.base.IterationInfo`; a truthy return stops the
fit, and an exception one raises carries a note naming it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Callable

__all__ = ["check_callbacks", "run_callbacks", "callback_name", "CountedCallbacks", "peer_callback"]

#: The libraries whose callbacks expect their own training loop (LightGBM's ``CallbackEnv``, XGBoost's and CatBoost's
#: callback objects): passed to a rankcore fit, one would fail after the first iteration on a missing field.
_PEER_LIBRARIES = ("lightgbm", "xgboost", "catboost")

#: What a peer library's callback does and rankcore's way to do it, matched against the callback's type or function
#: name in lower case (``lightgbm.early_stopping(50)`` is a ``_EarlyStoppingCallback``, XGBoost's an
#: ``EarlyStopping``).
_PEER_CALLBACKS = (
    ("earlystop", "early_stopping=True, n_iter_no_change=N (the estimator's parameters) with fit(..., eval_set=...); "
                  "the model keeps its best_iteration_ iterations"),
    ("early_stopping", "early_stopping=True, n_iter_no_change=N (the estimator's parameters) with fit(..., "
                       "eval_set=...); the model keeps its best_iteration_ iterations"),
    ("log", "verbose=1 (a line about every tenth iteration) or verbose=2 (every iteration), the estimator's parameter"),
    ("evaluationmonitor", "verbose=1 or verbose=2, the estimator's parameter"),
    ("record", "evals_result_ after the fit ({set: {metric: curve}}, as LightGBM's)"),
)

#: LightGBM's ``CallbackEnv`` fields that :class:`rankcore.base.IterationInfo` does not have (``iteration`` it has).
_CALLBACK_ENV_FIELDS = frozenset({"model", "params", "begin_iteration", "end_iteration", "evaluation_result_list"})


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
        _refuse_peer_callback(i, cb)
        if not callable(cb):
            # XGBoost's and CatBoost's callbacks are objects whose after_iteration their own loop calls
            protocol = (" (an object with after_iteration, as XGBoost's and CatBoost's callbacks, is not one: "
                        "rankcore calls the callback itself; a truthy return stops the fit)"
                        if callable(getattr(cb, "after_iteration", None)) else "")
            raise TypeError(f"callbacks[{i}]: expected a callable taking an IterationInfo, got {cb!r}{protocol}")
    return tuple(callbacks)


def _unwrapped(callback: Any) -> Any:
    """The callable a ``functools.partial`` (of a partial...) calls; else ``callback``."""
    while isinstance(callback, functools.partial):
        callback = callback.func
    return callback


def _peer_library(callback: Any) -> str | None:
    """The library (``lightgbm``, ...) a callback comes from, by its function's module or that of its type or of a
    base class (a user's subclass of XGBoost's ``TrainingCallback``); a ``functools.partial`` by what it wraps."""
    callback = _unwrapped(callback)
    modules = [getattr(callback, "__module__", None)] + [klass.__module__ for klass in type(callback).__mro__]
    for module in modules:
        root = str(module or "").partition(".")[0]
        if root in _PEER_LIBRARIES:
            return root
    return None


def peer_callback(callback: Any) -> tuple[str, str] | None:
    """(the library, the callback's name) of LightGBM's, XGBoost's or CatBoost's callback (a partial of one
    unwrapped); None for any other callable."""
    library = _peer_library(callback)
    return None if library is None else (library, callback_name(_unwrapped(callback)))


def _refuse_peer_callback(index: int, callback: Any) -> None:
    """Refuse LightGBM's, XGBoost's or CatBoost's callback before the fit, naming what rankcore does instead.

    Such a callback reads its own library's training state (LightGBM's ``env.begin_iteration``, XGBoost's
    ``after_iteration(model, epoch, evals_log)``): let through, it would fail after the first iteration with an
    AttributeError that says nothing of where early stopping or logging is here.
    """
    library = _peer_library(callback)
    if library is None:
        return
    callback = _unwrapped(callback)
    name = callback_name(callback)
    key = name.lower()
    where = next((hint for word, hint in _PEER_CALLBACKS if word in key), "")
    # LightGBM's early_stopping(50) keeps its patience as stopping_rounds, XGBoost's EarlyStopping as rounds
    rounds = getattr(callback, "stopping_rounds", None) or getattr(callback, "rounds", None)
    if isinstance(rounds, int) and "n_iter_no_change=N" in where:
        where = where.replace("n_iter_no_change=N", f"n_iter_no_change={rounds}")
    instead = f"; here: {where}" if where else ""
    raise TypeError(f"callbacks[{index}]: {name} is {library}'s callback, which rankcore's fit cannot run{instead} "
                    f"(rankcore's callbacks are callables taking a rankcore.base.IterationInfo; a truthy return "
                    f"stops the fit)")


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
        if isinstance(exc, AttributeError) and getattr(exc, "name", None) in _CALLBACK_ENV_FIELDS:
            # a callback written for LightGBM reads its CallbackEnv, whose fields IterationInfo names otherwise
            add_note(f"{exc.name} is a field of LightGBM's CallbackEnv; rankcore's callbacks receive a "
                     f"rankcore.base.IterationInfo (iteration, n_iter, objective, alpha, ranker, validation_score, "
                     f"elapsed): the scores of every eval_set after the fit are evals_result_")

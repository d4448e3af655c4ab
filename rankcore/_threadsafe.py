"""Thread safety of the estimators: fit on a private copy, publish in one step, predict on a snapshot.

The rule (issue 13): one estimator may be fitted from several threads at
once, and used for prediction while another thread refits it.

* A fit works on a shallow copy of the estimator (its own ``__dict__``), so
  its intermediate state -- the validated feature count, a random generator,
  half-set fitted attributes -- is invisible to other threads.  At the end the
  copy's attributes are published into the estimator with one
  ``dict.update``, a single call that no other Python thread can interleave
  with (it holds the GIL throughout).  Two concurrent fits therefore leave
  exactly one of the two models -- the one that finished last -- never a mix.
  A fit that raises publishes nothing: the previous model stays intact.
* A prediction reads a snapshot: a shallow copy of the estimator's
  ``__dict__`` taken in one call, so it sees one whole model even if a fit
  publishes in between, and never raises because of it.

Fitted arrays are never modified in place after they are published (every
fit builds new ones), so sharing them between the estimator, a snapshot and
a working copy is safe.  Setting parameters (``set_params``) while a fit is
running is not supported: the fit uses the parameters it copied at its start.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

__all__ = ["fits_on_a_copy", "reads_a_snapshot", "snapshot"]


def snapshot(estimator: Any) -> Any:
    """A shallow copy of ``estimator`` sharing its attribute values (one atomic dict copy)."""
    copy = object.__new__(type(estimator))
    copy.__dict__.update(estimator.__dict__)
    return copy


def fits_on_a_copy(fit: Callable) -> Callable:
    """Decorate a ``fit``/``partial_fit`` method: run it on a snapshot, then publish in one step."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        work = snapshot(self)
        result = fit(work, *args, **kwargs)
        self.__dict__.update(work.__dict__)     # one C call: atomic with respect to other threads
        return self if result is work else result

    return wrapper


def reads_a_snapshot(method: Callable) -> Callable:
    """Decorate a prediction method: run it on a snapshot of the fitted state."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        return method(snapshot(self), *args, **kwargs)

    return wrapper

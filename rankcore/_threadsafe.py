"""Thread safety of the estimators: fit on a private copy, publish in one step, predict on a snapshot.

The rule: one estimator may be fitted from several threads at
once, and used for prediction while another thread refits it.

* A fit works on a shallow copy of the estimator (its own ``__dict__``), so
  its intermediate state -- the validated feature count, a random generator,
  half-set fitted attributes -- is invisible to other threads.  At the end the
  copy's *fitted state* is published into the estimator in one step: for an
  estimator that declares its fitted state (:class:`rankcore.base.Ranker`'s
  ``fitted``), a new attribute dictionary -- the estimator's parameters and
  other attributes, with every declared fitted attribute replaced by the
  copy's (or removed, when this fit did not set it) -- is swapped in with one
  assignment; the fit's scratch attributes are not published.  Otherwise the
  copy's attributes are merged with one ``dict.update``.  Either is a single
  operation no other Python thread can interleave with (it holds the GIL).
  Two concurrent fits therefore leave exactly one of the two models -- the
  one that finished last -- never a mix, and never a stale attribute of an
  earlier fit.  A fit that raises publishes nothing: the previous model
  stays intact.
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

__all__ = ["fits_on_a_copy", "continues_on_a_copy", "reads_a_snapshot", "snapshot", "publish"]


def snapshot(estimator: Any) -> Any:
    """A shallow copy of ``estimator`` sharing its attribute values (one atomic dict copy)."""
    copy = object.__new__(type(estimator))
    copy.__dict__.update(estimator.__dict__)
    return copy


def fits_on_a_copy(fit: Callable) -> Callable:
    """Decorate a ``fit`` method: run it on a snapshot, then publish in one step.

    A fit starts afresh: the snapshot it works on holds the estimator's
    parameters but none of its declared fitted attributes.
    """
    return _on_a_copy(fit, fresh=True)


def continues_on_a_copy(fit: Callable) -> Callable:
    """Decorate a ``partial_fit`` method: like :func:`fits_on_a_copy`, continuing from the fitted state."""
    return _on_a_copy(fit, fresh=False)


def _on_a_copy(fit: Callable, *, fresh: bool) -> Callable:
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        work = snapshot(self)
        declared = getattr(type(self), "_fitted_names", None)
        if fresh and declared:
            for name in declared & work.__dict__.keys():
                del work.__dict__[name]
        result = fit(work, *args, **kwargs)
        publish(self, work)
        return self if result is work else result

    return wrapper


def publish(estimator: Any, work: Any) -> None:
    """Publish the fitted state of ``work`` (a fitted snapshot) into ``estimator`` in one step.

    Raises
    ------
    TypeError
        The fit set a public fitted attribute (``name_``) that its class does
        not declare: it would be lost, so the declaration is incomplete.
    """
    declared = getattr(type(estimator), "_fitted_names", None)
    if not declared and not getattr(type(estimator), "fitted", None):
        estimator.__dict__.update(work.__dict__)    # one C call: atomic with respect to other threads
        return
    produced = work.__dict__
    stray = [k for k in produced if k.endswith("_") and not k.startswith("_") and k not in declared
             and k not in estimator.__dict__]
    if stray:
        raise TypeError(f"{type(estimator).__name__}.fit set {', '.join(sorted(stray))}, which "
                        f"{type(estimator).__name__}.fitted does not declare")
    fresh = {k: v for k, v in estimator.__dict__.items() if k not in declared}
    fresh.update((k, v) for k, v in produced.items() if k in declared)
    estimator.__dict__ = fresh                     # one assignment: atomic with respect to other threads


def reads_a_snapshot(method: Callable) -> Callable:
    """Decorate a prediction method: run it on a snapshot of the fitted state."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        return method(snapshot(self), *args, **kwargs)

    return wrapper

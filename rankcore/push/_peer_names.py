"""Other libraries' names for rankcore's parameters: the hints of :func:`rankcore.boost`, ``set_params`` and ``fit``.

A module of its own so that the estimators' base (``set_params``), :func:`rankcore.boost`, ``AutoRanker.fit`` and
the Dask estimators' ``fit`` read one table without importing each other; the tables themselves (:data:`PEER_NAMES`,
:data:`PEER_FIT_NAMES`) are ``rankcore._peer_names``, which the spec strings' refusals and the command line's hints
read too.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable

from .._peer_names import PEER_FIT_NAMES, PEER_NAMES, PeerFitName, fit_argument_of, peer_fit_hint

__all__ = ["PEER_NAMES", "PEER_FIT_NAMES", "PeerFitName", "fit_argument_of", "names_peer_fit_arguments",
           "peer_fit_hint"]


def names_peer_fit_arguments(fit: Callable | None = None, *, constructor: str | None = "rankcore.boost",
                             auto: bool = False) -> Callable:
    """Decorate a ``fit``: another library's argument it does not take is a TypeError naming rankcore's.

    Any other unknown argument gets Python's own TypeError; ``fit``'s signature (which scikit-learn's metadata
    routing reads) is the decorated one's.  Used bare (``@names_peer_fit_arguments``) or with ``constructor`` and
    ``auto`` of :func:`peer_fit_hint` (``constructor=None``: the estimator's class, ``DaskPushBoost(...)``).
    """
    if fit is None:
        return functools.partial(names_peer_fit_arguments, constructor=constructor, auto=auto)
    known = set(inspect.signature(fit).parameters)

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        for name in kwargs:
            hint = None if name in known else peer_fit_hint(name, constructor or type(self).__name__, auto=auto)
            if hint is not None:
                raise TypeError(f"{name}: {type(self).__name__}.fit takes no argument {name!r}; other libraries' "
                                f"{name} is here {hint}")
        return fit(self, *args, **kwargs)

    return wrapper

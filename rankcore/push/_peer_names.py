"""Other libraries' names for rankcore's parameters: the hints of :func:`rankcore.boost`, ``set_params`` and ``fit``.

A module of its own so that the estimators' base (``set_params``), :func:`rankcore.boost`, ``AutoRanker.fit`` and
the Dask estimators' ``fit`` read one table without importing each other; the tables themselves (:data:`PEER_NAMES`,
:data:`PEER_FIT_NAMES`) and the decorator are ``rankcore._peer_names``, which the spec strings' refusals, the
command line's hints and the estimators outside the push family read too.
"""

from __future__ import annotations

from .._peer_names import PEER_FIT_NAMES, PEER_NAMES, PeerFitName, fit_argument_of, names_peer_fit_arguments, \
    peer_fit_hint

__all__ = ["PEER_NAMES", "PEER_FIT_NAMES", "PeerFitName", "fit_argument_of", "names_peer_fit_arguments",
           "peer_fit_hint"]

"""What a push estimator fits within queries when the user leaves a setting at its default, in one place.

``rankcore.boost(learner="trees").fit(X, y, qid=qid)`` reads these where the
parameters are None (``price``, ``scoring``, ``n_iter``) or at their defaults
(``loss``, ``objective``, the learner spec's own parameters).  The values
are the ones measured by the per-query study (``docs/studies/``); a change
of default is a change here only.
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["QUERY_METRIC", "QUERY_OBJECTIVE", "QUERY_PRICE", "QUERY_LEARNER_PARAMS", "QUERY_N_ITER"]

#: Validation (early stopping, ``eval_set``) and :meth:`score` with queries: NDCG of the first ten places
#: per query, gains 2^grade − 1, queries without a relevant row left out of the mean.
QUERY_METRIC = "ndcg@k:10"

#: The objective with queries when ``objective=None``: None is the push of the estimator's own loss and
#: price within each query (the per-query P-Norm Push); a registered spec (``"lambdarank"``) replaces it.
QUERY_OBJECTIVE = None

#: The price with queries when ``price=None``: None is the learner's ``default_price`` (as without queries).
QUERY_PRICE = None

#: Learner spec parameters set with queries where the user's learner spec leaves them out (per learner name).
QUERY_LEARNER_PARAMS = MappingProxyType({})

#: The iteration cap with queries when ``n_iter=None``: None keeps the estimator's (100, or the learner's
#: large-data cap when ``early_stopping="auto"`` switches on).
QUERY_N_ITER = None

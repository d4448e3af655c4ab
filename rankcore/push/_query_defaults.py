"""What a push estimator fits within queries when the user leaves a setting at its default, in one place.

``rankcore.boost(learner="trees").fit(X, y, qid=qid)`` reads these where the
parameters are None (``price``, ``scoring``, ``n_iter``) or at their defaults
(``loss``, ``objective``, the learner spec's own parameters).  None keeps the
estimator's own default.  A value here is chosen, with its evidence, by the
per-query study recorded in ``docs/studies/``; a change of default is a
change here only (the estimators, persistence and the docs read these names).
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["QUERY_METRIC", "QUERY_OBJECTIVE", "QUERY_PRICE", "QUERY_GAIN_WEIGHTED", "QUERY_LEARNER_PARAMS",
           "QUERY_SHAPE_PARAMS", "QUERY_CATEGORICAL_PARAMS", "QUERY_N_ITER", "QUERY_RMSE",
           "QUERY_RMSE_MANY", "QUERY_RMSE_MANY_QUERIES", "query_rmse_weight", "QUERY_SEARCHED_FROM_START",
           "searches_from_start", "searched_from_start"]

#: Validation (early stopping, ``eval_set``) and :meth:`score` with queries: NDCG of the first ten places
#: per query, gains 2^grade − 1, queries without a relevant row left out of the mean.
QUERY_METRIC = "ndcg@k:10"

#: The objective with queries when ``objective=None``: None is the push of the estimator's own loss and
#: price within each query (the per-query P-Norm Push); a registered spec (``"lambdarank"``) replaces it.
QUERY_OBJECTIVE = None

#: The price with queries when ``price=None``: RankBoost's identity.  Steep prices (pow:4, pow:16) push the
#: worst-placed document down hard, and on long queries (hundreds of documents) that costs NDCG at the top:
#: pow:4 lost 0.095 NDCG@10 against LGBMRanker() on synthetic queries of 10-1,000 documents.
QUERY_PRICE = "identity"

#: The push built from ``loss`` and ``price`` within queries weighs each pair by the gain difference
#: 2^y_i − 2^y_k of its grades (NDCG's gains): without it identity lost 0.046 NDCG@10 on the long queries.
QUERY_GAIN_WEIGHTED = True

#: The weight λ of CatBoost's QueryRMSE term added to that push (``query_rmse``: the per-query squared error of
#: the scores to the grades, each query's mean residual removed, scaled so that λ = 1 gives its gradient the
#: push's L1 norm at f = 0).  Over five sets, three splits and three random states, λ = 2 ranked the top better
#: than the push alone on the mean at NDCG@1, @5 and @10 on every split (NDCG@10 +0.005 to +0.006, NDCG@1
#: +0.002 to +0.013; on LightGBM's LTR example NDCG@1 +0.010 to +0.021), for about 1.6 % more work; it lost up
#: to 0.003 NDCG@10 on single sets and 0.0025 on a large retrieval-like one.
QUERY_RMSE = 2.0

#: The QueryRMSE weight with many queries: above :data:`QUERY_RMSE_MANY_QUERIES` queries that hold two grades or
#: more (counted over every query given to ``fit``, among its rows of positive weight: a query of weight 0 is a
#: dropped query), λ = 1 instead of :data:`QUERY_RMSE`.  On five sets of about
#: 900 to 1,650 such training queries, λ = 1 ranked better than λ = 2 at NDCG@10 in eight cells of nine (+0.0009
#: on the mean; NDCG@1 +0.0012, NDCG@5 +0.0011), two of those sets kept out of the screen that proposed it.  With
#: 48 to about 600 queries λ = 2 was the better of the two (NDCG@10 +0.002 on the mean of five sets), and a weight
#: that fell with the queries there lost.
QUERY_RMSE_MANY = 1.0

#: The number of queries with two grades or more above which :data:`QUERY_RMSE_MANY` replaces :data:`QUERY_RMSE`:
#: between the largest set where λ = 2 was measured better (about 600 training queries) and the smallest where
#: λ = 1 was (about 900).
QUERY_RMSE_MANY_QUERIES = 800

#: Learner spec parameters set with queries where the user's learner spec leaves them out (per learner name):
#: oblivious (symmetric) trees of depth 6, as CatBoost grows them, with its randomized split scores
#: (``random_strength=1``), each tree taking its Newton step (one objective evaluation per tree instead of a
#: line search's five or six) at rate 0.1.  On queries of 10-1,000 documents they ranked the top far better
#: than leaf-wise trees (NDCG@10 0.626 against 0.575 and LGBMRanker()'s 0.573, means of two splits of the run
#: that chose them: the study's "Oblivious trees within queries"; the user docs quote a later run's split by split),
#: and level or better elsewhere.
QUERY_LEARNER_PARAMS = MappingProxyType({"trees": MappingProxyType({"learning_rate": 0.1, "line_search": False,
                                                                    "growth": "oblivious", "max_depth": 6,
                                                                    "random_strength": 1.0})})

#: Learner spec parameters that set the shape of a tree together: when the user's learner spec names any of
#: them (``trees:max_leaves=31``), none of the shape parameters of :data:`QUERY_LEARNER_PARAMS` is set, so
#: that the user's shape is the one fitted (max_leaves means nothing to an oblivious tree of a given depth).
QUERY_SHAPE_PARAMS = MappingProxyType({"trees": ("growth", "max_depth", "max_leaves")})

#: Learner spec parameters that replace :data:`QUERY_LEARNER_PARAMS`' own when the rows have categorical columns (a
#: DataFrame's ``category`` columns, ``categorical_features``) and the user's learner spec names no shape
#: parameter: an oblivious tree cannot split by category groups, so the trees grow depth-wise to the same depth
#: (each node its own split, at most ``max_leaves`` leaves) instead of refusing the columns, constraints or not.
#: Without category columns, monotone and interaction constraints keep the oblivious trees (their leaf values are
#: projected onto the monotone order).
QUERY_CATEGORICAL_PARAMS = MappingProxyType({"trees": MappingProxyType({"growth": "depthwise"})})

#: Objectives whose fit within queries searches each tree's step when it starts from initial scores not all 0
#: (``init_score``, an ``init_model``'s scores), although :data:`QUERY_LEARNER_PARAMS` takes the Newton step: the
#: cross-entropy's curvature σ(s)(1 − σ(s)) vanishes where |s| is large, so the Newton step −G/H overshoots and the
#: fit diverges (on clicks with initial scores of scale 5, the click model's objective rose from 0.7 to 36 in three
#: rounds of 20 trees and its scores reached 1e3; of scale 10, 2,300 and 6e4).  Started at 0, where the curvature is
#: 1/4, its Newton steps are the default's.  The per-query push whose loss is not the exponential (``logistic``,
#: ``sqhinge``: :func:`searched_from_start`) is searched alike: the logistic loss's curvature σ(z)(1 − σ(z)) vanishes
#: where the pairs' differences are large (from initial scores of scale 30 its Newton steps reached corrections of
#: 5e5, the line search's 242, and NDCG@10 0.879 against 0.912; docs/studies/per_query_rankers.md).  The
#: exponential loss's curvature grows with its gradient: its Newton steps are kept.  ``xendcg`` and ``yetirank`` have
#: no value to search; their gradient leaves (``newton=false``) ranked worse than their Newton leaves from such
#: starts at the default learning rate, so they are left to the user.
QUERY_SEARCHED_FROM_START = ("cross-entropy",)

#: The iteration cap with queries when ``n_iter=None``: every fit runs these trees unless it stops early
#: (``early_stopping=True``, or ``"auto"`` with an ``eval_set`` above 10,000 rows).
QUERY_N_ITER = 200


def query_rmse_weight(n_ranked_queries: int | None) -> float:
    """The default's QueryRMSE weight λ for a fit on ``n_ranked_queries`` queries with two grades or more.

    None (the count is not known: a model described without its data) gives :data:`QUERY_RMSE`.
    """
    if n_ranked_queries is not None and n_ranked_queries > QUERY_RMSE_MANY_QUERIES:
        return QUERY_RMSE_MANY
    return QUERY_RMSE


def searches_from_start(objective, layout, given_learner, learner, *, within_queries: bool, started) -> bool:
    """Whether a fit's trees search their step instead of the per-query default's Newton step
    (:data:`QUERY_SEARCHED_FROM_START`).

    ``layout``: the learner's prepared layout (``line_search`` False: the Newton step); ``given_learner``: the
    ``learner`` parameter as the user set it (a ``line_search`` it names is kept); ``started``: a callable saying
    whether the training scores start away from 0, called last (a Dask fit computes it).
    """
    from ._validation import named_parameters

    if not within_queries or getattr(layout, "line_search", True) or not searched_from_start(objective):
        return False
    return "line_search" not in named_parameters(given_learner, learner) and bool(started())


def searched_from_start(objective) -> bool:
    """Whether ``objective`` (with a value) is one whose steps are searched from initial scores not all 0: one of
    :data:`QUERY_SEARCHED_FROM_START`, or the per-query push of a loss that is not the exponential."""
    if not getattr(objective, "has_value", False):
        return False
    if getattr(objective, "spec", None) in QUERY_SEARCHED_FROM_START:
        return True
    loss = getattr(objective, "loss_component", None)        # the push's resolved loss (rankcore.Loss)
    return bool(getattr(objective, "ranks_within_queries", False)) and loss is not None \
        and getattr(loss, "exponential_rate", None) is None

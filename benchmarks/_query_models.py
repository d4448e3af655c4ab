"""The per-query rankers the query benchmarks compare, each as ``fit(X, y, qid, threads) -> predict``.

Every fit receives its training rows grouped by query (sorted by ``qid``,
stably: the libraries that take group sizes need contiguous queries) and a
thread count that every library gets alike.  Models:

* the peers with their defaults: ``LGBMRanker()`` (lambdarank), ``XGBRanker()``
  (``rank:ndcg``), ``CatBoostRanker`` with ``YetiRank`` and ``QueryRMSE``;
  ``LGBMRegressor()`` on the grades and ``LGBMClassifier()`` on grade > 0,
  which ignore the queries (sanity rows);
* rankcore's per-query gradients inside LightGBM's own trees (``lgb.train``
  with a callable objective and LightGBM's default rate 0.1, 100 rounds and
  31 leaves): the per-query push with a loss, a price and optionally
  gain-weighted pairs, the push summed per query (each query's log R_q, so
  every query weighs the same whatever its length), and rankcore's
  ``LambdaRank`` (a check against LightGBM's own lambdarank);
* rankcore's own trees fitted with ``qid`` (``rankcore.boost``).
"""

from __future__ import annotations

import numpy as np

from rankcore.metrics import check_qid
from rankcore.objectives._lambdarank import LambdaRank
from rankcore.objectives._query_push import QueryPush


def group_sizes(qid):
    """Sizes of the consecutive runs of ``qid`` (rows grouped by query), LightGBM's ``group``."""
    qid = np.asarray(qid)
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    return np.diff(np.r_[starts, qid.shape[0]])


# ----------------------------------------------------------------------
# The peers, with their defaults
# ----------------------------------------------------------------------
def lgbm_ranker(X, y, qid, threads):
    from lightgbm import LGBMRanker

    model = LGBMRanker(n_jobs=threads, verbose=-1).fit(X, y, group=group_sizes(qid))
    return model.predict


def lgbm_xendcg(X, y, qid, threads):
    from lightgbm import LGBMRanker

    model = LGBMRanker(objective="rank_xendcg", n_jobs=threads, verbose=-1).fit(X, y, group=group_sizes(qid))
    return model.predict


def lgbm_regressor(X, y, qid, threads):
    from lightgbm import LGBMRegressor

    return LGBMRegressor(n_jobs=threads, verbose=-1).fit(X, y).predict


def lgbm_binary(X, y, qid, threads):
    from lightgbm import LGBMClassifier

    model = LGBMClassifier(n_jobs=threads, verbose=-1).fit(X, (y > 0).astype(int))
    return lambda X_test: model.predict_proba(X_test)[:, 1]


def xgb_ranker(X, y, qid, threads):
    from xgboost import XGBRanker

    return XGBRanker(n_jobs=threads).fit(X, y, qid=qid).predict


def _catboost(loss):
    def fit(X, y, qid, threads):
        from catboost import CatBoostRanker, Pool

        model = CatBoostRanker(loss_function=loss, verbose=False, thread_count=threads, allow_writing_files=False)
        model.fit(Pool(X, y, group_id=qid))
        return model.predict

    fit.__name__ = f"catboost_{loss.lower()}"
    return fit


catboost_yetirank = _catboost("YetiRank")
catboost_queryrmse = _catboost("QueryRMSE")


# ----------------------------------------------------------------------
# rankcore's per-query gradients in LightGBM's trees
# ----------------------------------------------------------------------
def push_gradients(loss, price, gain_weighted=False):
    """``make(y, queries) -> scores -> (grad, hess)`` of the per-query push over all queries (J = log R)."""
    objective = QueryPush(loss, price, gain_weighted=gain_weighted)

    def make(y, queries):
        bound = objective.bind(y, queries)
        n = y.shape[0]

        def gradients(scores):
            _, grad, hess = bound.value_gradient_hessian(scores)
            return grad * n, hess * n                 # as rankcore.gbdt scales them: one row weighs ~1

        return gradients

    return make


def push_gradients_per_query(loss, price, gain_weighted=False):
    """As :func:`push_gradients` for J = Σ_q log R_q: each query's push normalized by its own value."""
    objective = QueryPush(loss, price, gain_weighted=gain_weighted)

    def make(y, queries):
        bounds = []
        for q in range(queries.n_queries):
            rows = np.flatnonzero(queries.codes == q)
            if np.unique(y[rows]).shape[0] > 1:
                bounds.append((rows, objective.bind(y[rows], check_qid(np.zeros(rows.shape[0]), rows.shape[0]))))
        scale = y.shape[0] / max(len(bounds), 1)

        def gradients(scores):
            grad = np.zeros(y.shape[0])
            hess = np.full(y.shape[0], 1e-14)
            for rows, bound in bounds:
                _, grad[rows], hess[rows] = bound.value_gradient_hessian(scores[rows])
            return grad * scale, hess * scale

        return gradients

    return make


def lambdarank_gradients(truncation=30):
    """rankcore's LambdaRank gradients (LightGBM's definition), ``make(y, queries)``."""
    objective = LambdaRank(truncation)

    def make(y, queries):
        return lambda scores: objective.gradient_hessian(y, scores, queries)

    return make


def lightgbm_with(make_gradients, **params):
    """A fit of LightGBM's default trees (rate 0.1, 100 rounds) on a callable per-query objective."""
    def fit(X, y, qid, threads):
        import lightgbm as lgb

        gradients = make_gradients(y, check_qid(qid, y.shape[0]))
        settings = {"objective": lambda preds, dataset: gradients(preds), "num_threads": threads,
                    "verbose": -1, **params}
        rounds = settings.pop("n_estimators", 100)
        booster = lgb.train(settings, lgb.Dataset(X, y, group=group_sizes(qid)), num_boost_round=rounds)
        return booster.predict

    return fit


# ----------------------------------------------------------------------
# rankcore's own trees
# ----------------------------------------------------------------------
def rankcore_trees(learner="trees", **params):
    """``rankcore.boost(learner=learner, **params).fit(X, y, qid=qid)`` with ``n_jobs=threads``, seeded."""
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner=learner, n_jobs=threads, random_state=0, **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


#: The library each peer needs besides LightGBM (the script leaves a peer out without it).
REQUIRES = {"XGBRanker()": "xgboost", "CatBoost YetiRank": "catboost", "CatBoost QueryRMSE": "catboost"}

PEERS = {
    "LGBMRanker()": lgbm_ranker,
    "XGBRanker()": xgb_ranker,
    "CatBoost YetiRank": catboost_yetirank,
    "CatBoost QueryRMSE": catboost_queryrmse,
    "LGBMRanker(objective='rank_xendcg')": lgbm_xendcg,
    "LGBMRegressor()": lgbm_regressor,
    "LGBMClassifier(y>0)": lgbm_binary,
}

#: rankcore's per-query objectives on LightGBM's default trees.
OBJECTIVES_IN_LIGHTGBM = {
    "lgb+lambdarank (ours)": lightgbm_with(lambdarank_gradients(30)),
    "lgb+push exp,identity": lightgbm_with(push_gradients("exp", "identity")),
    "lgb+push exp,pow:2": lightgbm_with(push_gradients("exp", "pow:2")),
    "lgb+push exp,pow:4": lightgbm_with(push_gradients("exp", "pow:4")),
    "lgb+push exp,pow:16": lightgbm_with(push_gradients("exp", "pow:16")),
    "lgb+push exp,identity,gain": lightgbm_with(push_gradients("exp", "identity", True)),
    "lgb+push exp,pow:4,gain": lightgbm_with(push_gradients("exp", "pow:4", True)),
    "lgb+push logistic,identity": lightgbm_with(push_gradients("logistic", "identity")),
    "lgb+push logistic,identity,gain": lightgbm_with(push_gradients("logistic", "identity", True)),
    "lgb+qpush exp,identity": lightgbm_with(push_gradients_per_query("exp", "identity")),
    "lgb+qpush exp,pow:4": lightgbm_with(push_gradients_per_query("exp", "pow:4")),
    "lgb+qpush exp,identity,gain": lightgbm_with(push_gradients_per_query("exp", "identity", True)),
    "lgb+qpush exp,pow:4,gain": lightgbm_with(push_gradients_per_query("exp", "pow:4", True)),
}

#: rankcore's own trees with ``qid``.
RANKCORE = {
    "rankcore default": rankcore_trees(),
    "rc identity": rankcore_trees(price="identity"),
    "rc pow:4": rankcore_trees(price="pow:4"),
    "rc lambdarank": rankcore_trees(objective="lambdarank"),
    "rc xendcg": rankcore_trees(objective="xendcg"),
    "rc yetirank": rankcore_trees(objective="yetirank"),
    "rc subsample=1": rankcore_trees("trees:subsample=1"),
    "rc rate 0.05, 200": rankcore_trees("trees:learning_rate=0.05", n_iter=200),
    "rc leaves 15": rankcore_trees("trees:max_leaves=15"),
    "rc identity, rate 0.05, 200": rankcore_trees("trees:learning_rate=0.05", price="identity", n_iter=200),
    "rc pow:4, rate 0.05, 200": rankcore_trees("trees:learning_rate=0.05", price="pow:4", n_iter=200),
    "rc identity, gain": rankcore_trees(objective="push:exp,identity,gain_weighted=true"),
    "rc identity, gain, rate 0.05, 200": rankcore_trees("trees:learning_rate=0.05", n_iter=200,
                                                        objective="push:exp,identity,gain_weighted=true"),
    "rc stop ndcg@10 (500)": rankcore_trees(early_stopping=True, n_iter=500),
    "rc identity, stop (500)": rankcore_trees(price="identity", early_stopping=True, n_iter=500),
}

"""A fit that passes gives a model file that loads to the same scores, over long fits too.

The file's checks hold fitted state to the invariants of the fit that wrote
it; these fits run long enough (hundreds of iterations, separable rows,
moving pair weights) to reach the states that short fits on tiny data do not:
Newton steps that raise the objective, a line search at the driver's cap,
place discounts read at each iteration's scores.
"""

import json
import warnings

import numpy as np
import pytest

import rankcore
from rankcore.persistence import model_from_dict, model_to_dict


def _queries(seed, n=1000, n_queries=60, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    qid = rng.integers(0, n_queries, n)
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + noise * rng.normal(size=n) + 1), 0, 4)
    return X, y, qid


def _one_list(seed, n=1000, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    return X, (X[:, 0] + noise * rng.normal(size=n) > 1).astype(int)


WITHIN_QUERIES = [
    dict(learner="trees"),
    dict(learner="trees", objective="lambdarank"),
    dict(learner="trees", objective="lambdarank:truncation=10,gain=0/1/2/4/9", scoring="map@k:5"),
    dict(learner="trees", objective="yetirank"),
    dict(learner="trees", objective="xendcg"),
    dict(learner="trees", objective="mp-squared"),
    dict(learner="trees:line_search=false,leaf_newton_steps=2"),
    dict(objective="push:exp,identity,gain_weighted=true,query_rmse=2,discount=product"),
    dict(learner="trees:growth=depthwise", objective="push:exp,pow:4", early_stopping=True, scoring="ndcg@k:5"),
]
ONE_LIST = [
    dict(),
    dict(learner="trees"),
    dict(objective="push:exp,pow:64", n_iter=300),
    dict(learner="trees:line_search=false", objective="push:logistic,pow:2"),
    dict(early_stopping=True, scoring="objective", n_iter_no_change=5),
]


def _same_after_a_round_trip(model, X):
    loaded = model_from_dict(json.loads(json.dumps(model_to_dict(model))))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.objective_values_, model.objective_values_)


@pytest.mark.parametrize("params", WITHIN_QUERIES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
@pytest.mark.parametrize("seed, noise", [(1, 1.0), (2, 0.05)])
def test_long_fits_within_queries_load_to_the_same_scores(params, seed, noise):
    X, y, qid = _queries(seed, noise=noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(random_state=seed, **params).fit(X, y, qid=qid)
    _same_after_a_round_trip(model, X)


@pytest.mark.parametrize("params", ONE_LIST, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
@pytest.mark.parametrize("seed, noise", [(1, 1.0), (2, 0.0)])         # noise 0: separable rows
def test_long_fits_on_one_list_load_to_the_same_scores(params, seed, noise):
    X, y = _one_list(seed, noise=noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(random_state=seed, **params).fit(X, y)
    _same_after_a_round_trip(model, X)

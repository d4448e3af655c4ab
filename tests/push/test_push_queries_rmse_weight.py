"""The per-query default's QueryRMSE weight: λ = 2, and 1 above QUERY_RMSE_MANY_QUERIES queries with two grades."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from _resolutions import resolutions  # noqa: F401  (the fixture)
from rankcore.metrics._queries import Queries
from rankcore.persistence import ModelFormatError, _checksum, model_from_dict, model_to_dict
from rankcore.push._queries import single_grade_queries
from rankcore.push._query_defaults import QUERY_RMSE, QUERY_RMSE_MANY, QUERY_RMSE_MANY_QUERIES, query_rmse_weight

LEARNER = "trees:max_depth=2,min_samples_leaf=2"


def _spec(weight):
    return f"push:exp,identity,true,none,0,false,{weight:g}"


def _many_queries(n_ranked, n_single=0, seed=0):
    """(X, y, qid): ``n_ranked`` queries of four rows and two grades or more, ``n_single`` of one grade, shuffled."""
    rng = np.random.default_rng(seed)
    n_queries = n_ranked + n_single
    qid = np.repeat(np.arange(n_queries), 4)
    X = rng.normal(size=(qid.shape[0], 3))
    y = np.tile([0.0, 0.0, 1.0, 2.0], n_queries)
    y[np.isin(qid, np.arange(n_ranked, n_queries))] = 1.0
    order = rng.permutation(qid.shape[0])
    return X[order], y[order], qid[order]


def _fit(X, y, qid, **params):
    return rankcore.boost(learner=LEARNER, n_iter=3, random_state=0, n_jobs=1, **params).fit(X, y, qid=qid)


def test_query_rmse_weight_steps_down_above_the_threshold():
    assert QUERY_RMSE_MANY < QUERY_RMSE
    assert query_rmse_weight(None) == QUERY_RMSE
    assert query_rmse_weight(1) == QUERY_RMSE
    assert query_rmse_weight(QUERY_RMSE_MANY_QUERIES) == QUERY_RMSE
    assert query_rmse_weight(QUERY_RMSE_MANY_QUERIES + 1) == QUERY_RMSE_MANY


def test_many_queries_fit_the_lighter_blend_bit_for_bit():
    X, y, qid = _many_queries(QUERY_RMSE_MANY_QUERIES + 1)
    model = _fit(X, y, qid)
    assert model.objective_spec_ == _spec(QUERY_RMSE_MANY)
    spelled = _fit(X, y, qid, objective=f"push:exp,identity,gain_weighted=true,query_rmse={QUERY_RMSE_MANY}")
    np.testing.assert_array_equal(model.decision_function(X), spelled.decision_function(X))
    heavier = _fit(X, y, qid, objective=f"push:exp,identity,gain_weighted=true,query_rmse={QUERY_RMSE}")
    assert not np.array_equal(model.decision_function(X), heavier.decision_function(X))


def test_queries_of_one_grade_do_not_count():
    # as many queries as above, but only the threshold's count of them has a pair to order
    X, y, qid = _many_queries(QUERY_RMSE_MANY_QUERIES, n_single=5)
    model = _fit(X, y, qid)
    assert (model.n_queries_, model.n_queries_without_pairs_) == (QUERY_RMSE_MANY_QUERIES + 5, 5)
    assert model.objective_spec_ == _spec(QUERY_RMSE)


def test_an_explicit_objective_is_kept_with_many_queries():
    X, y, qid = _many_queries(QUERY_RMSE_MANY_QUERIES + 1)
    model = _fit(X, y, qid, objective="push:exp,identity,gain_weighted=true,query_rmse=3")
    assert model.objective_spec_ == _spec(3)


def _resigned(document, objective):
    document["state"]["objective"] = objective
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    return document


def test_a_many_queries_model_round_trips_and_an_earlier_default_still_loads():
    X, y, qid = _many_queries(QUERY_RMSE_MANY_QUERIES + 1)
    model = _fit(X, y, qid)
    loaded = model_from_dict(model_to_dict(model))
    assert loaded.objective_spec_ == _spec(QUERY_RMSE_MANY)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    # saved before the weight fell with many queries: the blend at QUERY_RMSE, still its own objective
    earlier = model_from_dict(_resigned(model_to_dict(model), _spec(QUERY_RMSE)))
    assert earlier.objective_spec_ == _spec(QUERY_RMSE)
    np.testing.assert_array_equal(earlier.decision_function(X), model.decision_function(X))
    assert model_from_dict(_resigned(model_to_dict(model), "push:exp,identity,true")).objective_spec_ == \
        "push:exp,identity,true"
    with pytest.raises(ModelFormatError, match="does not match the parameters"):
        model_from_dict(_resigned(model_to_dict(model), _spec(3)))


def test_a_model_of_few_queries_is_refused_with_the_many_queries_weight():
    X, y, qid = _many_queries(30)
    model = _fit(X, y, qid)
    assert model.objective_spec_ == _spec(QUERY_RMSE)
    with pytest.raises(ModelFormatError, match="does not match the parameters"):
        model_from_dict(_resigned(model_to_dict(model), _spec(QUERY_RMSE_MANY)))


def _single_grade_reference(y, codes):
    return sum(len(set(y[codes == q].tolist())) == 1 for q in np.unique(codes))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 60), n_queries=st.integers(1, 8), shuffled=st.booleans())
def test_single_grade_queries_against_a_plain_count(seed, n, n_queries, shuffled):
    rng = np.random.default_rng(seed)
    codes = np.sort(rng.integers(0, n_queries, n))
    codes = np.unique(codes, return_inverse=True)[1].astype(np.int64)     # every query has a row
    if shuffled:
        codes = codes[rng.permutation(n)]
    y = rng.integers(0, 3, n).astype(np.float64)
    queries = Queries(np.arange(codes.max() + 1), codes, np.bincount(codes).astype(np.int64))
    assert single_grade_queries(y, queries) == _single_grade_reference(y, codes)


def test_the_weight_for_many_queries_resolves_nothing_again(resolutions):
    """Counting every registry resolution: a fit on many queries resolves what one on few queries does."""
    few = _fit(*_many_queries(30))
    few_counts = dict(resolutions)
    resolutions.clear()
    many = _fit(*_many_queries(QUERY_RMSE_MANY_QUERIES + 1))
    assert (few.objective_spec_, many.objective_spec_) == (_spec(QUERY_RMSE), _spec(QUERY_RMSE_MANY))
    assert dict(resolutions) == few_counts

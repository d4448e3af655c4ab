"""DaskPushBoost's click model (``position_bias="em"``) on the other inputs a Dask fit takes.

On the shared 2-worker LocalCluster: X as a Dask DataFrame with the clicks, query ids and places as its Series,
``callbacks``, ``eval_set`` (also with its ``eval_init_score``), ``placement="auto"``, ``init_score`` and
``init_model``, and the stop on the posteriors (``posterior_tol``) -- each the in-memory click model's fit (to 1e-9
distributed, bit for bit on one worker); an ``eval_init_score`` of the wrong length is refused naming it.  No part of
Dask is mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from test_dask_click_model import PARAMS, _assert_same_model, _dask, _data  # noqa: E402


def _frame(X, clicks, qid, position, npartitions=3):
    """X as a Dask DataFrame of named columns, the clicks, ids and places as Series of the same partitions."""
    columns = [f"f{j}" for j in range(X.shape[1])]
    table = pd.DataFrame(X, columns=columns).assign(click=clicks, query=qid, place=position)
    frame = dd.from_pandas(table, npartitions=npartitions, sort=False)
    return frame[columns], frame["click"], frame["query"], frame["place"]


def test_a_dask_dataframe_with_series_fits_the_in_memory_click_model(dask_client):
    X, clicks, qid, position = _data(6)
    frame, yd, qd, pd_ = _frame(X, clicks, qid, position)
    spec = "em:rounds=3"
    model = DaskPushBoost(placement="distributed", position_bias=spec, **PARAMS).fit(frame, yd, qid=qd, position=pd_)
    names = [f"f{j}" for j in range(X.shape[1])]
    local = rankcore.PushBoost(position_bias=spec, **PARAMS).fit(pd.DataFrame(X, columns=names), clicks, qid=qid,
                                                                 position=position)
    assert model.fit_info_["placement"] == "distributed"
    assert list(model.feature_names_in_) == names
    _assert_same_model(model, local, pd.DataFrame(X, columns=names))


def _stop_at(iteration):
    """A callback that stops a fit after ``iteration`` iterations (1-based), recording the iterations it saw."""
    calls = []

    def callback(info):
        calls.append(info.iteration)
        return "enough" if info.iteration >= iteration else None

    return callback, calls


def test_callbacks_reach_every_round_and_a_stop_ends_the_rounds_as_in_memory(dask_client):
    X, clicks, qid, position = _data(7)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    seen, seen_local = [], []
    spec = "em:rounds=4"
    model = DaskPushBoost(placement="distributed", position_bias=spec, **PARAMS).fit(
        Xd, yd, qid=qd, position=pd_, callbacks=[lambda info: seen.append(info.iteration)])
    local = rankcore.PushBoost(position_bias=spec, **PARAMS).fit(
        X, clicks, qid=qid, position=position, callbacks=[lambda info: seen_local.append(info.iteration)])
    assert seen == seen_local == list(range(1, PARAMS["n_iter"] + 1)) * 4
    _assert_same_model(model, local, X)
    stop, calls = _stop_at(3)
    stopped = DaskPushBoost(placement="distributed", position_bias=spec, **PARAMS).fit(
        Xd, yd, qid=qd, position=pd_, callbacks=stop)
    assert stopped.position_em_rounds_ == 1 and stopped.stop_reason_ == "enough" and calls == [1, 2, 3]


def test_eval_sets_reach_every_round_as_in_memory(dask_client):
    X, clicks, qid, position = _data(8)
    X_val, clicks_val, qid_val, _ = _data(9)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    spec = "em:rounds=2"
    params = dict(PARAMS, early_stopping=False)
    model = DaskPushBoost(placement="distributed", position_bias=spec, **params).fit(
        Xd, yd, qid=qd, position=pd_, eval_set=[(X_val, clicks_val, qid_val)], eval_names=["held"],
        eval_metric="ndcg@k:5")
    local = rankcore.PushBoost(position_bias=spec, **params).fit(
        X, clicks, qid=qid, position=position, eval_set=[(X_val, clicks_val, qid_val)], eval_names=["held"],
        eval_metric="ndcg@k:5")
    _assert_same_model(model, local, X)
    assert list(model.evals_result_) == ["held"]
    for metric, values in local.evals_result_["held"].items():
        np.testing.assert_allclose(model.evals_result_["held"][metric], values, rtol=1e-9)


def test_placement_auto_fits_the_click_model(dask_client):
    X, clicks, qid, position = _data(10)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    spec = "em:rounds=2"
    model = DaskPushBoost(position_bias=spec, **PARAMS).fit(Xd, yd, qid=qd, position=pd_)
    local = rankcore.PushBoost(position_bias=spec, n_jobs=1, **PARAMS).fit(X, clicks, qid=qid, position=position)
    assert model.fit_info_["placement"] in ("one_worker", "distributed")
    assert model.position_em_rounds_ == 2
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(model.position_propensities_, local.position_propensities_, rtol=1e-9)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_init_score_starts_every_round_as_in_memory(dask_client, placement):
    X, clicks, qid, position = _data(11)
    init = 1.2 * X[:, 0] - 0.5
    Xd, yd, qd, pd_, initd = _dask(X, clicks, qid, position, init)
    spec = "em:rounds=3"
    model = DaskPushBoost(placement=placement, position_bias=spec, **PARAMS).fit(Xd, yd, qid=qd, position=pd_,
                                                                                 init_score=initd)
    local = rankcore.PushBoost(position_bias=spec, n_jobs=1, **PARAMS).fit(X, clicks, qid=qid, position=position,
                                                                           init_score=init)
    plain = rankcore.PushBoost(position_bias=spec, n_jobs=1, **PARAMS).fit(X, clicks, qid=qid, position=position)
    assert np.max(np.abs(local.position_propensities_ - plain.position_propensities_)) > 1e-4   # the start matters
    assert model.fit_info_["placement"] == placement and model.from_init_score_
    if placement == "one_worker":
        np.testing.assert_array_equal(model.decision_function(X), local.decision_function(X))
        np.testing.assert_array_equal(model.position_propensities_, local.position_propensities_)
    else:
        _assert_same_model(model, local, X)


def test_initial_scores_far_from_zero_search_every_step_as_in_memory(dask_client):
    # the in-memory rule (Newton steps from far initial scores overshoot on the cross-entropy): the distributed
    # rounds search their steps too, from a Dask init_score of other chunks than X's
    X, clicks, qid, position = _data(14)
    init = 6.0 * X[:, 0]
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    spec = "em:rounds=2"
    model = DaskPushBoost(placement="distributed", position_bias=spec, **PARAMS).fit(
        Xd, yd, qid=qd, position=pd_, init_score=da.from_array(init, chunks=150))
    local = rankcore.PushBoost(position_bias=spec, n_jobs=1, **PARAMS).fit(X, clicks, qid=qid, position=position,
                                                                           init_score=init)
    _assert_same_model(model, local, X)
    assert np.abs(model.decision_function(X)).max() < 3 * 6.0
    assert np.all(np.diff(model.objective_values_) <= 1e-12 * model.objective_values_[0])


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_init_model_is_continued_by_every_round_as_in_memory(dask_client, placement):
    X, clicks, qid, position = _data(12)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    first = rankcore.PushBoost(objective="cross-entropy", **dict(PARAMS, n_iter=3)).fit(X, clicks, qid=qid)
    spec = "em:rounds=2"
    model = DaskPushBoost(placement=placement, position_bias=spec, **PARAMS).fit(Xd, yd, qid=qd, position=pd_,
                                                                                 init_model=first)
    local = rankcore.PushBoost(position_bias=spec, n_jobs=1, **PARAMS).fit(X, clicks, qid=qid, position=position,
                                                                           init_model=first)
    assert model.init_iterations_ == local.init_iterations_ == 3
    assert model.n_iter_ == local.n_iter_ == 3 + PARAMS["n_iter"]       # the init model's weak rankers once
    _assert_same_model(model, local, X)


def test_the_rounds_stop_on_the_posteriors_as_in_memory(dask_client):
    X, clicks, qid, position = _data(13)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    spec = "em:rounds=15,posterior_tol=0.01"
    model = DaskPushBoost(placement="distributed", position_bias=spec, **PARAMS).fit(Xd, yd, qid=qd, position=pd_)
    local = rankcore.PushBoost(position_bias=spec, **PARAMS).fit(X, clicks, qid=qid, position=position)
    assert 1 < local.position_em_rounds_ < 15
    _assert_same_model(model, local, X)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_eval_sets_with_their_initial_scores_reach_every_round_as_in_memory(dask_client, placement):
    X, clicks, qid, position = _data(15)
    X_val, clicks_val, qid_val, _ = _data(16)
    init, init_val = 0.8 * X[:, 0] - 0.3, 0.8 * X_val[:, 0] - 0.3
    Xd, yd, qd, pd_, initd = _dask(X, clicks, qid, position, init)
    spec = "em:rounds=2"
    params = dict(PARAMS, early_stopping=False)
    eval_args = dict(eval_set=[(X_val, clicks_val, qid_val)], eval_names=["held"], eval_metric="ndcg@k:5")
    model = DaskPushBoost(placement=placement, position_bias=spec, **params).fit(
        Xd, yd, qid=qd, position=pd_, init_score=initd, eval_init_score=[da.from_array(init_val, chunks=100)],
        **eval_args)
    local = rankcore.PushBoost(position_bias=spec, n_jobs=1, **params).fit(
        X, clicks, qid=qid, position=position, init_score=init, eval_init_score=[init_val], **eval_args)
    # the eval init scores count: without them the held-out curve is another one
    with pytest.warns(UserWarning, match="eval_init_score"):
        unstarted = rankcore.PushBoost(position_bias=spec, n_jobs=1, **params).fit(
            X, clicks, qid=qid, position=position, init_score=init, **eval_args)
    assert list(model.evals_result_) == ["held"]
    curves = local.evals_result_["held"]
    assert len(curves["ndcg@k:5"]) == local.n_iter_
    assert not np.allclose(unstarted.evals_result_["held"]["ndcg@k:5"], curves["ndcg@k:5"])
    if placement == "one_worker":
        np.testing.assert_array_equal(model.decision_function(X), local.decision_function(X))
        np.testing.assert_array_equal(model.position_propensities_, local.position_propensities_)
        for metric, values in curves.items():
            np.testing.assert_array_equal(model.evals_result_["held"][metric], values)
    else:
        _assert_same_model(model, local, X)
        for metric, values in curves.items():
            np.testing.assert_allclose(model.evals_result_["held"][metric], values, rtol=1e-9)


@pytest.mark.parametrize("as_dask", [False, True])
def test_eval_init_score_of_another_length_than_its_set_is_refused_naming_it(dask_client, as_dask):
    X, clicks, qid, position = _data(17)
    X_val, clicks_val, qid_val, _ = _data(18)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, position)
    short = np.zeros(X_val.shape[0] - 1)
    model = DaskPushBoost(placement="distributed", position_bias="em:rounds=2", **PARAMS)
    expected = rf"eval_init_score: expected one score per row \({X_val.shape[0]} rows\), got shape \({short.size},\)"
    with pytest.raises(ValueError, match=expected):
        model.fit(Xd, yd, qid=qd, position=pd_, eval_set=[(X_val, clicks_val, qid_val)],
                  eval_init_score=[da.from_array(short, chunks=100) if as_dask else short])


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_places_that_hardly_repeat_draw_the_warning_as_in_memory(dask_client, placement):
    X, clicks, qid, _ = _data(9)
    rows = np.arange(qid.size)
    Xd, yd, qd, pd_ = _dask(X, clicks, qid, rows)
    with pytest.warns(UserWarning, match=rf"position: {qid.size} distinct places for {qid.size} rows"):
        DaskPushBoost(placement=placement, position_bias="em:rounds=1", **PARAMS).fit(Xd, yd, qid=qd, position=pd_)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_the_training_collections_as_an_eval_set_stay_the_training_data_in_every_round(dask_client, placement):
    # each round is given the posteriors: the set of the very X, clicks and ids given to fit is still the training
    # data, scored from init_score, as in memory
    X, clicks, qid, position = _data(17)
    init = 0.8 * X[:, 0] - 0.3
    Xd, yd, qd, pd_, initd = _dask(X, clicks, qid, position, init)
    params = dict(PARAMS, early_stopping=False)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)      # no set is left without its initial scores
        model = DaskPushBoost(placement=placement, position_bias="em:rounds=2", **params).fit(
            Xd, yd, qid=qd, position=pd_, init_score=initd, eval_set=[(Xd, yd, qd)])
    local = rankcore.PushBoost(position_bias="em:rounds=2", n_jobs=1, **params).fit(
        X, clicks, qid=qid, position=position, init_score=init, eval_set=[(X, clicks, qid)], eval_init_score=[init])
    np.testing.assert_allclose(model.evals_result_["training"]["ndcg@k:10"],
                               local.evals_result_["training"]["ndcg@k:10"], rtol=1e-9)

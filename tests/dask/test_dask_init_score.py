"""``fit(..., init_score=..., eval_init_score=...)`` on Dask: the model is the in-memory fit's from the same scores.

On the shared 2-worker LocalCluster, chunks of unequal sizes (queries
interleaved across them, so the initial scores move with their rows): one
worker gives the in-memory model bit for bit; the distributed fit -- each
shard's scores starting at its rows' initial scores -- the same weak rankers
and α to the tolerance of the other Dask fits.  No part of Dask is mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _dask_init_fits import as_dask, assert_same_model, float32_rows  # noqa: E402
from _query_data import graded_queries  # noqa: E402

TREES = "trees:max_leaves=6,min_samples_leaf=5"


def _data(n=500, seed=0):
    X, y = float32_rows(n, seed)
    base = 0.8 * X[:, 0].astype(np.float64) - 0.3 * X[:, 2]   # a first-stage ranker's scores
    return X, y, base


@pytest.mark.parametrize("placement", ["one_worker", "distributed"])
def test_a_fit_from_initial_scores_on_one_list_is_the_in_memory_fit(dask_client, placement):  # noqa: F811
    X, y, base = _data()
    Xd, yd, based = as_dask(X, y, base)
    params = dict(learner=TREES, n_iter=6, random_state=4, early_stopping=False)
    model = DaskPushBoost(placement=placement, **params).fit(Xd, yd, init_score=based)
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, init_score=base)
    plain = rankcore.PushBoost(n_jobs=1, **params).fit(X, y)
    assert model.fit_info_["placement"] == placement
    assert_same_model(model, local, X, exact=placement == "one_worker")
    assert model.from_init_score_ is True and not hasattr(plain, "from_init_score_")
    assert not np.array_equal(local.objective_values_, plain.objective_values_)     # the start mattered
    # the scores given in memory give the same fit
    again = DaskPushBoost(placement=placement, **params).fit(Xd, yd, init_score=base)
    np.testing.assert_array_equal(again.alphas_, model.alphas_)


@pytest.mark.parametrize("placement", ["one_worker", "distributed"])
def test_a_fit_from_initial_scores_within_interleaved_queries_is_the_in_memory_fit(dask_client,  # noqa: F811
                                                                                   placement):
    X, y, qid = graded_queries(0, n_queries=30)
    base = 0.5 * X[:, 0] - 0.2 * X[:, 1]
    chunks = (90, 41, 120, X.shape[0] - 251)
    Xd, yd, based = as_dask(X, y, base, chunks=chunks)
    qd = da.from_array(np.asarray(qid), chunks=(chunks,))
    params = dict(learner="trees:max_leaves=4,min_samples_leaf=3", n_iter=5, random_state=2)
    model = DaskPushBoost(placement=placement, **params).fit(Xd, yd, qid=qd, init_score=based)
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, qid=qid, init_score=base)
    assert_same_model(model, local, X, exact=placement == "one_worker")
    # scored with the rows' initial scores, as in memory (the metric of decision_function + init_score)
    expected = local.score(X, y, qid=qid, init_score=base)
    assert model.score(Xd, yd, qid=qd, init_score=based) == pytest.approx(expected, rel=1e-12)
    assert model.score(X, y, qid=qid, init_score=base) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("placement", ["one_worker", "distributed"])
def test_eval_sets_start_at_their_initial_scores_as_in_memory(dask_client, placement):  # noqa: F811
    X, y, base = _data(seed=1)
    Xa, ya, base_a = _data(n=200, seed=2)
    Xd, yd, based = as_dask(X, y, base)
    params = dict(learner=TREES, n_iter=12, random_state=0, early_stopping=True, n_iter_no_change=2)
    sets_d = [(Xd, yd), (da.from_array(Xa, chunks=(50, -1)), ya)]
    model = DaskPushBoost(placement=placement, **params).fit(
        Xd, yd, init_score=based, eval_set=sets_d, eval_init_score=[None, da.from_array(base_a, chunks=50)])
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, init_score=base, eval_set=[(X, y), (Xa, ya)],
                                                       eval_init_score=[None, base_a])
    assert_same_model(model, local, X, exact=placement == "one_worker")
    assert list(model.evals_result_) == list(local.evals_result_)
    for name, curves in local.evals_result_.items():         # the training set starts from init_score (as LightGBM)
        for metric, curve in curves.items():
            np.testing.assert_allclose(model.evals_result_[name][metric], curve, rtol=1e-12)
    assert model.best_iteration_ == local.best_iteration_
    # the Dask score of one list adds the initial scores as the in-memory score does
    expected = local.score(Xa, ya, init_score=base_a)
    got = model.score(da.from_array(Xa, chunks=(64, -1)), da.from_array(ya, chunks=64), init_score=base_a)
    assert got == pytest.approx(expected, abs=1e-6)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_initial_scores_from_a_dataframe_column(dask_client):  # noqa: F811
    X, y, base = _data(seed=3)
    frame = dd.from_pandas(pd.DataFrame(X, columns=[f"f{j}" for j in range(5)]).assign(y=y, base=base),
                           npartitions=3)
    params = dict(learner=TREES, n_iter=4, random_state=0, early_stopping=False)
    model = DaskPushBoost(placement="distributed", **params).fit(frame[[f"f{j}" for j in range(5)]], frame["y"],
                                                                 init_score=frame["base"])
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, init_score=base)
    assert_same_model(model, local, X, exact=False)


def test_the_default_hold_out_gives_its_rows_their_initial_scores(dask_client):  # noqa: F811
    from rankcore.push import AUTO_MIN_ROWS

    X, y, _ = _data(n=AUTO_MIN_ROWS + 500, seed=14)
    base = 0.5 * X[:, 2].astype(np.float64)             # scores the trees can improve on
    Xd, yd, based = as_dask(X, y, base, chunks=(4000, 3000, 3500))
    params = dict(learner="trees:max_leaves=4", n_iter=6, random_state=3)
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, init_score=based)
    local = rankcore.PushBoost(**params).fit(X, y, init_score=base)
    assert model.validation_metric_ == local.validation_metric_ == "pauc:0.1"
    assert model.n_iter_ == local.n_iter_ > 0 and model.best_iteration_ == local.best_iteration_
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-12, atol=1e-12)
    # the held-out rows were scored from their initial scores: without them the curve is another one
    plain = rankcore.PushBoost(**params).fit(X, y)
    assert not np.allclose(plain.validation_scores_[:3], local.validation_scores_[:3])


@pytest.mark.parametrize("placement", ["one_worker", "distributed"])
@pytest.mark.parametrize("kwargs, error, message", [
    (dict(init_score=np.zeros(5)), ValueError, r"init_score: expected one score per row \(500 rows\)"),
    (dict(init_score=np.r_[np.zeros(499), np.nan]), ValueError, "row 499 has nan"),
    (dict(init_score="scores"), TypeError, "init_score: expected one number per row"),
    (dict(init_score=np.zeros(500) + 1j), TypeError, "init_score: expected one real number per row"),
    (dict(init_score=da.from_array(np.zeros(500) + 1j, chunks=250)), TypeError, "init_score: expected one number"),
    (dict(eval_init_score=np.zeros(5)), ValueError, "eval_init_score: given without eval_set"),
    (dict(eval_set=[(np.zeros((3, 5)), [0, 1, 0])] * 2, eval_init_score=[None]), ValueError,
     r"eval_init_score: expected one entry per set of eval_set \(2\)"),
    (dict(eval_set=(np.zeros((3, 5)), [0, 1, 0]), eval_init_score=np.zeros(4)), ValueError,
     r"eval_init_score: expected one score per row \(3 rows\)"),
])
def test_bad_initial_scores_are_refused_by_name(dask_client, placement, kwargs, error, message):  # noqa: F811
    X, y, _ = _data()
    Xd, yd = as_dask(X, y)
    with pytest.raises(error, match=message):
        DaskPushBoost(placement=placement, n_iter=2, early_stopping=False).fit(Xd, yd, **kwargs)


def test_a_bad_initial_score_in_a_dask_chunk_names_its_row(dask_client):  # noqa: F811
    X, y, base = _data()
    base[300] = np.inf
    Xd, yd, based = as_dask(X, y, base)
    for placement in ("one_worker", "distributed"):
        with pytest.raises(ValueError, match="init_score: every initial score must be finite, row 300 has inf"):
            DaskPushBoost(placement=placement, n_iter=2, early_stopping=False).fit(Xd, yd, init_score=based)


def test_initial_scores_move_with_their_rows_beside_display_positions(dask_client):  # noqa: F811
    from _query_data import logged_clicks

    X, clicks, qid, position, _ = logged_clicks(0, n_queries=30)
    order = np.argsort(np.random.default_rng(0).permutation(qid.size) % 7, kind="stable")   # queries interleaved
    X, clicks, qid, position = X[order], clicks[order], qid[order], position[order]
    base = 0.1 * X[:, 0]
    chunks = (90, 41, 120, X.shape[0] - 251)
    Xd, yd, based = as_dask(X, clicks, base, chunks=chunks)
    params = dict(learner="trees:max_leaves=4,min_samples_leaf=3", n_iter=4, random_state=3)
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qid, position=position,
                                                                 init_score=based)
    local = rankcore.PushBoost(**params).fit(X, clicks, qid=qid, position=position, init_score=base)
    assert_same_model(model, local, X, exact=False)
    np.testing.assert_allclose(model.position_effects_, local.position_effects_, rtol=1e-9, atol=1e-12)


@pytest.mark.filterwarnings("ignore:boosting stopped")
@pytest.mark.parametrize("objective", ["xendcg", "lambdarank", "yetirank", "xendcg:newton=false"])
def test_saturating_initial_scores_keep_the_trees_curvature_floor_on_dask(dask_client, objective):  # noqa: F811
    # initial scores far apart saturate these objectives' curvatures towards 0: the shards' trees hold every leaf
    # to min_child_weight rows of unit curvature (the objective's curvature_unit from the training rows' totals),
    # as in memory, and the model stays bounded
    X, y, qid = graded_queries(0, n_queries=30)
    base = 100.0 * X[:, 0] - 40.0 * X[:, 1]
    w = np.random.default_rng(2).uniform(0.5, 2.0, y.shape[0])
    chunks = (90, 41, 120, X.shape[0] - 251)
    Xd, yd, based, wd = as_dask(X, y, base, w, chunks=chunks)
    qd = da.from_array(np.asarray(qid), chunks=(chunks,))
    params = dict(objective=objective, learner="trees:max_leaves=8,min_samples_leaf=2", n_iter=6, random_state=2)
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, sample_weight=wd, qid=qd, init_score=based)
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, sample_weight=w, qid=qid, init_score=base)
    assert_same_model(model, local, X, exact=False)
    assert np.abs(local.decision_function(X)).max() < 1e4


def test_the_logistic_push_searches_its_steps_from_far_initial_scores_as_in_memory(dask_client):  # noqa: F811
    # the in-memory rule (rankcore/push/_query_defaults.py): the per-query push of a loss other than the exponential
    # searches each tree's step from initial scores not all 0; from 0 it keeps the per-query default's Newton steps
    X, y, qid = graded_queries(3, n_queries=30)
    chunks = (90, 41, 120, X.shape[0] - 251)
    qd = da.from_array(np.asarray(qid), chunks=(chunks,))
    params = dict(objective="push:logistic", learner="trees:max_leaves=8,min_samples_leaf=2", n_iter=5,
                  random_state=1)
    for base in (30.0 * X[:, 1], np.zeros(y.shape[0])):
        Xd, yd, based = as_dask(X, y, base, chunks=chunks)
        model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd, init_score=based)
        local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, qid=qid, init_score=base)
        assert_same_model(model, local, X, exact=False)
        steps = "true" if np.any(base) else "false"
        named = rankcore.PushBoost(n_jobs=1, **{**params, "learner": params["learner"] + f",line_search={steps}"})
        np.testing.assert_array_equal(named.fit(X, y, qid=qid, init_score=base).decision_function(X),
                                      local.decision_function(X))

"""``fit(..., init_model=...)`` on Dask: the continuation is the in-memory one, on one worker and distributed.

On the shared 2-worker LocalCluster, chunks of unequal sizes (queries interleaved across them): a fit of N weak
rankers continued by M on Dask is the in-memory continuation -- bit for bit on one worker, to the tolerance of the
other Dask fits distributed, where the init model's scores of each chunk are computed on the workers and move with
the rows -- and, on a fit that draws nothing at random, the fit of N + M at once (with ``position``, the display
effects too).  The refusals are the in-memory ones, message for message.  No part of Dask is mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPNormPush, DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _dask_init_fits import CHUNKS, as_dask, assert_same_model, float32_rows  # noqa: E402
from _query_data import graded_queries  # noqa: E402

#: Trees that draw nothing: every row in each tree, no noise on the split scores (N then M is N + M).
STEADY = dict(learner="trees:max_leaves=6,min_samples_leaf=5,random_strength=0,subsample=1", random_state=0,
              early_stopping=False)
PLACEMENTS = ["one_worker", "distributed"]


# ----------------------------------------------------------------------------------------------------------------
# The same model as in memory, and as the fit of N + M
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_n_then_m_on_dask_is_n_then_m_in_memory_and_the_fit_of_n_plus_m(dask_client, placement):  # noqa: F811
    X, y = float32_rows()
    X_val, y_val = float32_rows(n=200, seed=1)
    Xd, yd = as_dask(X, y)
    first = rankcore.PushBoost(n_iter=4, n_jobs=1, **STEADY).fit(X, y)
    local = rankcore.PushBoost(n_iter=3, n_jobs=1, **STEADY).fit(X, y, init_model=first, eval_set=(X_val, y_val))
    once = rankcore.PushBoost(n_iter=7, n_jobs=1, **STEADY).fit(X, y, eval_set=(X_val, y_val))
    model = DaskPushBoost(placement=placement, n_iter=3, **STEADY).fit(Xd, yd, init_model=first,
                                                                     eval_set=(X_val, y_val))
    assert model.fit_info_["placement"] == placement and model.fit_info_["iterations"] == 3
    assert_same_model(model, local, X, exact=placement == "one_worker")
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12)
    assert model.best_iteration_ == local.best_iteration_ and not hasattr(model, "from_init_score_")
    # N + M at once: the same weak rankers, the continuation's curves the tail of its curves
    np.testing.assert_allclose(model.decision_function(X_val), once.decision_function(X_val), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(model.objective_values_, once.objective_values_[4:], rtol=1e-9)
    np.testing.assert_allclose(model.validation_scores_, once.validation_scores_[4:], rtol=1e-12)
    # predicted lazily, chunk by chunk, by the whole model
    lazy = model.decision_function(Xd)
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), once.decision_function(X), rtol=1e-9, atol=1e-9)
    staged = list(model.staged_decision_function(Xd))
    assert len(staged) == 7
    np.testing.assert_allclose(staged[3].compute(), first.decision_function(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_a_dask_fitted_model_and_its_file_continue_as_the_in_memory_model(dask_client, placement,  # noqa: F811
                                                                          tmp_path):
    X, y = float32_rows(seed=2)
    Xd, yd = as_dask(X, y)
    # fitted with an explicit client, which the model does not take to the workers
    first_d = DaskPushBoost(client=dask_client, placement=placement, n_iter=4, **STEADY).fit(Xd, yd)
    first = rankcore.PushBoost(n_iter=4, n_jobs=1, **STEADY).fit(X, y)
    rankcore.save_model(first_d.to_local(), tmp_path / "first.json")
    local = rankcore.PushBoost(n_iter=3, n_jobs=1, **STEADY).fit(X, y, init_model=first)
    for init in (first_d, tmp_path / "first.json", str(tmp_path / "first.json"), first):
        model = DaskPushBoost(placement=placement, n_iter=3, **STEADY).fit(Xd, yd, init_model=init)
        np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)
        assert (model.n_iter_, model.init_iterations_) == (7, 4)
    # the continuation saves and loads as the whole model
    rankcore.save_model(model.to_local(), tmp_path / "more.json")
    back = rankcore.load_model(tmp_path / "more.json")
    assert (back.n_iter_, back.init_iterations_) == (7, 4)
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))
    # a continuation of the continuation, in place: the model is read before it is replaced
    model.fit(Xd, yd, init_model=model)
    assert (model.n_iter_, model.init_iterations_) == (10, 7)
    assert first_d.n_iter_ == 4


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_continuing_within_interleaved_queries_is_the_in_memory_continuation(dask_client, placement):  # noqa: F811
    X, y, qid = graded_queries(0, n_queries=30)
    X_val, y_val, qid_val = graded_queries(1)
    chunks = (90, 41, 120, X.shape[0] - 251)
    Xd, yd = as_dask(X, y, chunks=chunks)
    qd = da.from_array(np.asarray(qid), chunks=(chunks,))
    params = dict(learner="trees:max_leaves=4,min_samples_leaf=3,random_strength=0,subsample=1", random_state=2)
    first = rankcore.PushBoost(n_iter=3, n_jobs=1, **params).fit(X, y, qid=qid)
    local = rankcore.PushBoost(n_iter=3, n_jobs=1, **params).fit(X, y, qid=qid, init_model=first,
                                                                eval_set=(X_val, y_val, qid_val))
    model = DaskPushBoost(placement=placement, n_iter=3, **params).fit(Xd, yd, qid=qd, init_model=first,
                                                                      eval_set=(X_val, y_val, qid_val))
    assert_same_model(model, local, X, exact=placement == "one_worker")
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12)
    assert model.ranks_within_queries_ and model.n_queries_ == local.n_queries_


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_a_model_fitted_from_init_score_continues_from_it_on_dask(dask_client, placement):  # noqa: F811
    X, y = float32_rows(seed=3)
    Xa, ya = float32_rows(n=200, seed=4)
    base, base_a = 0.5 * X[:, 2].astype(np.float64), 0.5 * Xa[:, 2].astype(np.float64)
    Xd, yd, based = as_dask(X, y, base)
    first = rankcore.PushBoost(n_iter=3, n_jobs=1, **STEADY).fit(X, y, init_score=base)
    local = rankcore.PushBoost(n_iter=3, n_jobs=1, **STEADY).fit(
        X, y, init_score=base, init_model=first, eval_set=[(X, y), (Xa, ya)], eval_init_score=[None, base_a])
    model = DaskPushBoost(placement=placement, n_iter=3, **STEADY).fit(
        Xd, yd, init_score=based, init_model=first, eval_set=[(Xd, yd), (Xa, ya)], eval_init_score=[None, base_a])
    assert_same_model(model, local, X, exact=placement == "one_worker")
    assert model.from_init_score_ is True
    for name, curves in local.evals_result_.items():   # the training set starts from init_score + the model's
        for metric, curve in curves.items():
            np.testing.assert_allclose(model.evals_result_[name][metric], curve, rtol=1e-12)


def test_the_default_hold_out_starts_from_the_init_models_scores(dask_client):  # noqa: F811
    from rankcore.push import AUTO_MIN_ROWS

    X, y = float32_rows(n=AUTO_MIN_ROWS + 500, seed=14)
    Xd, yd = as_dask(X, y, chunks=(4000, 3000, 3500))
    params = dict(learner="trees:max_leaves=4", random_state=3)
    first = rankcore.PushBoost(n_iter=3, **params).fit(X, y)
    local = rankcore.PushBoost(n_iter=4, **params).fit(X, y, init_model=first)
    model = DaskPushBoost(placement="distributed", n_iter=4, **params).fit(Xd, yd, init_model=first)
    assert model.validation_metric_ == local.validation_metric_ == "pauc:0.1"
    assert model.n_iter_ == local.n_iter_ and model.best_iteration_ == local.best_iteration_
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# The scores: lazy, chunk by chunk, on the workers; counted by placement="auto"
# ----------------------------------------------------------------------------------------------------------------
def test_the_start_is_a_lazy_vector_of_xs_chunks_computed_as_in_memory(dask_client):  # noqa: F811
    from rankcore.dask._init_models import read_dask_init_model, start_scores

    X, y = float32_rows(seed=5)
    Xd, based = as_dask(X, np.linspace(-1, 1, X.shape[0]))
    first = rankcore.PushBoost(n_iter=3, n_jobs=1, **STEADY).fit(X, y)
    init = read_dask_init_model(first)
    start = start_scores(init, Xd)
    assert isinstance(start, da.Array) and start.chunks == (CHUNKS,)
    np.testing.assert_array_equal(start.compute(), first.decision_function(X))
    np.testing.assert_array_equal(start_scores(init, Xd, based).compute(), based.compute() + first.decision_function(X))
    bad = X.copy()
    bad[150, 1] = np.nan
    with pytest.raises(ValueError, match=r"X \(chunk 2\): missing values \(NaN\) are not supported on Dask"):
        start_scores(init, as_dask(bad)[0]).compute()


def test_placement_auto_counts_the_init_models_scores(dask_client, monkeypatch):  # noqa: F811
    import rankcore.dask._estimators as estimators

    X, y = float32_rows(seed=6)
    Xd, yd = as_dask(X, y)
    first = rankcore.PushBoost(n_iter=2, n_jobs=1, **STEADY).fit(X, y)
    seen = []
    original = estimators.choose_placement

    def spy(*args, **kwargs):
        seen.append(kwargs["data_bytes"])
        return original(*args, **kwargs)

    monkeypatch.setattr(estimators, "choose_placement", spy)
    DaskPushBoost(n_iter=2, **STEADY).fit(Xd, yd)
    DaskPushBoost(n_iter=2, **STEADY).fit(Xd, yd, init_model=first)
    assert seen[1] - seen[0] == 8 * X.shape[0]


# ----------------------------------------------------------------------------------------------------------------
# The in-memory refusals, with their messages
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_the_in_memory_refusals_hold_on_dask(dask_client, placement):  # noqa: F811
    X, y = float32_rows(seed=7)
    Xd, yd, based = as_dask(X, y, 0.1 * X[:, 0].astype(np.float64))
    fit = DaskPushBoost(placement=placement, n_iter=2, **STEADY).fit
    first = rankcore.PushBoost(n_iter=2, n_jobs=1, **STEADY).fit(X, y)
    with pytest.raises(NotFittedError, match=r"^init_model: this PushBoost is not fitted; fit it first"):
        fit(Xd, yd, init_model=rankcore.PushBoost())
    with pytest.raises(TypeError, match=r"^init_model: expected a fitted PushBoost, PNormPush or RankBoost \(or the "
                                        r"path of its saved model file\), got an ndarray$"):
        fit(Xd, yd, init_model=X)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted on 5 features, X has 4; continue it on "
                                         r"rows of the same features$"):
        fit(Xd[:, :4], yd, init_model=first)
    with pytest.raises(ValueError, match=r"^init_model: init_score is refused: the model was fitted without initial "
                                         r"scores"):
        fit(Xd, yd, init_score=based, init_model=first)
    from_init = rankcore.PushBoost(n_iter=2, n_jobs=1, **STEADY).fit(X, y, init_score=based.compute())
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted from init_score \(from_init_score_\), "
                                         r"so its scores are a correction .* pass the training rows' init_score"):
        fit(Xd, yd, init_model=from_init)
    stumps = rankcore.PushBoost(learner="stumps", n_iter=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^init_model: the model's weak rankers are stumps, this fit grows "
                                         r"\w+ trees, and weak rankers of another kind cannot live in one model; "
                                         r"continue it with learner 'stumps'$"):
        fit(Xd, yd, init_model=stumps)
    with pytest.raises(ValueError, match=r"^init_model: the model ranks 1 above 0 \(classes_ \[0, 1\]\), y has the "
                                         r"classes \[1, 2\]"):
        fit(Xd, yd + 1, init_model=first)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_feature_names_and_queries_must_be_the_models_on_dask(dask_client):  # noqa: F811
    X, y = float32_rows(seed=8)
    columns = list("abcde")
    named = rankcore.PushBoost(n_iter=2, n_jobs=1, **STEADY).fit(pd.DataFrame(X, columns=columns), y)
    frame = dd.from_pandas(pd.DataFrame(X, columns=columns), npartitions=3)
    yd = dd.from_pandas(pd.Series(y), npartitions=3)
    for placement in PLACEMENTS:
        with pytest.raises(ValueError, match=r"^init_model: the model was fitted on the features \['a', 'b', 'c', "
                                             r"'d', 'e'\], X has \['b', 'a', 'c', 'd', 'e'\]; continue it on the same"):
            DaskPushBoost(placement=placement, n_iter=2, **STEADY).fit(frame[list("bacde")], yd, init_model=named)
    model = DaskPNormPush(placement="distributed", n_iter=2, **STEADY).fit(frame, yd, init_model=named)
    assert model.n_iter_ == 4 and list(model.feature_names_in_) == columns
    Xq, yq, qid = graded_queries(3)
    within = rankcore.PushBoost(learner="trees", n_iter=2, random_state=0).fit(Xq, yq, qid=qid)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted within queries \(qid\), so its scores "
                                         r"order the rows of each query"):
        DaskPushBoost(learner="trees", n_iter=2, random_state=0).fit(Xq, (yq > 1).astype(int), init_model=within)


def test_callbacks_and_constraints_follow_the_in_memory_rules_on_dask(dask_client):  # noqa: F811
    X, y = float32_rows(seed=9)
    Xd, yd = as_dask(X, y)
    first = rankcore.PushBoost(n_iter=2, n_jobs=1, **STEADY).fit(X, y)
    seen = []
    DaskPushBoost(placement="distributed", n_iter=3, **STEADY).fit(
        Xd, yd, init_model=first, callbacks=lambda info: seen.append((info.iteration, info.n_iter)))
    assert seen == [(3, 5), (4, 5), (5, 5)]          # counted from the init model's first, as in memory
    monotone = dict(STEADY, learner=STEADY["learner"] + ",monotone=1/0/0/0/0")
    for placement in PLACEMENTS:
        with pytest.raises(ValueError, match=r"^init_model: the model was fitted with no monotone constraints, this "
                                             r"fit's learner has monotone=1/0/0/0/0"):
            DaskPushBoost(placement=placement, n_iter=2, **monotone).fit(Xd, yd, init_model=first)


# ----------------------------------------------------------------------------------------------------------------
# Display positions and the task, as in memory
# ----------------------------------------------------------------------------------------------------------------
def _clicks():
    """Clicks of 30 queries interleaved across unequal chunks, at display places 1..10."""
    from _query_data import logged_clicks

    X, clicks, qid, position, _ = logged_clicks(0, n_queries=30)
    order = np.argsort(np.random.default_rng(0).permutation(qid.size) % 7, kind="stable")
    return X[order], clicks[order], qid[order], position[order] + 1


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_position_effects_continue_from_the_init_models_on_dask(dask_client, placement):  # noqa: F811
    X, clicks, qid, position = _clicks()
    chunks = (90, 41, 120, X.shape[0] - 251)
    params = dict(learner="trees:max_leaves=6,min_samples_leaf=3,random_strength=0,subsample=1", random_state=0)
    first = rankcore.PushBoost(n_iter=4, **params).fit(X, clicks, qid=qid, position=position)
    once = rankcore.PushBoost(n_iter=7, **params).fit(X, clicks, qid=qid, position=position)
    local = rankcore.PushBoost(n_iter=3, **params).fit(X, clicks, qid=qid, position=position, init_model=first)
    Xd, yd, qd, pd_ = as_dask(X, clicks, qid, position, chunks=chunks)
    model = DaskPushBoost(placement=placement, n_iter=3, **params).fit(Xd, yd, qid=qd, position=pd_,
                                                                      init_model=first)
    assert model.fit_info_["placement"] == placement
    assert_same_model(model, local, X, exact=placement == "one_worker")
    np.testing.assert_array_equal(model.position_ids_, once.position_ids_)
    np.testing.assert_allclose(model.position_effects_, local.position_effects_, rtol=1e-9, atol=1e-12)
    # N then M is N + M, effects too
    np.testing.assert_allclose(model.decision_function(X), once.decision_function(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(model.position_effects_, once.position_effects_, rtol=1e-9, atol=1e-12)
    # a place the continuation's rows never show keeps the init model's effect; one new to it starts at 0
    moved = np.where(position == 10, 12, position)
    local = rankcore.PushBoost(n_iter=2, **params).fit(X, clicks, qid=qid, position=moved, init_model=first)
    moved_d, = as_dask(moved, chunks=chunks)
    model = DaskPushBoost(placement=placement, n_iter=2, **params).fit(Xd, yd, qid=qd, position=moved_d,
                                                                      init_model=first)
    np.testing.assert_array_equal(model.position_ids_, list(range(1, 11)) + [12])
    assert model.position_effects_[9] == first.position_effects_[9]
    np.testing.assert_allclose(model.position_effects_, local.position_effects_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)


def test_the_clients_effects_start_at_the_given_ones():
    from rankcore.dask._positions import PlaceEffects
    from rankcore.objectives import effects_step

    start = np.array([0.5, 0.0, -0.25])
    effects = PlaceEffects(3, l2=1.0, rate=0.1, start=start)
    np.testing.assert_array_equal(effects.effects_after(0), start)       # no tree kept: the init model's effects
    sums = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, 2.0]])
    effects.step(sums)
    np.testing.assert_array_equal(effects.effects_after(1), start + effects_step(start, *sums, l2=1.0, rate=0.1))
    np.testing.assert_array_equal(start, [0.5, 0.0, -0.25])


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_one_list_keeps_its_task_on_dask(dask_client, placement):  # noqa: F811
    X, y = float32_rows(seed=10)
    grades = y + (X[:, 2] > 1)
    Xd, yd, gd = as_dask(X, y, grades)
    stumps = dict(learner="stumps", random_state=0, early_stopping=False)
    bipartite = rankcore.PushBoost(n_iter=2, **stumps).fit(X, y)
    with pytest.raises(ValueError) as in_memory:
        rankcore.PushBoost(n_iter=2, objective="mp-squared", **stumps).fit(X, grades, init_model=bipartite)
    assert str(in_memory.value).startswith("init_model: the model was fitted on two labels (task bipartite)")
    fit = DaskPushBoost(placement=placement, n_iter=2, objective="mp-squared", **stumps).fit
    with pytest.raises(ValueError) as on_dask:
        fit(Xd, gd, init_model=bipartite)
    assert str(on_dask.value) == str(in_memory.value)
    # grades that are the model's two labels rank as its classes_ do, on Dask as in memory
    local = rankcore.PushBoost(n_iter=2, objective="mp-squared", **stumps).fit(X, y, init_model=bipartite)
    model = fit(Xd, yd, init_model=bipartite)
    assert model.n_iter_ == local.n_iter_ == 4
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_the_refusal_of_another_growth_reads_the_learner_as_given_on_dask(dask_client, placement):  # noqa: F811
    X, y, qid = graded_queries(5)
    chunks = (X.shape[0] // 2, X.shape[0] - X.shape[0] // 2)
    Xd, yd, qd = as_dask(X, y, qid, chunks=chunks)
    first = rankcore.PushBoost(learner="trees", n_iter=2, random_state=0).fit(X, y, qid=qid)     # oblivious trees
    for learner in ("trees:growth=leafwise", "trees:max_depth=4"):       # asked for, and not
        with pytest.raises(ValueError) as in_memory:
            rankcore.PushBoost(learner=learner, n_iter=2).fit(X, y, qid=qid, init_model=first)
        with pytest.raises(ValueError) as on_dask:
            DaskPushBoost(placement=placement, learner=learner, n_iter=2).fit(Xd, yd, qid=qd, init_model=first)
        assert str(on_dask.value) == str(in_memory.value)
        assert ("this fit did not ask for" in str(on_dask.value)) == ("max_depth" in learner)

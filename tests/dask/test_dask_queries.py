"""DaskPushBoost within queries on a real 2-worker LocalCluster equals the in-memory fit with qid.

The rows' queries are interleaved (shuffled) across unequal chunks, so
every query is split between chunks before the fit moves it.  Stumps and
trees, the exponential loss with the identity and ``pow:4`` prices,
``lambdarank``, ``yetirank`` and ``xendcg``; ids as a Dask array, a dataframe column or group sizes:
the same weak rankers, α to 1e-9, predictions to 1e-9.  No part of Dask
is mocked.
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
from rankcore.dask._inputs import as_row_chunks  # noqa: E402
from rankcore.dask._queries import place_queries, query_vector, survey_queries  # noqa: E402
from rankcore.validation import ArgumentRefusal  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _query_data import graded_queries  # noqa: E402

CHUNKS = (90, 41, 120, 77)


def _data(seed=0):
    X, y, qid = graded_queries(seed, n_queries=32, rows=(6, 18))
    n = sum(CHUNKS)
    return X[:n], y[:n], qid[:n]


def _dask(*arrays):
    return [da.from_array(a, chunks=(CHUNKS, -1) if a.ndim == 2 else (CHUNKS,)) for a in arrays]


def _assert_same_model(model, local, Xd, X):
    assert model.n_iter_ == local.n_iter_
    for a, b in zip(model.rankers_, local.rankers_):
        if hasattr(a, "left") or a.kind == "oblivious_tree":
            # (the histograms are summed over the chunks: leaf values equal up to rounding)
            for field in ("feature", "threshold", "nan_left", "left", "right"):
                if hasattr(a, field):
                    np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
            np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
        else:
            assert a == b
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    np.testing.assert_allclose(model.decision_function(Xd).compute(), local.decision_function(X), rtol=1e-9,
                               atol=1e-9)
    assert (model.n_queries_, model.n_queries_without_pairs_) == (local.n_queries_, local.n_queries_without_pairs_)


CASES = [
    dict(loss="exp", price="pow:4", learner="stumps:max_bins=16"),
    dict(loss="exp", price="pow:4", learner="trees:max_leaves=6,min_samples_leaf=3"),
    dict(loss="exp", price="identity", learner="trees:max_leaves=6,min_samples_leaf=3,subsample=0.7"),
    dict(objective="lambdarank:5", learner="trees:max_leaves=4,min_samples_leaf=3"),
    # the Bayesian bootstrap's weights follow the rows' positions in the in-memory fit, as the row sample does
    dict(loss="exp", price="identity", learner="trees:max_leaves=6,min_samples_leaf=3,bagging_temperature=1"),
    dict(loss="exp", price="identity",
         learner="trees:growth=oblivious,max_depth=3,min_samples_leaf=3,subsample=0.7,bagging_temperature=0.5"),
    # randomized: each chunk numbers its rows' noise from its offset, so the chunks draw the in-memory noise
    dict(objective="yetirank:3", learner="trees:max_leaves=4,min_samples_leaf=3"),
    dict(objective="xendcg", learner="trees:max_leaves=4,min_samples_leaf=3"),
    # the QueryRMSE term: c from every chunk's numbers at f = 0, the term's value and gradient chunk by chunk
    dict(objective="push:exp,identity,gain_weighted=true,query_rmse=2",
         learner="trees:max_leaves=6,min_samples_leaf=3"),
    dict(objective="push:exp,pow:4,query_rmse=0.5", learner="stumps:max_bins=16"),
]


@pytest.mark.parametrize("params", CASES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_dask_fit_within_queries_equals_in_memory(dask_client, params):
    X, y, qid = _data()
    w = np.random.default_rng(1).uniform(0.5, 2.0, y.shape[0])
    Xd, yd, qd, wd = _dask(X, y, qid, w)
    model = DaskPushBoost(placement="distributed",
                          n_iter=5, random_state=3, **params).fit(Xd, yd, sample_weight=wd, qid=qd)
    local = rankcore.PushBoost(n_iter=5, random_state=3, **params).fit(X, y, sample_weight=w, qid=qid)
    assert model.fit_info_["path"] == "separable"
    _assert_same_model(model, local, Xd, X)
    assert model.score(X, y, qid=qid) == pytest.approx(local.score(X, y, qid=qid), rel=1e-12)
    assert model.score(Xd, yd, qid=qd) == pytest.approx(local.score(X, y, qid=qid), rel=1e-12)
    for data in ((X, y), (Xd, yd)):
        with pytest.raises(ValueError, match="qid: this DaskPushBoost was fitted within queries"):
            model.score(*data)


def test_dask_query_rmse_fit_on_one_worker_and_distributed_is_the_in_memory_fit(dask_client):
    """``query_rmse=2`` on both placements: one worker bit for bit, the chunks to rounding."""
    X, y, qid = _data(1)
    y[qid == qid[0]] = 1.0                         # a query of one grade: no pair, but its term
    Xd, yd, qd = _dask(X, y, qid)
    params = dict(objective="push:exp,identity,gain_weighted=true,query_rmse=2", n_iter=5, random_state=3,
                  learner="trees:max_leaves=6,min_samples_leaf=3")
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, qid=qid)
    one = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd, qid=qd)
    assert one.fit_info_["placement"] == "one_worker"
    np.testing.assert_array_equal(one.decision_function(X), local.decision_function(X))
    spread = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
    assert spread.fit_info_["placement"] == "distributed"
    _assert_same_model(spread, local, Xd, X)
    # J = log R + λc·Q along the fit: the chunks' merged value is the in-memory one
    np.testing.assert_allclose(spread.objective_values_, local.objective_values_, rtol=1e-9)


def _count_line_work(on):
    """On a worker: count (``on``) or stop counting the QueryRMSE term's line set-ups and the line evaluations."""
    from rankcore.dask._shard import Shard
    from rankcore.objectives._query_rmse import QueryRMSETerm

    # kept on the worker's Shard class: each run of this function arrives with globals of its own
    if not hasattr(Shard, "_test_line_counts"):
        Shard._test_line_counts = {"originals": None, "setups": 0, "evaluations": 0}
    state = Shard._test_line_counts
    if on:
        coefficients, partials = QueryRMSETerm.line_coefficients, Shard.line_partials
        state.update(originals=(coefficients, partials), setups=0, evaluations=0)

        def counted_coefficients(self, *args):
            state["setups"] += 1
            return coefficients(self, *args)

        def counted_partials(self, *args):
            state["evaluations"] += 1
            return partials(self, *args)

        QueryRMSETerm.line_coefficients, Shard.line_partials = counted_coefficients, counted_partials
        return None
    if state["originals"] is not None:
        QueryRMSETerm.line_coefficients, Shard.line_partials = state["originals"]
        state["originals"] = None
    return state["setups"], state["evaluations"]


def test_dask_query_rmse_line_search_forms_each_blocks_line_once(dask_client):
    """A worker's line search forms each block's line along a tree once (the term's coefficients, the push's
    line), not once per step length: set-ups = blocks × trees searched, fewer than the evaluations."""
    X, y, qid = _data(2)
    Xd, yd, qd = _dask(X, y, qid)
    # (within queries the trees take Newton steps unless the spec asks for the line search)
    params = dict(objective="push:exp,identity,gain_weighted=true,query_rmse=2", n_iter=4, random_state=3,
                  learner="trees:max_leaves=6,min_samples_leaf=3,line_search=true")
    dask_client.run(_count_line_work, True)
    try:
        model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
    finally:
        counts = dask_client.run(_count_line_work, False)
    setups = sum(c[0] for c in counts.values())
    evaluations = sum(c[1] for c in counts.values())
    assert model.fit_info_["chunks"] == len(CHUNKS)
    assert 0 < setups <= len(CHUNKS) * model.n_iter_
    assert evaluations > sum(1 for c in counts.values() if c[1]) * model.n_iter_   # more than one α a line
    local = rankcore.PushBoost(**params).fit(X, y, qid=qid)
    _assert_same_model(model, local, Xd, X)


def test_dask_default_weighs_query_rmse_by_its_queries_with_two_grades_as_in_memory(dask_client):
    """Above ``QUERY_RMSE_MANY_QUERIES`` queries with two grades, counted over the chunks, the lighter blend."""
    from rankcore.push._query_defaults import QUERY_RMSE_MANY, QUERY_RMSE_MANY_QUERIES

    rng = np.random.default_rng(4)
    n_queries = QUERY_RMSE_MANY_QUERIES + 1
    qid = np.repeat(np.arange(n_queries), 4)
    X = rng.normal(size=(qid.shape[0], 3))
    y = np.tile([0.0, 0.0, 1.0, 2.0], n_queries)
    Xd, yd, qd = (da.from_array(a, chunks=(800,) + a.shape[1:]) for a in (X, y, qid))
    params = dict(n_iter=3, random_state=0, learner="trees:max_depth=2,min_samples_leaf=2")
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
    local = rankcore.PushBoost(**params).fit(X, y, qid=qid)
    assert model.objective_spec_ == local.objective_spec_ == f"push:exp,identity,true,none,0,false,{QUERY_RMSE_MANY:g}"
    _assert_same_model(model, local, Xd, X)


def test_dask_fit_within_queries_from_a_dataframe_and_group_sizes(dask_client):
    X, y, qid = _data(seed=2)
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    frame = dd.from_pandas(pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]), npartitions=3)
    ys = dd.from_pandas(pd.Series(y), npartitions=3)
    qs = dd.from_pandas(pd.Series(qid), npartitions=3)
    params = dict(learner="stumps:max_bins=16", price="identity", n_iter=3)
    local = rankcore.PushBoost(**params).fit(X, y, qid=qid)
    by_qid = DaskPushBoost(placement="distributed", **params).fit(frame, ys, qid=qs)
    _, sizes = np.unique(qid, return_counts=True)
    by_group = DaskPushBoost(placement="distributed", **params).fit(frame, ys, group=sizes)
    Xd = frame.to_dask_array(lengths=True)
    _assert_same_model(by_qid, local, Xd, X)
    _assert_same_model(by_group, local, Xd, X)
    # score takes group as fit does: on Dask and in-memory rows, with fit's errors
    expected = local.score(X, y, qid=qid)
    assert by_group.score(frame, ys, group=sizes) == pytest.approx(expected, rel=1e-12)
    assert by_group.score(X, y, group=sizes) == pytest.approx(expected, rel=1e-12)
    assert by_group.score(Xd, da.from_array(y, chunks=50), group=da.from_array(sizes)) == pytest.approx(expected,
                                                                                                       rel=1e-12)
    with pytest.raises(ValueError, match=r"^qid, group: give one of them"):
        by_group.score(frame, ys, qid=qs, group=sizes)
    with pytest.raises(ValueError, match=r"^group: the query sizes sum to"):
        by_group.score(frame, ys, group=sizes[1:])


@pytest.mark.parametrize("chunks", [(0, 30, 30), (30, 0, 30), (20, 0, 0, 40)])
@pytest.mark.parametrize("objective", [None, "lambdarank", "push:exp,pow:4"])
def test_rows_in_query_order_with_an_empty_chunk_give_the_in_memory_model(dask_client, chunks, objective):
    # rows already in query order keep their chunks, whose query codes are zipped with them chunk by chunk: an empty
    # chunk must not shift every later block onto the next chunk's codes
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(6), 10)
    X, y = rng.normal(size=(60, 2)), rng.integers(0, 3, 60).astype(float)
    Xd, yd, qd = (da.from_array(a, chunks=(chunks,) + a.shape[1:]) for a in (X, y, qid))
    params = dict(learner="trees:max_leaves=4", n_iter=3, random_state=0)
    if objective is not None:
        params["objective"] = objective
    local = rankcore.PushBoost(**params).fit(X, y, qid=qid)
    fitted = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
    assert fitted.n_iter_ == local.n_iter_
    np.testing.assert_allclose(fitted.decision_function(X), local.decision_function(X), rtol=0, atol=1e-9)


def test_a_filtered_frame_whose_first_partition_is_empty_fits_within_queries(dask_client):
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(6), 10)
    X, y = rng.normal(size=(60, 2)), rng.integers(0, 3, 60).astype(float)
    frame = dd.from_pandas(pd.DataFrame(X, columns=["a", "b"]).assign(q=qid, y=y), npartitions=3)
    frame = frame[frame.q >= 2]
    kept = qid >= 2
    params = dict(learner="trees:max_leaves=4", n_iter=3, random_state=0)
    local = rankcore.PushBoost(**params).fit(pd.DataFrame(X[kept], columns=["a", "b"]), y[kept], qid=qid[kept])
    fitted = DaskPushBoost(placement="distributed", **params).fit(frame[["a", "b"]], frame.y, qid=frame.q)
    np.testing.assert_allclose(fitted.decision_function(X[kept]), local.decision_function(X[kept]), rtol=0,
                               atol=1e-9)


def test_placement_keeps_queries_whole_in_query_order_and_balanced(dask_client):
    X, y, qid = _data(seed=4)
    Xd, yd, qd = _dask(X, y, qid)
    data = as_row_chunks(Xd, yd)
    survey = survey_queries(dask_client, data, query_vector(qd, None, data), rankcore.objectives.PushObjective())
    assert not survey.in_order
    placed = place_queries(dask_client, data, survey)
    codes = [np.asarray(c) for c in dask_client.compute(placed.qid.to_delayed().ravel().tolist(), sync=True)]
    firsts, lasts = [c[0] for c in codes], [c[-1] for c in codes]
    assert all(np.all(np.diff(c) >= 0) for c in codes) and all(a < b for a, b in zip(lasts[:-1], firsts[1:]))
    assert max(placed.chunk_rows) - min(placed.chunk_rows) <= 2 * max(survey.sizes)
    order = np.argsort(qid, kind="stable")                  # the in-memory fit's rows
    np.testing.assert_array_equal(placed.X.compute(), X[order])
    np.testing.assert_array_equal(placed.y.compute(), y[order])
    # already in query order with whole queries per chunk: nothing moves
    sorted_data = as_row_chunks(placed.X, placed.y)
    again = survey_queries(dask_client, sorted_data, query_vector(placed.qid, None, sorted_data),
                           rankcore.objectives.PushObjective())
    assert again.in_order
    kept = place_queries(dask_client, sorted_data, again)
    assert kept.X is sorted_data.X


def test_dask_auto_never_stops_within_queries_and_watches_an_eval_set(dask_client):
    X, y, qid = graded_queries(5, n_queries=700, rows=(14, 20))
    n = 10_400
    X, y, qid = X[:n], y[:n], qid[:n]
    Xd, yd, qd = (da.from_array(a, chunks=(2600, -1) if a.ndim == 2 else 2600) for a in (X, y, qid))
    params = dict(learner="stumps:max_bins=8", price="pow:2", n_iter=4, random_state=0)
    # "auto" above 10,000 rows holds out no training query (as in memory): every row is trained on
    auto = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
    assert auto.stop_reason_ == "n_iter" and not hasattr(auto, "validation_scores_")
    _assert_same_model(auto, rankcore.PushBoost(**params).fit(X, y, qid=qid), Xd, X)
    half = n // 2
    on_eval = DaskPushBoost(placement="distributed", **params).fit(Xd[:half], yd[:half], qid=qd[:half],
                                          eval_set=(X[half:], y[half:], qid[half:]))
    local_eval = rankcore.PushBoost(**params).fit(X[:half], y[:half], qid=qid[:half],
                                                  eval_set=(X[half:], y[half:], qid[half:]))
    np.testing.assert_allclose(on_eval.validation_scores_, local_eval.validation_scores_, rtol=1e-12)
    assert on_eval.stop_reason_ == local_eval.stop_reason_ == "n_iter"


BAD = [
    (lambda X, y, q: dict(qid=q[:-3]), ValueError, r"qid: expected one query id per row \(328 rows\), got 325"),
    (lambda X, y, q: dict(qid=np.where(np.arange(q.shape[0]) == 100, np.nan, 1.0)), ValueError,
     r"qid: query ids must not be NaN, got NaN at row 100"),
    (lambda X, y, q: dict(qid=da.from_array(np.where(np.arange(q.shape[0]) == 140, np.nan, 1.0), chunks=100)),
     ValueError, r"qid: query ids must not be NaN, got NaN at row 9 \(chunk 2, whose first row is row 131 of X\)"),
    (lambda X, y, q: dict(qid=q, group=[328]), ValueError, r"qid, group: give one of them"),
    (lambda X, y, q: dict(group=[300]), ValueError, r"group: the query sizes sum to 300"),
    (lambda X, y, q: dict(qid=y), ValueError, r"y, qid: ranking within queries needs a query with two grades, got 4"),
]


@pytest.mark.parametrize("make, error, pattern", BAD,
                         ids=["length", "nan-local", "nan-dask", "both", "group-sum", "single-grades"])
def test_dask_qid_bad_input_names_the_argument(dask_client, make, error, pattern):
    X, y, qid = _data()
    Xd, yd = _dask(X, y)
    with pytest.raises(error, match=pattern):
        DaskPushBoost(placement="distributed", n_iter=2).fit(Xd, yd, **make(X, y, qid))


def test_dask_grades_outside_a_gain_table_name_the_chunk_and_row(dask_client):
    X, y, qid = _data()
    y[140] = 1.5                                   # no gain in a table of whole grades (LightGBM's label_gain)
    Xd, yd, qd = _dask(X, y, qid)
    with pytest.raises(ValueError, match=r"y: the objective 'lambdarank:gain=0/1/3/7' has gains for the grades "
                                         r"0..3 only .* so grades must be whole numbers <= 3, got 1.5 at row 9 "
                                         r"\(chunk 2, whose first row is row 131 of X\)") as caught:
        DaskPushBoost(placement="distributed", objective="lambdarank:gain=0/1/3/7", n_iter=2,
                      learner="trees:max_leaves=4").fit(Xd, yd, qid=qd)
    # an ArgumentRefusal of y, as in memory and as the chunk's other refused grades (negative, NaN)
    assert isinstance(caught.value, ArgumentRefusal) and caught.value.parameter == "y"


def test_dask_qid_refuses_what_cannot_rank_within_queries(dask_client):
    X, y, qid = _data()
    Xd, yd, qd = _dask(X, y, qid)
    with pytest.raises(ValueError, match="qid: the objective 'prec@k-avg:5' ranks one list"):
        DaskPushBoost(placement="distributed", objective="prec@k-avg:5", n_iter=2).fit(Xd, yd, qid=qd)
    # in memory it ranks within queries; on blocks it has no log-sum-exp merge
    with pytest.raises(ValueError, match="objective 'mp-squared': within queries on blocks, an objective with a "
                                         "value must give it as a logarithm"):
        DaskPushBoost(placement="distributed", objective="mp-squared", n_iter=2).fit(Xd, yd, qid=qd)
    with pytest.raises(ValueError, match="qid: the objective 'lambdarank' ranks within queries; pass"):
        DaskPushBoost(placement="distributed", objective="lambdarank", learner="trees", n_iter=2).fit(Xd, yd)
    bad = y.copy()
    bad[200] = -1.0
    with pytest.raises(ValueError, match=r"y: relevance grades must be finite numbers >= 0.*chunk 2"):
        DaskPushBoost(placement="distributed", n_iter=2).fit(Xd, da.from_array(bad, chunks=(CHUNKS,)), qid=qd)


def test_dask_bad_rows_within_queries_name_the_users_chunk_and_row(dask_client):
    # the fit moves interleaved queries into other chunks: a refusal must still name where the user put the row
    X, y, qid = _data()
    X[140, 1] = np.nan                             # row 9 of chunk 2 (whose first row is row 131)
    Xd, yd, qd = _dask(X, y, qid)
    with pytest.raises(ValueError, match=r"^X \(chunk 2\): missing values \(NaN\) .* got NaN at row 9, column 1;"):
        DaskPushBoost(placement="distributed", n_iter=2).fit(Xd, yd, qid=qd)
    Xd = _dask(*_data())[0]
    for bad, pattern in ((np.nan, r"^sample_weight \(chunk 2\): expected finite numbers, got NaN at position 9 "),
                         (-1.0, r"^sample_weight \(chunk 2\): expected non-negative weights")):
        w = np.ones(X.shape[0])
        w[140] = bad
        with pytest.raises(ValueError, match=pattern):
            DaskPushBoost(placement="distributed", n_iter=2).fit(Xd, yd, qid=qd, sample_weight=_dask(w)[0])


def test_dask_early_stopping_without_eval_set_within_queries_asks_for_the_query_ids(dask_client):
    X, y, qid = _data()
    Xd, yd, qd = _dask(X, y, qid)
    with pytest.raises(ValueError, match=r"early_stopping=True: on distributed data pass "
                                         r"fit\(\.\.\., eval_set=\(X_val, y_val, qid_val\)\)"):
        DaskPushBoost(placement="distributed", early_stopping=True, n_iter=2).fit(Xd, yd, qid=qd)


def test_dask_counts_queries_of_weight_zero_as_without_pairs_as_in_memory(dask_client):  # noqa: F811
    # in memory a query whose rows all weigh 0 is a dropped query (no pair), and the per-query default's QueryRMSE
    # weight reads the count; Dask counted every query with two grades, whatever its weights: 810 queries with
    # pairs, 15 of them dropped, chose lambda 1 (above 800) where the in-memory fit chose 2
    rng = np.random.default_rng(5)
    n_queries = 810
    qid = np.repeat(np.arange(n_queries), 3)
    y = np.tile([0.0, 1.0, 2.0], n_queries)
    X = rng.normal(size=(qid.shape[0], 3)) + y[:, None] * 0.3
    w = np.where(qid < 15, 0.0, 1.0)
    w[(qid == 20) & (y > 0)] = 0.0                       # query 20: one row of positive weight left, no pair
    Xd, yd, qd, wd = (da.from_array(a, chunks=(607,) + a.shape[1:]) for a in (X, y, qid, w))
    local = rankcore.PushBoost(n_iter=1, learner="stumps", random_state=0).fit(X, y, qid=qid, sample_weight=w)
    model = DaskPushBoost(placement="distributed", n_iter=1, learner="stumps",
                          random_state=0).fit(Xd, yd, qid=qd, sample_weight=wd)
    assert local.n_queries_without_pairs_ == 16
    assert (model.n_queries_, model.n_queries_without_pairs_) == (local.n_queries_, local.n_queries_without_pairs_)
    assert model.objective_spec_ == local.objective_spec_


class _ClosedPipe:
    """stdout of ``python fit.py | head`` once head has exited: every write fails."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_stdout_does_not_end_a_verbose_dask_fit_within_queries(dask_client, monkeypatch):  # noqa: F811
    # the line saying the queries was printed, not said: a closed pipe raised BrokenPipeError out of the fit
    X, y, qid = _data()
    Xd, yd, qd = _dask(X, y, qid)
    quiet = DaskPushBoost(placement="distributed", n_iter=2, random_state=3).fit(Xd, yd, qid=qd)
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    loud = DaskPushBoost(placement="distributed", n_iter=2, random_state=3, verbose=1).fit(Xd, yd, qid=qd)
    np.testing.assert_array_equal(loud.alphas_, quiet.alphas_)


def test_placement_of_many_small_chunks_cuts_few_runs_not_one_per_chunk(dask_client, monkeypatch):
    # every given chunk sends a piece to every run: one run per chunk made 600 chunks of 500 rows cost 360,000
    # tasks (a fit of 300k rows that never finished in five minutes); beyond MIN_RUNS runs hold MIN_RUN_ROWS rows
    from rankcore.dask import _queries

    rng = np.random.default_rng(7)
    n = 1_200
    X, y, qid = rng.normal(size=(n, 3)), rng.integers(0, 3, n).astype(float), rng.integers(0, 40, n)
    data = as_row_chunks(da.from_array(X, chunks=(30, 3)), da.from_array(y, chunks=30))
    qd = da.from_array(qid, chunks=30)
    survey = survey_queries(dask_client, data, query_vector(qd, None, data), rankcore.objectives.PushObjective())
    placed = place_queries(dask_client, data, survey)
    assert len(placed.chunk_rows) == 8             # 40 chunks of 30 rows: MIN_RUNS runs, not 40
    order = np.argsort(qid, kind="stable")
    np.testing.assert_array_equal(placed.X.compute(), X[order])
    assert _queries.run_count(n, 3) == 3
    # by rows when they allow more runs than MIN_RUNS, never more than the chunks given
    monkeypatch.setattr(_queries, "MIN_RUN_ROWS", 100)
    monkeypatch.setattr(_queries, "MIN_RUNS", 2)
    assert _queries.run_count(n, 40) == 12 and _queries.run_count(n, 5) == 5
    placed = place_queries(dask_client, data, survey)
    assert len(placed.chunk_rows) == 12
    np.testing.assert_array_equal(placed.y.compute(), y[order])

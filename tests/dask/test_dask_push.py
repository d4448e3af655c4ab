"""The push estimators on a real 2-worker LocalCluster equal the in-memory fit.

Data: unequal chunks (100, 37, 200, 163, 100 rows) of rows sorted by label,
so the first chunk holds no positive.  With the same bin edges (or the same
documented binning rule and ``random_state``), the Dask fit must choose the
same weak rankers, the same α to 1e-9 relative, and score every row as the
in-memory model does.  No part of Dask is mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")     # rankcore.dask needs the [dask] extra
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPNormPush, DaskPushBoost, DaskRankBoost  # noqa: E402
from rankcore.learners import bin_edges  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _plugin_registration import components_registered, plugin_registered  # noqa: E402

CHUNKS = (100, 37, 200, 163, 100)


def _data(n=600, d=5, seed=0, graded=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = np.round(X[:, 3], 1)                      # a feature with ties
    y = (rng.random(n) < 0.2).astype(int)
    X[y == 1, :2] += 0.7
    order = np.argsort(y, kind="stable")                # the first chunk holds negatives only
    X, y = X[order], y[order]
    if graded:
        y = X[:, 0] + rng.normal(scale=0.5, size=n)
    return X, y


def _dask(X, y, w=None, chunks=CHUNKS):
    Xd = da.from_array(X, chunks=(chunks, -1))
    yd = da.from_array(y, chunks=(chunks,))
    wd = None if w is None else da.from_array(w, chunks=(chunks,))
    return Xd, yd, wd


def _assert_same_fit(dask_model, local_model, Xd, X):
    assert dask_model.rankers_ == local_model.rankers_
    np.testing.assert_allclose(dask_model.alphas_, local_model.alphas_, rtol=1e-9)
    np.testing.assert_allclose(dask_model.objective_values_, local_model.objective_values_, rtol=1e-12, atol=1e-12)
    scores = dask_model.decision_function(Xd)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), local_model.decision_function(X), rtol=1e-12, atol=1e-12)


CASES = [
    # (estimator params, expected backend path)
    (dict(loss="exp", price="pow:4"), "fast"),
    (dict(loss="exp", price="pow:64"), "fast"),
    (dict(loss="exp", price="exp:0.3"), "separable"),
    (dict(loss="exp", price="pow:4", learner="features"), "separable"),
    (dict(loss="exp", price="pow:2", learner="thresholds:q=4"), "fast"),
    (dict(loss="hinge", price="pow:2"), "pairwise"),
    (dict(loss="logistic", price="identity"), "pairwise"),
]


@pytest.mark.parametrize("params, path", CASES, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items())
                         if isinstance(v, dict) else v)
def test_dask_fit_equals_in_memory(dask_client, params, path):
    X, y = _data()
    Xd, yd, _ = _dask(X, y)
    n_iter = 6 if path == "pairwise" else 12
    learner = params.get("learner", "stumps")
    thresholds = bin_edges(X, max_bins=32) if learner == "stumps" else None
    model = DaskPushBoost(placement="distributed", n_iter=n_iter, thresholds=thresholds, **params).fit(Xd, yd)
    local = rankcore.PushBoost(n_iter=n_iter, thresholds=thresholds, **params).fit(X, y)
    assert model.fit_info_["path"] == path
    assert model.fit_info_["chunks"] == len(CHUNKS) and model.fit_info_["workers"] == 2
    assert model.n_iter_ == local.n_iter_ > 0
    _assert_same_fit(model, local, Xd, X)


def test_dask_long_fit_at_p64_stays_finite_and_equal(dask_client):
    """200 iterations at p = 64 on the fast path (A and B carried from the line summaries): every
    weak ranker as in memory, α to 1e-9 relative, finite objective values (1,000 iterations, run
    by hand: the same, α within 2e-13)."""
    X, y = _data()
    Xd, yd, _ = _dask(X, y)
    edges = bin_edges(X, max_bins=32)
    model = DaskPNormPush(placement="distributed", p=64, n_iter=200, thresholds=edges, tol=0.0).fit(Xd, yd)
    local = rankcore.PNormPush(p=64, n_iter=200, thresholds=edges, tol=0.0).fit(X, y)
    assert model.n_iter_ == local.n_iter_ == 200
    assert np.isfinite(model.objective_values_).all() and np.isfinite(model.alphas_).all()
    assert model.rankers_ == local.rankers_
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    np.testing.assert_allclose(model.objective_values_, local.objective_values_, rtol=1e-12)


def test_dask_fast_path_is_one_round_trip_per_iteration(dask_client):
    X, y = _data()
    Xd, yd, _ = _dask(X, y)
    model = DaskPNormPush(placement="distributed", p=4, n_iter=10, thresholds=bin_edges(X, max_bins=32)).fit(Xd, yd)
    assert model.fit_info_["path"] == "fast"
    assert model.fit_info_["round_trips"] == model.fit_info_["iterations"] + 1    # + the initial scalars


def test_dask_rankboost_and_pnormpush_equal_their_in_memory_classes(dask_client):
    X, y = _data(seed=1)
    Xd, yd, _ = _dask(X, y)
    edges = bin_edges(X, max_bins=16)
    _assert_same_fit(DaskRankBoost(placement="distributed", n_iter=8, thresholds=edges).fit(Xd, yd),
                     rankcore.RankBoost(n_iter=8, thresholds=edges).fit(X, y), Xd, X)
    _assert_same_fit(DaskPNormPush(placement="distributed", p=16, n_iter=8, thresholds=edges).fit(Xd, yd),
                     rankcore.PNormPush(p=16, n_iter=8, thresholds=edges).fit(X, y), Xd, X)


def test_dask_default_binning_is_the_in_memory_rule(dask_client):
    """Without given edges: the same sample (subsample < n, weights with zeros) gives the same edges and fit."""
    X, y = _data(seed=2)
    w = np.random.default_rng(5).choice([0.0, 0.5, 1.0, 2.0], size=y.shape[0])
    Xd, yd, wd = _dask(X, y, w)
    learner = "stumps:max_bins=12,subsample=250"
    assert all(np.array_equal(a, b) for a, b in zip(
        rankcore.dask.bin_edges(Xd, np.int64(12), sample_weight=wd, subsample=np.int64(250), random_state=7),
        bin_edges(X, 12, sample_weight=w, subsample=250, random_state=7)))        # NumPy integers taken, as in memory
    model = DaskPushBoost(placement="distributed",
                          learner=learner, n_iter=10, random_state=7).fit(Xd, yd, sample_weight=wd)
    local = rankcore.PushBoost(learner=learner, n_iter=10, random_state=7).fit(X, y, sample_weight=w)
    _assert_same_fit(model, local, Xd, X)


def test_dask_thresholds_learner_exact_quantiles_with_weights(dask_client):
    """The thresholds learner's q exact weighted quantiles over all rows, then equivalent ones dropped."""
    X, y = _data(seed=3)
    w = np.random.default_rng(1).integers(0, 3, size=y.shape[0]).astype(float)
    Xd, yd, wd = _dask(X, y, w)
    model = DaskPushBoost(placement="distributed", learner="thresholds:q=7", n_iter=8).fit(Xd, yd, sample_weight=wd)
    local = rankcore.PushBoost(learner="thresholds:q=7", n_iter=8).fit(X, y, sample_weight=w)
    _assert_same_fit(model, local, Xd, X)


@pytest.mark.parametrize("scale, top", [(0.1, 4), (3.0, 4), (0.1, 2)])
def test_dask_thresholds_quantiles_do_not_move_with_the_weights_scale(dask_client, scale, top):
    """Weights scaled by one constant give the in-memory thresholds: sums summed by chunk that land on a level by
    their rounding reach it, as in memory (they were compared exactly, the in-memory fit within their rounding)."""
    X, y = _data(seed=3)
    w = np.random.default_rng(1).integers(1, top, size=y.shape[0]) * scale      # top 2: all equal
    Xd, yd, wd = _dask(X, y, w)
    model = DaskPushBoost(placement="distributed", learner="thresholds:q=9", n_iter=8).fit(Xd, yd, sample_weight=wd)
    local = rankcore.PushBoost(learner="thresholds:q=9", n_iter=8).fit(X, y, sample_weight=w)
    _assert_same_fit(model, local, Xd, X)


def test_dask_graded_separable_objective(dask_client):
    X, y = _data(seed=4, graded=True)
    Xd, yd, _ = _dask(X, y)
    edges = bin_edges(X, max_bins=16)
    model = DaskPushBoost(placement="distributed", objective="mp-squared", n_iter=8, thresholds=edges).fit(Xd, yd)
    local = rankcore.PushBoost(objective="mp-squared", n_iter=8, thresholds=edges).fit(X, y)
    assert model.fit_info_["path"] == "separable"
    _assert_same_fit(model, local, Xd, X)


@pytest.mark.filterwarnings("ignore:Dask currently has limited support for converting pandas extension dtypes")
def test_dask_dataframe_inputs_and_feature_names(dask_client):
    X, y = _data(seed=5)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    ddf = dd.from_pandas(frame, npartitions=3)
    dy = dd.from_pandas(pd.Series(np.where(y == 1, "yes", "no")), npartitions=3)
    edges = bin_edges(X, max_bins=16)
    model = DaskPushBoost(placement="distributed", n_iter=8, thresholds=edges).fit(ddf, dy)
    local = rankcore.PushBoost(n_iter=8, thresholds=edges).fit(frame, np.where(y == 1, "yes", "no"))
    assert list(model.feature_names_in_) == list(frame.columns)
    assert list(model.classes_) == ["no", "yes"]
    assert model.rankers_ == local.rankers_
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    scores = model.decision_function(ddf)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), local.decision_function(frame), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="columns"):
        model.decision_function(ddf.rename(columns={"f0": "other"}))


def test_dask_to_local_saves_and_loads(dask_client, tmp_path):
    X, y = _data(seed=6)
    Xd, yd, _ = _dask(X, y)
    model = DaskPushBoost(placement="distributed",
                          n_iter=6, thresholds=bin_edges(X, max_bins=16), price="pow:8").fit(Xd, yd)
    local = model.to_local()
    assert type(local) is rankcore.PushBoost
    assert "client" not in local.get_params()
    path = tmp_path / "model.json"
    rankcore.save_model(local, path)
    again = rankcore.load_model(path)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(Xd).compute())
    assert type(DaskRankBoost(placement="distributed", n_iter=2).fit(Xd, yd).to_local()) is rankcore.RankBoost


def test_dask_decision_function_is_lazy(dask_client):
    X, y = _data(seed=7)
    Xd, yd, _ = _dask(X, y)
    model = DaskPushBoost(placement="distributed", n_iter=3, thresholds=bin_edges(X, max_bins=8)).fit(Xd, yd)

    def explode(block):
        raise RuntimeError("computed")

    poisoned = Xd.map_blocks(explode, dtype=float)
    lazy = model.decision_function(poisoned)          # builds a graph, computes nothing
    assert isinstance(lazy, da.Array) and lazy.shape == (X.shape[0],)
    with pytest.raises(RuntimeError, match="computed"):
        lazy.compute()
    # NumPy in, NumPy out; staged scores end at the final ones
    np.testing.assert_array_equal(model.decision_function(X), model.decision_function(Xd).compute())
    staged = list(model.staged_decision_function(Xd))
    np.testing.assert_allclose(staged[-1].compute(), model.decision_function(X), rtol=0, atol=0)


def test_dask_eval_set_and_early_stopping(dask_client):
    X, y = _data(seed=8)
    Xv, yv = _data(n=200, seed=9)
    Xd, yd, _ = _dask(X, y)
    edges = bin_edges(X, max_bins=16)
    params = dict(n_iter=15, thresholds=edges, early_stopping=True, n_iter_no_change=3, scoring="prec@k:20")
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_set=(da.from_array(Xv, chunks=50), yv))
    local = rankcore.PushBoost(**params).fit(X, y, eval_set=(Xv, yv))
    assert model.best_iteration_ == local.best_iteration_
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12)
    assert model.rankers_ == local.rankers_


def test_dask_auto_early_stopping_matches_memory_on_an_eval_set(dask_client):
    # early_stopping="auto" (the default) above 10,000 rows: stop on eval_set, with the large-data
    # settings (stumps: up to 300 iterations, validated by pauc:0.1), as the in-memory estimator does
    from rankcore.push._validation import AUTO_MIN_ROWS

    X, y = _data(n=AUTO_MIN_ROWS + 1, seed=11)
    Xv, yv = _data(n=400, seed=12)
    Xd, yd, _ = _dask(X, y, chunks=(4000, 3000, 3001))
    params = dict(thresholds=bin_edges(X, max_bins=8), n_iter_no_change=2)
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_set=(Xv, yv))
    local = rankcore.PushBoost(**params).fit(X, y, eval_set=(Xv, yv))
    assert model.validation_metric_ == local.validation_metric_ == "pauc:0.1"
    assert model.best_iteration_ == local.best_iteration_ == model.n_iter_
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12)
    assert model.rankers_ == local.rankers_


def test_dask_patience_with_an_eval_set_stops_on_fewer_rows_as_in_memory(dask_client):
    # early_stopping="auto" on at most 10,000 rows stops on an eval_set when the user sets n_iter_no_change
    # (LightGBM's early_stopping_rounds), in memory and on Dask alike
    X, y = _data(seed=8)
    Xv, yv = _data(n=200, seed=9)
    Xd, yd, _ = _dask(X, y)
    params = dict(n_iter=40, thresholds=bin_edges(X, max_bins=16), n_iter_no_change=2, scoring="prec@k:20")
    model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, eval_set=(da.from_array(Xv, chunks=50), yv))
    local = rankcore.PushBoost(**params).fit(X, y, eval_set=(Xv, yv))
    assert local.stop_reason_ == model.stop_reason_ == "early_stopping"
    assert model.best_iteration_ == local.best_iteration_ and model.n_iter_ == local.n_iter_ < 40
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12)


@pytest.mark.parametrize("params, weighted", [
    ({}, False),                                                # the default fit: stumps, 300 iterations at most
    ({"learner": "trees:max_leaves=4", "n_iter": 6}, True),
], ids=["default", "trees-weighted"])
def test_dask_default_early_stopping_holds_out_the_in_memory_rows(dask_client, params, weighted):
    """early_stopping="auto" without eval_set above 10,000 rows: the in-memory hold-out, the same model."""
    from rankcore.push._validation import AUTO_MIN_ROWS

    X, y = _data(n=AUTO_MIN_ROWS + 500, seed=14)
    w = np.random.default_rng(15).uniform(0.5, 2.0, y.shape[0]) if weighted else None
    Xd, yd, wd = _dask(X, y, w, chunks=(4000, 3000, 3500))
    model = DaskPushBoost(placement="distributed", random_state=3, **params).fit(Xd, yd, sample_weight=wd)
    local = rankcore.PushBoost(random_state=3, **params).fit(X, y, sample_weight=w)
    assert model.validation_metric_ == local.validation_metric_ == "pauc:0.1"
    assert model.stop_reason_ == local.stop_reason_
    assert model.n_iter_ == local.n_iter_ and model.best_iteration_ == local.best_iteration_
    np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-12, atol=1e-12)
    assert model.get_params()["n_iter_no_change"] == local.get_params()["n_iter_no_change"] is None


def test_dask_default_early_stopping_falls_back_as_in_memory(dask_client):
    """Too few positives for a hold-out: both warn and run n_iter iterations (stop_reason_ says why)."""
    from rankcore.push._validation import AUTO_MIN_ROWS, NO_VALIDATION

    X, y = _data(n=AUTO_MIN_ROWS + 1, seed=16)
    y = np.zeros_like(y)
    y[::2000] = 1                                     # 6 positives: a hold-out would hold none
    Xd, yd, _ = _dask(X, y, chunks=(5001, 5000))
    with pytest.warns(UserWarning, match="early_stopping='auto'"):
        model = DaskPushBoost(placement="distributed", n_iter=3, random_state=0).fit(Xd, yd)
    with pytest.warns(UserWarning, match="early_stopping='auto'"):
        local = rankcore.PushBoost(n_iter=3, random_state=0).fit(X, y)
    assert model.stop_reason_ == local.stop_reason_ == NO_VALIDATION
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kwargs, name", [({"validation_fraction": 1.0}, "validation_fraction"),
                                          ({"n_iter_no_change": 0}, "n_iter_no_change"), ({"tol": -1.0}, "tol"),
                                          ({"early_stopping": "on"}, "early_stopping"),
                                          ({"scoring": "objectiv"}, "scoring")])
@pytest.mark.parametrize("estimator", [DaskPushBoost, DaskPNormPush, DaskRankBoost])
def test_dask_twins_check_the_early_stopping_parameters_alike(dask_client, estimator, kwargs, name):
    X, y = _data(seed=13)
    Xd, yd, _ = _dask(X, y)
    with pytest.raises(ValueError, match=name):
        estimator(**kwargs).fit(Xd, yd)
    assert estimator(scoring="objective", early_stopping="auto").get_params()["early_stopping"] == "auto"


def test_dask_score_is_distributed(dask_client):
    X, y = _data(seed=10)
    Xd, yd, _ = _dask(X, y)
    model = DaskPushBoost(placement="distributed",
                          n_iter=5, thresholds=bin_edges(X, max_bins=16), scoring="auc").fit(Xd, yd)
    assert model.score(Xd, yd) == pytest.approx(model.to_local().score(X, y), abs=1e-6)


def test_dask_fit_spreads_blocks_over_every_worker(dask_client):
    """Chunks all held by one worker: the shards still split the rows between both workers (same model)."""
    X, y = _data(seed=21)
    first = sorted(dask_client.scheduler_info()["workers"])[0]
    Xd, yd = dask_client.persist([da.from_array(X, chunks=((150,) * 4, -1)), da.from_array(y, chunks=((150,) * 4,))],
                                 workers=[first])
    from distributed import wait

    wait([Xd, yd])
    assert {w for ws in dask_client.who_has(Xd).values() for w in ws} == {first}
    edges = bin_edges(X, max_bins=16)
    session = DaskPushBoost(placement="distributed", n_iter=3, thresholds=edges)._start(Xd, yd, None, None)
    try:
        rows = sorted(info["rows"] for info in session.shards.info())
    finally:
        session.close()
    assert rows == [300, 300]
    model = DaskPushBoost(placement="distributed", n_iter=6, thresholds=edges).fit(Xd, yd)
    assert model.fit_info_["workers"] == 2
    _assert_same_fit(model, rankcore.PushBoost(n_iter=6, thresholds=edges).fit(X, y), Xd, X)


# --------------------------------------------------------------------------
# Clear errors
# --------------------------------------------------------------------------

def test_dask_errors_name_the_problem(dask_client):
    X, y = _data(seed=11)
    Xd, yd, _ = _dask(X, y)
    with pytest.raises(ValueError, match="prec@k-avg.*cannot be boosted on Dask"):
        DaskPushBoost(placement="distributed", objective="prec@k-avg:10", n_iter=2).fit(Xd, yd)
    with pytest.raises(ValueError, match="prec@k-max:10.*cannot be boosted on Dask.*whole label vector"):
        DaskPushBoost(placement="distributed", objective="prec@k-max:10", n_iter=2).fit(Xd, yd)
    with pytest.raises(ValueError, match="early_stopping=True.*eval_set"):
        DaskPushBoost(placement="distributed", early_stopping=True).fit(Xd, yd)
    bad = X.copy()
    bad[450, 2] = np.nan                                  # in chunk 3
    with pytest.raises(ValueError, match=r"X \(chunk 3\)"):
        DaskPushBoost(placement="distributed", n_iter=2).fit(da.from_array(bad, chunks=(CHUNKS, -1)), yd)
    with pytest.raises(ValueError, match="both classes"):
        DaskPushBoost(placement="distributed", n_iter=2).fit(Xd, da.zeros(X.shape[0], chunks=(CHUNKS,)))
    with pytest.raises(ValueError, match="two classes"):
        DaskPushBoost(placement="distributed",
                      n_iter=2).fit(Xd, da.from_array(np.arange(X.shape[0]) % 3, chunks=(CHUNKS,)))
    with pytest.raises(ValueError, match="expected 600 entries"):
        DaskPushBoost(placement="distributed", n_iter=2).fit(Xd, y[:-1])
    with pytest.raises(ValueError, match="sample_weight.*non-negative"):
        DaskPushBoost(placement="distributed", n_iter=2).fit(Xd, yd, sample_weight=-np.ones(X.shape[0]))
    with pytest.raises(TypeError, match="client"):
        DaskPushBoost(placement="distributed", client="tcp://nowhere", n_iter=2).fit(Xd, yd)


BAD_INPUTS = [
    # (id, fit arguments from (X, Xd, y, yd), error type, message pattern)
    ("X 1-D", lambda X, Xd, y, yd: (Xd[:, 0], yd), ValueError, r"X: expected a 2-D array"),
    ("X dask Series", lambda X, Xd, y, yd: (dd.from_dask_array(Xd[:, 0]), yd), ValueError, r"X: .*dask Series"),
    ("X sparse", lambda X, Xd, y, yd: (__import__("scipy.sparse").sparse.csr_matrix(X), y), TypeError,
     r"X: sparse matrices are not supported"),
    ("X strings", lambda X, Xd, y, yd: (da.from_array(np.full(X.shape, "a"), chunks=(CHUNKS, -1)), yd), TypeError,
     r"X \(chunk \d\): expected numbers"),
    ("X empty", lambda X, Xd, y, yd: (da.zeros((0, 3)), da.zeros(0)), ValueError, r"X: expected at least one row"),
    ("X inf", lambda X, Xd, y, yd: (da.from_array(np.where(X > 2.5, np.inf, X), chunks=(CHUNKS, -1)), yd),
     ValueError, r"X \(chunk \d\): expected finite numbers, got infinite"),
    ("y column", lambda X, Xd, y, yd: (Xd, yd[:, None]), ValueError, r"y: expected a 1-D array"),
    ("y NaN", lambda X, Xd, y, yd: (Xd, da.from_array(np.where(np.arange(y.size) == 5, np.nan, y), chunks=(CHUNKS,))),
     ValueError, r"y \(chunk 0\): expected finite labels"),
    ("y one class", lambda X, Xd, y, yd: (Xd, da.ones(y.size, chunks=(CHUNKS,))), ValueError,
     r"y: .*both classes, got only the label \[1.0\]"),
    ("y longer", lambda X, Xd, y, yd: (Xd, da.from_array(np.r_[y, 0], chunks=77)), ValueError,
     r"y: expected 600 entries \(one per row of X\), got 601"),
    ("y None", lambda X, Xd, y, yd: (Xd, None), ValueError, r"requires y to be passed"),
    ("w NaN", lambda X, Xd, y, yd: (Xd, yd, np.where(np.arange(y.size) == 3, np.nan, 1.0)), ValueError,
     r"sample_weight \(chunk 0\): expected finite numbers"),
    ("w zeros", lambda X, Xd, y, yd: (Xd, yd, np.zeros(y.size)), ValueError, r"sample_weight: .*positive total weight"),
    ("w length", lambda X, Xd, y, yd: (Xd, yd, np.ones(5)), ValueError, r"sample_weight: expected 600 entries"),
]


@pytest.mark.parametrize("make, error, pattern", [case[1:] for case in BAD_INPUTS], ids=[c[0] for c in BAD_INPUTS])
def test_dask_fit_rejects_bad_input_clearly(dask_client, make, error, pattern):
    X, y = _data(seed=16)
    Xd, yd, _ = _dask(X, y)
    with pytest.raises(error, match=pattern):
        DaskPushBoost(placement="distributed", n_iter=2).fit(*make(X, Xd, y, yd))


def test_dask_fit_accepts_labels_chunked_differently_from_X(dask_client):
    """y with other chunks than X (and a NumPy sample_weight) is re-chunked like X: the same model."""
    X, y = _data(seed=17)
    Xd, yd, _ = _dask(X, y)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=y.size)
    edges = bin_edges(X, max_bins=16)
    model = DaskPushBoost(placement="distributed",
                          n_iter=6, thresholds=edges).fit(Xd, da.from_array(y, chunks=77), sample_weight=w)
    reference = DaskPushBoost(placement="distributed",
                              n_iter=6, thresholds=edges).fit(Xd, yd, sample_weight=da.from_array(w, chunks=(CHUNKS,)))
    local = rankcore.PushBoost(n_iter=6, thresholds=edges).fit(X, y, sample_weight=w)
    _assert_same_fit(model, local, Xd, X)
    _assert_same_fit(reference, local, Xd, X)


def test_dask_prediction_rejects_bad_input(dask_client):
    X, y = _data(seed=18)
    Xd, yd, _ = _dask(X, y)
    with pytest.raises(Exception, match="not fitted"):
        DaskPushBoost(placement="distributed").decision_function(Xd)
    model = DaskPushBoost(placement="distributed", n_iter=2, thresholds=bin_edges(X, max_bins=8)).fit(Xd, yd)
    with pytest.raises(ValueError, match=r"X: expected 5 features \(as in fit\), got 3"):
        model.decision_function(Xd[:, :3])
    with pytest.raises(ValueError, match="X: expected a 2-D array"):
        model.decision_function(Xd[:, 0])
    with pytest.raises(ValueError, match="features"):
        model.decision_function(X[:, :2])                   # NumPy input: the in-memory checks
    with pytest.raises(ValueError, match=r"y: expected labels among the training classes"):
        model.score(Xd, da.from_array(y * 3, chunks=(CHUNKS,))).__float__()


def test_dask_callbacks_see_every_iteration_and_can_stop(dask_client):
    """fit(callbacks=...) as in memory: the same IterationInfo sequence, and a truthy return stops the fit."""
    X, y = _data(seed=19)
    Xd, yd, _ = _dask(X, y)
    edges = bin_edges(X, max_bins=16)
    seen, seen_local = [], []
    model = DaskPushBoost(placement="distributed", n_iter=8, thresholds=edges).fit(Xd, yd, callbacks=seen.append)
    rankcore.PushBoost(n_iter=8, thresholds=edges).fit(X, y, callbacks=[seen_local.append])
    assert [i.iteration for i in seen] == list(range(1, 9))
    assert [i.ranker for i in seen] == [i.ranker for i in seen_local] == model.rankers_
    np.testing.assert_allclose([i.alpha for i in seen], [i.alpha for i in seen_local], rtol=1e-9)
    stopped = DaskPushBoost(placement="distributed", n_iter=8, thresholds=edges).fit(
        Xd, yd, callbacks=lambda info: "budget" if info.iteration == 3 else None)
    assert stopped.n_iter_ == 3 and stopped.stop_reason_ == "budget"
    with pytest.raises(TypeError, match="callbacks"):
        DaskPushBoost(placement="distributed", n_iter=2).fit(Xd, yd, callbacks=3)


def test_dask_refuses_objectives_that_start_from_tie_break_offsets(dask_client):
    """A non-smooth objective (tie_break_scale > 0) starts from per-row offsets in memory: refused on Dask."""
    from rankcore.rkhs._objective import MagnitudePreservingSquared

    class TiedSquared(MagnitudePreservingSquared):
        name = "test-tied-squared"
        aliases = ()
        tie_break_scale = 0.1

    with components_registered("rankcore_register_objectives", [TiedSquared], "dask-test-tied"):
        X, y = _data(seed=20, graded=True)
        Xd, yd, _ = _dask(X, y)
        with pytest.raises(ValueError, match="test-tied-squared.*cannot be boosted on Dask.*tie_break_scale"):
            DaskPushBoost(placement="distributed", objective="test-tied-squared", n_iter=2).fit(Xd, yd)


def test_dask_plugin_learner_subclass_inherits_the_distributed_preparation(dask_client):
    """A runtime plugin subclassing stumps declares nothing: it inherits prepare_distributed and fits on Dask."""
    from rankcore.learners import Stumps

    class MyStumps(Stumps):
        name = "my-stumps"
        aliases = ()

    with components_registered("rankcore_register_learners", [MyStumps], "dask-test-learner"):
        X, y = _data(seed=12)
        Xd, yd, _ = _dask(X, y)
        model = DaskPushBoost(placement="distributed",
                              learner="my-stumps:max_bins=16", n_iter=5, random_state=3).fit(Xd, yd)
        local = rankcore.PushBoost(learner="my-stumps:max_bins=16", n_iter=5, random_state=3).fit(X, y)
        assert model.fit_info_["path"] == "fast"
        _assert_same_fit(model, local, Xd, X)


# --------------------------------------------------------------------------
# scikit-learn conventions
# --------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [DaskPushBoost, DaskPNormPush, DaskRankBoost])
def test_dask_estimators_follow_scikit_learn_parameter_conventions(cls):
    """The parameter checks of check_estimator (fitting checks need NumPy-only estimators; see docs/dask.md)."""
    from sklearn.base import clone
    from sklearn.utils import estimator_checks as checks

    est = cls()
    for check in (checks.check_parameters_default_constructible, checks.check_no_attributes_set_in_init,
                  checks.check_get_params_invariance, checks.check_set_params):
        check(cls.__name__, est)
    assert "client" in est.get_params()
    assert clone(cls(n_iter=3)).get_params()["n_iter"] == 3


def test_dask_estimator_pickles_without_its_client(dask_client):
    import pickle

    X, y = _data(seed=13)
    Xd, yd, _ = _dask(X, y)
    model = DaskPushBoost(placement="distributed",
                          client=dask_client, n_iter=3, thresholds=bin_edges(X, max_bins=8)).fit(Xd, yd)
    again = pickle.loads(pickle.dumps(model))
    assert again.client is None and model.client is dask_client
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    from sklearn.base import clone

    twin = clone(model)
    assert twin.client is dask_client and twin.get_params()["n_iter"] == 3 and not hasattr(twin, "rankers_")


@pytest.mark.parametrize("params", [dict(price="pow:4"), dict(loss="hinge", price="identity")],
                         ids=["fast", "pairwise"])
def test_dask_training_scores_on_the_workers_equal_the_in_memory_scores(dask_client, params):
    """The scores the shards keep (rows sorted by label inside each block) are the in-memory training scores."""
    from rankcore.push._backend import InMemoryBackend
    from rankcore.push._driver import run_boosting
    from rankcore.registry import resolve

    X, y = _data(seed=14)
    Xd, yd, _ = _dask(X, y)
    edges = bin_edges(X, max_bins=16)
    session = DaskPushBoost(placement="distributed", n_iter=5, thresholds=edges, **params)._start(Xd, yd, None, None)
    try:
        run_boosting(session.backend, session.layout, n_iter=5, log_value=True)
        chunks = session.backend.training_scores()
    finally:
        session.close()
    assert [index for index, _ in chunks] == list(range(len(CHUNKS)))
    objective = DaskPushBoost(placement="distributed", **params)._setup_record().objective
    layout = resolve("learner", "stumps").prepare(X, thresholds=edges)
    y8 = y.astype(np.int8)
    local = InMemoryBackend(objective.bind(y8), layout, X, y8)
    run_boosting(local, layout, n_iter=5, log_value=True)
    np.testing.assert_allclose(np.concatenate([s for _, s in chunks]), local.scores, rtol=1e-12, atol=1e-12)


def test_dask_runtime_plugin_needs_registering_on_the_workers(dask_client):
    """A plugin loss registered only on the client: a clear error, workers unharmed; registered on both: it fits."""
    from _dask_cluster import register_everywhere, unregister_everywhere
    from _push_plugins import Plugin

    X, y = _data(seed=15, n=300)
    chunks = (100, 37, 163)
    Xd, yd, _ = _dask(X, y, chunks=chunks)
    edges = bin_edges(X, max_bins=8)
    with plugin_registered(Plugin(), "dask-client-only"):
        with pytest.raises(ValueError, match="not available on the Dask worker.*register_plugin"):
            DaskPushBoost(placement="distributed", loss="test-pyhinge", n_iter=2, thresholds=edges).fit(Xd, yd)
    assert len(dask_client.scheduler_info()["workers"]) == 2

    register_everywhere(dask_client, "_push_plugins", "Plugin", "dask-everywhere")
    try:
        model = DaskPushBoost(placement="distributed",
                              loss="test-pyhinge", price="pow:2", n_iter=4, thresholds=edges).fit(Xd, yd)
        local = rankcore.PushBoost(loss="test-pyhinge", price="pow:2", n_iter=4, thresholds=edges).fit(X, y)
        assert model.fit_info_["path"] == "pairwise"
        _assert_same_fit(model, local, Xd, X)
    finally:
        unregister_everywhere(dask_client, "dask-everywhere")


def test_dask_lazy_scores_that_overflow_raise_when_computed(dask_client):
    X, y = _data(seed=2)
    Xd, yd, _ = _dask(X, y)
    model = DaskRankBoost(placement="distributed", n_iter=4).fit(Xd, yd)
    model.alphas_ = np.full_like(model.alphas_, 1e308)      # as a model file may hold
    with pytest.raises(FloatingPointError, match="Dask chunk.*overflowed"):
        model.decision_function(Xd * 1e10).compute()


def test_dask_long_steps_on_separable_rows_are_searched_on_the_scores(dask_client):
    """Ten rows the stumps separate: the line read from the shards' gradients is checked at the step it
    chooses, as in memory, so the objective never rises and the model is the in-memory one."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 3))
    y = (rng.random(10) < 0.4).astype(int)
    y[0], y[-1] = 0, 1
    Xd, yd, _ = _dask(X, y, chunks=(4, 6))
    edges = bin_edges(X, max_bins=32)
    model = DaskPNormPush(placement="distributed", p=4, n_iter=8, thresholds=edges).fit(Xd, yd)
    local = rankcore.PNormPush(p=4, n_iter=8, thresholds=edges).fit(X, y)
    assert model.fit_info_["path"] == "fast"
    values = model.objective_values_
    assert np.all(np.diff(values) <= 1e-9 * np.maximum(1.0, np.abs(values[1:])))
    assert model.rankers_ == local.rankers_
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    np.testing.assert_allclose(model.objective_values_, local.objective_values_, rtol=1e-9)

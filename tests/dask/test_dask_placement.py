"""Where a Dask fit runs (``placement``), and fits that do not depend on where the chunks were computed.

On the shared 2-worker LocalCluster: a fit on one worker is the in-memory
fit bit for bit (one list, within queries, with ``eval_set`` and early
stopping); ``"auto"`` follows the cost rule of ``rankcore.dask._placement``;
and a distributed fit gives the same model bit for bit whichever worker
computed which chunk.  No part of Dask is mocked.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask._placement import (HISTOGRAM_SECONDS, MESSAGE_SECONDS, ONE_WORKER_MEMORY_SHARE,  # noqa: E402
                                      choose_placement, messages_per_iteration, one_worker_bytes)
from rankcore.dask._shard import contiguous_shares, place_shares  # noqa: E402
from rankcore.registry import resolve  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _query_data import graded_queries  # noqa: E402

CHUNKS = (100, 37, 200, 163, 100)
TREES = "trees:max_leaves=6,min_samples_leaf=5"


def _data(n=600, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, 3] = np.round(X[:, 3], 1)                      # a feature with ties
    y = (rng.random(n) < 0.2).astype(int)
    X[y == 1, :2] += 0.7
    return X, y


def _dask(X, y, chunks=CHUNKS):
    return da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,))


def _assert_identical(a, b, X):
    assert a.n_iter_ == b.n_iter_ and len(a.rankers_) == len(b.rankers_)
    for ra, rb in zip(a.rankers_, b.rankers_):
        for field in ("feature", "threshold", "nan_left", "left", "right", "value"):
            np.testing.assert_array_equal(getattr(ra, field), getattr(rb, field))
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    np.testing.assert_array_equal(a.objective_values_, b.objective_values_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


# --------------------------------------------------------------------------
# One worker: the in-memory fit
# --------------------------------------------------------------------------

def test_a_fit_on_one_worker_is_the_in_memory_fit_bit_for_bit(dask_client):  # noqa: F811
    X, y = _data()
    w = np.random.default_rng(1).uniform(0.5, 2.0, y.shape[0])
    Xd, yd = _dask(X, y)
    params = dict(learner=TREES, n_iter=6, random_state=4, early_stopping=False)
    model = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd, sample_weight=da.from_array(w, chunks=CHUNKS))
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, sample_weight=w)
    _assert_identical(model, local, X)
    info = model.fit_info_
    assert (info["placement"], info["placement_reason"], info["round_trips"]) == ("one_worker", "requested", 1)
    assert info["worker"] in dask_client.scheduler_info()["workers"]
    np.testing.assert_array_equal(model.decision_function(Xd).compute(), local.decision_function(X))
    assert type(model.to_local()) is rankcore.PushBoost


def test_one_worker_within_queries_with_eval_set_and_early_stopping(dask_client):  # noqa: F811
    X, y, qid = graded_queries(3, n_queries=40, rows=(6, 14))
    n = X.shape[0]
    cut = (n * 3) // 4
    Xd, yd, qd = (da.from_array(a[:cut], chunks=(cut // 3 + 1, -1) if a.ndim == 2 else cut // 3 + 1)
                  for a in (X, y, qid))
    params = dict(learner=TREES, n_iter=30, random_state=0, early_stopping=True, n_iter_no_change=2)
    eval_set = (X[cut:], y[cut:], qid[cut:])
    model = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd, qid=qd, eval_set=eval_set)
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X[:cut], y[:cut], qid=qid[:cut], eval_set=eval_set)
    _assert_identical(model, local, X)
    np.testing.assert_array_equal(model.validation_scores_, local.validation_scores_)
    assert (model.best_iteration_, model.stop_reason_, model.n_queries_) == (local.best_iteration_,
                                                                             local.stop_reason_, local.n_queries_)
    # the distributed placement keeps the queries whole too: the same trees, to rounding (eval_set in LightGBM's
    # list form: the same one set)
    spread = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd, eval_set=[eval_set])
    assert spread.fit_info_["placement"] == "distributed" and spread.n_iter_ == model.n_iter_
    np.testing.assert_allclose(spread.decision_function(X), model.decision_function(X), rtol=1e-9, atol=1e-9)


def test_one_worker_checks_chunks_as_the_distributed_fit_does(dask_client):  # noqa: F811
    X, y = _data(n=400)
    X[123, 2] = np.nan
    Xd, yd = _dask(X, y, chunks=(100,) * 4)
    with pytest.raises(ValueError, match=r"X \(chunk 1\): missing values \(NaN\) are not supported on Dask"):
        DaskPushBoost(placement="one_worker", learner=TREES, n_iter=2).fit(Xd, yd)


def test_placement_is_validated_and_one_worker_refuses_callbacks(dask_client):  # noqa: F811
    X, y = _data(n=200)
    Xd, yd = _dask(X, y, chunks=(100, 100))
    with pytest.raises(ValueError, match="placement: expected one of 'auto', 'distributed', 'one_worker', got 'two'"):
        DaskPushBoost(placement="two", n_iter=2).fit(Xd, yd)
    with pytest.raises(ValueError, match="placement='one_worker': callbacks run on the client"):
        DaskPushBoost(placement="one_worker", n_iter=2).fit(Xd, yd, callbacks=lambda info: None)
    # "auto" with callbacks: distributed, the callbacks called on the client
    seen = []
    model = DaskPushBoost(n_iter=2, learner="stumps:max_bins=8").fit(Xd, yd, callbacks=seen.append)
    assert model.fit_info_["placement"] == "distributed" and len(seen) == 2
    assert "callbacks" in model.fit_info_["placement_reason"]


def test_auto_runs_a_small_fit_on_one_worker(dask_client):  # noqa: F811
    X, y = _data()
    Xd, yd = _dask(X, y)
    model = DaskPushBoost(learner=TREES, n_iter=3, random_state=0).fit(Xd, yd)
    assert model.fit_info_["placement"] == "one_worker"
    assert "would save" in model.fit_info_["placement_reason"]
    assert "placement" not in model.to_local().get_params()



def test_auto_counts_the_bytes_of_query_ids_positions_and_initial_scores(dask_client, monkeypatch):  # noqa: F811
    import rankcore.dask._estimators as estimators

    seen = []

    def spy(requested, **kwargs):
        seen.append(kwargs["data_bytes"])
        return choose_placement(requested, **kwargs)

    monkeypatch.setattr(estimators, "choose_placement", spy)
    X, y = _data()
    Xd, yd = _dask(X, y)
    n = X.shape[0]
    qid = np.repeat(np.arange(n // 20), 20)
    DaskPushBoost(learner=TREES, n_iter=2, random_state=0).fit(Xd, yd)
    places = np.tile(np.arange(20), n // 20)
    DaskPushBoost(learner=TREES, n_iter=2, random_state=0).fit(Xd, yd, qid=qid, position=places, init_score=np.zeros(n))
    plain, within = seen
    assert plain == X.nbytes + yd.nbytes
    assert within == plain + 3 * 8 * n                  # qid, positions, initial scores: 8 bytes a row each


# --------------------------------------------------------------------------
# The rule
# --------------------------------------------------------------------------

WORKERS = {"a": {"nthreads": 1, "memory_limit": 2**33}, "b": {"nthreads": 1, "memory_limit": 2**33}}


def _choose(n, d=40, learner="trees", workers=WORKERS, callbacks=False, requested="auto", not_distributed=None):
    return choose_placement(requested, n_rows=n, n_features=d, data_bytes=n * (d + 1) * 4,
                            learner=resolve("learner", learner), workers=workers, callbacks=callbacks,
                            not_distributed=not_distributed)


def test_the_auto_rule_is_the_crossover_of_the_cost_model():
    m = messages_per_iteration(resolve("learner", "trees"))
    assert m == pytest.approx(1 + 11.7)                      # leaf-wise, 31 leaves: the measured passes
    assert messages_per_iteration(resolve("learner", "trees:growth=depthwise")) == 7      # root + 5 levels + client
    assert messages_per_iteration(resolve("learner", "stumps")) == 1
    # the crossover n*: the second worker saves n·d·H/2 per tree, the messages cost m·C
    crossover = m * MESSAGE_SECONDS / (40 * HISTOGRAM_SECONDS * 0.5)
    assert _choose(int(crossover * 0.99)).kind == "one_worker"
    assert _choose(int(crossover * 1.01) + 1).kind == "distributed"
    # more threads per worker make the histograms cheaper: the crossover moves up
    two_threads = {k: dict(v, nthreads=2) for k, v in WORKERS.items()}
    assert _choose(int(crossover * 1.5), workers=two_threads).kind == "one_worker"
    # fewer messages (depth-wise) move it down
    assert _choose(int(crossover * 0.9), learner="trees:growth=depthwise").kind == "distributed"


def test_the_auto_rule_needs_the_rows_to_fit_in_a_worker_and_no_callbacks():
    n = 1000
    need = one_worker_bytes(n, 40, n * 41 * 4)
    small = {k: dict(v, memory_limit=int(need / ONE_WORKER_MEMORY_SHARE) - 1) for k, v in WORKERS.items()}
    placement = _choose(n, workers=small)
    assert placement.kind == "distributed" and "memory limit" in placement.reason
    enough = {k: dict(v, memory_limit=int(need / ONE_WORKER_MEMORY_SHARE) + 1) for k, v in WORKERS.items()}
    assert _choose(n, workers=enough).kind == "one_worker"
    assert _choose(n, callbacks=True).kind == "distributed"
    assert _choose(10**9, workers={"a": WORKERS["a"]}).kind == "one_worker"          # a cluster of one worker
    assert _choose(10, requested="distributed").kind == "distributed"
    assert _choose(10**9, requested="one_worker").reason == "requested"
    with pytest.raises(ValueError, match="placement: expected one of"):
        _choose(10, requested="everywhere")


def test_the_auto_rule_fits_on_one_worker_what_a_distributed_fit_cannot_take():
    # any size that fits a worker goes there, even one the cost rule would spread; callbacks or rows too many
    # for one worker stay distributed (the estimator then raises the reason)
    crossover = messages_per_iteration(resolve("learner", "trees")) * MESSAGE_SECONDS / (20 * HISTOGRAM_SECONDS)
    spread = _choose(int(crossover * 2))
    assert spread.kind == "distributed" and "memory" not in spread.reason       # the cost rule would spread it
    placement = _choose(int(crossover * 2), not_distributed="no distributed form")
    assert placement.kind == "one_worker"
    assert placement.reason == "a distributed fit cannot take it (no distributed form)"
    assert _choose(10, not_distributed="x", callbacks=True).kind == "distributed"
    need = one_worker_bytes(1000, 40, 1000 * 41 * 4)
    small = {k: dict(v, memory_limit=int(need / ONE_WORKER_MEMORY_SHARE) - 1) for k, v in WORKERS.items()}
    assert _choose(1000, workers=small, not_distributed="x").kind == "distributed"
    assert _choose(10, requested="distributed", not_distributed="x").kind == "distributed"


def test_what_only_a_fit_in_memory_takes_runs_on_one_worker(dask_client):  # noqa: F811
    # QueryRMSE alone within queries and the internal early-stopping split have no distributed form: the fit on
    # one worker (requested, or chosen by "auto") is the in-memory fit; a distributed placement says so
    X, y, qid = graded_queries(5, n_queries=30, rows=(6, 14))
    Xd, yd, qd = (da.from_array(a, chunks=(100, -1) if a.ndim == 2 else 100) for a in (X, y, qid))
    params = dict(objective="mp-squared", learner=TREES, n_iter=5, random_state=0)
    local = rankcore.PushBoost(n_jobs=1, **params).fit(X, y, qid=qid)
    for placement in ("one_worker", "auto"):
        model = DaskPushBoost(placement=placement, **params).fit(Xd, yd, qid=qd)
        _assert_identical(model, local, X)
    assert model.fit_info_["placement_reason"].startswith("a distributed fit cannot take it (objective 'mp-squared'")
    with pytest.raises(ValueError, match=r"objective 'mp-squared': within queries on blocks, .*\(placement="
                                         r"'one_worker' fits it in memory on one worker\)"):
        DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
    X1, y1 = _data(n=300)
    X1d, y1d = _dask(X1, y1, chunks=(150, 150))
    stopped = dict(learner=TREES, n_iter=20, random_state=0, early_stopping=True)
    model = DaskPushBoost(placement="auto", **stopped).fit(X1d, y1d)
    _assert_identical(model, rankcore.PushBoost(n_jobs=1, **stopped).fit(X1, y1), X1)
    # trees with a pairwise loss: refused by the distributed path before any data is read, fitted on one worker
    pairwise = dict(learner=TREES, loss="logistic", n_iter=4, random_state=0)
    model = DaskPushBoost(placement="auto", **pairwise).fit(X1d, y1d)
    assert model.fit_info_["placement_reason"].startswith("a distributed fit cannot take it (learner with a multi")
    _assert_identical(model, rankcore.PushBoost(n_jobs=1, **pairwise).fit(X1, y1), X1)
    with pytest.raises(ValueError, match=r"the pairwise Dask path searches single-pass learners only.*\(placement="
                                         r"'one_worker' fits it in memory on one worker\)"):
        DaskPushBoost(placement="distributed", **pairwise).fit(X1d, y1d)


# --------------------------------------------------------------------------
# Determinism: the blocks' shares do not depend on where the chunks were computed
# --------------------------------------------------------------------------

def test_contiguous_shares_are_balanced_runs_and_place_shares_keeps_them_where_they_are():
    assert contiguous_shares([150] * 4, 2) == [0, 0, 1, 1]
    shares = contiguous_shares(list(CHUNKS), 3)
    assert shares == sorted(shares) and set(shares) == {0, 1, 2}
    loads = [sum(r for r, s in zip(CHUNKS, shares) if s == k) for k in range(3)]
    assert max(loads) <= sum(CHUNKS) / 3 + max(CHUNKS)
    assert contiguous_shares([5], 1) == [0]
    # each share on the worker holding most of it, each worker once
    assert place_shares([150] * 4, [0, 0, 1, 1], ["b", "b", "a", "b"], ["a", "b"]) == ["b", "a"]
    assert place_shares([150] * 4, [0, 0, 1, 1], ["gone"] * 4, ["a", "b", "c"]) == ["a", "b"]


def _on_workers(client, arrays, workers):
    """Chunk i of each array persisted on ``workers[i]`` (Dask arrays, one chunk each, concatenated)."""
    from distributed import wait

    out = []
    for a in arrays:
        parts = []
        for i, worker in enumerate(workers):
            part = da.from_array(a[i * 150:(i + 1) * 150], chunks=-1)
            parts.append(client.persist(part, workers=[worker]))
        wait(parts)
        out.append(da.concatenate(parts))
    return out


def test_a_distributed_fit_does_not_depend_on_where_each_chunk_was_computed(dask_client):  # noqa: F811
    X, y = _data(seed=5)
    a, b = sorted(dask_client.scheduler_info()["workers"])
    params = dict(placement="distributed", learner=TREES, n_iter=4, random_state=1, early_stopping=False)
    fits = []
    for holders in ([a, b, a, b], [a, a, a, a], [b, a, b, a]):     # interleaved, on one worker, swapped
        Xd, yd = _on_workers(dask_client, [X, y], holders)
        fits.append(DaskPushBoost(**params).fit(Xd, yd))
    for other in fits[1:]:
        _assert_identical(other, fits[0], X)


# --------------------------------------------------------------------------
# The workers' allocator: freed pages kept during a fit, Dask's settings given back after
# --------------------------------------------------------------------------

def _pages_held():
    from rankcore.dask import _malloc

    return _malloc._holders


def test_keep_pages_nests_and_is_a_no_op_outside_dask_workers(monkeypatch):
    from rankcore.dask import _malloc

    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    assert _malloc.keep_pages() is False and _malloc._holders == 0
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    if _malloc._libc() is None:
        pytest.skip("not glibc: mallopt is not available")
    with _malloc.pages_kept():
        with _malloc.pages_kept():
            assert _malloc._holders == 2
        assert _malloc._holders == 1
    assert _malloc._holders == 0
    _malloc.release_pages()                              # one release too many changes nothing
    assert _malloc._holders == 0


def test_every_fit_gives_the_workers_allocator_settings_back(dask_client):  # noqa: F811
    X, y = _data(n=400)
    Xd, yd = _dask(X, y, chunks=(100,) * 4)
    for placement in ("distributed", "one_worker"):
        DaskPushBoost(placement=placement, learner=TREES, n_iter=2).fit(Xd, yd)
        assert set(dask_client.run(_pages_held).values()) == {0}


def _fit_probe_on_one_worker(client, probe):
    """``fit_on_one_worker`` of a probe estimator defined in this module on ``_data()``'s rows in chunks;
    (the fitted probe, X, the chunked X and y)."""
    import cloudpickle

    from rankcore.dask._inputs import as_row_chunks
    from rankcore.dask._placement import fit_on_one_worker

    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # the probe class travels by value
    try:
        X, y = _data()
        Xd, yd = _dask(X, y)
        fitted, _, _ = fit_on_one_worker(client, probe, as_row_chunks(Xd, yd), "bipartite", fit_kwargs={})
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    return fitted, X, Xd, yd


class _MemoryProbe:
    """An estimator whose fit records which of the fit's input keys its worker holds meanwhile."""

    def get_params(self, deep=False):
        return {}

    def fit(self, X, y, sample_weight=None, qid=None):
        from distributed import get_worker

        self.held_ = sorted(str(key) for key in get_worker().data.keys())
        self.rows_ = X.shape[0]
        return self


def test_a_fit_on_one_worker_holds_the_concatenated_rows_not_the_chunks(dask_client):  # noqa: F811
    # the chunks feed the gathering tasks; once each ends nothing holds its chunks, so the fit's
    # worker keeps one copy of the rows (the gathered array), not the chunks beside it
    fitted, X, Xd, yd = _fit_probe_on_one_worker(dask_client, _MemoryProbe())
    assert fitted.rows_ == X.shape[0]
    chunk_names = {Xd.name, yd.name}
    assert not [key for key in fitted.held_ if any(name in key for name in chunk_names)], fitted.held_
    # the rows are gathered in steps (GATHER_STEPS): only the last step's result, the rows, is held
    assert len([key for key in fitted.held_ if "_rows_into" in key]) == 1, fitted.held_


class _RowsProbe:
    """An estimator with ``_fit_rows``: records whether anything but its own list references X during the fit."""

    def get_params(self, deep=False):
        return {}

    def _fit_rows(self, rows, qid=None):
        import gc
        import weakref

        from distributed import get_worker

        X = rows[0]
        rows.clear()
        self.rows_ = X.shape[0]
        ref = weakref.ref(X)
        del X
        gc.collect()
        self.freed_ = ref() is None          # not in the worker's memory, nor in _fit_here's frame
        self.stored_ = [len(value) for key, value in get_worker().data.items() if "_rows_" in str(key)]
        return self


def test_a_fit_on_one_worker_lets_the_estimator_free_the_rows(dask_client):  # noqa: F811
    # Dask keeps _rows_here's result in the worker's memory while the fit runs: _fit_here empties it and hands
    # the rows over in a list of their own, so an estimator that lets go of X frees it
    fitted, X, _, _ = _fit_probe_on_one_worker(dask_client, _RowsProbe())
    assert fitted.rows_ == X.shape[0]
    assert fitted.stored_ == [0]            # the stored result is the emptied list
    assert fitted.freed_


def _watch_rows(install: bool):
    """On a worker: record, when the trees start, whether the rows the gather made are still alive."""
    import gc
    import weakref

    import rankcore.dask._placement as placement
    import rankcore.push._boost_base as estimators

    names = ("_rows_here", "_rows_into")
    if not install:
        *gathers, estimators.run_boosting = placement.__dict__.pop("_watched")
        for name, gather in zip(names, gathers):
            setattr(placement, name, gather)
        return placement.__dict__.pop("_rows_alive")
    refs, alive = [], []

    def watched(gather):
        def gather_and_watch(*args, **kwargs):
            rows = gather(*args, **kwargs)
            if len(rows) == 6:                     # the gathered [X, y, w, qid, position, init]
                refs.append(weakref.ref(rows[0]))
            return rows
        return gather_and_watch

    boosting = estimators.run_boosting

    def watched_boosting(*args, **kwargs):
        gc.collect()
        alive.append([ref() is not None for ref in refs])
        return boosting(*args, **kwargs)

    placement._watched = (*(getattr(placement, name) for name in names), boosting)
    placement._rows_alive = alive
    for name in names:
        setattr(placement, name, watched(getattr(placement, name)))
    estimators.run_boosting = watched_boosting
    return None


@pytest.mark.parametrize("early_stopping", [False, "auto"], ids=["plain", "holdout"])
def test_a_fit_on_one_worker_frees_the_rows_once_they_are_encoded(dask_client, early_stopping):  # noqa: F811
    # the in-memory fit reads only the codes once the rows are encoded; on one worker nothing else holds X,
    # so the trees run without it (16 MB at 10^5 x 40 float32 rows) -- and the model is the in-memory one
    X, y = _data(n=12_000, d=4)                  # "auto" holds rows out above 10,000 rows
    Xd, yd = _dask(X, y, chunks=(3000,) * 4)
    params = dict(learner=TREES, n_iter=3, random_state=2, early_stopping=early_stopping)
    dask_client.run(_watch_rows, True)
    try:
        model = DaskPushBoost(placement="one_worker", **params).fit(Xd, yd)
    finally:
        alive = dask_client.run(_watch_rows, False)
    assert alive[model.fit_info_["worker"]] == [[False]]
    _assert_identical(model, rankcore.PushBoost(n_jobs=1, **params).fit(X, y), X)


def _gathered_in_steps(chunks, steps, n_rows, q=None):
    from rankcore.dask._placement import _rows_into

    bounds = [round(len(chunks) * s / steps) for s in range(steps + 1)]
    rows = None
    for s, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        part = chunks[a:b]
        rows = _rows_into(rows, "bipartite", n_rows, a, [c[0] for c in part], [c[1] for c in part],
                          [c[2] for c in part], None if q is None else q[a:b], s == steps - 1)
    return rows


@pytest.mark.parametrize("steps", [1, 2, 3, 7])
@pytest.mark.parametrize("dtypes", ["float32", "float64", "mixed"])
@pytest.mark.parametrize("weights", [False, True], ids=["unweighted", "weighted"])
def test_rows_gathered_in_steps_are_the_concatenation_bit_for_bit(steps, dtypes, weights):
    # the one-worker fit copies the chunks into one array a few chunks per task (so that Dask frees each group
    # once copied); the reference is _rows_here's np.concatenate, with ties, an empty chunk and mixed dtypes
    from rankcore.dask._placement import _rows_here

    rng = np.random.default_rng(steps)
    sizes = (5, 0, 13, 1, 8, 21, 2)
    chunks, q = [], []
    for i, n in enumerate(sizes):
        X = np.round(rng.normal(size=(n, 3)), 1)             # ties
        dtype = {"float32": np.float32, "float64": np.float64}.get(dtypes, np.float32 if i != 4 else np.float64)
        w = rng.uniform(0.5, 2.0, n) if weights else None
        chunks.append((X.astype(dtype), rng.integers(0, 2, n), w))
        q.append(rng.integers(0, 3, n))
    n_rows = sum(sizes)
    got = _gathered_in_steps(chunks, steps, n_rows, q)
    want = _rows_here("bipartite", [c[0] for c in chunks], [c[1] for c in chunks], [c[2] for c in chunks], q)
    assert got[0].dtype == want[0].dtype == (np.float64 if dtypes != "float32" else np.float32)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
        assert (a is None) == (b is None)


def test_rows_gathered_in_steps_refuse_chunks_that_disagree_with_the_sizes():
    X = np.zeros((4, 2), dtype=np.float32)
    chunk = (X, np.zeros(4, dtype=int), None)
    with pytest.raises(ValueError, match=r"X \(chunk 1\): expected 2 columns and at most 2 more rows"):
        _gathered_in_steps([chunk, chunk], 2, 6)
    with pytest.raises(ValueError, match="expected 10 rows"):
        _gathered_in_steps([chunk, chunk], 2, 10)
    with pytest.raises(ValueError, match=r"X \(chunk 0\)"):       # checked as the distributed fit checks
        _gathered_in_steps([(np.full((4, 2), np.inf), chunk[1], None)], 1, 4)


def test_a_cluster_of_one_worker_still_calls_the_callbacks():
    # the one-worker rule came first: a fit with callbacks on a cluster of one worker ran the in-memory fit there,
    # which never calls them -- a logger saw nothing, a stopper never stopped, an exception was never raised
    placement = _choose(10, workers={"a": WORKERS["a"]}, callbacks=True)
    assert placement.kind == "distributed" and "callbacks" in placement.reason
    assert _choose(10, workers={"a": WORKERS["a"]}).kind == "one_worker"

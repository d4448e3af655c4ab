"""The ``trees`` learner's in-memory grower (one native call per tree) against the multi-pass protocol.

Both routes must give the same trees bit for bit: the protocol (``begin_search`` / ``block_pass`` /
``TreeSearch``) is the public contract that Dask and plugins use, the grower is its fast twin for
rows held in memory.  The protocol route itself is checked against an exact NumPy reference builder
in ``test_learners_trees.py``.
"""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners._base import multi_pass_search
from rankcore.push._backend import InMemoryBackend
from rankcore.push._driver import run_boosting
from rankcore.registry import resolve
from _tree_references import route_statistics


def _data(seed, n=500, d=6, nan_fraction=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] = np.round(X[:, 0], 1)                      # ties
    if d > 1:
        X[: n // 4, 1] = 0.0
    if d > 2:
        X[:, 2] = rng.integers(0, 3, n)                 # few distinct values
    if d > 3:
        X[:, 3] = 1.0                                   # a constant feature (no edges)
    if nan_fraction:
        X[rng.random((n, d)) < nan_fraction] = np.nan
    return X


def _tree_state(candidate):
    if candidate is None:
        return None
    r = candidate.ranker
    arrays = (r.feature, r.threshold, r.nan_left, r.left, r.right, r.value, r.gain, r.bins)
    return tuple(a.tobytes() for a in arrays) + (np.float64(candidate.derivative).tobytes(),)


def _both_routes(spec, X, gradients, curvatures, *, seed=0, n_threads=1):
    """Trees of consecutive searches by the native route and by the protocol, on one block each."""
    learner = resolve("learner", spec)
    native = learner.prepare(X, random_state=seed, n_threads=n_threads)
    protocol = learner.prepare(X, random_state=seed, n_threads=n_threads)
    block_n, block_p = native.encode(X), protocol.encode(X)
    out = []
    for g, h in zip(gradients, curvatures):
        a = native.search_in_memory([block_n], [g], [h], n_threads=n_threads)
        b = multi_pass_search(protocol, [block_p], [g], [h], n_threads=n_threads)
        out.append((a, b))
        if a is not None:
            # the training rows' values read from the grower equal the tree's prediction
            np.testing.assert_array_equal(native.evaluate(a.ranker, block_n), a.ranker.predict(X))
            # ... and so does each row's recorded position among the tree's distinct values
            position = native.value_index(a.ranker, block_n)
            assert position is not None and position.dtype == np.uint8
            np.testing.assert_array_equal(np.asarray(a.ranker.values)[position], a.ranker.predict(X))
            np.testing.assert_array_equal(protocol.evaluate(b.ranker, block_p), b.ranker.predict(X))
    return out


GRID = [
    "trees:subsample=1",
    "trees",                                              # the defaults: subsample=0.8
    "trees:max_leaves=7,max_depth=2,min_samples_leaf=3",
    "trees:max_leaves=63,min_samples_leaf=1,min_child_weight=0",
    "trees:l2=2,min_child_weight=5,subsample=0.5",
    "trees:colsample=0.5,subsample=0.7",
    "trees:max_leaves=2",
    "trees:max_bins=4,min_samples_leaf=40",
    "trees:growth=depthwise,max_leaves=12",
    "trees:growth=depthwise,max_depth=3,subsample=0.6,colsample=0.7",
    "trees:random_strength=1",                            # noise on each node's choice of feature
    "trees:growth=depthwise,max_leaves=12,random_strength=2,colsample=0.7",
    "trees:max_leaves=63,min_samples_leaf=1,random_strength=0.5",
]


@pytest.mark.parametrize("spec", GRID)
@pytest.mark.parametrize("curvature", ["ones", "weights", "hessian"])
def test_native_growth_equals_the_multi_pass_protocol_bitwise(spec, curvature):
    X = _data(3)
    gradients, curvatures = route_statistics(X.shape[0], 4, curvature)
    pairs = _both_routes(spec, X, gradients, curvatures)
    assert any(a is not None for a, _ in pairs)
    for a, b in pairs:
        assert _tree_state(a) == _tree_state(b)


def test_native_growth_does_not_depend_on_threads():
    X = _data(5, n=3000, d=9)
    rng = np.random.default_rng(0)
    g, h = rng.normal(size=X.shape[0]), rng.uniform(0.5, 1.5, X.shape[0])
    one = _both_routes("trees:min_samples_leaf=5,colsample=0.8", X, [g, -g], [h, h], n_threads=1)
    two = _both_routes("trees:min_samples_leaf=5,colsample=0.8", X, [g, -g], [h, h], n_threads=2)
    for (a1, b1), (a2, b2) in zip(one, two):
        assert _tree_state(a1) == _tree_state(a2) == _tree_state(b1) == _tree_state(b2)


@pytest.mark.parametrize("spec", ["trees:max_leaves=63,subsample=1",
                                  "trees:growth=depthwise,max_leaves=15,categorical=2",
                                  "trees:max_leaves=63,subsample=1,random_strength=1"])
def test_native_growth_does_not_depend_on_threads_above_every_parallel_threshold(spec):
    """20,000 rows: the gather, partition, histogram and paired split scan all run on 2 and 3 threads."""
    from rankcore.learners.trees import _histogram

    n = 20_000
    assert n > _histogram.PARALLEL_ROWS
    X = _data(7, n=n, d=12)
    rng = np.random.default_rng(2)
    g, h = rng.normal(size=n), rng.uniform(0.5, 1.5, n)
    states = [[_tree_state(a) for a, _ in _both_routes(spec, X, [g, -g], [h, h], n_threads=t)] for t in (1, 2, 3)]
    assert states[0][0] is not None
    assert states[0] == states[1] == states[2]


def test_early_stopped_trees_do_not_depend_on_threads(exact_threads):
    """early_stopping="auto" (12,000 rows): the same trees and hold-out scores on 1 and 2 threads."""
    exact_threads(2)
    rng = np.random.default_rng(4)
    X = _data(8, n=12_000, d=8)
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=12_000) > 1.2).astype(int)
    fits = [rankcore.boost(learner="trees", n_iter=15, random_state=0, n_jobs=t).fit(X, y) for t in (1, 2)]
    assert fits[0].best_iteration_ >= 1
    assert [r.to_state() for r in fits[0].rankers_] == [r.to_state() for r in fits[1].rankers_]
    np.testing.assert_array_equal(fits[0].alphas_, fits[1].alphas_)
    np.testing.assert_array_equal(fits[0].validation_scores_, fits[1].validation_scores_)


def test_native_growth_without_any_split_returns_none():
    X = np.ones((50, 3))
    rng = np.random.default_rng(1)
    pairs = _both_routes("trees", X, [rng.normal(size=50)], [np.ones(50)])
    assert pairs[0] == (None, None)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 260), st.integers(1, 5), st.sampled_from(GRID))
def test_native_growth_equals_the_protocol_on_random_data(seed, n, d, spec):
    X = _data(seed, n=n, d=d, nan_fraction=0.2)
    rng = np.random.default_rng(seed)
    g = np.round(rng.normal(size=n), 1)                     # many exact ties between candidates
    h = rng.uniform(0.5, 1.5, n)
    for a, b in _both_routes(spec, X, [g, g[::-1].copy()], [h, h], seed=seed):
        assert _tree_state(a) == _tree_state(b)


def _fit(spec, X, y, *, native, w=None, objective="push:exp,pow:2", n_iter=15):
    learner = resolve("learner", spec)
    layout = learner.prepare(X, sample_weight=w, random_state=0, n_threads=2)
    if not native:                          # force the protocol route (what several blocks and Dask use)
        layout.search_in_memory = lambda *a, **k: multi_pass_search(layout, *a, **k)
    problem = resolve("objective", objective).bind(y, w, n_threads=2)
    backend = InMemoryBackend(problem, layout, X, y, w, n_threads=2)
    result = run_boosting(backend, layout, n_iter=n_iter, log_value=True)
    return [(r.alpha, _tree_state_of(r.ranker)) for r in result.records], backend.scores.copy()


def _tree_state_of(ranker):
    return tuple(a.tobytes() for a in (ranker.feature, ranker.threshold, ranker.nan_left, ranker.left,
                                       ranker.right, ranker.value))


@pytest.mark.parametrize("spec", ["trees", "trees:growth=depthwise,colsample=0.6", "trees:max_depth=3,l2=1",
                                  "trees:random_strength=1", "trees:growth=depthwise,random_strength=2"])
@pytest.mark.parametrize("weighted", [False, True])
def test_boosting_by_either_route_gives_the_same_model(spec, weighted):
    X = _data(11, n=700)
    rng = np.random.default_rng(2)
    y = ((np.nan_to_num(X[:, 0]) + rng.normal(size=X.shape[0])) > 0.5).astype(np.int8)
    w = rng.uniform(0.2, 2.0, X.shape[0]) if weighted else None
    recs_n, scores_n = _fit(spec, X, y, native=True, w=w)
    recs_p, scores_p = _fit(spec, X, y, native=False, w=w)
    assert recs_n == recs_p
    np.testing.assert_array_equal(scores_n, scores_p)


def test_estimator_fit_is_unchanged_by_the_route():
    """An estimator's fit (one block: native) equals the protocol's on several blocks' boundaries of one."""
    X = _data(4, n=400)
    y = (np.nan_to_num(X[:, 1]) > 0).astype(int)
    model = rankcore.boost(learner="trees:max_leaves=8", n_iter=10, random_state=0).fit(X, y)
    recs_p, _ = _fit("trees:max_leaves=8", X, y.astype(np.int8), native=False, n_iter=10)
    assert [_tree_state_of(r) for r in model.rankers_] == [s for _, s in recs_p]


def _peak_bytes_of_boosting(spec: str, n: int) -> int:
    """tracemalloc's peak during 8 boosting iterations on n rows, after a warm-up of the same call."""
    import gc
    import tracemalloc

    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 8)).astype(np.float32)
    y = (rng.random(n) < 0.1).astype(np.int8)
    X[y == 1, :3] += 0.3
    layout = resolve("learner", spec).prepare(X, random_state=0)
    backend = InMemoryBackend(resolve("objective", "push:exp,pow:2").bind(y), layout, X, y)
    # the warm-up allocates the fit's buffers (and whatever a process allocates once)
    run_boosting(backend, layout, n_iter=8, log_value=True)
    gc.collect()
    tracemalloc.start()
    try:
        result = run_boosting(backend, layout, n_iter=8, log_value=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.records) == 8
    return peak


ALLOCATION_SPECS = ["trees", "trees:subsample=1", "trees:growth=oblivious"]
ALLOCATION_ROWS = 30_000


@pytest.fixture(scope="module")
def peaks_on_n_and_4n_rows():
    """{spec: (peak on n rows, peak on 4n rows)} of every spec of ALLOCATION_SPECS, or the failed run.

    In a fresh interpreter: tracemalloc counts every thread's arrays, and threads an earlier test left running (a
    fresh CI run once saw peaks grow with the run's duration) are not this fit's allocations.  One interpreter
    measures the specs one after the other: each spec's two peaks are taken back to back, each after its own
    warm-up, so that what the spec before left allocated is in both and cancels as a session's leftovers do.
    """
    n = ALLOCATION_ROWS
    code = ("import sys; sys.path[:0] = sys.argv[1:]; import test_tree_grow as t\n"
            f"for spec in {ALLOCATION_SPECS!r}:\n"
            f"    print(spec, t._peak_bytes_of_boosting(spec, {n}), t._peak_bytes_of_boosting(spec, {4 * n}))")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(Path(__file__).parents[1])],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return done
    return {spec: (int(small), int(large)) for spec, small, large in (line.rsplit(" ", 2)
                                                                      for line in done.stdout.splitlines())}


@pytest.mark.parametrize("spec", ALLOCATION_SPECS)
def test_an_iteration_allocates_nothing_in_proportion_to_the_rows(spec, peaks_on_n_and_4n_rows):
    """After the first iterations (which allocate the fit's buffers), boosting on trees with the exp
    push allocates nothing that grows with n (tracemalloc sees NumPy's arrays).

    Measured as the growth of the peak from n to 4n rows, so that allocations of a fixed size
    (what the rest of a long test session leaves to be redone: caches, warning registries) cancel;
    one array of n float32 per iteration would add 3n·4 bytes.
    """
    n = ALLOCATION_ROWS
    assert isinstance(peaks_on_n_and_4n_rows, dict), peaks_on_n_and_4n_rows.stderr
    small, large = peaks_on_n_and_4n_rows[spec]
    assert large - small < 3 * n, f"peak {small} bytes on {n} rows, {large} on {4 * n}"


@pytest.mark.parametrize("n_threads", [1, 2])
def test_leaf_values_of_many_unsampled_rows_equal_the_prediction(n_threads):
    """Thousands of rows the tree did not sample (they walk it on their codes) next to the sampled ones (read
    from the partition): the values and the value positions are the tree's prediction all the same."""
    X = _data(21, n=9000, d=6)
    rng = np.random.default_rng(3)
    g = rng.normal(size=X.shape[0])
    h = rng.uniform(0.5, 2.0, X.shape[0])
    learner = resolve("learner", "trees:subsample=0.5,max_leaves=40,min_samples_leaf=5")
    layout = learner.prepare(X, random_state=0, n_threads=n_threads)
    block = layout.encode(X)
    candidate = layout.search_in_memory([block], [g], [h], n_threads=n_threads)
    assert candidate is not None and block.grown.n_sampled < X.shape[0] - 2048
    np.testing.assert_array_equal(layout.evaluate(candidate.ranker, block), candidate.ranker.predict(X))
    position = layout.value_index(candidate.ranker, block)
    np.testing.assert_array_equal(np.asarray(candidate.ranker.values)[position], candidate.ranker.predict(X))


def test_trees_with_more_than_255_leaf_values_keep_the_search_route():
    """A row's value position is one byte: beyond 255 distinct leaf values none is recorded, the line
    summary finds each row's value itself, and the model is the protocol's all the same."""
    X = _data(31, n=3000, d=6, nan_fraction=0.0)
    rng = np.random.default_rng(5)
    g = rng.normal(size=X.shape[0])
    h = np.ones(X.shape[0])
    learner = resolve("learner", "trees:max_leaves=400,min_samples_leaf=2,subsample=1")
    layout = learner.prepare(X, random_state=0)
    block = layout.encode(X)
    candidate = layout.search_in_memory([block], [g], [h])
    assert len(candidate.ranker.values) > 255
    np.testing.assert_array_equal(layout.evaluate(candidate.ranker, block), candidate.ranker.predict(X))
    assert layout.value_index(candidate.ranker, block) is None
    y = (rng.random(X.shape[0]) < 0.3).astype(np.int8)
    recs_n, scores_n = _fit("trees:max_leaves=400,min_samples_leaf=2", X, y, native=True, n_iter=3)
    recs_p, scores_p = _fit("trees:max_leaves=400,min_samples_leaf=2", X, y, native=False, n_iter=3)
    assert recs_n == recs_p
    np.testing.assert_array_equal(scores_n, scores_p)

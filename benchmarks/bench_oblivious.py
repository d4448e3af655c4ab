"""Oblivious (symmetric) trees: prediction and fit time beside leaf-wise trees and LightGBM, in the same run.

1. Prediction of n rows × 50 float32 with T trees: ``trees:growth=oblivious``
   (depth 6: 64 leaves, read by bit index), ``trees`` leaf-wise (31 leaves)
   and LightGBM (31 leaves, ``Booster.predict(raw_score=True)``), all trained
   on the same 20,000 rows, one thread each, measured alternately, least of
   5 repeats.
2. The whole fit of T trees on those 20,000 rows, one thread, least of 3
   alternating repeats: oblivious against leaf-wise.
3. One oblivious tree's search on those 20,000 rows (depth 6, fixed
   gradients, one thread) by its two routes, least of 10 alternating
   repeats: the in-memory grower (one native call) against the multi-pass
   protocol (one pass per level, as on Dask) -- the same tree.

``RANKCORE_BENCH_PROFILE=fast`` (default): n = 10⁵, T = 100; ``full``:
n = 10⁶, T = 500.  Skipped without LightGBM.  The ratios are printed at the
end and stored in ``extra_info``; on a shared machine compare ratios only.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from _shapes import rare_positives
from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns

lgb = pytest.importorskip("lightgbm")

FULL = os.environ.get("RANKCORE_BENCH_PROFILE", "fast") == "full"
N = 1_000_000 if FULL else 100_000
N_TREES = 500 if FULL else 100
REPEATS = 5
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "oblivious trees"
SPECS = {"oblivious": "trees:growth=oblivious,subsample=1", "leafwise": "trees:subsample=1"}


@pytest.fixture(scope="module")
def data():
    return rare_positives(N, 50)


@pytest.fixture(scope="module")
def fitted(data):
    import rankcore

    X, y = data
    rows = np.random.default_rng(2).choice(X.shape[0], 20_000, replace=False)
    Xs, ys = X[rows], y[rows]
    # N_TREES trees of the spec as given, as LightGBM's: no large-data early stopping on these 20,000 rows
    models = {name: rankcore.boost(learner=spec, n_iter=N_TREES, tol=0.0, early_stopping=False, random_state=0,
                                   n_jobs=1)
              for name, spec in SPECS.items()}
    fits = _least({name: (lambda m=m: m.fit(Xs, ys)) for name, m in models.items()}, 3)
    params = dict(objective="binary", num_leaves=31, learning_rate=0.1, num_threads=1, verbose=-1)
    booster = lgb.train(params, lgb.Dataset(Xs, label=ys, params=params), num_boost_round=N_TREES)
    return models, booster, fits


def test_oblivious_predict_and_fit_beside_leafwise_and_lightgbm(benchmark, data, fitted):
    X, _ = data
    models, booster, fits = fitted
    times = {}

    def all_three():
        times.update(_least({"oblivious": lambda: models["oblivious"].decision_function(X),
                             "leafwise": lambda: models["leafwise"].decision_function(X),
                             "lightgbm": lambda: booster.predict(X, raw_score=True, num_threads=1)}, REPEATS))

    benchmark.pedantic(all_three, rounds=1, iterations=1)
    ob, lw, lg = times["oblivious"], times["leafwise"], times["lightgbm"]
    SUMMARY.append(f"predict {N} rows x 50, {N_TREES} trees, 1 thread: oblivious {ob * 1e3:.1f} ms, leaf-wise "
                   f"{lw * 1e3:.1f} ms, LightGBM {lg * 1e3:.1f} ms; oblivious/leaf-wise {ob / lw:.2f}, "
                   f"oblivious/LightGBM {ob / lg:.2f}, leaf-wise/LightGBM {lw / lg:.2f}")
    SUMMARY.append(f"fit {N_TREES} trees on 20000 x 50, 1 thread: oblivious {fits['oblivious']:.2f} s, leaf-wise "
                   f"{fits['leafwise']:.2f} s, ratio {fits['oblivious'] / fits['leafwise']:.2f}")
    benchmark.extra_info.update(n=N, trees=N_TREES, oblivious_over_leafwise=ob / lw, oblivious_over_lightgbm=ob / lg,
                                leafwise_over_lightgbm=lw / lg,
                                fit_oblivious_over_leafwise=fits["oblivious"] / fits["leafwise"])
    assert np.isfinite(models["oblivious"].decision_function(X[:10])).all()


def test_oblivious_native_grower_beside_the_multi_pass_protocol(benchmark, data):
    from rankcore.learners._base import multi_pass_search
    from rankcore.registry import resolve

    X, y = data
    Xs, ys = X[:20_000], y[:20_000]
    rng = np.random.default_rng(0)
    g = np.where(ys == 1, -0.95, 0.05) + 0.1 * rng.normal(size=ys.shape[0])       # a logistic loss's first step
    h = rng.uniform(0.05, 0.25, ys.shape[0])
    learner = resolve("learner", SPECS["oblivious"])
    native, protocol = (learner.prepare(Xs, random_state=0, n_threads=1) for _ in range(2))
    native_block, protocol_block = native.encode(Xs), protocol.encode(Xs)
    routes = {"native": lambda: native.search_in_memory([native_block], [g], [h], n_threads=1),
              "protocol": lambda: multi_pass_search(protocol, [protocol_block], [g], [h], n_threads=1)}
    times = {}
    benchmark.pedantic(lambda: times.update(_least(routes, 10)), rounds=1, iterations=1)
    a, b = routes["native"](), routes["protocol"]()          # the layouts' next tree: the same seed
    np.testing.assert_array_equal(a.ranker.value, b.ranker.value)
    SUMMARY.append(f"one oblivious tree (depth 6) on 20000 x 50, 1 thread: native grower {times['native'] * 1e3:.1f} "
                   f"ms, multi-pass protocol {times['protocol'] * 1e3:.1f} ms, ratio "
                   f"{times['native'] / times['protocol']:.2f}")
    benchmark.extra_info.update(native_over_protocol=times["native"] / times["protocol"])


def _vector_beside_scalar(benchmark, switch, call):
    """Least times of ``call()`` with ``switch(True)`` and with ``switch(False)``, 200 alternating calls (the
    kernels' vector and scalar forms, the same bits); the switch is left on."""
    def under(vector):
        def run():
            switch(vector)
            call()
        return run

    times = {}
    try:
        benchmark.pedantic(lambda: times.update(_least({"vector": under(True), "scalar": under(False)}, 200)),
                           rounds=1, iterations=1)
    finally:
        switch(True)
    return times


def test_level_walks_vector_beside_scalar(benchmark):
    """A level's walk of two siblings over 41 features of 255 bins (``level_gains_pair``: the larger child's
    subtraction, both children's cumulative sums and gains), the walks over the bins in vectors against the
    scalar walks at the same vector width of the gains, least of 200 alternating calls; skipped where the CPU
    has no AVX2 (the walks are scalar there)."""
    from rankcore.learners.trees import _oblivious_kernels as kernels

    if kernels.simd_level() < 1:
        pytest.skip("no AVX2: the walks over the bins are scalar on this CPU")
    rng = np.random.default_rng(0)
    d, nb = 41, 254
    n_edges = np.full(d, nb, dtype=np.intp)
    base = np.arange(d, dtype=np.intp) * (nb + 2)
    S = d * (nb + 2)
    small = np.zeros((S, 3))
    small[:, 2] = rng.poisson(2.0, size=S)
    small[:, 0] = rng.normal(size=S) * np.sqrt(small[:, 2])
    small[:, 1] = small[:, 2] * rng.uniform(0.1, 0.3, size=S)
    parent = small * 2.0 + np.abs(rng.normal(size=(S, 3))) * (small[:, 2:3] > 0)
    small[base + nb + 1] = parent[base + nb + 1] = 0.0         # no NaN rows (the gains of one side, copied)
    mask = np.ones(d, np.uint8)
    out = np.zeros((S, 2))
    hist = parent.copy()

    def walk():
        hist[:] = parent
        kernels.level_gains_pair(hist, small, base, n_edges, mask, True, True, True, 5.0, 0.0, 1.0, out)

    times = _vector_beside_scalar(benchmark, kernels.vector_walks, walk)
    ratio = times["vector"] / times["scalar"]
    SUMMARY.append(f"a level's walk of two siblings, {d} features x 255 bins, 1 thread: vector walks "
                   f"{times['vector'] * 1e6:.0f} us, scalar walks {times['scalar'] * 1e6:.0f} us, ratio {ratio:.2f} "
                   "(the copy of the parent's histogram included in both)")
    benchmark.extra_info.update(vector_over_scalar=ratio)


def test_histogram_updates_vector_beside_scalar(benchmark):
    """A node's histogram of 4,131 rows (40 % of 10,327, scattered) over 41 columns of 255 bins, filled from
    column-major codes (the oblivious grower's route on such a block) with each slot's (Σg, Σh, count) updated
    by one vector of four doubles against the scalar updates, one thread, least of 200 alternating calls;
    skipped where the CPU has no AVX2 (the updates are scalar there)."""
    from rankcore.learners.trees import _histogram
    from rankcore.learners.trees._block import slot_layout

    if not _histogram.vector_updates():
        pytest.skip("no AVX2: the histogram's updates are scalar on this CPU")
    rng = np.random.default_rng(0)
    n, d, m = 10_327, 41, 4_131
    codes = rng.integers(0, 255, size=(n, d)).astype(np.uint8)
    codes_t = np.ascontiguousarray(codes.T)
    slots = slot_layout(np.full(d, 254))
    g, h = rng.normal(size=n), rng.uniform(0.1, 0.3, size=n)
    idx = np.sort(rng.permutation(n)[:m]).astype(np.int32)
    idx = np.concatenate([idx, np.setdiff1d(np.arange(n, dtype=np.int32), idx)])
    og, oh, hist = np.empty(n), np.empty(n), np.empty((slots.n_slots, 3))

    def fill():
        _histogram.node_histogram(codes, slots, g, h, idx, 0, m, og, oh, hist, 1, False, False, None, None, codes_t)

    times = _vector_beside_scalar(benchmark, _histogram.vector_updates, fill)
    ratio = times["vector"] / times["scalar"]
    SUMMARY.append(f"a node's histogram, {m:,} rows x {d} columns of 255 bins, 1 thread: vector updates "
                   f"{times['vector'] * 1e6:.0f} us, scalar updates {times['scalar'] * 1e6:.0f} us, ratio {ratio:.2f}")
    benchmark.extra_info.update(vector_over_scalar=ratio)

"""Monotone constraints on the per-query default's oblivious trees: fit time and NDCG@10 beside no constraints.

Synthetic queries whose relevance rises with column 0 (``synthetic_queries(monotone=1)``: the first informative
feature enters as tanh, and columns 6-8 are noisy copies of it), 3/4 of the queries to fit and 1/4 to score;
``rankcore.boost(learner="trees...")`` fitted with ``qid`` (the per-query default: oblivious trees of depth 6,
200 of them), one thread, least of 3 alternating fits: +1 on columns 0 and 6-8 against none.  First checked:
all-zero signs fit the unconstrained model (the same scores), and the constrained score never falls as column 0
rises.  The time ratio and both models' held-out NDCG@10 are printed at the end and stored in ``extra_info``; on
a shared machine compare ratios only.

Second: the projection alone on its worst case, a full oblivious tree (2^D leaves) with every level constrained
and random Newton values, the Cython minimum cuts (``_isotonic_cuts.pyx``) beside the plain Python recursion of
the tests (Edmonds-Karp on dicts, ``tests/_tree_references.py``), checked equal first; least of alternating runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from _queries import synthetic_queries
from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns
from conftest import PROFILE

N_QUERIES = 160 if PROFILE == "full" else 60
PROJECTION_DEPTH = 11 if PROFILE == "full" else 9
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "monotone oblivious trees (per-query default)"


def _model(signs: str | None):
    import rankcore

    return rankcore.boost(learner="trees" + (f":monotone={signs}" if signs else ""), random_state=0, n_jobs=1)


def test_monotone_oblivious_fit_beside_the_unconstrained_fit(benchmark):
    X, y, qid = synthetic_queries(N_QUERIES, monotone=1.0, random_state=0)
    train = qid < (3 * N_QUERIES) // 4
    d = X.shape[1]
    signs = "/".join("1" if j in (0, 6, 7, 8) else "0" for j in range(d))
    small = qid < 10
    zero = _model("/".join(["0"] * d)).fit(X[small], y[small], qid=qid[small])
    free = _model(None).fit(X[small], y[small], qid=qid[small])
    np.testing.assert_array_equal(zero.decision_function(X[:500]), free.decision_function(X[:500]))
    models = {"monotone": _model(signs), "free": _model(None)}
    fits = {k: (lambda m=m: m.fit(X[train], y[train], qid=qid[train])) for k, m in models.items()}
    times = {}
    benchmark.pedantic(lambda: times.update(_least(fits, 3)), rounds=1, iterations=1)
    assert all(r.kind == "oblivious_tree" for r in models["monotone"].rankers_)
    rows = X[~train][:300].copy()
    scores = []
    for v in np.linspace(-4, 4, 33):
        rows[:, 0] = v
        scores.append(models["monotone"].decision_function(rows))
    assert (np.diff(np.array(scores), axis=0) >= 0).all()
    ndcg = {k: m.score(X[~train], y[~train], qid=qid[~train]) for k, m in models.items()}
    ratio = times["monotone"] / times["free"]
    SUMMARY.append(f"fit {int(train.sum())} rows x {d}, {N_QUERIES * 3 // 4} queries, per-query default, 1 thread: "
                   f"monotone on 4 columns {times['monotone']:.2f} s, none {times['free']:.2f} s, ratio {ratio:.2f}; "
                   f"held-out NDCG@10 monotone {ndcg['monotone']:.4f}, none {ndcg['free']:.4f}")
    benchmark.extra_info.update(n=int(train.sum()), d=d, monotone_over_free=ratio, ndcg_monotone=ndcg["monotone"],
                                ndcg_free=ndcg["free"])


def test_projection_kernel_beside_the_python_reference(benchmark):
    from rankcore.learners.trees._oblivious_monotone import isotonic_leaves, order_edges

    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from _tree_references import isotonic_leaves_by_cuts

    depth = PROJECTION_DEPTH
    rng = np.random.default_rng(depth)
    G, w = rng.normal(size=1 << depth), rng.uniform(0.5, 2.0, size=1 << depth)
    lo, hi = order_edges(np.arange(1 << depth), np.ones(depth, dtype=np.int8))
    np.testing.assert_array_equal(isotonic_leaves(G, w, lo, hi), isotonic_leaves_by_cuts(G, w, lo, hi))
    times = {}
    benchmark.pedantic(lambda: times.update(_least({"kernel": lambda: isotonic_leaves(G, w, lo, hi),
                                                    "reference": lambda: isotonic_leaves_by_cuts(G, w, lo, hi)},
                                                   3)), rounds=1, iterations=1)
    ratio = times["kernel"] / times["reference"]
    SUMMARY.append(f"projection of a full depth-{depth} tree ({1 << depth} leaves, {lo.shape[0]} pairs), every level "
                   f"constrained: Cython cuts {times['kernel'] * 1e3:.1f} ms, Python reference "
                   f"{times['reference'] * 1e3:.0f} ms, ratio {ratio:.4f}")
    benchmark.extra_info.update(leaves=1 << depth, kernel_over_reference=ratio)

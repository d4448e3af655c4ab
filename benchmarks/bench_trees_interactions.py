"""Interaction constraints (``trees:interactions=...``): the fit time beside the same fit without them, same run.

50,000 rows × 20 float64 columns (``rare_positives``), 100 trees of 31
leaves, one thread, least of 3 alternating fits: four groups of five columns
(``0+1+2+3+4/5+...+9/...``) and twenty one-column groups (additive trees)
against no constraints.  First checked: one group of every column fits the
unconstrained model (the same scores), and every path of the constrained
models lies within a group.  The ratios are printed at the end and stored in
``extra_info``; on a shared machine compare ratios only.

Within queries (500 queries of 100 rows), the per-query default's oblivious
trees of depth 6, which take the constraints: the four groups and the
additive groups against no constraints, and against depth-wise trees of
depth 6 with the four groups (the default's shape with monotone constraints or
categorical columns, which oblivious trees refuse).  First checked: one group of every column fits the unconstrained
default (the same scores); every level's features down to it lie in a group.
"""

from __future__ import annotations

import numpy as np

from _shapes import rare_positives
from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns

N, D, N_TREES = 50_000, 20, 100
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "interaction constraints"
GROUPS = {"four groups": [list(range(k, k + 5)) for k in range(0, D, 5)],
          "additive": [[j] for j in range(D)]}


def _model(groups: list[list[int]] | None, spec: str = "trees:subsample=1"):
    import rankcore

    if groups is not None:
        spec += ("," if ":" in spec else ":") + "interactions=" + "/".join("+".join(map(str, g)) for g in groups)
    return rankcore.boost(learner=spec, n_iter=N_TREES, tol=0.0, early_stopping=False, random_state=0, n_jobs=1)


def _paths_within(model, groups) -> bool:
    """Whether every root-to-node path of every tree splits on columns of one group."""
    sets = [set(g) for g in groups]
    for r in model.rankers_:
        stack = [(0, frozenset())]
        while stack:
            node, path = stack.pop()
            if r.left[node] < 0:
                continue
            path = path | {int(r.feature[node])}
            if not any(path <= g for g in sets):
                return False
            stack.extend(((int(r.left[node]), path), (int(r.right[node]), path)))
    return True


def test_constrained_fits_beside_the_unconstrained_fit(benchmark):
    X, y = rare_positives(N, D)
    X = X.astype(np.float64)
    one = _model([list(range(D))]).fit(X[:5000], y[:5000])
    free = _model(None).fit(X[:5000], y[:5000])
    np.testing.assert_array_equal(one.decision_function(X[:1000]), free.decision_function(X[:1000]))
    models = {name: _model(groups) for name, groups in GROUPS.items()} | {"free": _model(None)}
    times = {}
    benchmark.pedantic(lambda: times.update(_least({k: (lambda m=m: m.fit(X, y)) for k, m in models.items()}, 3)),
                       rounds=1, iterations=1)
    for name, groups in GROUPS.items():
        assert _paths_within(models[name], groups), name
    ratios = {name: times[name] / times["free"] for name in GROUPS}
    SUMMARY.append(f"fit {N_TREES} trees on {N} x {D}, 1 thread: " + ", ".join(
        f"{name} {times[name]:.2f} s (ratio {ratios[name]:.2f})" for name in GROUPS) + f", none {times['free']:.2f} s")
    benchmark.extra_info.update(n=N, d=D, trees=N_TREES, **{f"{k.replace(' ', '_')}_over_free": v
                                                            for k, v in ratios.items()})


def _levels_within(model, groups) -> bool:
    """Whether every level of every oblivious tree splits, with the levels above it, on columns of one group."""
    sets = [set(g) for g in groups]
    return all(r.kind == "oblivious_tree" and all(any(set(r.feature[:k + 1].tolist()) <= g for g in sets)
                                                    for k in range(r.depth)) for r in model.rankers_)


def test_constrained_per_query_default_beside_unconstrained_and_depthwise(benchmark):
    X, y = rare_positives(N, D)
    X = X.astype(np.float64)
    qid = np.repeat(np.arange(N // 100), 100)
    one = _model([list(range(D))], "trees").fit(X[:5000], y[:5000], qid=qid[:5000])
    free = _model(None, "trees").fit(X[:5000], y[:5000], qid=qid[:5000])
    np.testing.assert_array_equal(one.decision_function(X[:1000]), free.decision_function(X[:1000]))
    models = {name: _model(groups, "trees") for name, groups in GROUPS.items()} | {"free": _model(None, "trees")}
    # the alternative shape: depth-wise trees to the same depth
    models["four groups, depthwise"] = _model(GROUPS["four groups"], "trees:growth=depthwise,max_depth=6")
    times = {}
    benchmark.pedantic(lambda: times.update(_least({k: (lambda m=m: m.fit(X, y, qid=qid))
                                                    for k, m in models.items()}, 3)), rounds=1, iterations=1)
    for name, groups in GROUPS.items():
        assert _levels_within(models[name], groups), name
    ratios = {name: times[name] / times["free"] for name in models if name != "free"}
    SUMMARY.append(f"per-query default, {N_TREES} trees on {N} x {D} in {N // 100} queries, 1 thread: " + ", ".join(
        f"{name} {times[name]:.2f} s (ratio {ratios[name]:.2f})" for name in ratios) + f", none {times['free']:.2f} s")
    keys = {name: "queries_" + name.replace(",", "").replace(" ", "_") + "_over_free" for name in ratios}
    benchmark.extra_info.update(n=N, d=D, trees=N_TREES, **{keys[k]: v for k, v in ratios.items()})

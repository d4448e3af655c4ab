"""Per-query rankers: rankcore's default against ``LGBMRanker()``, ``XGBRanker()`` and ``CatBoostRanker()``.

Two modes.

* pytest-benchmark (``pytest benchmarks/bench_query_rankers.py --benchmark-only``):
  rankcore's default per-query fit (``rankcore.boost(learner="trees").fit(X, y,
  qid=qid)``) beside ``LGBMRanker()`` (its defaults, the same threads) on seven
  shapes -- a small synthetic set of long queries
  (:func:`_queries.synthetic_queries`), many short retrieval-like queries
  (:func:`_queries.retrieval_queries`), the same with 600 noise columns
  (wide), the same with most values of every column 0
  (:func:`_queries.with_absent_features`: absent), the retrieval-like queries
  with every column mapped to [0, 1] within its query as the LETOR collections
  ship them (:func:`_queries.query_normalized`: normalized), a small set of that
  form (470 queries of about 20 rows: small), and LightGBM's LTR
  example when the datasets folder has it -- on one thread and on two, the
  ratio ours/LightGBM printed at the end and stored in ``extra_info``; and
  what display positions add to a fit (``test_fit_with_positions``: the
  default with ``position=`` against without, LightGBM's lambdarank with
  ``Dataset(position=)`` against without, one thread).
* script (``python benchmarks/bench_query_rankers.py --cv``): query-level
  cross-validation (5 folds of whole queries per seed) of the models of
  ``_query_models`` on LightGBM's LTR example (both files joined; read from
  ``$RANKCORE_DATASETS/lightgbm-lambdarank``), on a synthetic set of long
  queries and on a retrieval-like one of many short queries (``--data
  normalized``: another, its columns normalized within queries), printing
  for each set the mean NDCG@1/5/10, MAP and MRR with their intervals, the
  differences to ``LGBMRanker()`` paired over queries with p-values, and the
  fit CPU time; ``--cost`` prints the cost per iteration as queries grow;
  ``--fit-cost`` prints the default's fit against ``LGBMRanker()``'s (CPU and
  wall seconds, alternating, least of ``--repeats``) on the shapes of
  ``--shapes`` for each of ``--threads``.

Skips (pytest) or leaves out (script) what is not installed: LightGBM is
required, XGBoost and CatBoost are optional, and the LTR data set is left out
when the datasets folder does not have it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DatasetUnavailable  # noqa: E402
from _queries import (fixed_length_queries, load_lambdarank, query_normalized, retrieval_queries,  # noqa: E402
                      synthetic_queries, with_absent_features)
from _ratios import time_ratio  # noqa: E402

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "query rankers"
_TIMES: dict = {}


# ----------------------------------------------------------------------
# pytest-benchmark
# ----------------------------------------------------------------------
#: The shapes of the default-fit benchmark: (fast profile, full profile) arguments of their generators.
_FIT_SHAPES = {
    "synthetic": lambda full: synthetic_queries(200 if full else 40, max_size=300, random_state=0),
    "retrieval": lambda full: retrieval_queries(1000 if full else 200, random_state=3),
    "wide": lambda full: retrieval_queries(2500 if full else 150, n_noise=600, random_state=2),
    "absent": lambda full: _absent(4000 if full else 200),
    "normalized": lambda full: _normalized(1000 if full else 200),
    "small": lambda full: _normalized(470 if full else 150, mean_size=19 if full else 15),
    "ltr": lambda full: _lambdarank_dense(),
}


def _absent(n_queries):
    """Retrieval-like queries of 687 columns, grades 0-4, each column 0 on 30-95 % of its rows."""
    X, y, qid = retrieval_queries(n_queries, max_grade=4, n_noise=650, random_state=5)
    return with_absent_features(X, random_state=1), y, qid


def _normalized(n_queries, mean_size=20):
    """Retrieval-like queries, grades 0-2, every column mapped to [0, 1] within its query (LETOR's form)."""
    X, y, qid = retrieval_queries(n_queries, mean_size=mean_size, random_state=41)
    return query_normalized(X, qid), y, qid


def _lambdarank_dense():
    X, y, qid = load_lambdarank()
    return X.toarray(), y, qid


@pytest.fixture(scope="module", params=list(_FIT_SHAPES))
def fit_shape(request):
    pytest.importorskip("lightgbm")
    try:
        return request.param, _FIT_SHAPES[request.param](PROFILE == "full")
    except DatasetUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("who", ["rankcore", "lightgbm"])
def test_default_fit(benchmark, fit_shape, threads, who):
    """The default per-query fit and ``LGBMRanker()``'s on the same data and threads; the ratio in extra_info."""
    from _query_models import lgbm_ranker, rankcore_trees

    shape, (X, y, qid) = fit_shape
    fit = rankcore_trees() if who == "rankcore" else lgbm_ranker
    predict = benchmark.pedantic(fit, args=(X, y, qid, threads), rounds=3 if X.shape[0] < 30_000 else 1,
                                 iterations=1)
    assert np.isfinite(predict(X[:10])).all()
    key = (shape, threads)
    _TIMES.setdefault(key, {})[who] = benchmark.stats.stats.min
    benchmark.extra_info.update(shape=shape, rows=int(X.shape[0]), columns=int(X.shape[1]),
                                queries=int(np.unique(qid).shape[0]), threads=threads)
    if who == "lightgbm":
        ours, theirs = _TIMES[key].get("rankcore"), _TIMES[key]["lightgbm"]
        ratio = time_ratio(ours, theirs)
        benchmark.extra_info["ratio"] = ratio
        SUMMARY.append(f"default per-query fit, {shape} ({X.shape[0]:,} x {X.shape[1]}), {threads} thread(s): "
                       f"rankcore {ours or float('nan'):.3f} s, LGBMRanker() {theirs:.3f} s, "
                       f"ratio ours/LightGBM {ratio:.2f}")


def _positions(qid, seed=0):
    """A display place per row: each query's rows shown in a random order (0 first)."""
    rng = np.random.default_rng(seed)
    position = np.empty(qid.shape[0], dtype=np.int64)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        position[rows] = rng.permutation(rows.shape[0])
    return position


@pytest.mark.parametrize("who", ["rankcore", "rankcore, position", "lightgbm", "lightgbm, position"])
def test_fit_with_positions(benchmark, who):
    """What display positions add to a fit: rankcore's default with ``position=`` against without, and LightGBM's
    lambdarank with ``Dataset(position=)`` against without (100 trees, its defaults), one thread, the same data
    (retrieval-like queries, 0/1 labels); the two ratios in extra_info."""
    lightgbm = pytest.importorskip("lightgbm")
    import rankcore

    X, y, qid = retrieval_queries(1000 if PROFILE == "full" else 300, random_state=3)
    y = (y > 0).astype(np.float64)
    position = _positions(qid)
    with_positions = who.endswith("position")

    def fit():
        if who.startswith("rankcore"):
            model = rankcore.boost(learner="trees", random_state=0, n_jobs=1)
            return model.fit(X, y, qid=qid, position=position if with_positions else None)
        sizes = np.unique(qid, return_counts=True)[1]
        order = np.argsort(qid, kind="stable")
        data = lightgbm.Dataset(X[order], y[order], group=sizes, position=position[order] if with_positions else None)
        return lightgbm.train({"objective": "lambdarank", "verbose": -1, "num_threads": 1, "seed": 0}, data, 100)

    model = benchmark.pedantic(fit, rounds=3, iterations=1)
    assert model is not None
    family = who.split(",")[0]
    key = ("positions", family)
    _TIMES.setdefault(key, {})[with_positions] = benchmark.stats.stats.min
    if with_positions:
        ratio = time_ratio(_TIMES[key][True], _TIMES[key].get(False))
        benchmark.extra_info["ratio"] = ratio
        SUMMARY.append(f"{family} fit with positions / without ({X.shape[0]:,} x {X.shape[1]}, 1 thread): "
                       f"{ratio:.2f}")


# ----------------------------------------------------------------------
# Script mode
# ----------------------------------------------------------------------
def _model_sets(which, skip=(), only=()):
    """The chosen groups of models, ``LGBMRanker()`` first, without those whose library is not installed."""
    import _query_models as m

    sets = {"peers": m.PEERS, "objectives": m.OBJECTIVES_IN_LIGHTGBM, "rankcore": m.RANKCORE}
    chosen = {"LGBMRanker()": m.lgbm_ranker}
    known = {model for name in which for model in sets[name]} | set(chosen)
    unknown = [name for name in only if name not in known]
    if unknown:
        raise SystemExit(f"--only: no model named {', '.join(map(repr, unknown))} in {', '.join(which)}; the names: "
                         f"{', '.join(sorted(known))}")
    for name in which:
        chosen.update({model: fit for model, fit in sets[name].items()
                       if not any(s in model for s in skip) and (not only or model in only)})
    missing = [name for name in chosen if importlib.util.find_spec(m.REQUIRES.get(name, "lightgbm")) is None]
    for name in missing:
        print(f"left out: {name} ({m.REQUIRES.get(name, 'lightgbm')} is not installed)", file=sys.stderr)
        del chosen[name]
    return chosen


def _data_sets(which, synthetic_queries_count):
    out = {}
    if "lambdarank" in which:
        try:
            X, y, qid = load_lambdarank()
            out["LightGBM's LTR example (3,773 rows, 251 queries)"] = (X.toarray(), y, qid)
        except DatasetUnavailable as exc:
            print(f"left out: {exc}", file=sys.stderr)
    if "synthetic" in which:
        X, y, qid = synthetic_queries(synthetic_queries_count, random_state=1)
        out[f"synthetic (synthetic_queries({synthetic_queries_count}, random_state=1): "
            f"{X.shape[0]:,} rows, {synthetic_queries_count} queries of 10-1,000 rows)"] = (X, y, qid)
    if "retrieval" in which:
        X, y, qid = retrieval_queries(800, random_state=3)
        out[f"retrieval-like (retrieval_queries(800, random_state=3): {X.shape[0]:,} rows, 800 queries)"] = (X, y, qid)
    if "normalized" in which:
        X, y, qid = _normalized(800)
        out[f"retrieval-like, LETOR's form (retrieval_queries(800, random_state=41), every column mapped to [0, 1] "
            f"within its query: {X.shape[0]:,} rows, 800 queries)"] = (X, y, qid)
    return out


def run_cv(args):
    from _query_cv import cross_validate, paired_table, seeds_table, summary_table

    models = _model_sets(args.models, args.skip, args.only)
    for title, (X, y, qid) in _data_sets(args.data, args.synthetic_queries).items():
        log = (lambda line: print(line, file=sys.stderr, flush=True)) if args.verbose else None
        result = cross_validate(models, X, y, qid, n_splits=args.folds, seeds=args.seeds,
                                threads=args.threads, log=log)
        print(f"\n## {title}\n\n{args.folds} folds of whole queries, seeds {list(args.seeds)}, "
              f"{args.threads} thread(s) for every library; load average {os.getloadavg()[0]:.1f} at the end.\n")
        for seed in args.seeds:
            print(f"### seed {seed}: means over the queries (95 % bootstrap interval over queries)\n")
            print(summary_table(result, seed))
            print(f"\n### seed {seed}: paired over queries, model − LGBMRanker()\n")
            print(paired_table(result, seed))
            print()
        if len(args.seeds) > 1:
            print("### NDCG@10 by seed\n")
            print(seeds_table(result))
        sys.stdout.flush()


def _best_cpu_seconds(funcs, repeats):
    """Least CPU seconds of each function, the functions taking turns ``repeats`` times."""
    best = dict.fromkeys(funcs, np.inf)
    for _ in range(repeats):
        for name, func in funcs.items():
            start = time.process_time()
            func()
            best[name] = min(best[name], time.process_time() - start)
    return best


def _cost_functions(length, n_rows, rounds):
    """Callables timing ``rounds`` iterations of each method on ``n_rows`` rows in queries of ``length``."""
    import lightgbm as lgb

    import rankcore
    from _query_models import group_sizes, push_gradients
    from rankcore.metrics import check_qid

    X, y, qid = fixed_length_queries(n_rows, length)
    gradients = push_gradients("exp", "pow:2")(y, check_qid(qid, y.shape[0]))
    scores = np.random.default_rng(0).normal(size=y.shape[0])
    base = {"num_threads": 1, "verbose": -1}
    boosters = {
        "lambdarank, truncation 30": {**base, "objective": "lambdarank"},
        "lambdarank, every pair": {**base, "objective": "lambdarank", "lambdarank_truncation_level": length},
        "push gradients in LightGBM": {**base, "objective": "none"},
    }
    boosters = {name: lgb.Booster(params, lgb.Dataset(X, y, group=group_sizes(qid)))
                for name, params in boosters.items()}

    def updates(booster):
        custom = (lambda preds, dataset: gradients(preds)) if booster.params["objective"] == "none" else None

        def run():
            for _ in range(rounds):
                booster.update(fobj=custom)
        return run

    def rankcore_fit(n_iter):
        return lambda: rankcore.boost(learner="trees", n_iter=n_iter, n_jobs=1, random_state=0).fit(X, y, qid=qid)

    funcs = {"push gradients (exp, pow:2)": lambda: [gradients(scores) for _ in range(rounds)]}
    funcs.update({f"LightGBM round, {name}": updates(booster) for name, booster in boosters.items()})
    # rankcore's iterations: a fit of 2·rounds minus one of `rounds` (binning and setup cancel out)
    funcs["rankcore fit, short"] = rankcore_fit(rounds)
    funcs["rankcore fit, long"] = rankcore_fit(2 * rounds)
    return funcs


#: The query lengths of the cost table (rows per query; the rows are the same for each).
COST_LENGTHS = (100, 1_000, 10_000)


def run_cost(args):
    """CPU milliseconds per iteration as queries grow (same rows): the per-query push and lambdarank."""
    rounds = 5
    table = {}
    for length in COST_LENGTHS:
        if length > args.cost_rows:       # not one whole query of this length fits in the rows
            print(f"left out: queries of {length:,} rows (more than --cost-rows {args.cost_rows:,})", file=sys.stderr)
            continue
        best = _best_cpu_seconds(_cost_functions(length, args.cost_rows, rounds), repeats=2)
        best["rankcore trees iteration"] = best.pop("rankcore fit, long") - best.pop("rankcore fit, short")
        table[length] = {name: seconds / rounds for name, seconds in best.items()}
    names = list(next(iter(table.values())))
    print(f"\n## Cost per iteration, {args.cost_rows:,} rows x 20 features, 1 thread "
          f"(CPU ms per iteration, least of 2 alternating runs of {rounds} iterations)\n")
    print("| query length | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for length, row in table.items():
        print(f"| {length:,} | " + " | ".join(f"{row[name] * 1e3:.1f}" for name in names) + " |")


def _cpu_seconds() -> float:
    """CPU seconds of this process, every thread's (the fits' own threads included)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_fit_cost(args):
    """The default per-query fit against ``LGBMRanker()``: CPU and wall seconds, taking turns, least of repeats."""
    from _query_models import lgbm_ranker, rankcore_trees

    fits = {"rankcore": rankcore_trees(), "LGBMRanker()": lgbm_ranker}
    print("\n| shape | rows × columns | threads | rankcore CPU s | wall s | LGBMRanker() CPU s | wall s "
          "| ratio CPU | ratio wall |")
    print("|---|---|---|---|---|---|---|---|---|")
    for shape in args.shapes:
        try:
            X, y, qid = _FIT_SHAPES[shape](True)
        except DatasetUnavailable as exc:
            print(f"left out: {exc}", file=sys.stderr)
            continue
        for threads in args.threads_list:
            best = {name: [np.inf, np.inf] for name in fits}
            for _ in range(args.repeats):
                for name, fit in fits.items():
                    cpu, wall = _cpu_seconds(), time.perf_counter()
                    fit(X, y, qid, threads)
                    best[name][0] = min(best[name][0], _cpu_seconds() - cpu)
                    best[name][1] = min(best[name][1], time.perf_counter() - wall)
            (c, w), (lc, lw) = best["rankcore"], best["LGBMRanker()"]
            print(f"| {shape} | {X.shape[0]:,} × {X.shape[1]} | {threads} | {c:.2f} | {w:.2f} | {lc:.2f} | {lw:.2f} "
                  f"| {c / lc:.2f} | {w / lw:.2f} |", flush=True)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cv", action="store_true", help="the cross-validation tables")
    parser.add_argument("--cost", action="store_true", help="the cost-per-iteration table")
    parser.add_argument("--fit-cost", action="store_true", help="the default's fit against LGBMRanker()'s")
    parser.add_argument("--shapes", nargs="+", default=list(_FIT_SHAPES), choices=list(_FIT_SHAPES))
    parser.add_argument("--threads-list", nargs="+", type=int, default=[1, 2], metavar="T")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--data", nargs="+", default=["lambdarank", "synthetic", "retrieval"],
                        choices=["lambdarank", "synthetic", "retrieval", "normalized"])
    parser.add_argument("--models", nargs="+", default=["peers", "rankcore"],
                        choices=["peers", "objectives", "rankcore"])
    parser.add_argument("--skip", nargs="+", default=[], metavar="TEXT",
                        help="leave out the models whose name contains one of these")
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME", help="only these models (exact names)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--synthetic-queries", type=int, default=60)
    parser.add_argument("--cost-rows", type=int, default=50_000)
    parser.add_argument("--verbose", action="store_true", help="log each fit to stderr")
    args = parser.parse_args(argv)
    if args.cost and args.cost_rows < COST_LENGTHS[0]:
        parser.error(f"--cost-rows: expected at least {COST_LENGTHS[0]} rows (one query of the shortest length), "
                     f"got {args.cost_rows}")
    if importlib.util.find_spec("lightgbm") is None:
        print("LightGBM is not installed: nothing to compare with", file=sys.stderr)
        return 0
    if args.cv:
        run_cv(args)
    if args.cost:
        run_cost(args)
    if args.fit_cost:
        run_fit_cost(args)
    if not (args.cv or args.cost or args.fit_cost):
        parser.print_usage()
    return 0


if __name__ == "__main__":
    sys.exit(main())

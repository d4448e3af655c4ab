"""Fuzz of the promise that scores do not depend on the thread count (``n_jobs``) or the run.

Fits many shapes of data and settings on n_jobs = 1, 2, 3 and again on 2, and compares every output bit for
bit with the one-thread fit's: scores, predictions of the one-thread model on more threads, feature
contributions and interactions, metrics.  Shapes: 1-5 columns and wide ones, columns of very different bin
counts in every order (a two-bin column beside a 255-bin one), constant columns, NaNs, sparse CSR matrices
whose one-hot columns are bundled, pandas category columns, sample weights, row and column sampling,
Bayesian bagging, monotone and interaction constraints, random strength, leaf-wise, depth-wise and oblivious
growth, one list and per-query fits (the query default, lambdarank, yetirank, xendcg), from 10 rows to just
past the kernels' parallel thresholds (a node's histogram on several threads from 6,144 rows x columns, its
gather from 8,192 rows, a partition from 2,048 rows, a scan from 1,024 slots).  Then the other estimators
and learners that take ``n_jobs``: stumps, thresholds, features, ExactBoost, KernelRanker, metrics.

The thread count is forced: the host's load is not read (``_cpus.LOAD_AWARE``), the process may use 3 CPUs
whatever it has, and ``OMP_NUM_THREADS`` (unless set) allows 8 (``OMP_WAIT_POLICY=passive`` unless set, so that
3 threads on fewer cores do not spin).  Run it also under AddressSanitizer, which catches out-of-bounds
reads and writes that change no score: build a copy of the tree with ``CFLAGS="-fsanitize=address
-fno-omit-frame-pointer" LDFLAGS="-fsanitize=address" python setup.py build_ext --inplace`` and run the
script with ``LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc
PYTHONPATH=<that copy>`` (so run, it found the since-fixed read past the columns of a thread given none
by their cost in its first case; about 2x the plain run's time)::

    python studies/thread_independence_fuzz.py --quick                       # ~30 s on 2 cores
    python studies/thread_independence_fuzz.py --cases 250 --threads 2,3,5,8  # random cases, up to 8 threads

Prints one line per case (flushed first, so a crash names its case) and a summary; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "8")
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402

import rankcore  # noqa: E402
from rankcore import _cpus  # noqa: E402
from rankcore.validation import effective_n_threads  # noqa: E402

THREADS = [1, 2, 3, 2]            # the first is the reference; --threads changes the others
REFUSED: list[str] = []          # the cases' refusals (a ValueError on every thread count): not compared


def force_threads(n: int = 3) -> None:
    """Let ``n_jobs`` up to ``n`` give that many threads whatever the machine and its load."""
    _cpus.LOAD_AWARE = False
    _cpus.available_cpus = lambda: n
    got = effective_n_threads(n)
    if got != n:
        raise SystemExit(f"could not force {n} threads (got {got}); set OMP_NUM_THREADS={n}")


# ----------------------------------------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------------------------------------
def column(rng, kind: str, n: int) -> np.ndarray:
    """One column of a kind: continuous (255 bins), binary (2), few (4 values), const, nan (continuous, 20 % NaN)."""
    if kind == "cont":
        return rng.normal(size=n)
    if kind == "bin":
        return rng.integers(0, 2, n).astype(float)
    if kind == "few":
        return rng.integers(0, 4, n).astype(float)
    if kind == "const":
        return np.full(n, 3.0)
    if kind == "nan":
        x = rng.normal(size=n)
        x[rng.random(n) < 0.2] = np.nan
        return x
    if kind == "mostly_nan":
        x = rng.integers(0, 3, n).astype(float)
        x[rng.random(n) < 0.9] = np.nan
        return x
    raise ValueError(kind)


def dense(rng, kinds: list[str], n: int) -> np.ndarray:
    return np.column_stack([column(rng, k, n) for k in kinds])


def sparse_onehot(rng, n: int, n_groups: int, width: int, n_dense: int):
    """CSR: n_groups one-hot groups of ``width`` columns (mutually exclusive: bundled), sparse numbers, dense."""
    import scipy.sparse as sp

    blocks = []
    for _ in range(n_groups):
        hot = rng.integers(0, width + 3, n)          # beyond width: the row is in no column of the group
        onehot = np.zeros((n, width))
        rows = np.flatnonzero(hot < width)
        onehot[rows, hot[rows]] = 1.0
        blocks.append(onehot)
    numbers = np.where(rng.random((n, 3)) < 0.05, rng.normal(size=(n, 3)), 0.0)
    blocks.append(numbers)
    blocks.append(rng.normal(size=(n, n_dense)))
    return sp.csr_matrix(np.hstack(blocks))


def pandas_frame(rng, n: int, order: int):
    import pandas as pd

    cat = pd.Categorical(rng.choice(["a", "b", "c", "d", "e"], n))
    num = rng.normal(size=n)
    cols = {"c": cat, "x": num, "b": rng.integers(0, 2, n).astype(float)}
    names = [["c", "x", "b"], ["x", "c", "b"], ["b", "x", "c"]][order % 3]
    return pd.DataFrame({k: cols[k] for k in names})


def labels(rng, X, n: int, graded: bool) -> np.ndarray:
    if hasattr(X, "toarray"):
        A = X.toarray()
    elif hasattr(X, "to_numpy"):
        A = np.column_stack([X[c].cat.codes.to_numpy(float) if str(X[c].dtype) == "category" else X[c].to_numpy(float)
                             for c in X.columns])
    else:
        A = np.asarray(X, dtype=float)
    A = np.nan_to_num(A)
    z = A @ rng.normal(size=A.shape[1]) + (A[:, 0] > np.median(A[:, 0])) + rng.normal(size=n)
    if graded:
        return np.digitize(z, np.quantile(z, [0.5, 0.8, 0.95])).astype(float)
    y = (z > np.quantile(z, 0.7)).astype(int)
    if y.min() == y.max():
        y[: max(1, n // 5)] = 1 - y[0]
    return y


# ----------------------------------------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------------------------------------
KIND_ORDERS = [["bin", "cont"], ["cont", "bin"], ["few", "cont"], ["cont", "few"], ["bin", "cont", "bin"],
               ["cont", "bin", "bin"], ["bin", "bin", "cont"], ["const", "cont"], ["cont", "const"],
               ["bin", "const", "cont", "few"], ["cont", "cont", "cont", "cont", "bin"], ["nan", "bin"],
               ["bin", "nan"], ["mostly_nan", "cont"], ["cont"], ["bin"], ["few"], ["cont", "cont"],
               ["bin", "bin"], ["const", "const", "cont"], ["const"], ["const", "const"], ["bin", "const"]]


def make_case(rng, i: int, quick: bool) -> dict:
    """A random case: data shape, learner settings and fit mode."""
    sizes = [3, 10, 40, 120, 300, 2100, 3100, 4200, 8300] if quick else \
        [2, 5, 10, 25, 60, 120, 300, 1100, 2100, 3100, 4100, 6200, 8191, 8300, 12500, 17000]
    n = int(rng.choice(sizes))
    data = rng.choice(["dense", "dense", "dense", "wide", "sparse", "pandas"])
    growth = str(rng.choice(["leafwise", "depthwise", "oblivious"]))
    if data == "pandas" and growth == "oblivious":       # (oblivious trees refuse category columns)
        growth = "depthwise"
    spec = {"growth": growth, "max_leaves": int(rng.choice([2, 4, 8, 31])),
            "min_samples_leaf": int(rng.choice([1, 3, 20])),
            "subsample": float(rng.choice([1.0, 1.0, 0.8, 0.5])), "colsample": float(rng.choice([1.0, 1.0, 0.6])),
            "max_bins": int(rng.choice([255, 255, 16, 3]))}
    if rng.random() < 0.25:
        spec["bagging_temperature"] = 1.0
    if rng.random() < 0.25:
        spec["random_strength"] = 1.0
    if rng.random() < 0.2:
        spec["l2"] = 1.0
    if growth == "oblivious":
        spec["max_depth"] = int(rng.choice([1, 2, 3, 6]))
    elif rng.random() < 0.2:
        spec["max_depth"] = int(rng.choice([1, 3]))
    if data == "dense":
        kinds = list(KIND_ORDERS[int(rng.integers(len(KIND_ORDERS)))])
        d = len(kinds)
    elif data == "wide":
        d = int(rng.choice([8, 20, 45]))
        kinds = [str(k) for k in rng.choice(["cont", "bin", "few", "const", "nan"], d)]
    else:
        kinds = []
        d = 0
    mode = str(rng.choice(["list", "list", "qid", "lambdarank", "yetirank", "xendcg"]))
    case = {"i": i, "n": n, "data": data, "kinds": kinds, "spec": spec, "mode": mode,
            "route": "protocol" if rng.random() < 0.2 else "native",
            "weights": bool(rng.random() < 0.3), "seed": int(rng.integers(1 << 30)), "n_iter": int(rng.choice([3, 6]))}
    if data in ("dense", "wide") and d >= 2 and growth != "oblivious" and rng.random() < 0.3:
        spec["monotone"] = "/".join(str(int(s)) for s in rng.choice([-1, 0, 1], d))
    if data in ("dense", "wide") and d >= 3 and rng.random() < 0.3:
        spec["interactions"] = f"0+1/1+{d - 1}"
    if data in ("dense", "wide") and "few" in kinds and rng.random() < 0.4 and "monotone" not in spec \
            and growth != "oblivious":
        spec["categorical"] = ";".join(str(j) for j, k in enumerate(kinds) if k == "few")
    return case


def fixed_cases(quick: bool) -> list[dict]:
    """The cases every run covers: two- and three-column data with bin counts far apart, in every order,
    at sizes where one thread's column group by cost is empty, on every growth."""
    out = []
    sizes = [300, 3100, 8300] if quick else [60, 300, 3100, 4200, 8300, 17000]
    for kinds in (["bin", "cont"], ["cont", "bin"], ["few", "cont"], ["bin", "bin", "cont"], ["cont", "bin", "bin"],
                  ["const", "cont"], ["cont", "const"]):
        for growth in ("leafwise", "depthwise", "oblivious"):
            for n in sizes:
                out.append({"i": len(out), "n": n, "data": "dense", "kinds": kinds, "mode": "list", "weights": False,
                            "seed": 1, "n_iter": 4,
                            "spec": {"growth": growth, "max_leaves": 8, "subsample": 0.8, "max_bins": 255}})
    return out


def build(case: dict):
    rng = np.random.default_rng(case["seed"])
    n = case["n"]
    if case["data"] in ("dense", "wide"):
        X = dense(rng, case["kinds"], n)
    elif case["data"] == "sparse":
        X = sparse_onehot(rng, n, int(rng.integers(1, 4)), int(rng.choice([3, 12, 40])), int(rng.integers(0, 3)))
    else:
        X = pandas_frame(rng, n, case["seed"])
    graded = case["mode"] != "list"
    y = labels(rng, X, n, graded)
    qid = None
    if graded:
        size = int(rng.choice([5, 20, 100])) if n >= 20 else 5
        qid = np.repeat(np.arange(n // size + 1), size)[:n]
    w = rng.uniform(0.5, 2.0, n) if case["weights"] else None
    return X, y, qid, w


def spec_string(spec: dict) -> str:
    return "trees:" + ",".join(f"{k}={v}" for k, v in spec.items())


def estimator(case: dict, n_jobs: int):
    kw = dict(learner=spec_string(case["spec"]), n_iter=case["n_iter"], random_state=case["seed"], n_jobs=n_jobs)
    if case["mode"] in ("lambdarank", "yetirank", "xendcg"):
        kw["objective"] = case["mode"]
    return rankcore.boost(**kw)


def outputs(model, X, y, qid, small: bool) -> dict:
    """Every output of a fitted model that runs a kernel taking threads."""
    s = model.decision_function(X)
    out = {"scores": s}
    if small:
        out["contributions"] = model.feature_contributions(X)
        n_cols = X.shape[1]
        if n_cols <= 12:
            out["interactions"] = model.feature_interactions(X)
    if qid is not None:
        metrics = [f"ndcg@k:{min(3, int(np.bincount(qid).max()))}", "map"]
    else:
        metrics = ["auc", f"prec@k:{min(10, len(y))}", "pauc:0.1"]
    values = rankcore.evaluate(y, s, metrics, qid=qid, n_jobs=model.n_jobs)
    out["metrics"] = np.array([float(np.asarray(values[m]).ravel()[0]) for m in metrics])
    return out


def compare(a: dict, b: dict) -> list[str]:
    bad = []
    for k in a:
        x, z = np.asarray(a[k]), np.asarray(b[k])
        if x.shape != z.shape or not np.array_equal(x, z, equal_nan=True):
            diff = np.nanmax(np.abs(x - z)) if x.shape == z.shape else "shape"
            bad.append(f"{k} (max |diff| {diff})")
    return bad


@contextlib.contextmanager
def tree_route(route: str):
    """``protocol``: every tree grown by the multi-pass search (what several blocks and Dask use) instead of the
    native grower of one block in memory; ``native``: as it is."""
    if route != "protocol":
        yield
        return
    from rankcore.learners._base import multi_pass_search
    from rankcore.learners.trees._layout import TreeLayout

    keep = TreeLayout.search_in_memory
    TreeLayout.search_in_memory = lambda self, *a, **k: multi_pass_search(self, *a, **k)
    try:
        yield
    finally:
        TreeLayout.search_in_memory = keep


def run_tree_case(case: dict) -> list[str]:
    with tree_route(case.get("route", "native")):
        return _run_tree_case(case)


def _run_tree_case(case: dict) -> list[str]:
    X, y, qid, w = build(case)
    kw = {}
    if qid is not None:
        kw["qid"] = qid
    if w is not None:
        kw["sample_weight"] = w
    small = case["n"] <= 3100
    results, models, problems = [], [], []
    for t in THREADS:
        try:
            m = estimator(case, t).fit(X, y, **kw)
        except (ValueError, TypeError) as e:        # a setting the data refuses (on every thread count alike)
            results.append(("refused", str(e)))
            continue
        models.append(m)
        results.append(outputs(m, X, y, qid, small))
    if any(isinstance(r, tuple) for r in results):
        if not all(r == results[0] for r in results):
            problems.append(f"refused on some thread counts only: {results}")
        REFUSED.append(results[0][1])
        return problems
    for t, r in zip(THREADS[1:], results[1:]):
        problems += [f"n_jobs={t}: {p}" for p in compare(results[0], r)]
    one = models[0]
    for t in sorted(set(THREADS[1:])):                # the one-thread model predicting on more threads
        one.set_params(n_jobs=t)
        again = outputs(one, X, y, qid, small)
        problems += [f"1-thread model predicting on {t}: {p}" for p in compare(results[0], again)]
    one.set_params(n_jobs=1)
    return problems


# ----------------------------------------------------------------------------------------------------------
# Other estimators and kernels
# ----------------------------------------------------------------------------------------------------------
def other_cases(quick: bool):
    """(name, function of n_jobs returning a dict of arrays) for the non-tree estimators."""
    rng = np.random.default_rng(5)
    sizes = [50, 4500] if quick else [50, 2100, 4500, 9000, 140_000]
    for n in sizes:
        X = np.round(rng.normal(size=(n, 4)), 1)
        y = (X[:, 0] + rng.normal(size=n) > 0.8).astype(int)
        qid = np.repeat(np.arange(n // 25 + 1), 25)[:n]
        yq = np.digitize(X[:, 0] + rng.normal(size=n), [0, 1, 2]).astype(float)
        for learner in ("stumps", "thresholds", "features"):
            yield (f"boost {learner} n={n}", lambda t, X=X, y=y, learner=learner:
                   {"s": rankcore.boost(learner=learner, n_iter=6, n_jobs=t).fit(X, y).decision_function(X)})
        yield (f"boost stumps qid n={n}", lambda t, X=X, yq=yq, qid=qid:
               {"s": rankcore.boost(learner="stumps", n_iter=6, n_jobs=t).fit(X, yq, qid=qid).decision_function(X)})
        yield (f"boost logistic pow:4 n={min(n, 9000)}", lambda t, X=X[:9000], y=y[:9000]:
               {"s": rankcore.boost(loss="logistic", price="pow:4", learner="stumps", n_iter=6, n_jobs=t)
                .fit(X, y).decision_function(X)})
        if n <= 9000:
            yield (f"ExactBoost n={n}", lambda t, X=X, y=y:
                   {"s": rankcore.ExactBoost(n_rounds=5, n_runs=8, random_state=0, n_jobs=t).fit(X, y)
                    .decision_function(X)})
        if n <= 4500:
            yield (f"KernelRanker n={n}", lambda t, X=X, y=y: kernel_ranker_scores(X, y, t))
        yield (f"evaluate+ci n={n}", lambda t, X=X, y=y:
               {"v": np.array([[v.estimate, v.lower, v.upper] for v in rankcore.evaluate(
                   y, X[:, 0], ["auc", "pauc:0.1", "prec@k:10"], ci=0.9, n_boot=200, random_state=0,
                   n_jobs=t).values()])})


def histogram_kernel_cases(quick: bool, seed: int):
    """Kernel-level checks with up to 8 threads on layouts of 1-5 columns (fits reach only the thread counts
    given): a node's histogram, the root's counts and a partition under column costs that leave groups empty
    (the first column, the last one or one in the middle holding the cost), against one thread."""
    from rankcore.learners.trees import _histogram
    from rankcore.learners.trees._column_work import column_work
    from rankcore.registry import resolve

    rng = np.random.default_rng(seed)
    for case in range(15 if quick else 120):
        n = int(rng.choice([1, 7, 300, 3100, 8191, 9000]))
        if rng.random() < 0.25:
            X = sparse_onehot(rng, n, int(rng.integers(1, 3)), int(rng.choice([3, 12])), int(rng.integers(0, 2)))
            X = X.toarray()
        else:
            X = dense(rng, list(KIND_ORDERS[int(rng.integers(len(KIND_ORDERS)))]), n)
        layout = resolve("learner", "trees").prepare(X, random_state=0)
        block = layout.encode(X)
        slots = layout.slots
        if slots.n_cols == 0:
            continue
        c = slots.n_cols
        g, h = np.round(rng.normal(size=n), 1), rng.uniform(0.5, 1.5, n)
        idx = rng.permutation(n).astype(np.int32)
        m = int(rng.integers(0, n + 1))
        works = [None, column_work(block.codes_t, slots), np.eye(c)[c - 1] + 1e-9, np.eye(c)[0],
                 np.eye(c)[c // 2], np.r_[np.ones(c - 1), 1e6][:c], rng.random(c)]
        yield f"histograms n={n} cols={c} slots={slots.n_slots} m={m}", \
            lambda t, block=block, slots=slots, g=g, h=h, idx=idx, m=m, n=n, works=works: \
            _kernel_outputs(_histogram, block, slots, g, h, idx, m, n, works, t)


def _kernel_outputs(_histogram, block, slots, g, h, idx, m, n, works, t: int) -> dict:
    out = {}
    ident = np.arange(n, dtype=np.int32)
    for w_i, work in enumerate(works):
        slots.set_column_work(work if t > 1 else None)
        for listed in (None, block.listed):
            for name, rows, start, end, identity, counts in (
                    ("root", ident, 0, n, True, None), ("root+counts", ident, 0, n, True, "counts"),
                    ("node", idx, 0, m, False, None), ("tail", idx, m, n, False, None)):
                if counts:
                    counts = _histogram.root_counts(block.codes, slots, listed, t)
                    out[f"counts {w_i} {listed is None}"] = counts
                for codes_t in (None, block.codes_t):
                    hist = np.full((slots.n_slots, 3), np.nan)
                    _histogram.node_histogram(block.codes, slots, g, h, rows, start, end, np.empty(n), np.empty(n),
                                              hist, t, identity, False, listed, counts, codes_t)
                    out[f"{name} {w_i} {listed is None} {codes_t is None}"] = hist
    slots.set_column_work(None)
    part = idx.copy()
    go_left = (np.arange(256) % 3 == 0).astype(np.uint8)
    nl = _histogram.partition(block.codes, part, np.empty(n, dtype=np.int32), 0, n, 0, go_left, t, 1.0)
    out["partition"] = np.r_[part, nl]
    return out


def kernel_ranker_scores(X, y, t: int) -> dict:
    """KernelRanker's scores with OpenBLAS on one thread: its products split by thread (docs/kernel_ranking_solvers.md,
    not bit for bit), which would hide the Gram and centering kernels' own threads."""
    import contextlib

    from threadpoolctl import threadpool_limits

    import rankcore.rkhs._estimator as rkhs_estimator

    keep = rkhs_estimator._blas_limit
    rkhs_estimator._blas_limit = lambda threads: contextlib.nullcontext()
    try:
        with threadpool_limits(1, user_api="blas"):
            return {"s": rankcore.KernelRanker(random_state=0, n_jobs=t).fit(X, y).decision_function(X)}
    finally:
        rkhs_estimator._blas_limit = keep


def run_other(quick: bool, seed: int) -> tuple[int, list[str]]:
    count, problems = 0, []
    for name, fn in [*histogram_kernel_cases(quick, seed), *other_cases(quick)]:
        print(f"[other] {name}", flush=True)
        count += 1
        try:
            res = [fn(t) for t in THREADS]
        except Exception as e:                        # report, keep going
            problems.append(f"{name}: {type(e).__name__}: {e}")
            continue
        for t, r in zip(THREADS[1:], res[1:]):
            problems += [f"{name} n_jobs={t}: {p}" for p in compare(res[0], r)]
    return count, problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer and smaller cases")
    ap.add_argument("--cases", type=int, default=None, help="random tree cases (default: 40 quick, 250 full)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-fixed", action="store_true", help="skip the fixed cases")
    ap.add_argument("--threads", default="2,3,2", help="thread counts compared with one thread (at most 8)")
    ap.add_argument("--no-other", action="store_true", help="skip the non-tree estimators")
    args = ap.parse_args(argv)
    THREADS[1:] = [int(t) for t in args.threads.split(",")]
    force_threads(max(THREADS))
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    n_random = args.cases if args.cases is not None else (40 if args.quick else 250)
    cases = [] if args.no_fixed else fixed_cases(args.quick)
    cases += [make_case(rng, i, args.quick) for i in range(n_random)]
    problems, t0 = [], time.time()
    for k, case in enumerate(cases):
        label = (f"[{k + 1}/{len(cases)}] n={case['n']} {case['data']} {','.join(case['kinds'])} {case['mode']} "
                 f"{case.get('route', 'native')} "
                 f"w={int(case['weights'])} {spec_string(case['spec'])}")
        print(label, flush=True)
        found = run_tree_case(case)
        if found:
            print("   MISMATCH: " + "; ".join(found), flush=True)
            problems += [f"{label}: {p}" for p in found]
    n_other, other_problems = (0, []) if args.no_other else run_other(args.quick, args.seed)
    problems += other_problems
    print(f"\n{len(cases)} tree cases x {len(THREADS)} fits ({len(REFUSED)} refused by the data alike on every "
          f"thread count), {n_other} other cases; {len(problems)} mismatches in {time.time() - t0:.0f} s")
    for reason in sorted(set(r[-160:] for r in REFUSED)):
        print("  refused: " + reason)
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

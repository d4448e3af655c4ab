"""One epoch of SGD@k-avg next to one epoch of scikit-learn's hinge SGD, same data, same run.

Goal (issue 6): SGD@k-avg costs at most 2× ``SGDClassifier(loss="hinge")``
per epoch, on 10⁶ × 100 dense data and on a sparse CSR set of similar size
(10⁶ rows × 20,000 columns, 30 non-zeros per row: 3·10⁷ stored values).

Run::

    RANKCORE_BENCH_PROFILE=full pytest benchmarks/bench_precision_at_k.py --benchmark-only -s

The ``fast`` profile (default) uses 10⁵ rows.  Each case records its time in
``benchmark.extra_info``; the summary printed at the end of the session gives
the ratio ours / scikit-learn per data layout.

Boosted surrogates (issue 14): ``rankcore.boost(objective="prec@k-avg:0.05")``
against the push objective (``rankcore.boost()``), time per boosting
iteration at 10⁵ rows (both profiles), stumps learner, 20 features; the
prec@k objective is also run with the generic line search (the path before
the exact line, ``_SurrogateBound.exact_line = False``) in the same session.
Goal: at most 3× the push objective's time per iteration.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

SIZES = {"fast": 100_000, "full": 1_000_000}
N_FEATURES_DENSE = 100
N_FEATURES_SPARSE, NNZ_PER_ROW = 20_000, 30
BATCH_SIZE = 512

_TIMES: dict[tuple[str, str], float] = {}


@pytest.fixture(scope="module")
def dense_data(profile):
    n = SIZES[profile]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, N_FEATURES_DENSE))
    y = (X[:, :5].sum(axis=1) + rng.standard_normal(n) > 3.0).astype(np.int64)  # ~11 % positives
    return X, y


@pytest.fixture(scope="module")
def sparse_data(profile):
    n = SIZES[profile]
    rng = np.random.default_rng(1)
    indptr = np.arange(0, n * NNZ_PER_ROW + 1, NNZ_PER_ROW, dtype=np.int32)
    indices = rng.integers(0, N_FEATURES_SPARSE, n * NNZ_PER_ROW, dtype=np.int32)
    X = sp.csr_matrix((rng.random(n * NNZ_PER_ROW), indices, indptr), shape=(n, N_FEATURES_SPARSE))
    X.sum_duplicates()
    y = (X @ rng.standard_normal(N_FEATURES_SPARSE) + rng.standard_normal(n) > 3.0).astype(np.int64)
    return X, y


def _ours():
    from rankcore import SGDAtK

    # the epoch kernel alone, as SGDClassifier's: no warm start, no internal scaling, no averaging
    return SGDAtK(k=0.05, surrogate="avg", batch_size=BATCH_SIZE, n_epochs=1, init="zero", standardize=False,
                  average=False, random_state=0)


def _sklearn():
    from sklearn.linear_model import SGDClassifier

    return SGDClassifier(loss="hinge", max_iter=1, tol=None, random_state=0)


def _run(benchmark, layout, name, make, data):
    X, y = data

    def one_epoch():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SGDClassifier: "max_iter reached" after one epoch
            make().fit(X, y)

    benchmark.pedantic(one_epoch, rounds=3, iterations=1, warmup_rounds=1)
    _TIMES[(layout, name)] = benchmark.stats.stats.min
    benchmark.extra_info.update(layout=layout, estimator=name, n_samples=X.shape[0], n_features=X.shape[1],
                                min_seconds=benchmark.stats.stats.min)
    other = _TIMES.get((layout, "sklearn_hinge"))
    if name == "sgd_at_k_avg" and other:
        benchmark.extra_info["ratio_vs_sklearn_hinge"] = benchmark.stats.stats.min / other


# scikit-learn first, so that our case can report the ratio in its extra_info
@pytest.mark.parametrize("name", ["sklearn_hinge", "sgd_at_k_avg"])
def test_one_epoch_dense(benchmark, dense_data, name):
    benchmark.group = "one epoch, dense"
    _run(benchmark, "dense", name, _sklearn if name == "sklearn_hinge" else _ours, dense_data)


@pytest.mark.parametrize("name", ["sklearn_hinge", "sgd_at_k_avg"])
def test_one_epoch_sparse(benchmark, sparse_data, name):
    benchmark.group = "one epoch, sparse CSR"
    _run(benchmark, "sparse", name, _sklearn if name == "sklearn_hinge" else _ours, sparse_data)


def _print_epoch_summary():
    lines = []
    for layout in ("dense", "sparse"):
        ours, theirs = _TIMES.get((layout, "sgd_at_k_avg")), _TIMES.get((layout, "sklearn_hinge"))
        if ours and theirs:
            lines.append(f"  {layout:6s}: SGD@k-avg {ours:.3f} s, SGDClassifier(hinge) {theirs:.3f} s, "
                         f"ratio {ours / theirs:.2f} (goal <= 2)")
    if lines:
        print("\nprecision@k: one epoch, minimum of 3 rounds\n" + "\n".join(lines))



# --------------------------------------------------------------------------
# Boosting with a precision@k surrogate objective against the push objective
# --------------------------------------------------------------------------

BOOST_ROWS, BOOST_ITERATIONS = 100_000, 20
_BOOST_TIMES: dict[str, float] = {}


@pytest.fixture(scope="module")
def boost_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((BOOST_ROWS, 20))
    y = (rng.random(BOOST_ROWS) < 1 / (1 + np.exp(-(X @ rng.standard_normal(20) * 0.5 - 1.5)))).astype(np.int64)
    return X, y


@pytest.mark.parametrize("name", ["push", "prec@k-avg", "prec@k-avg bisection", "prec@k-avg generic line"])
def test_boost_time_per_iteration(benchmark, boost_data, name):
    import rankcore
    from rankcore.precision_at_k.objectives import TopKLine, _SurrogateBound

    X, y = boost_data
    objective = None if name == "push" else "prec@k-avg:0.05"

    def fit(n_iter):
        model = rankcore.boost(objective=objective, n_iter=n_iter, random_state=0, n_jobs=1)
        return model.fit(X, y)

    exact, minimize = _SurrogateBound.exact_line, TopKLine.minimize
    _SurrogateBound.exact_line = name != "prec@k-avg generic line"
    if name == "prec@k-avg bisection":  # the exact line, minimized by line_search (bisection to 1e-13)
        TopKLine.minimize = None
    try:
        fit(1)  # warm up
        start = time.perf_counter()
        fit(1)
        setup = time.perf_counter() - start  # binning, first objective state: not per iteration
        n_iter = 5 if "generic" in name else BOOST_ITERATIONS  # the generic line costs seconds per iteration
        benchmark.pedantic(fit, args=(n_iter,), rounds=1, iterations=1)
    finally:
        _SurrogateBound.exact_line, TopKLine.minimize = exact, minimize
    per_iteration = max(benchmark.stats.stats.min - setup, 1e-9) / (n_iter - 1)
    _BOOST_TIMES[name] = per_iteration
    benchmark.group = "boost, time per iteration"
    benchmark.extra_info.update(n_rows=BOOST_ROWS, iterations=BOOST_ITERATIONS, seconds_per_iteration=per_iteration)
    if name != "push" and "push" in _BOOST_TIMES:
        benchmark.extra_info["ratio_vs_push"] = per_iteration / _BOOST_TIMES["push"]


def teardown_module(module):  # noqa: F811 -- extends the summary above
    _print_epoch_summary()
    push = _BOOST_TIMES.get("push")
    if push:
        lines = [f"  {name:24s} {t * 1e3:8.1f} ms/iteration, ratio {t / push:5.2f} vs push"
                 for name, t in _BOOST_TIMES.items()]
        print(f"\nboost, {BOOST_ROWS} rows, stumps (goal: prec@k-avg <= 3x push)\n" + "\n".join(lines))

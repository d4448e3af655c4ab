"""One epoch of SGD@k-avg next to one epoch of scikit-learn's hinge SGD, same data, same run.

Goal: SGD@k-avg costs at most 2× ``SGDClassifier(loss="hinge")``
per epoch, on 10⁶ × 100 dense data and on a sparse CSR set of similar size
(10⁶ rows × 20,000 columns, 30 non-zeros per row: 3·10⁷ stored values).

Run::

    RANKCORE_BENCH_PROFILE=full pytest benchmarks/bench_precision_at_k.py --benchmark-only -s

The ``fast`` profile (default) uses 10⁵ rows.  Each case records its time in
``benchmark.extra_info``; the summary printed at the end of the session gives
the ratio ours / scikit-learn per data layout.

Boosted surrogates: ``rankcore.boost(objective=...)`` for
each boostable surrogate (``prec@k-avg:0.05``, ``prec@k-ramp:0.05``,
``prec@k-max:0.05``, ``prec@k-struct``) against the push objective
(``rankcore.boost()``), time per boosting iteration at 10⁵ rows × 20 (both
profiles), stumps learner, default bins, side by side in one session with the
ratio to push.  The avg objective is also run along the earlier paths: first
trial step 1 (``piecewise_linear_search``), bisection on the exact line
(``line_search``) and the generic line (``_BoundPrecAtK.exact_line =
False``).  Goal: at most 3× the push objective's time per iteration::

    pytest benchmarks/bench_precision_at_k.py --benchmark-only -s -k boost
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

BOOST_ROWS, BOOST_ITERATIONS = 100_000, 50
_BOOST_TIMES: dict[str, float] = {}

#: name -> objective spec; "push" (the default exp loss) first, so that the others report a ratio to it
BOOST_CASES = {
    "push": None,
    "prec@k-avg": "prec@k-avg:0.05",
    "prec@k-ramp": "prec@k-ramp:0.05",
    "prec@k-max": "prec@k-max:0.05",
    "prec@k-struct": "prec@k-struct",            # k = n+ (about 30 000 here): the largest k
    # the avg objective along the slower paths (first trial step 1, bisection, the generic line), same session
    "prec@k-avg first step 1": "prec@k-avg:0.05",        # piecewise_linear_search from t = 1
    "prec@k-avg bisection": "prec@k-avg:0.05",           # the exact line, minimized by line_search
    "prec@k-avg generic line": "prec@k-avg:0.05",        # no exact line: a sort per evaluation
}


@pytest.fixture(scope="module")
def boost_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((BOOST_ROWS, 20))
    y = (rng.random(BOOST_ROWS) < 1 / (1 + np.exp(-(X @ rng.standard_normal(20) * 0.5 - 1.5)))).astype(np.int64)
    return X, y  # about 30 % positives


@pytest.mark.parametrize("name", list(BOOST_CASES))
def test_boost_time_per_iteration(benchmark, boost_data, name):
    """Time per boosting iteration: the median time between consecutive iterations (a callback
    stamps each one, so binning and the first objective state are left out), minimum over rounds."""
    import rankcore
    from rankcore.precision_at_k.objectives import TopKLine, _BoundPrecAtK

    X, y = boost_data
    objective = BOOST_CASES[name]
    medians = []

    def fit(n_iter):
        stamps = []
        model = rankcore.boost(objective=objective, n_iter=n_iter, early_stopping=False, random_state=0, n_jobs=1)
        model.fit(X, y, callbacks=lambda info: stamps.append(time.perf_counter()))
        assert model.n_iter_ == n_iter, f"{name}: stopped after {model.n_iter_} iterations ({model.stop_reason_})"
        medians.append(float(np.median(np.diff(stamps))))
        return model

    saved = _BoundPrecAtK.exact_line, TopKLine.minimize, TopKLine.CONVEX_KINDS
    _BoundPrecAtK.exact_line = name != "prec@k-avg generic line"
    if name == "prec@k-avg bisection":  # the exact line, minimized by line_search (bisection to 1e-13)
        TopKLine.minimize = None
    if name == "prec@k-avg first step 1":  # no convex search: every line starts at t = 1
        TopKLine.CONVEX_KINDS = ()
    generic = "generic" in name  # the generic line costs seconds per iteration
    n_iter, rounds = (5, 1) if generic else (BOOST_ITERATIONS, 3)
    try:
        fit(2)  # warm up
        medians.clear()
        benchmark.pedantic(fit, args=(n_iter,), rounds=rounds, iterations=1)
    finally:
        _BoundPrecAtK.exact_line, TopKLine.minimize, TopKLine.CONVEX_KINDS = saved
    per_iteration = min(medians)
    _BOOST_TIMES[name] = per_iteration
    benchmark.group = "boost, time per iteration"
    benchmark.extra_info.update(n_rows=BOOST_ROWS, iterations=n_iter, seconds_per_iteration=per_iteration)
    if name != "push" and "push" in _BOOST_TIMES:
        benchmark.extra_info["ratio_vs_push"] = per_iteration / _BOOST_TIMES["push"]


def teardown_module(module):  # noqa: F811 -- extends the summary above
    _print_epoch_summary()
    push = _BOOST_TIMES.get("push")
    if push:
        lines = [f"  {name:24s} {t * 1e3:8.1f} ms/iteration, ratio {t / push:5.2f} vs push"
                 for name, t in _BOOST_TIMES.items()]
        print(f"\nboost, {BOOST_ROWS} rows x 20, stumps (goal: prec@k surrogates <= 3x push)\n" + "\n".join(lines))

"""Push family benchmarks, each measured beside its alternative in the same run.

1. One boosting iteration (exp loss, p = 4, 20 features, ``features`` learner)
   against the naive pairwise algorithm of the paper (every (positive,
   negative) pair visited for every weak ranker and every line-search step),
   at I = K = n/2, growing n until the naive one stops being feasible; ours
   continues to n = 10⁶.
2. ``stumps`` on 10⁶ × 50 float32 (5 % positives, exp loss, ``pow:4``): time
   per boosting iteration next to one LightGBM depth-1 round on the same data
   with the same thread count (1 and all cores).
3. Gradient evaluation of the hinge and logistic push objectives at n = 10⁵
   and 10⁶ (1 % positives), next to the generic per-pair kernel where it is
   feasible.

``RANKCORE_BENCH_PROFILE=fast`` (default) runs small sizes in seconds;
``full`` runs the sizes above.  Run with ``pytest benchmarks/bench_push.py
--benchmark-only`` (add ``-s`` or look at the summary printed at the end).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from _lightgbm import seconds_per_lightgbm_round
from _ratios import time_ratio
from _shapes import rare_positives
from rankcore.objectives._push import BoundPairwisePush
from rankcore.push._backend import InMemoryBackend
from rankcore.push._driver import run_boosting
from rankcore.push._line_search import line_search
from rankcore.registry import resolve
from rankcore.validation import effective_n_threads

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
FULL = PROFILE == "full"
SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "push"
_TIMES: dict = {}




def _record(key, seconds):
    _TIMES[key] = seconds
    return seconds


# --------------------------------------------------------------------------
# 1. One iteration against the naive pairwise algorithm
# --------------------------------------------------------------------------

def _iteration_data(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.zeros(n, dtype=np.int8)
    y[: n // 2] = 1                                        # I = K = n/2
    X[y == 1, :3] += 0.5
    return X, y


def naive_pairwise_iteration(X, y, p=4.0):
    """One iteration of Rudin's (2006) Figure 1, pair by pair (float64, I × K temporaries).

    For each of the d weak rankers: M_j = h_j(x_i) − h_j(x̃_k) over all pairs and
    the derivative Σ_k (Σ_i d_ik)^{p−1} Σ_i d_ik M_ikj; then a line search on the
    pairs (Newton/bisection, each step O(I·K)).  Starts from f = 0, like ours.
    """
    lo, hi = X.min(axis=0), X.max(axis=0)
    H = (X - lo) / np.where(hi > lo, hi - lo, 1.0)
    Hp, Hn = H[y == 1], H[y == 0]
    f_pos = np.zeros(Hp.shape[0])
    f_neg = np.zeros(Hn.shape[0])
    d = np.exp(-(f_pos[:, None] - f_neg[None, :]))           # pair weights (I, K)
    d /= d.sum()
    col = d.sum(axis=0)                                       # Σ_i d_ik per negative
    best, best_j = -1.0, -1
    for j in range(H.shape[1]):
        M = Hp[:, j][:, None] - Hn[:, j][None, :]
        deriv = abs(float(np.sum(col ** (p - 1) * np.sum(d * M, axis=0))))
        if deriv > best:
            best, best_j = deriv, j
    M = Hp[:, best_j][:, None] - Hn[:, best_j][None, :]
    log_d = np.log(d)

    from rankcore.objectives._base import LinePoint

    def phi(alpha):
        a = log_d - alpha * M
        top = a.max()
        e = np.exp(a - top)
        s = e.sum(axis=0)                                      # per negative, scaled by e^{-top}
        L = np.log(s) + top
        J = float(np.logaddexp.reduce(p * L))
        w = np.exp(p * L - J)
        dL = -(e * M).sum(axis=0) / s
        d2L = (e * M * M).sum(axis=0) / s - dL ** 2
        d1 = float(p * (w * dL).sum())
        curv = float((w * (p * p * dL * dL + p * d2L)).sum())
        return LinePoint(alpha, J, d1, curv - d1 * d1)

    return line_search(phi, log_value=True).alpha


def _ours_one_iteration(X, y, n_threads):
    objective = resolve("objective", "push:exp,pow:4")
    layout = resolve("learner", "features").prepare(X, n_threads=n_threads)
    backend = InMemoryBackend(objective.bind(y, n_threads=n_threads), layout, X, y, n_threads=n_threads)
    return layout, backend


NAIVE_SIZES = [1_000, 2_000, 4_000] + ([6_000, 10_000] if FULL else [])          # n = I + K
OURS_SIZES = NAIVE_SIZES + ([100_000, 1_000_000] if FULL else [100_000])


@pytest.mark.parametrize("n", OURS_SIZES, ids=lambda n: f"n={n}")
def test_iteration_ours(benchmark, n):
    X, y = _iteration_data(n)
    n_threads = effective_n_threads(None)

    def run(layout, backend):
        run_boosting(backend, layout, n_iter=1, log_value=True)

    benchmark.pedantic(lambda pair: run(*pair), setup=lambda: ((_ours_one_iteration(X, y, n_threads),), {}),
                       rounds=5 if n <= 100_000 else 3, iterations=1)
    seconds = _record(("ours", n), benchmark.stats.stats.median)
    benchmark.extra_info.update(n=n, I=n // 2, K=n // 2, seconds=seconds)
    SUMMARY.append(f"one iteration, features, exp, pow:4, I=K={n // 2:>7}: ours {seconds * 1e3:9.3f} ms")


@pytest.mark.parametrize("n", NAIVE_SIZES, ids=lambda n: f"n={n}")
def test_iteration_naive_pairwise(benchmark, n):
    X, y = _iteration_data(n)
    benchmark.pedantic(naive_pairwise_iteration, args=(X, y), rounds=1 if n >= 6_000 else 2, iterations=1)
    seconds = _record(("naive", n), benchmark.stats.stats.median)
    ratio = time_ratio(seconds, _TIMES.get(("ours", n)))
    benchmark.extra_info.update(n=n, I=n // 2, K=n // 2, seconds=seconds, speedup_of_ours=ratio)
    SUMMARY.append(f"one iteration, I=K={n // 2:>6}: naive pairwise {seconds:8.3f} s; ours is {ratio:10.0f}x faster")


def test_iteration_same_choice_as_naive():
    """The benchmarked naive iteration and ours take the same step (so the comparison is fair)."""
    X, y = _iteration_data(600)
    layout, backend = _ours_one_iteration(X, y, 1)
    result = run_boosting(backend, layout, n_iter=1, log_value=True)
    assert result.records[0].alpha == pytest.approx(naive_pairwise_iteration(X, y), rel=1e-8)


# --------------------------------------------------------------------------
# 2. stumps against one LightGBM depth-1 round
# --------------------------------------------------------------------------

STUMP_N = 1_000_000 if FULL else 100_000
STUMP_D = 50


@pytest.fixture(scope="module")
def stump_data():
    return rare_positives(STUMP_N, STUMP_D, product_feature=False)


THREADS = sorted({1, effective_n_threads(None)})


@pytest.mark.parametrize("n_threads", THREADS, ids=lambda t: f"threads={t}")
def test_stumps_iteration_ours(benchmark, stump_data, n_threads):
    X, y = stump_data
    objective = resolve("objective", "push:exp,pow:4")
    layout = resolve("learner", "stumps").prepare(X, random_state=0, n_threads=n_threads)
    backend = InMemoryBackend(objective.bind(y, n_threads=n_threads), layout, X, y, n_threads=n_threads)
    run_boosting(backend, layout, n_iter=2, log_value=True)          # warm up: past the tied start
    per_call = 10
    benchmark.pedantic(run_boosting, args=(backend, layout), kwargs=dict(n_iter=per_call, log_value=True),
                       rounds=3, iterations=1)
    seconds = _record(("stumps", n_threads), benchmark.stats.stats.median / per_call)
    benchmark.extra_info.update(n=STUMP_N, d=STUMP_D, threads=n_threads, seconds_per_iteration=seconds)


@pytest.mark.parametrize("n_threads", THREADS, ids=lambda t: f"threads={t}")
def test_stumps_round_lightgbm(benchmark, stump_data, n_threads):
    lgb = pytest.importorskip("lightgbm")
    X, y = stump_data
    params = dict(objective="binary", num_leaves=2, max_depth=1, learning_rate=0.1, num_threads=n_threads,
                  verbose=-1, max_bin=255, min_data_in_leaf=1, min_sum_hessian_in_leaf=0.0)
    seconds = seconds_per_lightgbm_round(benchmark, lgb, X, y, params, per_call=10)
    ours = _TIMES.get(("stumps", n_threads))
    ratio = time_ratio(ours, seconds)
    benchmark.extra_info.update(n=STUMP_N, d=STUMP_D, threads=n_threads, seconds_per_round=seconds,
                                ours_over_lightgbm=ratio)
    SUMMARY.append(f"stumps {STUMP_N}x{STUMP_D} float32, threads={n_threads}: ours {ours * 1e3:7.1f} ms/iteration, "
                   f"LightGBM depth-1 {seconds * 1e3:7.1f} ms/round, ratio ours/LightGBM {ratio:5.2f}")


# --------------------------------------------------------------------------
# 3. Gradient evaluation of the hinge and logistic objectives
# --------------------------------------------------------------------------

GRAD_SIZES = [100_000, 1_000_000] if FULL else [10_000, 100_000]


def _gradient_case(n, seed=2):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.01).astype(np.int8)               # 1 % positives
    f = rng.normal(size=n) + 0.5 * y
    return y, f


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
@pytest.mark.parametrize("n", GRAD_SIZES, ids=lambda n: f"n={n}")
def test_gradient_evaluation(benchmark, loss, n):
    y, f = _gradient_case(n)
    objective = resolve("objective", f"push:{loss},pow:4")
    n_threads = effective_n_threads(None)
    bound = objective.bind(y, n_threads=n_threads)
    pairs = int(y.sum()) * int(n - y.sum())
    rounds = 1 if (loss == "logistic" and n >= 1_000_000) else 3
    benchmark.pedantic(bound.value_and_gradient, args=(f,), rounds=rounds, iterations=1)
    seconds = benchmark.stats.stats.median
    extra = dict(n=n, I=int(y.sum()), K=int(n - y.sum()), seconds=seconds)
    line = f"gradient, push:{loss},pow:4, n={n:>8} (I·K = {pairs:.2e}): {seconds * 1e3:10.2f} ms"
    # the generic per-pair kernel, where it is feasible, as the alternative
    if pairs <= (2e9 if FULL else 2e8):
        generic = BoundPairwisePush(objective, y, None, _GenericKernel(objective.loss_component),
                                      objective.price_component, n_threads=n_threads)
        start = time.perf_counter()
        generic.value_and_gradient(f)
        slow = time.perf_counter() - start
        extra.update(generic_seconds=slow, speedup=slow / seconds)
        line += f"; generic per-pair kernel {slow:8.3f} s ({slow / seconds:7.1f}x)"
    benchmark.extra_info.update(extra)
    SUMMARY.append(line)


class _GenericKernel:
    """The loss with its pairwise sums forced through the generic per-pair Cython kernel."""

    def __init__(self, loss):
        self._loss = loss
        self.has_second_derivative = loss.has_second_derivative

    def negative_sums(self, f_pos, w_pos, f_neg, *, n_threads=1):
        from rankcore.losses import _blocked

        return _blocked.negative_sums(self._loss, f_pos, w_pos, f_neg, n_threads=n_threads)

    def positive_sums(self, f_pos, f_neg, c_neg, *, n_threads=1):
        from rankcore.losses import _blocked

        return _blocked.positive_sums(self._loss, f_pos, f_neg, c_neg, n_threads=n_threads)

"""The fast ratio check: the kernels that matter, each timed beside its alternative in the same run.

Three same-run ratios, all "higher is better" (how many times faster ours is):

``auc``
    scikit-learn's ``roc_auc_score`` / rankcore's ``auc`` on 10^5 tied scores.
``push_iteration``
    the paper's naive pairwise iteration / ours (exp loss, ``pow:4``,
    ``features`` learner, I = K = 1000, 20 features) -- as ``bench_push.py``;
    building the fit state (binning, first weights) is not timed.
``stumps_search``
    NumPy (one ``np.bincount`` of the gradient per feature) / rankcore's
    histogram kernel, the core of the ``stumps`` search, on 10^5 x 50 bin
    codes.  LightGBM, the alternative of ``bench_push.py``, is an optional
    extra; NumPy is always there, so CI can run this.

Everything runs single-threaded (``n_threads=1``): a ratio against a
single-threaded alternative then does not depend on the machine's core count,
so a baseline from one machine is meaningful on another.  And single-threaded
work can be timed in CPU time (``time.process_time``), which other processes'
load does not inflate: in wall time, on a loaded 2-core machine, the slow side
of a pair (100 ms of scikit-learn against 1 ms of ours) is preempted in every
round while the fast side is not, and the ratio moved 2-4x between runs.  The multi-threaded
ratios are tracked by the full pytest-benchmark suite (``docs/benchmarks.md``).
Each ratio takes the best of several interleaved rounds (background load hits
both sides alike); the cheap side runs several times per round.  About
10-30 s in all on a busy 2-core machine.

The kernels are looked up at call time (``rankcore.metrics.auc``,
``rankcore.learners._threshold_kernels.histograms``, ``run_boosting``), so a test can
replace one with a slowed wrapper and see the check fail.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

__all__ = ["measure", "KERNELS"]

KERNELS = ("auc", "push_iteration", "stumps_search")


def _interleaved(funcs: dict[str, Callable[[], object]], rounds: int, repeats: dict[str, int] | None = None,
                 setup: dict[str, Callable[[], tuple]] | None = None) -> dict[str, float]:
    """Best time of each function, the functions taking turns round by round.

    ``repeats[name]`` times a cheap function several times per round (more
    chances of a quiet moment on a loaded machine); ``setup[name]`` builds
    its arguments before each call, outside the timing.
    """
    repeats = repeats or {}
    setup = setup or {}
    best = dict.fromkeys(funcs, np.inf)
    for _ in range(rounds):
        for name, func in funcs.items():
            for _ in range(repeats.get(name, 1)):
                args = setup[name]() if name in setup else ()
                start = time.process_time()
                func(*args)
                best[name] = min(best[name], time.process_time() - start)
    return best


def _record(key: str, ours: str, other: str, best: dict[str, float], **facts) -> dict:
    return {
        "name": key,
        "fullname": f"ratio-check::{key}",
        "extra_info": {
            f"speedup_vs_{other}": best[other] / best[ours],
            f"{ours}_ms": best[ours] * 1e3,
            f"{other}_ms": best[other] * 1e3,
            "threads": 1,
            **facts,
        },
    }


def measure_auc(rounds: int = 15) -> dict:
    import rankcore.metrics
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    n = 100_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    scores = np.round(rng.normal(size=n) + 0.8 * y, 3)
    best = _interleaved({"rankcore": lambda: rankcore.metrics.auc(y, scores),
                         "sklearn": lambda: roc_auc_score(y, scores)}, rounds, repeats={"rankcore": 3})
    return _record("auc", "rankcore", "sklearn", best, n=n)


def measure_push_iteration(rounds: int = 4) -> dict:
    import bench_push
    from rankcore.push import _driver

    X, y = bench_push._iteration_data(2_000)

    def ours(layout, backend):
        _driver.run_boosting(backend, layout, n_iter=1, log_value=True)

    best = _interleaved({"rankcore": ours, "naive": lambda: bench_push.naive_pairwise_iteration(X, y)}, rounds,
                        repeats={"rankcore": 10},
                        setup={"rankcore": lambda: bench_push._ours_one_iteration(X, y, 1)})  # a fresh fit state
    return _record("push_iteration", "rankcore", "naive", best, n=2_000, I=1_000, K=1_000, d=X.shape[1])


def measure_stumps_search(rounds: int = 15) -> dict:
    from rankcore.registry import resolve

    rng = np.random.default_rng(1)
    n, d = 100_000, 50
    X = rng.normal(size=(n, d)).astype(np.float32)
    gradient = rng.normal(size=n)
    layout = resolve("learner", "stumps").prepare(X, random_state=0, n_threads=1)
    codes = layout.encode(X)
    n_bins = layout.n_bins

    def numpy_histograms():
        return np.stack([np.bincount(codes[j], weights=gradient, minlength=n_bins) for j in range(d)])

    np.testing.assert_allclose(layout.statistics(codes, gradient, n_threads=1), numpy_histograms(),
                               rtol=1e-9, atol=1e-9)  # the two compute the same thing
    best = _interleaved({"rankcore": lambda: layout.statistics(codes, gradient, n_threads=1),
                         "numpy": numpy_histograms}, rounds, repeats={"rankcore": 3})
    return _record("stumps_search", "rankcore", "numpy", best, n=n, d=d, bins=n_bins)


MEASURES = {"auc": measure_auc, "push_iteration": measure_push_iteration, "stumps_search": measure_stumps_search}


def measure(kernels=KERNELS) -> list[dict]:
    """Time the kernels; one pytest-benchmark-like record per kernel (the ratios in ``extra_info``)."""
    unknown = sorted(set(kernels) - set(MEASURES))
    if unknown:
        raise ValueError(f"kernels: expected some of {', '.join(KERNELS)}, got {', '.join(unknown)}")
    return [MEASURES[name]() for name in kernels]

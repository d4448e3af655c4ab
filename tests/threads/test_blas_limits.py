"""BLAS threads follow an estimator's ``n_jobs``: an idle OpenBLAS pool busy-waits on the other cores."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import rankcore
from rankcore._blas import blas_limit

pytestmark = pytest.mark.skipif(not any(lib["user_api"] == "blas" for lib in threadpool_info()),
                                reason="no BLAS library that threadpoolctl can see")


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def _data(n=200, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + rng.normal(size=n) > 0.8).astype(int)
    return X, y


def test_blas_limit_sets_every_blas_library_and_restores_it():
    with threadpool_limits(limits=2, user_api="blas"):
        outside = _blas_threads()
        with blas_limit(1):
            assert _blas_threads() == {1}
        assert _blas_threads() == outside
        with blas_limit(0):                       # at least one thread
            assert _blas_threads() == {1}


def test_sgd_at_k_logistic_start_runs_blas_on_its_threads(monkeypatch):
    from rankcore.precision_at_k import _linear

    seen = []
    original = _linear.logistic_start

    def spy(*args):
        seen.append(_blas_threads())
        return original(*args)

    monkeypatch.setattr(_linear, "logistic_start", spy)
    X, y = _data()
    with threadpool_limits(limits=2, user_api="blas"):
        outside = _blas_threads()
        rankcore.SGDAtK(k=10, n_epochs=1, n_jobs=1, random_state=0).fit(X, y)
        assert _blas_threads() == outside                 # restored after the fit
    assert seen == [{1}]


def test_auto_ranker_candidates_run_blas_on_its_threads(monkeypatch):
    from rankcore.auto import _executors

    seen = []
    original = _executors.run_task

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr(_executors, "run_task", spy)
    X, y = _data(n=150)
    with threadpool_limits(limits=2, user_api="blas"):
        rankcore.AutoRanker(candidates=["linear"], blend=False, n_jobs=1, random_state=0).fit(X, y)
    assert seen and all(s == {1} for s in seen)


_OVERLAPPING = """
import numpy as np
from concurrent.futures import ThreadPoolExecutor
from threadpoolctl import threadpool_info
import rankcore

def blas_threads():
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

rng = np.random.default_rng(0)
X = rng.normal(size=(400, 10))
y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
rankcore.SGDAtK(random_state=0).fit(X, y)
before = blas_threads()
with ThreadPoolExecutor(8) as pool:
    list(pool.map(lambda i: rankcore.SGDAtK(random_state=i, n_jobs=1, n_epochs=3).fit(X, y), range(64)))
print(before == blas_threads(), before, blas_threads())
"""


def test_overlapping_limits_in_threads_restore_the_process_setting():
    # each limit saved and restored what it found: fits overlapping in threads left the process at one fit's
    # limit for every later BLAS call (a fresh interpreter: OpenBLAS reads limits set from threads its own way)
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _OVERLAPPING], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("True"), done.stdout


def test_blas_limit_applies_in_every_thread_not_only_the_first_that_used_it():
    # threadpoolctl lets one thread at a time set OpenBLAS's count and ignores the others: the first thread that
    # used blas_limit kept that control, so a server's pool threads ran every "one thread" call on all of them
    import threading

    import threadpoolctl

    from rankcore._blas import _controller

    release = getattr(getattr(threadpoolctl, "OpenBLASController", None), "clear_controlling_thread", lambda: None)
    libs = [lib for lib in _controller().lib_controllers if lib.user_api == "blas"]
    process = threadpool_limits(limits=2, user_api="blas")   # outside a block: no thread keeps the control
    release()
    try:
        if {lib.num_threads for lib in libs} != {2}:
            pytest.skip("the BLAS libraries run one thread here")
        with blas_limit(1):                                   # the main thread uses it first, as a server's warm-up
            pass
        seen = []

        def request():
            with blas_limit(1):
                seen.append({lib.num_threads for lib in libs})
            seen.append({lib.num_threads for lib in libs})

        worker = threading.Thread(target=request)
        worker.start()
        worker.join()
        assert seen == [{1}, {2}]
    finally:
        release()
        process.restore_original_limits()
        release()

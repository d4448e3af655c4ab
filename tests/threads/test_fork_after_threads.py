"""A process forked after rankcore ran threads (multiprocessing's default on Linux) fits on one thread, not forever.

GNU libgomp keeps its thread pool across a fork as memory only: the child's next parallel region of two
threads waited for threads that no longer exist. The child's fits are run in a subprocess with a timeout, so
that a regression fails the test instead of hanging the suite.
"""

import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import os, sys, time, warnings
    import numpy as np
    import rankcore
    from rankcore import _cpus
    from rankcore.metrics import confidence_interval
    from rankcore.validation import effective_n_threads

    _cpus.LOAD_AWARE = False                  # two threads even on a busy machine
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 10))
    y = (X[:, 0] + rng.normal(size=20000) > 1).astype(int)

    def fits():
        rankcore.boost(learner="trees", n_iter=3, random_state=0, n_jobs=2).fit(X, y)
        rankcore.boost(learner="stumps", n_iter=3, random_state=0, n_jobs=2).fit(X, y)
        confidence_interval(y, X[:, 0], "pauc:0.1", n_boot=100, random_state=0, n_jobs=2)
        return rankcore.ExactBoost(n_runs=2, n_rounds=2, random_state=0, n_jobs=2).fit(X[:2000], y[:2000])

    before = fits().decision_function(X[:50])
    if effective_n_threads(2) < 2:
        print("one core"); sys.exit(0)
    pid = os.fork()
    if pid == 0:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            after = fits().decision_function(X[:50])
        ok = (np.array_equal(after, before) and effective_n_threads(2) == 1
              and sum("forked after rankcore ran threads" in str(w.message) for w in caught) == 1)
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    print("child status", os.waitstatus_to_exitcode(status))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork with GNU libgomp")
def test_a_child_forked_after_threads_fits_on_one_thread_and_says_so():
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() in ("child status 0", "one core"), done.stdout + done.stderr[-2000:]


LIGHTGBM_CHILD = textwrap.dedent("""
    import os, time, warnings
    import numpy as np
    import lightgbm
    import rankcore
    from rankcore import _cpus
    from rankcore.gbdt import lightgbm_objective

    _cpus.LOAD_AWARE = False
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 10))
    y = (X[:, 0] + rng.normal(size=20000) > 1).astype(int)
    # LightGBM's threads, not rankcore's: LightGBM shares GNU libgomp (and its thread pool) with the kernels, and
    # the objective's own kernels run on one thread (a busy machine, as it seems here)
    seen_idle, _cpus.idle_cpus = _cpus.idle_cpus, lambda: 1
    model = lightgbm.LGBMClassifier(objective=lightgbm_objective("push:exp,pow:4"), n_estimators=3, n_jobs=2,
                                    verbose=-1)
    model.fit(X, y)
    _cpus.idle_cpus = seen_idle
    pid = os.fork()
    if pid == 0:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rankcore.boost(learner="trees", n_iter=3, random_state=0, n_jobs=2).fit(X, y)
        os._exit(0)
    for _ in range(300):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            print("child status", os.waitstatus_to_exitcode(status)); break
        time.sleep(0.1)
    else:
        os.kill(pid, 9); os.waitpid(pid, 0); print("child hung")
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork with GNU libgomp")
def test_a_child_forked_after_lightgbm_fitted_with_a_rankcore_objective_does_not_hang():
    pytest.importorskip("lightgbm")
    done = subprocess.run([sys.executable, "-c", LIGHTGBM_CHILD], capture_output=True, text=True, timeout=240)
    assert done.stdout.strip() == "child status 0", done.stdout + done.stderr[-2000:]

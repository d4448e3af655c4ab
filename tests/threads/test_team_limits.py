"""A parallel region may get fewer threads than it asks (OMP_THREAD_LIMIT, OMP_MAX_ACTIVE_LEVELS=0, OMP_DYNAMIC): the
tree kernels that split their work by thread number must still do all of it.  Each case runs in a fresh process:
the OpenMP runtime reads these variables once, when it loads."""

import os
import subprocess
import sys
import textwrap

import pytest

from rankcore import _openmp

pytestmark = pytest.mark.skipif(not _openmp.built_with_openmp(),
                                reason="built without OpenMP: every kernel runs on one thread, no team to shrink")

# n_jobs=1 against n_jobs=2 on a "quiet host of two CPUs" (as tests/threads/conftest.py pretends): every tree kernel
# is asked for two threads, above its serial thresholds (20000 rows x 8 columns)
SCRIPT = textwrap.dedent("""
    import os
    import numpy as np
    from rankcore import PushBoost, _cpus, _openmp
    os.sched_getaffinity = lambda pid: {0, 1}
    _cpus.process_cpu_quota = lambda: None
    _openmp.max_threads = lambda: 64
    _cpus.idle_cpus = lambda: None
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(20000, 8)), 2)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=20000) > 1.0).astype(int)
    for learner in ("trees:max_leaves=8", "trees:growth=oblivious,max_depth=4"):
        scores = [PushBoost(learner=learner, n_iter=3, n_jobs=j, random_state=0).fit(X, y).decision_function(X)
                  for j in (1, 2)]
        print(learner, "same" if np.array_equal(scores[0], scores[1]) else "DIFFERENT")
""")


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="the script pretends two CPUs through affinity")
@pytest.mark.parametrize("setting", ["OMP_THREAD_LIMIT=1", "OMP_MAX_ACTIVE_LEVELS=0", "OMP_DYNAMIC=true"])
def test_tree_fits_are_the_same_when_a_region_gets_fewer_threads(setting):
    name, value = setting.split("=")
    env = {**os.environ, name: value}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["trees:max_leaves=8", "same", "trees:growth=oblivious,max_depth=4", "same"]


# What a fit counts as its threads (n_jobs=-1 on a "quiet host of four CPUs" whose runtime would give four): held
# against other fits, given to its BLAS calls, reported by Dask, and taken as threads started before a fork
COUNT_SCRIPT = textwrap.dedent("""
    import os, warnings
    import numpy as np
    from rankcore import PushBoost, _cpus, _openmp
    from rankcore.validation import effective_n_threads
    os.sched_getaffinity = lambda pid: {0, 1, 2, 3}
    _cpus.process_cpu_quota = lambda: None
    _cpus.LOAD_AWARE = False
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(300, 3)), rng.integers(0, 2, 300)
    PushBoost(learner="trees:max_leaves=4", n_iter=2, n_jobs=-1).fit(X, y)
    print(_openmp.max_threads(), effective_n_threads(-1), effective_n_threads(None), effective_n_threads(4),
          _cpus._threads["started"], flush=True)
    child = os.fork()
    if child == 0:              # a child forked after the fit: threads only if the parent really ran some
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print(effective_n_threads(-1), len(caught), flush=True)
        os._exit(0)
    os.waitpid(child, 0)
""")


@pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(os, "sched_getaffinity"),
                    reason="the script pretends four CPUs through affinity and forks")
@pytest.mark.parametrize("setting, expected", [
    ("OMP_THREAD_LIMIT=1", 1), ("OMP_THREAD_LIMIT=3", 3), ("OMP_DYNAMIC=true", 1), ("OMP_MAX_ACTIVE_LEVELS=0", 1),
    ("OMP_DYNAMIC=false", 4)])
def test_the_thread_count_is_what_a_region_is_sure_to_get(setting, expected):
    name, value = setting.split("=")
    env = {**os.environ, "OMP_NUM_THREADS": "4", name: value}
    done = subprocess.run([sys.executable, "-c", COUNT_SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    counts, child = done.stdout.splitlines()
    started = str(expected > 1)
    assert counts.split() == [str(expected)] * 4 + [started]
    # one thread in the child after a parent of one thread: no warning that the parent's threads are lost to it
    assert child.split() == (["1", "1"] if expected > 1 else ["1", "0"])

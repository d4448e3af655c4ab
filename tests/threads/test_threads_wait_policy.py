"""``import rankcore`` leaves the OpenMP runtime's wait policy alone; thread counts leave out busy CPUs.

rankcore's kernels share GNU libgomp with other libraries (LightGBM links the
system's copy too), and the runtime reads its wait policy once, when it loads.
Loading it with sleeping waits made LightGBM's two-thread fits several times
slower in any process that imported rankcore first.  Each case runs in a fresh
interpreter; ``OMP_DISPLAY_ENV=VERBOSE`` makes libgomp print how many times a
waiting thread polls before it sleeps (``GOMP_SPINCOUNT``: 300,000 by default,
0 under the passive policy).
"""

import os
import re
import subprocess
import sys

import pytest

from rankcore import _cpus, _openmp
from rankcore.validation import effective_n_threads

#: Variables by which a user chooses how OpenMP threads wait (libgomp, LLVM's libomp).
USER_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")

_CODE = """
import os
import numpy as np
import rankcore
rankcore.boost(learner="trees", n_iter=2).fit(np.arange(40.0).reshape(20, 2), np.arange(20) % 2)   # the kernels load
print("parent:", os.environ.get("OMP_WAIT_POLICY"), os.environ.get("GOMP_SPINCOUNT"))
"""


def _import_rankcore(**env):
    """The spin count libgomp read when rankcore's kernels loaded it, and the script's output."""
    clean = {k: v for k, v in os.environ.items() if k not in USER_SETTINGS and k != "OMP_DISPLAY_ENV"}
    out = subprocess.run([sys.executable, "-c", _CODE], env={**clean, "OMP_DISPLAY_ENV": "VERBOSE", **env},
                         capture_output=True, text=True, check=True)
    shown = re.search(r"GOMP_SPINCOUNT = '(\d+)'", out.stderr)
    if shown is None:
        pytest.skip("the OpenMP runtime is not GNU libgomp: it does not display its spin count")
    return int(shown.group(1)), out.stdout.splitlines()


def test_wait_policy_is_the_runtime_default():
    spins, stdout = _import_rankcore()
    assert spins == 300_000          # libgomp's own default: not the passive policy's 0
    assert stdout == ["parent: None None"]


@pytest.mark.parametrize("env, expected", [({"OMP_WAIT_POLICY": "passive"}, 0), ({"GOMP_SPINCOUNT": "10000"}, 10_000)])
def test_wait_policy_of_the_user_is_kept(env, expected):
    spins, _ = _import_rankcore(**env)
    assert spins == expected


@pytest.fixture
def host(monkeypatch):
    """A host of ``cpus`` CPUs (affinity mask and ``os.cpu_count``) with ``others`` runnable threads of other
    processes."""

    def set_host(cpus, others):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)), raising=False)
        monkeypatch.setattr(os, "cpu_count", lambda: cpus)
        monkeypatch.setattr(_cpus, "process_cpu_quota", lambda: None)
        monkeypatch.setattr(_cpus, "other_running_threads", lambda: others)
        monkeypatch.setattr(_cpus, "IDLE_SAMPLE_SECONDS", 0.0)          # every call reads the (fake) host
        monkeypatch.setattr(_cpus, "_idle_sample", [-float("inf"), None])  # and its readings are not kept after
        monkeypatch.setattr(_openmp, "max_threads", lambda: 64)

    return set_host


@pytest.mark.parametrize("others, expected", [(0, 8), (1, 7), (5, 3), (8, 1), (30, 1), (None, 8)])
def test_default_threads_leave_out_the_busy_cpus(host, others, expected):
    host(8, others)
    assert effective_n_threads(None) == expected
    assert effective_n_threads(-1) == expected


def test_all_but_one_also_leaves_out_the_busy_cpus(host):
    host(8, 2)
    assert effective_n_threads(-2) == 6
    host(8, 6)
    assert effective_n_threads(-2) == 2


def test_an_explicit_thread_count_also_leaves_out_the_busy_cpus(host):
    host(8, 8)
    assert effective_n_threads(4) == 1
    assert effective_n_threads(1) == 1
    host(8, 5)
    assert effective_n_threads(4) == 3
    host(8, 0)
    assert effective_n_threads(4) == 4


def _fake_proc(tmp_path, loadavg, states):
    (tmp_path / "loadavg").write_text(loadavg)
    tasks = tmp_path / "task"
    for i, (comm, state) in enumerate(states):
        (tasks / str(100 + i)).mkdir(parents=True)
        (tasks / str(100 + i) / "stat").write_text(f"{100 + i} ({comm}) {state} 1 100 100 0 -1 4194560 300 0\n")
    return tmp_path / "loadavg", tasks


def test_other_running_threads_leave_out_this_process_own(tmp_path):
    # 5 runnable on the host, 2 of them ours (one with a name holding ") R (")
    loadavg, tasks = _fake_proc(tmp_path, "0.52 0.58 0.59 5/467 12345\n",
                                [("python", "R"), ("odd) R (name", "S"), ("omp worker", "R"), ("x", "S")])
    assert _cpus.other_running_threads(loadavg, tasks) == 3


def test_other_running_threads_never_below_zero(tmp_path):
    loadavg, tasks = _fake_proc(tmp_path, "0.0 0.0 0.0 1/10 1\n", [("python", "R"), ("omp", "R")])
    assert _cpus.other_running_threads(loadavg, tasks) == 0


@pytest.mark.parametrize("content", ["", "0.1 0.2 0.3\n", "0.1 0.2 0.3 x/10 1\n"])
def test_other_running_threads_unreadable_load_is_unknown(tmp_path, content):
    loadavg, tasks = _fake_proc(tmp_path, content, [("python", "R")])
    assert _cpus.other_running_threads(loadavg, tasks) is None
    assert _cpus.other_running_threads(tmp_path / "missing", tasks) is None
    assert _cpus.other_running_threads(tmp_path / "loadavg", tmp_path / "missing") is None


@pytest.mark.skipif(not os.path.exists(_cpus.PROC_LOADAVG), reason="no /proc/loadavg on this platform")
def test_other_running_threads_of_this_host():
    others = _cpus.other_running_threads()
    assert isinstance(others, int) and others >= 0
    _cpus._idle_sample[:] = [-float("inf"), None]
    assert 0 <= _cpus.idle_cpus() <= os.cpu_count()


def test_one_reading_of_the_load_serves_a_short_while(monkeypatch):
    readings = []
    monkeypatch.setattr(_cpus, "other_running_threads", lambda: readings.append(1) or 0)
    monkeypatch.setattr(_cpus, "_idle_sample", [-float("inf"), None])
    monkeypatch.setattr(_cpus, "IDLE_SAMPLE_SECONDS", 60.0)
    assert [_cpus.idle_cpus() for _ in range(5)] == [os.cpu_count()] * 5
    assert len(readings) == 1
    monkeypatch.setattr(_cpus, "IDLE_SAMPLE_SECONDS", 0.0)
    _cpus.idle_cpus()
    assert len(readings) == 2


def test_a_brief_burst_is_not_a_load(monkeypatch):
    # the first reading sees 2 other runnable threads, the next ones none: idle; a steady load stays seen
    for readings, expected in (([2, 0, 0], os.cpu_count()), ([2, 2, 1, 2, 2], max(0, os.cpu_count() - 1)),
                               ([3] * 10, max(0, os.cpu_count() - 3))):
        seen = iter(readings)
        monkeypatch.setattr(_cpus, "other_running_threads", lambda: next(seen))
        monkeypatch.setattr(_cpus, "_idle_sample", [-float("inf"), None])
        assert _cpus.idle_cpus() == expected

"""The one helper that decides a kernel's thread count: n_jobs, the affinity mask, the cgroup quota, OpenMP limits."""

import os
import subprocess
import sys

import pytest
from threadpoolctl import threadpool_limits

from rankcore import _cpus, _openmp
from rankcore.validation import effective_n_threads


@pytest.fixture
def machine(monkeypatch):
    """A quiet machine with ``cpus`` CPUs in the affinity mask, a CPU quota and an OpenMP thread limit."""

    def set_machine(cpus, quota=None, omp_limit=64):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)), raising=False)
        monkeypatch.setattr(_cpus, "process_cpu_quota", lambda: quota)
        monkeypatch.setattr(_openmp, "max_threads", lambda: omp_limit)
        monkeypatch.setattr(os, "cpu_count", lambda: cpus)
        monkeypatch.setattr(_cpus, "other_running_threads", lambda: 0)      # a quiet host
        monkeypatch.setattr(_cpus, "IDLE_SAMPLE_SECONDS", 0.0)
        monkeypatch.setattr(_cpus, "_idle_sample", [-float("inf"), None])

    return set_machine


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity mask on this platform")
@pytest.mark.parametrize(
    "n_jobs, cpus, expected",
    [(None, 8, 8), (-1, 8, 8), (-2, 8, 7), (-8, 8, 1), (-100, 8, 1), (1, 8, 1), (3, 8, 3), (100, 8, 8), (None, 1, 1)],
    ids=lambda v: repr(v),
)
def test_threads_follow_n_jobs_within_the_affinity_mask(machine, n_jobs, cpus, expected):
    machine(cpus)
    assert effective_n_threads(n_jobs) == expected


@pytest.mark.parametrize("quota, expected", [(None, 8), (0.5, 1), (1.0, 1), (1.5, 2), (3.0, 3), (16.0, 8)])
def test_threads_stay_within_the_cgroup_quota(machine, quota, expected):
    machine(8, quota=quota)
    assert effective_n_threads(None) == expected
    assert effective_n_threads(-1) == expected
    assert effective_n_threads(100) == expected


def test_threads_all_but_one_counts_from_the_quota(machine):
    machine(8, quota=4.0)
    assert effective_n_threads(-2) == 3


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_threads_stay_within_the_openmp_limit(machine, limit):
    machine(8, omp_limit=limit)
    assert effective_n_threads(None) == limit
    assert effective_n_threads(8) == limit
    assert effective_n_threads(-1) == limit


def test_threads_respect_a_threadpoolctl_limit(monkeypatch):
    # the real runtime: rankcore's kernels link the OpenMP library that threadpoolctl limits
    monkeypatch.setattr(_cpus, "LOAD_AWARE", False)      # the CPUs, whatever else the test machine runs
    if not _openmp.built_with_openmp():
        pytest.skip("built without OpenMP: no runtime for threadpoolctl to limit")
    if effective_n_threads(None) < 2:
        pytest.skip("one CPU: nothing to limit")
    before = effective_n_threads(None)
    with threadpool_limits(limits=1, user_api="openmp"):
        assert _openmp.max_threads() == 1
        assert effective_n_threads(None) == 1 and effective_n_threads(2) == 1
    assert effective_n_threads(None) == before


def test_threads_respect_omp_num_threads():
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    code = "from rankcore.validation import effective_n_threads as e; print(e(None), e(-1), e(4))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1", "1"]


@pytest.mark.parametrize("bad", [0, 1.5, "2", True, False])
def test_threads_refuse_a_bad_n_jobs(bad):
    with pytest.raises(ValueError, match=r"n_jobs: expected None, a positive integer .* got"):
        effective_n_threads(bad)


def test_threads_name_the_argument():
    with pytest.raises(ValueError, match="^n_threads: "):
        effective_n_threads(0, name="n_threads")


# --- the cgroup quota, read from a fake /sys/fs/cgroup -------------------------------------------


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_cgroup_v2_quota(tmp_path):
    _write(tmp_path / "proc", "0::/\n")
    _write(tmp_path / "fs" / "cpu.max", "150000 100000\n")
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc") == 1.5


def test_cgroup_v2_without_quota(tmp_path):
    _write(tmp_path / "proc", "0::/\n")
    _write(tmp_path / "fs" / "cpu.max", "max 100000\n")
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc") is None


def test_cgroup_v2_smallest_quota_of_the_nested_levels(tmp_path):
    _write(tmp_path / "proc", "0::/user.slice/job.scope\n")
    _write(tmp_path / "fs" / "user.slice" / "cpu.max", "100000 100000\n")
    _write(tmp_path / "fs" / "user.slice" / "job.scope" / "cpu.max", "max 100000\n")
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc") == 1.0
    _write(tmp_path / "fs" / "user.slice" / "job.scope" / "cpu.max", "50000 100000\n")
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc") == 0.5


def test_cgroup_host_path_inside_a_container_reads_the_mount_point(tmp_path):
    # the process's path names the host's cgroup; the container mounted its own cgroup as the root
    _write(tmp_path / "proc", "0::/docker/0123abcd\n")
    _write(tmp_path / "fs" / "cpu.max", "200000 100000\n")
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc") == 2.0


@pytest.mark.parametrize("mount", ["cpu,cpuacct", "cpu"])
def test_cgroup_v1_quota(tmp_path, mount):
    _write(tmp_path / "proc", "12:memory:/\n4:cpu,cpuacct:/\n0::/\n")
    _write(tmp_path / "fs" / mount / "cpu.cfs_quota_us", "250000\n")
    _write(tmp_path / "fs" / mount / "cpu.cfs_period_us", "100000\n")
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc") == 2.5


def test_cgroup_v1_without_quota(tmp_path):
    _write(tmp_path / "proc", "4:cpu:/\n")
    _write(tmp_path / "fs" / "cpu" / "cpu.cfs_quota_us", "-1\n")
    _write(tmp_path / "fs" / "cpu" / "cpu.cfs_period_us", "100000\n")
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc") is None


@pytest.mark.parametrize("content", ["", "garbage\n", "100000\n", "abc 100000\n", "100000 0\n", "-5 100000\n"])
def test_cgroup_unreadable_quota_is_no_quota(tmp_path, content):
    _write(tmp_path / "proc", "0::/\n")
    _write(tmp_path / "fs" / "cpu.max", content)
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc") is None


def test_cgroup_no_cgroup_file_is_no_quota(tmp_path):
    assert _cpus.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "missing") is None


def test_cgroup_quota_caps_the_available_cpus(monkeypatch, tmp_path):
    _write(tmp_path / "proc", "0::/\n")
    _write(tmp_path / "fs" / "cpu.max", "100000 100000\n")
    monkeypatch.setattr(_cpus, "CGROUP_ROOT", str(tmp_path / "fs"))
    monkeypatch.setattr(_cpus, "PROC_CGROUP", str(tmp_path / "proc"))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    _cpus.process_cpu_quota.cache_clear()
    try:
        assert _cpus.available_cpus() == 1
    finally:
        _cpus.process_cpu_quota.cache_clear()


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity mask on this platform")
def test_a_load_that_starts_during_a_fit_lowers_its_threads_from_the_next_iteration(machine, monkeypatch):
    # a fit reads the load when it starts; a process that starts later would leave two threads spinning in
    # OpenMP's waits for a descheduled one (5-13x one thread's time), so each iteration reads it again
    import numpy as np

    import rankcore
    from rankcore.push._backend import InMemoryBackend

    machine(2)
    others = {"running": 0}
    monkeypatch.setattr(_cpus, "other_running_threads", lambda: others["running"])
    seen = []
    search = InMemoryBackend.learner_search

    def record(self, state):
        seen.append(self.n_threads)
        return search(self, state)

    monkeypatch.setattr(InMemoryBackend, "learner_search", record)

    def load_from_the_third(info):
        others["running"] = 1 if info.iteration >= 2 else 0

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0.5).astype(int)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=6, random_state=0, n_jobs=2)
    model.fit(X, y, callbacks=[load_from_the_third])
    assert seen == [2, 2, 1, 1, 1, 1]                  # iterations 1 and 2 before the load, then one thread
    others["running"] = 0
    alone = rankcore.boost(learner="trees:max_leaves=4", n_iter=6, random_state=0, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), alone.decision_function(X))


def test_idle_thread_count_never_raises_the_fits_count(machine, monkeypatch):
    from rankcore.validation import idle_thread_count

    machine(8)
    for running, wanted, expected in [(0, 4, 4), (5, 4, 3), (8, 4, 1), (0, 1, 1), (3, 2, 2)]:
        monkeypatch.setattr(_cpus, "other_running_threads", lambda r=running: r)
        assert idle_thread_count(wanted) == expected


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity mask on this platform")
@pytest.mark.parametrize("objective", [None, "push:exp,identity,gain_weighted=true,discount=product"])
def test_a_load_during_a_fit_within_queries_reaches_the_push_inside_the_objective(machine, monkeypatch, objective):
    # the per-query default (the push with its QueryRMSE term) and the discounts hold their own push: its kernels
    # kept two threads under the load, spinning (3.9-5.1 s against 1.1-1.6 s on one thread)
    import numpy as np

    import rankcore
    from rankcore.push._backend import InMemoryBackend

    machine(2)
    monkeypatch.setattr(_cpus, "other_running_threads", lambda: 1)     # after the fit's start: see below
    seen = []
    search = InMemoryBackend.learner_search

    def record(self, state):
        seen.append(self.problem.push.n_threads)
        return search(self, state)

    monkeypatch.setattr(InMemoryBackend, "learner_search", record)
    monkeypatch.setattr(rankcore.push._boost_base, "effective_n_threads", lambda n_jobs, **kw: 2)   # started idle
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    qid = np.repeat(np.arange(60), 10)
    y = np.clip(np.round(X[:, 0] + rng.normal(size=600)), 0, 3)
    rankcore.boost(learner="trees:max_leaves=4", objective=objective, n_iter=3, random_state=0,
                   n_jobs=2).fit(X, y, qid=qid)
    assert seen == [1, 1, 1]

"""The threads tests' shared fixtures."""

import os

import pytest

from rankcore import _cpus, _openmp


@pytest.fixture
def quiet_two_cpus(monkeypatch):
    """A quiet host of two CPUs: no other process's thread is runnable."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(_cpus, "process_cpu_quota", lambda: None)
    monkeypatch.setattr(_openmp, "max_threads", lambda: 64)
    monkeypatch.setattr(_cpus, "other_running_threads", lambda: 0)
    monkeypatch.setattr(_cpus, "IDLE_SAMPLE_SECONDS", 0.0)
    monkeypatch.setattr(_cpus, "_idle_sample", [-float("inf"), None])
    monkeypatch.setattr(_cpus, "_held", {}, raising=False)

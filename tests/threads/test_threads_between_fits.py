"""Fits on threads of one process share its CPUs: the host's load does not show a sibling fit's threads."""

import os
import threading

import numpy as np
import pytest

import rankcore
from rankcore import _cpus
from rankcore.push._backend import InMemoryBackend
from rankcore.validation import hold_idle_threads, idle_thread_count

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity mask on this platform")


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    return X, (X[:, 0] + rng.normal(size=400) > 0.5).astype(int)


def test_a_fit_leaves_the_cpus_a_fit_on_another_thread_holds(quiet_two_cpus, monkeypatch):
    # two fits on a ThreadPoolExecutor (or joblib's threading backend) each took both CPUs: four threads on two
    seen = {}
    search = InMemoryBackend.learner_search

    def record(self, state):
        seen.setdefault(threading.current_thread().name, []).append(self.n_threads)
        return search(self, state)

    monkeypatch.setattr(InMemoryBackend, "learner_search", record)
    started, other_done = threading.Event(), threading.Event()

    def wait_at_the_second(info):                 # the first fit stays in its loop while the other one runs
        if info.iteration == 2:
            started.set()
            assert other_done.wait(60)

    X, y = _data()
    first = rankcore.boost(learner="trees:max_leaves=4", n_iter=4, random_state=0, n_jobs=2)
    errors = []

    def fit_first():
        try:
            first.fit(X, y, callbacks=[wait_at_the_second])
        except BaseException as exc:                # pragma: no cover - reported below
            errors.append(exc)
            started.set()

    runner = threading.Thread(target=fit_first, name="first")
    runner.start()
    try:
        assert started.wait(60)
        second = rankcore.boost(learner="trees:max_leaves=4", n_iter=4, random_state=0, n_jobs=2).fit(X, y)
    finally:
        other_done.set()
        runner.join(60)
    assert not errors
    assert seen["first"] == [2, 2, 2, 2]           # alone at first, and alone again once the other fit ended
    assert seen[threading.current_thread().name] == [1, 1, 1, 1]
    assert _cpus._held == {}                       # both fits gave their threads back
    np.testing.assert_array_equal(first.decision_function(X), second.decision_function(X))


def test_a_fit_that_raises_gives_its_threads_back(quiet_two_cpus):
    def stop(info):
        raise KeyboardInterrupt

    X, y = _data()
    with pytest.raises(KeyboardInterrupt):
        rankcore.boost(learner="trees:max_leaves=4", n_iter=4, random_state=0, n_jobs=2).fit(X, y, callbacks=[stop])
    assert _cpus._held == {}


def test_idle_thread_count_leaves_what_other_threads_hold(quiet_two_cpus):
    other = threading.Thread(target=_cpus.hold_threads, args=(1,))
    other.start()
    other.join()
    try:
        assert _cpus.threads_held_by_other_fits() == 1
        assert hold_idle_threads(2) == 1
        assert _cpus._held[threading.get_ident()] == 1
    finally:
        _cpus._held.clear()
    assert hold_idle_threads(2) == 2
    _cpus._held.clear()


def test_idle_thread_count_asks_without_holding(quiet_two_cpus):
    """Asking how many threads are idle changes nothing: the holding is hold_idle_threads' (before, the query
    recorded the calling thread's holding as a side effect)."""
    other = threading.Thread(target=_cpus.hold_threads, args=(1,))
    other.start()
    other.join()
    held = dict(_cpus._held)
    assert idle_thread_count(2) == 1
    assert idle_thread_count(2) == 1
    assert _cpus._held == held and threading.get_ident() not in _cpus._held

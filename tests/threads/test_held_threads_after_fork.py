"""A forked child inherits the parent's record of which fits hold threads, but not the threads that ran them."""

import os
import threading
import warnings

import pytest

from rankcore import _cpus

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")


def test_a_forked_child_does_not_see_the_parents_fits_as_holding_its_cpus(monkeypatch):
    # a fit held a thread on another thread of the parent when it forked (multiprocessing's default start
    # method on Linux): that thread does not exist in the child, so its holding was never released there and
    # every fit of the child left a CPU to it
    monkeypatch.setattr(_cpus, "_held", {}, raising=False)
    holding, done = threading.Event(), threading.Event()

    def fit_in_progress():
        _cpus.hold_threads(1)
        holding.set()
        done.wait(60)
        _cpus.release_threads()

    other = threading.Thread(target=fit_in_progress)
    other.start()
    try:
        assert holding.wait(60)
        _cpus.hold_threads(3)                 # the forking thread's own fit (a callback that forks) stays its own
        with warnings.catch_warnings():           # Python 3.12 warns of a fork while threads run: the point
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:                          # pragma: no cover - the child
            ok = _cpus.threads_held_by_other_fits() == 0 and _cpus._held == {threading.get_ident(): 3}
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        _cpus.release_threads()
        done.set()
        other.join(60)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert _cpus._held == {}

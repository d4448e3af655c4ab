"""Test configuration shared by the whole suite."""

import os
import sys

# Waiting OpenMP threads sleep in the test processes (unless the runner chose a policy): ``pytest -n 2`` runs two
# processes on the machine's cores, whose parallel regions would otherwise spin against each other whenever both
# start one at once.  The runtime reads this when it loads, so it is set before any test module imports rankcore;
# the wait-policy tests run their interpreters without it.
if not any(name in os.environ for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")):
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

# The tests live in one folder per package (tests/<package>/); the shared references and fixtures
# (tests/_*.py) are imported by name from every folder.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Deterministic property tests: CI and developers see the same examples.
settings.register_profile(
    "rankcore",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "rankcore"))


@pytest.fixture(autouse=True)
def _fixed_terminal_width(monkeypatch):
    """Tables and wrapped text laid out for 100 columns, whatever terminal (or test worker) runs the suite."""
    monkeypatch.setenv("COLUMNS", "100")


#: The largest thread count ``exact_threads`` lets ``n_jobs`` ask for (more threads than cores are fine here:
#: the waits are passive).
EXACT_MAX_THREADS = 8


@pytest.fixture
def exact_threads(monkeypatch):
    """``n_jobs=k`` (k <= 8; -1: 8) runs k threads, whatever the machine; returns a check that it does.

    ``effective_n_threads`` leaves out the CPUs other processes keep busy and caps ``n_jobs`` at the
    affinity mask and the OpenMP limit: on a loaded two-core test machine ``n_jobs=2`` gave one thread
    (a load average of 9.8 on 2 cores: ``effective_n_threads(2) == 1``), and a test comparing one thread
    with "two" compared one with one -- with the bug it was written for, it passed.  Tests that compare
    thread counts take this fixture and call the check with the largest count they compare.  In a build without
    OpenMP every kernel runs on one thread whatever it is asked: the check skips the test, which would compare one
    thread with one there.
    """
    from rankcore import _cpus, _openmp
    from rankcore.validation import effective_n_threads

    built_with_openmp = _openmp.built_with_openmp()
    monkeypatch.setattr(_cpus, "LOAD_AWARE", False)
    monkeypatch.setattr(_cpus, "available_cpus", lambda: EXACT_MAX_THREADS)
    monkeypatch.setattr(_openmp, "max_threads", lambda: EXACT_MAX_THREADS)

    def check(k):
        if k != 1 and not built_with_openmp:
            pytest.skip(f"built without OpenMP: the kernels run on one thread, so n_jobs={k} would compare one "
                        "thread with one")
        assert effective_n_threads(k) == k

    return check

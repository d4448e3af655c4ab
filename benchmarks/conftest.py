"""Benchmark configuration.

Run with ``pytest benchmarks/ --benchmark-only``.  ``RANKCORE_BENCH_PROFILE``
picks the sizes: ``fast`` (default; seconds, for a sanity check) or ``full``
(the sizes the issues name, for the figures in closing notes).
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
if PROFILE not in ("fast", "full"):
    raise pytest.UsageError(f"RANKCORE_BENCH_PROFILE: expected 'fast' or 'full', got {PROFILE!r}")


def pytest_report_header(config):
    return f"rankcore benchmark profile: {PROFILE} (set RANKCORE_BENCH_PROFILE=full for the issue sizes)"


@pytest.fixture(scope="session")
def profile():
    return PROFILE

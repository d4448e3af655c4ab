"""Test configuration shared by the whole suite."""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

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

"""Test configuration shared by the whole suite."""

import os

from hypothesis import HealthCheck, settings

# Deterministic property tests: CI and developers see the same examples.
settings.register_profile(
    "rankcore",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "rankcore"))

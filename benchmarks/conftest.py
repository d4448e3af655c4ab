"""Benchmark configuration.

Run with ``pytest benchmarks/ --benchmark-only``.  ``RANKCORE_BENCH_PROFILE``
picks the sizes: ``fast`` (default; seconds, for a sanity check) or ``full``
(the sizes the docs' figures were measured at).

Every run is saved (pytest-benchmark's autosave) as JSON under
``benchmarks/.results/<machine>/`` -- machine info, commit, and each
benchmark's ``extra_info`` with its same-run ratios -- unless
``--benchmark-save``/``--benchmark-storage`` say otherwise or
``RANKCORE_BENCH_SAVE=0``.  ``python -m benchmarks.track compare`` compares the
latest run with a baseline by those ratios (docs/benchmarks.md).
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

PROFILE = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
if PROFILE not in ("fast", "full"):
    raise pytest.UsageError(f"RANKCORE_BENCH_PROFILE: expected 'fast' or 'full', got {PROFILE!r}")


RESULTS_DIR = Path(__file__).parent / ".results"
_DEFAULT_STORAGE = "file://./.benchmarks"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """Autosave every benchmark run under benchmarks/.results/ (before pytest-benchmark reads its options)."""
    option = config.option
    if not hasattr(option, "benchmark_autosave") or os.environ.get("RANKCORE_BENCH_SAVE", "1") == "0":
        return  # pytest-benchmark not installed, or saving switched off
    if not option.benchmark_autosave and not option.benchmark_save:
        from pytest_benchmark.utils import get_tag

        option.benchmark_autosave = get_tag()
    if option.benchmark_storage == _DEFAULT_STORAGE:
        option.benchmark_storage = f"file://{RESULTS_DIR}"


def pytest_benchmark_update_json(config, benchmarks, output_json):
    """Say in the saved run which profile made it (the ratios only compare within one profile)."""
    output_json["rankcore"] = {"kind": "pytest-benchmark", "profile": PROFILE}


def pytest_report_header(config):
    return f"rankcore benchmark profile: {PROFILE} (set RANKCORE_BENCH_PROFILE=full for the full sizes)"


@pytest.fixture(scope="session")
def profile():
    return PROFILE


@pytest.fixture(scope="module", autouse=True)
def _print_summary(request):
    """Print a module's ``SUMMARY`` lines (its same-run ratios) at its end, past pytest's capture.

    A benchmark module opts in with a module-level ``SUMMARY: list[str]`` that its
    tests append to, and names itself with ``SUMMARY_TITLE`` (e.g. ``"push"``).
    """
    yield
    lines = getattr(request.module, "SUMMARY", None)
    if not lines:
        return
    title = getattr(request.module, "SUMMARY_TITLE", request.module.__name__)
    profile_name = os.environ.get("RANKCORE_BENCH_PROFILE", "fast")
    text = "\n".join([f"{title} benchmarks ({profile_name} profile, {os.cpu_count()} cores; load average "
                      f"{os.getloadavg()[0]:.1f} at the end: other processes add noise):"]
                     + ["  " + line for line in lines])
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if capture is not None:
        with capture.global_and_fixture_disabled():
            print("\n" + text)
    else:
        print("\n" + text)

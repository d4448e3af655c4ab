"""Test-only helper: a script of the source checkout (benchmarks/, studies/, tools/) loaded as a module.

The scripts are not part of the installed package, so a test of one is
skipped where the checkout's folders are absent (an installed wheel's tests).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def script_module_fixture(relative_path, module_name):
    """A module-scoped fixture: the script at ``relative_path`` (from the checkout root) imported as ``module_name``.

    The module stays in ``sys.modules`` while the tests of the file run (its
    dataclasses and pickles look it up there) and is removed after them.
    """
    path = ROOT / relative_path

    @pytest.fixture(scope="module")
    def script():
        if not path.exists():
            pytest.skip(f"needs the source checkout's {path.parent.name}/")
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
            yield module
        finally:
            sys.modules.pop(module_name, None)

    return script

"""Installing a plugin distribution of plugins/ into the test environment, offline."""

import importlib.metadata
import subprocess
import sys

import rankcore


def installed_plugin(path, dist):
    """A generator for a session/module fixture: install ``path`` (no deps, no build isolation, no index)."""
    try:
        importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
               "--no-index", str(path)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        assert done.returncode == 0, f"installing {dist} failed:\n{done.stdout}\n{done.stderr}"
    rankcore.get_registry(refresh=True)
    yield
    rankcore.get_registry(refresh=True)

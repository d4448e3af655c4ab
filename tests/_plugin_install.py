"""Installing a plugin distribution of plugins/ into the test environment, offline."""

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import rankcore


def installed_plugin(path, dist):
    """A generator for a session/module fixture: install ``path`` (no deps, no build isolation, no index).

    An installed copy whose Python files differ from ``path``'s (installed by an earlier run, before the plugin's
    source changed) is installed again: the tests are of the source in the tree, not of a stale copy.
    """
    try:
        installed = importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed is None or _stale(installed, Path(path)):
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
               "--no-index", "--force-reinstall", str(path)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        assert done.returncode == 0, f"installing {dist} failed:\n{done.stdout}\n{done.stderr}"
    rankcore.get_registry(refresh=True)
    yield
    rankcore.get_registry(refresh=True)


def _stale(installed, source: Path) -> bool:
    """Whether an installed distribution's Python files differ from those of its source tree ``source``."""
    for record in installed.files or ():
        if record.suffix != ".py" or record.parts[0].endswith((".dist-info", ".egg-info")) or ".." in record.parts:
            continue
        ours = source / record
        if not ours.is_file() or ours.read_bytes() != Path(installed.locate_file(record)).read_bytes():
            return True
    return False

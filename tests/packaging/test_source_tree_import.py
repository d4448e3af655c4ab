"""Importing rankcore from an unbuilt source tree fails at once, with one message naming both ways out."""

import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import rankcore

PACKAGE = Path(rankcore.__file__).parent


def copy_tree(target: Path, *, with_extensions: bool) -> Path:
    """A copy of the package as in a checkout: sources (and the compiled modules only if asked)."""
    compiled = tuple(EXTENSION_SUFFIXES)

    def ignore(directory, names):
        skip = {n for n in names if n == "__pycache__"}
        if not with_extensions:
            skip |= {n for n in names if n.endswith(compiled)}
        return skip

    shutil.copytree(PACKAGE, target / "rankcore", ignore=ignore)
    return target


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the cwd comes first on sys.path
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def test_import_from_an_unbuilt_source_tree_says_what_happened_and_the_two_ways_out(tmp_path):
    if not (PACKAGE / "metrics" / "_roc.pyx").exists():
        pytest.skip("rankcore is installed without its sources (a wheel): nothing to copy")
    root = copy_tree(tmp_path, with_extensions=False)
    # the README's "A taste" snippet, run in the repository root after `pip install .`
    done = run_python("import rankcore\nprint(rankcore.evaluate([0, 1], [0.1, 0.2], ['auc']))", root)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: rankcore was imported from its source tree")
    assert str(root / "rankcore") in last
    assert "pip install -e ." in last and "another directory" in last
    # one clear error, not a chain ending in ModuleNotFoundError or a circular import
    assert "During handling" not in done.stderr and "ModuleNotFoundError" not in done.stderr, done.stderr


def test_a_built_source_tree_imports_normally(tmp_path):
    if not any((PACKAGE / "metrics").glob("_roc.*")):
        pytest.skip("no compiled extensions next to the sources")
    root = copy_tree(tmp_path, with_extensions=True)
    done = run_python("import rankcore\nprint(rankcore.__file__)\n"
                      "print(rankcore.evaluate([0, 1, 0], [0.1, 0.9, 0.3], ['auc'])['auc'])", root)
    assert done.returncode == 0, done.stderr
    path, auc = done.stdout.split()
    assert Path(path).parent == root / "rankcore" and float(auc) == 1.0


def test_a_tree_without_kernel_sources_is_not_refused(tmp_path):
    """An installed wheel ships no .pyx: the check stays silent whatever the compiled files."""
    root = copy_tree(tmp_path, with_extensions=False)
    for pyx in (root / "rankcore").rglob("*.pyx"):
        pyx.unlink()
    done = run_python("import rankcore; print(rankcore.__version__)", root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == rankcore.__version__

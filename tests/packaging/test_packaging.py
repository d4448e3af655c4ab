"""What the wheel and the source distribution hold: no generated C/C++ or build leftovers, the licence.

The real build compiles every kernel (minutes); these tests build the same
packaging configuration with no extension selected (``RANKCORE_EXTENSIONS``
matching nothing), which takes seconds and exercises exactly what decides the
files: ``pyproject.toml``'s package data, ``MANIFEST.in`` and setup.py.  The metadata a distributor
relies on (one source for the version, lower bounds that can be installed together) is checked too.
"""

import ast
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEFTOVERS = (".c", ".cpp", ".html", ".o", ".pyx", *EXTENSION_SUFFIXES)

pytestmark = pytest.mark.skipif(not (ROOT / "setup.py").exists() or not (ROOT / "MANIFEST.in").exists(),
                                reason="needs the source checkout")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A copy of the checkout's packaging inputs, with the leftovers of an in-place build planted in it."""
    pytest.importorskip("Cython")  # setup.py cythonizes; a test environment may lack the build requirements
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"the build needs setuptools >= 77 (PEP 639 licence metadata), found {setuptools.__version__}")
    target = tmp_path_factory.mktemp("checkout")
    for name in ("setup.py", "pyproject.toml", "MANIFEST.in", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, target / name)
    shutil.copytree(ROOT / "rankcore", target / "rankcore",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", "*.cpp", "*.html"))
    metrics = target / "rankcore" / "metrics"
    for leftover in ("_roc.c", "_roc.html", "_roc.o", "_sgd.cpp", "_roc" + EXTENSION_SUFFIXES[0]):
        (metrics / leftover).write_text("generated\n")
    (target / "build" / "temp").mkdir(parents=True)
    (target / "build" / "temp" / "x.o").write_text("object\n")
    return target


def build(checkout, *args):
    env = dict(os.environ, RANKCORE_EXTENSIONS="no.extension.matches.this")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, *args], cwd=checkout, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_wheel_holds_no_generated_sources_or_leftovers_and_ships_the_licence(checkout, tmp_path):
    build(checkout, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", str(tmp_path))
    (wheel,) = tmp_path.glob("rankcore-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.endswith(LEFTOVERS)], "build products or sources in the wheel"
    assert not [n for n in names if n.startswith("build/")]
    # the Cython declarations stay: `from rankcore.metrics.sorted_kernels cimport SortedMetric` needs them
    pxd = sorted(str(p.relative_to(checkout)) for p in (checkout / "rankcore").rglob("*.pxd"))
    assert pxd and sorted(n for n in names if n.endswith(".pxd")) == pxd
    assert "rankcore/metrics/_evaluate.py" in names
    # `rankcore plugins new` reads its templates from the installed package
    templates = sorted(str(p.relative_to(checkout)) for p in (checkout / "rankcore/cli/plugin_template").glob("*.tmpl"))
    assert templates and set(templates) <= set(names)
    (licence,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert "BSD 3-Clause" in zipfile.ZipFile(wheel).read(licence).decode()
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: BSD-3-Clause" in metadata
    assert f"\nVersion: {source_version()}\n" in metadata
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", "docs/", "plugins/"))]
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/entry_points.txt")))
    assert "rankcore = rankcore.cli:main" in entry_points.decode()


def sdist_names(sdist):
    return sorted(n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n)


def test_sdist_holds_the_cython_sources_but_not_what_they_generate(checkout, tmp_path):
    build(checkout, "setup.py", "-q", "sdist", "-d", str(tmp_path))
    (sdist,) = tmp_path.glob("rankcore-*.tar.gz")
    names = sdist_names(sdist)
    pyx = sorted(str(p.relative_to(checkout)) for p in (checkout / "rankcore").rglob("*.pyx"))
    assert pyx and set(pyx) <= set(names)  # the build needs them
    assert "LICENSE" in names and "setup.py" in names
    generated = (".c", ".cpp", ".html", ".o", *EXTENSION_SUFFIXES)
    assert not [n for n in names if n.endswith(generated)], "generated files in the sdist"


def test_package_data_config_excludes_what_cython_generates():
    """The real build lists the generated .c/.cpp among the sources (the no-extension builds above do not)."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    excluded = set(config["tool"]["setuptools"]["exclude-package-data"]["*"])
    assert {"*.c", "*.cpp", "*.pyx", "*.html"} <= excluded
    assert not {"*.pyx", "*.c", "*.cpp"} & set(config["tool"]["setuptools"]["package-data"]["*"])
    assert config["project"]["license-files"] == ["LICENSE"]


def test_making_an_sdist_cythonizes_nothing_and_is_repeatable(checkout, tmp_path):
    """A packager's clean tree gets no generated C from ``sdist`` (Cython runs only to compile), and a
    second sdist of the same tree holds the same files."""
    before = {p for p in (checkout / "rankcore").rglob("*") if p.suffix in (".c", ".cpp")}
    # one small kernel selected: setup.py hands it (and the shared utility module) to setuptools
    env = dict(os.environ, RANKCORE_EXTENSIONS="rankcore._openmp")
    env.pop("PYTHONPATH", None)
    lists = []
    for run in ("first", "second"):
        done = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / run)], cwd=checkout,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        (sdist,) = (tmp_path / run).glob("rankcore-*.tar.gz")
        lists.append(sdist_names(sdist))
    generated = {p for p in (checkout / "rankcore").rglob("*") if p.suffix in (".c", ".cpp")} - before
    assert not generated, f"sdist wrote generated C into the source tree: {sorted(map(str, generated))}"
    assert lists[0] == lists[1]
    assert "rankcore/_openmp.pyx" in lists[0]


def source_version():
    """``rankcore.__version__`` as written in the source, read the way setuptools reads it (no import)."""
    tree = ast.parse((ROOT / "rankcore" / "__init__.py").read_text())
    (version,) = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                  and [getattr(t, "id", None) for t in node.targets] == ["__version__"]]
    return version


def test_version_has_one_source():
    """The metadata's version is read from ``rankcore.__version__``, so the two cannot disagree."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in config["project"] and "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "rankcore.__version__"}
    # setuptools reads the attribute without importing rankcore: it must stay a plain string literal
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)*", source_version())


def lower_bound(requirements, name):
    (spec,) = [r for r in requirements if re.match(rf"{re.escape(name)}\b", r)]
    return tuple(int(part) for part in re.search(r">=([\d.]+)", spec).group(1).split("."))


@pytest.mark.parametrize("table", ["runtime", "build"])
def test_lower_bounds_can_be_installed_together(table):
    """NumPy >= 2 needs SciPy >= 1.13: older SciPy releases require NumPy < 2, so a lower bound below it
    is never what gets installed, and a distribution that maps the bounds onto its own packages pairs them
    wrongly (scikit-learn >= 1.6 already runs with NumPy 2)."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requirements = config["project"]["dependencies"] if table == "runtime" else config["build-system"]["requires"]
    if lower_bound(requirements, "numpy") >= (2,):
        assert lower_bound(requirements, "scipy") >= (1, 13)

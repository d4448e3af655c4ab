"""setup.py's compiler flags on the platforms the suite cannot run on (simulated with fake compilers).

MSVC must get none of GCC's flags, and a compiler without OpenMP (Apple's clang out of the box) must
still build rankcore, single-threaded, instead of failing on ``-fopenmp``.
"""

import os
import runpy
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not (ROOT / "setup.py").exists(), reason="needs the source tree's setup.py")


@pytest.fixture(scope="module")
def setup_module_namespace():
    pytest.importorskip("Cython")       # setup.py imports cythonize
    # Any name but "__main__": the helpers are defined, setup() is not run.
    return runpy.run_path(str(ROOT / "setup.py"), run_name="rankcore_setup_under_test")


class FakeCompiler:
    """A distutils compiler that accepts only the compile/link flags it is told to, as a real one would."""

    def __init__(self, compiler_type, accepts=()):
        self.compiler_type = compiler_type
        self.accepts = [tuple(flags) for flags in accepts]
        self.tried = []

    def compile(self, sources, output_dir=None, extra_postargs=()):
        self.tried.append(tuple(extra_postargs))
        if tuple(extra_postargs) not in self.accepts:
            raise RuntimeError("clang: error: unsupported option '-fopenmp'")
        return ["probe.o"]

    def link_shared_object(self, objects, name, output_dir=None, extra_postargs=()):
        return None


def test_msvc_gets_no_gcc_flags(setup_module_namespace):
    ns = setup_module_namespace
    compile_args, link_args = ns["compile_flags"]("msvc", ns["probe_openmp"](FakeCompiler("msvc"), "."), debug=False)
    assert "/openmp" in compile_args and "/O2" in compile_args
    assert not [flag for flag in compile_args + link_args if flag.startswith("-")]


def test_compiler_without_openmp_builds_without_it(setup_module_namespace, tmp_path):
    ns = setup_module_namespace
    compiler = FakeCompiler("unix", accepts=())         # Apple's clang, no libomp
    openmp = ns["probe_openmp"](compiler, str(tmp_path))
    assert openmp is None and len(compiler.tried) == len(ns["OPENMP_CANDIDATES"])
    compile_args, link_args = ns["compile_flags"]("unix", openmp, debug=False)
    assert "-O3" in compile_args and "-ffp-contract=off" in compile_args
    assert "-fopenmp" not in compile_args + link_args


def test_apple_clang_with_libomp_gets_the_preprocessor_spelling(setup_module_namespace, tmp_path):
    ns = setup_module_namespace
    compiler = FakeCompiler("unix", accepts=[("-Xpreprocessor", "-fopenmp")])
    compile_args, link_args = ns["compile_flags"]("unix", ns["probe_openmp"](compiler, str(tmp_path)), debug=False)
    assert compile_args[-2:] == ["-Xpreprocessor", "-fopenmp"] and link_args == ["-lomp"]


def test_gcc_keeps_fopenmp(setup_module_namespace, tmp_path):
    ns = setup_module_namespace
    compiler = FakeCompiler("unix", accepts=[("-fopenmp",)])
    compile_args, link_args = ns["compile_flags"]("unix", ns["probe_openmp"](compiler, str(tmp_path)), debug=False)
    assert "-fopenmp" in compile_args and link_args == ["-fopenmp"]


def test_openmp_can_be_switched_off(setup_module_namespace, tmp_path, monkeypatch):
    monkeypatch.setenv("RANKCORE_OPENMP", "0")
    compiler = FakeCompiler("unix", accepts=[("-fopenmp",)])
    assert setup_module_namespace["probe_openmp"](compiler, str(tmp_path)) is None and not compiler.tried


# Apple's clang as far as OpenMP goes: ``-fopenmp`` alone refused, ``-Xpreprocessor -fopenmp`` taken.
APPLE_CLANG = """#!/bin/sh
previous=
for argument in "$@"; do
    if [ "$argument" = -fopenmp ] && [ "$previous" != -Xpreprocessor ]; then
        echo "clang: error: unsupported option '-fopenmp'" >&2; exit 1
    fi
    previous=$argument
done
exec gcc "$@"
"""


def test_libomp_found_through_ldflags_is_used(setup_module_namespace, tmp_path, monkeypatch):
    # Homebrew's libomp is keg-only: the user points LDFLAGS at it, and only a link command that carries
    # LDFLAGS (the extensions') finds it.  Simulated with GCC's libgomp under libomp's name.
    gcc = shutil.which("gcc")
    libgomp = gcc and subprocess.run([gcc, "-print-file-name=libgomp.so"], capture_output=True, text=True).stdout
    if not libgomp or not os.path.isabs(libgomp.strip()):
        pytest.skip("needs gcc and its libgomp.so")
    from distutils.ccompiler import new_compiler         # setuptools' copy: setup.py imported setuptools
    from distutils.sysconfig import customize_compiler
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libomp.so").symlink_to(libgomp.strip())
    (tmp_path / "clang").write_text(APPLE_CLANG, encoding="utf-8")
    (tmp_path / "clang").chmod(0o755)
    monkeypatch.setenv("CC", str(tmp_path / "clang"))
    monkeypatch.setenv("LDFLAGS", f"-L{tmp_path / 'lib'}")
    monkeypatch.delenv("RANKCORE_OPENMP", raising=False)
    compiler = new_compiler()
    customize_compiler(compiler)
    (tmp_path / "probe").mkdir()
    openmp = setup_module_namespace["probe_openmp"](compiler, str(tmp_path / "probe"))
    assert openmp == (["-Xpreprocessor", "-fopenmp"], ["-lomp"])


@pytest.mark.parametrize("value", ["off", "false", "no", "2"])
def test_openmp_switch_takes_only_0_or_1(setup_module_namespace, tmp_path, monkeypatch, value):
    # "off" taken for "on" would build with OpenMP what the user opted out of, without a word
    monkeypatch.setenv("RANKCORE_OPENMP", value)
    compiler = FakeCompiler("unix", accepts=[("-fopenmp",)])
    with pytest.raises(ValueError, match=f"RANKCORE_OPENMP='{value}': expected 0 .build without OpenMP. or 1"):
        setup_module_namespace["probe_openmp"](compiler, str(tmp_path))
    assert not compiler.tried

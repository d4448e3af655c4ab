"""setup.py's compiler flags on the platforms the suite cannot run on (simulated with fake compilers).

MSVC must get none of GCC's flags, and a compiler without OpenMP (Apple's clang out of the box) must
still build rankcore, single-threaded, instead of failing on ``-fopenmp``.
"""

import runpy
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

    def link_executable(self, objects, name, output_dir=None, extra_postargs=()):
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

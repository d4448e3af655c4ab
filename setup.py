"""Build script for rankcore's Cython extensions.

Every ``.pyx`` file under ``rankcore/`` becomes an extension module of the same
dotted name, so adding a kernel never means editing this file.  Project
metadata lives in ``pyproject.toml``.

Environment switches (for development only):

``RANKCORE_DEBUG=1``
    compile with bounds and wraparound checks on and without ``-O3``; the
    test suite can then catch out-of-range indexing in a kernel.
``RANKCORE_EXTENSIONS=pattern[,pattern...]``
    build only the modules whose dotted name matches one of the shell-style
    patterns (``rankcore.metrics.*``); handy with ``build_ext --inplace``
    while another kernel is half written.
"""

import fnmatch
import os
import sys
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
DEBUG = os.environ.get("RANKCORE_DEBUG", "") not in ("", "0")
# The cores this build may use (``taskset`` and batch schedulers narrow the affinity mask).
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)

# The compiler directives of every kernel, in one place (STYLE: build flags).
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
}

if sys.platform == "win32":  # pragma: no cover - the project targets Linux/macOS
    COMPILE_ARGS, LINK_ARGS = ["/O2", "/openmp"], []
else:
    # -g0: Python's own CFLAGS carry -g, and the debug information was 80 % of
    # the compiled modules' size in the wheel; RANKCORE_DEBUG=1 keeps it.
    COMPILE_ARGS = ["-O0", "-g"] if DEBUG else ["-O3", "-g0"]
    # -ffp-contract=off: no fused multiply-adds behind our back (they are the default where the
    # target has them, e.g. aarch64), so a kernel's arithmetic is the one written -- the trees'
    # native grower and line search must repeat the Python-side search's operations exactly.
    COMPILE_ARGS += ["-fopenmp", "-ffp-contract=off"]
    LINK_ARGS = ["-fopenmp"]


def _extensions():
    patterns = [p for p in os.environ.get("RANKCORE_EXTENSIONS", "").split(",") if p]
    extensions = []
    for pyx in sorted(HERE.glob("rankcore/**/*.pyx")):
        rel = pyx.relative_to(HERE)
        module = ".".join(rel.with_suffix("").parts)
        if patterns and not any(fnmatch.fnmatch(module, p) for p in patterns):
            continue
        extensions.append(
            Extension(
                module,
                [str(rel)],
                include_dirs=[numpy.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                extra_compile_args=COMPILE_ARGS,
                extra_link_args=LINK_ARGS,
            )
        )
    return extensions


class ParallelBuildExt(build_ext):
    """``build_ext`` compiling the C files on every core unless ``-j`` says otherwise.

    A dozen large generated C files compiled one after another dominate a
    fresh install (pip passes no ``-j``); in parallel it takes about half.
    """

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = CORES


setup(
    cmdclass={"build_ext": ParallelBuildExt},
    ext_modules=cythonize(
        _extensions(),
        compiler_directives=DIRECTIVES,
        nthreads=CORES,
    ),
)

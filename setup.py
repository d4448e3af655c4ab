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
``RANKCORE_OPENMP=0``
    build without OpenMP even where the compiler has it.  Without this switch
    (or with ``1``) the build tries OpenMP and, where the compiler has none
    (Apple's clang without libomp), builds single-threaded kernels with a
    warning.  Any other value is refused, rather than taken for either.
"""

import fnmatch
import os
import tempfile
import warnings
from pathlib import Path

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

#: The OpenMP flags to try on a GCC-like compiler, best first: GCC and LLVM clang take ``-fopenmp``;
#: Apple's clang takes it only through the preprocessor, with libomp (Homebrew) linked by hand.
OPENMP_CANDIDATES = [(["-fopenmp"], ["-fopenmp"]), (["-Xpreprocessor", "-fopenmp"], ["-lomp"])]
OPENMP_PROBE = "#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n"


def compile_flags(compiler_type, openmp_flags, debug=DEBUG):
    """The compile and link arguments of every extension for one compiler.

    Parameters
    ----------
    compiler_type : str
        distutils' name of the compiler (``"msvc"`` for MSVC and clang-cl, ``"unix"`` or ``"mingw32"``
        for GCC-like ones).
    openmp_flags : tuple of (list of str, list of str) or None
        The compile and link flags that turn OpenMP on (from :func:`probe_openmp`), or None to build
        without it: the kernels then run their ``prange`` loops on one thread.
    debug : bool
        Keep debug information and skip optimization (``RANKCORE_DEBUG=1``).

    Returns
    -------
    compile_args, link_args : list of str
    """
    if compiler_type == "msvc":
        # MSVC spells everything differently; /fp:precise keeps a kernel's arithmetic as written (no
        # contraction into fused multiply-adds), like -ffp-contract=off below.
        compile_args = ["/Od", "/Zi"] if debug else ["/O2"]
        compile_args += ["/fp:precise"] + (["/openmp"] if openmp_flags else [])
        return compile_args, []
    # -g0: Python's own CFLAGS carry -g, and the debug information was 80 % of
    # the compiled modules' size in the wheel; RANKCORE_DEBUG=1 keeps it.
    compile_args = ["-O0", "-g"] if debug else ["-O3", "-g0"]
    # -ffp-contract=off: no fused multiply-adds behind our back (they are the default where the
    # target has them, e.g. aarch64), so a kernel's arithmetic is the one written -- the trees'
    # native grower and line search must repeat the Python-side search's operations exactly.
    compile_args += ["-ffp-contract=off"]
    link_args = []
    if openmp_flags:
        compile_args += openmp_flags[0]
        link_args += openmp_flags[1]
    return compile_args, link_args


def openmp_wanted():
    """False when ``RANKCORE_OPENMP=0`` turns OpenMP off, True when unset or ``1``.

    Raises
    ------
    ValueError
        Any other value: ``off`` or ``false`` taken for "on" would build what the user opted out of.
    """
    value = os.environ.get("RANKCORE_OPENMP", "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"RANKCORE_OPENMP={value!r}: expected 0 (build without OpenMP) or 1 (try OpenMP, "
                         "the default)")
    return value != "0"


def probe_openmp(compiler, workdir):
    """The first of :data:`OPENMP_CANDIDATES` that compiles and links a small OpenMP program, or None.

    ``RANKCORE_OPENMP=0`` skips the probe (a build without OpenMP on purpose).  MSVC always has
    ``/openmp``.  Any failure of a candidate (missing ``omp.h``, unknown flag, no libomp to link)
    only moves on to the next one, so a compiler without OpenMP (Apple's clang out of the box)
    still builds rankcore, single-threaded.
    """
    if not openmp_wanted():
        return None
    if compiler.compiler_type == "msvc":
        return (["/openmp"], [])
    source = os.path.join(workdir, "rankcore_openmp_probe.c")
    with open(source, "w", encoding="ascii") as fh:
        fh.write(OPENMP_PROBE)
    for cflags, ldflags in OPENMP_CANDIDATES:
        try:
            objects = compiler.compile([source], output_dir=workdir, extra_postargs=cflags)
            # Linked as the extensions are: a shared object's link command carries the user's LDFLAGS
            # (``-L`` of Homebrew's keg-only libomp), an executable's leaves them out.
            compiler.link_shared_object(objects, "rankcore_openmp_probe.so", output_dir=workdir,
                                        extra_postargs=ldflags)
        except Exception:       # CompileError, LinkError, or a missing compiler executable
            continue
        return cflags, ldflags
    return None


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
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            )
        )
    return extensions


class ParallelBuildExt(build_ext):
    """``build_ext`` compiling the C files on every core unless ``-j`` says otherwise, with the flags of
    the compiler it finds.

    A dozen large generated C files compiled one after another dominate a
    fresh install (pip passes no ``-j``); in parallel it takes about half.
    The flags are chosen here, not at import, because only now is the compiler known: MSVC takes
    none of GCC's flags, and a compiler without OpenMP builds rankcore without it (with a warning).
    """

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = CORES

    def build_extensions(self):
        # Cythonized here, when something is compiled, not when setup.py runs: an sdist or the metadata
        # then generates no C into the source tree (a minute of Cython, and forty files in a clean tree).
        cythonize_extensions(self.extensions)
        with tempfile.TemporaryDirectory() as workdir:
            openmp = probe_openmp(self.compiler, workdir)
        if openmp is None and openmp_wanted():
            warnings.warn("rankcore: the C compiler has no OpenMP; building the kernels single-threaded (n_jobs "
                          "has no effect on them). On macOS: brew install libomp, and set CPPFLAGS=-I$(brew "
                          "--prefix libomp)/include LDFLAGS=-L$(brew --prefix libomp)/lib", stacklevel=1)
        compile_args, link_args = compile_flags(self.compiler.compiler_type, openmp)
        for extension in self.extensions:
            extension.extra_compile_args = list(compile_args)
            extension.extra_link_args = list(link_args)
        super().build_extensions()


#: The module that holds Cython's utility code (memoryviews, fused-type dispatch, ...) once for
#: every kernel: without it each of the ~35 modules carries its own copy, which doubled the C to
#: compile (44 MB against 22 MB) and the fresh install's build time.
SHARED_UTILITY = "rankcore._cyutility"


def _with_shared_utility(extensions):
    if not extensions:      # nothing to build (RANKCORE_EXTENSIONS matched nothing): nothing shared either
        return extensions
    source = SHARED_UTILITY.replace(".", "/") + ".c"    # generated by cythonize, never committed
    return extensions + [Extension(SHARED_UTILITY, [source])]


def cythonize_extensions(extensions):
    """Turn the extensions' ``.pyx`` sources into C, in place, with NumPy's headers on their include path.

    Cython and NumPy are imported here, at build time, so that making an sdist or reading the metadata
    neither needs them nor writes generated C into the source tree.  ``cythonize`` returns new
    extension objects; their settings (C sources, the language a ``# distutils:`` line asks for, ...)
    are copied onto the given ones, which keep what ``build_ext`` has already attached to them.
    """
    import numpy
    from Cython.Build import cythonize

    for extension in extensions:
        extension.include_dirs = [*extension.include_dirs, numpy.get_include()]
    generated = {ext.name: ext for ext in cythonize(list(extensions), compiler_directives=DIRECTIVES,
                                                   nthreads=CORES, shared_utility_qualified_name=SHARED_UTILITY)}
    for extension in extensions:
        vars(extension).update(vars(generated[extension.name]))


if __name__ == "__main__":     # pip, build and ``python setup.py`` all run it so; tests import the helpers
    setup(cmdclass={"build_ext": ParallelBuildExt}, ext_modules=_with_shared_utility(_extensions()))

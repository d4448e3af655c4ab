"""``rankcore --version``: the version, and in a build without OpenMP, that ``n_jobs`` gains nothing."""

import os
import subprocess
import sys

import pytest

import rankcore
from rankcore import _openmp
from rankcore.cli import version_line


@pytest.mark.parametrize("openmp", [True, False])
def test_version_says_when_the_kernels_have_no_openmp(monkeypatch, openmp):
    # a build without OpenMP ignores n_jobs, and nothing at run time said so
    monkeypatch.setattr(_openmp, "built_with_openmp", lambda: openmp)
    line = version_line("1.2.3")
    if openmp:
        assert line == "rankcore 1.2.3"
    else:
        assert line.startswith("rankcore 1.2.3 (built without OpenMP")
        assert "one thread" in line and "n_jobs" in line


def test_version_line_is_what_the_command_prints():
    # on one line whatever the terminal's width (argparse's version action wrapped it to COLUMNS)
    done = subprocess.run([sys.executable, "-m", "rankcore", "--version"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "30"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == version_line(rankcore.__version__) + "\n"


def test_a_long_version_line_is_not_wrapped(monkeypatch, capsys):
    from rankcore.cli import build_parser

    monkeypatch.setenv("COLUMNS", "30")
    monkeypatch.setattr(_openmp, "built_with_openmp", lambda: False)
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == version_line(rankcore.__version__) + "\n"


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads the loaded libraries from /proc (Linux)")
def test_built_with_openmp_is_whether_the_kernels_load_an_openmp_runtime():
    # a fresh process that imports rankcore alone: an OpenMP runtime in its memory is the one the kernels link
    script = ("import rankcore, rankcore.learners.trees._grow\n"
              "from rankcore import _openmp\n"
              "maps = open('/proc/self/maps').read()\n"
              "print(_openmp.built_with_openmp(), any(n in maps for n in ('libgomp', 'libomp', 'libiomp')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    built, loaded = done.stdout.split()
    assert built == loaded

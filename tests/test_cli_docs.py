"""The command lines in the docs run: every `rankcore ...` line of a ```bash block, in page order.

(tests/test_docs.py runs the ```python blocks; here a page's python blocks and
its command lines run together in one scratch directory, so a page can write a
data file in Python and use it on the command line.  The commands run in this
process through `rankcore.cli.main`, the console script's function; the
subprocess tests of the installed entry point are in test_cli_commands.py.)
"""

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from rankcore.cli import main

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "docs" / name for name in ("cli.md", "index.md", "push.md", "exactboost.md", "precision_at_k.md", "kernel_ranking.md")]
_BLOCK = re.compile(r"^```(python|bash)[ \t]*\n(.*?)^```", re.S | re.M)


def steps(path):
    """(kind, code) in page order; bash blocks give their `rankcore ...` lines one by one."""
    for kind, code in _BLOCK.findall(path.read_text(encoding="utf-8")):
        if kind == "python":
            yield "python", code
        else:
            for line in code.splitlines():
                if line.startswith("rankcore "):
                    yield "bash", line


@pytest.mark.parametrize("path", [p for p in PAGES if p.exists()], ids=lambda p: p.name)
def test_doc_command_lines_run(path, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": f"docs_{path.stem}"}
    ran = 0
    for kind, code in steps(path):
        if kind == "python":
            exec(compile(code, f"{path.name}", "exec"), namespace)
            continue
        argv = shlex.split(code, comments=True)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv[1:])
        assert status == 0, f"{path.name}: `{code}` failed ({status}):\n{err.getvalue()}"
        ran += 1
    assert ran > 0

"""Documentation stays true: every ```python example runs, every hook is documented."""

import inspect
import os
import re
from pathlib import Path

import pytest

from rankcore import hookspecs

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```", re.S | re.M)


def python_blocks(path):
    return _BLOCK.findall(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", [p for p in DOC_FILES if python_blocks(p)], ids=lambda p: p.name)
def test_doc_examples_run(path, tmp_path, monkeypatch):
    """Run a page's examples in order, in one namespace, in a scratch directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": f"docs_{path.stem}"}
    for number, code in enumerate(python_blocks(path), start=1):
        try:
            exec(compile(code, f"{path.name}[example {number}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            raise AssertionError(f"{path.name}: example {number} failed: {type(exc).__name__}: {exc}\n{code}") from exc


def _hooks():
    return [(name, func) for name, func in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("rankcore_")]


@pytest.mark.parametrize("name, func", _hooks(), ids=[n for n, _ in _hooks()])
def test_every_hook_documented_with_its_signature(name, func):
    guide = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    signature = f"{name}{inspect.signature(func)}"
    assert f"### {signature}" in guide, f"docs/plugins.md must document `### {signature}`"


def test_docs_name_only_registered_hooks():
    guide = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^### (rankcore_\w+)\(", guide, re.M))
    assert documented == {name for name, _ in _hooks()}

"""Modules a reader can hold: no source file in rankcore/ over 900 lines, no Python function over 100."""

import ast
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "rankcore" / "__init__.py").is_file()) / "rankcore"
MAX_FILE_LINES = 900
MAX_FUNCTION_LINES = 100


def long_files(root: Path) -> list[str]:
    return [f"{p.relative_to(root)}: {n} lines" for p in sorted(root.rglob("*"))
            if p.suffix in (".py", ".pyx", ".pxd", ".pxi")
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES]


def long_functions(root: Path) -> list[str]:
    found = []
    for p in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{p.relative_to(root)}:{node.lineno} {node.name}: {length} lines")
    return found


def test_no_source_file_over_900_lines():
    assert long_files(ROOT) == []


def test_no_python_function_over_100_lines():
    assert long_functions(ROOT) == []


def test_the_checks_find_a_long_file_and_a_long_function(tmp_path):
    (tmp_path / "long.pyx").write_text("x = 1\n" * 901)
    (tmp_path / "short.py").write_text("def f():\n" + "    x = 1\n" * 99)
    (tmp_path / "grown.py").write_text("def g():\n" + "    x = 1\n" * 100)
    assert long_files(tmp_path) == ["long.pyx: 901 lines"]
    assert long_functions(tmp_path) == ["grown.py:1 g: 101 lines"]

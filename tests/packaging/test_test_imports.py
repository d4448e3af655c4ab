"""The tests import their helpers as top-level modules (``from _model_files import ...``), never through a package
``tests``: the README's ``pytest`` puts the tests' folder on the path, not the checkout's root, so ``from tests...``
works under ``python -m pytest`` from the root and fails on CI."""

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
_PACKAGE_IMPORT = re.compile(r"^\s*(?:from\s+tests(?:\.|\s)|import\s+tests(?:\.|\s|$))", re.MULTILINE)


def package_imports(root: Path) -> list[str]:
    """``path:line`` of every import through a package ``tests`` in the Python files below ``root``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for match in _PACKAGE_IMPORT.finditer(text):
            found.append(f"{path.relative_to(root)}:{text.count(chr(10), 0, match.start()) + 1}")
    return found


def test_no_test_imports_a_helper_through_a_package_tests():
    assert package_imports(TESTS) == []


def test_the_check_finds_such_an_import(tmp_path):
    (tmp_path / "test_a.py").write_text("import os\nfrom tests._model_files import resign\n")
    (tmp_path / "test_b.py").write_text("import tests\n# from tests import x (a comment line)\nx = 'import tests'\n")
    assert package_imports(tmp_path) == ["test_a.py:2", "test_b.py:1"]

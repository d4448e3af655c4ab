"""The layers hold: no import climbs a layer, none reaches another package's private module.

The layer order is the table in ``docs/architecture.md`` (*The layers, as a
table*); every module's imports are parsed (``ast``, function-level imports
included; ``import`` and ``cimport`` lines of the Cython sources by
pattern), so a lazy import inside a function counts like one at the top.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "rankcore" / "__init__.py").is_file())
TABLE_MARKER = "<!-- layers: tests/packaging/test_layers.py parses the rows below -->"

#: Imports allowed although they break a rule: (importing module, imported module).
ALLOWED: set[tuple[str, str]] = set()

_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(rankcore[\w.]*)\s+c?import\s+(.+)|c?import\s+(rankcore[\w.]*))",
                            re.MULTILINE)


@dataclass(frozen=True)
class Import:
    """``module`` (dotted) imports ``target`` (a module, the deepest one the statement names) at ``line``."""

    path: Path
    line: int
    module: str
    target: str


def layer_table(text: str) -> dict[str, int]:
    """Unit (``rankcore.push``, ``rankcore`` for the package's ``__init__``) -> its layer, 0 the lowest."""
    rows = text.split(TABLE_MARKER, 1)[1].strip().splitlines()
    layers = []
    for row in rows[2:]:                              # below the header and its rule
        if not row.startswith("|"):
            break
        cells = [c.strip() for c in row.strip("|").split("|")]
        layers.append([name for name in re.findall(r"`([\w.]+)`", cells[1])])
    table = {}
    for level, names in enumerate(reversed(layers)):
        for name in names:
            table["rankcore" if name == "rankcore" else f"rankcore.{name}"] = level
    return table


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _is_module(dotted: str, root: Path) -> bool:
    base = root.joinpath(*dotted.split("."))
    return base.is_dir() or any(base.with_suffix(s).exists() for s in (".py", ".pyx", ".pxd"))


def _targets(base: str, names: list[str], root: Path) -> list[str]:
    """``from base import names``: each name that is a module of ``base``, else ``base`` itself."""
    found = [f"{base}.{n}" for n in names if _is_module(f"{base}.{n}", root)]
    return found + ([base] if len(found) < len(names) else [])


def imports(root: Path) -> list[Import]:
    """Every import of a ``rankcore`` module by a module under ``root / "rankcore"``."""
    out = []
    for path in sorted((root / "rankcore").rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd"):
            continue
        module, is_package = _module_name(path, root)
        package = module if is_package else module.rpartition(".")[0]
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(text, filename=str(path))):
                if isinstance(node, ast.ImportFrom):
                    if node.level:
                        parts = package.split(".")
                        base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                    else:
                        base = node.module or ""
                    targets = _targets(base, [a.name for a in node.names], root)
                elif isinstance(node, ast.Import):
                    targets = [a.name for a in node.names]
                else:
                    continue
                out += [Import(path, node.lineno, module, t) for t in targets if t.split(".")[0] == "rankcore"]
        else:
            for match in _CYTHON_IMPORT.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                if match.group(3):
                    targets = [match.group(3)]
                else:
                    names = [n.split(" as ")[0].strip(" ()\\") for n in match.group(2).split(",")]
                    targets = _targets(match.group(1), [n for n in names if n], root)
                out += [Import(path, line, module, t) for t in targets]
    return out


def unit(module: str) -> str:
    """The table's unit of a module: ``rankcore.push._driver`` -> ``rankcore.push``."""
    return ".".join(module.split(".")[:2])


def violations(root: Path, table: dict[str, int]) -> list[str]:
    """One line per import that climbs a layer or reaches another package's private module."""
    found = []
    for imp in imports(root):
        if (imp.module, imp.target) in ALLOWED:
            continue
        where = f"{imp.path.relative_to(root)}:{imp.line}: {imp.module} imports {imp.target}"
        source, target = unit(imp.module), unit(imp.target)
        for name in {source, target} - set(table):
            found.append(f"{where}: {name} has no row in the layer table of docs/architecture.md")
        if source in table and target in table and table[target] > table[source]:
            found.append(f"{where}: climbs from layer {table[source]} to {table[target]}")
        parts = imp.target.split(".")
        for i in range(2, len(parts)):
            if parts[i].startswith("_") and not parts[i].startswith("__"):
                owner = ".".join(parts[:i])
                if (root.joinpath(*parts[:i]).is_dir() and imp.module != owner
                        and not imp.module.startswith(owner + ".")):
                    found.append(f"{where}: a private module of {owner} (import its public name instead)")
                break
    return found


def import_circles(root: Path) -> list[list[str]]:
    """Groups of modules that import one another, directly or around a loop (Tarjan's strongly connected parts).

    An import of a package (its ``__init__``) is left out: a package imports
    its modules to export their names, and they take shared names from it.
    """
    edges: dict[str, set[str]] = {}
    for imp in imports(root):
        if imp.target != imp.module and not (root.joinpath(*imp.target.split(".")) / "__init__.py").is_file():
            edges.setdefault(imp.module, set()).add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = stack[stack.index(node):]
            del stack[stack.index(node):]
            if len(part) > 1:
                circles.append(sorted(part))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return circles


def test_no_modules_import_each_other():
    # a lazy import inside a function counts too: two modules that need each other are one module, or share a lower one
    assert import_circles(ROOT) == []


def test_a_planted_circle_is_found(tmp_path):
    root = _plant(tmp_path, {**TOY, "metrics/_scalar.py": "from ._base import Metric\n",
                             "metrics/_base.py": "def f():\n    from ._scalar import g\n"})
    assert import_circles(root) == [["rankcore.metrics._base", "rankcore.metrics._scalar"]]
    assert import_circles(_plant(tmp_path / "clean", TOY)) == []


def test_no_import_climbs_a_layer_or_reaches_another_package_private_module():
    table = layer_table((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert violations(ROOT, table) == []


def test_the_table_orders_the_layers_and_names_each_unit_once():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = layer_table(text)
    assert table["rankcore.cli"] > table["rankcore.auto"] > table["rankcore.push"] > table["rankcore.persistence"] \
        > table["rankcore.metrics"] > table["rankcore.registry"] > table["rankcore.spec"] == 0
    rows = text.split(TABLE_MARKER, 1)[1]
    names = re.findall(r"`([\w.]+)`", rows[:rows.index("\n\n", rows.index("| foundations"))])
    assert len(names) == len(set(names))


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "rankcore" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


TOY_TABLE = {"rankcore": 1, "rankcore.spec": 0, "rankcore.metrics": 2, "rankcore.push": 3, "rankcore.cli": 4}
TOY = {"__init__.py": "", "spec.py": "", "metrics/__init__.py": "from ._base import Metric\n",
       "metrics/_base.py": "from ..spec import x\n", "push/__init__.py": "", "push/_driver.py": "",
       "cli/__init__.py": "from ..push import boost\n"}


def test_a_clean_toy_tree_passes(tmp_path):
    assert violations(_plant(tmp_path, TOY), TOY_TABLE) == []


@pytest.mark.parametrize("name, text, message", [
    ("metrics/_scalar.py", "def f():\n    from ..cli import main\n", "climbs from layer 2 to 4"),
    ("spec.py", "import rankcore.metrics\n", "climbs from layer 0 to 2"),
    ("push/_estimators.py", "from rankcore.metrics._base import Metric\n", "a private module of rankcore.metrics"),
    ("cli/run.py", "from ..push import _driver\n", "a private module of rankcore.push"),
    ("push/_kernel.pyx", "from rankcore.metrics._base cimport Metric\n", "a private module of rankcore.metrics"),
    ("plotting.py", "from .metrics import Metric\n", "rankcore.plotting has no row in the layer table"),
])
def test_a_planted_violation_is_found(tmp_path, name, text, message):
    root = _plant(tmp_path, {**TOY, name: text})
    found = violations(root, TOY_TABLE)
    assert len(found) == 1 and message in found[0], found
    assert found[0].startswith(str(Path("rankcore", name)))

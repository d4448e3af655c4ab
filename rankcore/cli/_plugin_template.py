"""``rankcore plugins new FAMILY NAME``: write a ready-to-install plugin package.

The package is made from the text templates in ``plugin_template/`` (shipped
with rankcore as package data): a ``pyproject.toml`` declaring the entry
point, the component class (a working example of the family, to be edited),
the hook that registers it, its tests -- rankcore's contract checks, and a
fit or evaluation that uses the component by name -- and a README::

    rankcore-NAME/
        pyproject.toml
        README.md
        rankcore_NAME/__init__.py
        rankcore_NAME/plugin.py        the hook implementation (the entry point)
        rankcore_NAME/FAMILY.py        the component class
        tests/test_NAME.py             rankcore.testing.plugin_checks: the contract, the entry point, a use by name

An estimator's package (``rankcore_NAME/estimator.py``, a ``rankcore.Ranker``)
is tested by ``plugin_template/estimator_test.py.tmpl``: scikit-learn's
estimator checks and a model-file round trip too.

The packages in ``docs/examples/`` are exactly what this writes for their
names (a test keeps them so).  A family has a template when
``plugin_template/<family>.py.tmpl`` exists; ``<family>_test.py.tmpl``, when
it exists, replaces the common ``test.py.tmpl``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

__all__ = ["TEMPLATE_DIR", "template_families", "PluginNames", "plugin_files", "write_plugin"]

#: Where the templates live (package data of rankcore.cli).
TEMPLATE_DIR = Path(__file__).resolve().parent / "plugin_template"

# How each family's component is used by name, shown in the README (the tests use it so
# through rankcore.testing.plugin_checks).
_USAGE = {
    "price": 'rankcore.boost(price="$name", n_iter=30, random_state=0).fit(X, y)',
    "loss": 'rankcore.boost(loss="$name", n_iter=30, random_state=0).fit(X, y)',
    "learner": 'rankcore.boost(learner="$name", n_iter=30, random_state=0).fit(X, y)',
    "objective": 'rankcore.boost(objective="$name", learner="stumps", n_iter=30, random_state=0).fit(X, y)',
    "metric": 'rankcore.ExactBoost(metric="$name:20", n_runs=5, n_rounds=10, random_state=0).fit(X, y)',
    "filter": 'rankcore.KernelRanker(filter="$name", lam=1e-2).fit(X, y)',
    "kernel": 'rankcore.KernelRanker(kernel="$name", lam=1e-2).fit(X, y)',
    "estimator": 'rankcore.resolve("estimator", "$name:n_iter=200").fit(X, y)',
}
# The first example spec each family's component is shown with in the README.
_SPEC = {"metric": "$name:10", "estimator": "$Class (alias $name)"}
# What a family's package needs beyond rankcore and numpy.
_DEPENDENCIES = {"estimator": ', "scikit-learn>=1.6"'}
# Where the README says the component works.
_WORKS_DEFAULT = "it works everywhere rankcore takes a $family spec"
_WORKS = {"estimator": ("rankcore fits (`rankcore fit --model $name`), saves and loads it like its own "
                        "estimators")}
# More command lines for a family's README (after `rankcore plugins`).
_COMMANDS = {"estimator": "\nrankcore fit train.csv --model $name --n-iter 200 --out model.json"
                          "\nrankcore score model.json test.csv"}

_NAME = re.compile(r"^[a-z][a-z0-9]*(?:[-_@.+][a-z0-9]+)*$")
_WORD = re.compile(r"[a-z0-9]+")


def template_families() -> list[str]:
    """The families that have a template, in the registry's order."""
    from ..registry import FAMILIES

    return [family for family in FAMILIES if (TEMPLATE_DIR / f"{family}.py.tmpl").is_file()]


@dataclass(frozen=True)
class PluginNames:
    """The names a plugin package is built from, all derived from the component's name.

    ``PluginNames.of("price", "quadratic")`` gives the distribution
    ``rankcore-quadratic``, the module ``rankcore_quadratic``, the class
    ``Quadratic`` and the entry point ``quadratic``; ``"list-recall@k"`` gives
    ``rankcore-list-recall-at-k``, ``rankcore_list_recall_at_k`` and ``ListRecallAtK``.
    """

    family: str
    name: str
    dist: str
    module: str
    cls: str
    entry: str

    @classmethod
    def of(cls, family: str, name: str) -> "PluginNames":
        families = template_families()
        if family not in families:
            raise ValueError(f"FAMILY: expected one of {', '.join(families)}, got {family!r}")
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(
                f"NAME: expected a component name of lower-case letters and digits, starting with a letter, "
                f"its words joined by - _ @ . or + (e.g. 'quadratic', 'list-recall@k'), got {name!r}")
        words = _WORD.findall(name.replace("@", " at "))
        return cls(family, name, "rankcore-" + "-".join(words), "rankcore_" + "_".join(words),
                   "".join(w.capitalize() for w in words), "-".join(words))

    def substitutions(self) -> dict[str, str]:
        from ..registry import FAMILIES

        values = {"family": self.family, "name": self.name, "dist": self.dist, "module": self.module,
                  "Class": self.cls, "entry": self.entry, "hook": FAMILIES[self.family][0]}
        values["usage"] = Template(_USAGE[self.family]).substitute(values)
        for key, table, default in (("spec", _SPEC, "$name"), ("more_dependencies", _DEPENDENCIES, ""),
                                    ("more_commands", _COMMANDS, ""), ("works", _WORKS, _WORKS_DEFAULT)):
            values[key] = Template(table.get(self.family, default)).substitute(values)
        return values


def _render(template: str, values: dict[str, str]) -> str:
    return Template((TEMPLATE_DIR / template).read_text(encoding="utf-8")).substitute(values)


def plugin_files(names: PluginNames) -> dict[str, str]:
    """``{relative path: text}`` of the package for ``names`` (nothing is written)."""
    values = names.substitutions()
    return {
        "pyproject.toml": _render("pyproject.toml.tmpl", values),
        "README.md": _render("README.md.tmpl", values),
        f"{names.module}/__init__.py": _render("__init__.py.tmpl", values),
        f"{names.module}/plugin.py": _render("plugin.py.tmpl", values),
        f"{names.module}/{names.family}.py": _render(f"{names.family}.py.tmpl", values),
        f"tests/test_{names.module.removeprefix('rankcore_')}.py": _render(_test_template(names.family), values),
    }


def _test_template(family: str) -> str:
    """``<family>_test.py.tmpl`` where a family has tests of its own, else the common ``test.py.tmpl``."""
    own = f"{family}_test.py.tmpl"
    return own if (TEMPLATE_DIR / own).is_file() else "test.py.tmpl"


def _refuse_registered(family: str, name: str, given: str) -> None:
    """A name the registry already has in ``family``: the package's component would be skipped once installed (the
    registry keeps the first of a name), and its generated tests would test the other one."""
    import warnings

    from ..registry import UnknownComponentError, registry

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)      # plugin problems are `rankcore plugins`' to show
        reg = registry()
    try:
        entry = reg.entry(family, name)
    except UnknownComponentError:
        return
    what = repr(name) if name == given else f"{given!r} (its class {name!r})"
    raise ValueError(f"NAME: {what} is already a registered {family} (from {entry.distribution}); a plugin's "
                     "component needs a name of its own")


def write_plugin(family: str, name: str, directory: str | os.PathLike = ".") -> Path:
    """Write the plugin package for the component ``name`` of ``family`` into ``directory``.

    Returns
    -------
    Path
        The package's folder, ``directory/rankcore-<name>``.

    Raises
    ------
    ValueError
        An unknown family, a malformed name, a name already registered in
        the family, or a folder that already exists (nothing is overwritten).
    """
    names = PluginNames.of(family, name)
    # an estimator registers under its class name (exact-boost -> ExactBoost)
    _refuse_registered(family, names.cls if family == "estimator" else name, name)
    root = Path(directory) / names.dist
    if root.exists():
        raise ValueError(f"{root} already exists; choose another NAME or --dir")
    if not Path(directory).is_dir():
        raise ValueError(f"--dir: {os.fspath(directory)!r} is not a directory")
    for relative, text in plugin_files(names).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root

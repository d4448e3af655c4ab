"""Contract checks for rankcore components, like scikit-learn's ``check_estimator``.

Every registered component -- built-in or from a third-party plugin, estimators
included -- can be run through the checks of its family::

    from rankcore.testing import check_component
    check_component("price", "pow:4")          # raises AssertionError on a violation

    # or, in a plugin's own test suite, one pytest case per check:
    import pytest
    from rankcore.testing import component_checks

    @pytest.mark.parametrize("check", component_checks("price", "cubic"), ids=str)
    def test_cubic(check):
        check()

    # or the whole test of a plugin package: every example spec's checks, then
    # found through the registry and used by a model by name
    @pytest.mark.parametrize("check", plugin_checks(CubicPrice), ids=str)
    def test_plugin(check):
        check()

The checks of each family live in ``rankcore/testing/_<family>.py`` as a list
``CHECKS`` of functions ``check_xxx(component, rng)``; they only use the
component's public interface, so they apply to plugins as they are.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

__all__ = ["check_component", "component_checks", "plugin_checks", "registry_cases", "ComponentCheck"]

_FAMILY_MODULES = {
    "loss": "_losses",
    "price": "_prices",
    "learner": "_learners",
    "objective": "_objectives",
    "metric": "_metrics",
    "filter": "_filters",
    "kernel": "_kernels",
    "candidate": "_candidates",
    "estimator": "_estimators",
}


@dataclass(frozen=True)
class ComponentCheck:
    """One check bound to one configured component; call it to run it."""

    family: str
    spec: str
    func: Callable[[Any, np.random.Generator], None]
    seed: int = 0

    def __call__(self) -> None:
        from ..registry import resolve

        component = resolve(self.family, self.spec)
        self.func(component, np.random.default_rng(self.seed))

    def __str__(self) -> str:
        return f"{self.family}:{self.spec}:{self.func.__name__}"


@functools.cache
def _family_checks(family: str) -> tuple:
    if family not in _FAMILY_MODULES:
        raise ValueError(f"family: expected one of {', '.join(_FAMILY_MODULES)}, got {family!r}")
    try:
        module = importlib.import_module(f".{_FAMILY_MODULES[family]}", __name__)
    except ModuleNotFoundError:
        return ()
    return tuple(module.CHECKS)


def component_checks(family: str, spec: str, *, seed: int = 0) -> list[ComponentCheck]:
    """Every contract check of ``family`` bound to the component ``spec``."""
    return [ComponentCheck(family, spec, func, seed) for func in _family_checks(family)]


def plugin_checks(cls: type, *, seed: int = 0) -> list[ComponentCheck]:
    """Everything a plugin package tests about one component class.

    The contract checks of its family for each of its example specs
    (``cls.example_specs()``), then, on the first example: the registry finds
    the class by name, provided by the distribution of its package (so the
    entry point works), and a model uses it by name on a small problem
    (``rankcore.testing._plugins``).  The package must be installed (or
    registered with ``register_plugin``).
    """
    from ._plugins import PLUGIN_CHECKS

    family = getattr(cls, "family", "")
    if family not in _FAMILY_MODULES:
        raise TypeError(f"cls: expected a component class of one of the families {', '.join(_FAMILY_MODULES)}, "
                        f"got {cls!r}")
    specs = cls.example_specs()
    checks = [check for spec in specs for check in component_checks(family, spec, seed=seed)]
    return checks + [ComponentCheck(family, specs[0], func, seed) for func in PLUGIN_CHECKS]


def check_component(family: str, spec: str, *, seed: int = 0) -> None:
    """Run every contract check of the family on one component; raise on the first failure."""
    for check in component_checks(family, spec, seed=seed):
        check()


def registry_cases() -> Iterator[ComponentCheck]:
    """Every check for every example spec of every registered component."""
    from ..registry import registry

    reg = registry()
    for entry in reg.all_entries():
        for spec in entry.cls.example_specs():
            yield from component_checks(entry.family, spec)

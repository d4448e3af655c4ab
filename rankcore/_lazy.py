"""Public names of a package loaded on first use (PEP 562's module ``__getattr__``).

A package lists its public names and the submodule that defines each; the
submodule is imported when a name is first read, and the value is then kept
in the package's namespace, so later reads do not come back here.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

__all__ = ["lazy_attributes"]


def lazy_attributes(package: str, names: dict[str, str],
                    namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for its lazily loaded ``names``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : dict
        Public name -> the submodule (relative to ``package``) that defines it.
    namespace : dict
        The package's ``globals()``: a loaded value is stored there.
    """
    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value                  # cache: later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__

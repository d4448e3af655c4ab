"""Where a parameter a model does not take belongs: the hint of ``--param max_depth=3`` given to ``--model push``.

The learners' parameters are read from the registry (a plugin learner's too), so the hint names the learner
that declares the parameter -- the model's own first -- and the ``--learner`` spec that sets it.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..registry import registry
from ..spec import Component, SpecError, parse_spec

__all__ = ["chosen_learner", "learner_hint"]


def chosen_learner(cls: type, lists: dict[str, list], spec_params: dict[str, Any], extra: dict[str, Any]) -> Any:
    """The learner a model of ``cls`` would be given (the first of ``--learner``'s, the spec's, ``--param``'s, else
    its default), or None for a model without one."""
    if lists.get("learner"):
        return lists["learner"][0]
    for params in (spec_params, extra):
        if "learner" in params:
            return params["learner"]
    return cls().get_params(deep=False).get("learner")


def learner_hint(valid: set, key: str, value: Any, learner: Any) -> str:
    """Where a parameter the model does not take belongs, when it is one of a registered learner's and the model
    takes a learner (``--param max_depth=3`` to push): ``'; max_depth is a parameter of the learner 'trees': --learner
    "trees:max_depth=3"'``, the model's own learner first (its other arguments kept).  Else ``""``."""
    if "learner" not in valid:
        return ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # plugin problems: `rankcore plugins` shows them
        reg = registry()
    spec = learner.spec if isinstance(learner, Component) else learner if isinstance(learner, str) else ""
    current, _, arguments = spec.partition(":")
    try:
        current = reg.entry("learner", current.strip()).name
    except ValueError:                                        # not a learner's name: no learner of the model's
        current = ""
    holders = [e for e in reg.in_order("learner") if any(p.name == key for p in e.cls.parameters)]
    if not holders:
        return ""
    entry = next((e for e in holders if e.name == current), holders[0])
    shown = ("true" if value else "false") if isinstance(value, bool) else "none" if value is None else value
    given = _arguments_with(spec, entry, key, shown) if entry.name == current and arguments.strip() else \
        f"{key}={shown}"
    return f'; {key} is a parameter of the learner {entry.name!r}: --learner "{entry.name}:{given}"'


def _arguments_with(spec: str, entry: Any, key: str, shown: Any) -> str:
    """The arguments of the learner's ``spec`` with ``key`` set to ``shown``: in place of the one the spec gives
    already (by keyword or position: ``trees:max_depth=2`` and ``--param max_depth=3`` would be given twice), else
    last."""
    try:
        _, args, kwargs = parse_spec(spec)
    except SpecError:                                         # a spec the fit refuses anyway: the value alone
        return f"{key}={shown}"
    names = [p.name for p in entry.cls.parameters][:len(args)]
    if key in names:
        args[names.index(key)] = str(shown)
    else:
        kwargs[key] = str(shown)                              # a dict keeps the place of a key it holds
    return ",".join([*args, *(f"{k}={v}" for k, v in kwargs.items())])

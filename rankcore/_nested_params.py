"""scikit-learn's nested parameters of an estimator's component objects: ``learner__interactions``.

A parameter given as a configured component (``PushBoost(learner=Trees(max_leaves=7))``) is an immutable value,
compared and hashed by its parameters, so it has no ``set_params`` of its own.  ``get_params(deep=True)`` lists its
parameters as ``learner__max_leaves``, ..., and ``set_params(learner__max_leaves=15)`` replaces the component by
one built with the new value -- what ``GridSearchCV`` over ``learner__...`` needs.
"""

from __future__ import annotations

from typing import Any

from .spec import REQUIRED, Component

__all__ = ["component_params", "with_components_rebuilt"]


def component_params(params: dict[str, Any]) -> dict[str, Any]:
    """``{"learner__max_leaves": 7, ...}``: the parameters of the components among ``params`` (a shallow
    ``get_params``), each under its owner's name."""
    return {f"{key}__{name}": value for key, owner in params.items() if isinstance(owner, Component)
            for name, value in owner.params.items()}


def with_components_rebuilt(estimator: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` (of ``set_params``) with each ``key__name`` of a component parameter folded into ``key``: the
    component (given in ``params``, else the estimator's) rebuilt with the new values.  A ValueError naming the
    key when ``key`` holds no component (a spec string: set it whole) or the component has no such parameter."""
    out = dict(params)
    nested: dict[str, dict[str, Any]] = {}
    for key in params:
        head, sep, name = key.partition("__")
        owner = out.get(head, getattr(estimator, head, None)) if sep else None
        if sep and isinstance(owner, Component):
            nested.setdefault(head, {})[name] = out.pop(key)
        elif sep and isinstance(owner, str) and "__" not in name:
            raise ValueError(f"{key}: {head} is the spec string {owner!r}, which has no parameters to set one by "
                             f"one: set {head} whole (a spec string with {name}=...), or give it as an object")
    for head, values in nested.items():
        owner = out.get(head, getattr(estimator, head))
        known = {p.name: p for p in owner.parameters}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"{head}__{unknown[0]}: the {owner.family} {owner.name!r} has no parameter "
                             f"{unknown[0]!r} (its parameters: {', '.join(known) or 'none'})")
        # a parameter at its default is left out: some defaults only mean "not set" and are no values to pass
        kept = {name: value for name, value in owner.params.items()
                if known[name].default is REQUIRED or value != known[name].default}
        out[head] = type(owner)(**{**kept, **values})
    return out

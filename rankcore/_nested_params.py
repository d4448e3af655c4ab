"""scikit-learn's nested parameters of an estimator's component objects: ``learner__interactions``.

A parameter given as a configured component (``PushBoost(learner=Trees(max_leaves=7))``) is an immutable value,
compared and hashed by its parameters, so it has no ``set_params`` of its own.  ``get_params(deep=True)`` lists its
parameters as ``learner__max_leaves``, ..., and ``set_params(learner__max_leaves=15)`` replaces the component by
one built with the new value -- what ``GridSearchCV`` over ``learner__...`` needs.

A value the component refuses (``learner__max_leaves=1``) is refused by ``fit``, as every other parameter value is:
``set_params`` keeps it in an :class:`UnbuiltComponent`.  A search then records that candidate's failure
(scikit-learn's ``error_score``) and goes on, where an error from ``set_params`` -- which scikit-learn calls outside
its guard -- would end the whole search.
"""

from __future__ import annotations

from typing import Any

from .spec import REQUIRED, Component, show_value

__all__ = ["component_params", "with_components_rebuilt", "UnbuiltComponent", "refuse_unbuilt"]


def component_params(params: dict[str, Any]) -> dict[str, Any]:
    """``{"learner__max_leaves": 7, ...}``: the parameters of the components among ``params`` (a shallow
    ``get_params``), each under its owner's name."""
    return {f"{key}__{name}": value for key, owner in params.items()
            if isinstance(owner, (Component, UnbuiltComponent)) for name, value in owner.params.items()}


class UnbuiltComponent:
    """A component ``set_params`` could not build from its nested values: kept as asked until ``fit`` refuses it.

    Parameters
    ----------
    component_class : type
        The component's class (that of the component the values were to replace parameters of).
    given : dict
        The values to build it with (those not at their defaults, and the new ones).
    keys : tuple of str
        The nested names that were set (``"learner__max_leaves"``), which the refusal names.
    """

    def __init__(self, component_class: type, given: dict[str, Any], keys: tuple[str, ...]):
        self.component_class = component_class
        self.given = dict(given)
        self.keys = tuple(keys)
        self.family = component_class.family
        self.name = component_class.name

    @property
    def params(self) -> dict[str, Any]:
        """Every parameter, as a component's ``params`` (defaults where none was given)."""
        return {p.name: self.given.get(p.name, p.default) for p in self.component_class.parameters}

    def refuse(self) -> None:
        """Raise the component's own error, headed by the nested names that were set (``learner__max_leaves=1:
        learner 'trees': max_leaves must be ...``)."""
        try:
            self.component_class(**self.given)
        except (TypeError, ValueError) as exc:
            shown = ", ".join(f"{key}={show_value(self.given.get(key.partition('__')[2]))}" for key in self.keys)
            text = f"{shown}: {exc}"
            try:
                error = type(exc)(text)
            except Exception:       # an exception class with another constructor
                error = ValueError(text)
            raise error from None

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={show_value(value)}" for name, value in self.given.items())
        return f"<{self.family} {self.name!r} not built: {shown}>"


def refuse_unbuilt(values: dict[str, Any]) -> None:
    """The start of ``fit``: raise the error of the first parameter among ``values`` that is an
    :class:`UnbuiltComponent`."""
    for value in values.values():
        if isinstance(value, UnbuiltComponent):
            value.refuse()


def with_components_rebuilt(estimator: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` (of ``set_params``) with each ``key__name`` of a component parameter folded into ``key``: the
    component (given in ``params``, else the estimator's) rebuilt with the new values.  A ValueError naming the
    key when ``key`` holds no component (a spec string: set it whole) or the component has no such parameter; a
    value the component refuses makes it an :class:`UnbuiltComponent`, which ``fit`` refuses."""
    out = dict(params)
    nested: dict[str, dict[str, Any]] = {}
    for key in params:
        head, sep, name = key.partition("__")
        owner = out.get(head, getattr(estimator, head, None)) if sep else None
        if sep and isinstance(owner, (Component, UnbuiltComponent)):
            nested.setdefault(head, {})[name] = out.pop(key)
        elif sep and isinstance(owner, str) and "__" not in name:
            raise ValueError(f"{key}: {head} is the spec string {owner!r}, which has no parameters to set one by "
                             f"one: set {head} whole (a spec string with {name}=...), or give it as an object")
    for head, values in nested.items():
        out[head] = _rebuilt(head, out.get(head, getattr(estimator, head)), values)
    return out


def _rebuilt(head: str, owner: Any, values: dict[str, Any]) -> Any:
    """``owner`` (a component, or one not built) with ``values`` for some of its parameters."""
    component_class = owner.component_class if isinstance(owner, UnbuiltComponent) else type(owner)
    known = {p.name: p for p in component_class.parameters}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"{head}__{unknown[0]}: the {owner.family} {owner.name!r} has no parameter "
                         f"{unknown[0]!r} (its parameters: {', '.join(known) or 'none'})")
    if isinstance(owner, UnbuiltComponent):
        kept, keys = owner.given, owner.keys
    else:
        # a parameter at its default is left out: some defaults only mean "not set" and are no values to pass
        kept = {name: value for name, value in owner.params.items()
                if known[name].default is REQUIRED or value != known[name].default}
        keys = ()
    given = {**kept, **values}
    try:
        return component_class(**given)
    except (TypeError, ValueError):
        # refused at fit, as any other parameter value: a search records this candidate's failure and goes on
        keys = tuple(dict.fromkeys(keys + tuple(f"{head}__{name}" for name in values)))
        return UnbuiltComponent(component_class, given, keys)

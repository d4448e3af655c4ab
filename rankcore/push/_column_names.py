"""Learner parameters that give columns of X by name (``trees:interactions=age+income``), resolved at fit.

A learner with such parameters has ``with_column_names(feature_names)``:
the same learner with each name replaced by its column's index among the
names of the DataFrame a fit is given (``feature_names_in_``).  A fit
resolves them before any of them is checked against X, so its model, and
the model file's ``learner``, hold indices; the estimator's ``learner``
parameter keeps the names as given, and loading a file resolves them again
against the file's ``feature_names_in``.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Any

__all__ = ["setup_with_column_names", "learner_with_column_names", "columns_named"]


def setup_with_column_names(setup, feature_names):
    """``setup`` (a :class:`BoostSetup`) with its learner's columns by name resolved against ``feature_names``
    (the fit's ``feature_names_in_``, or None: a ValueError if the learner names columns).  ``setup`` itself when
    the learner names none, or has no such parameters (no ``with_column_names``)."""
    resolve = getattr(setup.learner, "with_column_names", None)
    learner = setup.learner if resolve is None else resolve(feature_names)
    return setup if learner is setup.learner else replace(setup, learner=learner)


def learner_with_column_names(given: Any, feature_names) -> Any:
    """The estimator's ``learner`` parameter ``given`` with its columns by name resolved: for a fit given X without
    its names (the Dask estimators' fit on one worker, which gathers the rows as an array).

    A spec string keeps its other arguments as written (the parameters it
    names are the user's: the large-data and per-query defaults still fill the
    others); a configured learner is replaced by the resolved one.  ``given``
    itself when it names no column.
    """
    from ..base import resolve_parameter
    from ..spec import parse_spec

    learner = resolve_parameter("learner", "learner", given)
    resolve = getattr(learner, "with_column_names", None)
    named = learner if resolve is None else resolve(feature_names)
    if named is learner:
        return given
    if not isinstance(given, str):
        return named
    name, args, kwargs = parse_spec(given)
    order = [p.name for p in learner.parameters]
    for p in learner.parameters:
        value = getattr(named, p.name)
        if value == getattr(learner, p.name):
            continue
        if order.index(p.name) < len(args):
            args[order.index(p.name)] = str(value)
        else:
            kwargs[p.name] = str(value)
    return name + ":" + ",".join([*args, *(f"{key}={value}" for key, value in kwargs.items())])


@contextmanager
def columns_named(feature_names):
    """Name the column of a learner's error that gives it by index only (a ValueError with ``column`` and
    ``with_column_name``, as the trees' too-many-categories error), when the fit has ``feature_names``."""
    try:
        yield
    except ValueError as exc:
        column = getattr(exc, "column", None)
        if feature_names is None or column is None or not hasattr(exc, "with_column_name") \
                or not 0 <= column < len(feature_names):
            raise
        raise exc.with_column_name(str(feature_names[column])) from None

"""The built-in estimators: the one table that names them, registered like any plugin's.

``rankcore.<Name>`` (the lazy exports), ``save_model``/``load_model`` and the
``rankcore fit --model`` kinds are all built from the registry's estimator
family, which this module fills through the hook
``rankcore_register_estimators`` -- exactly as a third-party distribution
does.  Adding a built-in estimator is one line here.
"""

from __future__ import annotations

import importlib

from .hookspecs import hookimpl

__all__ = ["BUILTIN_ESTIMATORS", "rankcore_register_estimators"]

#: "module:Class" of every built-in estimator, in the order the command line lists them.
BUILTIN_ESTIMATORS: tuple[str, ...] = (
    "rankcore.push:PushBoost",
    "rankcore.push:PNormPush",
    "rankcore.push:RankBoost",
    "rankcore.exactboost:ExactBoost",
    "rankcore.precision_at_k:PerceptronAtK",
    "rankcore.precision_at_k:SGDAtK",
    "rankcore.rkhs:KernelRanker",
    "rankcore.auto:AutoRanker",
)


def load(target: str) -> type:
    """The class a ``"module:Class"`` target names."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@hookimpl
def rankcore_register_estimators():
    return [load(target) for target in BUILTIN_ESTIMATORS]

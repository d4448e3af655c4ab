"""rankcore: learning rankings that are right at the top of the list.

The public API is imported lazily: ``import rankcore`` is cheap, loads no
plugin and compiles nothing; each name below is imported on first access.

Families of pluggable components (see :mod:`rankcore.hookspecs`): losses,
prices, learners, objectives, metrics, filters, kernels -- and estimators,
whose built-in table (:mod:`rankcore._estimators`) gives the estimator exports
below.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any


def _refuse_unbuilt_source_tree() -> None:
    """Fail at ``import rankcore`` when this is a source tree whose Cython extensions were never built.

    Right after ``pip install .`` the shell is still in the repository root,
    and Python imports ``./rankcore`` (sources only) instead of the installed
    package: without this check the first kernel import fails much later
    with a puzzling ``No module named 'rankcore.metrics._roc'`` or a
    circular import.  The sentinel is one kernel every feature needs: its
    ``.pyx`` is here but no compiled module next to it.  An installed wheel
    ships no ``.pyx`` and an in-place build has the compiled module, so
    neither trips it.  Cost: a handful of ``stat`` calls.
    """
    from importlib.machinery import EXTENSION_SUFFIXES

    here = os.path.dirname(os.path.abspath(__file__))
    sentinel = os.path.join(here, "metrics", "_roc")
    if not os.path.exists(sentinel + ".pyx"):
        return
    if any(os.path.exists(sentinel + suffix) for suffix in EXTENSION_SUFFIXES):
        return
    root = os.path.dirname(here)
    raise ImportError(
        f"rankcore was imported from its source tree {here}, whose Cython extensions are not built "
        f"(no compiled rankcore.metrics._roc next to _roc.pyx). This happens when Python runs in the "
        f"repository root (here {root}) after 'pip install .': the directory shadows the installed package. "
        f"Either build the extensions in place with 'pip install -e .' in {root}, "
        f"or run Python from another directory so that the installed rankcore is imported.",
        name="rankcore",
        path=here,
    )


_refuse_unbuilt_source_tree()

from ._estimators import BUILTIN_ESTIMATORS  # noqa: E402
from .hookspecs import hookimpl  # noqa: E402

__version__ = "0.1.0"

# public name -> "module:attribute" (module relative to this package)
_LAZY: dict[str, str] = {
    # plugin machinery ("registry" is the module rankcore.registry; the
    # snapshot of registered components is get_registry())
    "registry": "registry:",
    "get_registry": "registry:registry",
    "list_plugins": "registry:list_plugins",
    "resolve": "registry:resolve",
    "Registry": "registry:Registry",
    "PluginProblem": "registry:PluginProblem",
    "UnknownComponentError": "registry:UnknownComponentError",
    "SpecError": "spec:SpecError",
    "Component": "spec:Component",
    "Parameter": "spec:Parameter",
    "Ranker": "base:Ranker",
    # family base classes (the plugin API)
    "Loss": "losses:Loss",
    "Price": "prices:Price",
    "Learner": "learners:Learner",
    "Objective": "objectives:Objective",
    "Metric": "metrics:Metric",
    "Filter": "filters:Filter",
    "Kernel": "kernels:Kernel",
    # metrics
    "evaluate": "metrics:evaluate",
    "MetricRefusal": "metrics:MetricRefusal",
    "ArgumentRefusal": "validation:ArgumentRefusal",
    "PickleVersionWarning": "_pickled_versions:PickleVersionWarning",
    "QueryKFold": "_query_folds:QueryKFold",
    "QueryTimeSeriesSplit": "_query_folds:QueryTimeSeriesSplit",
    "permutation_importance": "inspection:permutation_importance",
    # push family
    "boost": "push:boost",
    "load_model": "persistence:load_model",
    "save_model": "persistence:save_model",
    # the in-memory pair of load_model/save_model, and the error every refused model file raises
    "model_from_text": "persistence:model_from_text",
    "model_text": "persistence:model_text",
    "ModelFormatError": "persistence:ModelFormatError",
}
# the built-in estimators, from their one table: "rankcore.push:PushBoost" -> PushBoost = "push:PushBoost"
_LAZY.update({target.partition(":")[2]: target.partition(".")[2] for target in BUILTIN_ESTIMATORS})

__all__ = ["hookimpl", "__version__", *_LAZY]


# the public modules reachable as attributes after a bare ``import rankcore`` (``rankcore.metrics.compare``, as
# the docs write it): Python binds a submodule to its package only once something imports it
_MODULES = frozenset({"metrics", "validation", "gbdt", "push", "objectives", "learners", "losses", "prices",
                      "kernels", "filters", "inspection", "persistence", "plotting", "spec", "base",
                      "auto", "exactboost", "rkhs", "precision_at_k"})


def _dask_hint() -> str:
    """Why ``rankcore.dask`` is no attribute yet: it is imported on its own, as it needs the Dask extra."""
    said = ("module 'rankcore' has no attribute 'dask': rankcore.dask is not imported with rankcore "
            "(it needs Dask); run `import rankcore.dask` first")
    if importlib.util.find_spec("dask") is None:
        said += ', after installing Dask: pip install "rankcore[dask]"'
    return said


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None and name in _MODULES:
        target = f"{name}:"
    if target is None and name == "dask":
        raise AttributeError(_dask_hint())
    if target is None:
        raise AttributeError(f"module 'rankcore' has no attribute {name!r}")
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(f".{module_name}", __name__)
    value = getattr(module, attr) if attr else module
    globals()[name] = value  # cache: later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _MODULES)     # the subpackages too, imported or not

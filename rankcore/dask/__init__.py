"""rankcore on Dask: the push estimators, ExactBoost's runs and the metrics on a cluster.

Install with ``pip install rankcore[dask]``.  The estimators follow the
conventions of ``xgboost.dask`` and ``lightgbm.DaskLGBMClassifier``: they
take ``dask.array`` / ``dask.dataframe`` inputs and a ``client=`` (default:
the current client), fit on the distributed data, return lazy Dask arrays
from ``decision_function``, and convert to the in-memory estimator with
``to_local()``.  See ``docs/dask.md``.

* :class:`DaskPushBoost`, :class:`DaskPNormPush`, :class:`DaskRankBoost` --
  the push family's driver on a Dask backend (rows stay on the workers).
* :class:`DaskExactBoost` -- ExactBoost with its independent runs spread over
  the workers.
* :class:`DaskAutoRanker` -- AutoRanker with its candidates x folds as
  tasks on the workers (the same choice and model as in process).
* :func:`evaluate` -- auc, pauc, tpauc, ks (guaranteed bounds, exact on
  request), prec@k, rmax, max_height (exact) of distributed scores.
* :func:`bin_edges` -- the ``stumps`` bin edges of distributed data (the
  in-memory rule on the same sample), to share with an in-memory fit.
"""

import importlib.util

from .._lazy import lazy_attributes

# Dask runs this package's task functions (the one-worker fit, the shards' passes) in its workers, which
# import the package to unpickle them: its public names are loaded on first use, so a worker pays for
# dask.dataframe (pandas and pyarrow, ~18 MiB resident) or AutoRanker only when a task needs them.  The
# requirements are checked here all the same, so a missing extra fails at ``import rankcore.dask``.
try:
    import dask.array  # noqa: F401
    import distributed  # noqa: F401
    if importlib.util.find_spec("dask.dataframe") is None or importlib.util.find_spec("pandas") is None:
        raise ImportError("No module named 'dask.dataframe' (or its requirement pandas)")
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"rankcore.dask needs dask[array,dataframe] and distributed ({exc}); "
        "install them with: pip install 'rankcore[dask]'"
    ) from exc

# public name -> the module (relative to this package) that defines it
_LAZY: dict[str, str] = {
    "DaskPushBoost": "_estimators",
    "DaskPNormPush": "_estimators",
    "DaskRankBoost": "_estimators",
    "DaskExactBoost": "_exactboost",
    "DaskAutoRanker": "_auto",
    "evaluate": "_metrics",
    "DistributedEvaluation": "_metrics",
    "bin_edges": "_binning",
}

__all__ = list(_LAZY)

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())

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

try:
    import dask.array  # noqa: F401
    import dask.dataframe  # noqa: F401
    import distributed  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"rankcore.dask needs dask[array,dataframe] and distributed ({exc}); "
        "install them with: pip install 'rankcore[dask]'"
    ) from exc

from ._auto import DaskAutoRanker
from ._binning import bin_edges
from ._estimators import DaskPNormPush, DaskPushBoost, DaskRankBoost
from ._exactboost import DaskExactBoost
from ._metrics import DistributedEvaluation, evaluate

__all__ = [
    "DaskPushBoost",
    "DaskPNormPush",
    "DaskRankBoost",
    "DaskExactBoost",
    "DaskAutoRanker",
    "evaluate",
    "DistributedEvaluation",
    "bin_edges",
]

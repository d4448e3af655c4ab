"""DaskAutoRanker: AutoRanker with its candidates x folds running as Dask tasks.

The in-memory estimator's one seam, ``_executor``, is replaced: the data are
scattered to every worker once, and each task (one candidate on one fold) is
one future running :func:`rankcore.auto._tasks.run_task` -- the same
function, with the same seed, as in process -- on one worker thread.  The
search, the choice and the final refit stay on the client, so the result is
the in-process AutoRanker's for the same ``random_state`` (candidates whose
fits do not depend on the thread count: all the built-in ones).
"""

from __future__ import annotations

from ..auto import AutoRanker
from ._client import ClientParameter
from ._inputs import get_client, is_dask_collection

__all__ = ["DaskAutoRanker"]


class DaskAutoRanker(ClientParameter, AutoRanker):
    __doc__ = ("AutoRanker with its candidates x folds run as tasks on a Dask cluster.\n\n"
               "    Same search, same choice and same model as :class:`rankcore.AutoRanker` fitted with the\n"
               "    same parameters; the (candidate, fold) fits execute on the workers, one thread each.\n"
               "    Every candidate a task names must be registered on the workers too (plugins installed\n"
               "    there).  The final refit runs on the client.\n"
               "\n    Parameters\n    ----------\n"
               "    client : distributed.Client, optional\n"
               "        Default: the current client.\n"
               + AutoRanker.__doc__.split("Parameters\n    ----------\n", 1)[1].split("    Examples")[0])

    def __init__(self, *, client=None, metric="pauc:0.1", time_budget=None, cv="auto", candidates="auto",
                 blend=True, n_jobs=None, random_state=None, verbose=0):
        self.client = client
        super().__init__(metric=metric, time_budget=time_budget, cv=cv, candidates=candidates, blend=blend,
                         n_jobs=n_jobs, random_state=random_state, verbose=verbose)

    def fit(self, X, y, *, callbacks=None):
        """Search on (X, y) with the tasks on the cluster; Dask collections are computed to the client first."""
        X = X.compute() if is_dask_collection(X) else X
        y = y.compute() if is_dask_collection(y) else y
        return super().fit(X, y, callbacks=callbacks)

    def _executor(self, X, y, plan, metric_spec, seed, n_threads):
        from ..auto._executors import DaskExecutor

        return DaskExecutor(get_client(self.client), X, y, plan, metric_spec, seed)

    def to_local(self) -> AutoRanker:
        """The in-memory :class:`rankcore.AutoRanker` with these parameters and fit (savable)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        params = {k: v for k, v in self.get_params(deep=False).items() if k != "client"}
        local = AutoRanker(**params)
        local.__dict__.update({k: v for k, v in self.__dict__.items() if k.endswith("_") or k == "_candidate"})
        return local

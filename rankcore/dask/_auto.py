"""DaskAutoRanker: AutoRanker with its candidates x folds running as Dask tasks.

The in-memory estimator's public seam, :meth:`rankcore.AutoRanker.make_executor`,
is replaced: the data are scattered to every worker once, and each task (one
candidate on one fold) is one future running :func:`rankcore.auto.run_task`
-- the same function, with the same seed, as in process -- on one worker
thread.  The search, the choice and the final refit stay on the client, so
the result is the in-process AutoRanker's for the same ``random_state``
(candidates whose fits do not depend on the thread count: all the built-in
ones).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._peer_names import explains_rows_alone, names_peer_predict_arguments
from ..auto import AutoRanker, Task, TaskResult, run_task
from ..push import names_peer_fit_arguments
from ._client import ClientParameter
from ._estimators import CLIENT
from ._inputs import get_client, is_dask_collection
from ._workers import worker_info

__all__ = ["DaskAutoRanker", "DaskExecutor"]


class DaskExecutor:
    """Run tasks as Dask tasks: the data are scattered to every worker once, then each task is one future.

    Tasks go out in waves of as many tasks as the cluster has threads; each
    task of a wave is accepted (``may_start``) before the wave is submitted,
    on the measurements of the waves before, so a time budget is checked
    once per wave.
    """

    def __init__(self, client, X: np.ndarray, y: np.ndarray, plan, metric: str, base_seed: int,
                 categorical: tuple = (), sample_weight: np.ndarray | None = None):
        self.client, self.plan = client, plan
        self.metric, self.base_seed, self.categorical = metric, base_seed, categorical
        self._data = client.scatter((X, y, sample_weight), broadcast=True, hash=False)

    def __call__(self, tasks: list[Task], may_start: Callable[[Task], bool],
                 on_result: Callable[[TaskResult], None]) -> None:
        threads = sum(int(w.get("nthreads", 1)) for w in worker_info(self.client).values()) or 1
        for start in range(0, len(tasks), threads):
            wave = [task for task in tasks[start:start + threads] if may_start(task)]
            futures = [self.client.submit(_remote_task, self._data, self.plan.folds[task.fold], task, self.metric,
                                          self.base_seed, self.categorical, pure=False)
                       for task in wave]
            for future in futures:               # in task order: the same records as in process
                on_result(future.result())


def _remote_task(data, fold, task: Task, metric: str, base_seed: int, categorical: tuple) -> TaskResult:
    """A task on a worker: one thread per task (the worker runs as many tasks as it has threads)."""
    X, y, sample_weight = data
    train, validation = fold
    return run_task(X, y, train, validation, task, metric, base_seed, 1, categorical=categorical,
                    sample_weight=sample_weight)


def _computed(X):
    """X in memory: a Dask collection computed (a pandas DataFrame keeps its columns and dtypes)."""
    return X.compute() if is_dask_collection(X) else X


#: ``fit`` arguments of :meth:`DaskAutoRanker.fit`'s signature that it refuses.
_REFUSED_FIT_ARGUMENTS = ("qid", "group", "position", "init_score", "eval_set", "eval_names", "eval_metric",
                          "eval_init_score", "init_model")


class DaskAutoRanker(ClientParameter, AutoRanker):
    """AutoRanker with its candidates x folds run as tasks on a Dask cluster.

    Same search, same choice and same model as :class:`rankcore.AutoRanker`
    fitted with the same parameters; the (candidate, fold) fits execute on
    the workers, one thread each.  Every candidate a task names must be
    registered on the workers too (plugins installed there).  The final
    refit runs on the client; ``to_local()`` gives the in-memory AutoRanker
    (to save it).
    """

    name = "DaskAutoRanker"
    aliases = ()
    examples = ()
    parameters = (CLIENT,) + AutoRanker.parameters

    # in the signature as AutoRanker.fit's, refused here: no hint names them
    @names_peer_fit_arguments(constructor=None, auto=True, refuses=_REFUSED_FIT_ARGUMENTS)
    def fit(self, X, y, sample_weight=None, *, qid=None, group=None, callbacks=None, position=None, init_score=None,
            eval_set=None, eval_names=None, eval_metric=None, eval_init_score=None, init_model=None):
        """Search on (X, y) with the tasks on the cluster; Dask collections are computed to the client first.

        ``sample_weight`` (an array, or a Dask array or series computed with
        X) is taken as :meth:`rankcore.AutoRanker.fit` takes it: scattered
        with the data, each task fits with its training rows' weights.
        ``qid`` and ``group`` are refused (a ValueError naming the estimator):
        the search within queries runs in memory, ``rankcore.AutoRanker``.
        So are ``position``, ``init_score`` and ``eval_set`` (and its
        ``eval_names``, ``eval_metric``, ``eval_init_score``): the tasks carry
        the rows and their weights only.  ``init_model`` is refused as
        ``AutoRanker.fit`` refuses it.
        """
        if qid is not None or group is not None:
            given = "qid" if qid is not None else "group"
            raise ValueError(f"DaskAutoRanker cannot search within queries ({given}); fit "
                             f"rankcore.AutoRanker(...).fit(X, y, {given}={given}) in memory")
        extras = (("position", position), ("init_score", init_score), ("eval_set", eval_set),
                  ("eval_names", eval_names), ("eval_metric", eval_metric), ("eval_init_score", eval_init_score))
        for name, value in extras:
            if value is not None:
                raise ValueError(f"{name}: DaskAutoRanker takes no {name} (its tasks carry the rows and their "
                                 f"weights only); fit rankcore.AutoRanker(...).fit(X, y, {name}=...) in memory")
        X, y = _computed(X), _computed(y)
        if is_dask_collection(sample_weight):
            sample_weight = sample_weight.compute()
        return super().fit(X, y, sample_weight, callbacks=callbacks, init_model=init_model)

    @names_peer_predict_arguments
    def decision_function(self, X) -> np.ndarray:
        """:meth:`rankcore.AutoRanker.decision_function`; a Dask collection is computed to the client first, as
        :meth:`fit` computes it (its ``category`` columns then read by value), and the scores are a NumPy array."""
        return super().decision_function(_computed(X))

    @explains_rows_alone
    def feature_contributions(self, X, background=None, *, groups=None) -> np.ndarray:
        """:meth:`rankcore.AutoRanker.feature_contributions` of X (and of ``background``, interventional values, with
        ``groups`` of columns), a Dask collection computed to the client first."""
        return super().feature_contributions(_computed(X), background=_computed(background), groups=groups)

    @explains_rows_alone
    def feature_interactions(self, X, background=None, **kwargs) -> np.ndarray:
        """:meth:`rankcore.AutoRanker.feature_interactions` of X (and of ``background``, interventional values), a
        Dask collection computed to the client first."""
        return super().feature_interactions(_computed(X), _computed(background), **kwargs)

    def make_executor(self, X, y, plan, metric_spec, seed, n_threads, sample_weight=None):
        return DaskExecutor(get_client(self.client), X, y, plan, metric_spec, seed, self.categorical_columns(),
                            sample_weight)

    def to_local(self) -> AutoRanker:
        """The in-memory :class:`rankcore.AutoRanker` with these parameters and fit (savable)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        params = {k: v for k, v in self.get_params(deep=False).items() if k != "client"}
        local = AutoRanker(**params)
        local.__dict__.update({f.name: self.__dict__[f.name] for f in local.fitted if f.name in self.__dict__})
        return local


"""Where the tasks run: in this process, one after the other (``rankcore.dask`` runs them on a cluster).

An executor is a callable ``run(tasks, may_start, on_result)``: it runs the
tasks ``may_start`` accepts (asked just before each is started, so that a
time budget sees the latest measurements) and hands each result to
``on_result`` in task order.  Results never depend on the executor: a task
is a pure function of its inputs (:func:`rankcore.auto.run_task`).  An
estimator chooses its executor in :meth:`AutoRanker.make_executor`, the one
seam :class:`rankcore.dask.DaskAutoRanker` overrides.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._tasks import Task, TaskResult, has_nan, run_task

__all__ = ["LocalExecutor"]


class LocalExecutor:
    """Run tasks one after the other in this process, each on ``n_jobs`` threads.

    Each candidate is resolved once, at its first task, for all its tasks.
    ``qid``: each row's query code, for a fit within queries;
    ``sample_weight``: each row's weight, for a weighted fit; ``init_score``,
    ``position``: each row's initial score, display position (see
    :func:`~rankcore.auto.run_task`).
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, plan, metric: Any, base_seed: int, n_jobs: int,
                 categorical: tuple = (), qid: np.ndarray | None = None, sample_weight: np.ndarray | None = None,
                 init_score: np.ndarray | None = None, position: np.ndarray | None = None):
        self.X, self.y, self.plan, self.qid, self.sample_weight = X, y, plan, qid, sample_weight
        self.init_score, self.position = init_score, position
        self.metric, self.base_seed, self.n_jobs = metric, base_seed, n_jobs
        self.categorical = categorical
        self.has_missing = has_nan(X)        # once, not once per task
        self._candidates: dict = {}

    def __call__(self, tasks: list[Task], may_start: Callable[[Task], bool],
                 on_result: Callable[[TaskResult], None]) -> None:
        for task in tasks:
            if not may_start(task):
                continue
            train, validation = self.plan.folds[task.fold]
            on_result(run_task(self.X, self.y, train, validation, task, self.metric, self.base_seed, self.n_jobs,
                               self.has_missing, self.categorical, self._candidate(task.spec), self.qid,
                               self.sample_weight, self.init_score, self.position))

    def _candidate(self, spec: str):
        """The candidate ``spec`` names, resolved at its first task; None when it does not resolve
        (then :func:`run_task` records the error of resolving it)."""
        if spec not in self._candidates:
            from ..registry import resolve

            try:
                self._candidates[spec] = resolve("candidate", spec)
            except (TypeError, ValueError):
                self._candidates[spec] = None
        return self._candidates[spec]

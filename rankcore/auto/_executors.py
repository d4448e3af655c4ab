"""Where the tasks run: in this process, one after the other, or as Dask tasks on a cluster.

An executor is a callable ``run(tasks, may_start, on_result)``: it runs the
tasks ``may_start`` accepts (asked just before each is started, so that a
time budget sees the latest measurements) and hands each result to
``on_result`` in task order.  Results never depend on the executor: a task
is a pure function of its inputs (:func:`rankcore.auto._tasks.run_task`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ._tasks import Task, TaskResult, run_task

__all__ = ["LocalExecutor", "DaskExecutor"]


class LocalExecutor:
    """Run tasks one after the other in this process, each on ``n_jobs`` threads."""

    def __init__(self, X: np.ndarray, y: np.ndarray, plan, metric: str, base_seed: int, n_jobs: int):
        self.X, self.y, self.plan = X, y, plan
        self.metric, self.base_seed, self.n_jobs = metric, base_seed, n_jobs

    def __call__(self, tasks: list[Task], may_start: Callable[[Task], bool],
                 on_result: Callable[[TaskResult], None]) -> None:
        for task in tasks:
            if not may_start(task):
                continue
            train, validation = self.plan.folds[task.fold]
            on_result(run_task(self.X, self.y, train, validation, task, self.metric, self.base_seed, self.n_jobs))


class DaskExecutor:
    """Run tasks as Dask tasks: the data are scattered to every worker once, then each task is one future.

    Tasks go out in waves of as many tasks as the cluster has threads; each
    task of a wave is accepted (``may_start``) before the wave is submitted,
    on the measurements of the waves before, so a time budget is checked
    once per wave.
    """

    def __init__(self, client, X: np.ndarray, y: np.ndarray, plan, metric: str, base_seed: int):
        self.client, self.plan = client, plan
        self.metric, self.base_seed = metric, base_seed
        self._data = client.scatter((X, y), broadcast=True, hash=False)

    def __call__(self, tasks: list[Task], may_start: Callable[[Task], bool],
                 on_result: Callable[[TaskResult], None]) -> None:
        threads = sum(int(w.get("nthreads", 1)) for w in self.client.scheduler_info()["workers"].values()) or 1
        for start in range(0, len(tasks), threads):
            wave = [task for task in tasks[start:start + threads] if may_start(task)]
            futures = [self.client.submit(_remote_task, self._data, self.plan.folds[task.fold], task, self.metric,
                                          self.base_seed, pure=False)
                       for task in wave]
            for future in futures:               # in task order: the same records as in process
                on_result(future.result())


def _remote_task(data, fold, task: Task, metric: str, base_seed: int) -> TaskResult:
    """A task on a worker: one thread per task (the worker runs as many tasks as it has threads)."""
    X, y = data
    train, validation = fold
    return run_task(X, y, train, validation, task, metric, base_seed, 1)

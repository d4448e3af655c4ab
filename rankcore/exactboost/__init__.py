"""ExactBoost: boosting decision stumps on a monotone metric itself.

The algorithm and its bound: ``docs/theory/exactboost.md``.

:class:`ExactBoost` is the estimator.  Its runs are also available as plain
functions, for drivers that ship runs to other processes or machines: a run's
stumps depend only on (:class:`PreparedData`, its seed, :class:`RunSettings`)::

    data = prepare_data(X, y01)                 # once
    seeds = run_seeds(random_state, n_runs)     # one uint64 per run
    results = [fit_run(data, int(seed), settings) for seed in seeds]   # anywhere
    RunResult.concatenate(results)              # == fit_runs(data, seeds, settings)

:func:`contribution_rows` and :func:`interaction_rows` are the per-row arithmetic of
``ExactBoost.feature_contributions`` / ``feature_interactions``, for drivers that explain chunks of rows elsewhere.
"""

from ._contributions import contribution_rows, interaction_rows
from ._estimator import ExactBoost
from ._metric import monotonicity_violation, resolve_monotone_metric
from ._runs import PreparedData, RunResult, RunSettings, fit_run, fit_runs, prepare_data, run_seeds

__all__ = [
    "ExactBoost",
    "PreparedData",
    "RunResult",
    "RunSettings",
    "contribution_rows",
    "fit_run",
    "fit_runs",
    "interaction_rows",
    "monotonicity_violation",
    "prepare_data",
    "resolve_monotone_metric",
    "run_seeds",
]

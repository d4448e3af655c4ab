"""AutoRanker: cross-validate rankcore's learners on a top-of-list metric and keep the best (or their blend).

* :class:`AutoRanker` -- the estimator (``rankcore.AutoRanker``).
* :class:`Candidate`, :class:`CandidateContext` -- what a plugin subclasses
  to add a candidate (hook ``rankcore_register_auto_candidates``);
  :func:`build_estimator` and :func:`fit_estimator` build and fit one as
  AutoRanker does (``NO_SAMPLE_WEIGHT``: the skip reason of a candidate
  taking no weights on a weighted fit; ``NO_SPARSE``: of one reading dense X only, on sparse X).
* :func:`part_advice` -- the advice of a refusal of the metric on the parts
  scored (``MetricRefusal.remedy``), said of another name for the set.
* :class:`Leaderboard`, :class:`LeaderboardRow` -- the outcome of a search.
* :class:`RankAverage` -- the fitted rank-average blend.
* :class:`FoldBag` -- the choice's refit averaged with its cross-validation fold models.
* :func:`reads_sparse` -- whether a fitted choice (``best_estimator_``) scores sparse rows as they are.
* :class:`MissingValueImputer` -- the median fill and missing-value indicators
  in front of candidates that do not accept NaN, on data with missing values.
* :class:`SearchEvent` -- what ``fit(..., callbacks=...)`` receives.
* :func:`run_task`, :class:`Task`, :class:`TaskResult`, :class:`LocalExecutor`
  -- one (candidate, fold) fit and where it runs: the seam of
  :meth:`AutoRanker.make_executor`, which ``rankcore.dask`` overrides.

See ``docs/auto.md``.
"""

from ._bag import FoldBag
from ._blend import RankAverage
from ._candidate import NO_SAMPLE_WEIGHT, NO_SPARSE, Candidate, CandidateContext, build_estimator, fit_estimator
from ._estimator import DEFAULT_METRIC, AutoRanker, check_params, default_specs
from ._impute import MissingValueImputer
from ._executors import LocalExecutor
from ._folds import MAX_CV_REPEATS, part_advice
from ._leaderboard import Leaderboard, LeaderboardRow
from ._progress import SearchEvent, SearchProgress
from ._queries import QUERY_METRIC
from ._saved import decode_fitted, encode_fitted, reads_sparse
from ._small_data import SMALL_DATA_ROWS, small_data_specs
from ._tasks import Task, TaskResult, make_context, run_task

__all__ = ["AutoRanker", "DEFAULT_METRIC", "QUERY_METRIC", "Candidate", "CandidateContext", "FoldBag", "Leaderboard",
           "LeaderboardRow", "MAX_CV_REPEATS", "MissingValueImputer", "RankAverage", "SearchEvent", "SMALL_DATA_ROWS",
           "default_specs", "small_data_specs", "LocalExecutor", "Task", "TaskResult", "run_task", "SearchProgress",
           "check_params", "build_estimator", "make_context", "encode_fitted", "decode_fitted", "fit_estimator",
           "NO_SAMPLE_WEIGHT", "NO_SPARSE", "part_advice", "reads_sparse"]

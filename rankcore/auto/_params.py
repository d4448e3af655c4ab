"""AutoRanker's parameters and fitted state, declared once (:class:`rankcore.base.Ranker` reads them).

From these declarations come ``__init__``, ``get_params``/``set_params``,
the docstring's "Parameters" section, the checks ``fit`` starts with (and a
model file's parameters go through on load), the fields of a model file and
what a fit publishes in one step.  What a check needs the registry for (the
metric and the candidates resolved) is done by ``fit``, once.
"""

from __future__ import annotations

import math
from typing import Any

from .._categories import categories_to_state
from .._peer_names import VERBOSE_RULE
from ..base import N_JOBS, Fitted, random_state_kind, spec_kind
from ..spec import Kind, Parameter
from ._folds import MAX_CV_REPEATS, check_cv

__all__ = ["AUTO_PARAMETERS", "AUTO_FITTED"]


def _candidates(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(item, str) for item in value):
        return value
    raise TypeError("not a list of spec strings")


_CANDIDATES = Kind("'auto', a candidate spec string or a non-empty list of them", _candidates,
                   type_doc='"auto" or list of str', shows_type=True)
_CV = Kind(f"'auto', an integer >= 2, a pair (n_splits, n_repeats) with n_repeats from 1 to {MAX_CV_REPEATS} "
           "or a fraction in (0, 1)", check_cv,
           type_doc='"auto", int, (int, int) or float')

AUTO_PARAMETERS = (
    Parameter("metric", spec_kind("metric"), default=None, nullable=True, type_doc="str, Metric or None", doc="""
        Any registered scalar metric of two-class labels: ``"pauc:0.1"``,
        ``"prec@k:0.05"`` (a fraction of each validation part), ``"prec@k:50"``
        (a count: at most the rows of a validation part), ``"rmax"``, ``"auc"``...
        None: ``"pauc:0.1"``; fitted with ``qid``, ``"ndcg@k:10"`` per query.
        With ``qid`` any metric is taken per query and averaged over the
        queries it counts (``"map"``, ``"mrr"``, ``"err@k:5"``...)."""),
    Parameter("time_budget", float, default=None, nullable=True, minimum=0.0, exclusive_minimum=True,
              rule="None or a positive number of seconds", doc="""
        Seconds for the whole fit (search and refit).  None: a fixed plan whose
        cost scales with one default fit (about 10-25 fits of the default
        trees, see ``docs/auto.md``), deterministic for a fixed ``random_state``.
        With a budget the search adds repeats of the folds while time remains
        and stops a rung that would overrun; the choice then depends on the
        measured times."""),
    Parameter("cv", _CV, default="auto", doc="""
        ``"auto"``: repeated stratified 5-fold cross-validation up to 10,000
        rows (the first repeat without a budget), else one stratified hold-out
        of 20 %.  An integer K: stratified K-fold; a pair (K, R): K folds, R
        repeats (at most ``rankcore.auto.MAX_CV_REPEATS``, 100), every one used (with a
        budget, as many as time allows), each drawn when the search reaches
        it; a float in (0, 1): one stratified hold-out of that share."""),
    Parameter("candidates", _CANDIDATES, default="auto", doc="""
        Candidate specs (``rankcore plugins --family candidate`` lists them):
        ``"auto"`` is every registered candidate's default configurations.
        The first candidate is the *default* the others must beat (``"trees"``
        in the default search)."""),
    Parameter("blend", bool, default=True, doc="""
        Consider the rank-average blend of the two leading candidates.  With
        the default candidates on at most ``SMALL_DATA_ROWS`` (120) rows, keep
        the small-data blend (linear, kernel and ExactBoost rank-averaged)
        without a choice; False: search and choose there too."""),
    Parameter("bag_folds", bool, default=True, doc="""
        On a K-fold plan, average the choice's refit on every row with its
        models of the first repeat's folds (already fitted by the search; each
        model's scores standardized by its held-out scores): bagging for
        free, less variance on small noisy data.  False: the refit alone.
        A hold-out plan always keeps the refit alone."""),
    Parameter("n_jobs", N_JOBS, default=None, doc="""
        Threads of each fit (None or -1: all cores)."""),
    Parameter("random_state", random_state_kind(generator=False), default=None, doc="""
        Seeds the folds and every candidate's fit; None is scikit-learn's: a
        draw from NumPy's global ``RandomState``."""),
    Parameter("verbose", int, default=0, minimum=0, rule=VERBOSE_RULE, doc="""
        0: silent; 1 or more: a progress display on stdout, as every estimator's
        ``verbose`` (candidate, fold, best so far: a bar in a terminal, lines
        otherwise)."""),
)


#: The leaderboard's wall-clock measurements: saved as NaN, as they differ run to run (a model file depends
#: on the data, the code and ``random_state`` only, so that the same fit writes the same bytes).
_TIMINGS = ("fit_time", "score_time")


def _records(leaderboard) -> list[dict]:
    return [{k: (math.nan if k in _TIMINGS else v) for k, v in record.items() if k != "n_folds"}
            for record in leaderboard.records()]


def _not_saved_seconds(seconds) -> float:
    """A measured duration's field in a model file: NaN, for the reason of :data:`_TIMINGS`."""
    return math.nan


def _classes(classes) -> Any:
    return classes if classes.dtype.kind in "biuf" else [str(c) for c in classes]


#: What a fit publishes and a model file holds (``best`` is written by ``AutoRanker._get_fitted_state``:
#: its record names the candidate in the error of a model that cannot be saved).
AUTO_FITTED = (
    Fitted("metric_", "metric"),
    Fitted("n_features_in_", "n_features_in", int),
    Fitted("classes_", "classes", _classes, optional=True),
    Fitted("best_estimator_", "best"),
    Fitted("best_candidate_", "best_candidate"),
    Fitted("best_score_", "best_score", float),
    Fitted("leaderboard_", "leaderboard", _records),
    Fitted("cv_description_", "cv_description"),
    Fitted("selection_reason_", "selection_reason"),
    Fitted("search_time_", "search_time", _not_saved_seconds),     # NaN in a file: durations are not saved
    Fitted("refit_time_", "refit_time", _not_saved_seconds),
    Fitted("feature_names_in_", "feature_names_in", lambda names: [str(n) for n in names], optional=True),
    Fitted("categories_", "categories", categories_to_state, optional=True),
    Fitted("n_queries_", "n_queries", int, optional=True),
    Fitted("n_queries_without_pairs_", "n_queries_without_pairs", int, optional=True),
    Fitted("cv_results_"),
    Fitted("best_index_"),
    Fitted("cv_predictions_", optional=True),
    Fitted("search_stop_reason_", optional=True),     # what ended this fit's search: not saved
    # fitted from init_score: the model is a correction to scores it does not hold (set only then)
    Fitted("from_init_score_", "from_init_score", bool, optional=True),
    Fitted("evals_result_", "evals_result", optional=True),    # with eval_set: saved, as PushBoost's
    Fitted("_candidate", optional=True),
)

"""The push estimators' parameters and fitted state, declared once (see :mod:`rankcore.base`).

Every push estimator (in memory and on Dask) builds its ``__init__``, its
docstring's "Parameters" section, its validation and its model file from
these declarations.
"""

from __future__ import annotations

import math

import numpy as np

from .._categories import categories_to_state
from .._peer_names import VERBOSE_RULE
from ..base import N_JOBS, Fitted, float64_array, random_state_kind, spec_kind, string_list
from ..spec import Kind, Parameter, sequence_kind
from ._click_model import POSITION_BIAS
from ._validation import NO_VALIDATION

__all__ = ["LOSS", "PRICE", "OBJECTIVE", "P", "BOOSTING", "PUSH_FITTED", "FIT_INFO", "STOP_REASONS",
           "DEFAULT_N_ITER", "is_callback_reason", "evals_to_state"]

#: The reasons a fit stops, as ``stop_reason_`` records them (the driver's, less "no_decrease", which
#: is reported as "converged"; ``"no_validation_split"``: an ``early_stopping="auto"`` fit with too few
#: rows of a class for a validation split ran ``n_iter``); a callback may also stop a fit with a string
#: of its own (see :func:`is_callback_reason`).
STOP_REASONS = ("n_iter", "converged", "early_stopping", "diverged", "overflow", "no_split", "callback", NO_VALIDATION)

#: The default number of iterations (``n_iter=None`` outside the large-data settings).
DEFAULT_N_ITER = 100


def is_callback_reason(value) -> bool:
    """A callback's stop reason as a model file may hold it: a short, printable, one-line string."""
    return isinstance(value, str) and 0 < len(value) <= 100 and value.isprintable()


def _early_stopping(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value == "auto":
        return value
    raise ValueError("not a setting")


#: ``early_stopping``: True, False or "auto".
EARLY_STOPPING = Kind("True, False or 'auto'", _early_stopping, type_doc="bool or 'auto'")

LOSS = Parameter("loss", spec_kind("loss"), default="exp", doc="""
    Pairwise loss ℓ: ``"exp"``, ``"logistic"``, ``"hinge"``, ``"sqhinge"``
    or a plugin's.""")

PRICE = Parameter("price", spec_kind("price"), default=None, nullable=True, type_doc="str, Price or None", doc="""
    Price g: ``"identity"`` (RankBoost), ``"pow:p"`` (P-Norm Push),
    ``"exp:β"``, or a plugin's.  Larger p pushes harder at the top.
    None: the learner's ``default_price`` -- ``"pow:4"`` for stumps,
    thresholds and features, ``"pow:2"`` for trees (which fit the
    training rows more closely, so a milder push generalizes better).""")

OBJECTIVE = Parameter("objective", spec_kind("objective"), default=None, nullable=True,
                      type_doc="str, Objective or None", doc="""
    Any registered objective instead (e.g. ``"prec@k-avg:20"``); then
    ``loss`` and ``price`` must stay at their defaults.""")

# The upper bound of p is the price's (rankcore.prices.MAX_POWER), checked when pow:p is resolved.
P = Parameter("p", float, default=4.0, minimum=1.0, maximum=math.inf, doc="""
    The power, in [1, 1e6] (``rankcore.prices.MAX_POWER``); p = 1 is
    RankBoost, larger p pushes harder at the top.""")

#: The parameters every push estimator has, after its objective's.
BOOSTING = (
    Parameter("learner", spec_kind("learner"), default="stumps", type_doc="str or Learner", doc="""
        Weak-learner family: ``"stumps"`` (best threshold per feature, binned;
        ``"stumps:max_bins=1024"``), ``"thresholds"`` (``"thresholds:q=4"``
        quantile thresholds, or the ``thresholds`` parameter), ``"features"``
        (min–max scaled features: a linear model, as in the paper),
        ``"trees"`` (gradient-boosted trees), or a plugin's."""),
    Parameter("n_iter", int, default=None, minimum=1, maximum=2**31 - 1, nullable=True,
              saved_beyond_maximum=True, doc="""
        Boosting iterations (weak rankers added), at most; at most 2**31 - 1
        (a C int, as LightGBM's and XGBoost's round counts).  None: 100, or the
        learner's larger cap when ``early_stopping="auto"`` switches on
        (``trees``: 150, ``stumps``: 300).  ``n_iter_`` is the number kept."""),
    Parameter("thresholds", sequence_kind("one array of thresholds per feature", type_doc="list of array-like"),
              default=None, nullable=True, type_doc="list of array-like or None", doc="""
        Per-feature candidate thresholds for threshold learners (``stumps``:
        the bin edges, e.g. from :func:`rankcore.learners.bin_edges`;
        ``thresholds``: the thresholds themselves)."""),
    Parameter("categorical_features",
              sequence_kind("column indices, a boolean mask or column names (a list)", type_doc="array-like"),
              default=None, nullable=True, type_doc="array-like of int, bool or str, or None", doc="""
        Columns to split by groups of categories, for learners that do
        (``"trees"``): column indices, a boolean mask over the columns, or
        column names of the DataFrame passed to ``fit``.  A DataFrame's
        ``category`` columns are categorical without it (their categories
        are kept, ``categories_``, and a frame scored later is matched by
        value: a category not among them scores as a missing value); the
        learner spec's ``categorical`` adds to both.  A categorical column of
        numbers holds category codes (any numbers, NaN missing), at most
        ``max_bins`` of them.
        Other learners refuse it (a ValueError), as does the Dask backend."""),
    Parameter("tol", float, default=1e-12, minimum=0.0, doc="""
        Stop when no weak ranker has |∂J/∂α| above ``tol`` (J is the log of
        the push objective, so this is a relative rate)."""),
    Parameter("early_stopping", EARLY_STOPPING, default="auto", doc="""
        Choose the number of iterations (at most ``n_iter``) on validation
        data scored after every iteration; of tied best scores the later
        iteration is kept.

        ``"auto"``: on when the training set has more than 10,000 rows (as
        scikit-learn's HistGradientBoosting), the large-data way: hold out a
        stratified ``validation_fraction`` of the rows (drawn with
        ``random_state``; or stop on ``eval_set`` when given), boost on the
        rest, stop after ``n_iter_no_change`` iterations without improvement
        and keep the best iteration -- no refit.  The large-data settings
        apply: ``scoring=None`` validates by ``pauc:0.1``, and the learner's
        own (``trees``: learning rate 0.2 on every row, up to 150 trees;
        ``stumps``: up to 300), except what the learner spec or ``n_iter``
        sets.  When the hold-out would hold fewer than about 10 rows of a
        class, the fit runs ``n_iter`` iterations without early
        stopping, warns, and ``stop_reason_`` is ``"no_validation_split"``.
        Within queries (``fit(..., qid=)``) ``"auto"`` never stops: a
        hold-out of whole training queries is too noisy to stop on, and an
        ``eval_set`` is watched (``validation_scores_``), not stopped on;
        ``True`` stops on it.  Without queries, up to 10,000 rows, a
        ``n_iter_no_change`` the user sets with an ``eval_set`` switches
        early stopping on (LightGBM's ``early_stopping_rounds``).

        ``True``: with ``fit(..., eval_set=...)`` stop on it as above;
        without, hold out the stratified fraction when that holds at least
        1,000 rows and about 10 of each class, else use 5-fold
        cross-validation (of iteration counts whose mean validation score is
        within one standard error of the best, the largest); then refit on
        all the rows with the chosen number of iterations
        (``rankcore.push._validation``).  ``False``: ``n_iter`` iterations."""),
    Parameter("scoring", spec_kind("metric", also="'objective'"), default=None, nullable=True,
              type_doc="str or None", doc="""
        What validation data are scored by for early stopping and
        ``eval_set``: a registered metric (``"auc"``, ``"pauc:0.1"``,
        ``"prec@k:20"``, ...) or ``"objective"`` (the fit's own objective J
        on the validation rows).  None: ``"auc"`` (``"pauc:0.1"`` when
        ``early_stopping="auto"`` switches on) for bipartite objectives,
        ``"misrank"`` for graded ones.  :meth:`score` uses the metric (None
        and ``"objective"``: ``"auc"``, or ``"misrank"``)."""),
    Parameter("validation_fraction", float, default=0.1, minimum=0.0, maximum=1.0, exclusive_minimum=True,
              exclusive_maximum=True, doc="""
        The share of rows held out by ``early_stopping``, in (0, 1) (see there)."""),
    Parameter("n_iter_no_change", int, default=None, minimum=1, nullable=True, doc="""
        The patience of early stopping, in iterations (an integer >= 1);
        None: max(10, n_iter / 5).  Set, with ``fit(..., eval_set=...)`` and
        no ``qid``, it switches ``early_stopping="auto"`` on at any size."""),
    Parameter("position_l2", float, default=1.0, minimum=0.0, maximum=math.inf, exclusive_maximum=True, doc="""
        The L2 penalty λ >= 0 of the position effects learned when ``fit`` is
        given ``position``, relative to the curvature of each position's
        rows: the effects settle at 1 / (1 + λ) of their unpenalized values
        (the default halves them; 0 does not hold them, as LightGBM's
        default).  Larger values lose less where the order shown already
        followed relevance and gain less where it did not.  Unused without
        ``position``."""),
    Parameter("position_bias", POSITION_BIAS, default="additive", doc="""
        How ``fit``'s ``position`` explains the clicks.  ``"additive"``: an
        effect per position added to the score (``position_effects_``,
        shrunk by ``position_l2``).  ``"em"``: the position-based click
        model P(click) = θ_p σ(f(x)) fitted by regression EM (Wang et al.
        2018): each round refits the trees on every row's posterior
        relevance with ``objective="cross-entropy"``, then θ_p in closed form
        (``position_propensities_``); needs 0/1 clicks and costs a fit per
        round.  ``"em:rounds=R,tol=T,posterior_tol=P"`` (each option
        optional): at most R rounds (default 10), stopping early when no θ_p
        moves more than T, or when the posterior relevance moves by at most P
        on average (both default 0: all R).  ``init_score`` and
        ``init_model`` start every round's fit (the model is then a
        correction to them).  Unused without ``position``."""),
    Parameter("random_state", random_state_kind(), default=None, doc="""
        Seeds the validation split, the learners' sampling (bin edges of
        data larger than ``stumps``'s ``subsample``, the trees' row samples)
        and, for a non-smooth objective (``tie_break_scale > 0``, e.g.
        ``"prec@k-avg:20"``), the order of the tie-break offset the training
        scores start from; with ``position_bias="em"``, every round's fit
        (an integer gives each round its own seed drawn from it).  None is
        scikit-learn's: a draw from NumPy's global ``RandomState``."""),
    Parameter("n_jobs", N_JOBS, default=None, doc="""
        Threads for the kernels (None or -1: all cores).  Results do not
        depend on it."""),
    Parameter("verbose", int, default=0, minimum=0, rule=VERBOSE_RULE, doc="""
        0: silent; 1: a progress line about every tenth of the iterations;
        2 or more: every iteration (on stdout: the objective, α and the
        ``scoring`` score of each validation set)."""),
)


def evals_to_state(evals: dict) -> dict:
    """``evals_result_`` in a model file: the sets' names in order and one row of scores per set.

    The sets' order is kept as a list (a file's JSON objects are written with sorted keys); the first metric of
    every set is ``validation_metric`` (``scores``).  A fit given ``eval_metric`` adds ``metrics``, the other
    metrics' specs in order, and ``metric_scores``, their curves as a float64 array of shape
    (metrics, sets, iterations); a file without them (one metric per set) is the format of every earlier fit.
    """
    names = list(evals)
    rows = [np.asarray(next(iter(evals[name].values())), dtype=np.float64) for name in names]
    state = {"names": names, "scores": np.array(rows, dtype=np.float64).reshape(len(names), -1)}
    metrics = list(evals[names[0]])[1:] if names else []
    if metrics:
        state["metrics"] = metrics
        state["metric_scores"] = np.array([[evals[name][metric] for name in names] for metric in metrics],
                                          dtype=np.float64).reshape(len(metrics), len(names), -1)
    return state


def evals_start_to_state(start: dict) -> dict:
    """``evals_start_`` in a model file: the sets' names, the metrics' specs (``evals_result_``'s, in its order)
    and a float64 matrix of the start's scores, one row per set."""
    names = list(start)
    metrics = list(start[names[0]]) if names else []
    return {"names": names, "metrics": metrics,
            "scores": np.array([[start[n][m] for m in metrics] for n in names], dtype=np.float64)
                        .reshape(len(names), len(metrics))}


def _classes(classes: np.ndarray):
    return classes if classes.dtype.kind in "biuf" else [str(c) for c in classes]


#: The fitted state of a push model (``_learner``: the resolved learner, rebuilt on load).
PUSH_FITTED = (
    Fitted("objective_spec_", "objective"),
    Fitted("learner_spec_", "learner"),
    Fitted("task_", "task"),
    Fitted("n_features_in_", "n_features_in", int),
    Fitted("rankers_", "rankers", lambda rankers: [r.to_state() for r in rankers]),
    Fitted("alphas_", "alphas", float64_array),
    Fitted("objective_values_", "objective_values", float64_array),
    Fitted("stop_reason_", "stop_reason"),
    Fitted("classes_", "classes", _classes, optional=True),
    Fitted("feature_names_in_", "feature_names_in", string_list, optional=True),
    Fitted("validation_scores_", "validation_scores", float64_array, optional=True),
    Fitted("best_iteration_", "best_iteration", int, optional=True),
    Fitted("validation_metric_", "validation_metric", optional=True),
    Fitted("evals_result_", "evals_result", evals_to_state, optional=True),
    # every eval_set's scores before the fit's first iteration (best_score_ when no iteration bettered them)
    Fitted("evals_start_", "evals_start", evals_start_to_state, optional=True),
    Fitted("categories_", "categories", categories_to_state, optional=True),
    # a category column of more levels than the trees' bins, folded at fit: how many levels its rows held
    Fitted("category_levels_seen_", "category_levels_seen", lambda seen: [None if c is None else int(c) for c in seen],
           optional=True),
    # fitted on a DataFrame whose 'category' columns a learner not splitting by category groups read by their values
    Fitted("category_columns_read_as_values_", "category_columns_read_as_values", lambda cols: [int(j) for j in cols],
           optional=True),
    # fitted within queries (their presence is ``ranks_within_queries_``)
    Fitted("n_queries_", "n_queries", int, optional=True),
    Fitted("n_queries_without_pairs_", "n_queries_without_pairs", int, optional=True),
    # fitted with ``position`` (display positions of clicks): the learned effects, which the model does not use
    Fitted("position_ids_", "position_ids", lambda ids: np.asarray(ids, dtype=np.int64), optional=True),
    Fitted("position_effects_", "position_effects", float64_array, optional=True),
    # fitted with ``position_bias="em"``: θ per place (by ``position_ids_``) and the EM rounds run
    Fitted("position_propensities_", "position_propensities", float64_array, optional=True),
    Fitted("position_em_rounds_", "position_em_rounds", int, optional=True),
    # fitted with ``init_score``: the model is a correction to scores it does not hold (set only then)
    Fitted("from_init_score_", "from_init_score", bool, optional=True),
    # fitted with ``init_model``: how many of the first weak rankers are the init model's (set only then)
    Fitted("init_iterations_", "init_iterations", int, optional=True),
    Fitted("_learner"),
)

#: Where a fit on a cluster ran (Dask estimators only).
FIT_INFO = Fitted("fit_info_")

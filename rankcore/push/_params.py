"""The push estimators' parameters and fitted state, declared once (see :mod:`rankcore.base`).

Every push estimator (in memory and on Dask) builds its ``__init__``, its
docstring's "Parameters" section, its validation and its model file from
these declarations.
"""

from __future__ import annotations

import math

import numpy as np

from ..base import ANY, N_JOBS, Fitted, float64_array, random_state_kind, spec_kind, string_list
from ..spec import Parameter

__all__ = ["LOSS", "PRICE", "OBJECTIVE", "P", "BOOSTING", "PUSH_FITTED", "FIT_INFO", "STOP_REASONS",
           "is_callback_reason"]

#: The reasons a fit stops, as ``stop_reason_`` records them (the driver's, less "no_decrease", which
#: is reported as "converged"); a callback may also stop a fit with a string of its own
#: (see :func:`is_callback_reason`).
STOP_REASONS = ("n_iter", "converged", "early_stopping", "overflow", "no_split", "callback")


def is_callback_reason(value) -> bool:
    """A callback's stop reason as a model file may hold it: a short, printable, one-line string."""
    return isinstance(value, str) and 0 < len(value) <= 100 and value.isprintable()

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
    Parameter("n_iter", int, default=100, minimum=1, doc="""
        Boosting iterations (weak rankers added)."""),
    Parameter("thresholds", ANY, default=None, type_doc="list of array-like or None", doc="""
        Per-feature candidate thresholds for threshold learners (``stumps``:
        the bin edges, e.g. from :func:`rankcore.learners.bin_edges`;
        ``thresholds``: the thresholds themselves)."""),
    Parameter("tol", float, default=1e-12, minimum=0.0, maximum=math.inf, doc="""
        Stop when no weak ranker has |∂J/∂α| above ``tol`` (J is the log of
        the push objective, so this is a relative rate)."""),
    Parameter("early_stopping", bool, default=False, doc="""
        Choose the number of iterations (at most ``n_iter``) on validation
        data scored with ``scoring`` after every iteration.  With
        ``fit(..., eval_set=...)``: stop after ``n_iter_no_change``
        iterations without improvement and keep the best iteration's model.
        Without: hold out a stratified ``validation_fraction`` of the rows
        (drawn with ``random_state``) when that holds at least 50 rows and
        about 10 of each class, else use 5-fold cross-validation (the folds'
        validation curves averaged); then refit on all the rows with the
        best number of iterations (``rankcore.push._validation``)."""),
    Parameter("scoring", spec_kind("metric"), default=None, nullable=True, type_doc="str or None", doc="""
        A registered metric (``"rmax"``, ``"prec@k:20"``, ``"pauc:0.1"``, ...)
        for early stopping, ``eval_set`` and :meth:`score`.  Default:
        ``"auc"`` for bipartite objectives, ``"misrank"`` for graded ones."""),
    Parameter("validation_fraction", float, default=0.1, minimum=0.0, maximum=1.0, exclusive_minimum=True,
              exclusive_maximum=True, doc="""
        The share of rows held out by ``early_stopping`` (see there)."""),
    Parameter("n_iter_no_change", int, default=None, minimum=1, nullable=True, doc="""
        The patience of early stopping, in iterations; None: max(10, n_iter / 5)."""),
    Parameter("random_state", random_state_kind(), default=None, doc="""
        Seeds the validation split, the learners' sampling (bin edges of
        data larger than ``stumps``'s ``subsample``, the trees' row samples)
        and, for a non-smooth objective (``tie_break_scale > 0``, e.g.
        ``"prec@k-avg:20"``), the order of the tie-break offset the training
        scores start from."""),
    Parameter("n_jobs", N_JOBS, default=None, doc="""
        Threads for the kernels (None or -1: all cores).  Results do not
        depend on it."""),
    Parameter("verbose", int, default=0, minimum=0, doc="""
        0: silent; 1: a progress line about every tenth of the iterations;
        2: every iteration."""),
)


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
    Fitted("_learner"),
)

#: Where a fit on a cluster ran (Dask estimators only).
FIT_INFO = Fitted("fit_info_")

"""ExactBoost's parameters and fitted state, declared once (see :mod:`rankcore.base`)."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..base import N_JOBS, Fitted, float64_array, int64_array, random_state_kind, spec_kind, string_list
from ..spec import Component, Kind, Parameter
from ._runs import MARGIN_MODES

__all__ = ["EXACTBOOST_PARAMETERS", "EXACTBOOST_FITTED", "MAX_DEPTH", "MAX_HEAD"]

MAX_DEPTH = 20
#: The kernels' C integers: a count above them would overflow there (a raw OverflowError) instead of being refused.
C_INT_MAX = 2**31 - 1
C_INT64_MAX = 2**63 - 1

#: The largest ``head`` (a multiple of the metric's k): the head then holds every row of any real data set.
MAX_HEAD = 1e6


def _check_head(value):
    if value is None or (isinstance(value, str) and value == "auto"):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise TypeError("not a number")
    if not 1 <= value <= MAX_HEAD:
        raise ValueError("out of range")
    return value


def _check_tie_break(value):
    if value is None or isinstance(value, (str, Component)):
        return value
    raise TypeError(f"got {type(value).__name__}")


_HEAD = Kind(f"'auto', None or a number in [1, {MAX_HEAD:g}] (a multiple of k)", _check_head,
             type_doc='"auto", None or float')
_TIE_BREAK = Kind("'auto', None, a metric spec string or a metric", _check_tie_break,
                  type_doc="str, Metric or None", shows_type=True)

EXACTBOOST_PARAMETERS = (
    Parameter("metric", spec_kind("metric"), default="auc", type_doc="str or Metric", doc="""
        Spec string of any registered *monotone* metric: ``"auc"``, ``"ks"``,
        ``"prec@k:10"`` / ``"prec@k:0.2"``, ``"pauc:0.1"``, ``"rmax"``,
        ``"pnorm:8"``, a third-party metric...  Non-monotone metrics (such as
        ``"misrank"``) are refused at ``fit``.  A count k refers to the
        training set; on a subsample the same fraction is used."""),
    Parameter("margin", float, default=0.05, minimum=0.0, doc="""
        θ >= 0: during the search every positive is lowered by the margin
        (see ``margin_mode``), which asks for confident orderings."""),
    Parameter("n_rounds", int, default=50, minimum=1, maximum=C_INT_MAX, doc="""
        Boosting rounds per run (the iterations of ``callbacks`` and ``training_curve_``)."""),
    Parameter("n_runs", int, default=250, minimum=1, maximum=C_INT_MAX, doc="""
        Independent runs averaged."""),
    Parameter("subsample", float, default=0.2, minimum=0.0, maximum=1.0, exclusive_minimum=True,
              rule="a fraction in (0, 1]", doc="""
        Fraction of each class drawn (without replacement) per round for the
        stump search; 1.0 searches on the full training set."""),
    Parameter("feature_subsample", float, default=0.2, minimum=0.0, maximum=1.0, exclusive_minimum=True,
              rule="a fraction in (0, 1]", doc="""
        Fraction of the features searched per round (at least one)."""),
    Parameter("random_state", random_state_kind(generator=False), default=None, doc="""
        Seeds the runs; with an integer the model is identical whatever
        ``n_jobs``."""),
    Parameter("n_jobs", N_JOBS, default=None, doc="""
        Threads over runs (None or -1: all cores)."""),
    Parameter("depth", int, default=3, minimum=1, maximum=MAX_DEPTH, doc="""
        Resolution of a and b: the branch and bound bisects [-1, 1] down to
        the grid -1 + 2i/2**depth.  Thresholds are searched at full
        resolution (every gap between distinct subsample values, or every
        bin edge, see ``max_bins``).  3 (before: 4) fits about 1.5 times
        faster at equal test quality (``docs/exactboost.md``, *Speed*)."""),
    Parameter("max_boxes", int, default=128, minimum=1, maximum=C_INT64_MAX, nullable=True, doc="""
        Budget of bound evaluations per feature search, checked between
        dives; ``None`` searches until the bound proves the grid optimum.
        The first dive always completes."""),
    Parameter("max_thresholds", int, default=None, minimum=1, maximum=C_INT_MAX, nullable=True, doc="""
        With a number, features with more distinct values in a round's
        subsample than that are searched at about that many thresholds
        (between groups of distinct values of about equal counts, as
        histogram boosting does); this speeds up fits on large data.  None:
        every gap between distinct values is a candidate."""),
    Parameter("max_bins", int, default=None, minimum=2, maximum=65536, nullable=True, doc="""
        With a number (2..65536), features with more distinct training
        values than that are binned once per fit at quantiles (the
        ``stumps`` learners' rule, :func:`rankcore.learners.bin_edges`): their
        thresholds are searched among at most ``max_bins - 1`` bin edges, and
        every run and round reuses the codes.  Features with at most
        ``max_bins`` distinct values keep every threshold.  None: every gap
        between distinct values is a candidate."""),
    Parameter("margin_mode", str, default="constant", choices=MARGIN_MODES,
              type_doc='{"constant", "normalized", "stump"}', doc="""
        How θ is applied when a candidate with values (a, b) is scored:
        ``"constant"`` lowers positives by θ; ``"normalized"`` by
        θ·(1 + W + |b-a|/2), W the sum of |b-a|/2 over the stumps accepted
        so far -- the margin θ of the normalized (convex-combination) score
        the paper's bounds are about; ``"stump"`` by θ·(1 + |b-a|/2) (the
        authors' code).  See ``docs/exactboost.md``."""),
    Parameter("tie_break", _TIE_BREAK, default="auto", doc="""
        A second monotone metric that orders what the target leaves tied.
        The search minimizes loss(metric) + ``tie_break_weight`` ·
        loss(tie_break) on the subsample, and a stump is accepted when the
        target's training loss falls, or stays equal and the tie-break's
        does not rise -- so the target never gets worse on the training
        set.  ``"auto"``: ``"auc"`` for metrics decided by one cut of the
        list (``prec@k``, ``ks``, ``rmax``, ``max_height``), which are flat
        almost everywhere and would otherwise leave most of the list in a
        few tied blocks; no tie-break for the others.  None: off."""),
    Parameter("tie_break_weight", float, default=0.25, minimum=0.0, doc="""
        Weight (>= 0) of the tie-break's loss in the search."""),
    Parameter("head", _HEAD, default="auto", doc=f"""
        For a metric that scores only the k top rows (``prec@k``): rank the
        rest of the list with a second ensemble.  The *head* ensemble is
        fitted on the metric (with its tie-break); a *tail* ensemble of
        ``n_runs`` more runs is fitted on the tie-break metric (AUC by
        default) over the whole list.  Rows whose head score reaches the
        ⌈head · k⌉-th highest head score of the training set are ranked
        first, by the head score; all others below them, by the tail score.
        A prec@k ensemble alone ranks its top well and the rest poorly
        (ijcnn1: test AUC 0.85 against 0.95 for ``metric="auc"``); with the
        tail its AUC is the AUC model's and its precision at k the prec@k
        model's (``docs/exactboost.md``, *Flat metrics*).  ``"auto"``: 2 (twice
        k) for ``prec@k``, no tail for other metrics; a number in [1, {MAX_HEAD:g}]
        sets the multiple (prec@k only); None: one ensemble, as before.  The
        tail doubles the fit time."""),
)


def _spec(metric):
    return metric.spec


EXACTBOOST_FITTED = (
    Fitted("metric_", "metric", _spec),
    Fitted("classes_", "classes", lambda classes: classes.tolist()),   # JSON values (labels may be strings)
    Fitted("n_features_in_", "n_features_in", int),
    Fitted("stumps_", "stumps", float64_array),
    Fitted("run_lengths_", "run_lengths", int64_array),
    Fitted("train_loss_", "train_loss", float64_array),
    Fitted("n_evaluations_", "n_evaluations", int),
    Fitted("n_budget_exhausted_", "n_budget_exhausted", int),
    Fitted("head_threshold_", "head_threshold", float, optional=True),
    Fitted("tail_metric_", "tail_metric", _spec, optional=True),
    Fitted("tail_stumps_", "tail_stumps", float64_array, optional=True),
    Fitted("tail_run_lengths_", "tail_run_lengths", int64_array, optional=True),
    Fitted("tail_train_loss_", "tail_train_loss", float64_array, optional=True),
    Fitted("feature_names_in_", "feature_names_in", string_list, optional=True),
    Fitted("validation_scores_", "validation_scores", float64_array, optional=True),
    Fitted("train_feature_means_", "train_feature_means", float64_array, optional=True),
    Fitted("tie_break_", None),
    Fitted("head_", None),
    Fitted("_table", None),
)

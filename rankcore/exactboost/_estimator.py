"""The scikit-learn estimator :class:`ExactBoost`."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted, validate_data

from .._threadsafe import fits_on_a_copy, reads_a_snapshot
from ..validation import (check_finite_scores, check_fit_data, check_matrix, check_random_state_param,
                          effective_n_threads, reject_1d)
from ._metric import resolve_monotone_metric
from ._predict import build_step_table
from ._runs import MARGIN_MODES, RunResult, RunSettings, fit_runs, prepare_data, run_seeds

__all__ = ["ExactBoost"]

_MAX_DEPTH = 20

#: Metrics decided by one cut of the list (flat almost everywhere): with
#: ``tie_break="auto"`` their searches break ties with AUC.
CUT_METRICS = ("prec@k", "ks", "rmax", "max_height")


def resolve_tie_break(tie_break, metric):
    """The tie-break metric for ``metric``: a resolved monotone metric or None.

    ``"auto"``: AUC for the metrics decided by one cut of the list
    (:data:`CUT_METRICS`), None for the others; a spec string or metric is
    resolved (it must be monotone); None turns the tie-break off.  A
    tie-break equal to the target is dropped.
    """
    if tie_break is None:
        return None
    if isinstance(tie_break, str) and tie_break == "auto":
        if getattr(metric, "name", None) not in CUT_METRICS:
            return None
        tie_break = "auc"
    tie = resolve_monotone_metric(tie_break, name="tie_break")
    if getattr(tie, "spec", None) == getattr(metric, "spec", object()):
        return None
    return tie


class ExactBoost(BaseEstimator):
    """Boost decision stumps on a monotone ranking metric itself (Csillag et al., SPEC §5).

    Each of ``n_runs`` independent runs starts from the zero score and, for
    ``n_rounds`` rounds, draws a stratified subsample of the examples and of
    the features, finds for each drawn feature the stump
    h(x) = a·1[x_j <= ξ] + b·1[x_j > ξ] (a, b in [-1, 1]) that minimizes the
    margin-adjusted loss of the metric on the subsample by interval branch and
    bound, and adds the best one if the plain loss on the whole training set
    does not get worse.  The score is the average of the runs' scores.

    Parameters
    ----------
    metric : str or Metric, default="auc"
        Spec string of any registered *monotone* metric: ``"auc"``, ``"ks"``,
        ``"prec@k:10"`` / ``"prec@k:0.2"``, ``"pauc:0.1"``, ``"rmax"``,
        ``"pnorm:8"``, a third-party metric...  Non-monotone metrics (such as
        ``"misrank"``) are refused at ``fit``.  A count k refers to the
        training set; on a subsample the same fraction is used.
    margin : float, default=0.05
        θ >= 0: during the search every positive is lowered by the margin
        (see ``margin_mode``), which asks for confident orderings.
    n_rounds : int, default=50
        Boosting rounds per run.
    n_runs : int, default=250
        Independent runs averaged.
    subsample : float, default=0.2
        Fraction of each class drawn (without replacement) per round for the
        stump search; 1.0 searches on the full training set.
    feature_subsample : float, default=0.2
        Fraction of the features searched per round (at least one).
    random_state : int, RandomState or None, default=None
        Seeds the runs; with an integer the model is identical whatever
        ``n_jobs``.
    n_jobs : int or None, default=None
        Threads over runs (None or -1: all cores).
    depth : int, default=3
        Resolution of a and b: the branch and bound bisects [-1, 1] down to
        the grid -1 + 2i/2**depth.  Thresholds are searched at full
        resolution (every gap between distinct subsample values, or every
        bin edge, see ``max_bins``).  3 (before: 4) fits about 1.5 times
        faster at equal test quality (``docs/exactboost.md``, *Speed*).
    max_boxes : int or None, default=128
        Budget of bound evaluations per feature search, checked between
        dives; ``None`` searches until the bound proves the grid optimum.
        The first dive always completes.
    max_thresholds : int or None, default=None
        With a number, features with more distinct values in a round's
        subsample than that are searched at about that many thresholds
        (between groups of distinct values of about equal counts, as
        histogram boosting does); this speeds up fits on large data.  None:
        every gap between distinct values is a candidate.
    max_bins : int or None, default=None
        With a number (2..65536), features with more distinct training
        values than that are binned once per fit at quantiles (the
        ``stumps`` learners' rule, :func:`rankcore.learners.bin_edges`): their
        thresholds are searched among at most ``max_bins - 1`` bin edges, and
        every run and round reuses the codes.  Features with at most
        ``max_bins`` distinct values keep every threshold.  None: every gap
        between distinct values is a candidate.
    margin_mode : {"constant", "normalized", "stump"}, default="constant"
        How θ is applied when a candidate with values (a, b) is scored:
        ``"constant"`` lowers positives by θ (SPEC §5); ``"normalized"`` by
        θ·(1 + W + |b-a|/2), W the sum of |b-a|/2 over the stumps accepted
        so far -- the margin θ of the normalized (convex-combination) score
        the paper's bounds are about; ``"stump"`` by θ·(1 + |b-a|/2) (the
        authors' code).  See ``docs/exactboost.md``.
    tie_break : str, Metric or None, default="auto"
        A second monotone metric that orders what the target leaves tied.
        The search minimizes loss(metric) + ``tie_break_weight`` ·
        loss(tie_break) on the subsample, and a stump is accepted when the
        target's training loss falls, or stays equal and the tie-break's
        does not rise -- so the target never gets worse on the training
        set.  ``"auto"``: ``"auc"`` for metrics decided by one cut of the
        list (``prec@k``, ``ks``, ``rmax``, ``max_height``), which are flat
        almost everywhere and would otherwise leave most of the list in a
        few tied blocks; no tie-break for the others.  None: off.
    tie_break_weight : float, default=0.25
        Weight (>= 0) of the tie-break's loss in the search.

    Attributes
    ----------
    metric_ : Metric
        The resolved metric.
    tie_break_ : Metric or None
        The resolved tie-break metric (None: none was used).
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the relevant class ranked on top.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.
    stumps_ : ndarray of shape (n_stumps, 4)
        Every accepted stump as (feature, threshold ξ, a, b), runs one after
        the other; h(x) = a if x[feature] <= ξ else b.
    run_lengths_ : ndarray of int64, shape (n_runs,)
        Number of stumps each run accepted (rows of ``stumps_`` in order).
    train_loss_ : ndarray of shape (n_runs, n_rounds + 1)
        Each run's training loss (the metric's loss form, no margin) after
        0, 1, ..., n_rounds rounds; never increases.
    n_evaluations_ : int
        Bound and corner evaluations of the branch and bound, all runs.
    n_budget_exhausted_ : int
        Feature searches stopped by ``max_boxes`` before proving optimality.

    Notes
    -----
    The kernel evaluates built-in metrics without the GIL and runs in
    parallel over runs; a third-party metric without a Cython kernel is
    evaluated by its Python code under the GIL (correct, slower).
    ``decision_function`` is a pure function of each row.  See
    ``docs/exactboost.md``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import rankcore
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = rankcore.ExactBoost(metric="auc", n_runs=10, random_state=0).fit(X, 1 - y)
    >>> model.decision_function(X[:3]).shape
    (3,)
    """

    def __init__(
        self,
        *,
        metric: Any = "auc",
        margin: float = 0.05,
        n_rounds: int = 50,
        n_runs: int = 250,
        subsample: float = 0.2,
        feature_subsample: float = 0.2,
        random_state: Any = None,
        n_jobs: int | None = None,
        depth: int = 3,
        max_boxes: int | None = 128,
        max_thresholds: int | None = None,
        max_bins: int | None = None,
        margin_mode: str = "constant",
        tie_break: Any = "auto",
        tie_break_weight: float = 0.25,
    ):
        self.metric = metric
        self.margin = margin
        self.n_rounds = n_rounds
        self.n_runs = n_runs
        self.subsample = subsample
        self.feature_subsample = feature_subsample
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.depth = depth
        self.max_boxes = max_boxes
        self.max_thresholds = max_thresholds
        self.max_bins = max_bins
        self.margin_mode = margin_mode
        self.tie_break = tie_break
        self.tie_break_weight = tie_break_weight

    # ------------------------------------------------------------------
    # parameters
    # ------------------------------------------------------------------
    def _validate_params(self) -> None:
        def integer(name, low, high=None):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low or (
                high is not None and value > high
            ):
                rule = f"an integer >= {low}" + (f" and <= {high}" if high is not None else "")
                raise ValueError(f"{name}: expected {rule}, got {value!r}")

        def fraction(name):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (0.0 < float(value) <= 1.0):
                raise ValueError(f"{name}: expected a fraction in (0, 1], got {value!r}")

        integer("n_rounds", 1)
        integer("n_runs", 1)
        integer("depth", 1, _MAX_DEPTH)
        fraction("subsample")
        fraction("feature_subsample")
        margin = self.margin
        if isinstance(margin, bool) or not isinstance(margin, numbers.Real) or not math.isfinite(margin) or margin < 0:
            raise ValueError(f"margin: expected a finite number >= 0, got {margin!r}")
        if self.max_boxes is not None:
            integer("max_boxes", 1)
        if self.max_thresholds is not None:
            integer("max_thresholds", 1)
        if self.max_bins is not None:
            integer("max_bins", 2, 65536)
        weight = self.tie_break_weight
        if (isinstance(weight, bool) or not isinstance(weight, numbers.Real) or not math.isfinite(weight)
                or weight < 0):
            raise ValueError(f"tie_break_weight: expected a finite number >= 0, got {weight!r}")
        if not (self.tie_break is None or isinstance(self.tie_break, str) or hasattr(self.tie_break, "spec")):
            raise TypeError(f"tie_break: expected 'auto', None, a metric spec string or a metric, "
                            f"got {type(self.tie_break).__name__}")
        if self.margin_mode not in MARGIN_MODES:
            raise ValueError(f"margin_mode: expected one of {', '.join(map(repr, MARGIN_MODES))}, got {self.margin_mode!r}")
        effective_n_threads(self.n_jobs)
        check_random_state_param(self.random_state, generator=False)

    def _settings(self) -> RunSettings:
        return RunSettings(
            metric=self.metric_,
            n_rounds=int(self.n_rounds),
            subsample=float(self.subsample),
            feature_subsample=float(self.feature_subsample),
            margin=float(self.margin),
            margin_mode=self.margin_mode,
            depth=int(self.depth),
            max_boxes=None if self.max_boxes is None else int(self.max_boxes),
            max_thresholds=None if self.max_thresholds is None else int(self.max_thresholds),
            tie_break=self.tie_break_,
            tie_break_weight=float(self.tie_break_weight),
        )

    # ------------------------------------------------------------------
    # fit / predict
    # ------------------------------------------------------------------
    @fits_on_a_copy
    def fit(self, X, y):
        """Fit ``n_runs`` boosting runs on ``X`` (n, d) and two-class labels ``y``.

        Raises
        ------
        ValueError, TypeError
            Bad parameters, a non-monotone metric, non-finite or malformed
            ``X``, labels that are not exactly two classes, or metric
            parameters that do not fit the data (k > n).
        """
        self._validate_params()
        metric = resolve_monotone_metric(self.metric)
        n_threads = effective_n_threads(self.n_jobs)
        if y is None:
            raise ValueError("ExactBoost requires y to be passed, but the target y is None")
        validate_data(self, X, reset=True, skip_check_array=True)
        X_arr, y01, classes = check_fit_data(X, y)
        if y01.shape[0] < 2:
            raise ValueError(f"X: expected at least 2 rows (one per class), got {y01.shape[0]}")
        # The metric's own checks on the training labels (k <= n, both classes...).
        metric(y01, np.zeros(y01.shape[0]))
        self.metric_ = metric
        self.tie_break_ = resolve_tie_break(self.tie_break, metric)
        settings = self._settings()
        data = prepare_data(X_arr, y01, None if self.max_bins is None else int(self.max_bins))
        seeds = run_seeds(self.random_state, int(self.n_runs))
        result = self._fit_runs(data, seeds, settings, n_threads)
        self.classes_ = classes
        self._set_runs(result)
        return self

    def _fit_runs(self, data, seeds, settings, n_threads) -> RunResult:
        """Run every run (threads in the kernel).

        The seam for distributed drivers: the runs are independent calls of
        :func:`rankcore.exactboost.fit_run` (data, seed, settings), and
        ``RunResult.concatenate`` of their results, in seed order, is what
        this returns.
        """
        return fit_runs(data, seeds, settings, n_threads=n_threads)

    def _set_runs(self, result: RunResult) -> None:
        """Fitted attributes from the runs' stumps (rows of ``result`` = runs, in seed order)."""
        self._store_runs(result.feature, result.threshold, result.a, result.b)
        self.train_loss_ = result.loss
        self.n_evaluations_ = int(result.evals.sum())
        self.n_budget_exhausted_ = int(result.exhausted.sum())

    def _store_runs(self, feature, threshold, a, b) -> None:
        kept = feature >= 0
        self.run_lengths_ = kept.sum(axis=1).astype(np.int64)
        self.stumps_ = np.column_stack(
            [feature[kept].astype(np.float64), threshold[kept], a[kept], b[kept]]
        ).reshape(-1, 4)
        self._build_table()

    def _build_table(self) -> None:
        stumps = self.stumps_
        self._table = build_step_table(
            stumps[:, 0].astype(np.int64), stumps[:, 1], stumps[:, 2], stumps[:, 3], self.run_lengths_.shape[0]
        )

    def run_stumps(self, run: int) -> np.ndarray:
        """The stumps of one run, as rows (feature, ξ, a, b) in the order accepted."""
        check_is_fitted(self)
        n = self.run_lengths_.shape[0]
        if isinstance(run, bool) or not isinstance(run, numbers.Integral) or not 0 <= run < n:
            raise ValueError(f"run: expected an integer in [0, {n - 1}], got {run!r}")
        start = int(self.run_lengths_[:run].sum())
        return self.stumps_[start:start + int(self.run_lengths_[run])]

    @reads_a_snapshot
    def decision_function(self, X) -> np.ndarray:
        """Run-averaged scores (higher = ranked closer to the top).

        A pure function of each row: identical across calls, batch sizes and
        row orders, finite for a single row.
        """
        check_is_fitted(self)
        reject_1d(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        X_arr = check_matrix(X, name="X")
        if X_arr.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X: expected {self.n_features_in_} features (as in fit), got {X_arr.shape[1]}"
            )
        return check_finite_scores(self._table.decision(X_arr), owner=f"{type(self).__name__}.decision_function",
                                   X=X_arr)

    @reads_a_snapshot
    def score(self, X, y) -> float:
        """The metric on ``(X, y)``, oriented so that higher is better.

        The metric's value when greater is better, minus the value otherwise.
        """
        check_is_fitted(self)
        from ..validation import check_bipartite_target

        y_arr = np.asarray(y)
        scores = self.decision_function(X)
        if y_arr.shape[0] != scores.shape[0]:
            raise ValueError(f"y: expected {scores.shape[0]} labels (one per row of X), got {y_arr.shape[0]}")
        y01 = np.isin(y_arr, self.classes_[1:]).astype(np.int8)
        if not np.isin(y_arr, self.classes_).all():
            check_bipartite_target(y_arr)  # raises with a clear message for other labels
            raise ValueError(f"y: expected the labels seen in fit {list(self.classes_)!r}")
        value = float(self.metric_(y01, scores))
        return value if self.metric_.greater_is_better else -value

    # ------------------------------------------------------------------
    # persistence (rankcore.persistence, no pickle)
    # ------------------------------------------------------------------
    def _get_fitted_state(self) -> dict:
        state = {
            "metric": self.metric_.spec,
            "classes": self.classes_.tolist(),  # JSON values (labels may be strings)
            "n_features_in": int(self.n_features_in_),
            "stumps": np.ascontiguousarray(self.stumps_, dtype=np.float64),
            "run_lengths": np.ascontiguousarray(self.run_lengths_, dtype=np.int64),
            "train_loss": np.ascontiguousarray(self.train_loss_, dtype=np.float64),
            "n_evaluations": int(self.n_evaluations_),
            "n_budget_exhausted": int(self.n_budget_exhausted_),
        }
        if hasattr(self, "feature_names_in_"):
            state["feature_names_in"] = [str(name) for name in self.feature_names_in_]
        return state

    def _set_fitted_state(self, state: dict) -> None:
        from ..persistence import ModelFormatError

        def fail(message):
            raise ModelFormatError(f"ExactBoost state: {message}")

        try:
            self._validate_params()
        except ValueError as exc:
            fail(f"invalid parameters: {exc}")

        expected = {"metric", "classes", "n_features_in", "stumps", "run_lengths", "train_loss",
                    "n_evaluations", "n_budget_exhausted"}
        keys = set(state)
        if not expected <= keys or not keys <= expected | {"feature_names_in"}:
            fail(f"unexpected or missing fields {sorted(keys ^ expected - {'feature_names_in'})}")
        try:
            metric = resolve_monotone_metric(state["metric"])
        except (TypeError, ValueError) as exc:
            fail(f"metric: {exc}")
        if metric.spec != getattr(resolve_monotone_metric(self.metric), "spec", None):
            fail(f"metric {metric.spec!r} does not match the parameter metric={self.metric!r}")
        d = state["n_features_in"]
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            fail(f"n_features_in must be a positive integer, got {d!r}")
        classes = state["classes"]
        if not isinstance(classes, (np.ndarray, list)) or len(classes) != 2:
            fail("classes must hold exactly two labels")
        classes = np.asarray(classes)
        if classes.dtype.kind == "f" and not np.isfinite(classes).all():
            fail("classes must be finite")
        if not classes[0] < classes[1]:
            fail("classes must be two sorted, distinct labels")
        stumps = state["stumps"]
        if not isinstance(stumps, np.ndarray) or stumps.dtype != np.float64 or stumps.ndim != 2 or stumps.shape[1] != 4:
            fail("stumps must be a float64 array of shape (n_stumps, 4)")
        if not np.isfinite(stumps).all():
            fail("stumps must be finite")
        features = stumps[:, 0]
        if not (np.all(features == np.round(features)) and np.all(features >= 0) and np.all(features < d)):
            fail(f"stump features must be integers in [0, {d - 1}]")
        if not (np.all(np.abs(stumps[:, 2:]) <= 1.0)):
            fail("stump values a and b must lie in [-1, 1]")
        lengths = state["run_lengths"]
        if not isinstance(lengths, np.ndarray) or lengths.dtype != np.int64 or lengths.ndim != 1 or lengths.size < 1:
            fail("run_lengths must be a non-empty int64 vector")
        if (lengths < 0).any() or int(lengths.sum()) != stumps.shape[0]:
            fail("run_lengths must be non-negative and sum to the number of stumps")
        if lengths.size != self.n_runs:
            fail(f"{lengths.size} runs stored, but n_runs={self.n_runs}")
        if (lengths > self.n_rounds).any():
            fail(f"a run holds more stumps than n_rounds={self.n_rounds}")
        loss = state["train_loss"]
        if (not isinstance(loss, np.ndarray) or loss.dtype != np.float64
                or loss.shape != (lengths.size, self.n_rounds + 1) or not np.isfinite(loss).all()):
            fail(f"train_loss must be a finite float64 array of shape ({lengths.size}, {self.n_rounds + 1})")
        for key in ("n_evaluations", "n_budget_exhausted"):
            value = state[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                fail(f"{key} must be a non-negative integer, got {value!r}")
        names = state.get("feature_names_in")
        if names is not None:
            if not (isinstance(names, list) and len(names) == d and all(isinstance(s, str) for s in names)):
                fail(f"feature_names_in must be a list of {d} strings")
        self.metric_ = metric
        self.tie_break_ = resolve_tie_break(self.tie_break, metric)
        self.classes_ = classes
        self.n_features_in_ = d
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.stumps_ = stumps
        self.run_lengths_ = lengths
        self.train_loss_ = loss
        self.n_evaluations_ = state["n_evaluations"]
        self.n_budget_exhausted_ = state["n_budget_exhausted"]
        self._build_table()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = False
        # Not a classifier (no predict), but a two-class target: ClassifierTags
        # with multi_class=False makes scikit-learn's checks send two classes.
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

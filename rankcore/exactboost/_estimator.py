"""The scikit-learn estimator :class:`ExactBoost`."""

from __future__ import annotations

import math
import numbers
from dataclasses import replace
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted, validate_data

from .._threadsafe import fits_on_a_copy, reads_a_snapshot
from ..validation import (check_finite_scores, check_fit_data, check_matrix, check_random_state_param,
                          effective_n_threads, reject_1d)
from ._metric import resolve_monotone_metric
from ._predict import GatedTable, build_step_table
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


#: Metrics that score only the k top rows: with ``head="auto"`` ExactBoost
#: ranks the rest of the list with a second, whole-list ensemble.
HEAD_METRICS = ("prec@k",)

#: ``head="auto"``: the head is twice the target's k (of the training set).
DEFAULT_HEAD = 2.0


def check_head_param(head) -> None:
    """Type and range of the ``head`` parameter ('auto', None or a number >= 1)."""
    if head is None or (isinstance(head, str) and head == "auto"):
        return
    if isinstance(head, bool) or not isinstance(head, numbers.Real) or not math.isfinite(head) or head < 1:
        raise ValueError(f"head: expected 'auto', None or a finite number >= 1 (a multiple of k), got {head!r}")


def resolve_head(head, metric) -> float | None:
    """The head size, as a multiple of the metric's k, or None for a single ensemble.

    ``"auto"``: :data:`DEFAULT_HEAD` for the metrics of :data:`HEAD_METRICS`,
    None for the others.  A number needs such a metric.
    """
    check_head_param(head)
    if head is None:
        return None
    name = getattr(metric, "name", None)
    if isinstance(head, str):
        return DEFAULT_HEAD if name in HEAD_METRICS else None
    if name not in HEAD_METRICS:
        raise ValueError(f"head: only metrics that score the k top rows ({', '.join(HEAD_METRICS)}) have a head, "
                         f"not {getattr(metric, 'spec', metric)!r}; use head=None or 'auto'")
    return float(head)


def resolve_tail_metric(head, tie_break):
    """The whole-list metric of the tail ensemble: the tie-break, else AUC (None without a head)."""
    if head is None:
        return None
    return tie_break if tie_break is not None else resolve_monotone_metric("auc")


def head_threshold(head_scores: np.ndarray, metric, head: float) -> float:
    """The head's entry score: the ceil(head · k)-th highest of the training head scores.

    k is the metric's k on the training set (a count, or a fraction of its
    rows); ties at that score all enter the head.
    """
    from ..validation import check_k

    n = head_scores.shape[0]
    k = check_k(metric.params["k"], n, name="metric k")
    size = min(n, int(math.ceil(head * k - 1e-9)))
    return float(np.partition(head_scores, n - size)[n - size])


def _stump_rows(result: RunResult) -> tuple[np.ndarray, np.ndarray]:
    """The accepted stumps of ``result`` as rows (feature, ξ, a, b), and the number per run."""
    kept = result.feature >= 0
    lengths = kept.sum(axis=1).astype(np.int64)
    stumps = np.column_stack(
        [result.feature[kept].astype(np.float64), result.threshold[kept], result.a[kept], result.b[kept]]
    ).reshape(-1, 4)
    return stumps, lengths


def _step_table(stumps: np.ndarray, lengths: np.ndarray):
    return build_step_table(stumps[:, 0].astype(np.int64), stumps[:, 1], stumps[:, 2], stumps[:, 3], lengths.shape[0])


class ExactBoost(BaseEstimator):
    """Boost decision stumps on a monotone ranking metric itself (Csillag et al. 2022; docs/theory/exactboost.md).

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
        ``"constant"`` lowers positives by θ (docs/theory/exactboost.md#the-margin); ``"normalized"`` by
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
    head : "auto", None or float, default="auto"
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
        k) for ``prec@k``, no tail for other metrics; a number >= 1 sets the
        multiple (prec@k only); None: one ensemble, as before.  The tail
        doubles the fit time.

    Attributes
    ----------
    metric_ : Metric
        The resolved metric.
    tie_break_ : Metric or None
        The resolved tie-break metric (None: none was used).
    head_ : float or None
        The resolved ``head`` (None: one ensemble).
    head_threshold_ : float or None
        The head score at which a row enters the head.
    tail_metric_ : Metric or None
        The tail ensemble's metric.
    tail_stumps_, tail_run_lengths_, tail_train_loss_ : ndarray or None
        The tail ensemble, as ``stumps_``, ``run_lengths_`` and ``train_loss_``
        are the head's (None without a tail).
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
        head: Any = "auto",
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
        self.head = head

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
        check_head_param(self.head)
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
        self.head_ = resolve_head(self.head, metric)
        self.tail_metric_ = resolve_tail_metric(self.head_, self.tie_break_)
        settings = self._settings()
        data = prepare_data(X_arr, y01, None if self.max_bins is None else int(self.max_bins))
        n_runs = int(self.n_runs)
        # the tail's seeds follow the head's: the head runs are those of head=None
        seeds = run_seeds(self.random_state, n_runs if self.head_ is None else 2 * n_runs)
        result = self._fit_runs(data, seeds[:n_runs], settings, n_threads)
        tail = None
        if self.head_ is not None:
            tail_settings = replace(settings, metric=self.tail_metric_, tie_break=None)
            tail = self._fit_runs(data, seeds[n_runs:], tail_settings, n_threads)
        self.classes_ = classes
        self._set_runs(result, tail, X_arr)
        return self

    def _fit_runs(self, data, seeds, settings, n_threads) -> RunResult:
        """Run every run (threads in the kernel).

        The seam for distributed drivers: the runs are independent calls of
        :func:`rankcore.exactboost.fit_run` (data, seed, settings), and
        ``RunResult.concatenate`` of their results, in seed order, is what
        this returns.
        """
        return fit_runs(data, seeds, settings, n_threads=n_threads)

    def _set_runs(self, result: RunResult, tail: RunResult | None = None, X: np.ndarray | None = None) -> None:
        """Fitted attributes from the runs' stumps (rows of a result = runs, in seed order).

        With a ``tail`` (the whole-list runs), the head threshold is set from
        the head scores of the training rows ``X``.
        """
        self.stumps_, self.run_lengths_ = _stump_rows(result)
        self.train_loss_ = result.loss
        self.n_evaluations_ = int(result.evals.sum())
        self.n_budget_exhausted_ = int(result.exhausted.sum())
        self.tail_stumps_ = self.tail_run_lengths_ = self.tail_train_loss_ = self.head_threshold_ = None
        table = _step_table(self.stumps_, self.run_lengths_)
        if tail is not None:
            self.tail_stumps_, self.tail_run_lengths_ = _stump_rows(tail)
            self.tail_train_loss_ = tail.loss
            self.n_evaluations_ += int(tail.evals.sum())
            self.n_budget_exhausted_ += int(tail.exhausted.sum())
            self.head_threshold_ = head_threshold(table.decision(X), self.metric_, self.head_)
        self._build_table(table)

    def _build_table(self, table=None) -> None:
        """The scoring table: the head's step functions (``table`` if already built), gated with the tail's."""
        if table is None:
            table = _step_table(self.stumps_, self.run_lengths_)
        if self.tail_stumps_ is not None:
            table = GatedTable(table, _step_table(self.tail_stumps_, self.tail_run_lengths_),
                               float(self.head_threshold_))
        self._table = table

    def run_stumps(self, run: int) -> np.ndarray:
        """The stumps of one (head) run, as rows (feature, ξ, a, b) in the order accepted."""
        check_is_fitted(self)
        n = self.run_lengths_.shape[0]
        if isinstance(run, bool) or not isinstance(run, numbers.Integral) or not 0 <= run < n:
            raise ValueError(f"run: expected an integer in [0, {n - 1}], got {run!r}")
        start = int(self.run_lengths_[:run].sum())
        return self.stumps_[start:start + int(self.run_lengths_[run])]

    @reads_a_snapshot
    def decision_function(self, X) -> np.ndarray:
        """Run-averaged scores (higher = ranked closer to the top).

        With a tail (``head_`` not None), rows in the head score above every
        other row, by their head score; the others get their tail score.

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
        if getattr(self, "tail_stumps_", None) is not None:
            state["head_threshold"] = float(self.head_threshold_)
            state["tail_metric"] = self.tail_metric_.spec
            state["tail_stumps"] = np.ascontiguousarray(self.tail_stumps_, dtype=np.float64)
            state["tail_run_lengths"] = np.ascontiguousarray(self.tail_run_lengths_, dtype=np.int64)
            state["tail_train_loss"] = np.ascontiguousarray(self.tail_train_loss_, dtype=np.float64)
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
        tail_keys = {"head_threshold", "tail_metric", "tail_stumps", "tail_run_lengths", "tail_train_loss"}
        try:
            metric = resolve_monotone_metric(state.get("metric"))
        except (TypeError, ValueError) as exc:
            fail(f"metric: {exc}")
        if metric.spec != getattr(resolve_monotone_metric(self.metric), "spec", None):
            fail(f"metric {metric.spec!r} does not match the parameter metric={self.metric!r}")
        try:
            head = resolve_head(self.head, metric)
        except ValueError as exc:
            fail(f"invalid parameters: {exc}")
        if head is not None and isinstance(self.head, str) and not tail_keys & set(state):
            # saved before ExactBoost had a head/tail (its parameters lack ``head``): one ensemble
            self.head = head = None
        if head is not None:
            expected |= tail_keys
        keys = set(state)
        if not expected <= keys or not keys <= expected | {"feature_names_in"}:
            fail(f"unexpected or missing fields {sorted(keys ^ expected - {'feature_names_in'})}")
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
        stumps, lengths, loss = self._check_ensemble(state, "", d, fail)
        tie_break = resolve_tie_break(self.tie_break, metric)
        tail_metric = resolve_tail_metric(head, tie_break)
        if head is not None:
            if state["tail_metric"] != tail_metric.spec:
                fail(f"tail_metric {state['tail_metric']!r} does not match the parameters' {tail_metric.spec!r}")
            tail = self._check_ensemble(state, "tail_", d, fail)
            threshold = state["head_threshold"]
            if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
                fail(f"head_threshold must be a finite number, got {threshold!r}")
        for key in ("n_evaluations", "n_budget_exhausted"):
            value = state[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                fail(f"{key} must be a non-negative integer, got {value!r}")
        names = state.get("feature_names_in")
        if names is not None:
            if not (isinstance(names, list) and len(names) == d and all(isinstance(s, str) for s in names)):
                fail(f"feature_names_in must be a list of {d} strings")
        self.metric_ = metric
        self.tie_break_ = tie_break
        self.head_ = head
        self.tail_metric_ = tail_metric
        self.tail_stumps_, self.tail_run_lengths_, self.tail_train_loss_ = tail if head is not None else (None,) * 3
        self.head_threshold_ = float(threshold) if head is not None else None
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

    def _check_ensemble(self, state: dict, prefix: str, d: int, fail):
        """Validate one stored ensemble (``stumps``, ``run_lengths``, ``train_loss`` with ``prefix``)."""
        stumps = state[prefix + "stumps"]
        if not isinstance(stumps, np.ndarray) or stumps.dtype != np.float64 or stumps.ndim != 2 or stumps.shape[1] != 4:
            fail(f"{prefix}stumps must be a float64 array of shape (n_stumps, 4)")
        if not np.isfinite(stumps).all():
            fail(f"{prefix}stumps must be finite")
        features = stumps[:, 0]
        if not (np.all(features == np.round(features)) and np.all(features >= 0) and np.all(features < d)):
            fail(f"{prefix}stump features must be integers in [0, {d - 1}]")
        if not (np.all(np.abs(stumps[:, 2:]) <= 1.0)):
            fail(f"{prefix}stump values a and b must lie in [-1, 1]")
        lengths = state[prefix + "run_lengths"]
        if not isinstance(lengths, np.ndarray) or lengths.dtype != np.int64 or lengths.ndim != 1 or lengths.size < 1:
            fail(f"{prefix}run_lengths must be a non-empty int64 vector")
        if (lengths < 0).any() or int(lengths.sum()) != stumps.shape[0]:
            fail(f"{prefix}run_lengths must be non-negative and sum to the number of {prefix}stumps")
        if lengths.size != self.n_runs:
            fail(f"{lengths.size} {prefix}runs stored, but n_runs={self.n_runs}")
        if (lengths > self.n_rounds).any():
            fail(f"a {prefix}run holds more stumps than n_rounds={self.n_rounds}")
        loss = state[prefix + "train_loss"]
        if (not isinstance(loss, np.ndarray) or loss.dtype != np.float64
                or loss.shape != (lengths.size, self.n_rounds + 1) or not np.isfinite(loss).all()):
            fail(f"{prefix}train_loss must be a finite float64 array of shape ({lengths.size}, {self.n_rounds + 1})")
        return stumps, lengths, loss

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = False
        # Not a classifier (no predict), but a two-class target: ClassifierTags
        # with multi_class=False makes scikit-learn's checks send two classes.
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

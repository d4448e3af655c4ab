"""The scikit-learn estimator :class:`ExactBoost`."""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from .._peer_names import names_peer_fit_arguments, names_peer_predict_arguments, score_takes_no_queries
from .._degenerate import warn_if_constant
from .._memory import check_allocation
from .._setup import EstimatorSetup
from .._state_fields import check_feature_names, refuse_labels_coded_otherwise
from .._threadsafe import fits_on_a_copy, reads_a_snapshot
from ..base import (IterationInfo, Ranker, TrainingCurve, check_callbacks, check_eval_set, refuse_queries,
                    ignore_score_weights, run_callbacks)
from .._frames import validate_columns
from ..validation import check_finite_scores, check_fit_data, check_matrix, effective_n_threads, reject_1d
from ._contributions import StumpContributions, means_outside_steps, training_means
from ._metric import resolve_monotone_metric
from ._params import EXACTBOOST_FITTED, EXACTBOOST_PARAMETERS, MAX_DEPTH
from ._predict import GatedTable, StepTable, build_step_table
from ._runs import RunResult, RunSettings, fit_runs, prepare_data, run_seeds

__all__ = ["ExactBoost"]

_MAX_DEPTH = MAX_DEPTH
_PARAMETER = {p.name: p for p in EXACTBOOST_PARAMETERS}

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


#: Bytes of one run's round in the result tables (RunResult: a feature, a threshold, a, b, a loss, an evaluation
#: count), rounded up.
_ROUND_BYTES = 48


def _check_run_tables(n_runs: int, n_rounds: int) -> None:
    """Refuse an ``n_rounds``/``n_runs`` whose result tables (n_runs x (n_rounds + 1)) exceed the memory available,
    naming the larger of the two, before any data is read: NumPy's MemoryError would name neither."""
    check_allocation("n_rounds" if n_rounds >= n_runs else "n_runs", n_runs * (n_rounds + 1) * _ROUND_BYTES,
                     f"the runs' result tables ({n_runs:,} run(s) x {n_rounds + 1:,} rounds)")


def check_head_param(head) -> None:
    """Type and range of the ``head`` parameter (the declared rule: 'auto', None or a number in [1, MAX_HEAD])."""
    _PARAMETER["head"].check(head)


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


def _check_head_threshold(threshold: float, head: "StepTable", fail) -> None:
    """A saved head threshold is a training row's head score: within the scores a row can reach.

    (Outside them, no row or every row enters the head, and a threshold of
    -1e308 would make every head score overflow to 1e308.)
    """
    low, high = head.min_score(), head.max_score()
    slack = 1e-12 * (1.0 + max(abs(low), abs(high)))      # the scores' sums are exact on the dyadic grid
    if not low - slack <= threshold <= high + slack:
        fail(f"head_threshold must be a head score a row can reach, in [{low:.17g}, {high:.17g}], got {threshold!r}")


def _truncated(result: RunResult, rounds: int) -> RunResult:
    """Every run of ``result`` cut after ``rounds`` rounds; the later rounds add nothing (losses held)."""
    keep = np.arange(result.feature.shape[1]) < rounds
    loss = result.loss.copy()
    loss[:, rounds + 1:] = loss[:, [rounds]]
    return replace(result, feature=np.where(keep, result.feature, -1), threshold=np.where(keep, result.threshold, 0.0),
                   a=np.where(keep, result.a, 0.0), b=np.where(keep, result.b, 0.0), loss=loss)


@dataclass(frozen=True)
class ExactBoostSetup(EstimatorSetup):
    """ExactBoost's configuration, checked and resolved once: what ``fit``, its runs and loading use.

    ``settings`` is the head runs' :class:`RunSettings` (metrics resolved);
    ``tail_metric`` is None without a tail.
    """

    metric: Any
    tie_break: Any
    head: float | None
    tail_metric: Any
    settings: RunSettings
    n_threads: int

    def tail_settings(self) -> RunSettings:
        return replace(self.settings, metric=self.tail_metric, tie_break=None)


class ExactBoost(StumpContributions, Ranker):
    __doc__ = """Boost decision stumps on a monotone ranking metric itself (Csillag et al. 2022;
    docs/theory/exactboost.md).

    Each of ``n_runs`` independent runs starts from the zero score and, for
    ``n_rounds`` rounds, draws a stratified subsample of the examples and of
    the features, finds for each drawn feature the stump
    h(x) = a·1[x_j <= ξ] + b·1[x_j > ξ] (a, b in [-1, 1]) that minimizes the
    margin-adjusted loss of the metric on the subsample by interval branch and
    bound, and adds the best one if the plain loss on the whole training set
    does not get worse.  The score is the average of the runs' scores.

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
    validation_scores_ : ndarray of shape (n_rounds,)
        With ``fit(..., eval_set=...)``: the metric of the model (all runs,
        truncated after round r) on the validation data, r = 1..n_rounds:
        one value per round, as the push models' ``validation_scores_`` and
        LightGBM's ``evals_result_`` (the start, no stump yet, is not in it;
        ``train_loss_`` has it).  After a callback stopped the fit, the
        rounds past it repeat the last value (they add nothing).
    training_curve_ : TrainingCurve
        The mean over runs of ``train_loss_`` per round, and
        ``validation_scores_`` (:class:`rankcore.base.TrainingCurve`; NaN at
        round 0).
    train_feature_means_ : ndarray of shape (n_features,) or None
        Each feature's run-averaged stump outputs averaged over the training
        rows: what ``feature_contributions`` subtracts without a background
        (None with a head ensemble, or loaded from a file written without it).

    Notes
    -----
    The kernel evaluates built-in metrics without the GIL and runs in
    parallel over runs; a third-party metric without a Cython kernel is
    evaluated by its Python code under the GIL (correct, slower).
    ``decision_function`` is a pure function of each row.  See
    ``docs/exactboost.md``.

    A model of one ensemble (``head_`` None) is a sum of one step function
    per feature: ``feature_contributions`` and ``feature_interactions`` give
    its exact SHAP values (``docs/exactboost_explanations.md``).

    The runs' rounds execute inside the parallel kernel, so ``callbacks``
    are called after the runs, once per round in order; one that returns a
    truthy value truncates every run after that round (the rounds after it
    then add nothing: ``train_loss_`` stays at its value).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import rankcore
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = rankcore.ExactBoost(metric="auc", n_runs=10, random_state=0).fit(X, 1 - y)
    >>> model.decision_function(X[:3]).shape
    (3,)
    """

    name = "ExactBoost"
    aliases = ("exactboost",)
    summary = "ExactBoost: stumps boosted on the metric itself"
    examples = ("ExactBoost:n_runs=3,n_rounds=4,random_state=0",
                "ExactBoost:metric=prec@k:8,n_runs=2,n_rounds=3,random_state=0")
    parameters = EXACTBOOST_PARAMETERS
    fitted = EXACTBOOST_FITTED
    iteration_parameter = "n_rounds"

    # ------------------------------------------------------------------
    # parameters, resolved once
    # ------------------------------------------------------------------
    def _setup(self) -> ExactBoostSetup:
        """Check every parameter and resolve the metrics: the record a fit and its runs work from."""
        params = self._check_params()
        metric = resolve_monotone_metric(params.metric)
        tie_break = resolve_tie_break(params.tie_break, metric)
        head = resolve_head(params.head, metric)
        settings = RunSettings(
            metric=metric, n_rounds=params.n_rounds, subsample=params.subsample,
            feature_subsample=params.feature_subsample, margin=params.margin, margin_mode=params.margin_mode,
            depth=params.depth, max_boxes=params.max_boxes, max_thresholds=params.max_thresholds,
            tie_break=tie_break, tie_break_weight=params.tie_break_weight,
        )
        return ExactBoostSetup(params, metric, tie_break, head, resolve_tail_metric(head, tie_break), settings,
                               effective_n_threads(params.n_jobs))

    # ------------------------------------------------------------------
    # fit / predict
    # ------------------------------------------------------------------
    # qid and group are refused (one list): no hint may send a peer's group_id there
    @names_peer_fit_arguments(constructor=None, refuses=("qid", "group"))
    @fits_on_a_copy
    def fit(self, X, y, *, qid=None, group=None, eval_set=None, callbacks=None):
        """Fit ``n_runs`` boosting runs on ``X`` (n, d) and two-class labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two labels; the greater one is the relevant class.
        qid, group : None
            Not supported: this estimator ranks one list (a ValueError
            naming it; ``rankcore.boost`` fits within queries).
        eval_set : tuple (X_val, y_val), optional
            Validation data: the metric of the model truncated after each
            round is recorded in ``validation_scores_``.  One set: a list of
            one pair is that pair, a list of several is refused.
        callbacks : callable or list of callables, optional
            Each is called once per round (after the runs, see the Notes)
            with an :class:`~rankcore.base.IterationInfo`: the round, the
            mean training loss over runs, the validation score.  A truthy
            return value truncates every run after that round.

        Raises
        ------
        ValueError, TypeError
            Bad parameters, a non-monotone metric, non-finite or malformed
            ``X``, labels that are not exactly two classes, or metric
            parameters that do not fit the data (k > n).
        """
        refuse_queries(type(self).__name__, qid, group)
        setup = self._setup_record()
        _check_run_tables(setup.params.n_runs * (1 if setup.head is None else 2), setup.params.n_rounds)
        user_callbacks = check_callbacks(callbacks)
        if y is None:
            raise ValueError("ExactBoost requires y to be passed, but the target y is None")
        reject_1d(X)
        validate_data(self, X, reset=True, skip_check_array=True)
        X_arr, y01, classes = check_fit_data(X, y)
        if y01.shape[0] < 2:
            raise ValueError(f"X: expected at least 2 rows (one per class), got {y01.shape[0]}")
        # The metric's own checks on the training labels (k <= n, both classes...).
        setup.metric(y01, np.zeros(y01.shape[0]))
        names = getattr(self, "feature_names_in_", None)
        validation = (None if eval_set is None
                      else check_eval_set(eval_set, classes, X_arr.shape[1], feature_names=names,
                                          owner=type(self).__name__))
        if validation is not None:
            try:               # the metric's own checks on the validation labels too, before any run is fitted
                setup.metric(validation[1], np.zeros(validation[1].shape[0]))
            except ValueError as exc:
                raise ValueError(f"eval_set: {exc}") from None
        started = time.perf_counter()
        self.metric_, self.tie_break_, self.head_ = setup.metric, setup.tie_break, setup.head
        self.tail_metric_ = setup.tail_metric
        data = prepare_data(X_arr, y01, setup.params.max_bins)
        n_runs = setup.params.n_runs
        # the tail's seeds follow the head's: the head runs are those of head=None
        seeds = run_seeds(setup.params.random_state, n_runs if setup.head is None else 2 * n_runs)
        result = self._fit_runs(data, seeds[:n_runs], setup.settings, setup.n_threads)
        tail = None
        if setup.head is not None:
            tail = self._fit_runs(data, seeds[n_runs:], setup.tail_settings(), setup.n_threads)
        self.classes_ = classes
        if validation is not None or user_callbacks:
            result, tail = self._follow_rounds(result, tail, X_arr, validation, user_callbacks, started)
        self._set_runs(result, tail, X_arr)
        warn_if_constant(self._table.decision(X_arr), owner=type(self).__name__,
                         why=f"no run found a stump that lowers the training loss of metric {setup.metric.spec!r} "
                             f"({self.stumps_.shape[0]} stumps accepted; constant features?)")
        return self

    def _fit_runs(self, data, seeds, settings, n_threads) -> RunResult:
        """Run every run (threads in the kernel).

        The seam for distributed drivers: the runs are independent calls of
        :func:`rankcore.exactboost.fit_run` (data, seed, settings), and
        ``RunResult.concatenate`` of their results, in seed order, is what
        this returns.
        """
        return fit_runs(data, seeds, settings, n_threads=n_threads)

    def _follow_rounds(self, result, tail, X, validation, callbacks, started):
        """Score each round (validation data) and call the callbacks; cut the runs where one stops the fit.

        The model after round r is every run truncated after r rounds; its
        validation score is that model's metric, computed with the same
        scoring tables as ``decision_function``.
        """
        n_rounds = result.feature.shape[1]
        objective = result.loss.mean(axis=0)
        scores = []
        stop = n_rounds
        for r in range(1, n_rounds + 1):
            score = None
            if validation is not None:
                table = self._scoring_table(_truncated(result, r), None if tail is None else _truncated(tail, r), X)
                score = float(self.metric_(validation[1], table.decision(validation[0])))
                scores.append(score)
            if not callbacks:
                continue
            info = IterationInfo(r, n_rounds, float(objective[r]), validation_score=score,
                                 elapsed=time.perf_counter() - started)
            if run_callbacks(callbacks, info):
                stop = r
                break
        if stop < n_rounds:
            result = _truncated(result, stop)
            tail = None if tail is None else _truncated(tail, stop)
        if validation is not None:
            # one per round, the start left out (the push models' and LightGBM's curves); a stopped fit's later
            # rounds add nothing, so they repeat its last score
            last = scores[-1] if scores else math.nan
            self.validation_scores_ = np.array(scores + [last] * (n_rounds - len(scores)), dtype=np.float64)
        return result, tail

    def _scoring_table(self, result: RunResult, tail: RunResult | None, X: np.ndarray):
        """The scoring table of the runs ``result`` (and ``tail``: gated at the head threshold of ``X``)."""
        table = _step_table(*_stump_rows(result))
        if tail is None:
            return table
        threshold = head_threshold(table.decision(X), self.metric_, self.head_)
        return GatedTable(table, _step_table(*_stump_rows(tail)), float(threshold))

    def _set_runs(self, result: RunResult, tail: RunResult | None = None, X: np.ndarray | None = None) -> None:
        """Fitted attributes from the runs' stumps (rows of a result = runs, in seed order).

        With a ``tail`` (the whole-list runs), the head threshold is set from
        the head scores of the training rows ``X``; without one, the
        training means of ``feature_contributions`` (None without ``X``).
        """
        self.stumps_, self.run_lengths_ = _stump_rows(result)
        self.train_loss_ = result.loss
        self.n_evaluations_ = int(result.evals.sum())
        self.n_budget_exhausted_ = int(result.exhausted.sum())
        self.tail_stumps_ = self.tail_run_lengths_ = self.tail_train_loss_ = self.head_threshold_ = None
        table = _step_table(self.stumps_, self.run_lengths_)
        # the expected values of feature_contributions without a background (an additive model only; runs set
        # without the training rows have none: their values need a background)
        self.train_feature_means_ = None if tail is not None or X is None else training_means(table, X, X.shape[1])
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

    @names_peer_predict_arguments
    @reads_a_snapshot
    def decision_function(self, X) -> np.ndarray:
        """Run-averaged scores (higher = ranked closer to the top).

        With a tail (``head_`` not None), rows in the head score above every
        other row, by their head score; the others get their tail score.

        A pure function of each row: identical across calls, batch sizes and
        row orders, finite for a single row.
        """
        check_is_fitted(self)
        return self._checked_decision_function(self._checked_rows(X))

    def _checked_decision_function(self, X_arr: np.ndarray) -> np.ndarray:
        """:meth:`decision_function` of rows already checked (here, or by an outer estimator such as AutoRanker:
        float64, ``n_features_in_`` columns, no NaN): the same scores, without checking them again."""
        return check_finite_scores(self._table.decision(X_arr), owner=f"{type(self).__name__}.decision_function",
                                   X=X_arr)

    def _checked_rows(self, X) -> np.ndarray:
        """``X`` as float64 rows of the features of fit (names too), or a ValueError/TypeError naming X."""
        reject_1d(X)
        validate_columns(self, X, reset=False)
        X_arr = check_matrix(X, name="X")
        if X_arr.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X: expected {self.n_features_in_} features (as in fit), got {X_arr.shape[1]}"
            )
        return X_arr

    @score_takes_no_queries
    @reads_a_snapshot
    def score(self, X, y, sample_weight=None) -> float:
        """The metric on ``(X, y)``, oriented so that higher is better.

        The metric's value when greater is better, minus the value otherwise.
        ``sample_weight`` must be None (it is there for ``Pipeline.score``).
        """
        check_is_fitted(self)
        ignore_score_weights(sample_weight, self)
        refuse_labels_coded_otherwise(self, y, source=type(self).__name__)
        from ..validation import check_bipartite_target

        y_arr = np.asarray(y)
        scores = self.decision_function(X)
        if y_arr.ndim != 1:
            raise ValueError(f"y: expected a 1-D array of {scores.shape[0]} labels, got "
                             f"{'None' if y is None else f'shape {y_arr.shape}'}")
        if y_arr.shape[0] != scores.shape[0]:
            raise ValueError(f"y: expected {scores.shape[0]} labels (one per row of X), got {y_arr.shape[0]}")
        y01 = np.isin(y_arr, self.classes_[1:]).astype(np.int8)
        if not np.isin(y_arr, self.classes_).all():
            check_bipartite_target(y_arr)  # raises with a clear message for other labels
            raise ValueError(f"y: expected the labels seen in fit {np.asarray(self.classes_).tolist()!r}")
        value = float(self.metric_(y01, scores))
        return value if self.metric_.greater_is_better else -value

    def _training_curve(self) -> TrainingCurve:
        loss = np.asarray(self.train_loss_, dtype=np.float64).mean(axis=0)
        validation = getattr(self, "validation_scores_", None)
        if validation is not None:          # round 0, the start, has no validation score
            validation = np.concatenate(([np.nan], validation))
        return TrainingCurve(np.arange(loss.shape[0]), loss, validation, "training loss (mean over runs)",
                             None if validation is None else self.metric_.spec, "round")

    # ------------------------------------------------------------------
    # persistence (rankcore.persistence, no pickle)
    # ------------------------------------------------------------------
    _TAIL_KEYS = {"head_threshold", "tail_metric", "tail_stumps", "tail_run_lengths", "tail_train_loss"}

    def _check_loaded_params(self, state: dict) -> ExactBoostSetup:
        setup = self._setup_record()
        try:      # the file's metric, as the parameters' resolved one when it names it
            metric = setup.metric if state.get("metric") == setup.metric.spec else \
                resolve_monotone_metric(state.get("metric"))
        except (TypeError, ValueError) as exc:
            self._state_error(f"metric: {exc}")
        if metric.spec != setup.metric.spec:
            self._state_error(f"metric {metric.spec!r} does not match the parameter metric={self.metric!r}")
        if setup.head is not None and isinstance(self.head, str) and not self._TAIL_KEYS & set(state):
            # saved before ExactBoost had a head/tail (its parameters lack ``head``): one ensemble
            self.head = None
            setup = replace(setup, head=None, tail_metric=None)
        return setup

    def _state_fields(self, setup, state) -> tuple[set, set]:
        required = {"metric", "classes", "n_features_in", "stumps", "run_lengths", "train_loss", "n_evaluations",
                    "n_budget_exhausted"}
        if setup.head is not None:
            required |= self._TAIL_KEYS
        return required, {"feature_names_in", "validation_scores", "train_feature_means"}

    def _restore_fitted_state(self, state: dict, setup: ExactBoostSetup) -> None:
        fail = self._state_error
        metric, head, tie_break, tail_metric = setup.metric, setup.head, setup.tie_break, setup.tail_metric
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
        if head is not None:
            if state["tail_metric"] != tail_metric.spec:
                fail(f"tail_metric {state['tail_metric']!r} does not match the parameters' {tail_metric.spec!r}")
            tail = self._check_ensemble(state, "tail_", d, fail)
            threshold = state["head_threshold"]
            if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
                fail(f"head_threshold must be a finite number, got {threshold!r}")
            _check_head_threshold(float(threshold), _step_table(stumps, lengths), fail)
        for key in ("n_evaluations", "n_budget_exhausted"):
            value = state[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                fail(f"{key} must be a non-negative integer, got {value!r}")
        names = state.get("feature_names_in")
        check_feature_names(names, d, fail)
        validation = state.get("validation_scores")
        # n_rounds values; a file holding n_rounds + 1 has the score at the start first, which is dropped
        if validation is not None and not (isinstance(validation, np.ndarray) and validation.dtype == np.float64
                                           and validation.shape in ((loss.shape[1] - 1,), (loss.shape[1],))
                                           and np.isfinite(validation).all()):
            fail(f"validation_scores must be a finite float64 vector of length {loss.shape[1] - 1}")
        if validation is not None:
            self.validation_scores_ = validation[validation.shape[0] - (loss.shape[1] - 1):]
        means = state.get("train_feature_means")
        if means is not None and (head is not None or not (
                isinstance(means, np.ndarray) and means.dtype == np.float64 and means.shape == (d,)
                and np.isfinite(means).all())):
            fail(f"train_feature_means must be a finite float64 vector of length {d}, and only without a tail")
        tail_stumps, tail_lengths, tail_loss = tail if head is not None else (None,) * 3
        vars(self).update(
            metric_=metric, tie_break_=tie_break, head_=head, tail_metric_=tail_metric, classes_=classes,
            tail_stumps_=tail_stumps, tail_run_lengths_=tail_lengths, tail_train_loss_=tail_loss,
            head_threshold_=float(threshold) if head is not None else None, n_features_in_=d, stumps_=stumps,
            run_lengths_=lengths, train_loss_=loss, n_evaluations_=state["n_evaluations"], train_feature_means_=means,
            n_budget_exhausted_=state["n_budget_exhausted"])
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self._build_table()
        if means is not None and (bad := means_outside_steps(means, self._table)):
            fail(f"train_feature_means must be each feature's mean stump output over rows (0 for a feature no "
                 f"stump uses, else within its outputs' range); features {bad} are not")

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
        if (lengths < 0).any() or sum(lengths.tolist()) != stumps.shape[0]:     # a Python sum: never wraps
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

